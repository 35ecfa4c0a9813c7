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
 *
 * The choice per erase unit (dm-ressd-plan.c, ressd_unit_choose()) is
 * checked on each dm-ftlsim preset's model against a table worked out from
 * ftlsim.md's cost rules, and its cost against the three formulas written
 * out again here.  The unit of a block (ressd_unit_of()) is checked against
 * its definition on random offsets, negative first blocks included; the
 * steps of a round (ressd_plan_step()) on random rounds against an oracle
 * that groups the moves by unit on its own, and on the case where a unit
 * split over sparse batches once kept every later step off unit bounds.
 * Density-first cleaning's threshold and choice of units
 * (ressd_density_decide()) against a table and a brute-force oracle; log
 * reads in slot order with gaps read through (ressd_read_run()).
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

/* The presets' models (dm-ressd.rst, dev_model). */
static const struct ressd_devmodel ressd_t_models[] = {
	{ 1024, 0, 8, 50000, 36500, 52100, 1500000, 210000, 41000 },	/* ssd-a */
	{ 4096, 0, 4, 50000, 47900, 436600, 2000000, 441000, 41000 },	/* ssd-b */
	{ 128, 0, 4, 50000, 187300, 279900, 1000000, 830000, 43000 },	/* sd-card */
	{ 8192, 0, 2, 50000, 407600, 407600, 2000000, 600000, 60000 },	/* sd-worst */
	{ 0, 0, 0, 50000, 31000, 62000, 1500000, 176000, 27000 },	/* ssd-c */
};

struct unit_case {
	const char *what;
	unsigned int model;	/* index in ressd_t_models */
	struct ressd_unit_shape u;
	enum ressd_unit_op op;
};

static const struct unit_case unit_cases[] = {
	{ "ssd-b, one block: copies are dear, fill", 1, { 1, 1, 100, 100, true },
	  RESSD_UNIT_WHOLE },
	{ "ssd-b, one block, at the edge of the area", 1, { 1, 1, 100, 100, false },
	  RESSD_UNIT_SPARSE },
	{ "ssd-a, 10 scattered: sparse", 0, { 10, 10, 5, 120, true }, RESSD_UNIT_SPARSE },
	{ "ssd-a, 23 scattered: sparse", 0, { 23, 23, 0, 127, true }, RESSD_UNIT_SPARSE },
	{ "ssd-a, 24 scattered: whole", 0, { 24, 24, 0, 127, true }, RESSD_UNIT_WHOLE },
	{ "ssd-a, 30 in pages 3-120: prefix", 0, { 30, 30, 3, 120, true }, RESSD_UNIT_PREFIX },
	{ "ssd-a, 11 in pages 0-20: prefix", 0, { 11, 11, 0, 20, true }, RESSD_UNIT_PREFIX },
	{ "ssd-a, pages 0-20 in one run: in order already", 0, { 21, 1, 0, 20, true },
	  RESSD_UNIT_SPARSE },
	{ "ssd-a, the whole unit in one run", 0, { 128, 1, 0, 127, true }, RESSD_UNIT_SPARSE },
	{ "sd-worst, one block: copies cost writes, sparse", 3, { 1, 1, 500, 500, true },
	  RESSD_UNIT_SPARSE },
	{ "sd-card, one block: whole", 2, { 1, 1, 7, 7, true }, RESSD_UNIT_WHOLE },
	{ "sd-card, two blocks from page 0: whole", 2, { 2, 2, 0, 15, true }, RESSD_UNIT_WHOLE },
	{ "ssd-c, no unit: sparse", 4, { 3, 3, 1, 9, true }, RESSD_UNIT_SPARSE },
	{ "ssd-b, nothing to write", 1, { 0, 0, 0, 0, true }, RESSD_UNIT_SPARSE },
};

static void unit_case_desc(const struct unit_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(unit, unit_cases, unit_case_desc);

static u64 ressd_t_partial(u64 p, u64 l, const struct ressd_devmodel *m)
{
	return !l ? 0 : l >= p ? m->erase_ns : (p - l) * m->copy_ns + m->erase_ns;
}

static void ressd_mover_test_unit_choose(struct kunit *test)
{
	const struct unit_case *c = test->param_value;
	const struct ressd_devmodel *m = &ressd_t_models[c->model];
	const struct ressd_unit_shape *u = &c->u;
	u64 p = m->unit_sectors / 8, l = u->last_off + 1, k = u->dirty, cost, want;
	u64 sparse, prefix, whole, merge;

	/* The three ways, as ftlsim.md charges them. */
	merge = u->runs == 1 && !u->first_off ? ressd_t_partial(p, k, m) :
		p ? p * m->copy_ns + 2 * m->erase_ns : 0;
	sparse = !k ? 0 : u->runs * m->w_req_ns + k * m->w_page_ns + merge;
	prefix = (k < l ? DIV_ROUND_UP(l, 256) * m->r_req_ns + l * m->r_page_ns : 0) +
		 DIV_ROUND_UP(l, 256) * m->w_req_ns + l * m->w_page_ns + ressd_t_partial(p, l, m);
	whole = (k < p ? DIV_ROUND_UP(p, 256) * m->r_req_ns + p * m->r_page_ns : 0) +
		DIV_ROUND_UP(p, 256) * m->w_req_ns + p * m->w_page_ns + m->erase_ns;
	if (k) {
		KUNIT_EXPECT_EQ(test, ressd_unit_cost(m, u, RESSD_UNIT_SPARSE), sparse);
		if (p) {
			KUNIT_EXPECT_EQ(test, ressd_unit_cost(m, u, RESSD_UNIT_PREFIX), prefix);
			KUNIT_EXPECT_EQ(test, ressd_unit_cost(m, u, RESSD_UNIT_WHOLE), whole);
		}
	}
	KUNIT_EXPECT_EQ(test, ressd_unit_choose(m, u, &cost), c->op);
	want = c->op == RESSD_UNIT_WHOLE ? whole : c->op == RESSD_UNIT_PREFIX ? prefix : sparse;
	KUNIT_EXPECT_EQ(test, cost, want);
	/* Nothing cheaper was passed over (when filling is allowed). */
	if (u->inside && p && k) {
		KUNIT_EXPECT_LE(test, cost, sparse);
		KUNIT_EXPECT_LE(test, cost, prefix);
		KUNIT_EXPECT_LE(test, cost, whole);
	}
}

/* Unit of block @b by its definition: the unit that holds its first sector. */
static s64 ressd_t_unit_lo(const struct ressd_devmodel *m, u64 off, u64 b)
{
	s64 x = (s64)(off + b * 8) - (s64)m->unit_offset;
	s64 k = x >= 0 ? x / m->unit_sectors : -((-x + m->unit_sectors - 1) / m->unit_sectors);

	return (k * (s64)m->unit_sectors + (s64)m->unit_offset - (s64)off) / 8;
}

static void ressd_mover_test_unit_of(struct kunit *test)
{
	struct ressd_devmodel m = { 4096, 0 };
	u64 seed = 0x5eed0f11, u1, u2;
	s64 lo, lo2;
	unsigned int i;

	/* Directed: 2 MiB units, the normal area 1 MiB into the device. */
	ressd_unit_of(&m, 2048, 0, &lo);
	KUNIT_EXPECT_EQ(test, lo, -256LL);
	ressd_unit_of(&m, 2048, 255, &lo);
	KUNIT_EXPECT_EQ(test, lo, -256LL);
	ressd_unit_of(&m, 2048, 256, &lo);
	KUNIT_EXPECT_EQ(test, lo, 256LL);
	m.unit_offset = 1024;
	ressd_unit_of(&m, 2048, 0, &lo);
	KUNIT_EXPECT_EQ(test, lo, -128LL);
	ressd_unit_of(&m, 2048, 384, &lo);
	KUNIT_EXPECT_EQ(test, lo, 384LL);
	m.unit_offset = 0;
	ressd_unit_of(&m, 0, 511, &lo);
	KUNIT_EXPECT_EQ(test, lo, 0LL);

	for (i = 0; i < 2000; i++) {
		u64 r = ressd_kunit_xorshift(&seed), off, b;

		m.unit_sectors = 16 + 8 * (r % 2048);
		m.unit_offset = 8 * ((r >> 12) % (m.unit_sectors / 8));
		off = 8 * ((r >> 24) % 100000);
		b = (r >> 44) % 100000;
		u1 = ressd_unit_of(&m, off, b, &lo);
		KUNIT_ASSERT_EQ_MSG(test, lo, ressd_t_unit_lo(&m, off, b),
				    "U %u off %u origin %llu block %llu", m.unit_sectors,
				    m.unit_offset, off, b);
		KUNIT_EXPECT_LE(test, lo, (s64)b);
		KUNIT_EXPECT_LT(test, (s64)b, lo + m.unit_sectors / 8);
		/* The number is the same exactly for the blocks of one unit. */
		u2 = ressd_unit_of(&m, off, b + 1, &lo2);
		KUNIT_EXPECT_EQ(test, u1 == u2, lo == lo2);
	}
}

/*
 * The oracle of a round's steps: moves grouped by unit with
 * ressd_t_unit_lo(), each unit's way chosen from its shape as the mover
 * must, then every step checked against the groups.
 */
static void ressd_t_check_steps(struct kunit *test, const struct ressd_devmodel *m,
				const struct ressd_step_geo *g, const struct ressd_move *mv,
				u32 n, u32 *fills)
{
	u32 p = m->unit_sectors / 8, i, j, k, sparse_want = 0, sparse_got = 0;
	enum ressd_unit_op *op = kunit_kcalloc(test, n, sizeof(*op), GFP_KERNEL);
	u32 *start = kunit_kcalloc(test, n, sizeof(*start), GFP_KERNEL);
	u32 *end = kunit_kcalloc(test, n, sizeof(*end), GFP_KERNEL);
	struct ressd_step st;

	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_ASSERT_NOT_NULL(test, start);
	KUNIT_ASSERT_NOT_NULL(test, end);
	for (i = 0; i < n; i = j) {
		s64 lo = ressd_t_unit_lo(m, g->origin_offset, mv[i].block);
		struct ressd_unit_shape u = { .runs = 1 };

		for (j = i + 1; j < n && ressd_t_unit_lo(m, g->origin_offset, mv[j].block) == lo;
		     j++)
			u.runs += mv[j].block != mv[j - 1].block + 1;
		u.dirty = j - i;
		u.first_off = mv[i].block - lo;
		u.last_off = mv[j - 1].block - lo;
		u.inside = g->fill_ok && lo >= 0 && lo + p <= g->origin_blocks;
		for (k = i; k < j; k++) {
			op[k] = ressd_unit_choose(m, &u, NULL);
			start[k] = i;
			end[k] = j;
		}
		sparse_want += op[i] == RESSD_UNIT_SPARSE;
	}
	*fills = 0;
	for (i = 0; i < n; i += st.n) {
		ressd_plan_step(m, g, mv, n, i, &st);
		KUNIT_ASSERT_GE_MSG(test, st.n, 1U, "step at %u", i);
		KUNIT_ASSERT_LE(test, i + st.n, n);
		sparse_got += st.sparse_units;
		if (st.op != RESSD_UNIT_SPARSE) {
			/* One whole unit, the way the oracle chose. */
			KUNIT_EXPECT_EQ_MSG(test, st.op, op[i], "step at %u", i);
			KUNIT_EXPECT_EQ(test, start[i], i);
			KUNIT_EXPECT_EQ(test, end[i], i + st.n);
			KUNIT_EXPECT_EQ(test, st.lo, ressd_t_unit_lo(m, g->origin_offset,
								     mv[i].block));
			KUNIT_EXPECT_EQ(test, st.len, st.op == RESSD_UNIT_WHOLE ? p :
				(u32)(mv[i + st.n - 1].block - st.lo + 1));
			(*fills)++;
			continue;
		}
		KUNIT_EXPECT_LE(test, st.n, g->batch);
		for (k = i; k < i + st.n; k++)
			KUNIT_EXPECT_EQ_MSG(test, op[k], RESSD_UNIT_SPARSE, "move %u", k);
		/*
		 * A batch ends at a unit's end, or splits a unit larger than a
		 * batch (which then must have taken a whole batch).
		 */
		k = i + st.n;
		if (k < n && start[k] != k)
			KUNIT_EXPECT_EQ_MSG(test, st.n, g->batch, "step at %u splits a unit", i);
		if (k < n && start[k] != k)
			KUNIT_EXPECT_GT(test, end[k] - start[k], g->batch);
	}
	KUNIT_EXPECT_EQ(test, sparse_got, sparse_want);
}

/* Sorted distinct random blocks into @mv; how many. */
static u32 ressd_t_random_moves(u64 *seed, struct ressd_move *mv, u32 max, u64 span)
{
	u32 i, n = 0;
	u64 b = ressd_kunit_xorshift(seed) % 64;

	for (i = 0; i < max && b < span; i++) {
		mv[n++] = (struct ressd_move){ .block = b };
		/* runs of neighbours and gaps of every size */
		switch (ressd_kunit_xorshift(seed) % 4) {
		case 0:
			b += 1;
			break;
		case 1:
			b += 1 + ressd_kunit_xorshift(seed) % 8;
			break;
		default:
			b += 1 + ressd_kunit_xorshift(seed) % 600;
		}
	}
	return n;
}

static void ressd_mover_test_plan_step(struct kunit *test)
{
	const u32 max = 3000;
	struct ressd_move *mv = kunit_kcalloc(test, max, sizeof(*mv), GFP_KERNEL);
	u64 seed = 0xfeed5eed;
	u32 round, n, fills, total = 0;

	KUNIT_ASSERT_NOT_NULL(test, mv);
	for (round = 0; round < 200; round++) {
		const struct ressd_devmodel *m = &ressd_t_models[round % 4];
		struct ressd_devmodel mm = *m;
		u64 r = ressd_kunit_xorshift(&seed);
		struct ressd_step_geo g = {
			.origin_offset = 8 * (r % 4096),
			.origin_blocks = 60000 + r % 50000,
			.batch = 1 + (r >> 16) % 200,
			.fill_ok = (r >> 32) % 8 != 0,
		};

		mm.unit_offset = 8 * ((r >> 40) % (mm.unit_sectors / 8));
		n = ressd_t_random_moves(&seed, mv, max, g.origin_blocks);
		ressd_t_check_steps(test, &mm, &g, mv, n, &fills);
		total += fills;
	}
	KUNIT_EXPECT_GT(test, total, 100U);	/* the rounds did fill units */
}

/*
 * ssd-a's model, batches of 2 moves (mover_batch 16): a sparse unit of 9
 * moves, then 5 units of 40 scattered moves each, which must each be
 * filled, whatever the batches before them did.  (The first version of the
 * step kept taking whole batches after the split unit, never on a unit's
 * first move again, and filled none of the 5.)
 */
static void ressd_mover_test_plan_step_split(struct kunit *test)
{
	struct ressd_move *mv = kunit_kcalloc(test, 9 + 5 * 40, sizeof(*mv), GFP_KERNEL);
	struct ressd_step_geo g = { 0, 1 << 20, 2, true };
	u32 i, k, n = 0, fills;

	KUNIT_ASSERT_NOT_NULL(test, mv);
	for (i = 0; i < 9; i++)	/* pages 5 to 109: sparse is cheapest */
		mv[n++] = (struct ressd_move){ .block = 5 + 13 * i };
	for (k = 1; k <= 5; k++)
		for (i = 0; i < 40; i++)
			mv[n++] = (struct ressd_move){ .block = 128 * k + 3 * i };
	ressd_t_check_steps(test, &ressd_t_models[0], &g, mv, n, &fills);
	KUNIT_EXPECT_EQ(test, fills, 5U);
}

/*
 * ressd_density_decide() on fixed tallies: copies while they fit, the
 * densest units home first, ties together.
 */
static void ressd_mover_test_density_table(struct kunit *test)
{
	static const struct {
		u32 dirty[4];	/* each unit's logged blocks; nr = 2 each */
		u32 max_fwd;
		u32 d;
		u32 fwd;
	} t[] = {
		{ { 10, 20, 30, 40 }, 8, 41, 8 },	/* everything fits: nothing home */
		{ { 10, 20, 30, 40 }, 7, 40, 6 },	/* the densest goes */
		{ { 10, 20, 30, 40 }, 5, 30, 4 },
		{ { 10, 20, 30, 40 }, 2, 20, 2 },
		{ { 10, 20, 30, 40 }, 0, 10, 0 },	/* no room: all home */
		{ { 40, 40, 3, 40 }, 3, 40, 2 },	/* ties go together */
		{ { 40, 40, 3, 40 }, 1, 3, 0 },
		{ { 2, 2, 2, 2 }, 7, 2, 0 },
		{ { U32_MAX, 1, 1, 1 }, 6, U32_MAX, 6 },	/* no overflow */
	};
	struct ressd_unit_tally u[4];
	u32 i, k, d, fwd;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		for (k = 0; k < 4; k++)
			u[k] = (struct ressd_unit_tally){ .first = 2 * k, .nr = 2,
							  .dirty = t[i].dirty[k] };
		fwd = ressd_density_decide(u, 4, t[i].max_fwd, &d);
		KUNIT_EXPECT_EQ_MSG(test, d, t[i].d, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, fwd, t[i].fwd, "case %u", i);
		for (k = 0; k < 4; k++)
			KUNIT_EXPECT_EQ_MSG(test, u[k].home, u[k].dirty >= d, "case %u unit %u",
					    i, k);
	}
}

/*
 * ressd_density_decide() on random tallies against an oracle: d is the
 * largest threshold, from one above the densest unit down, whose forwards
 * fit @max_fwd; home is exactly dirty >= d; the count
 * returned is the non-home units' moves; and no home unit is sparser than
 * a unit left to forward (densest first).
 */
static void ressd_mover_test_density_decide(struct kunit *test)
{
	const u32 max = 200;
	struct ressd_unit_tally *t = kunit_kcalloc(test, max, sizeof(*t), GFP_KERNEL);
	u64 seed = 0xde5171;
	u32 round, lowered = 0;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (round = 0; round < 500; round++) {
		u32 nt = 1 + ressd_kunit_xorshift(&seed) % max, i, d, got, want_d, fwd;
		u32 total = 0, max_fwd, min_home = U32_MAX, max_fwd_dirty = 0, top = 0;

		for (i = 0; i < nt; i++) {
			t[i].nr = 1 + ressd_kunit_xorshift(&seed) % 8;
			t[i].dirty = t[i].nr + ressd_kunit_xorshift(&seed) % (round % 3 ? 40 : 4);
			t[i].first = total;
			total += t[i].nr;
			top = max(top, t[i].dirty + 1);
		}
		max_fwd = ressd_kunit_xorshift(&seed) % (total + total / 4 + 1);
		got = ressd_density_decide(t, nt, max_fwd, &d);

		/* The oracle: down from above the densest to the first that fits. */
		for (want_d = top;; want_d--) {
			fwd = 0;
			for (i = 0; i < nt; i++)
				if (t[i].dirty < want_d)
					fwd += t[i].nr;
			if (fwd <= max_fwd || !want_d)
				break;
		}
		lowered += want_d < top;
		KUNIT_ASSERT_EQ_MSG(test, d, want_d, "round %u", round);
		KUNIT_ASSERT_EQ_MSG(test, got, fwd, "round %u", round);
		KUNIT_ASSERT_LE(test, got, max_fwd);
		for (i = 0; i < nt; i++) {
			KUNIT_ASSERT_EQ_MSG(test, t[i].home, t[i].dirty >= d, "round %u unit %u",
					    round, i);
			if (t[i].home)
				min_home = min(min_home, t[i].dirty);
			else
				max_fwd_dirty = max(max_fwd_dirty, t[i].dirty);
		}
		KUNIT_ASSERT_TRUE(test, min_home == U32_MAX || min_home > max_fwd_dirty);
	}
	KUNIT_EXPECT_GT(test, lowered, 50U);	/* the limit did bind */
	KUNIT_EXPECT_LT(test, lowered, 475U);	/* and everything fitted, too */
}

