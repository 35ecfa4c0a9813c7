// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_ressd_mover: the mover's batch building
 * (dm-ressd-mover.c).
 *
 * The batch-building cases cut sorted moves into bios: neighbours merged,
 * skipped moves left out, the length cap, runs by log slot for the reads;
 * the randomized case checks on random batches that the runs cover exactly
 * the moves not skipped, in order, each contiguous, none longer than the
 * cap, and none that could have been longer.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "dm-ressd.h"
#include "ressd-kunit.h"

/* Runs of @mv as "first+len " pairs, into @buf. */
static const char *ressd_t_runs(struct ressd_move *mv, u32 n, u32 max, bool by_slot,
				char *buf, size_t size)
{
	u32 i = 0, first, len;
	size_t o = 0;

	buf[0] = 0;
	while ((len = ressd_mover_next_run(mv, n, i, max, by_slot, &first)) && o < size) {
		o += scnprintf(buf + o, size - o, "%u+%u ", first, len);
		i = first + len;
	}
	return buf;
}

static void ressd_mover_test_directed(struct kunit *test)
{
	struct ressd_move mv[] = {
		{ 1, 40 }, { 2, 41 }, { 3, 7 }, { 5, 8 }, { 6, 9 }, { 9, 10 }, { 10, 11 },
	};
	char buf[128];
	u32 i;

	KUNIT_EXPECT_STREQ(test, ressd_t_runs(mv, 7, 256, false, buf, sizeof(buf)),
			   "0+3 3+2 5+2 ");
	/* By slot: 40 41 | 7 8 9 10 11. */
	KUNIT_EXPECT_STREQ(test, ressd_t_runs(mv, 7, 256, true, buf, sizeof(buf)),
			   "0+2 2+5 ");
	/* The cap. */
	KUNIT_EXPECT_STREQ(test, ressd_t_runs(mv, 7, 2, false, buf, sizeof(buf)),
			   "0+2 2+1 3+2 5+2 ");
	KUNIT_EXPECT_STREQ(test, ressd_t_runs(mv, 7, 1, false, buf, sizeof(buf)),
			   "0+1 1+1 2+1 3+1 4+1 5+1 6+1 ");
	/* A skipped move breaks a run and is left out. */
	mv[1].skip = true;
	mv[6].skip = true;
	KUNIT_EXPECT_STREQ(test, ressd_t_runs(mv, 7, 256, false, buf, sizeof(buf)),
			   "0+1 2+1 3+2 5+1 ");
	mv[0].skip = true;
	KUNIT_EXPECT_STREQ(test, ressd_t_runs(mv, 7, 256, false, buf, sizeof(buf)),
			   "2+1 3+2 5+1 ");
	/* Nothing left, or nothing at all. */
	for (i = 2; i <= 5; i++)
		mv[i].skip = true;
	KUNIT_EXPECT_STREQ(test, ressd_t_runs(mv, 7, 256, false, buf, sizeof(buf)), "");
	KUNIT_EXPECT_STREQ(test, ressd_t_runs(mv, 0, 256, false, buf, sizeof(buf)), "");
}

static void ressd_mover_test_long(struct kunit *test)
{
	struct ressd_move *mv;
	u32 i, first, len, n = 300;

	mv = kunit_kcalloc(test, n, sizeof(*mv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mv);
	for (i = 0; i < n; i++) {
		mv[i].block = 1000 + i;
		mv[i].slot = 5000 + i;
	}
	/* 300 neighbours, BIO_MAX_VECS at most a bio: 256 + 44. */
	KUNIT_EXPECT_EQ(test, ressd_mover_next_run(mv, n, 0, BIO_MAX_VECS, false, &first), 256U);
	KUNIT_EXPECT_EQ(test, first, 0U);
	KUNIT_EXPECT_EQ(test, ressd_mover_next_run(mv, n, 256, BIO_MAX_VECS, false, &first), 44U);
	KUNIT_EXPECT_EQ(test, first, 256U);
	KUNIT_EXPECT_EQ(test, ressd_mover_next_run(mv, n, 300, BIO_MAX_VECS, false, &first), 0U);
	len = ressd_mover_next_run(mv, n, 17, BIO_MAX_VECS, true, &first);
	KUNIT_EXPECT_EQ(test, len, 256U);
	KUNIT_EXPECT_EQ(test, first, 17U);
}

static void ressd_mover_test_random(struct kunit *test)
{
	u32 n, i, j, first, len, max, it;
	struct ressd_move *mv;
	u64 seed = 0x6d6f7665;
	bool *seen;

	mv = kunit_kcalloc(test, 512, sizeof(*mv), GFP_KERNEL);
	seen = kunit_kcalloc(test, 512, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mv);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (it = 0; it < 2000; it++) {
		u64 r = ressd_kunit_xorshift(&seed), b = r % 100000;
		bool by_slot = it & 1;

		n = 1 + (r >> 20) % 512;
		max = 1 + (r >> 30) % 64;
		for (i = 0; i < n; i++) {
			u64 x = ressd_kunit_xorshift(&seed);

			/* Sorted blocks with gaps; slots sometimes consecutive. */
			b += 1 + (x % 3 == 0 ? x % 7 : 0);
			mv[i].block = b;
			mv[i].slot = i && x % 5 ? mv[i - 1].slot + 1 : (u32)(x >> 40) % 100000;
			mv[i].skip = (x >> 16) % 8 == 0;
			seen[i] = false;
		}
		i = 0;
		while ((len = ressd_mover_next_run(mv, n, i, max, by_slot, &first))) {
			bool bad = first < i || first + len > n || len > max;

			for (j = i; j < first && !bad; j++)
				bad = !mv[j].skip;	/* a move jumped over */
			for (j = first; j < first + len && !bad; j++) {
				bad = mv[j].skip || (j > first &&
					(by_slot ? mv[j].slot != mv[j - 1].slot + 1 :
						   mv[j].block != mv[j - 1].block + 1));
				seen[j] = true;
			}
			/* Maximal: the next move could not have joined. */
			j = first + len;
			if (!bad && j < n && len < max && !mv[j].skip)
				bad = by_slot ? mv[j].slot == mv[j - 1].slot + 1 :
						mv[j].block == mv[j - 1].block + 1;
			if (bad) {
				KUNIT_FAIL(test, "seed %#x iteration %u: run %u+%u after %u",
					   0x6d6f7665, it, first, len, i);
				KUNIT_FAIL(test, "(n %u, max %u, by_slot %d)", n, max, by_slot);
				return;
			}
			i = first + len;
		}
		for (j = 0; j < n; j++) {
			if (seen[j] == mv[j].skip) {
				KUNIT_FAIL(test, "seed %#x iteration %u: move %u %s", 0x6d6f7665,
					   it, j, seen[j] ? "skipped but issued" : "never issued");
				return;
			}
		}
	}
}

static struct kunit_case ressd_mover_test_cases[] = {
	KUNIT_CASE(ressd_mover_test_directed),
	KUNIT_CASE(ressd_mover_test_long),
	KUNIT_CASE(ressd_mover_test_random),
	{}
};

static struct kunit_suite ressd_mover_test_suite = {
	.name = "dm_ressd_mover",
	.test_cases = ressd_mover_test_cases,
};

kunit_test_suites(&ressd_mover_test_suite);
