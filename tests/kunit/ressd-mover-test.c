// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the classifier (dm-ressd.c, suite dm_ressd_classifier) and
 * of the mover's batch building (dm-ressd-mover.c, suite dm_ressd_mover).
 *
 * The classifier's directed cases check sequential streams, interleaved
 * streams up to and beyond the number remembered, sizes at and around
 * small_write_max, odd sizes, and that a busy stream survives random
 * writes between its pieces.  The randomized case compares every decision
 * with a reference model written differently (streams with last-use times,
 * the least recently used one replaced).
 *
 * The batch-building cases cut sorted moves into bios: neighbours merged,
 * skipped moves left out, the length cap, runs by log slot for the reads;
 * the randomized case checks on random batches that the runs cover exactly
 * the moves not skipped, in order, each contiguous, none longer than the
 * cap, and none that could have been longer.  The generator is a seeded
 * xorshift, so a failure names its seed and replays exactly.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "dm-ressd.h"

static u64 ressd_t_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- the classifier ---- */

static bool ressd_t_cls(struct ressd_classifier *c, sector_t start,
			unsigned int sectors)
{
	return ressd_classify(c, start, sectors, 16);
}

static void ressd_cls_test_sequential(struct kunit *test)
{
	struct ressd_classifier c = {};
	sector_t s;

	/* The first small write of a stream is random, the rest are not. */
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 800, 8));
	for (s = 808; s < 808 + 64 * 8; s += 8)
		KUNIT_EXPECT_FALSE(test, ressd_t_cls(&c, s, 8));
	/* A gap or a step back is random again. */
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, s + 8, 8));
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 800, 8));
	/* Overwriting the same block over and over is random. */
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 4000, 8));
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 4000, 8));
}

static void ressd_cls_test_sizes(struct kunit *test)
{
	struct ressd_classifier c = {};

	/* At and around small_write_max (16 sectors), each a new stream. */
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 1000, 8, 16));
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 2000, 16, 16));
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 3000, 24, 16));
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 4000, 2048, 16));
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 5000, 24, 24));
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 6000, 32, 24));
	/* A large write starts a stream that a small one then continues. */
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 4000 + 2048, 8, 16));
	/* Odd sizes: the stream continues at the exact sector. */
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 9001, 3, 16));
	KUNIT_EXPECT_FALSE(test, ressd_classify(&c, 9004, 5, 16));
	KUNIT_EXPECT_TRUE(test, ressd_classify(&c, 9010, 8, 16));
}

/* @streams sequential streams written round robin, @rounds pieces each. */
static unsigned int ressd_t_interleave(unsigned int streams, unsigned int rounds)
{
	struct ressd_classifier c = {};
	unsigned int r, i, random = 0;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < streams; i++)
			random += ressd_t_cls(&c, (sector_t)i * 1000000 + r * 8, 8);
	return random;
}

static void ressd_cls_test_interleaved(struct kunit *test)
{
	/* Up to RESSD_STREAMS streams: only the first piece of each. */
	KUNIT_EXPECT_EQ(test, ressd_t_interleave(1, 50), 1U);
	KUNIT_EXPECT_EQ(test, ressd_t_interleave(3, 50), 3U);
	KUNIT_EXPECT_EQ(test, ressd_t_interleave(RESSD_STREAMS, 50), RESSD_STREAMS);
	/* One more than remembered: round robin evicts each before its turn. */
	KUNIT_EXPECT_EQ(test, ressd_t_interleave(RESSD_STREAMS + 1, 50),
			(RESSD_STREAMS + 1) * 50);
}

