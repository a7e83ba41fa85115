// SPDX-License-Identifier: GPL-2.0

#include <linux/rosebush.h>

void *rust_helper_rbh_first(struct rbh_iter *rbhi, const struct rbh *rbh,
			    u32 hash)
{
	return rbh_first(rbhi, rbh, hash);
}
