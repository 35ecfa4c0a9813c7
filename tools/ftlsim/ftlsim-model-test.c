// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_ftlsim_model (module dm_ftlsim_kunit.ko): the cost model
 * of dm-ftlsim (ftlsim-model.c), driven directly, without a device.
 *
 * The exact-cost cases use a small log-block FTL with round numbers (P = 8
 * pages, N = 2 logs) so that each expected time can be checked by hand.
 * The preset cases check the closed forms of ftlsim.md against the model
 * and the published figures, and the page-mapped FTL of ssd-c is checked
 * for its write amplification and for the consistency of its maps.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ftlsim-model.h"

#define MIB_SECTORS	2048ULL

/* P = 8 pages, N = 2, all times in ns and easy to add up. */
static const struct ftlsim_params small_hlb = {
	.ftl = FTLSIM_FTL_LOG_BLOCK,
	.unit_kib = 32,
	.open_logs = 2,
	.write_base_ns = 50,
	.write_ns = 10,
	.copy_ns = 100,
	.erase_ns = 1000,
	.read_base_ns = 200,
	.read_ns = 20,
};

#define SMALL_SWITCH	1000		/* e */
#define SMALL_FULL	(8 * 100 + 2 * 1000)	/* P * c + 2e */

static struct ftlsim_model *new_model(struct kunit *test,
				      const struct ftlsim_params *p,
				      u64 nr_sectors)
{
	struct ftlsim_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_EQ(test, ftlsim_model_init(m, p, nr_sectors), 0);
	return m;
}

/* Service time of one request (it finds the device free). */
static u64 cost(struct ftlsim_model *m, enum ftlsim_op op, u64 sector,
		u64 nr_sectors)
{
	u64 before = m->stats.busy_ns;

	ftlsim_model_submit(m, op, sector, nr_sectors, 0, m->device_free);
	return m->stats.busy_ns - before;
}

/* Write one 4 KiB page: logical block @lbn, page @pg of it (P = 8). */
static u64 wpage(struct ftlsim_model *m, u64 lbn, u32 pg)
{
	return cost(m, FTLSIM_OP_WRITE, (lbn * 8 + pg) * 8, 8);
}

static bool log_open(struct ftlsim_model *m, u64 lbn)
{
	u32 i;

	for (i = 0; i < m->nr_open; i++)
		if (m->logs[i].lbn == lbn)
			return true;
	return false;
}

/* ---- merges ---- */

static void ftlsim_test_switch_merge(struct kunit *test)
{
	struct ftlsim_model *m = new_model(test, &small_hlb, MIB_SECTORS);

	/* One request filling a block in order: appended, switch-merged. */
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_WRITE, 64, 64),
			50 + 8 * 10 + SMALL_SWITCH);
	KUNIT_EXPECT_EQ(test, m->stats.switch_merges, 1);
	KUNIT_EXPECT_EQ(test, m->stats.erases, 1);
	KUNIT_EXPECT_EQ(test, m->stats.copied_pages, 0);
	KUNIT_EXPECT_EQ(test, m->nr_open, 0);

	/* The same page by page, in order: the eighth page pays the merge. */
	KUNIT_EXPECT_EQ(test, wpage(m, 2, 0), 60);
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_WRITE, 2 * 64 + 8, 48), 50 + 60);
	KUNIT_EXPECT_EQ(test, wpage(m, 2, 7), 60 + SMALL_SWITCH);
	KUNIT_EXPECT_EQ(test, m->stats.switch_merges, 2);
	KUNIT_EXPECT_EQ(test, ftlsim_wa_milli(&m->stats), 1000);
	ftlsim_model_exit(m);
}

static void ftlsim_test_partial_merge(struct kunit *test)
{
	struct ftlsim_model *m = new_model(test, &small_hlb, MIB_SECTORS);

	/* Pages 0-2 of block 0 in order, then two other blocks evict it. */
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_WRITE, 0, 24), 50 + 30);
	KUNIT_EXPECT_EQ(test, wpage(m, 1, 0), 60);
	KUNIT_EXPECT_EQ(test, wpage(m, 2, 0), 60 + 5 * 100 + 1000);
	KUNIT_EXPECT_EQ(test, m->stats.partial_merges, 1);
	KUNIT_EXPECT_EQ(test, m->stats.copied_pages, 5);
	KUNIT_EXPECT_EQ(test, m->stats.erases, 1);
	KUNIT_EXPECT_FALSE(test, log_open(m, 0));
	ftlsim_model_exit(m);
}

