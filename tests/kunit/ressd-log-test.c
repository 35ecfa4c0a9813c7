// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_ressd_log: record encoding and decoding, and replay of
 * generated logs against an oracle.
 *
 * A model writer appends records to an in-memory log image exactly as the
 * format describes (header, data, chain of seq and epoch, checkpoints,
 * wrap-around, a mover that advances the tail and checkpoints it before any
 * slot is reused) and keeps, after every record, the mapping a correct
 * replay must produce.  The tests replay every prefix of such logs, torn
 * records, flipped bits and stale records of an earlier life of the log, and
 * compare the index with the oracle block by block.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "dm-ressd.h"

#define NONE		U32_MAX
#define MAX_RECORDS	160
#define MAX_DATA	8

/* What the model wrote in one record. */
struct model_rec {
	u32 slot;
	u32 nr_data;
	u32 nr_inval;
	u64 seq;
	u32 tail_rec;		/* the writer's tail when it was written */
	u64 inv_start[2];
	u32 inv_nr[2];
	u64 block[MAX_DATA];	/* RESSD_DEAD_BLOCK for a dead entry */
	bool torn[MAX_DATA];	/* data did not reach the medium */
};

struct log_model {
	struct ressd_log_geo lg;
	u8 *img;		/* nr_slots blocks */
	u64 state;		/* xorshift state */
	u32 head;
	u64 seq;
	u64 epoch;
	u32 sb_tail_rec;	/* the superblock's checkpoint, as a record */
	u32 sb_tail_slot;
	u64 sb_tail_seq;
	u32 tail_rec;		/* the writer's tail: oldest record not moved */
	u32 nr_rec;
	struct model_rec rec[MAX_RECORDS];
	bool no_dead;
};

static u64 model_rand(struct log_model *m)
{
	m->state ^= m->state << 13;
	m->state ^= m->state >> 7;
	m->state ^= m->state << 17;
	return m->state;
}

static u8 *model_slot(struct log_model *m, u32 slot)
{
	return m->img + (size_t)slot * RESSD_BLOCK_SIZE;
}

static void model_init(struct kunit *test, struct log_model *m, u32 nr_slots,
		       u64 origin_blocks, u64 seed, u32 start_slot)
{
	memset(m, 0, sizeof(*m));
	m->lg.nonce = 0x5eed0000ULL + seed;
	m->lg.nr_slots = nr_slots;
	m->lg.origin_blocks = origin_blocks;
	m->img = vzalloc((size_t)nr_slots * RESSD_BLOCK_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, m->img);
	m->state = seed * 0x9e3779b97f4a7c15ULL + 1;
	m->head = start_slot;
	m->seq = 1000;
	m->epoch = 3;
	m->sb_tail_slot = start_slot;
	m->sb_tail_seq = m->seq;
}

static void model_exit(struct log_model *m)
{
	vfree(m->img);
}

/* Slots from the writer's tail to head. */
static u32 model_used(struct log_model *m)
{
	u32 i, used = 0;

	for (i = m->tail_rec; i < m->nr_rec; i++)
		used += 1 + m->rec[i].nr_data;
	return used;
}

/* The writer's checkpoint: the oldest live record, or head when none. */
static void model_tail(struct log_model *m, u32 *slot, u64 *seq)
{
	if (m->tail_rec < m->nr_rec) {
		*slot = m->rec[m->tail_rec].slot;
		*seq = m->rec[m->tail_rec].seq;
	} else {
		*slot = m->head;
		*seq = m->seq;
	}
}

static void fill_data(u8 *blk, u64 block, u64 seq)
{
	u64 *w = (u64 *)blk;
	unsigned int i;

	for (i = 0; i < RESSD_BLOCK_SIZE / 8; i++)
		w[i] = block * 0x100000001b3ULL ^ seq ^ i;
}

/*
 * Append one record of random content.  The mover moves the oldest records
 * home to make room, and the superblock checkpoint is written before any
 * slot is reused.  With @torn >= 0, that entry's data is damaged after its
 * checksum was taken, as if the write never reached the medium.
 */