/*
 * The runs of @ref[0..@n) (sorted by slot) against their definition: they
 * take every move once, in order; each covers exactly the slots from its
 * first move's to its last one's, at most @max, with no gap above @gap;
 * and each ends only where the next move could not join it.  Returns the
 * runs that read through a gap.
 */
static u32 ressd_t_check_read_runs(struct kunit *test, const struct ressd_slot_ref *ref,
				   u32 n, u32 gap, u32 max)
{
	u32 i, k, cnt, slots, bridged = 0;

	for (k = 0; k < n; k += cnt) {
		const struct ressd_slot_ref *a = &ref[k];

		cnt = ressd_read_run(ref, n, k, gap, max, &slots);
		KUNIT_ASSERT_GE(test, cnt, 1U);
		KUNIT_ASSERT_LE(test, k + cnt, n);
		KUNIT_ASSERT_EQ(test, slots, a[cnt - 1].slot - a[0].slot + 1);
		KUNIT_ASSERT_TRUE(test, slots <= max || cnt == 1);
		for (i = 1; i < cnt; i++)
			KUNIT_ASSERT_LE(test, a[i].slot - a[i - 1].slot - 1, gap);
		bridged += slots > cnt;
		if (k + cnt < n)	/* the next move could not join */
			KUNIT_ASSERT_TRUE(test, a[cnt].slot - a[cnt - 1].slot - 1 > gap ||
					  a[cnt].slot - a[0].slot + 1 > max);
	}
	return bridged;
}