static void ftlsim_test_full_merge(struct kunit *test)
{
	struct ftlsim_model *m = new_model(test, &small_hlb, MIB_SECTORS);

	/* A log that does not start at slot 0 is out of order. */
	KUNIT_EXPECT_EQ(test, wpage(m, 0, 3), 60);
	KUNIT_EXPECT_EQ(test, wpage(m, 0, 1), 60);
	/* In order at first, then a gap: out of order too. */
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_WRITE, 64, 16), 70);
	KUNIT_EXPECT_EQ(test, wpage(m, 1, 3), 60);
	KUNIT_EXPECT_EQ(test, wpage(m, 2, 0), 60 + SMALL_FULL);
	KUNIT_EXPECT_EQ(test, wpage(m, 3, 0), 60 + SMALL_FULL);
	KUNIT_EXPECT_EQ(test, m->stats.full_merges, 2);
	KUNIT_EXPECT_EQ(test, m->stats.copied_pages, 16);
	KUNIT_EXPECT_EQ(test, m->stats.erases, 4);
	KUNIT_EXPECT_EQ(test, m->stats.switch_merges + m->stats.partial_merges, 0);
	ftlsim_model_exit(m);
}

static void ftlsim_test_lru_order(struct kunit *test)
{
	struct ftlsim_model *m = new_model(test, &small_hlb, MIB_SECTORS);

	wpage(m, 0, 0);			/* in order */
	wpage(m, 1, 5);			/* out of order */
	KUNIT_EXPECT_EQ(test, wpage(m, 0, 1), 60);	/* append, 0 is now MRU */
	/* Block 2 evicts the least recently used log: block 1, full merge. */
	KUNIT_EXPECT_EQ(test, wpage(m, 2, 0), 60 + SMALL_FULL);
	KUNIT_EXPECT_TRUE(test, log_open(m, 0));
	KUNIT_EXPECT_FALSE(test, log_open(m, 1));
	KUNIT_EXPECT_TRUE(test, log_open(m, 2));
	/* Block 3 evicts block 0: two pages in order, a partial merge. */
	KUNIT_EXPECT_EQ(test, wpage(m, 3, 0), 60 + 6 * 100 + 1000);
	KUNIT_EXPECT_FALSE(test, log_open(m, 0));
	KUNIT_EXPECT_EQ(test, m->stats.full_merges, 1);
	KUNIT_EXPECT_EQ(test, m->stats.partial_merges, 1);
	/* Reads do not touch the LRU order: block 2 is still the LRU. */
	cost(m, FTLSIM_OP_READ, 2 * 64, 8);
	wpage(m, 3, 1);
	wpage(m, 4, 1);
	KUNIT_EXPECT_FALSE(test, log_open(m, 2));
	KUNIT_EXPECT_TRUE(test, log_open(m, 3));
	ftlsim_model_exit(m);
}

static void ftlsim_test_log_fill(struct kunit *test)
{
	struct ftlsim_model *m = new_model(test, &small_hlb, MIB_SECTORS);
	int pg;

	/* Eight single pages in reverse order: the last fills the log. */
	for (pg = 7; pg > 0; pg--)
		KUNIT_EXPECT_EQ(test, wpage(m, 5, pg), 60);
	KUNIT_EXPECT_EQ(test, wpage(m, 5, 0), 60 + SMALL_FULL);
	KUNIT_EXPECT_EQ(test, m->nr_open, 0);
	KUNIT_EXPECT_EQ(test, m->stats.full_merges, 1);

	/*
	 * A log with 5 pages out of order, then a request for all 8 pages of
	 * its block: 3 fill it (merge), the other 5 go to a new log, which
	 * is out of order because it starts at page 3.
	 */
	wpage(m, 6, 3);
	cost(m, FTLSIM_OP_WRITE, 6 * 64 + 32, 32);
	KUNIT_EXPECT_EQ(test, m->logs[0].used, 5);
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_WRITE, 6 * 64, 64),
			50 + 8 * 10 + SMALL_FULL);
	KUNIT_EXPECT_EQ(test, m->nr_open, 1);
	KUNIT_EXPECT_EQ(test, m->logs[0].used, 5);
	KUNIT_EXPECT_FALSE(test, m->logs[0].in_order);
	ftlsim_model_exit(m);
}

/* ---- reads, queueing, unaligned requests, flush, discard ---- */

static void ftlsim_test_read_cost(struct kunit *test)
{
	struct ftlsim_model *m = new_model(test, &small_hlb, MIB_SECTORS);

	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_READ, 0, 8), 220);
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_READ, 800, 64), 200 + 8 * 20);
	/* Whatever the state: logs open, out of order. */
	wpage(m, 0, 3);
	wpage(m, 1, 0);
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_READ, 0, 8), 220);
	KUNIT_EXPECT_EQ(test, m->stats.reads, 3);
	KUNIT_EXPECT_EQ(test, m->stats.read_bytes, (8 + 64 + 8) * 512);
	ftlsim_model_exit(m);
}

static void ftlsim_test_queueing(struct kunit *test)
{
	struct ftlsim_model *m = new_model(test, &small_hlb, MIB_SECTORS);

	/* An idle device starts at arrival. */
	KUNIT_EXPECT_EQ(test, ftlsim_model_submit(m, FTLSIM_OP_READ, 0, 8, 0, 1000),
			1220);
	/* A busy one at device_free: one command at a time. */
	KUNIT_EXPECT_EQ(test, ftlsim_model_submit(m, FTLSIM_OP_READ, 0, 8, 0, 1100),
			1440);
	KUNIT_EXPECT_EQ(test, ftlsim_model_submit(m, FTLSIM_OP_READ, 0, 8, 0, 1100),
			1660);
	/* Idle time is not busy time. */
	KUNIT_EXPECT_EQ(test, ftlsim_model_submit(m, FTLSIM_OP_READ, 0, 8, 0, 5000),
			5220);
	KUNIT_EXPECT_EQ(test, m->stats.busy_ns, 4 * 220);
	KUNIT_EXPECT_EQ(test, m->stats.wait_ns, 120 + 340);
	KUNIT_EXPECT_EQ(test, m->device_free, 5220);
	ftlsim_model_exit(m);
}

struct unaligned_case {
	u64 sector;
	u64 nr_sectors;
	u64 pages;		/* pages touched */
	u64 merges;		/* cost of the merges the write causes */
};

static const struct unaligned_case unaligned_cases[] = {
	{ 0, 1, 1, 0 },		/* 512 bytes: one page */
	{ 1, 1, 1, 0 },
	{ 7, 1, 1, 0 },
	{ 7, 2, 2, 0 },		/* straddles two pages */
	{ 1, 8, 2, 0 },		/* 4 KiB, misaligned */
	{ 4, 16, 3, 0 },
	{ 60, 8, 2, 0 },	/* straddles two logical blocks */
	{ 63, 130, 18, 2 * SMALL_SWITCH },	/* blocks 1 and 2 in full */
	{ 2032, 100, 2, 0 },	/* clipped at the end of the 1 MiB device */
	{ 4096, 8, 0, 0 },	/* beyond the end */
};

static void unaligned_desc(const struct unaligned_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "sector %llu +%llu", c->sector,
		 c->nr_sectors);
}

KUNIT_ARRAY_PARAM(unaligned, unaligned_cases, unaligned_desc);

static void ftlsim_test_unaligned(struct kunit *test)
{
	const struct unaligned_case *c = test->param_value;
	struct ftlsim_model *m = new_model(test, &small_hlb, MIB_SECTORS);

	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_READ, c->sector, c->nr_sectors),
			200 + 20 * c->pages);
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_WRITE, c->sector, c->nr_sectors),
			50 + 10 * c->pages + c->merges);
	KUNIT_EXPECT_EQ(test, m->stats.host_pages, c->pages);
	KUNIT_EXPECT_EQ(test, m->stats.write_bytes, c->nr_sectors * 512);
	ftlsim_model_exit(m);
}

static void ftlsim_test_flush_discard(struct kunit *test)
{
	struct ftlsim_params p = small_hlb;
	struct ftlsim_model *m;

	p.flush_ns = 300;
	p.discard_invalidate = true;
	m = new_model(test, &p, MIB_SECTORS);
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_FLUSH, 0, 0), 300);
	ftlsim_model_submit(m, FTLSIM_OP_WRITE, 0, 8, FTLSIM_REQ_FLUSH,
			    m->device_free);
	KUNIT_EXPECT_EQ(test, m->stats.busy_ns, 300 + 60 + 300);
	KUNIT_EXPECT_EQ(test, m->stats.flushes, 2);
	KUNIT_EXPECT_EQ(test, m->stats.writes, 1);

	/* Discarding part of block 0 keeps its log; all of it drops it. */
	wpage(m, 0, 1);
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_DISCARD, 8, 56), 0);
	KUNIT_EXPECT_TRUE(test, log_open(m, 0));
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_DISCARD, 0, 128), 0);
	KUNIT_EXPECT_FALSE(test, log_open(m, 0));
	KUNIT_EXPECT_EQ(test, m->stats.full_merges + m->stats.partial_merges, 0);
	KUNIT_EXPECT_EQ(test, m->stats.discards, 2);
	ftlsim_model_exit(m);

	/* In noop mode a discard changes nothing. */
	m = new_model(test, &small_hlb, MIB_SECTORS);
	wpage(m, 0, 1);
	cost(m, FTLSIM_OP_DISCARD, 0, 2048);
	KUNIT_EXPECT_TRUE(test, log_open(m, 0));
	ftlsim_model_exit(m);
}

