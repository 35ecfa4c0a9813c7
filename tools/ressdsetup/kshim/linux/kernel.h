/* SPDX-License-Identifier: GPL-2.0-only */
/* kshim (see types.h): <linux/kernel.h>. */
#ifndef RESSD_KSHIM_KERNEL_H
#define RESSD_KSHIM_KERNEL_H

#include <stddef.h>	/* offsetof */
#include <stdio.h>	/* snprintf */

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif
