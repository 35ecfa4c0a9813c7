// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_ressd_format: the pure codec of dm-ressd-format.c.  The
 * superblock: encoding, checksum and every validity check.  Records:
 * encoding and decoding, the trailer scan (ressd_rec_find) and replay of
 * generated logs against an oracle.
 *
 * A model writer appends records to an in-memory log image exactly as the
 * format (version 2) describes: nr_data data blocks, then the trailer that
 * names them; a chain of seq and epoch; checkpoints naming the start of the
 * oldest live record; records that never wrap (a record that does not fit
 * is shrunk to end at the last slot, or the lap is closed by a padding
 * record of dead entries); dead entries whose data is not always written,
 * so that their slots keep what an earlier lap left there, stale trailers
 * included; a mover that advances the tail and checkpoints it before any
 * slot is reused.  After every record it keeps the mapping a correct replay
 * must produce.  The tests replay every prefix of such logs, torn records,
 * flipped bits, lost trailers, stale trailers of earlier laps and of an
 * earlier life of the log, data blocks that look like trailers, and compare
 * the index with the oracle block by block; logs written by hand cover the
 * bounds of the scan (a record of RESSD_REC_MAX_ITEMS blocks, the end of
 * the log).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "dm-ressd.h"
#include "ressd-kunit.h"

#define NONE		U32_MAX
#define MAX_RECORDS	160
#define MAX_DATA	8
#define MAX_ITEMS	((u32)RESSD_REC_MAX_ITEMS)

/* A reason (or NULL) as expected; KUNIT_EXPECT_STREQ cannot take NULL. */
static __printf(4, 5) void expect_why(struct kunit *test, const char *got,
				      const char *want, const char *fmt, ...)
{
	char what[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!want)
		KUNIT_EXPECT_NULL_MSG(test, got, "%s", what);
	else if (!got)
		KUNIT_FAIL(test, "no reason, expected \"%s\": %s", want, what);
	else
		KUNIT_EXPECT_STREQ_MSG(test, got, want, "%s", what);
}

/* What the model wrote in one record. */
struct model_rec {
	u32 start;		/* first data slot; the trailer's when no data */
	u32 trailer;		/* start + nr_data */
	u32 nr_data;
	u32 nr_inval;
	u64 seq;
	u32 tail_rec;		/* the writer's tail when it was written */
	u64 inv_start[2];
	u32 inv_nr[2];
	u64 block[MAX_DATA];	/* RESSD_DEAD_BLOCK for a dead entry */
	bool torn[MAX_DATA];	/* data did not reach the medium */
	bool ordered[MAX_DATA];	/* RESSD_ENTRY_ORDERED: no checksum */
};

struct log_model {
	struct ressd_log_geo lg;
	u8 *img;		/* nr_slots blocks, then one scratch block */
	u8 *scratch;
	u64 state;		/* xorshift state */
	u32 head;
	u64 seq;
	u64 epoch;
	u32 sb_tail_rec;	/* the superblock's checkpoint, as a record */
	u32 sb_tail_slot;
	u64 sb_tail_seq;
	u64 sb_tail_epoch;	/* the chain's epoch at the checkpoint */
	u32 tail_rec;		/* the writer's tail: oldest record not moved */
	u32 nr_rec;
	struct model_rec rec[MAX_RECORDS];
	bool no_dead;
	bool ordered;		/* live entries ordered at random (data_csum 0) */
	u32 keep_slot;		/* never write this slot: its entry is dead */
	u32 pads;		/* padding records written */
	u32 unwritten;		/* data slots left as they were (dead, torn) */
};

static u64 model_rand(struct log_model *m)
{
	return ressd_kunit_xorshift(&m->state);
}

static u8 *model_slot(struct log_model *m, u32 slot)
{
	return m->img + (size_t)slot * RESSD_BLOCK_SIZE;
}

static bool has_magic(const u8 *blk)
{
	return le64_to_cpu(((const struct ressd_disk_rec *)blk)->magic) == RESSD_REC_MAGIC;
}

static void model_init(struct kunit *test, struct log_model *m, u32 nr_slots,
		       u64 origin_blocks, u64 seed, u32 start_slot)
{
	memset(m, 0, sizeof(*m));
	m->lg.nonce = 0x5eed0000ULL + seed;
	m->lg.nr_slots = nr_slots;
	m->lg.origin_blocks = origin_blocks;
	m->img = vzalloc((size_t)(nr_slots + 1) * RESSD_BLOCK_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, m->img);
	m->scratch = model_slot(m, nr_slots);
	m->state = seed * 0x9e3779b97f4a7c15ULL + 1;
	m->head = start_slot;
	m->seq = 1000;
	m->epoch = 3;
	m->sb_tail_slot = start_slot;
	m->sb_tail_seq = m->seq;
	m->keep_slot = NONE;
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

/* The writer's checkpoint: the start of the oldest live record, or head. */
static void model_tail(struct log_model *m, u32 *slot, u64 *seq)
{
	if (m->tail_rec < m->nr_rec) {
		*slot = m->rec[m->tail_rec].start;
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
 * Write one record at head: @nd data blocks, then the trailer.  The mover
 * moves the oldest records home to make room, and the superblock checkpoint
 * is written before any slot is reused.  With @pad every entry is dead and
 * no data is written (the padding that ends a lap).  A dead entry's data is
 * written or not; entry @torn never reaches the medium: its data is damaged
 * after its checksum was taken, or not written at all.  A slot left
 * unwritten keeps what was there: data or a trailer of an earlier lap.
 */
static bool model_write(struct log_model *m, u32 nd, bool pad, int torn)
{
	struct ressd_disk_entry e[MAX_DATA];
	struct ressd_disk_inval inv[2];
	struct model_rec *mr;
	struct ressd_trailer r = { };
	u32 i;

	if (m->nr_rec == MAX_RECORDS || nd > MAX_DATA || m->head + nd >= m->lg.nr_slots)
		return false;
	while (m->tail_rec < m->nr_rec && model_used(m) + 1 + nd > m->lg.nr_slots - 1)
		m->tail_rec++;
	model_tail(m, &m->sb_tail_slot, &m->sb_tail_seq);
	m->sb_tail_rec = m->tail_rec;

	mr = &m->rec[m->nr_rec];
	memset(mr, 0, sizeof(*mr));
	r.seq = m->seq;
	r.epoch = m->epoch;
	r.slot = m->head + nd;
	r.nr_data = nd;
	r.nr_inval = pad ? 0 : model_rand(m) % 3;
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
	for (i = 0; i < nd; i++) {
		u32 slot = m->head + i;
		u8 *data = model_slot(m, slot);
		u64 b = model_rand(m) % m->lg.origin_blocks;
		bool write = true;

		fill_data(m->scratch, b, r.seq);
		e[i].csum = cpu_to_le32(ressd_csum(m->lg.nonce, m->scratch, RESSD_BLOCK_SIZE));
		if (pad || slot == m->keep_slot ||
		    (!m->no_dead && (int)i != torn && model_rand(m) % 8 == 0)) {
			b = RESSD_DEAD_BLOCK;
			write = !pad && slot != m->keep_slot && model_rand(m) % 2;
		} else if ((int)i == torn) {
			mr->torn[i] = true;
			/* Not written at all, unless the slot holds this very data. */
			write = model_rand(m) % 2 ||
				!memcmp(data, m->scratch, RESSD_BLOCK_SIZE);
			m->scratch[100] ^= 0x40;
		}
		if (write)
			memcpy(data, m->scratch, RESSD_BLOCK_SIZE);
		else
			m->unwritten++;
		e[i].block = cpu_to_le64(b);
		mr->block[i] = b;
		/* Written in a chunk before the trailer: durable, no checksum. */
		if (m->ordered && b != RESSD_DEAD_BLOCK && (int)i != torn && model_rand(m) % 2) {
			e[i].block = cpu_to_le64(b | RESSD_ENTRY_ORDERED);
			e[i].csum = 0;
			mr->ordered[i] = true;
		}
	}
	ressd_rec_encode(model_slot(m, r.slot), &m->lg, &r, e, inv);
	mr->start = m->head;
	mr->trailer = r.slot;
	mr->nr_data = r.nr_data;
	mr->nr_inval = r.nr_inval;
	mr->seq = r.seq;
	m->nr_rec++;
	m->seq++;
	m->pads += pad;
	m->head = ressd_rec_next_slot(&m->lg, r.slot);
	return true;
}

/*
 * Append a record of @len data blocks (random when negative) and random
 * content.  A record never wraps: when it does not fit before the last slot
 * (its trailer's place at the latest), a random record is shrunk to end
 * there, or the lap is closed with a padding record and it goes to slot 0.
 */
static bool model_append_len(struct log_model *m, int len, int torn)
{
	u32 nd = len >= 0 ? len : model_rand(m) % (MAX_DATA + 1);
	u32 room;

	if (torn >= (int)nd)
		nd = torn + 1;
	room = m->lg.nr_slots - m->head - 1;
	if (nd > room) {
		if (len < 0 && torn < (int)room && model_rand(m) % 2)
			nd = room;
		else if (!model_write(m, room, true, -1))
			return false;
	}
	return model_write(m, nd, false, torn);
}

static bool model_append(struct log_model *m, int torn)
{
	return model_append_len(m, -1, torn);
}

/*
 * The oracle: what replaying records [sb tail, @end) must map, computed from
 * what the model wrote rather than from the image.  Returns the first record
 * replay applies (the newest checkpoint any of them carries).
 */
static u32 model_expect(struct log_model *m, u32 end, u32 *map)
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
				map[mr->block[j]] = mr->start + j;
	}
	return from;
}

/*
 * Why a chain ends at @start, for images where every block with the record
 * magic in the scan range is a valid trailer of another sequence number,
 * except @garbage (NONE: none), which carries the magic and a bad checksum.
 */
static const char *model_stop(struct log_model *m, u32 start, u32 garbage)
{
	u32 last = min_t(u64, (u64)start + MAX_ITEMS, m->lg.nr_slots - 1), s;

	for (s = start; s <= last; s++)
		if (has_magic(model_slot(m, s)))
			return s == garbage ? "bad record checksum" : "sequence break";
	return "no record trailer";
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
	/* Buckets of a few blocks: replay's extents are cut at their ends. */
	KUNIT_ASSERT_EQ(test, ressd_index_init(&run->idx, m->lg.nr_slots, 256), 0);
	run->rp.lg = &m->lg;
	run->rp.tail_slot = m->sb_tail_slot;
	run->rp.tail_seq = m->sb_tail_seq;
	run->rp.tail_epoch = m->sb_tail_epoch;
	run->rp.epoch = m->epoch;
	run->rp.read = model_read;
	run->rp.ctx = m;
	run->rp.trailer = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	run->rp.data = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	run->rp.idx = &run->idx;
	run->rp.trailers = kunit_kcalloc(test, BITS_TO_LONGS(m->lg.nr_slots), sizeof(long),
					 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run->rp.trailer);
	KUNIT_ASSERT_NOT_NULL(test, run->rp.data);
	KUNIT_ASSERT_NOT_NULL(test, run->rp.trailers);
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
		bool want = map[b] != NONE;

		__ressd_index_lookup(&run->idx, b, 1, &rm);
		if (rm.mapped != want || (want && rm.slot != map[b]))
			bad++;
	}
	spin_unlock(&run->idx.lock);
	return bad;
}