/* ---- presets ---- */

/* Published figures in bytes per second (MB = 10^6 bytes). */
struct preset_case {
	const char *name;
	u64 seq, rand_write, rand_read;
};

static const struct preset_case hlb_cases[] = {
	{ "ssd-a", 85000000, 420000, 16300000 },
	{ "ssd-b", 79000000, 18000, 8500000 },
	{ "sd-card", 16400000, 610000, 4690000 },
	{ "sd-worst", 10000000, 10000, 6000000 },
};

static const struct preset_case ssd_c_case = {
	"ssd-c", 129000000, 6500000, 20200000
};

static void preset_desc(const struct preset_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(hlb, hlb_cases, preset_desc);

static u64 diff(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

/* |got - want| <= want * pct / 100 */
static void expect_within(struct kunit *test, u64 got, u64 want, u64 pct)
{
	KUNIT_EXPECT_LE_MSG(test, diff(got, want) * 100, want * pct,
			    "%llu is more than %llu %% off %llu", got, pct, want);
}

/* Bytes per second. */
static u64 bps(u64 bytes, u64 ns)
{
	return div64_u64(bytes * NSEC_PER_SEC, ns);
}

/*
 * Log-block presets: a 4 KiB write to a block without a log, evicting a
 * one-page log that is out of order, costs beta_w + alpha_w + P*c + 2e
 * exactly, whatever N; 1 MiB sequential writes run at 4 KiB / (alpha_w +
 * e/P) within 1 %; both agree with the published figures within 10 %.
 */
static void ftlsim_test_preset_hlb(struct kunit *test)
{
	const struct preset_case *c = test->param_value;
	const struct ftlsim_preset *pr = ftlsim_preset_find(c->name);
	static const u32 sweep[] = { 0, 2, 4, 8, 16 };
	struct ftlsim_params p;
	unsigned int s;

	KUNIT_ASSERT_NOT_NULL(test, pr);
	KUNIT_ASSERT_EQ(test, pr->params.ftl, FTLSIM_FTL_LOG_BLOCK);

	for (s = 0; s < ARRAY_SIZE(sweep); s++) {
		u64 P, unit, rw, span, seq_bps, want, i, t;
		struct ftlsim_model *m;

		p = pr->params;
		if (sweep[s])
			p.open_logs = sweep[s];
		P = p.unit_kib / 4;
		unit = P * FTLSIM_PAGE_SECTORS;
		span = max(64 * MIB_SECTORS, (p.open_logs + 8) * unit);
		m = new_model(test, &p, span);

		rw = p.write_base_ns + p.write_ns + P * p.copy_ns + 2ULL * p.erase_ns;
		for (i = 0; i < p.open_logs; i++)
			cost(m, FTLSIM_OP_WRITE, i * unit + 8, 8);
		for (i = p.open_logs; i < span / unit; i++) {
			t = cost(m, FTLSIM_OP_WRITE, i * unit + 8, 8);
			KUNIT_EXPECT_EQ_MSG(test, t, rw, "N=%u block %llu",
					    p.open_logs, i);
		}
		if (!sweep[s])
			expect_within(test, bps(4096, rw), c->rand_write, 10);

		/* Sequential 1 MiB writes from a clean start. */
		ftlsim_model_reset_state(m);
		ftlsim_model_reset_stats(m);
		for (i = 0; i < span; i += MIB_SECTORS)
			cost(m, FTLSIM_OP_WRITE, i, MIB_SECTORS);
		seq_bps = bps(span * 512, m->stats.busy_ns);
		want = bps(4096 * P, P * p.write_ns + p.erase_ns);
		expect_within(test, seq_bps, want, 1);
		if (!sweep[s]) {
			expect_within(test, seq_bps, c->seq, 10);
			expect_within(test, bps(4096, p.read_base_ns + p.read_ns),
				      c->rand_read, 10);
		}
		KUNIT_EXPECT_EQ(test, m->stats.switch_merges, span / unit);
		KUNIT_EXPECT_EQ(test, ftlsim_wa_milli(&m->stats), 1000);
		ftlsim_model_exit(m);
	}
}

/* ---- determinism ---- */

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A mixed stream of reads, writes and discards of many sizes. */
static void run_stream(struct ftlsim_model *m, u64 seed, u64 nr_sectors,
		       unsigned int n)
{
	static const u32 sizes[] = { 1, 8, 8, 8, 16, 24, 128, 256, 2048 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		u32 len = sizes[xorshift(&seed) % ARRAY_SIZE(sizes)];
		u64 sector = xorshift(&seed) % (nr_sectors - len);
		u32 r = xorshift(&seed) % 16;
		enum ftlsim_op op = r < 5 ? FTLSIM_OP_READ :
				    r < 15 ? FTLSIM_OP_WRITE : FTLSIM_OP_DISCARD;

		ftlsim_model_submit(m, op, sector, len, 0, i * 100000ULL);
	}
}

static void ftlsim_test_determinism(struct kunit *test)
{
	static const char * const names[] = { "ssd-a", "sd-card", "ssd-c" };
	u64 nr_sectors = 32 * MIB_SECTORS;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct ftlsim_params p = ftlsim_preset_find(names[i])->params;
		struct ftlsim_model *a, *b;

		p.discard_invalidate = true;
		a = new_model(test, &p, nr_sectors);
		b = new_model(test, &p, nr_sectors);
		run_stream(a, 42, nr_sectors, 20000);
		run_stream(b, 42, nr_sectors, 20000);
		KUNIT_EXPECT_EQ(test, memcmp(&a->stats, &b->stats, sizeof(a->stats)), 0);
		KUNIT_EXPECT_EQ(test, a->device_free, b->device_free);
		KUNIT_EXPECT_GT(test, a->stats.erases, 0);
		/* The same stream after a full reset gives the same figures. */
		ftlsim_model_reset_state(b);
		ftlsim_model_reset_stats(b);
		b->device_free = 0;
		run_stream(b, 42, nr_sectors, 20000);
		KUNIT_EXPECT_EQ(test, memcmp(&a->stats, &b->stats, sizeof(a->stats)), 0);
		KUNIT_EXPECT_EQ(test, a->device_free, b->device_free);
		ftlsim_model_exit(a);
		ftlsim_model_exit(b);
	}
}

/* ---- page-mapped FTL (ssd-c) ---- */

/* l2p and p2l agree, valid counts add up, every block is in one place. */
static void check_pmap(struct kunit *test, struct ftlsim_model *m)
{
	u64 lpn, mapped = 0, valid = 0, listed = 0;
	u32 b, v;

	for (lpn = 0; lpn < m->nr_pages; lpn++) {
		u32 ppn = m->l2p[lpn];

		if (ppn == FTLSIM_NONE)
			continue;
		mapped++;
		if (m->p2l[ppn] != lpn) {
			KUNIT_FAIL(test, "lpn %llu -> ppn %u -> %u", lpn, ppn,
				   m->p2l[ppn]);
			return;
		}
	}
	for (b = 0; b < m->nr_blocks; b++)
		valid += m->valid[b];
	KUNIT_EXPECT_EQ(test, mapped, valid);
	for (v = 0; v <= m->ppb; v++)
		for (b = m->bucket[v]; b != FTLSIM_NONE; b = m->next[b]) {
			KUNIT_EXPECT_EQ(test, m->valid[b], v);
			listed++;
		}
	/* Closed blocks in the buckets, two frontiers, the erased ones. */
	KUNIT_EXPECT_EQ(test, listed + 2 + m->nr_free, m->nr_blocks);
	KUNIT_EXPECT_EQ(test, m->bucket[0], FTLSIM_NONE);
}

static void fill(struct ftlsim_model *m, u64 nr_sectors)
{
	u64 s;

	for (s = 0; s < nr_sectors; s += MIB_SECTORS)
		cost(m, FTLSIM_OP_WRITE, s, MIB_SECTORS);
}

static void ftlsim_test_pmap_wa(struct kunit *test)
{
	const struct ftlsim_params *p = &ftlsim_preset_find("ssd-c")->params;
	u64 nr_sectors = 32 * MIB_SECTORS, pages = nr_sectors / 8, seed = 7, i;
	struct ftlsim_model *m = new_model(test, p, nr_sectors);

	/* 128 blocks of 256 KiB, 7 % spare: 9 more. */
	KUNIT_EXPECT_EQ(test, m->nr_blocks, 128 + 9);
	fill(m, nr_sectors);
	KUNIT_EXPECT_EQ(test, m->stats.copied_pages, 0);
	check_pmap(test, m);

	/* Sequential overwrite: no copy, write amplification exactly 1. */
	ftlsim_model_reset_stats(m);
	fill(m, nr_sectors);
	fill(m, nr_sectors);
	KUNIT_EXPECT_EQ(test, m->stats.copied_pages, 0);
	KUNIT_EXPECT_EQ(test, m->stats.gc_runs, 0);
	KUNIT_EXPECT_EQ(test, ftlsim_wa_milli(&m->stats), 1000);
	KUNIT_EXPECT_EQ(test, m->stats.erases, 2 * 128);
	KUNIT_EXPECT_EQ(test, m->stats.busy_ns,
			64 * (p->write_base_ns + 256ULL * p->write_ns));
	check_pmap(test, m);

	/* Random 4 KiB writes: collection copies, amplification well above 1. */
	ftlsim_model_reset_stats(m);
	for (i = 0; i < 4 * pages; i++)
		cost(m, FTLSIM_OP_WRITE, (xorshift(&seed) % pages) * 8, 8);
	KUNIT_EXPECT_GT(test, m->stats.gc_runs, 0);
	KUNIT_EXPECT_GT(test, ftlsim_wa_milli(&m->stats), 3000);
	KUNIT_EXPECT_LT(test, ftlsim_wa_milli(&m->stats), 15000);
	KUNIT_EXPECT_EQ(test, m->stats.host_pages, 4 * pages);
	check_pmap(test, m);

	/*
	 * Sequential again: the first pass still finds the data scattered,
	 * after it amplification is exactly 1 again.
	 */
	fill(m, nr_sectors);
	check_pmap(test, m);
	ftlsim_model_reset_stats(m);
	fill(m, nr_sectors);
	KUNIT_EXPECT_EQ(test, m->stats.copied_pages, 0);
	KUNIT_EXPECT_EQ(test, ftlsim_wa_milli(&m->stats), 1000);
	check_pmap(test, m);
	ftlsim_model_exit(m);
}

static void ftlsim_test_pmap_discard(struct kunit *test)
{
	struct ftlsim_params p = ftlsim_preset_find("ssd-c")->params;
	u64 nr_sectors = 8 * MIB_SECTORS, pages = nr_sectors / 8, seed = 9, i;
	struct ftlsim_model *m;

	p.discard_invalidate = true;
	m = new_model(test, &p, nr_sectors);
	fill(m, nr_sectors);
	for (i = 0; i < pages; i++)
		cost(m, FTLSIM_OP_WRITE, (xorshift(&seed) % pages) * 8, 8);
	/* Discard the first half, misaligned: only whole pages go. */
	KUNIT_EXPECT_EQ(test, cost(m, FTLSIM_OP_DISCARD, 4, nr_sectors / 2), 0);
	KUNIT_EXPECT_NE(test, m->l2p[0], FTLSIM_NONE);
	KUNIT_EXPECT_EQ(test, m->l2p[1], FTLSIM_NONE);
	KUNIT_EXPECT_EQ(test, m->l2p[pages / 2 - 1], FTLSIM_NONE);
	KUNIT_EXPECT_NE(test, m->l2p[pages / 2], FTLSIM_NONE);
	check_pmap(test, m);
	/* With half the data gone, random writes copy much less. */
	ftlsim_model_reset_stats(m);
	for (i = 0; i < 2 * pages; i++)
		cost(m, FTLSIM_OP_WRITE, (pages / 2 + xorshift(&seed) % (pages / 2)) * 8, 8);
	KUNIT_EXPECT_LT(test, ftlsim_wa_milli(&m->stats), 2000);
	check_pmap(test, m);
	/* reset_state: a fresh device. */
	ftlsim_model_reset_state(m);
	check_pmap(test, m);
	KUNIT_EXPECT_EQ(test, m->nr_free, m->nr_blocks - 2);
	ftlsim_model_exit(m);
}

/*
 * ssd-c against its published figures, with the calibration test's
 * protocol on a 64 MiB device: fill, sequential pass, random warm-up,
 * then measure.
 */
static void ftlsim_test_pmap_calibration(struct kunit *test)
{
	const struct preset_case *c = &ssd_c_case;
	const struct ftlsim_params *p = &ftlsim_preset_find(c->name)->params;
	u64 nr_sectors = 64 * MIB_SECTORS, pages = nr_sectors / 8, seed = 3, i;
	struct ftlsim_model *m = new_model(test, p, nr_sectors);

	fill(m, nr_sectors);
	ftlsim_model_reset_stats(m);
	fill(m, nr_sectors);
	expect_within(test, bps(nr_sectors * 512, m->stats.busy_ns), c->seq, 10);
	for (i = 0; i < 2 * pages; i++)
		cost(m, FTLSIM_OP_WRITE, (xorshift(&seed) % pages) * 8, 8);
	ftlsim_model_reset_stats(m);
	for (i = 0; i < 8000; i++)
		cost(m, FTLSIM_OP_WRITE, (xorshift(&seed) % pages) * 8, 8);
	expect_within(test, bps(8000 * 4096, m->stats.busy_ns), c->rand_write, 10);
	ftlsim_model_reset_stats(m);
	for (i = 0; i < 1000; i++)
		cost(m, FTLSIM_OP_READ, (xorshift(&seed) % pages) * 8, 8);
	expect_within(test, bps(1000 * 4096, m->stats.busy_ns), c->rand_read, 10);
	ftlsim_model_exit(m);
}

/* ---- parameters ---- */

struct param_case {
	const char *preset;
	const char *key;
	const char *value;
	const char *error;	/* NULL: accepted */
	const char *shown;	/* how TABLE status prints it back */
};

static const struct param_case param_cases[] = {
	{ "ssd-a", "erase_us", "1500", NULL, "1500" },
	{ "ssd-a", "write_us", "36.5", NULL, "36.5" },
	{ "ssd-a", "copy_us", "52.10", NULL, "52.1" },
	{ "ssd-a", "read_us", "0.001", NULL, "0.001" },
	{ "ssd-a", "read_base_us", "0.25", NULL, "0.25" },
	{ "ssd-a", "FLUSH_US", "1000000", NULL, "1000000" },
	{ "ssd-a", "flush_us", "1000000.001", "flush_us must be at most 1000000", NULL },
	{ "ssd-a", "write_base_us", "4294967296", "write_base_us must be at most 1000000", NULL },
	{ "ssd-a", "erase_us", "1.2345", "Invalid erase_us", NULL },
	{ "ssd-a", "erase_us", "1.", "Invalid erase_us", NULL },
	{ "ssd-a", "erase_us", ".5", "Invalid erase_us", NULL },
	{ "ssd-a", "erase_us", "+1", "Invalid erase_us", NULL },
	{ "ssd-a", "erase_us", "-1", "Invalid erase_us", NULL },
	{ "ssd-a", "erase_us", "1e3", "Invalid erase_us", NULL },
	{ "ssd-a", "erase_us", "", "Invalid erase_us", NULL },
	{ "ssd-a", "unit_kib", "8", NULL, "8" },
	{ "ssd-a", "unit_kib", "65536", NULL, "65536" },
	{ "ssd-a", "unit_kib", "6", "unit_kib must be a multiple of 4 from 8 to 65536", NULL },
	{ "ssd-a", "unit_kib", "4", "unit_kib must be a multiple of 4 from 8 to 65536", NULL },
	{ "ssd-a", "unit_kib", "65540", "unit_kib must be a multiple of 4 from 8 to 65536", NULL },
	{ "ssd-a", "unit_kib", "0x10", "Invalid unit_kib", NULL },
	{ "ssd-a", "open_logs", "16", NULL, "16" },
	{ "ssd-a", "open_logs", "0", "open_logs must be 1 to 256", NULL },
	{ "ssd-a", "open_logs", "257", "open_logs must be 1 to 256", NULL },
	{ "ssd-c", "open_logs", "4", "open_logs needs a log-block preset", NULL },
	{ "ssd-c", "spare_pct", "28", NULL, "28" },
	{ "ssd-c", "spare_pct", "0", "spare_pct must be 1 to 100", NULL },
	{ "sd-card", "spare_pct", "7", "spare_pct needs a page-mapped preset", NULL },
	{ "ssd-a", "discard", "invalidate", NULL, "invalidate" },
	{ "ssd-c", "discard", "NOOP", NULL, "noop" },
	{ "ssd-a", "discard", "trim", "Invalid discard mode", NULL },
	{ "ssd-a", "erase", "1", "Unknown optional argument", NULL },
};

static void param_desc(const struct param_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s=%s", c->preset, c->key,
		 c->value);
}