/* Log reads in slot order (ressd_read_run()) on random sorted slot sets. */
static void ressd_mover_test_read_run(struct kunit *test)
{
	struct ressd_slot_ref *ref = kunit_kcalloc(test, 300, sizeof(*ref), GFP_KERNEL);
	u64 seed = 0x5107, r;
	u32 round, bridged = 0, n, i, slot;

	KUNIT_ASSERT_NOT_NULL(test, ref);
	for (round = 0; round < 300; round++) {
		r = ressd_kunit_xorshift(&seed);
		n = 1 + r % 300;
		slot = (r >> 32) % 1000;
		for (i = 0; i < n; i++) {
			ref[i] = (struct ressd_slot_ref){ .slot = slot, .idx = i };
			r = ressd_kunit_xorshift(&seed);
			slot += 1 + (r % 4 ? 0 : (r >> 8) % 12);
		}
		r = ressd_kunit_xorshift(&seed);
		bridged += ressd_t_check_read_runs(test, ref, n, r % 8, 1 + (r >> 8) % 40);
	}
	KUNIT_EXPECT_GT(test, bridged, 100U);	/* gaps were read through */
}

/* The widest gap read through: r_req / r_page, at most 64, 0 without a model. */
static void ressd_mover_test_read_gap(struct kunit *test)
{
	struct ressd_devmodel m = { .r_req_ns = 1000000, .r_page_ns = 1 };

	KUNIT_EXPECT_EQ(test, ressd_read_gap(&ressd_t_models[0]), 210000U / 41000);
	KUNIT_EXPECT_EQ(test, ressd_read_gap(&(struct ressd_devmodel){ 0 }), 0U);
	KUNIT_EXPECT_EQ(test, ressd_read_gap(&m), 64U);
}