/*
 * A record written by hand, data from @start, then its trailer, with the
 * superblock's checkpoint.  @blocks[i] RESSD_DEAD_BLOCK is a dead entry
 * whose data is not written; entry @torn is not written either (it never
 * reached the medium).  @map, when given, gets what replay must map.
 * Returns the trailer's slot.
 */
static u32 put_record(struct kunit *test, struct log_model *m, u32 start, u64 seq,
		      u32 nd, const u64 *blocks, int torn, u32 *map)
{
	struct ressd_disk_entry *e;
	struct ressd_trailer r = {
		.seq = seq, .epoch = m->epoch, .slot = start + nd, .nr_data = nd,
		.tail_slot = m->sb_tail_slot, .tail_seq = m->sb_tail_seq,
	};
	u32 i;

	KUNIT_ASSERT_LE(test, nd, MAX_ITEMS);
	KUNIT_ASSERT_LT(test, start + nd, m->lg.nr_slots);
	e = kunit_kcalloc(test, MAX_ITEMS, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	for (i = 0; i < nd; i++) {
		u64 b = blocks[i];

		e[i].block = cpu_to_le64(b);
		if (b == RESSD_DEAD_BLOCK)
			continue;
		fill_data(m->scratch, b, seq);
		e[i].csum = cpu_to_le32(ressd_csum(m->lg.nonce, m->scratch, RESSD_BLOCK_SIZE));
		if ((int)i == torn)
			continue;
		memcpy(model_slot(m, start + i), m->scratch, RESSD_BLOCK_SIZE);
		if (map)
			map[b] = start + i;
	}
	ressd_rec_encode(model_slot(m, r.slot), &m->lg, &r, e, NULL);
	kunit_kfree(test, e);
	return r.slot;
}

/* ---- trailer encoding ---- */

static void ressd_format_test_roundtrip(struct kunit *test)
{
	struct ressd_log_geo lg = { .nonce = 77, .nr_slots = 64, .origin_blocks = 100 };
	struct ressd_disk_entry e[2] = {
		{ cpu_to_le64(5), cpu_to_le32(0xabc) },
		{ cpu_to_le64(RESSD_DEAD_BLOCK), cpu_to_le32(1) },
	};
	struct ressd_disk_inval inv[1] = { { cpu_to_le64(90), cpu_to_le32(10) } };
	struct ressd_trailer r = { .seq = 9, .epoch = 2, .slot = 10, .nr_data = 2,
			       .nr_inval = 1, .tail_slot = 3, .tail_seq = 8 }, d;
	u8 *blk = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ressd_rec_encode(blk, &lg, &r, e, inv);
	KUNIT_ASSERT_NULL(test, ressd_rec_decode(blk, &lg, 10, &d));
	KUNIT_EXPECT_EQ(test, d.seq, 9ULL);
	KUNIT_EXPECT_EQ(test, d.epoch, 2ULL);
	KUNIT_EXPECT_EQ(test, d.slot, 10U);
	KUNIT_EXPECT_EQ(test, d.nr_data, 2U);
	KUNIT_EXPECT_EQ(test, d.nr_inval, 1U);
	KUNIT_EXPECT_EQ(test, d.tail_slot, 3U);
	KUNIT_EXPECT_EQ(test, d.tail_seq, 8ULL);
	/* The data comes before the trailer: slots 8 and 9. */
	KUNIT_EXPECT_EQ(test, ressd_rec_start(&d), 8U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(((struct ressd_disk_rec *)blk)->version), 2U);
	expect_why(test, ressd_rec_decode(blk, &lg, 11, &d),
		   "record written for another slot", "line %d", __LINE__);
	lg.nonce = 78;
	expect_why(test, ressd_rec_decode(blk, &lg, 10, &d),
		   "record of another volume", "line %d", __LINE__);
}

/* The next record starts after the trailer, at 0 after the last slot. */
static void ressd_format_test_next_slot(struct kunit *test)
{
	struct ressd_log_geo lg = { .nonce = 1, .nr_slots = 64, .origin_blocks = 100 };
	struct ressd_trailer r = { .slot = 63, .nr_data = 63 };

	KUNIT_EXPECT_EQ(test, ressd_rec_next_slot(&lg, 0), 1U);
	KUNIT_EXPECT_EQ(test, ressd_rec_next_slot(&lg, 62), 63U);
	KUNIT_EXPECT_EQ(test, ressd_rec_next_slot(&lg, 63), 0U);
	KUNIT_EXPECT_EQ(test, ressd_rec_start(&r), 0U);
	r.nr_data = 0;
	KUNIT_EXPECT_EQ(test, ressd_rec_start(&r), 63U);
}

struct rec_case {
	const char *name;
	struct ressd_trailer r;	/* seq, epoch, tail_seq, slot, tail_slot, nr_data, nr_inval */
	u64 block;		/* of the single entry */
	u64 inv_block;
	u32 inv_nr;
	const char *why;
	u32 csum;		/* of the single entry */
};

static const struct rec_case rec_cases[] = {
	{ "valid", { 5, 1, 4, 7, 1, 1, 1 }, 99, 0, 1, NULL },
	{ "dead entry", { 5, 1, 4, 7, 1, 1, 1 }, RESSD_DEAD_BLOCK, 0, 1, NULL },
	{ "trailer at the last slot", { 5, 1, 4, 63, 1, 1, 1 }, 0, 99, 1, NULL },
	{ "trailer alone at the last slot", { 5, 1, 4, 63, 1, 0, 1 }, 0, 99, 1, NULL },
	{ "data in slot 0", { 5, 1, 4, 1, 1, 1, 1 }, 0, 0, 1, NULL },
	{ "trailer alone at slot 0", { 5, 1, 4, 0, 1, 0, 1 }, 0, 0, 1, NULL },
	{ "starts before the log", { 5, 1, 4, 0, 1, 1, 1 }, 0, 0, 1,
	  "record starts before the log" },
	{ "trailer beyond the log", { 5, 1, 4, 64, 1, 1, 1 }, 0, 0, 1,
	  "record trailer beyond the log" },
	{ "trailer alone beyond the log", { 5, 1, 4, 64, 1, 0, 1 }, 0, 0, 1,
	  "record trailer beyond the log" },
	{ "trailer far beyond the log", { 5, 1, 4, U32_MAX, 1, 1, 1 }, 0, 0, 1,
	  "record trailer beyond the log" },
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
	{ "starts before the log, tail out of range", { 5, 1, 4, 0, 64, 1, 1 }, 0, 0, 1,
	  "record starts before the log" },
	{ "tail ahead", { 5, 1, 6, 7, 1, 1, 1 }, 0, 0, 1,
	  "record checkpoint ahead of the record" },
	{ "largest seq", { RESSD_MAX_SEQ, 1, 4, 7, 1, 1, 1 }, 0, 0, 1, NULL },
	{ "seq too large", { RESSD_MAX_SEQ + 1, 1, 4, 7, 1, 1, 1 }, 0, 0, 1,
	  "record sequence number out of range" },
	{ "seq at the top", { U64_MAX, 1, 4, 7, 1, 1, 1 }, 0, 0, 1,
	  "record sequence number out of range" },
	{ "ordered entry", { 5, 1, 4, 7, 1, 1, 1 }, 99 | RESSD_ENTRY_ORDERED, 0, 1, NULL },
	{ "ordered entry beyond origin", { 5, 1, 4, 7, 1, 1, 1 }, 100 | RESSD_ENTRY_ORDERED,
	  0, 1, "record entry beyond the origin" },
	{ "ordered entry with a checksum", { 5, 1, 4, 7, 1, 1, 1 }, 9 | RESSD_ENTRY_ORDERED,
	  0, 1, "ordered record entry with a checksum", 0x1234 },
	{ "checked entry with a checksum", { 5, 1, 4, 7, 1, 1, 1 }, 9, 0, 1, NULL, 0x1234 },
	{ "an unknown high bit", { 5, 1, 4, 7, 1, 1, 1 }, 9 | (1ULL << 61), 0, 1,
	  "record entry beyond the origin" },
	{ "bit 63 alone", { 5, 1, 4, 7, 1, 1, 1 }, 9 | (1ULL << 63), 0, 1,
	  "record entry beyond the origin" },
	{ "bits 62 and 63, a checksum", { 5, 1, 4, 7, 1, 1, 1 }, 9 | (3ULL << 62), 0, 1,
	  "record entry beyond the origin", 0x1234 },
	{ "ordered, bit 48", { 5, 1, 4, 7, 1, 1, 1 }, 9 | RESSD_ENTRY_ORDERED | (1ULL << 48),
	  0, 1, "record entry beyond the origin" },
};

static void rec_case_desc(const struct rec_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rec, rec_cases, rec_case_desc);

static void ressd_format_test_decode_checks(struct kunit *test)
{
	const struct rec_case *c = test->param_value;
	struct ressd_log_geo lg = { .nonce = 1, .nr_slots = 64, .origin_blocks = 100 };
	struct ressd_disk_entry e = { cpu_to_le64(c->block), cpu_to_le32(c->csum) };
	struct ressd_disk_inval inv = { cpu_to_le64(c->inv_block), cpu_to_le32(c->inv_nr) };
	u8 *blk = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct ressd_trailer d;

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ressd_rec_encode(blk, &lg, &c->r, &e, &inv);
	expect_why(test, ressd_rec_decode(blk, &lg, c->r.slot, &d), c->why, "%s", c->name);
	if (!c->why)
		KUNIT_EXPECT_EQ(test, ressd_rec_start(&d), c->r.slot - c->r.nr_data);
}

/*
 * Counts beyond what a trailer holds are refused, never used; a record of
 * RESSD_REC_MAX_ITEMS blocks fits exactly between slot 0 and its trailer.
 */
static void ressd_format_test_too_many_items(struct kunit *test)
{
	struct ressd_log_geo lg = { .nonce = 1, .nr_slots = 4096, .origin_blocks = 100 };
	struct ressd_trailer r = { .seq = 1, .slot = 0 }, d;
	struct ressd_disk_entry *e;
	struct ressd_disk_rec *rec;

	/* unused fields of r stay zero */
	u8 *blk = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blk);
	ressd_rec_encode(blk, &lg, &r, NULL, NULL);
	rec = (struct ressd_disk_rec *)blk;
	rec->nr_data = cpu_to_le16(RESSD_REC_MAX_ITEMS + 1);
	/* Re-seal it with a valid checksum: only the bound may catch it. */
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg.nonce));
	expect_why(test, ressd_rec_decode(blk, &lg, 0, &d),
		   "too many items in a record", "line %d", __LINE__);
	/* At a slot where it would fit: still the bound. */
	rec->slot = cpu_to_le32(2000);
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg.nonce));
	expect_why(test, ressd_rec_decode(blk, &lg, 2000, &d),
		   "too many items in a record", "line %d", __LINE__);
	rec->nr_data = cpu_to_le16(U16_MAX);
	rec->nr_inval = cpu_to_le16(U16_MAX);
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg.nonce));
	expect_why(test, ressd_rec_decode(blk, &lg, 2000, &d),
		   "too many items in a record", "line %d", __LINE__);
	/* Beyond the log and starting before it: the trailer's place first. */
	lg.nr_slots = 64;
	rec->slot = cpu_to_le32(64);
	rec->nr_data = cpu_to_le16(100);
	rec->nr_inval = 0;
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg.nonce));
	expect_why(test, ressd_rec_decode(blk, &lg, 64, &d), "record trailer beyond the log",
		   "line %d", __LINE__);
	lg.nr_slots = 4096;
	rec->slot = cpu_to_le32(2000);
	rec->nr_data = 0;
	rec->nr_inval = 0;
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg.nonce) ^ 1);
	expect_why(test, ressd_rec_decode(blk, &lg, 2000, &d), "bad record checksum",
		   "line %d", __LINE__);

	/* The largest record: data in slots 0 .. MAX - 1, its trailer at MAX. */
	e = kunit_kcalloc(test, MAX_ITEMS, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	r.nr_data = MAX_ITEMS;
	r.slot = MAX_ITEMS;
	ressd_rec_encode(blk, &lg, &r, e, NULL);
	KUNIT_EXPECT_NULL(test, ressd_rec_decode(blk, &lg, MAX_ITEMS, &d));
	KUNIT_EXPECT_EQ(test, ressd_rec_start(&d), 0U);
	r.slot = MAX_ITEMS - 1;
	ressd_rec_encode(blk, &lg, &r, e, NULL);
	expect_why(test, ressd_rec_decode(blk, &lg, MAX_ITEMS - 1, &d),
		   "record starts before the log", "line %d", __LINE__);
}

