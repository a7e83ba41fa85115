/* SPDX-License-Identifier: GPL-2.0 */
#include "../../../include/linux/rosebush.h"