KUNIT_ARRAY_PARAM(param, param_cases, param_desc);

static void ftlsim_test_param(struct kunit *test)
{
	const struct param_case *c = test->param_value;
	struct ftlsim_params p = ftlsim_preset_find(c->preset)->params;
	struct ftlsim_params before = p;
	const char *err = NULL;
	char buf[24];
	int r;

	r = ftlsim_param_set(&p, c->key, c->value, &err);
	if (!c->error) {
		KUNIT_ASSERT_GE(test, r, 0);
		KUNIT_EXPECT_EQ(test, strcasecmp(ftlsim_param_name(r), c->key), 0);
		KUNIT_EXPECT_TRUE(test, ftlsim_param_format(&p, r, buf, sizeof(buf)));
		KUNIT_EXPECT_STREQ(test, buf, c->shown);
		return;
	}
	KUNIT_EXPECT_LT(test, r, 0);
	KUNIT_EXPECT_EQ(test, r, strcmp(c->error, "Unknown optional argument") ?
			-EINVAL : -ENOENT);
	KUNIT_ASSERT_NOT_NULL(test, err);
	KUNIT_EXPECT_STREQ(test, err, c->error);
	KUNIT_EXPECT_EQ(test, memcmp(&p, &before, sizeof(p)), 0);
}

