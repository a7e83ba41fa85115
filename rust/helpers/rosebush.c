// SPDX-License-Identifier: GPL-2.0

#include <linux/rosebush.h>

void *rust_helper_rbh_next(struct rbh_iter *rbhi)
{
	return rbh_next(rbhi);
}