static bool model_append(struct log_model *m, int torn)
{
	struct ressd_disk_entry e[MAX_DATA];
	struct ressd_disk_inval inv[2];
	struct model_rec *mr;
	struct ressd_rec r = { };
	u32 i;

	if (m->nr_rec == MAX_RECORDS)
		return false;
	mr = &m->rec[m->nr_rec];
	memset(mr, 0, sizeof(*mr));
	r.nr_data = model_rand(m) % (MAX_DATA + 1);
	r.nr_inval = model_rand(m) % 3;
	/* A record never wraps: it ends at the end of the log at the latest. */
	r.nr_data = min(r.nr_data, m->lg.nr_slots - m->head - 1);
	if (torn >= (int)r.nr_data)
		r.nr_data = torn + 1;
	if (r.nr_data > m->lg.nr_slots - m->head - 1)
		return false;
	while (model_used(m) + 1 + r.nr_data > m->lg.nr_slots - 1)
		m->tail_rec++;
	model_tail(m, &m->sb_tail_slot, &m->sb_tail_seq);
	m->sb_tail_rec = m->tail_rec;

	r.seq = m->seq;
	r.epoch = m->epoch;
	r.slot = m->head;
	model_tail(m, &r.tail_slot, &r.tail_seq);
	mr->tail_rec = m->tail_rec;

	for (i = 0; i < r.nr_inval; i++) {
		u64 start = model_rand(m) % m->lg.origin_blocks;
		u32 n = min_t(u64, 1 + model_rand(m) % 4, m->lg.origin_blocks - start);

		inv[i].block = cpu_to_le64(start);
		inv[i].nr_blocks = cpu_to_le32(n);
		mr->inv_start[i] = start;
		mr->inv_nr[i] = n;
	}
	for (i = 0; i < r.nr_data; i++) {
		u8 *data = model_slot(m, r.slot + 1 + i);
		u64 b = model_rand(m) % m->lg.origin_blocks;

		fill_data(data, b, r.seq);
		e[i].csum = cpu_to_le32(ressd_csum(m->lg.nonce, data, RESSD_BLOCK_SIZE));
		if (!m->no_dead && (int)i != torn && model_rand(m) % 8 == 0)
			b = RESSD_DEAD_BLOCK;
		e[i].block = cpu_to_le64(b);
		mr->block[i] = b;
		if ((int)i == torn) {
			data[100] ^= 0x40;
			mr->torn[i] = true;
		}
	}
	ressd_rec_encode(model_slot(m, r.slot), &m->lg, &r, e, inv);
	mr->slot = r.slot;
	mr->nr_data = r.nr_data;
	mr->nr_inval = r.nr_inval;
	mr->seq = r.seq;
	m->nr_rec++;
	m->seq++;
	m->head = ressd_rec_next_slot(&m->lg, r.slot, r.nr_data);
	return true;
}

/*
 * The oracle: what replaying records [sb tail, @end) must map, computed from
 * what the model wrote rather than from the image.
 */
static void model_expect(struct log_model *m, u32 end, u32 *map)
{
	u32 from = m->sb_tail_rec, i, j;
	u64 b;

	for (i = from; i < end; i++)	/* the newest checkpoint a record carries */
		from = max(from, m->rec[i].tail_rec);
	for (b = 0; b < m->lg.origin_blocks; b++)
		map[b] = NONE;
	for (i = from; i < end; i++) {
		struct model_rec *mr = &m->rec[i];

		for (j = 0; j < mr->nr_inval; j++)
			for (b = mr->inv_start[j]; b < mr->inv_start[j] + mr->inv_nr[j]; b++)
				map[b] = NONE;
		for (j = 0; j < mr->nr_data; j++)
			if (mr->block[j] != RESSD_DEAD_BLOCK && !mr->torn[j])
				map[mr->block[j]] = mr->slot + 1 + j;
	}
}

static int model_read(void *ctx, u32 slot, void *buf)
{
	struct log_model *m = ctx;

	if (slot >= m->lg.nr_slots)
		return -EIO;
	memcpy(buf, model_slot(m, slot), RESSD_BLOCK_SIZE);
	return 0;
}

struct replay_run {
	struct ressd_index idx;
	struct ressd_replay rp;
	const char *error;
	int ret;
};