/* ---- the trailer scan ---- */

/* A reader that counts, checks the order of the scan, and may fail. */
struct find_ctx {
	struct log_model *m;
	u32 reads;
	u32 next;		/* the slot the scan must read next */
	u32 max_slot;		/* the highest slot it read */
	bool out_of_order;
	u32 fail_at;		/* this read fails with -EIO (0: none) */
};

static int find_read(void *ctx, u32 slot, void *buf)
{
	struct find_ctx *f = ctx;

	if (f->reads && slot != f->next)
		f->out_of_order = true;
	f->next = slot + 1;
	f->max_slot = f->reads ? max(f->max_slot, slot) : slot;
	if (++f->reads == f->fail_at)
		return -EIO;
	return model_read(f->m, slot, buf);
}

struct find_run {
	struct find_ctx f;
	struct ressd_trailer r;
	const char *why;
	int ret;
};

static void find_in(struct kunit *test, struct log_model *m, u32 start, u64 seq,
		    u64 min_epoch, u64 max_epoch, u32 fail_at, struct find_run *fr)
{
	u8 *buf = m->scratch;

	memset(fr, 0, sizeof(*fr));
	fr->f.m = m;
	fr->f.fail_at = fail_at;
	fr->why = NULL;
	fr->ret = ressd_rec_find(find_read, &fr->f, &m->lg, start, seq, min_epoch,
				 max_epoch, buf, &fr->r, &fr->why);
	KUNIT_EXPECT_FALSE_MSG(test, fr->f.out_of_order, "scan from %u not in slot order", start);
	if (fr->f.reads)
		KUNIT_EXPECT_EQ_MSG(test, fr->f.next - fr->f.reads, start,
				    "scan did not start at %u", start);
}

/* A trailer by hand at @slot (no data written), with @nd dead entries. */
static void put_trailer(struct log_model *m, u32 slot, u64 seq, u64 epoch, u32 nd)
{
	struct ressd_disk_entry e[MAX_DATA];
	struct ressd_trailer r = { .seq = seq, .epoch = epoch, .slot = slot, .nr_data = nd };
	u32 i;

	if (WARN_ON(nd > MAX_DATA))
		return;
	for (i = 0; i < nd; i++) {
		e[i].block = cpu_to_le64(RESSD_DEAD_BLOCK);
		e[i].csum = 0;
	}
	ressd_rec_encode(model_slot(m, slot), &m->lg, &r, e, NULL);
}

/*
 * ressd_rec_find() on its own: it reads from the start on, in order, takes
 * the first trailer that fits (seq, start, epoch), skips everything else,
 * reports the first near miss, and never reads beyond RESSD_REC_MAX_ITEMS
 * slots from the start nor beyond the end of the log.
 */
static void ressd_format_test_find(struct kunit *test)
{
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct find_run *fr = kunit_kzalloc(test, sizeof(*fr), GFP_KERNEL);
	const u32 n = 400;
	u64 *blocks;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, fr);
	KUNIT_ASSERT_LT(test, 10 + MAX_ITEMS, n - 1);
	model_init(test, m, n, 1000, 71, 0);
	m->sb_tail_seq = 7;	/* the checkpoint put_record() writes */

	/* Nothing: the whole range is read, and only the range. */
	find_in(test, m, 10, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "no record trailer", "empty log");
	KUNIT_EXPECT_EQ(test, fr->f.reads, MAX_ITEMS + 1);
	KUNIT_EXPECT_EQ(test, fr->f.max_slot, 10 + MAX_ITEMS);
	/* Near the end: up to the last slot, no further. */
	find_in(test, m, n - 20, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	KUNIT_EXPECT_EQ(test, fr->f.reads, 20U);
	KUNIT_EXPECT_EQ(test, fr->f.max_slot, n - 1);
	find_in(test, m, n - 1, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	KUNIT_EXPECT_EQ(test, fr->f.reads, 1U);
	/* A start beyond the log reads nothing. */
	find_in(test, m, n, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "record start beyond the log", "start %u", n);
	KUNIT_EXPECT_EQ(test, fr->f.reads, 0U);

	/* A record of 5 blocks from 10: its trailer at 15. */
	put_trailer(m, 15, 7, 3, 5);
	find_in(test, m, 10, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	KUNIT_EXPECT_EQ(test, fr->r.slot, 15U);
	KUNIT_EXPECT_EQ(test, fr->r.nr_data, 5U);
	KUNIT_EXPECT_EQ(test, fr->r.seq, 7ULL);
	KUNIT_EXPECT_EQ(test, fr->f.reads, 6U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(((struct ressd_disk_rec *)m->scratch)->seq), 7ULL);
	/* Epochs: both bounds count. */
	find_in(test, m, 10, 7, 2, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	find_in(test, m, 10, 7, 3, 5, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	find_in(test, m, 10, 7, 4, 5, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "epoch out of order", "epoch below");
	KUNIT_EXPECT_EQ(test, fr->f.reads, MAX_ITEMS + 1);
	find_in(test, m, 10, 7, 0, 2, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "epoch out of order", "epoch above");
	/* Another seq, another start. */
	find_in(test, m, 10, 8, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "sequence break", "seq 8");
	find_in(test, m, 11, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "record does not start where the chain goes on", "start 11");
	find_in(test, m, 9, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "record does not start where the chain goes on", "start 9");
	/* The scan starts at the trailer itself: a start after it misses it. */
	find_in(test, m, 16, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "no record trailer", "start 16");

	/* A trailer of the right seq and epoch but another start is skipped. */
	put_trailer(m, 12, 7, 3, 0);
	find_in(test, m, 10, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	KUNIT_EXPECT_EQ(test, fr->r.slot, 15U);
	KUNIT_EXPECT_EQ(test, fr->f.reads, 6U);
	find_in(test, m, 12, 7, 3, 3, 0, fr);	/* it is the record starting at 12 */
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	KUNIT_EXPECT_EQ(test, fr->r.slot, 12U);
	KUNIT_EXPECT_EQ(test, fr->f.reads, 1U);

	/* Near misses before it: skipped; the first one is the reason. */
	memcpy(model_slot(m, 11), model_slot(m, 15), RESSD_BLOCK_SIZE);	/* another slot */
	put_trailer(m, 13, 7, 3, 0);
	model_slot(m, 13)[200] ^= 1;					/* bad checksum */
	find_in(test, m, 10, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	KUNIT_EXPECT_EQ(test, fr->r.slot, 15U);
	find_in(test, m, 10, 8, 3, 3, 0, fr);
	expect_why(test, fr->why, "record written for another slot", "first miss at 11");
	find_in(test, m, 13, 7, 3, 3, 0, fr);
	expect_why(test, fr->why, "bad record checksum", "first miss at 13");
	/* A block of another volume. */
	m->lg.nonce++;
	put_trailer(m, 10, 7, 3, 0);
	m->lg.nonce--;
	find_in(test, m, 10, 8, 3, 3, 0, fr);
	expect_why(test, fr->why, "record of another volume", "first miss at 10");
	find_in(test, m, 10, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	KUNIT_EXPECT_EQ(test, fr->r.slot, 15U);

	/* Read errors come back as they are. */
	for (i = 1; i <= 6; i++) {
		find_in(test, m, 10, 7, 3, 3, i, fr);
		KUNIT_EXPECT_EQ_MSG(test, fr->ret, -EIO, "read %u fails", i);
		KUNIT_EXPECT_EQ(test, fr->f.reads, i);
	}

	/* The largest record: its trailer is the last slot the scan reads. */
	memset(m->img, 0, (size_t)n * RESSD_BLOCK_SIZE);
	blocks = kunit_kcalloc(test, MAX_ITEMS, sizeof(*blocks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, blocks);
	for (i = 0; i < MAX_ITEMS; i++)
		blocks[i] = i;
	KUNIT_EXPECT_EQ(test, put_record(test, m, 10, 7, MAX_ITEMS, blocks, -1, NULL),
			10 + MAX_ITEMS);
	find_in(test, m, 10, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	KUNIT_EXPECT_EQ(test, fr->r.nr_data, MAX_ITEMS);
	KUNIT_EXPECT_EQ(test, fr->f.reads, MAX_ITEMS + 1);
	/* One slot later it is out of reach, though valid for its own start. */
	find_in(test, m, 9, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 1);
	expect_why(test, fr->why, "no record trailer", "trailer one beyond the range");
	KUNIT_EXPECT_EQ(test, fr->f.max_slot, 9 + MAX_ITEMS);
	/* A record that starts at slot 0 (nr_data == slot). */
	memset(m->img, 0, (size_t)n * RESSD_BLOCK_SIZE);
	put_record(test, m, 0, 7, 5, blocks, -1, NULL);
	find_in(test, m, 0, 7, 3, 3, 0, fr);
	KUNIT_EXPECT_EQ(test, fr->ret, 0);
	KUNIT_EXPECT_EQ(test, fr->r.slot, 5U);
	model_exit(m);
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
	{ "starts at the last slot", 40, 30, 6, 39, 70 },
};

static void replay_case_desc(const struct replay_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s (seed %llu)", c->name, c->seed);
}

KUNIT_ARRAY_PARAM(replay, replay_cases, replay_case_desc);

/*
 * Slots whose mark in rp.trailers differs from the model's: the trailers of
 * the records applied, from record @from on, are marked, and nothing else.
 */
static u32 compare_trailers(struct replay_run *run, struct log_model *m, u32 from)
{
	u32 s, i, bad = 0;
	bool want;

	for (s = 0; s < m->lg.nr_slots; s++) {
		want = false;
		for (i = from; i < m->nr_rec && !want; i++)
			want = m->rec[i].trailer == s;
		bad += want != test_bit(s, run->rp.trailers);
	}
	return bad;
}

/*
 * Every prefix: the log as it stood after each record (a crash at every
 * record boundary) replays to exactly the oracle of that moment, and marks
 * the trailers of the records it applied (the mover's map of them).
 */
static void ressd_format_test_every_prefix(struct kunit *test)
{
	const struct replay_case *c = test->param_value;
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, c->origin_blocks, sizeof(u32), GFP_KERNEL);
	u32 p, i, from, pads = 0, unwritten = 0;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	for (p = 0; p <= c->records; p++) {
		model_init(test, m, c->nr_slots, c->origin_blocks, c->seed, c->start_slot);
		for (i = 0; i < p; i++)
			KUNIT_ASSERT_TRUE(test, model_append(m, -1));
		from = model_expect(m, m->nr_rec, map);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ_MSG(test, run->ret, 0, "prefix %u: %s", p, run->error);
		KUNIT_EXPECT_EQ_MSG(test, compare_trailers(run, m, from), 0U, "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, c->origin_blocks), 0U,
				    "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.head, m->head, "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.next_seq, m->seq, "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.used, model_used(m), "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.new_tail_seq, m->sb_tail_seq, "prefix %u", p);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.new_tail_slot, m->sb_tail_slot, "prefix %u", p);
		KUNIT_EXPECT_EQ(test, run->rp.bad_data, 0ULL);
		KUNIT_EXPECT_NOT_NULL(test, run->rp.stop);
		pads = m->pads;
		unwritten = m->unwritten;
		ressd_index_exit(&run->idx);
		model_exit(m);
	}
	/* The logs that wrap went through the end of the log both ways. */
	if (c->records * (MAX_DATA / 2 + 1) > 2 * c->nr_slots) {
		KUNIT_EXPECT_GT(test, pads, 0U);
		KUNIT_EXPECT_GT(test, unwritten, 0U);
	}
}

/*
 * A superblock one round behind the log (the mover moved records home and
 * a crash came before its checkpoint was written): replay walks the moved
 * records but applies, and marks as trailers, only those from the newest
 * checkpoint a record carries.
 */
static void ressd_format_test_trailers_old_sb(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 64, sizeof(u32), GFP_KERNEL);
	u32 sb_rec, sb_slot, from;
	u64 sb_seq;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	model_init(test, m, 512, 64, 7, 0);
	while (m->nr_rec < 20)
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	sb_rec = m->sb_tail_rec;
	sb_slot = m->sb_tail_slot;
	sb_seq = m->sb_tail_seq;
	m->tail_rec = 10;		/* moved home; their slots not reused */
	while (m->nr_rec < 30)
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	m->sb_tail_rec = sb_rec;
	m->sb_tail_slot = sb_slot;
	m->sb_tail_seq = sb_seq;
	from = model_expect(m, m->nr_rec, map);
	KUNIT_ASSERT_EQ(test, from, 10U);
	KUNIT_ASSERT_LT(test, sb_rec, from);
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, run->rp.records, 20U);
	KUNIT_EXPECT_EQ(test, compare_map(run, map, 64), 0U);
	KUNIT_EXPECT_EQ(test, compare_trailers(run, m, from), 0U);
	ressd_index_exit(&run->idx);
	model_exit(m);
}

/*
 * Replay writes nothing, so it is idempotent: replaying the same image
 * twice (a crash during recovery) gives the same index, slot by slot.
 */
static void ressd_format_test_idempotent(struct kunit *test)
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
	KUNIT_EXPECT_EQ(test, a->rp.used, b->rp.used);
	ressd_index_exit(&a->idx);
	ressd_index_exit(&b->idx);
	model_exit(m);
}

/*
 * A torn last record: its trailer is there, but one data block did not
 * reach the medium (damaged, or never written and holding what an earlier
 * lap left).  Only that entry is dropped; the block keeps its older mapping.
 */
static void ressd_format_test_torn_data(struct kunit *test)
{
	const struct replay_case *c = test->param_value;
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, c->origin_blocks, sizeof(u32), GFP_KERNEL);
	int torn;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	for (torn = 0; torn < MAX_DATA; torn++) {
		model_init(test, m, c->nr_slots, c->origin_blocks, c->seed + torn, c->start_slot);
		m->no_dead = true;
		while (m->nr_rec < c->records / 2)
			KUNIT_ASSERT_TRUE(test, model_append(m, -1));
		KUNIT_ASSERT_TRUE(test, model_append(m, torn));
		model_expect(m, m->nr_rec, map);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ(test, run->ret, 0);
		KUNIT_EXPECT_EQ(test, run->rp.bad_data, 1ULL);
		KUNIT_EXPECT_EQ(test, run->rp.head, m->head);
		KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, c->origin_blocks), 0U,
				    "torn entry %d", torn);
		ressd_index_exit(&run->idx);
		model_exit(m);
	}
}

/*
 * Ordered entries (data_csum 0) are taken without reading their data: here
 * the newest record's ordered blocks are overwritten after it was written,
 * and replay still maps them, while its one torn entry with a checksum is
 * dropped.  Every ordered entry of the records applied is counted.  Records
 * without them (every other test) load as before.
 */
static void ressd_format_test_ordered(struct kunit *test)
{
	const struct replay_case *c = test->param_value;
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, c->origin_blocks, sizeof(u32), GFP_KERNEL);
	struct model_rec *last;
	u64 ordered = 0;
	u32 from, i, j;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	model_init(test, m, c->nr_slots, c->origin_blocks, c->seed, c->start_slot);
	m->ordered = true;
	m->no_dead = true;
	while (m->nr_rec < c->records)
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	KUNIT_ASSERT_TRUE(test, model_append_len(m, MAX_DATA, 0));
	last = &m->rec[m->nr_rec - 1];
	for (j = 0; j < last->nr_data; j++)
		if (last->ordered[j])
			memset(model_slot(m, last->start + j), 0xa5, RESSD_BLOCK_SIZE);
	from = model_expect(m, m->nr_rec, map);
	for (i = from; i < m->nr_rec; i++)
		for (j = 0; j < m->rec[i].nr_data; j++)
			ordered += m->rec[i].ordered[j];
	KUNIT_EXPECT_GT(test, ordered, 0ULL);
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, run->rp.bad_data, 1ULL);
	KUNIT_EXPECT_EQ(test, run->rp.ordered, ordered);
	KUNIT_EXPECT_EQ(test, run->rp.head, m->head);
	KUNIT_EXPECT_EQ(test, compare_map(run, map, c->origin_blocks), 0U);
	ressd_index_exit(&run->idx);
	model_exit(m);
}

/*
 * Marking a trailer's entries ordered: the ones asked for, never a dead one;
 * the block is sealed again and decodes to the same record.
 */
static void ressd_format_test_mark_ordered(struct kunit *test)
{
	struct ressd_log_geo lg = { .nonce = 7, .nr_slots = 64, .origin_blocks = 100 };
	struct ressd_disk_entry e[4] = {
		{ cpu_to_le64(1), cpu_to_le32(11) }, { cpu_to_le64(RESSD_DEAD_BLOCK), 0 },
		{ cpu_to_le64(3), cpu_to_le32(33) }, { cpu_to_le64(4), cpu_to_le32(44) },
	};
	struct ressd_trailer r = { .seq = 9, .epoch = 1, .tail_seq = 9, .slot = 20,
				   .tail_slot = 16, .nr_data = 4 };
	u8 *blk = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	const struct ressd_disk_rec *rec = (const void *)blk;
	DECLARE_BITMAP(ordered, RESSD_REC_MAX_ITEMS);
	struct ressd_trailer d;

	KUNIT_ASSERT_NOT_NULL(test, blk);
	bitmap_zero(ordered, RESSD_REC_MAX_ITEMS);
	ressd_rec_encode(blk, &lg, &r, e, NULL);
	KUNIT_EXPECT_EQ(test, ressd_rec_mark_ordered(blk, &lg, ordered), 0U);
	KUNIT_EXPECT_NULL(test, ressd_rec_decode(blk, &lg, 20, &d));
	bitmap_set(ordered, 0, 3);	/* entries 0, 1 (dead) and 2 */
	KUNIT_EXPECT_EQ(test, ressd_rec_mark_ordered(blk, &lg, ordered), 2U);
	KUNIT_EXPECT_NULL(test, ressd_rec_decode(blk, &lg, 20, &d));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(rec->entries[0].block), 1 | RESSD_ENTRY_ORDERED);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rec->entries[0].csum), 0U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(rec->entries[1].block), RESSD_DEAD_BLOCK);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(rec->entries[2].block), 3 | RESSD_ENTRY_ORDERED);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(rec->entries[3].block), 4ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(rec->entries[3].csum), 44U);
	KUNIT_EXPECT_EQ(test, d.nr_data, 4U);
}

/*
 * Flipped bits.  In the trailer of a record of the chain (the last one, or
 * any one after the checkpoint) a flip is always caught: the chain ends at
 * that record's start, everything before it replays, nothing after it, and
 * no flipped value is ever used.  In a live data block, that one entry is
 * dropped.  Anywhere else (dead entries, stale trailers of earlier laps,
 * slots outside the chain) it is harmless.
 */