/*
 * The ghost log (log_mode auto) on synthetic streams, against what a FIFO
 * log of the same window would absorb: uniform random blocks over a span
 * S = 8 L are absorbed 1 - (1 - 1/S)^L = 117.5 per mille of the time; a
 * loop over L/2 blocks, after its first pass, always.  About one block in
 * RESSD_GHOST_SAMPLE is sampled.
 */
static void ressd_mover_test_ghost(struct kunit *test)
{
	const u32 L = 4096, S = 8 * 4096, N = 200000;
	u32 *tab = kunit_kcalloc(test, L, sizeof(u32), GFP_KERNEL);
	struct ressd_ghost g = { .tab = tab, .size = L, .window = L };
	u64 seed = 0x6057;
	u32 i, hits = 0, n = 0;
	int h;

	KUNIT_ASSERT_NOT_NULL(test, tab);
	for (i = 0; i < N; i++) {
		h = ressd_ghost_note(&g, ressd_kunit_xorshift(&seed) % S);
		hits += h > 0;
		n += h >= 0;
	}
	KUNIT_EXPECT_GE(test, n, N / RESSD_GHOST_SAMPLE / 2);	/* about 1 in 16 sampled */
	KUNIT_EXPECT_LE(test, n, N / RESSD_GHOST_SAMPLE * 2);
	/* Collisions in the sample lose a few hits (their tags differ). */
	KUNIT_EXPECT_GE(test, hits * 1000ULL / n, 100ULL);
	KUNIT_EXPECT_LE(test, hits * 1000ULL / n, 135ULL);
	memset(tab, 0, L * sizeof(u32));
	g.clock = 0;
	hits = 0;
	n = 0;
	for (i = 0; i < N; i++) {
		h = ressd_ghost_note(&g, 1000000 + i % (L / 2));
		hits += h > 0;
		n += h >= 0;
	}
	/* Only the first pass misses, and blocks that share a word with another. */
	KUNIT_EXPECT_GE(test, hits * 1000ULL / n, 900ULL);
}