static void replay_model(struct kunit *test, struct log_model *m,
			 struct replay_run *run)
{
	memset(run, 0, sizeof(*run));
	spin_lock_init(&run->idx.lock);
	KUNIT_ASSERT_EQ(test, ressd_index_init(&run->idx, m->lg.nr_slots), 0);
	run->rp.lg = &m->lg;
	run->rp.tail_slot = m->sb_tail_slot;
	run->rp.tail_seq = m->sb_tail_seq;
	run->rp.epoch = m->epoch;
	run->rp.read = model_read;
	run->rp.ctx = m;
	run->rp.hdr = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	run->rp.data = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	run->rp.idx = &run->idx;
	KUNIT_ASSERT_NOT_NULL(test, run->rp.hdr);
	KUNIT_ASSERT_NOT_NULL(test, run->rp.data);
	run->ret = ressd_replay(&run->rp, &run->error);
}

/* Blocks where the index differs from @map. */
static unsigned int compare_map(struct replay_run *run, const u32 *map,
				u64 origin_blocks)
{
	unsigned int bad = 0;
	struct ressd_map rm;
	u64 b;

	spin_lock(&run->idx.lock);
	for (b = 0; b < origin_blocks; b++) {
		__ressd_index_lookup(&run->idx, b, 1, &rm);
		bool want = map[b] != NONE;

		if (rm.mapped != want || (want && rm.slot != map[b]))
			bad++;
	}
	spin_unlock(&run->idx.lock);
	return bad;
}

/* ---- header encoding ---- */

static void ressd_log_test_roundtrip(struct kunit *test)
{
	struct ressd_log_geo lg = { .nonce = 77, .nr_slots = 64, .origin_blocks = 100 };
	struct ressd_disk_entry e[2] = {
		{ cpu_to_le64(5), cpu_to_le32(0xabc) },
		{ cpu_to_le64(RESSD_DEAD_BLOCK), cpu_to_le32(1) },
	};
	struct ressd_disk_inval inv[1] = { { cpu_to_le64(90), cpu_to_le32(10) } };
	struct ressd_rec r = { .seq = 9, .epoch = 2, .slot = 10, .nr_data = 2,
			       .nr_inval = 1, .tail_slot = 3, .tail_seq = 8 }, d;
	u8 *blk = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ressd_rec_encode(blk, &lg, &r, e, inv);
	KUNIT_ASSERT_NULL(test, ressd_rec_decode(blk, &lg, 10, &d));
	KUNIT_EXPECT_EQ(test, d.seq, 9ULL);
	KUNIT_EXPECT_EQ(test, d.epoch, 2ULL);
	KUNIT_EXPECT_EQ(test, d.nr_data, 2U);
	KUNIT_EXPECT_EQ(test, d.nr_inval, 1U);
	KUNIT_EXPECT_EQ(test, d.tail_slot, 3U);
	KUNIT_EXPECT_EQ(test, d.tail_seq, 8ULL);
	KUNIT_EXPECT_STREQ(test, ressd_rec_decode(blk, &lg, 11, &d),
			   "record written for another slot");
	lg.nonce = 78;
	KUNIT_EXPECT_STREQ(test, ressd_rec_decode(blk, &lg, 10, &d),
			   "record of another volume");
}

struct rec_case {
	const char *name;
	struct ressd_rec r;
	u64 block;		/* of the single entry */
	u64 inv_block;
	u32 inv_nr;
	const char *why;
};

static const struct rec_case rec_cases[] = {
	{ "valid", { 5, 1, 4, 7, 1, 1, 1 }, 99, 0, 1, NULL },
	{ "dead entry", { 5, 1, 4, 7, 1, 1, 1 }, RESSD_DEAD_BLOCK, 0, 1, NULL },
	{ "last slot", { 5, 1, 4, 62, 1, 1, 1 }, 0, 99, 1, NULL },
	{ "past the end", { 5, 1, 4, 63, 1, 1, 1 }, 0, 0, 1,
	  "record runs past the end of the log" },
	{ "entry beyond origin", { 5, 1, 4, 7, 1, 1, 1 }, 100, 0, 1,
	  "record entry beyond the origin" },
	{ "inval beyond origin", { 5, 1, 4, 7, 1, 1, 1 }, 0, 100, 1,
	  "record invalidation beyond the origin" },
	{ "inval too long", { 5, 1, 4, 7, 1, 1, 1 }, 0, 95, 6,
	  "record invalidation beyond the origin" },
	{ "inval wraps", { 5, 1, 4, 7, 1, 1, 1 }, 0, 99, U32_MAX,
	  "record invalidation beyond the origin" },
	{ "empty inval", { 5, 1, 4, 7, 1, 1, 1 }, 0, 0, 0,
	  "record invalidation beyond the origin" },
	{ "tail out of range", { 5, 1, 4, 7, 64, 1, 1 }, 0, 0, 1,
	  "record checkpoint out of range" },
	{ "tail ahead", { 5, 1, 6, 7, 1, 1, 1 }, 0, 0, 1,
	  "record checkpoint ahead of the record" },
	{ "largest seq", { RESSD_MAX_SEQ, 1, 4, 7, 1, 1, 1 }, 0, 0, 1, NULL },
	{ "seq too large", { RESSD_MAX_SEQ + 1, 1, 4, 7, 1, 1, 1 }, 0, 0, 1,
	  "record sequence number out of range" },
	{ "seq at the top", { U64_MAX, 1, 4, 7, 1, 1, 1 }, 0, 0, 1,
	  "record sequence number out of range" },
};

static void rec_case_desc(const struct rec_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rec, rec_cases, rec_case_desc);

static void ressd_log_test_decode_checks(struct kunit *test)
{
	const struct rec_case *c = test->param_value;
	struct ressd_log_geo lg = { .nonce = 1, .nr_slots = 64, .origin_blocks = 100 };
	struct ressd_disk_entry e = { cpu_to_le64(c->block), 0 };
	struct ressd_disk_inval inv = { cpu_to_le64(c->inv_block), cpu_to_le32(c->inv_nr) };
	u8 *blk = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct ressd_rec d;

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ressd_rec_encode(blk, &lg, &c->r, &e, &inv);
	if (c->why)
		KUNIT_EXPECT_STREQ(test, ressd_rec_decode(blk, &lg, c->r.slot, &d), c->why);
	else
		KUNIT_EXPECT_NULL(test, ressd_rec_decode(blk, &lg, c->r.slot, &d));
}

/* Counts beyond what a header holds are refused, never used. */
static void ressd_log_test_too_many_items(struct kunit *test)
{
	struct ressd_log_geo lg = { .nonce = 1, .nr_slots = 4096, .origin_blocks = 100 };
	struct ressd_rec r = { .seq = 1, .slot = 0 }, d;
	struct ressd_disk_rec *rec;

	/* unused fields of r stay zero */
	u8 *blk = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ressd_rec_encode(blk, &lg, &r, NULL, NULL);
	rec = (struct ressd_disk_rec *)blk;
	rec->nr_data = cpu_to_le16(RESSD_REC_MAX_ITEMS + 1);
	/* Re-seal it with a valid checksum: only the bound may catch it. */
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg.nonce));
	KUNIT_EXPECT_STREQ(test, ressd_rec_decode(blk, &lg, 0, &d),
			   "too many items in a record");
	rec->nr_data = cpu_to_le16(U16_MAX);
	rec->nr_inval = cpu_to_le16(U16_MAX);
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg.nonce));
	KUNIT_EXPECT_STREQ(test, ressd_rec_decode(blk, &lg, 0, &d),
			   "too many items in a record");
	rec->nr_data = 0;
	rec->nr_inval = 0;
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg.nonce) ^ 1);
	KUNIT_EXPECT_STREQ(test, ressd_rec_decode(blk, &lg, 0, &d), "bad record checksum");
}

/* ---- replay ---- */

struct replay_case {
	const char *name;
	u32 nr_slots;
	u64 origin_blocks;
	u64 seed;
	u32 start_slot;
	u32 records;
};

static const struct replay_case replay_cases[] = {
	{ "no wrap", 512, 64, 1, 0, 30 },
	{ "wraps several times", 48, 40, 2, 0, 60 },
	{ "starts near the end", 64, 200, 3, 60, 50 },
	{ "small log, many blocks", 24, 1000, 4, 5, 80 },
	{ "few blocks, overwrites", 96, 8, 5, 17, 70 },
};

static void replay_case_desc(const struct replay_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s (seed %llu)", c->name, c->seed);
}

KUNIT_ARRAY_PARAM(replay, replay_cases, replay_case_desc);

/*
 * Every prefix: the log as it stood after each record (a crash at every
 * record boundary) replays to exactly the oracle of that moment.
 */