static void ressd_format_test_bit_flips(struct kunit *test)
{
	const struct replay_case *c = test->param_value;
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, c->origin_blocks, sizeof(u32), GFP_KERNEL);
	unsigned int trial, kinds[3] = { };

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	model_init(test, m, c->nr_slots, c->origin_blocks, c->seed, c->start_slot);
	while (m->nr_rec < c->records)
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	for (trial = 0; trial < 128; trial++) {
		u32 from = m->sb_tail_rec, v, slot, end = m->nr_rec, head = m->head;
		u32 bit = model_rand(m) % (RESSD_BLOCK_SIZE * 8);
		u64 next_seq = m->seq, bad = 0;
		int j = -1;
		u8 *blk;

		if (trial % 2) {	/* a trailer of the chain */
			v = from + model_rand(m) % (m->nr_rec - from);
			slot = m->rec[v].trailer;
		} else {		/* anywhere */
			slot = model_rand(m) % m->lg.nr_slots;
		}
		/* Who wrote it: at most one record of the chain covers a slot. */
		for (v = from; v < m->nr_rec; v++)
			if (slot >= m->rec[v].start && slot <= m->rec[v].trailer)
				break;
		if (v < m->nr_rec && slot == m->rec[v].trailer) {
			end = v;
			head = m->rec[v].start;
			next_seq = m->rec[v].seq;
			kinds[0]++;
		} else if (v < m->nr_rec && m->rec[v].block[slot - m->rec[v].start] !=
			   RESSD_DEAD_BLOCK) {
			j = slot - m->rec[v].start;
			m->rec[v].torn[j] = true;
			bad = 1;
			kinds[1]++;
		} else {
			kinds[2]++;
		}
		blk = model_slot(m, slot);
		blk[bit / 8] ^= 1 << (bit % 8);
		/* The checkpoint carried by records before the victim still counts. */
		model_expect(m, end, map);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ_MSG(test, run->ret, 0, "%s", run->error);
		KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, c->origin_blocks), 0U,
				    "slot %u bit %u", slot, bit);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.head, head, "slot %u bit %u", slot, bit);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.next_seq, next_seq, "slot %u bit %u", slot, bit);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.bad_data, bad, "slot %u bit %u", slot, bit);
		ressd_index_exit(&run->idx);
		blk[bit / 8] ^= 1 << (bit % 8);
		if (j >= 0)
			m->rec[v].torn[j] = false;
	}
	KUNIT_EXPECT_GT(test, kinds[0], 0U);
	KUNIT_EXPECT_GT(test, kinds[1], 0U);
	model_exit(m);
}

/*
 * A lost trailer (never written, or garbage that carries the magic) while
 * the records after it are on the medium: the chain stops at the start of
 * the record that lost it, even across the end of the log, and nothing of
 * the later records is applied.
 */
static void ressd_format_test_lost_trailer(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 40, sizeof(u32), GFP_KERNEL);
	u8 *saved = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	u32 v, garbage, wrapped = 0;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	KUNIT_ASSERT_NOT_NULL(test, saved);
	model_init(test, m, 48, 40, 61, 0);
	/* Several laps, and a chain that goes on at slot 0. */
	for (;;) {
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
		if (m->nr_rec < 60)
			continue;
		for (v = m->sb_tail_rec + 1; v < m->nr_rec; v++)
			if (m->rec[v].start == 0)
				break;
		if (v < m->nr_rec)
			break;
	}
	for (v = m->sb_tail_rec; v + 1 < m->nr_rec; v++) {
		struct model_rec *mr = &m->rec[v];
		u8 *t = model_slot(m, mr->trailer);

		if (m->rec[v + 1].start == 0)
			wrapped++;
		memcpy(saved, t, RESSD_BLOCK_SIZE);
		for (garbage = 0; garbage < 2; garbage++) {
			u32 from;

			if (garbage)	/* a torn write of the trailer */
				memset(t + 64, 0x5a, 64);
			else
				memset(t, 0, RESSD_BLOCK_SIZE);
			from = model_expect(m, v, map);
			replay_model(test, m, run);
			KUNIT_EXPECT_EQ(test, run->ret, 0);
			KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, 40), 0U, "record %u", v);
			KUNIT_EXPECT_EQ_MSG(test, run->rp.head, mr->start, "record %u", v);
			KUNIT_EXPECT_EQ_MSG(test, run->rp.next_seq, mr->seq, "record %u", v);
			KUNIT_EXPECT_EQ_MSG(test, run->rp.records, v - from, "record %u", v);
			expect_why(test, run->rp.stop,
				   model_stop(m, mr->start, garbage ? mr->trailer : NONE),
				   "record %u", v);
			ressd_index_exit(&run->idx);
			memcpy(t, saved, RESSD_BLOCK_SIZE);
		}
	}
	KUNIT_EXPECT_GT(test, wrapped, 0U);
	model_exit(m);
}

/*
 * Stale trailers of an earlier lap inside the scanned range: a record whose
 * entries are dead keeps, in its unwritten data slots, the trailers an
 * earlier lap left there (older sequence numbers).  The scan must skip them
 * and take the record's own trailer; after the end of the chain they are
 * what stops it ("sequence break").
 */
static void ressd_format_test_stale_trailer_in_range(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 64, sizeof(u32), GFP_KERNEL);
	u32 seed, i, inside = 0;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	for (seed = 0; seed < 8; seed++) {
		model_init(test, m, 40, 64, 80 + seed, seed * 5);
		/* A lap of short records: trailers close together. */
		while (m->nr_rec < 30)
			KUNIT_ASSERT_TRUE(test, model_append_len(m, model_rand(m) % 2, -1));
		for (i = 0; i < 12; i++) {
			u32 nd = 2 + model_rand(m) % (MAX_DATA - 1), s;

			if (m->head + nd >= m->lg.nr_slots) {
				KUNIT_ASSERT_TRUE(test, model_append(m, -1));
				continue;
			}
			for (s = m->head; s < m->head + nd; s++)
				inside += has_magic(model_slot(m, s));
			/* All dead, none written: the stale trailers stay. */
			KUNIT_ASSERT_TRUE(test, model_write(m, nd, true, -1));
			KUNIT_ASSERT_TRUE(test, model_append(m, -1));

			model_expect(m, m->nr_rec, map);
			replay_model(test, m, run);
			KUNIT_EXPECT_EQ(test, run->ret, 0);
			KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, 64), 0U,
					    "seed %u record %u", seed, m->nr_rec);
			KUNIT_EXPECT_EQ(test, run->rp.head, m->head);
			KUNIT_EXPECT_EQ(test, run->rp.next_seq, m->seq);
			KUNIT_EXPECT_EQ(test, run->rp.used, model_used(m));
			expect_why(test, run->rp.stop, model_stop(m, m->head, NONE),
				   "seed %u", seed);
			ressd_index_exit(&run->idx);
		}
		model_exit(m);
	}
	KUNIT_EXPECT_GT(test, inside, 8U);
}

/*
 * Data that looks like a trailer: a live data block that starts with the
 * record magic (user data is arbitrary) is skipped by the scan, whatever
 * is wrong with it, and still replayed as the data it is.  In a record
 * whose trailer never made it, such a block is the first near miss.
 */
static void ressd_format_test_magic_data(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 64, sizeof(u32), GFP_KERNEL);
	struct ressd_disk_rec *t;
	struct model_rec *mr;
	u32 i, j;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	model_init(test, m, 64, 64, 91, 3);
	m->no_dead = true;
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_TRUE(test, model_append_len(m, 3, -1));
	KUNIT_ASSERT_TRUE(test, model_append_len(m, 5, -1));
	mr = &m->rec[3];
	/* Its data blocks 0..4 become trailer look-alikes. */
	for (j = 0; j < 5; j++) {
		u32 s = mr->start + j;
		u8 *d = model_slot(m, s);

		switch (j) {
		case 0:		/* a valid trailer of this slot, another seq */
			put_trailer(m, s, mr->seq + 5, m->epoch, 0);
			break;
		case 1:		/* the same, its checksum broken */
			put_trailer(m, s, mr->seq, m->epoch, 0);
			d[300] ^= 4;
			break;
		case 2:		/* a trailer of another slot */
			put_trailer(m, s + 1, mr->seq, m->epoch, 0);
			break;
		case 3:		/* this seq and epoch, but another start */
			put_trailer(m, s, mr->seq, m->epoch, 1);
			break;
		default:	/* another volume's */
			m->lg.nonce ^= 1;
			put_trailer(m, s, mr->seq, m->epoch, 0);
			m->lg.nonce ^= 1;
			break;
		}
		/* It is the record's data: its entry checksums what is there. */
		t = (struct ressd_disk_rec *)model_slot(m, mr->trailer);
		t->entries[j].csum = cpu_to_le32(ressd_csum(m->lg.nonce, d, RESSD_BLOCK_SIZE));
		t->csum = cpu_to_le32(ressd_block_csum(t, m->lg.nonce));
	}
	KUNIT_ASSERT_TRUE(test, model_append_len(m, 2, -1));
	model_expect(m, m->nr_rec, map);
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, run->rp.records, 5U);
	KUNIT_EXPECT_EQ(test, run->rp.bad_data, 0ULL);
	KUNIT_EXPECT_EQ(test, run->rp.head, m->head);
	KUNIT_EXPECT_EQ(test, compare_map(run, map, 64), 0U);
	for (j = 0; j < 5; j++) {
		struct ressd_map rm;

		spin_lock(&run->idx.lock);
		__ressd_index_lookup(&run->idx, mr->block[j], 1, &rm);
		spin_unlock(&run->idx.lock);
		if (map[mr->block[j]] == mr->start + j)
			KUNIT_EXPECT_TRUE(test, rm.mapped && rm.slot == mr->start + j);
	}
	ressd_index_exit(&run->idx);

	/*
	 * The next record's data is on the medium, one block a broken trailer
	 * look-alike, but its trailer is not: the chain ends there, and the
	 * look-alike is the first near miss.
	 */
	KUNIT_ASSERT_TRUE(test, model_append_len(m, 4, -1));
	mr = &m->rec[m->nr_rec - 1];
	put_trailer(m, mr->start + 2, mr->seq, m->epoch, 0);
	model_slot(m, mr->start + 2)[64] ^= 1;
	memset(model_slot(m, mr->trailer), 0, RESSD_BLOCK_SIZE);
	model_expect(m, m->nr_rec - 1, map);
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, run->rp.records, 5U);
	KUNIT_EXPECT_EQ(test, run->rp.head, mr->start);
	KUNIT_EXPECT_EQ(test, run->rp.next_seq, mr->seq);
	expect_why(test, run->rp.stop, "bad record checksum", "look-alike in a torn record");
	KUNIT_EXPECT_EQ(test, compare_map(run, map, 64), 0U);
	ressd_index_exit(&run->idx);
	model_exit(m);
}

/*
 * Records of RESSD_REC_MAX_ITEMS data blocks: the trailer is the last slot
 * of the scan range.  The lap ends with a trailer at the last slot, the
 * chain goes on at slot 0, and after head the scan stops just short of the
 * first record's trailer, one slot beyond its range.
 */
