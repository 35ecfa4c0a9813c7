/* SPDX-License-Identifier: GPL-2.0-only */
/* kshim (see types.h): <linux/math64.h> and DIV_ROUND_UP_ULL. */
#ifndef RESSD_KSHIM_MATH64_H
#define RESSD_KSHIM_MATH64_H

#include <linux/types.h>

#define DIV_ROUND_UP_ULL(n, d)	div64_u64((n) + (d) - 1, (d))

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

#endif