static void ftlsim_test_presets_and_limits(struct kunit *test)
{
	struct ftlsim_params p = ftlsim_preset_find("ssd-c")->params;
	unsigned int i;

	for (i = 0; ftlsim_preset_get(i); i++)
		KUNIT_EXPECT_PTR_EQ(test, ftlsim_preset_find(ftlsim_preset_get(i)->name),
				    ftlsim_preset_get(i));
	KUNIT_EXPECT_EQ(test, i, ARRAY_SIZE(hlb_cases) + 1);
	KUNIT_EXPECT_NOT_NULL(test, ftlsim_preset_find("SD-Card"));
	KUNIT_EXPECT_NULL(test, ftlsim_preset_find("ssd-d"));

	KUNIT_EXPECT_NULL(test, ftlsim_params_check(&p, 1));
	KUNIT_EXPECT_NULL(test, ftlsim_params_check(&p, 1ULL << 34));
	KUNIT_EXPECT_STREQ(test, ftlsim_params_check(&p, 0), "Zero-length device");
	KUNIT_EXPECT_STREQ(test, ftlsim_params_check(&p, 1ULL << 35),
			   "Device too large for the page-mapped model");
	p = ftlsim_preset_find("ssd-a")->params;
	KUNIT_EXPECT_NULL(test, ftlsim_params_check(&p, 1ULL << 50));
}