/*
 * log_mode auto's choice on the models: a page-mapped device whose random
 * writes cost as much as its sequential ones (ssd-c as the probe measures
 * it in use) passes through unless most small writes die in the log, with
 * 5 % of hysteresis each way; a log-block device, or no model, always logs.
 */
static void ressd_mover_test_log_pass(struct kunit *test)
{
	const struct ressd_devmodel ssd_c = {
		.w_req_ns = 78973, .w_page_ns = 472165, .r_req_ns = 176000, .r_page_ns = 27000,
		.rw4k_ns = 610142, .ow4k_ns = 619338,
	};
	const struct ressd_devmodel none = { 0 };
	u32 a, flips = 0, up = 0, down = 0;
	bool pass;

	KUNIT_EXPECT_TRUE(test, ressd_log_pass(&ssd_c, 0, false));
	KUNIT_EXPECT_TRUE(test, ressd_log_pass(&ssd_c, 500, false));
	KUNIT_EXPECT_FALSE(test, ressd_log_pass(&ssd_c, 1000, false));
	KUNIT_EXPECT_FALSE(test, ressd_log_pass(&ssd_c, 1000, true));
	KUNIT_EXPECT_FALSE(test, ressd_log_pass(&ressd_t_models[0], 0, false));
	KUNIT_EXPECT_FALSE(test, ressd_log_pass(&ressd_t_models[0], 0, true));
	KUNIT_EXPECT_FALSE(test, ressd_log_pass(&none, 0, true));
	/*
	 * Logging costs 477 us + 822 us (1 - a) against 610 us, even near
	 * a = 839: passing, it logs again once 5 % cheaper (a above about
	 * 874); logging, it passes once 5 % dearer (a below about 803).
	 */
	for (a = 0, pass = true; a <= 1000; a++) {
		bool now = ressd_log_pass(&ssd_c, a, pass);

		if (now != pass && !flips++)
			up = a;
		pass = now;
	}
	KUNIT_EXPECT_EQ(test, flips, 1U);
	for (a = 1001, flips = 0, pass = false; a-- > 0;) {
		bool now = ressd_log_pass(&ssd_c, a, pass);

		if (now != pass && !flips++)
			down = a;
		pass = now;
	}
	KUNIT_EXPECT_EQ(test, flips, 1U);
	KUNIT_EXPECT_GE(test, up, 865U);
	KUNIT_EXPECT_LE(test, up, 885U);
	KUNIT_EXPECT_GE(test, down, 795U);
	KUNIT_EXPECT_LE(test, down, 812U);
}

static struct kunit_case ressd_mover_test_cases[] = {
	KUNIT_CASE(ressd_mover_test_directed),
	KUNIT_CASE(ressd_mover_test_long),
	KUNIT_CASE(ressd_mover_test_random),
	KUNIT_CASE_PARAM(ressd_mover_test_unit_choose, unit_gen_params),
	KUNIT_CASE(ressd_mover_test_unit_of),
	KUNIT_CASE(ressd_mover_test_plan_step),
	KUNIT_CASE(ressd_mover_test_plan_step_split),
	KUNIT_CASE(ressd_mover_test_density_table),
	KUNIT_CASE(ressd_mover_test_density_decide),
	KUNIT_CASE(ressd_mover_test_read_run),
	KUNIT_CASE(ressd_mover_test_read_gap),
	KUNIT_CASE(ressd_mover_test_ghost),
	KUNIT_CASE(ressd_mover_test_log_pass),
	{}
};

static struct kunit_suite ressd_mover_test_suite = {
	.name = "dm_ressd_mover",
	.test_cases = ressd_mover_test_cases,
};

kunit_test_suites(&ressd_mover_test_suite);