static void ressd_format_test_max_record(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	const u32 n = 2 * MAX_ITEMS + 40, origin = 4096;
	u32 *map = kunit_kmalloc_array(test, origin, sizeof(u32), GFP_KERNEL);
	u64 *blocks = kunit_kcalloc(test, MAX_ITEMS, sizeof(u64), GFP_KERNEL);
	u32 i, t1, t2, t3, t4, start3;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	KUNIT_ASSERT_NOT_NULL(test, blocks);
	model_init(test, m, n, origin, 101, 5);
	for (i = 0; i < origin; i++)
		map[i] = NONE;
	for (i = 0; i < MAX_ITEMS; i++)
		blocks[i] = i;
	t1 = put_record(test, m, 5, 1000, MAX_ITEMS, blocks, -1, map);
	KUNIT_ASSERT_EQ(test, t1, 5 + MAX_ITEMS);
	for (i = 0; i < MAX_ITEMS; i++)
		blocks[i] = 300 + i;
	blocks[7] = RESSD_DEAD_BLOCK;
	t2 = put_record(test, m, t1 + 1, 1001, MAX_ITEMS, blocks, 20, map);
	start3 = t2 + 1;
	for (i = 0; i < n - 1 - start3; i++)
		blocks[i] = 1000 + i;
	t3 = put_record(test, m, start3, 1002, n - 1 - start3, blocks, -1, map);
	KUNIT_ASSERT_EQ(test, t3, n - 1);
	blocks[0] = 0;
	blocks[1] = 3000;
	blocks[2] = 301;
	t4 = put_record(test, m, 0, 1003, 3, blocks, -1, map);
	KUNIT_ASSERT_EQ(test, t4, 3U);
	/* head 4: its range ends at 4 + MAX, t1 is 5 + MAX. */

	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, run->rp.records, 4U);
	KUNIT_EXPECT_EQ(test, run->rp.head, 4U);
	KUNIT_EXPECT_EQ(test, run->rp.next_seq, 1004ULL);
	KUNIT_EXPECT_EQ(test, run->rp.used, n - 1);
	KUNIT_EXPECT_EQ(test, run->rp.bad_data, 1ULL);
	/* all but the dead and the torn entry of the second record */
	KUNIT_EXPECT_EQ(test, run->rp.entries, 2ULL * MAX_ITEMS - 2 + (n - 1 - start3) + 3);
	expect_why(test, run->rp.stop, "no record trailer", "t1 one beyond the range");
	KUNIT_EXPECT_EQ(test, compare_map(run, map, origin), 0U);
	ressd_index_exit(&run->idx);

	/* Without the first trailer nothing replays; the second is too far. */
	memset(model_slot(m, t1), 0, RESSD_BLOCK_SIZE);
	for (i = 0; i < origin; i++)
		map[i] = NONE;
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, run->rp.records, 0U);
	KUNIT_EXPECT_EQ(test, run->rp.head, 5U);
	expect_why(test, run->rp.stop, "no record trailer", "lost max trailer");
	KUNIT_EXPECT_EQ(test, compare_map(run, map, origin), 0U);
	ressd_index_exit(&run->idx);
	model_exit(m);
}

/*
 * The end of the log: a trailer at the last slot (after data, alone, or
 * after padding of dead entries) and the next record at slot 0; a missing
 * record at slot 0; a record that would wrap is never accepted.
 */
static void ressd_format_test_end_of_log(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 64, sizeof(u32), GFP_KERNEL);
	static const u64 dead[MAX_DATA] = {
		RESSD_DEAD_BLOCK, RESSD_DEAD_BLOCK, RESSD_DEAD_BLOCK, RESSD_DEAD_BLOCK,
		RESSD_DEAD_BLOCK, RESSD_DEAD_BLOCK, RESSD_DEAD_BLOCK, RESSD_DEAD_BLOCK,
	};
	u64 b[MAX_DATA];
	struct ressd_trailer r = { };
	struct ressd_disk_entry e[MAX_DATA] = { };
	u32 layout, i, s;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	for (layout = 0; layout < 5; layout++) {
		u32 head, records;
		const char *stop;

		model_init(test, m, 32, 64, 111 + layout, 20);
		for (i = 0; i < 64; i++)
			map[i] = NONE;
		/* An earlier lap left trailers of older records at 0..19. */
		for (s = 1; s < 20; s += 3)
			put_trailer(m, s, 900 + s, m->epoch, 1);
		for (i = 0; i < MAX_DATA; i++)
			b[i] = 10 * layout + i;
		switch (layout) {
		case 0:		/* data up to the last slot, then 0 */
			put_record(test, m, 20, 1000, 5, b, -1, map);
			put_record(test, m, 26, 1001, 5, b + 1, -1, map);
			put_record(test, m, 0, 1002, 3, b + 2, -1, map);
			put_record(test, m, 4, 1003, 0, b, -1, map);
			head = 5;
			records = 4;
			break;
		case 1:		/* a trailer alone at the last slot */
			put_record(test, m, 20, 1000, 8, b, -1, map);
			put_record(test, m, 29, 1001, 1, b + 5, -1, map);
			put_record(test, m, 31, 1002, 0, b, -1, map);
			put_record(test, m, 0, 1003, 2, b + 6, -1, map);
			head = 3;
			records = 4;
			break;
		case 2:		/* padding of dead entries over stale trailers */
			put_record(test, m, 20, 1000, 4, b, -1, map);
			put_trailer(m, 27, 990, m->epoch, 2);
			put_record(test, m, 25, 1001, 6, dead, -1, map);
			put_record(test, m, 0, 1002, 5, b + 3, -1, map);
			head = 6;
			records = 3;
			break;
		case 3:		/* nothing at slot 0 yet */
			put_record(test, m, 20, 1000, 5, b, -1, map);
			put_record(test, m, 26, 1001, 5, b + 3, -1, map);
			head = 0;
			records = 2;
			break;
		default:	/* a record that wraps: data 26..31, 0, 1, trailer at 2 */
			put_record(test, m, 20, 1000, 5, b, -1, map);
			for (i = 0; i < 8; i++) {
				u8 *d = model_slot(m, (26 + i) % 32);

				fill_data(d, 40 + i, 1001);
				e[i].block = cpu_to_le64(40 + i);
				e[i].csum = cpu_to_le32(ressd_csum(m->lg.nonce, d,
								   RESSD_BLOCK_SIZE));
			}
			r = (struct ressd_trailer){ .seq = 1001, .epoch = m->epoch, .slot = 2,
						.nr_data = 8, .tail_slot = 20, .tail_seq = 1000 };
			ressd_rec_encode(model_slot(m, 2), &m->lg, &r, e, NULL);
			expect_why(test, ressd_rec_decode(model_slot(m, 2), &m->lg, 2, &r),
				   "record starts before the log", "line %d", __LINE__);
			head = 26;
			records = 1;
			break;
		}
		stop = model_stop(m, head, NONE);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ_MSG(test, run->ret, 0, "layout %u", layout);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.records, records, "layout %u", layout);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.head, head, "layout %u", layout);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.next_seq, 1000ULL + records, "layout %u", layout);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.used, (head + 32 - 20) % 32, "layout %u", layout);
		KUNIT_EXPECT_EQ_MSG(test, run->rp.bad_data, 0ULL, "layout %u", layout);
		expect_why(test, run->rp.stop, stop, "layout %u", layout);
		KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, 64), 0U, "layout %u", layout);
		ressd_index_exit(&run->idx);
		model_exit(m);
	}
}

/*
 * At most one lap: a chain that fills the whole log ends there, and a
 * record whose trailer lies inside the chain's first record (over one of
 * its dead data slots) would make the chain one slot longer than the log:
 * refused, while the records before it replay.
 */
static void ressd_format_test_chain_bounds(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 64, sizeof(u32), GFP_KERNEL);
	u64 b[10] = { RESSD_DEAD_BLOCK, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	u32 over, i;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	for (over = 0; over < 2; over++) {
		model_init(test, m, 32, 64, 121 + over, 20);
		for (i = 0; i < 64; i++)
			map[i] = NONE;
		put_record(test, m, 20, 1000, 4, b, -1, map);
		put_record(test, m, 25, 1001, 6, b + 1, -1, map);
		put_record(test, m, 0, 1002, 9, b + 1, -1, map);
		if (!over) {	/* 20 .. 31, 0 .. 19: the whole log */
			put_record(test, m, 10, 1003, 9, b + 1, -1, map);
		} else {	/* 31 slots, then 2 more ending at 20 */
			put_record(test, m, 10, 1003, 8, b + 2, -1, map);
			put_record(test, m, 19, 1004, 1, b, -1, NULL);
		}
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ(test, run->ret, 0);
		KUNIT_EXPECT_EQ(test, run->rp.records, 4U);
		KUNIT_EXPECT_EQ(test, run->rp.next_seq, 1004ULL);
		KUNIT_EXPECT_EQ(test, run->rp.head, over ? 19U : 20U);
		KUNIT_EXPECT_EQ(test, run->rp.used, over ? 31U : 32U);
		expect_why(test, run->rp.stop, over ? "the chain is longer than the log" :
			   "the chain fills the log", "over %u", over);
		KUNIT_EXPECT_EQ(test, compare_map(run, map, 64), 0U);
		ressd_index_exit(&run->idx);
		model_exit(m);
	}
}

/*
 * The trap the epoch closes: record 6 lost its trailer, record 7 survived
 * beyond it (the device reordered writes before a flush).  Recovery stops
 * at 6 and raises the epoch; the writer writes a new record 6 at the same
 * start, of any length.  The stale trailer 7, if still there, carries the
 * next seq: when the new 6 has the old length it even starts where the
 * chain goes on, and only its epoch refuses it; otherwise its start does.
 * Then a new record 7 whose unwritten data slot holds the stale trailer 7
 * must be found behind it.
 */
