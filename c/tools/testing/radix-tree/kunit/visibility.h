/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TOOLS_KUNIT_VISIBILITY_H
#define _TOOLS_KUNIT_VISIBILITY_H

#if IS_ENABLED(CONFIG_KUNIT)
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#else
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

#endif /* _TOOLS_KUNIT_VISIBILITY_H */
