/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim (see types.h): <linux/errno.h>, the uapi's (the E* numbers), which
 * glibc's <errno.h> includes too.
 */
#include_next <linux/errno.h>