static void ressd_cls_test_lru(struct kunit *test)
{
	struct ressd_classifier c = {};
	sector_t s = 100000;
	unsigned int i;

	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, s, 8));
	s += 8;
	/* RESSD_STREAMS - 1 random writes between two pieces: remembered. */
	for (i = 0; i < RESSD_STREAMS - 1; i++)
		KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 8 * (1000 + 10 * i), 8));
	KUNIT_EXPECT_FALSE(test, ressd_t_cls(&c, s, 8));
	s += 8;
	/* The hit made it the most recent again: another such gap is fine. */
	for (i = 0; i < RESSD_STREAMS - 1; i++)
		KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 8 * (5000 + 10 * i), 8));
	KUNIT_EXPECT_FALSE(test, ressd_t_cls(&c, s, 8));
	s += 8;
	/* RESSD_STREAMS random writes push it out. */
	for (i = 0; i < RESSD_STREAMS; i++)
		KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, 8 * (9000 + 10 * i), 8));
	KUNIT_EXPECT_TRUE(test, ressd_t_cls(&c, s, 8));
}

/* The reference: each stream with the time it was last used. */
struct ressd_t_stream {
	sector_t end;
	u64 used;
	bool valid;
};

static void ressd_cls_test_model(struct kunit *test)
{
	struct ressd_t_stream model[RESSD_STREAMS] = {};
	struct ressd_classifier c = {};
	sector_t ends[32];
	u64 seed = 0x5eed0001, t;
	unsigned int i, k, nends = 0;

	for (t = 1; t <= 20000; t++) {
		u64 r = ressd_t_rand(&seed);
		unsigned int sectors = 8 * (1 + (r >> 8) % 4);
		unsigned int small = 8 * (1 + (r >> 16) % 3);
		sector_t start;
		bool want = true, got;

		/* Continue a recent end most of the time, else anywhere. */
		if (nends && r % 4)
			start = ends[(r >> 24) % nends];
		else
			start = 8 * ((r >> 32) % 4096);

		/* A hit continues the most recent stream ending there. */
		for (i = RESSD_STREAMS, k = 0; k < RESSD_STREAMS; k++)
			if (model[k].valid && model[k].end == start &&
			    (i == RESSD_STREAMS || model[k].used > model[i].used))
				i = k;
		if (i < RESSD_STREAMS) {
			want = false;
		} else {
			/* A free entry, else the least recently used. */
			for (i = 0, k = 0; i < RESSD_STREAMS; i++) {
				if (!model[i].valid) {
					k = i;
					break;
				}
				if (model[i].used < model[k].used)
					k = i;
			}
			i = k;
			want = sectors <= small;
		}
		model[i].valid = true;
		model[i].end = start + sectors;
		model[i].used = t;
		ends[nends < ARRAY_SIZE(ends) ? nends++ : (r >> 40) % ARRAY_SIZE(ends)] =
			start + sectors;

		got = ressd_classify(&c, start, sectors, small);
		if (got != want) {
			KUNIT_FAIL(test, "seed %#x step %llu: write %llu+%u (max %u)",
				   0x5eed0001, t, (u64)start, sectors, small);
			KUNIT_FAIL(test, "classifier %d, model %d", got, want);
			return;
		}
	}
}

static struct kunit_case ressd_cls_test_cases[] = {
	KUNIT_CASE(ressd_cls_test_sequential),
	KUNIT_CASE(ressd_cls_test_sizes),
	KUNIT_CASE(ressd_cls_test_interleaved),
	KUNIT_CASE(ressd_cls_test_lru),
	KUNIT_CASE(ressd_cls_test_model),
	{}
};

static struct kunit_suite ressd_cls_test_suite = {
	.name = "dm_ressd_classifier",
	.test_cases = ressd_cls_test_cases,
};

/* ---- the mover's batch building ---- */

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
		u64 r = ressd_t_rand(&seed), b = r % 100000;
		bool by_slot = it & 1;

		n = 1 + (r >> 20) % 512;
		max = 1 + (r >> 30) % 64;
		for (i = 0; i < n; i++) {
			u64 x = ressd_t_rand(&seed);

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

kunit_test_suites(&ressd_cls_test_suite, &ressd_mover_test_suite);