static void ressd_log_test_every_prefix(struct kunit *test)
{
	const struct replay_case *c = test->param_value;
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, c->origin_blocks, sizeof(u32), GFP_KERNEL);
	u32 p, i;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	for (p = 0; p <= c->records; p++) {
		model_init(test, m, c->nr_slots, c->origin_blocks, c->seed, c->start_slot);
		for (i = 0; i < p; i++)
			KUNIT_ASSERT_TRUE(test, model_append(m, -1));
		model_expect(m, m->nr_rec, map);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ_MSG(test, run->ret, 0, "prefix %u: %s", p, run->error);
		KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, c->origin_blocks), 0U,
				    "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.head, m->head, "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.next_seq, m->seq, "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.used, model_used(m), "prefix %u", p);
		KUNIT_EXPECT_EQ(test, run->rp.bad_data, 0ULL);
		ressd_index_exit(&run->idx);
		model_exit(m);
	}
}

/*
 * Replay writes nothing, so it is idempotent: replaying the same image
 * twice (a crash during recovery) gives the same index, slot by slot.
 */
static void ressd_log_test_idempotent(struct kunit *test)
{
	const struct replay_case *c = test->param_value;
	struct replay_run *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct replay_run *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 slot;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, m);
	model_init(test, m, c->nr_slots, c->origin_blocks, c->seed, c->start_slot);
	while (m->nr_rec < c->records)
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	replay_model(test, m, a);
	replay_model(test, m, b);
	KUNIT_EXPECT_EQ(test, a->ret, 0);
	KUNIT_EXPECT_EQ(test, b->ret, 0);
	for (slot = 0; slot < c->nr_slots; slot++) {
		u64 x = 0, y = 0;
		bool lx, ly;

		spin_lock(&a->idx.lock);
		lx = __ressd_index_slot_block(&a->idx, slot, &x);
		spin_unlock(&a->idx.lock);
		spin_lock(&b->idx.lock);
		ly = __ressd_index_slot_block(&b->idx, slot, &y);
		spin_unlock(&b->idx.lock);

		KUNIT_EXPECT_EQ(test, lx, ly);
		KUNIT_EXPECT_EQ(test, x, y);
	}
	KUNIT_EXPECT_EQ(test, a->rp.head, b->rp.head);
	KUNIT_EXPECT_EQ(test, a->rp.next_seq, b->rp.next_seq);
	ressd_index_exit(&a->idx);
	ressd_index_exit(&b->idx);
	model_exit(m);
}

/*
 * A torn last record: one data block did not reach the medium.  Only that
 * entry is dropped; the block keeps its older mapping.
 */
static void ressd_log_test_torn_data(struct kunit *test)
{
	const struct replay_case *c = test->param_value;
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, c->origin_blocks, sizeof(u32), GFP_KERNEL);
	int torn;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	for (torn = 0; torn < 4; torn++) {
		model_init(test, m, c->nr_slots, c->origin_blocks, c->seed, c->start_slot);
		m->no_dead = true;
		while (m->nr_rec < c->records / 2)
			KUNIT_ASSERT_TRUE(test, model_append(m, -1));
		/* The last record fits before the end of the log or is skipped. */
		if (!model_append(m, torn)) {
			model_exit(m);
			continue;
		}
		model_expect(m, m->nr_rec, map);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ(test, run->ret, 0);
		KUNIT_EXPECT_EQ(test, run->rp.bad_data, 1ULL);
		KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, c->origin_blocks), 0U,
				    "torn entry %d", torn);
		ressd_index_exit(&run->idx);
		model_exit(m);
	}
}

/*
 * A flipped bit in a record header (the last one, or any one after the
 * checkpoint) ends the chain there: everything before it replays, nothing
 * after it, and no flipped value is ever used.
 */
static void ressd_log_test_header_bit_flips(struct kunit *test)
{
	const struct replay_case *c = test->param_value;
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, c->origin_blocks, sizeof(u32), GFP_KERNEL);
	unsigned int trial;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	model_init(test, m, c->nr_slots, c->origin_blocks, c->seed, c->start_slot);
	while (m->nr_rec < c->records)
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	for (trial = 0; trial < 64; trial++) {
		u32 from = m->sb_tail_rec;
		u32 victim = from + model_rand(m) % (m->nr_rec - from);
		u8 *hdr = model_slot(m, m->rec[victim].slot);
		u32 bit = model_rand(m) % (RESSD_BLOCK_SIZE * 8);

		hdr[bit / 8] ^= 1 << (bit % 8);
		/* The checkpoint carried by records before the victim still counts. */
		model_expect(m, victim, map);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ_MSG(test, run->ret, 0, "%s", run->error);
		KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, c->origin_blocks), 0U,
				    "record %u bit %u", victim, bit);
		KUNIT_EXPECT_EQ(test, run->rp.head, m->rec[victim].slot);
		KUNIT_EXPECT_EQ(test, run->rp.next_seq, m->rec[victim].seq);
		ressd_index_exit(&run->idx);
		hdr[bit / 8] ^= 1 << (bit % 8);
	}
	model_exit(m);
}