static void ressd_format_test_stale_future_record(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 32, sizeof(u32), GFP_KERNEL);
	u32 len, i, covered = 0;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	for (len = 0; len <= MAX_DATA; len++) {
		struct model_rec r5, r6;
		const char *stop;
		u32 t6;

		model_init(test, m, 512, 32, 21, 0);
		m->no_dead = true;
		for (i = 0; i < 7; i++)
			KUNIT_ASSERT_TRUE(test, model_append(m, -1));
		/* Lose record 6's trailer (index 5); record 7 (index 6) survived. */
		r5 = m->rec[5];
		r6 = m->rec[6];
		memset(model_slot(m, r5.trailer), 0, RESSD_BLOCK_SIZE);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ(test, run->rp.records, 5U);
		KUNIT_EXPECT_EQ(test, run->rp.next_seq, r5.seq);
		KUNIT_EXPECT_EQ(test, run->rp.head, r5.start);
		expect_why(test, run->rp.stop, "sequence break", "trailer 7 after the lost 6");
		ressd_index_exit(&run->idx);

		/* Recovery's checkpoint raises the epoch; the writer rewrites 6. */
		m->epoch++;
		m->nr_rec = 5;
		m->seq = r5.seq;
		m->head = r5.start;
		KUNIT_ASSERT_TRUE(test, model_append_len(m, len, -1));
		t6 = m->rec[5].trailer;
		if (len == r5.nr_data)
			stop = "epoch out of order";
		else if (r6.trailer > t6)
			stop = "record does not start where the chain goes on";
		else
			stop = "no record trailer";
		model_expect(m, 6, map);
		replay_model(test, m, run);
		KUNIT_EXPECT_EQ(test, run->ret, 0);
		KUNIT_EXPECT_EQ(test, run->rp.records, 6U);
		KUNIT_EXPECT_EQ(test, run->rp.head, m->head);
		expect_why(test, run->rp.stop, stop, "new record 6 of %u blocks", len);
		KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, 32), 0U, "length %u", len);
		ressd_index_exit(&run->idx);

		/* A new record 7 over the stale trailer 7, whose slot it leaves. */
		if (r6.trailer > t6 && r6.trailer - m->head < MAX_DATA) {
			m->keep_slot = r6.trailer;
			KUNIT_ASSERT_TRUE(test, model_append_len(m, r6.trailer - m->head + 1, -1));
			m->keep_slot = NONE;
			KUNIT_ASSERT_TRUE(test, has_magic(model_slot(m, r6.trailer)));
			model_expect(m, 7, map);
			replay_model(test, m, run);
			KUNIT_EXPECT_EQ(test, run->ret, 0);
			KUNIT_EXPECT_EQ(test, run->rp.records, 7U);
			KUNIT_EXPECT_EQ(test, run->rp.head, m->head);
			KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, 32), 0U, "length %u", len);
			ressd_index_exit(&run->idx);
			covered++;
		}
		model_exit(m);
	}
	KUNIT_EXPECT_GT(test, covered, 1U);
}

/* A record of an older lap at head (older seq) ends the chain. */
static void ressd_format_test_old_lap(struct kunit *test)
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
	KUNIT_EXPECT_EQ(test, run->rp.head, m->head);
	expect_why(test, run->rp.stop, model_stop(m, m->head, NONE), "after %u records",
		   m->nr_rec);
	ressd_index_exit(&run->idx);
	model_exit(m);
}

/*
 * A second crash at the mover's checkpoint (I2, I6).  A crash loses record
 * 6's trailer while record 7 survives; recovery raises the epoch and the
 * writer rewrites 6 with the same length, so that it ends where the stale 7
 * begins; the mover moves everything home and checkpoints at head (7); a
 * crash before the next log write.  The chain starts at the checkpoint,
 * where the stale 7 of the older epoch sits: replay must not take it (the
 * checkpoint carries the epoch of the chain at that point), nor its chain.
 */
/*
 * What recovery and the mover store as the checkpoint's epoch: the current
 * one for a record of this activation, written or not yet (a lower bound
 * would let replay take a stale record of an older activation there), and
 * the chain's epoch for an older record (a higher one would stop replay
 * before records that are live).
 */
static void ressd_format_test_checkpoint_epoch(struct kunit *test)
{
	static const struct {
		u64 seq, first_seq, epoch, chain, want;
		const char *what;
	} c[] = {
		{ 10, 10, 5, 3, 5, "recovery, empty log: the next record's epoch" },
		{ 12, 10, 5, 5, 5, "a record written in this activation" },
		{ 10, 10, 5, 4, 5, "the first new record, the chain's last one older" },
		{ 9, 10, 5, 4, 4, "an older record still in the log" },
		{ 3, 10, 5, 2, 2, "an older record two activations back" },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test, ressd_checkpoint_epoch(c[i].seq, c[i].first_seq,
								 c[i].epoch, c[i].chain),
				    c[i].want, "%s", c[i].what);
}

static void ressd_format_test_stale_at_checkpoint(struct kunit *test)
{
	struct replay_run *run = kunit_kzalloc(test, sizeof(*run), GFP_KERNEL);
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	u32 *map = kunit_kmalloc_array(test, 32, sizeof(u32), GFP_KERNEL);
	struct model_rec r5, r6;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, run);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, map);
	model_init(test, m, 512, 32, 22, 0);
	m->no_dead = true;
	for (i = 0; i < 9; i++)
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	r5 = m->rec[5];
	r6 = m->rec[6];
	memset(model_slot(m, r5.trailer), 0, RESSD_BLOCK_SIZE);

	/* First recovery: the chain ends at the lost 6; the epoch goes up. */
	m->epoch++;
	m->nr_rec = 5;
	m->seq = r5.seq;
	m->head = r5.start;
	KUNIT_ASSERT_TRUE(test, model_append_len(m, r5.nr_data, -1));
	KUNIT_ASSERT_EQ(test, m->head, r6.start);

	/*
	 * The mover moved all of it home and checkpoints at head, with the
	 * epoch the writer computes there (the new records began at r5.seq).
	 */
	m->sb_tail_slot = m->head;
	m->sb_tail_seq = m->seq;
	m->sb_tail_epoch = ressd_checkpoint_epoch(m->seq, r5.seq, m->epoch, m->epoch - 1);
	KUNIT_EXPECT_EQ(test, m->sb_tail_epoch, m->epoch);
	for (i = 0; i < 32; i++)
		map[i] = NONE;
	replay_model(test, m, run);
	KUNIT_EXPECT_EQ(test, run->ret, 0);
	KUNIT_EXPECT_EQ(test, run->rp.records, 0U);
	KUNIT_EXPECT_EQ(test, run->rp.head, r6.start);
	KUNIT_EXPECT_EQ(test, run->rp.next_seq, r6.seq);
	KUNIT_EXPECT_EQ_MSG(test, compare_map(run, map, 32), 0U,
			    "stale records after the checkpoint were replayed");
	expect_why(test, run->rp.stop, "epoch out of order", "stale 7 at the checkpoint");
	ressd_index_exit(&run->idx);
	model_exit(m);
}

/*
 * ressd_log_find_newer(): recovery's check when the superblock copy that
 * lost the load may have been the newer.  Over a log of several laps whose
 * every record carries a checkpoint no newer than the superblock's (stale
 * laps included) it finds nothing; below the newest checkpoint or epoch a
 * record carries it finds the first such record in slot order; it reads
 * every slot once, in order; it takes no record of another volume and no
 * trailer with a bad checksum; a read error comes back as it is.
 */
static void ressd_format_test_find_newer(struct kunit *test)
{
	struct log_model *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct find_ctx *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct ressd_trailer r, t = { .seq = 1ULL << 41, .epoch = 1, .tail_seq = 1ULL << 40 };
	u32 i, first = NONE, alien;
	u64 max_tail = 0;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_NOT_NULL(test, f);
	model_init(test, m, 60, 80, 44, 0);
	while (m->nr_rec < 60)		/* several laps: older trailers stay */
		KUNIT_ASSERT_TRUE(test, model_append(m, -1));
	for (i = 0; i < m->lg.nr_slots; i++) {
		if (!has_magic(model_slot(m, i)) ||
		    ressd_rec_decode(model_slot(m, i), &m->lg, i, &r))
			continue;
		KUNIT_EXPECT_LE(test, r.tail_seq, m->sb_tail_seq);
		max_tail = max(max_tail, r.tail_seq);
	}
	KUNIT_ASSERT_GT(test, max_tail, 1000ULL);	/* the writer's tail moved */
	for (i = 0; i < m->lg.nr_slots && first == NONE; i++)
		if (has_magic(model_slot(m, i)) &&
		    !ressd_rec_decode(model_slot(m, i), &m->lg, i, &r) && r.tail_seq == max_tail)
			first = i;

	/* The superblock's own numbers: nothing newer, every slot read in order. */
	f->m = m;
	ret = ressd_log_find_newer(find_read, f, &m->lg, m->epoch, m->sb_tail_seq, m->scratch, &r);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, f->reads, m->lg.nr_slots);
	KUNIT_EXPECT_FALSE(test, f->out_of_order);
	KUNIT_EXPECT_EQ(test, f->next - f->reads, 0U);

	/* A superblock one checkpoint older: the first record with the newer one. */
	memset(f, 0, sizeof(*f));
	f->m = m;
	ret = ressd_log_find_newer(find_read, f, &m->lg, m->epoch, max_tail - 1, m->scratch, &r);
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, r.tail_seq, max_tail);
	KUNIT_EXPECT_EQ(test, r.slot, first);
	ret = ressd_log_find_newer(model_read, m, &m->lg, m->epoch, max_tail, m->scratch, &r);
	KUNIT_EXPECT_EQ(test, ret, 0);

	/* A superblock one epoch older: every record is newer, the first found. */
	ret = ressd_log_find_newer(model_read, m, &m->lg, m->epoch - 1, max_tail, m->scratch, &r);
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, r.epoch, m->epoch);

	/* A read error. */
	memset(f, 0, sizeof(*f));
	f->m = m;
	f->fail_at = 7;
	ret = ressd_log_find_newer(find_read, f, &m->lg, m->epoch, max_tail, m->scratch, &r);
	KUNIT_EXPECT_EQ(test, ret, -EIO);
	KUNIT_EXPECT_EQ(test, f->reads, 7U);

	/* A record of another volume, and one with a bad checksum: not taken. */
	for (alien = 0; alien < m->lg.nr_slots && has_magic(model_slot(m, alien)); alien++)
		;
	KUNIT_ASSERT_LT(test, alien, m->lg.nr_slots);
	t.slot = alien;
	m->lg.nonce ^= 1;
	ressd_rec_encode(model_slot(m, alien), &m->lg, &t, NULL, NULL);
	m->lg.nonce ^= 1;
	ret = ressd_log_find_newer(model_read, m, &m->lg, m->epoch, max_tail, m->scratch, &r);
	KUNIT_EXPECT_EQ(test, ret, 0);
	ressd_rec_encode(model_slot(m, alien), &m->lg, &t, NULL, NULL);
	model_slot(m, alien)[RESSD_BLOCK_SIZE - 1] ^= 1;
	ret = ressd_log_find_newer(model_read, m, &m->lg, m->epoch, max_tail, m->scratch, &r);
	KUNIT_EXPECT_EQ(test, ret, 0);
	/* The same trailer intact is found (the two above were refused for their flaw). */
	model_slot(m, alien)[RESSD_BLOCK_SIZE - 1] ^= 1;
	ret = ressd_log_find_newer(model_read, m, &m->lg, m->epoch, max_tail, m->scratch, &r);
	KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, r.slot, alien);

	model_exit(m);
}

#define GIB (2ULL * 1024 * 1024)	/* sectors */

/* ---- the superblock: encoding, checksum and every validity check ---- */

static const struct ressd_geometry sb_geo = {
	.origin_offset = 0, .origin_sectors = GIB, .origin_dev_sectors = GIB,
	.log_offset = 0, .log_sectors = 65536, .log_dev_sectors = GIB,
};

static struct ressd_disk_sb *sb_make(struct kunit *test, u64 location)
{
	struct ressd_disk_sb *sb = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct ressd_sb_info info = {
		.nonce = 0x0123456789abcdefULL, .generation = 7,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
		.tail_slot = 3, .tail_seq = 42,
	};
	struct ressd_tunables t;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	ressd_default_tunables(&t);
	ressd_sb_encode(sb, location, &info, &sb_geo, &t);
	return sb;
}