static struct kunit_case ftlsim_model_cases[] = {
	KUNIT_CASE(ftlsim_test_switch_merge),
	KUNIT_CASE(ftlsim_test_partial_merge),
	KUNIT_CASE(ftlsim_test_full_merge),
	KUNIT_CASE(ftlsim_test_lru_order),
	KUNIT_CASE(ftlsim_test_log_fill),
	KUNIT_CASE(ftlsim_test_read_cost),
	KUNIT_CASE(ftlsim_test_queueing),
	KUNIT_CASE_PARAM(ftlsim_test_unaligned, unaligned_gen_params),
	KUNIT_CASE(ftlsim_test_flush_discard),
	KUNIT_CASE_PARAM(ftlsim_test_preset_hlb, hlb_gen_params),
	KUNIT_CASE(ftlsim_test_determinism),
	KUNIT_CASE(ftlsim_test_pmap_wa),
	KUNIT_CASE(ftlsim_test_pmap_discard),
	KUNIT_CASE(ftlsim_test_pmap_calibration),
	KUNIT_CASE_PARAM(ftlsim_test_param, param_gen_params),
	KUNIT_CASE(ftlsim_test_presets_and_limits),
	{}
};

static struct kunit_suite ftlsim_model_suite = {
	.name = "dm_ftlsim_model",
	.test_cases = ftlsim_model_cases,
};

kunit_test_suite(ftlsim_model_suite);

MODULE_DESCRIPTION("KUnit suite for the cost model of dm-ftlsim");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
