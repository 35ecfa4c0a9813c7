/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the KUnit suites of dm-ressd share.
 */
#ifndef RESSD_KUNIT_H
#define RESSD_KUNIT_H

#include <linux/types.h>

/*
 * The suites' random generator: a seeded xorshift, so that a failure names
 * its seed and replays exactly.
 */
static inline u64 ressd_kunit_xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif /* RESSD_KUNIT_H */