static void ressd_sb_test_csum_vector(struct kunit *test)
{
	/* crc32c("123456789") is 0xe3069283; the kernel's raw form is its
	 * complement with seed ~0, which a nonce of 0xffffffff gives.
	 */
	KUNIT_EXPECT_EQ(test, ressd_csum(0xffffffffULL, "123456789", 9), 0x1cf96d7cU);
}

static void ressd_sb_test_roundtrip(struct kunit *test)
{
	struct ressd_disk_sb *a = sb_make(test, 0), *b = sb_make(test, 1);

	KUNIT_EXPECT_NULL(test, ressd_sb_check(a, 0, &sb_geo));
	KUNIT_EXPECT_NULL(test, ressd_sb_check(b, 1, &sb_geo));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(a->magic), RESSD_SB_MAGIC);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(a->generation), 7ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(a->tail_slot), 3U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(a->tail_seq), 42ULL);
	/* Everything after the structure is zero. */
	KUNIT_EXPECT_NULL(test, memchr_inv(a + 1, 0, RESSD_BLOCK_SIZE - sizeof(*a)));
	/* Copy A is not valid at copy B's place. */
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(a, 1, &sb_geo),
			   "Superblock at the wrong location");
}

/* Flipping any bit of the block makes it invalid. */
static void ressd_sb_test_every_bit(struct kunit *test)
{
	struct ressd_disk_sb *sb = sb_make(test, 0);
	u8 *p = (u8 *)sb;
	unsigned int bit;

	for (bit = 0; bit < RESSD_BLOCK_SIZE * 8; bit += 61) {
		p[bit / 8] ^= 1 << (bit % 8);
		KUNIT_EXPECT_NOT_NULL_MSG(test, ressd_sb_check(sb, 0, &sb_geo),
					  "bit %u", bit);
		p[bit / 8] ^= 1 << (bit % 8);
	}
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &sb_geo));
}

static void ressd_sb_test_fields(struct kunit *test)
{
	struct ressd_geometry g = sb_geo;
	struct ressd_disk_sb *sb;
	struct ressd_sb_info info = {
		.nonce = 5, .generation = 1,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
	};
	struct ressd_tunables t;

	ressd_default_tunables(&t);
	sb = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sb);

	ressd_sb_encode(sb, 0, &info, &g, &t);
	sb->magic = 0;
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Bad superblock magic");

	ressd_sb_encode(sb, 0, &info, &g, &t);
	sb->reserved[3] = 1;
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Bad superblock checksum");

	info.incompat = 2;	/* bit 0 is RESSD_FEATURE_INCOMPAT_ORDERED */
	ressd_sb_encode(sb, 0, &info, &g, &t);
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Unknown incompatible feature");
	info.incompat = 0;

	info.tail_slot = info.nr_slots;
	ressd_sb_encode(sb, 0, &info, &g, &t);
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Superblock checkpoint out of range");
	info.tail_slot = 0;

	info.tail_seq = RESSD_MAX_SEQ;
	ressd_sb_encode(sb, 0, &info, &g, &t);
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &g));
	info.tail_seq = RESSD_MAX_SEQ + 1;
	ressd_sb_encode(sb, 0, &info, &g, &t);
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g), "Superblock checkpoint out of range");
	info.tail_seq = 42;

	ressd_sb_encode(sb, 0, &info, &g, &t);
	g.origin_sectors -= 8;
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g),
			   "Superblock geometry does not match the table");
	g = sb_geo;
	g.log_offset = 8;
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &g),
			   "Superblock geometry does not match the table");
}

/* A superblock number and whether ressd_sb_check() takes it. */
struct ressd_t_bound {
	u64 v;
	bool valid;
};

/*
 * Encode @info with *@field (one of its members) set to each case and
 * check it: valid, or refused with @bad.
 */
static void ressd_t_sb_bounds(struct kunit *test, struct ressd_sb_info *info, u64 *field,
			      const char *name, const struct ressd_t_bound *cases,
			      unsigned int n, const char *bad)
{
	struct ressd_disk_sb *sb = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct ressd_tunables t;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	ressd_default_tunables(&t);
	for (i = 0; i < n; i++) {
		const char *why;

		*field = cases[i].v;
		ressd_sb_encode(sb, 1, info, &sb_geo, &t);
		why = ressd_sb_check(sb, 1, &sb_geo);
		if (cases[i].valid)
			KUNIT_EXPECT_NULL_MSG(test, why, "%s %llu", name, cases[i].v);
		else
			KUNIT_EXPECT_STREQ_MSG(test, why, bad, "%s %llu", name, cases[i].v);
	}
}

/*
 * The epoch stays below 2^62 as the sequence numbers do: recovery writes
 * epoch + 1, and an epoch that wrapped to 0 would let a stale record of an
 * earlier life pass replay's epoch guard.
 */
static void ressd_sb_test_epoch(struct kunit *test)
{
	static const struct ressd_t_bound cases[] = {
		{ 0, true }, { 1, true }, { RESSD_MAX_EPOCH, true },
		{ RESSD_MAX_EPOCH + 1, false }, { 1ULL << 63, false },
		{ U64_MAX - 1, false }, { U64_MAX, false },
	};
	struct ressd_sb_info info = {
		.nonce = 9, .generation = 3,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
		.tail_slot = 1, .tail_seq = 5,
	};

	KUNIT_EXPECT_EQ(test, RESSD_MAX_EPOCH, (1ULL << 62) - 1);
	ressd_t_sb_bounds(test, &info, &info.epoch, "epoch", cases, ARRAY_SIZE(cases),
			  "Superblock checkpoint out of range");
}

/*
 * Generations stay below 2^62: the larger one wins a load, and one that
 * wrapped to 0 would never win again.
 */
static void ressd_sb_test_generation(struct kunit *test)
{
	static const struct ressd_t_bound cases[] = {
		{ 0, true }, { 1, true }, { RESSD_MAX_GENERATION, true },
		{ RESSD_MAX_GENERATION + 1, false }, { U64_MAX, false },
	};
	struct ressd_sb_info info = {
		.nonce = 9, .epoch = 2,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
		.tail_slot = 1, .tail_seq = 5,
	};

	KUNIT_EXPECT_EQ(test, RESSD_MAX_GENERATION, (1ULL << 62) - 1);
	ressd_t_sb_bounds(test, &info, &info.generation, "generation", cases,
			  ARRAY_SIZE(cases), "Superblock generation out of range");
}

/*
 * Unknown read-only compatible features leave a copy valid: whether it may
 * be loaded depends on the table's mode, which ressd_meta_load() decides.
 * Unknown incompatible features make it invalid.
 */
static void ressd_sb_test_features(struct kunit *test)
{
	struct ressd_disk_sb *sb = kunit_kzalloc(test, RESSD_BLOCK_SIZE, GFP_KERNEL);
	struct ressd_sb_info info = {
		.nonce = 11, .generation = 1,
		.nr_slots = ressd_nr_slots(sb_geo.log_sectors),
	};
	struct ressd_tunables t;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	ressd_default_tunables(&t);
	info.ro_compat = ~RESSD_FEATURE_RO_COMPAT_SUPP;
	ressd_sb_encode(sb, 0, &info, &sb_geo, &t);
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &sb_geo));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sb->ro_compat), ~RESSD_FEATURE_RO_COMPAT_SUPP);
	info.compat = ~RESSD_FEATURE_COMPAT_SUPP;
	ressd_sb_encode(sb, 0, &info, &sb_geo, &t);
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &sb_geo));
	info.incompat = RESSD_FEATURE_INCOMPAT_ORDERED;
	ressd_sb_encode(sb, 0, &info, &sb_geo, &t);
	KUNIT_EXPECT_NULL(test, ressd_sb_check(sb, 0, &sb_geo));
	info.incompat = ~RESSD_FEATURE_INCOMPAT_SUPP;
	ressd_sb_encode(sb, 0, &info, &sb_geo, &t);
	KUNIT_EXPECT_STREQ(test, ressd_sb_check(sb, 0, &sb_geo), "Unknown incompatible feature");
}

static void ressd_sb_test_nr_slots(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(0), 0U);
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(16), 0U);
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(24), 1U);
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(65536), 8190U);
	KUNIT_EXPECT_EQ(test, ressd_nr_slots(U64_MAX), RESSD_MAX_SLOTS);
}

static struct kunit_case ressd_format_test_cases[] = {
	KUNIT_CASE(ressd_sb_test_csum_vector),
	KUNIT_CASE(ressd_sb_test_roundtrip),
	KUNIT_CASE(ressd_sb_test_every_bit),
	KUNIT_CASE(ressd_sb_test_fields),
	KUNIT_CASE(ressd_sb_test_epoch),
	KUNIT_CASE(ressd_sb_test_generation),
	KUNIT_CASE(ressd_sb_test_features),
	KUNIT_CASE(ressd_sb_test_nr_slots),
	KUNIT_CASE(ressd_format_test_roundtrip),
	KUNIT_CASE(ressd_format_test_next_slot),
	KUNIT_CASE_PARAM(ressd_format_test_decode_checks, rec_gen_params),
	KUNIT_CASE(ressd_format_test_too_many_items),
	KUNIT_CASE(ressd_format_test_find),
	KUNIT_CASE_PARAM(ressd_format_test_every_prefix, replay_gen_params),
	KUNIT_CASE(ressd_format_test_trailers_old_sb),
	KUNIT_CASE_PARAM(ressd_format_test_idempotent, replay_gen_params),
	KUNIT_CASE_PARAM(ressd_format_test_torn_data, replay_gen_params),
	KUNIT_CASE_PARAM(ressd_format_test_ordered, replay_gen_params),
	KUNIT_CASE(ressd_format_test_mark_ordered),
	KUNIT_CASE_PARAM(ressd_format_test_bit_flips, replay_gen_params),
	KUNIT_CASE(ressd_format_test_lost_trailer),
	KUNIT_CASE(ressd_format_test_stale_trailer_in_range),
	KUNIT_CASE(ressd_format_test_magic_data),
	KUNIT_CASE(ressd_format_test_max_record),
	KUNIT_CASE(ressd_format_test_end_of_log),
	KUNIT_CASE(ressd_format_test_chain_bounds),
	KUNIT_CASE(ressd_format_test_stale_future_record),
	KUNIT_CASE(ressd_format_test_old_lap),
	KUNIT_CASE(ressd_format_test_stale_at_checkpoint),
	KUNIT_CASE(ressd_format_test_checkpoint_epoch),
	KUNIT_CASE(ressd_format_test_find_newer),
	{}
};

static struct kunit_suite ressd_format_test_suite = {
	.name = "dm_ressd_format",
	.test_cases = ressd_format_test_cases,
};

kunit_test_suites(&ressd_format_test_suite);