/*
 * The trap the epoch closes: record 6 is torn, record 7 survived beyond it
 * (the device reordered writes before a flush).  Recovery stops at 6 and
 * bumps the epoch; a new record 6 of the same length then ends exactly
 * where the stale record 7 lies.  The next recovery must not take the stale
 * record 7 as the continuation of the chain.
 */
static void ressd_log_test_stale_future_record(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 32, sizeof(u32), GFP_KERNEL);
	u32 slot6, slot7, len6, i, tries;
	u64 seq6;
	u8 *saved;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	saved = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, saved);
	model_init(test, m, 512, 32, 21, 0);
	m->no_dead = true;
	for (i = 0; i < 7; i++)
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	/* Lose record 6's header (index 5); record 7 (index 6) survived. */
	slot6 = m->rec[5].slot;
	len6 = m->rec[5].nr_data;
	memset(model_slot(m, slot6), 0, RESSD_BLOCK_SIZE);
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->rp.next_seq, m->rec[5].seq);
	KUNIT_EXPECT_EQ(test, run->rp.head, slot6);
	ressd_index_exit(&run->idx);

	/* Recovery's checkpoint bumps the epoch; the writer rewrites 6. */
	slot7 = m->rec[6].slot;
	seq6 = m->rec[5].seq;
	memcpy(saved, model_slot(m, slot7), RESSD_BLOCK_SIZE);
	m->epoch++;
	for (tries = 0; tries < 1000; tries++) {
		m->nr_rec = 5;
		m->seq = seq6;
		m->head = slot6;
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
		/* Same length as the lost record 6, so it ends at stale 7. */
		if (m->rec[5].nr_data == len6)
			break;
	}
	KUNIT_ASSERT_EQ(test, m->head, slot7);
	/* Stale record 7 is still on the medium (retries may have hit it). */
	memcpy(model_slot(m, slot7), saved, RESSD_BLOCK_SIZE);
	model_expect(m, 6, map);
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, run->rp.records, 6U);
	KUNIT_EXPECT_STREQ(test, run->rp.stop, "epoch out of order");
	KUNIT_EXPECT_EQ(test, compare_map(run, map, 32), 0U);
	ressd_index_exit(&run->idx);
	model_exit(m);
}

/* A record of an older lap at head (older seq) ends the chain. */
static void ressd_log_test_old_lap(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 50, sizeof(u32), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	model_init(test, m, 40, 50, 33, 0);
	while (m->nr_rec < 40)		/* several laps of a 40-slot log */
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	model_expect(m, m->nr_rec, map);
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, compare_map(run, map, 50), 0U);
	KUNIT_EXPECT_NOT_NULL(test, run->rp.stop);
	ressd_index_exit(&run->idx);
	model_exit(m);
}

static struct kunit_case ressd_log_test_cases[] = {
	KUNIT_CASE(ressd_log_test_roundtrip),
	KUNIT_CASE_PARAM(ressd_log_test_decode_checks, rec_gen_params),
	KUNIT_CASE(ressd_log_test_too_many_items),
	KUNIT_CASE_PARAM(ressd_log_test_every_prefix, replay_gen_params),
	KUNIT_CASE_PARAM(ressd_log_test_idempotent, replay_gen_params),
	KUNIT_CASE_PARAM(ressd_log_test_torn_data, replay_gen_params),
	KUNIT_CASE_PARAM(ressd_log_test_header_bit_flips, replay_gen_params),
	KUNIT_CASE(ressd_log_test_stale_future_record),
	KUNIT_CASE(ressd_log_test_old_lap),
	{}
};

static struct kunit_suite ressd_log_test_suite = {
	.name = "dm_ressd_log",
	.test_cases = ressd_log_test_cases,
};

kunit_test_suites(&ressd_log_test_suite);
