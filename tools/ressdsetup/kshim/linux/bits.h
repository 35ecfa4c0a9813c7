/* SPDX-License-Identifier: GPL-2.0-only */
/* kshim (see types.h): <linux/bits.h>. */
#ifndef RESSD_KSHIM_BITS_H
#define RESSD_KSHIM_BITS_H

#define BIT(nr)		(1UL << (nr))

#endif
