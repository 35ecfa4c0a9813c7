// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_ressd_log: how the log writer hands out slots
 * (__ressd_log_reserve() in dm-ressd-log.c), on a target structure with
 * no devices: records are "written" and "moved home" by the test.
 *
 * The directed case walks a 20-slot log through packing, a record that is
 * full, padding at the end of the log, the wrap to slot 0, a full log and
 * the room kept for invalidations.  The randomized case drives reservations,
 * seals, record completions and mover frees in random order on random
 * geometries and checks after every step that: a reservation's slots follow
 * the record's earlier slots and leave room for its trailer before the end
 * of the log; a sealed record's trailer follows its data; the head is the
 * end of the last reservation (or after the trailer it sealed); the
 * count of used slots equals the slots of all records not yet freed, which
 * lie one after the other from the tail; a refusal happens only when the
 * log (minus the invalidation reserve) has no room, a deferral only when no
 * record buffer is free.  The generator is a seeded xorshift, so a failure
 * names its seed and step and replays exactly.  The mover's copies forward
 * take entries as small writes do.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "dm-ressd.h"
#include "ressd-kunit.h"

#define T_MAX_RECS	4096

struct t_rec {
	u32 start;
	u32 size;	/* data + trailer slots */
};

struct t_alloc {
	struct ressd_c *rc;
	struct t_rec fifo[T_MAX_RECS];	/* written, not yet freed: oldest first */
	u32 nr_fifo, first;
};

static void t_noop(struct work_struct *w)
{
}

static struct t_alloc *t_setup(struct kunit *test, u32 nr_slots, u32 mover_batch)
{
	struct t_alloc *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct ressd_c *rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, rc);
	spin_lock_init(&rc->lock);
	bio_list_init(&rc->deferred);
	INIT_WORK(&rc->worker, t_noop);
	rc->wq = alloc_ordered_workqueue("ressd-kunit", 0);
	KUNIT_ASSERT_NOT_NULL(test, rc->wq);
	rc->lg.nr_slots = nr_slots;
	rc->tunables.mover_batch = mover_batch;
	rc->recovered = true;
	rc->log.next_seq = 1;
	KUNIT_ASSERT_EQ(test, ressd_log_init(rc), 0);
	KUNIT_ASSERT_EQ(test, ressd_log_init_trailers(rc, nr_slots), 0);
	t->rc = rc;
	return t;
}

static void t_teardown(struct t_alloc *t)
{
	flush_workqueue(t->rc->wq);
	destroy_workqueue(t->rc->wq);
	ressd_log_exit(t->rc);
}

static u32 t_reserve(struct kunit *test, struct t_alloc *t, u32 nr)
{
	struct bio *bio = kunit_kzalloc(test, sizeof(*bio), GFP_KERNEL);
	u32 s;

	KUNIT_ASSERT_NOT_NULL(test, bio);
	spin_lock_irq(&t->rc->lock);
	s = __ressd_log_reserve(t->rc, bio, 1000, nr);
	spin_unlock_irq(&t->rc->lock);
	return s;
}

static void t_seal(struct t_alloc *t)
{
	spin_lock_irq(&t->rc->lock);
	__ressd_log_seal(t->rc, 0);
	spin_unlock_irq(&t->rc->lock);
}

/* The oldest sealed record is on the medium (what ressd_record_done does). */
static bool t_complete(struct t_alloc *t)
{
	struct ressd_c *rc = t->rc;
	struct ressd_record *r;

	spin_lock_irq(&rc->lock);
	r = list_first_entry_or_null(&rc->log.sealed, struct ressd_record, list);
	if (r) {
		list_del(&r->list);
		rc->log.pend_start = ressd_rec_next_slot(&rc->lg, r->slot);
		rc->log.pend_slots -= 1 + r->nr_data;
		t->fifo[(t->first + t->nr_fifo++) % T_MAX_RECS] =
			(struct t_rec){ r->start, 1 + r->nr_data };
		bio_list_init(&r->bios);
		list_add(&r->list, &rc->log.free_recs);
	}
	spin_unlock_irq(&rc->lock);
	return r;
}

/* The mover frees the oldest written record. */
static bool t_free(struct t_alloc *t)
{
	struct ressd_c *rc = t->rc;
	struct t_rec *r;

	if (!t->nr_fifo)
		return false;
	r = &t->fifo[t->first];
	spin_lock_irq(&rc->lock);
	rc->log.used -= r->size;
	rc->log.tail_slot = ressd_rec_next_slot(&rc->lg, r->start + r->size - 1);
	spin_unlock_irq(&rc->lock);
	t->first = (t->first + 1) % T_MAX_RECS;
	t->nr_fifo--;
	return true;
}

/*
 * The records not freed (written, sealed, open), oldest first, lie one after
 * the other from the tail, and their slots add up to "used".  Returns NULL
 * or what is wrong.
 */
static const char *t_check(struct t_alloc *t)
{
	struct ressd_c *rc = t->rc;
	struct ressd_record *r;
	u32 i, at, sum = 0;
	const char *why = NULL;

	spin_lock_irq(&rc->lock);
	at = rc->log.tail_slot;
	for (i = 0; i < t->nr_fifo && !why; i++) {
		struct t_rec *f = &t->fifo[(t->first + i) % T_MAX_RECS];

		if (f->start != at)
			why = "a written record is not where the previous one ended";
		at = ressd_rec_next_slot(&rc->lg, f->start + f->size - 1);
		sum += f->size;
	}
	list_for_each_entry(r, &rc->log.sealed, list) {
		if (!why && r->start != at)
			why = "a sealed record is not where the previous one ended";
		if (!why && r->slot != r->start + r->nr_data)
			why = "a sealed record's trailer does not follow its data";
		if (!why && r->slot >= rc->lg.nr_slots)
			why = "a sealed record runs past the end of the log";
		at = ressd_rec_next_slot(&rc->lg, r->slot);
		sum += 1 + r->nr_data;
	}
	if (rc->log.open) {
		r = rc->log.open;
		if (!why && r->start != at)
			why = "the open record is not where the previous one ended";
		if (!why && r->start + r->nr_data >= rc->lg.nr_slots)
			why = "the open record leaves no slot for its trailer";
		at = r->start + r->nr_data;
		sum += 1 + r->nr_data;
	}
	if (!why && sum != rc->log.used)
		why = "used is not the sum of the records' slots";
	if (!why && at != rc->log.head)
		why = "head is not the end of the newest record";
	if (!why && rc->log.used > rc->lg.nr_slots)
		why = "more slots used than the log has";
	spin_unlock_irq(&rc->lock);
	return why;
}

static void ressd_log_test_directed(struct kunit *test)
{
	/* 20 slots; mover_batch 32 sectors: a record holds 3 data blocks. */
	struct t_alloc *t = t_setup(test, 20, 32);
	u32 i;

	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 0U);	/* data from 0 */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 2), 1U);	/* packed: 1, 2 */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 4U);	/* full: trailer at 3 */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 4), RESSD_NO_SLOT);	/* > a record */
	KUNIT_EXPECT_NULL(test, t_check(t));
	t_seal(t);					/* trailer at 5 */
	KUNIT_EXPECT_EQ(test, t->rc->log.head, 6U);
	KUNIT_EXPECT_EQ(test, t->rc->log.used, 6U);
	/* Slots 6..11 taken, 12 + the 8 kept for invalidations = 20. */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 3), 6U);	/* trailer at 9 */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 10U);	/* its trailer counted */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), RESSD_NO_SLOT);
	KUNIT_EXPECT_EQ(test, t->rc->log.used, 12U);
	KUNIT_EXPECT_EQ(test, t->rc->log.head, 11U);
	KUNIT_EXPECT_NULL(test, t_check(t));
	/* Written and moved home: the log is empty, head at 12. */
	t_seal(t);
	while (t_complete(t))
		;
	while (t_free(t))
		;
	KUNIT_EXPECT_EQ(test, t->rc->log.used, 0U);
	KUNIT_EXPECT_EQ(test, t->rc->log.head, 12U);
	KUNIT_EXPECT_NULL(test, t_check(t));
	/* 12..14, trailer 15; 16..18, trailer 19 ends the log exactly. */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 3), 12U);
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 3), 16U);
	KUNIT_EXPECT_EQ(test, t->rc->log.head, 0U);
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 0U);	/* wrapped */
	KUNIT_EXPECT_NULL(test, t_check(t));
	t_seal(t);
	while (t_complete(t))
		;
	while (t_free(t))
		;
	/* Head 2: 2..5, 6..9, 10..13, 14..17; then 3 do not fit in 18..19. */
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, t_reserve(test, t, 3), 2 + 4 * i);
		t_seal(t);
		t_complete(t);
		t_free(t);
	}
	KUNIT_EXPECT_EQ(test, t->rc->log.head, 18U);
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 3), 0U);	/* padding 18, 19 */
	KUNIT_EXPECT_NULL(test, t_check(t));
	KUNIT_EXPECT_EQ(test, t->rc->log.used, 6U);		/* 2 padding + 3 + 1 */
	t_teardown(t);
}

static void ressd_log_test_defer(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 200, 32);
	u32 i;

	/* Every record buffer sealed and none written: the next write waits. */
	for (i = 0; i < RESSD_NR_RECORDS; i++) {
		KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 2 * i);
		t_seal(t);
	}
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), RESSD_DEFER_SLOT);
	KUNIT_EXPECT_NULL(test, t_check(t));
	KUNIT_EXPECT_TRUE(test, t_complete(t));
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 8U);
	KUNIT_EXPECT_NULL(test, t_check(t));
	t_teardown(t);
}

static void ressd_log_test_random(struct kunit *test)
{
	u64 seed = 0xa110c;
	u32 round;

	for (round = 0; round < 40; round++) {
		u32 nr_slots = RESSD_INVAL_RESERVE + 2 + ressd_kunit_xorshift(&seed) % 300;
		/* 1..15 data a record */
		u32 batch = 16 + 8 * (ressd_kunit_xorshift(&seed) % 15);
		u32 max_data = batch / 8 - 1, step;
		struct t_alloc *t = t_setup(test, nr_slots, batch);

		for (step = 0; step < 3000; step++) {
			u64 x = ressd_kunit_xorshift(&seed);
			const char *why = NULL;
			u32 nr, s, used, limit = nr_slots - RESSD_INVAL_RESERVE;

			switch (x % 8) {
			case 0:
				t_seal(t);
				break;
			case 1:
			case 2:
				t_complete(t);
				break;
			case 3:
				t_free(t);
				break;
			default:
				nr = 1 + (x >> 8) % (max_data + 1);
				s = t_reserve(test, t, nr);
				used = t->rc->log.used;
				if (nr > max_data) {
					if (s != RESSD_NO_SLOT)
						why = "a write longer than a record got slots";
				} else if (s == RESSD_DEFER_SLOT) {
					if (!list_empty(&t->rc->log.free_recs))
						why = "deferred with a record buffer free";
				} else if (s == RESSD_NO_SLOT) {
					if (used + 1 + nr <= limit)
						why = "refused with room left";
				} else if ((u64)s + nr >= nr_slots) {
					why = "slots outside the log, or no room for the trailer";
				} else if (t->rc->log.head != s + nr &&
					   t->rc->log.head !=
					   ressd_rec_next_slot(&t->rc->lg, s + nr)) {
					why = "head is not after the new slots";
				} else if (!t->rc->log.open && list_empty(&t->rc->log.sealed)) {
					why = "slots but no record";
				}
				break;
			}
			if (!why)
				why = t_check(t);
			if (why) {
				KUNIT_FAIL(test, "seed %#x round %u step %u: %s", 0xa110c,
					   round, step, why);
				KUNIT_FAIL(test, "(%u slots, batch %u)", nr_slots, batch);
				t_teardown(t);
				return;
			}
		}
		t_teardown(t);
	}
}

/* __ressd_log_invalidate() under the lock. */
static bool t_inval(struct t_alloc *t, u64 block)
{
	bool ok;

	spin_lock_irq(&t->rc->lock);
	ok = __ressd_log_invalidate(t->rc, block, 1);
	spin_unlock_irq(&t->rc->lock);
	return ok;
}

/*
 * Which entries an invalidation marks dead on disk: only those of the
 * record that carries it.  An older, sealed record may become durable
 * (written by a flush already under way) while the record with the
 * invalidation does not; had its entry been marked dead, replay would bring
 * back an even older copy of the block (the crash harness found this).
 * Its entry is still never indexed in memory.
 */
static void ressd_log_test_inval_dead(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 1024, 64);
	struct ressd_c *rc = t->rc;
	struct ressd_record *r1, *r2, *r3;
	u32 i;

	KUNIT_ASSERT_EQ(test, ressd_index_init(&rc->index, 1024, 0), 0);

	/* Block 1000 in record 1, sealed (a flush is writing it). */
	KUNIT_ASSERT_LT(test, t_reserve(test, t, 1), RESSD_DEFER_SLOT);
	r1 = rc->log.open;
	t_seal(t);
	KUNIT_ASSERT_TRUE(test, t_inval(t, 1000));
	r2 = rc->log.open;
	KUNIT_ASSERT_NOT_NULL(test, r2);
	KUNIT_EXPECT_PTR_NE(test, r1, r2);
	KUNIT_EXPECT_EQ(test, r2->nr_inval, 1U);
	KUNIT_EXPECT_TRUE(test, test_bit(0, r1->killed));
	KUNIT_EXPECT_FALSE(test, test_bit(0, r1->dead));

	/* Logged again after the invalidation, in record 2, then invalidated. */
	KUNIT_ASSERT_LT(test, t_reserve(test, t, 1), RESSD_DEFER_SLOT);
	KUNIT_ASSERT_PTR_EQ(test, rc->log.open, r2);
	KUNIT_ASSERT_TRUE(test, t_inval(t, 1000));
	KUNIT_EXPECT_PTR_EQ(test, rc->log.open, r2);
	KUNIT_EXPECT_TRUE(test, test_bit(0, r2->killed));
	KUNIT_EXPECT_TRUE(test, test_bit(0, r2->dead));
	t_seal(t);

	/*
	 * Record 3 holds block 1000 and is one item short of full: the
	 * invalidation of 1000 seals it and goes into record 4.
	 */
	KUNIT_ASSERT_LT(test, t_reserve(test, t, 1), RESSD_DEFER_SLOT);
	r3 = rc->log.open;
	for (i = 0; r3->nr_data + r3->nr_inval + 1 <= RESSD_REC_MAX_ITEMS; i++)
		KUNIT_ASSERT_TRUE(test, t_inval(t, 5000 + i));
	KUNIT_ASSERT_PTR_EQ(test, rc->log.open, r3);
	KUNIT_ASSERT_TRUE(test, t_inval(t, 1000));
	KUNIT_EXPECT_PTR_NE(test, rc->log.open, r3);
	KUNIT_EXPECT_EQ(test, rc->log.open->nr_inval, 1U);
	KUNIT_EXPECT_TRUE(test, test_bit(0, r3->killed));
	KUNIT_EXPECT_FALSE(test, test_bit(0, r3->dead));
	/* Invalidations carry increasing generations. */
	KUNIT_EXPECT_GT(test, rc->log.open->inval_gen, r3->inval_gen);
	KUNIT_EXPECT_GT(test, r3->inval_gen, r2->inval_gen);

	ressd_index_exit(&rc->index);
	t_teardown(t);
}

/*
 * The mover's copies forward (__ressd_log_reserve_copies()): entries for
 * blocks that need not follow each other, in the open record like a small
 * write's, the carrier held with them; __ressd_log_unwritten() reports
 * every unwritten record's blocks (the check the mover makes before a
 * copy); a home write that completes later kills a copy as it kills a
 * small write, dead on disk in the record that carries the invalidation;
 * and a batch larger than a record's data is refused.
 */
static void ressd_log_test_copies(struct kunit *test)
{
	static const u64 blocks[] = { 7, 3, 100 };
	struct t_alloc *t = t_setup(test, 1024, 64);
	struct bio *carrier = kunit_kzalloc(test, sizeof(*carrier), GFP_KERNEL);
	struct bio *big = kunit_kzalloc(test, sizeof(*big), GFP_KERNEL);
	u64 *out = kunit_kcalloc(test, RESSD_UNWRITTEN_MAX, sizeof(*out), GFP_KERNEL);
	u64 big_blocks[8] = { 0 };
	struct ressd_c *rc = t->rc;
	struct ressd_record *r1, *r2;
	struct bio *b;
	u32 i, n, s, found, head;

	KUNIT_ASSERT_NOT_NULL(test, carrier);
	KUNIT_ASSERT_NOT_NULL(test, big);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, ressd_index_init(&rc->index, 1024, 0), 0);

	KUNIT_ASSERT_LT(test, t_reserve(test, t, 1), RESSD_DEFER_SLOT);	/* block 1000 */
	r1 = rc->log.open;
	t_seal(t);
	spin_lock_irq(&rc->lock);
	s = __ressd_log_reserve_copies(rc, carrier, blocks, ARRAY_SIZE(blocks));
	r2 = rc->log.open;
	n = __ressd_log_unwritten(rc, out);
	spin_unlock_irq(&rc->lock);
	KUNIT_ASSERT_LT(test, s, RESSD_DEFER_SLOT);
	KUNIT_ASSERT_NOT_NULL(test, r2);
	KUNIT_EXPECT_PTR_NE(test, r1, r2);
	KUNIT_EXPECT_EQ(test, s, r2->start);
	KUNIT_ASSERT_EQ(test, r2->nr_data, 3U);
	for (i = 0; i < ARRAY_SIZE(blocks); i++)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(r2->items[i].block), blocks[i]);
	found = 0;
	bio_list_for_each(b, &r2->bios)
		found += b == carrier;
	KUNIT_EXPECT_EQ(test, found, 1U);
	/* Unwritten: 1000 (sealed record), 7, 3, 100 (open one), in any order. */
	KUNIT_ASSERT_EQ(test, n, 4U);
	found = 0;
	for (i = 0; i < n; i++)
		found |= (out[i] == 1000) << 0 | (out[i] == 7) << 1 | (out[i] == 3) << 2 |
			 (out[i] == 100) << 3;
	KUNIT_EXPECT_EQ(test, found, 15U);

	/*
	 * Its chunk goes out, and the record is sealed meanwhile: in flight
	 * and on the sealed list, still counted once.
	 */
	spin_lock_irq(&rc->lock);
	head = rc->log.head;
	rc->log.inflight = r2;
	__ressd_log_seal(rc, 0);
	n = __ressd_log_unwritten(rc, out);
	rc->log.inflight = NULL;
	list_del_init(&r2->list);		/* back to open, as it was */
	rc->log.open = r2;
	rc->log.head = head;
	spin_unlock_irq(&rc->lock);
	KUNIT_EXPECT_EQ(test, n, 4U);

	/* A home write over block 3 completes: the copy is killed, dead on disk. */
	KUNIT_ASSERT_TRUE(test, t_inval(t, 3));
	KUNIT_EXPECT_PTR_EQ(test, rc->log.open, r2);
	KUNIT_EXPECT_TRUE(test, test_bit(1, r2->killed));
	KUNIT_EXPECT_TRUE(test, test_bit(1, r2->dead));
	KUNIT_EXPECT_FALSE(test, test_bit(0, r2->killed));
	KUNIT_EXPECT_FALSE(test, test_bit(2, r2->killed));
	/* mover_batch 64 sectors: a record takes 7 data blocks, not 8. */
	spin_lock_irq(&rc->lock);
	s = __ressd_log_reserve_copies(rc, big, big_blocks, ARRAY_SIZE(big_blocks));
	spin_unlock_irq(&rc->lock);
	KUNIT_EXPECT_EQ(test, s, RESSD_NO_SLOT);
	KUNIT_EXPECT_NULL(test, t_check(t));

	ressd_index_exit(&rc->index);
	t_teardown(t);
}

/*
 * A small write as ressd_map_write() puts it in the log: reserve its slots
 * (which seals the record of a FUA write).
 */
static u32 t_write(struct kunit *test, struct t_alloc *t, u32 nr, blk_opf_t opf,
		   struct bio **out)
{
	struct bio *bio = kunit_kzalloc(test, sizeof(*bio), GFP_KERNEL);
	u32 s;

	KUNIT_ASSERT_NOT_NULL(test, bio);
	bio->bi_opf = REQ_OP_WRITE | opf;
	spin_lock_irq(&t->rc->lock);
	s = __ressd_log_reserve(t->rc, bio, 1000, nr);
	spin_unlock_irq(&t->rc->lock);
	*out = bio;
	return s;
}

/* The record that holds @bio: sealed (*@open false) or open. */
static struct ressd_record *t_rec_of(struct t_alloc *t, struct bio *bio, bool *open)
{
	struct ressd_c *rc = t->rc;
	struct ressd_record *r;
	struct bio *b;

	*open = false;
	list_for_each_entry(r, &rc->log.sealed, list)
		bio_list_for_each(b, &r->bios)
			if (b == bio)
				return r;
	*open = true;
	if (rc->log.open)
		bio_list_for_each(b, &rc->log.open->bios)
			if (b == bio)
				return rc->log.open;
	return NULL;
}

/* A FUA write at @nr blocks: its record is sealed with FUA (I1). */
static void t_expect_fua(struct kunit *test, struct t_alloc *t, u32 nr,
			 u32 want_slot, const char *what)
{
	struct ressd_record *r;
	struct bio *bio;
	bool open;

	KUNIT_EXPECT_EQ_MSG(test, t_write(test, t, nr, REQ_FUA, &bio), want_slot,
			    "%s", what);
	r = t_rec_of(t, bio, &open);
	KUNIT_ASSERT_NOT_NULL_MSG(test, r, "%s: the write is in no record", what);
	KUNIT_EXPECT_FALSE_MSG(test, open, "%s: its record is still open", what);
	KUNIT_EXPECT_TRUE_MSG(test, r->flags & REQ_FUA,
			      "%s: its record is sealed without FUA", what);
	KUNIT_EXPECT_NULL(test, t_check(t));
}

/*
 * A FUA write is acknowledged when its record is written, so the record
 * must carry FUA, also when the write itself fills the record (and it is
 * sealed as full before the FUA is seen): with mover_batch 16 every record
 * holds one block, with larger batches the write that takes the last data
 * slot, and at the end of the log a record with room for one block.
 */
static void ressd_log_test_fua_fill(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 20, 16);
	struct bio *bio;
	u32 i;

	/* One block a record: every FUA write fills its record. */
	t_expect_fua(test, t, 1, 0, "batch 16, first record");
	t_expect_fua(test, t, 1, 2, "batch 16, second record");
	t_teardown(t);

	/* Three blocks a record: the third fills it. */
	t = t_setup(test, 200, 32);
	KUNIT_EXPECT_EQ(test, t_write(test, t, 1, 0, &bio), 0U);
	KUNIT_EXPECT_EQ(test, t_write(test, t, 1, 0, &bio), 1U);
	t_expect_fua(test, t, 1, 2, "batch 32, third block");
	/* Two blocks that fill it, and a FUA write that does not. */
	KUNIT_EXPECT_EQ(test, t_write(test, t, 1, 0, &bio), 4U);
	t_expect_fua(test, t, 2, 5, "batch 32, two blocks fill it");
	t_expect_fua(test, t, 1, 8, "batch 32, not full");
	t_teardown(t);

	/* 20 slots, 3 blocks a record: a record at 18 holds one block. */
	t = t_setup(test, 20, 32);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, t_write(test, t, 3, 0, &bio), 4 * i);
		t_seal(t);
		while (t_complete(t))
			;
		while (t_free(t))
			;
	}
	KUNIT_EXPECT_EQ(test, t->rc->log.head, 16U);
	KUNIT_EXPECT_EQ(test, t_write(test, t, 1, 0, &bio), 16U);
	t_seal(t);		/* trailer at 17 */
	t_expect_fua(test, t, 1, 18, "end of the log, room for one block");
	KUNIT_EXPECT_EQ(test, t->rc->log.head, 0U);
	t_teardown(t);
}

/*
 * The end-of-burst callback that map() queues on the submitter's plug can
 * run after the target is gone: the plug belongs to another task, which may
 * be preempted between map() and its unplug while the table is removed.
 * The callback must then not touch the freed target (KASAN reports it).
 */
static void ressd_log_test_plug_after_dtr(struct kunit *test)
{
	struct ressd_c *rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	struct blk_plug plug;

	KUNIT_ASSERT_NOT_NULL(test, rc);
	spin_lock_init(&rc->lock);
	INIT_LIST_HEAD(&rc->log.sealed);
	KUNIT_ASSERT_EQ(test, ressd_plug_init(rc), 0);
	blk_start_plug(&plug);
	KUNIT_EXPECT_TRUE(test, ressd_plug_burst(rc, REQ_SYNC));
	KUNIT_EXPECT_TRUE(test, ressd_plug_burst(rc, REQ_SYNC));	/* one callback a plug */
	/* What the destructor does, while the plug is still held. */
	ressd_plug_release(rc);
	kfree(rc);
	blk_finish_plug(&plug);
	/* Without a plug there is no burst to wait for. */
	rc = kunit_kzalloc(test, sizeof(*rc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rc);
	KUNIT_EXPECT_FALSE(test, ressd_plug_burst(rc, REQ_SYNC));
}

/*
 * While the target lives, the end of the burst writes the pending data: here
 * the task does not wait for its writes, or a sealed record waits (the log
 * is not idle), so it is left to the worker (write_pending), not written by
 * the task (ressd_log_test_unplug_chunk).
 */
static void ressd_log_test_plug_seals(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 64, 1024);
	struct ressd_c *rc = t->rc;
	struct blk_plug plug;

	KUNIT_ASSERT_EQ(test, ressd_plug_init(rc), 0);
	/* The log idle, but writes the task does not wait for (aio). */
	blk_start_plug(&plug);
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 0U);
	KUNIT_EXPECT_TRUE(test, ressd_plug_burst(rc, REQ_SYNC | REQ_IDLE));
	KUNIT_EXPECT_TRUE(test, ressd_plug_burst(rc, 0));
	blk_finish_plug(&plug);
	KUNIT_EXPECT_TRUE(test, rc->log.write_pending);
	KUNIT_EXPECT_NULL(test, rc->log.inflight);
	/* Writes it waits for, but a sealed record waits. */
	t_seal(t);
	blk_start_plug(&plug);
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 2U);
	KUNIT_EXPECT_TRUE(test, ressd_plug_burst(rc, REQ_SYNC));
	KUNIT_EXPECT_FALSE(test, rc->log.write_pending);	/* the burst goes on */
	blk_finish_plug(&plug);
	KUNIT_EXPECT_TRUE(test, rc->log.write_pending);	/* ended: write it */
	KUNIT_EXPECT_NULL(test, rc->log.inflight);
	KUNIT_EXPECT_FALSE(test, bio_list_empty(&rc->log.open->bios));
	ressd_plug_release(rc);
	t_teardown(t);
}

/*
 * A write of @nr blocks at @block in @segs vectors of equal length, none
 * across a page (@segs a multiple of @nr, a power of two a block):
 * reserved, and inline if the log lets it.
 */
static bool t_inline_vecs(struct kunit *test, struct t_alloc *t, u64 block, u32 nr, u32 segs,
			  blk_opf_t opf, struct bio **out, u32 *slot)
{
	struct bio *bio = kunit_kzalloc(test, sizeof(*bio), GFP_KERNEL);
	struct bio_vec *bv = kunit_kcalloc(test, segs, sizeof(*bv), GFP_KERNEL);
	u8 *data = kunit_kzalloc(test, nr << RESSD_BLOCK_SHIFT, GFP_KERNEL);
	u32 len = (nr << RESSD_BLOCK_SHIFT) / segs, i;
	bool ok;

	KUNIT_ASSERT_NOT_NULL(test, bio);
	KUNIT_ASSERT_NOT_NULL(test, bv);
	KUNIT_ASSERT_NOT_NULL(test, data);
	KUNIT_ASSERT_EQ(test, len * segs, nr << RESSD_BLOCK_SHIFT);
	/* Real vectors: the log code counts a write's segments. */
	for (i = 0; i < segs; i++)
		bvec_set_page(&bv[i], virt_to_page(data + i * len), len,
			      offset_in_page(data + i * len));
	bio->bi_io_vec = bv;
	bio->bi_vcnt = segs;
	bio->bi_opf = REQ_OP_WRITE | opf;
	bio->bi_iter.bi_size = nr << RESSD_BLOCK_SHIFT;
	spin_lock_irq(&t->rc->lock);
	*slot = __ressd_log_reserve(t->rc, bio, block, nr);
	ok = *slot < RESSD_DEFER_SLOT && __ressd_log_direct(t->rc, bio);
	spin_unlock_irq(&t->rc->lock);
	*out = bio;
	return ok;
}

/* A write of @nr blocks at @block in one vector (t_inline_vecs()). */
static bool t_inline(struct kunit *test, struct t_alloc *t, u64 block, u32 nr,
		     blk_opf_t opf, struct bio **out, u32 *slot)
{
	return t_inline_vecs(test, t, block, nr, 1, opf, out, slot);
}

/* The slot the index maps @block to, or RESSD_NO_SLOT. */
static u32 t_slot_of(struct ressd_c *rc, u64 block)
{
	struct ressd_map m = { .len = 1 };

	spin_lock_irq(&rc->lock);
	spin_lock(&rc->index.lock);
	__ressd_index_lookup(&rc->index, block, 1, &m);
	spin_unlock(&rc->index.lock);
	spin_unlock_irq(&rc->lock);
	return m.mapped ? m.slot : RESSD_NO_SLOT;
}

/*
 * A small write that finds the log idle becomes the chunk in flight itself
 * (map() remaps it to its slots); one that finds a write in flight, another
 * write held, or a sealed record waiting is held for the worker as before.
 * The completion indexes the inline write's entries, but not one that a
 * home write killed meanwhile, and not the held write's.
 */
static void ressd_log_test_inline(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 1024, 64);
	struct ressd_c *rc = t->rc;
	struct ressd_record *r;
	struct bio *a, *b, *c, *d;
	u32 sa, sb, sc, sd;

	init_waitqueue_head(&rc->wait);
	KUNIT_ASSERT_EQ(test, ressd_index_init(&rc->index, 1024, 0), 0);

	KUNIT_EXPECT_TRUE(test, t_inline(test, t, 10, 2, 0, &a, &sa));
	r = rc->log.open;
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_PTR_EQ(test, rc->log.inflight, r);
	KUNIT_EXPECT_EQ(test, sa, r->start);
	KUNIT_EXPECT_EQ(test, r->chunk_first, 0U);
	KUNIT_EXPECT_EQ(test, r->nr_sub, 2U);
	KUNIT_EXPECT_TRUE(test, bio_list_empty(&r->bios));

	/* While it is in flight the next write is held, and its burst ends. */
	KUNIT_EXPECT_FALSE(test, t_inline(test, t, 20, 1, 0, &b, &sb));
	KUNIT_EXPECT_EQ(test, sb, sa + 2);
	KUNIT_EXPECT_PTR_EQ(test, r->bios.head, b);
	spin_lock_irq(&rc->lock);
	__ressd_log_seal_soon(rc);
	spin_unlock_irq(&rc->lock);
	KUNIT_EXPECT_TRUE(test, rc->log.write_pending);

	/* A home write over block 11 completes meanwhile. */
	KUNIT_ASSERT_TRUE(test, t_inval(t, 11));
	KUNIT_EXPECT_TRUE(test, test_bit(1, r->killed));

	ressd_log_direct_done(rc, BLK_STS_OK);
	KUNIT_EXPECT_NULL(test, rc->log.inflight);
	KUNIT_EXPECT_TRUE(test, rc->log.dirty);
	KUNIT_EXPECT_EQ(test, t_slot_of(rc, 10), sa);
	KUNIT_EXPECT_EQ(test, t_slot_of(rc, 11), RESSD_NO_SLOT);
	KUNIT_EXPECT_EQ(test, t_slot_of(rc, 20), RESSD_NO_SLOT);
	KUNIT_EXPECT_EQ(test, r->nr_sub, 2U);

	/* Idle again, but b is still held: c joins it. */
	KUNIT_EXPECT_FALSE(test, t_inline(test, t, 30, 1, 0, &c, &sc));
	KUNIT_EXPECT_PTR_EQ(test, r->bios.tail, c);

	/* A sealed record waits for the worker: the next is held too. */
	t_seal(t);
	KUNIT_EXPECT_FALSE(test, t_inline(test, t, 40, 1, 0, &d, &sd));
	KUNIT_EXPECT_PTR_NE(test, rc->log.open, r);
	KUNIT_EXPECT_PTR_EQ(test, rc->log.open->bios.head, d);

	ressd_index_exit(&rc->index);
	t_teardown(t);
}

/*
 * In a plug only a synchronous direct write goes inline (its task sleeps
 * next, which flushes the plug; the end of the plug writes the others,
 * __ressd_log_unplug_chunk()); and none while the worker flushes the log.
 */
static void ressd_log_test_inline_plug(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 1024, 64);
	struct ressd_c *rc = t->rc;
	struct blk_plug plug;
	struct bio *a, *b, *c;
	u32 sa, sb, sc;

	init_waitqueue_head(&rc->wait);
	KUNIT_ASSERT_EQ(test, ressd_index_init(&rc->index, 1024, 0), 0);
	blk_start_plug(&plug);
	KUNIT_EXPECT_FALSE(test, t_inline(test, t, 10, 1, REQ_SYNC, &a, &sa));
	KUNIT_EXPECT_NULL(test, rc->log.inflight);
	blk_finish_plug(&plug);
	t_seal(t);
	t_complete(t);

	rc->log.flushing = true;
	KUNIT_EXPECT_FALSE(test, t_inline(test, t, 20, 1, REQ_SYNC | REQ_IDLE, &b, &sb));
	rc->log.flushing = false;
	t_seal(t);
	t_complete(t);

	blk_start_plug(&plug);
	KUNIT_EXPECT_TRUE(test, t_inline(test, t, 30, 1, REQ_SYNC | REQ_IDLE, &c, &sc));
	blk_finish_plug(&plug);
	KUNIT_EXPECT_PTR_EQ(test, rc->log.inflight, rc->log.open);
	ressd_log_direct_done(rc, BLK_STS_OK);
	KUNIT_EXPECT_EQ(test, t_slot_of(rc, 30), sc);

	ressd_index_exit(&rc->index);
	t_teardown(t);
}

static atomic_t t_kicks;

static void t_count_kick(struct work_struct *w)
{
	atomic_inc(&t_kicks);
}

/* What a completion did with the data that waits (t_plug_completion()). */
enum t_handoff { T_WORKER, T_PLUG, T_TASK };

/*
 * One pass of ressd_log_test_plug_completion: @ordered, chunks without
 * crc32c to take; @in_submit, the completion within the inline write's own
 * submission (current->bio_list); @queued, the task's plug holds the
 * end-of-burst callback of a write of this target; @spare, a bio was had
 * for the chunk; @b_segs, the vectors of the waiting write (40 blocks).
 * Returns who has the waiting chunk: the worker (queued),
 * the plug's callback, or this task (the chunk taken, in flight).  (UML
 * runs KUnit on one CPU without preemption: a queued worker runs only once
 * the test sleeps.)
 */
static enum t_handoff t_plug_completion(struct kunit *test, bool ordered, bool in_submit,
					bool queued, bool spare, u32 b_segs)
{
	struct t_alloc *t = t_setup(test, 1024, 512);
	struct ressd_c *rc = t->rc;
	struct bio_list on_stack[2], *saved = current->bio_list;
	struct ressd_record *taken;
	struct blk_plug plug;
	struct bio *a, *b;
	enum t_handoff who;
	u32 sa, sb;

	INIT_WORK(&rc->worker, t_count_kick);
	atomic_set(&t_kicks, 0);
	init_waitqueue_head(&rc->wait);
	KUNIT_ASSERT_EQ(test, ressd_index_init(&rc->index, 1024, 0), 0);
	KUNIT_ASSERT_EQ(test, ressd_plug_init(rc), 0);
	rc->log.ordered_ok = ordered;		/* data_csum is 0 */
	/* a goes inline; b, while a is in flight, waits in the open record. */
	KUNIT_EXPECT_TRUE(test, t_inline(test, t, 10, 1, REQ_SYNC | REQ_IDLE, &a, &sa));
	KUNIT_EXPECT_FALSE(test, t_inline_vecs(test, t, 20, 40, b_segs, REQ_SYNC | REQ_IDLE,
					       &b, &sb));
	spin_lock_irq(&rc->lock);
	__ressd_log_seal_soon(rc);		/* the end of b's burst */
	spin_unlock_irq(&rc->lock);
	KUNIT_EXPECT_TRUE(test, rc->log.write_pending);
	KUNIT_EXPECT_FALSE(test, work_pending(&rc->worker));
	/*
	 * a completes in this task, inside a plug: within its submission (as
	 * on brd), or after it (as a request dispatched at the end of a plug,
	 * whose callbacks have run already).
	 */
	blk_start_plug(&plug);
	if (queued)
		KUNIT_EXPECT_TRUE(test, ressd_plug_burst(rc, REQ_SYNC | REQ_IDLE));
	if (in_submit) {
		bio_list_init(&on_stack[0]);
		bio_list_init(&on_stack[1]);
		current->bio_list = on_stack;
	}
	rcu_read_lock();
	taken = __ressd_log_direct_done(rc, BLK_STS_OK, spare);
	rcu_read_unlock();
	current->bio_list = saved;
	who = taken ? T_TASK : work_pending(&rc->worker) ? T_WORKER : T_PLUG;
	KUNIT_EXPECT_EQ(test, t_slot_of(rc, 10), sa);
	/* The completion never queues a callback of its own. */
	KUNIT_EXPECT_EQ(test, list_empty(&plug.cb_list), !queued);
	if (taken) {
		/* b's chunk is the write in flight, for this task to write. */
		KUNIT_EXPECT_PTR_EQ(test, taken, rc->log.open);
		KUNIT_EXPECT_PTR_EQ(test, rc->log.inflight, taken);
		KUNIT_EXPECT_PTR_EQ(test, taken->chunk.head, b);
		KUNIT_EXPECT_FALSE(test, rc->log.write_pending);
		KUNIT_EXPECT_FALSE(test, work_pending(&rc->worker));
		blk_finish_plug(&plug);
		/* Indexed as the chunk's completion would (no bio is ended here). */
		ressd_log_direct_done(rc, BLK_STS_OK);
		KUNIT_EXPECT_EQ(test, t_slot_of(rc, 20), sb);
	} else {
		/*
		 * The end of the plug would write b's chunk (no device here):
		 * with a log flush running it leaves it to the worker instead.
		 * Whatever the case, the worker or a callback that runs has
		 * the chunk: never stranded.
		 */
		rc->log.flushing = true;
		blk_finish_plug(&plug);
		rc->log.flushing = false;
		flush_workqueue(rc->wq);
		KUNIT_EXPECT_TRUE(test, rc->log.write_pending);
		KUNIT_EXPECT_GE(test, atomic_read(&t_kicks), 1);
	}
	ressd_plug_release(rc);
	ressd_index_exit(&rc->index);
	t_teardown(t);
	return who;
}

/*
 * An inline write that completes while another writer's data waits in the
 * open record, its burst ended, when chunks need no crc32c: within its own
 * submission the plug's callback of this target, if it is there, takes
 * the chunk, else this task with a bio it could have (6.12: the plug ended
 * inside the submission, before the inline write was done); with crc32c,
 * outside a submission, or without a bio, the worker.
 */
static void ressd_log_test_plug_completion(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, true, true, true, true, 40), T_PLUG);
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, true, true, false, true, 40), T_TASK);
	/* 160 vectors (1 KiB each) fit the bio at hand, 320 (512 bytes) do not. */
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, true, true, false, true, 160), T_TASK);
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, true, true, false, true, 320), T_WORKER);
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, true, true, false, false, 40), T_WORKER);
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, false, true, true, true, 40), T_WORKER);
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, false, true, false, true, 40), T_WORKER);
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, true, false, true, true, 40), T_WORKER);
	KUNIT_EXPECT_EQ(test, t_plug_completion(test, true, false, false, true, 40), T_WORKER);
}

/*
 * A 1024-slot index, and two devices told apart by address, dev[0] the
 * origin's and the log's (a shared device), dev[1] for a log of its own.
 */
static struct dm_dev *t_shared_log(struct kunit *test, struct ressd_c *rc)
{
	struct dm_dev *dev = kunit_kzalloc(test, 2 * sizeof(*dev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	init_waitqueue_head(&rc->wait);
	KUNIT_ASSERT_EQ(test, ressd_index_init(&rc->index, 1024, 0), 0);
	dev[0].bdev = (struct block_device *)&dev[0];
	dev[1].bdev = (struct block_device *)&dev[1];
	rc->origin = &dev[0];
	rc->log_dev = &dev[0];
	return dev;
}

/* A write of one block at @block as map() reserves it, with a bio at hand. */
static struct ressd_record *t_reserve_direct(struct kunit *test, struct t_alloc *t, u64 block,
					     blk_opf_t opf, struct bio **out, u32 *slot)
{
	struct bio *bio = kunit_kzalloc(test, sizeof(*bio), GFP_KERNEL);
	struct ressd_record *rec;

	KUNIT_ASSERT_NOT_NULL(test, bio);
	bio->bi_opf = REQ_OP_WRITE | opf;
	bio->bi_iter.bi_size = RESSD_BLOCK_SIZE;
	spin_lock_irq(&t->rc->lock);
	*slot = __ressd_log_reserve_direct(t->rc, bio, block, 1, &rec);
	spin_unlock_irq(&t->rc->lock);
	*out = bio;
	return rec;
}

/*
 * The record in flight, or the oldest sealed one, is written: its buffer
 * goes back (what ressd_record_done() does with it; no more).
 */
static void t_written(struct t_alloc *t)
{
	struct ressd_c *rc = t->rc;
	struct ressd_record *r = rc->log.inflight;

	if (!r) {
		r = list_first_entry(&rc->log.sealed, struct ressd_record, list);
		list_del(&r->list);
	}
	rc->log.inflight = NULL;
	list_add(&r->list, &rc->log.free_recs);
}

/*
 * A small write that closes its record (the record is full, or the write is
 * FUA) with the log idle and no other data of the record pending: map()
 * writes the record (its data and trailer) itself, the write in flight,
 * sealed with FUA for a FUA write.  Not with a write in flight or a record
 * sealed before, other data pending, a broken log or a log flush running,
 * in a plug unless synchronous, or when an origin flush would have to come
 * first (the log on a device of its own, invalidations not yet covered).
 */
static void ressd_log_test_record_direct(struct kunit *test)
{
	/* mover_batch 32 sectors: records of 3 data blocks. */
	struct t_alloc *t = t_setup(test, 1024, 32);
	struct ressd_c *rc = t->rc;
	struct dm_dev *dev = t_shared_log(test, rc);
	struct ressd_record *r;
	struct blk_plug plug;
	struct bio *a, *b;
	u32 s, i;

	/* Two writes written inline, the third fills the record. */
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_TRUE(test, t_inline(test, t, 10 + i, 1, 0, &a, &s));
		ressd_log_direct_done(rc, BLK_STS_OK);
	}
	r = rc->log.open;
	KUNIT_EXPECT_PTR_EQ(test, t_reserve_direct(test, t, 12, 0, &b, &s), r);
	KUNIT_EXPECT_EQ(test, s, r->start + 2);
	KUNIT_EXPECT_PTR_EQ(test, rc->log.inflight, r);
	KUNIT_EXPECT_NULL(test, rc->log.open);
	KUNIT_EXPECT_TRUE(test, list_empty(&rc->log.sealed));
	KUNIT_EXPECT_EQ(test, r->slot, r->start + 3);		/* the trailer after its data */
	KUNIT_EXPECT_PTR_EQ(test, r->bios.head, b);
	KUNIT_EXPECT_FALSE(test, !!(r->flags & REQ_FUA));
	/* A record in flight: the next one closed (FUA) is sealed for the worker. */
	KUNIT_EXPECT_NULL(test, t_reserve_direct(test, t, 20, REQ_FUA, &b, &s));
	KUNIT_EXPECT_FALSE(test, list_empty(&rc->log.sealed));
	t_written(t);
	/* One sealed before it: the same. */
	KUNIT_EXPECT_NULL(test, t_reserve_direct(test, t, 21, REQ_FUA, &b, &s));
	t_written(t);
	t_written(t);
	KUNIT_EXPECT_TRUE(test, list_empty(&rc->log.sealed));

	/* Idle, the FUA write alone in a new record: written from map() with FUA. */
	r = t_reserve_direct(test, t, 30, REQ_FUA | REQ_SYNC | REQ_IDLE, &b, &s);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_TRUE(test, !!(r->flags & REQ_FUA));
	KUNIT_EXPECT_EQ(test, r->nr_data, 1U);
	t_written(t);

	/* Not: another write of the record pending, a broken log, a log flush. */
	KUNIT_EXPECT_NULL(test, t_reserve_direct(test, t, 40, 0, &a, &s));
	KUNIT_EXPECT_NULL(test, t_reserve_direct(test, t, 41, REQ_FUA, &b, &s));
	t_written(t);
	rc->log.broken = true;
	KUNIT_EXPECT_NULL(test, t_reserve_direct(test, t, 42, REQ_FUA, &b, &s));
	rc->log.broken = false;
	t_written(t);
	rc->log.flushing = true;
	KUNIT_EXPECT_NULL(test, t_reserve_direct(test, t, 43, REQ_FUA, &b, &s));
	rc->log.flushing = false;
	t_written(t);

	/* In a plug: a synchronous write only. */
	blk_start_plug(&plug);
	KUNIT_EXPECT_NULL(test, t_reserve_direct(test, t, 44, REQ_FUA | REQ_SYNC, &b, &s));
	t_written(t);
	KUNIT_EXPECT_NOT_NULL(test, t_reserve_direct(test, t, 45, REQ_FUA | REQ_SYNC | REQ_IDLE,
						     &b, &s));
	blk_finish_plug(&plug);
	t_written(t);

	/* An invalidation the origin's flush does not cover yet. */
	KUNIT_ASSERT_TRUE(test, t_inval(t, 1000));
	rc->log_dev = &dev[1];
	KUNIT_EXPECT_NULL(test, t_reserve_direct(test, t, 46, REQ_FUA, &b, &s));
	t_written(t);
	KUNIT_ASSERT_TRUE(test, t_inval(t, 1001));
	rc->log_dev = &dev[0];					/* PREFLUSH covers it */
	KUNIT_EXPECT_NOT_NULL(test, t_reserve_direct(test, t, 47, REQ_FUA, &b, &s));
	t_written(t);
	KUNIT_ASSERT_TRUE(test, t_inval(t, 1002));
	rc->log_dev = &dev[1];
	spin_lock_irq(&rc->lock);
	__ressd_origin_flushed(rc, __ressd_log_inval_gen(rc));
	spin_unlock_irq(&rc->lock);
	KUNIT_EXPECT_NOT_NULL(test, t_reserve_direct(test, t, 48, REQ_FUA, &b, &s));
	t_written(t);
	ressd_index_exit(&rc->index);
	t_teardown(t);
}

/*
 * The writer's map of trailers: the first mark from a record's start, at
 * most RESSD_REC_MAX_ITEMS further and before the end of the log; a release
 * clears the marks of its region, around the end of the log, and no other.
 */
static void ressd_log_test_trailer_map(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 1024, 64);
	struct ressd_c *rc = t->rc;
	unsigned long *m = rc->log.trailers;
	static const u32 kept[] = { 999, 21, 600 }, gone[] = { 1010, 1023, 0, 5, 20 };
	u32 i;

	t_shared_log(test, rc);
	KUNIT_EXPECT_EQ(test, ressd_log_trailer_at(rc, 0), RESSD_NO_SLOT);
	__set_bit(RESSD_REC_MAX_ITEMS + 1, m);
	KUNIT_EXPECT_EQ(test, ressd_log_trailer_at(rc, 0), RESSD_NO_SLOT);
	KUNIT_EXPECT_EQ(test, ressd_log_trailer_at(rc, 1), RESSD_REC_MAX_ITEMS + 1);
	__set_bit(5, m);
	KUNIT_EXPECT_EQ(test, ressd_log_trailer_at(rc, 0), 5U);
	KUNIT_EXPECT_EQ(test, ressd_log_trailer_at(rc, 5), 5U);
	KUNIT_EXPECT_EQ(test, ressd_log_trailer_at(rc, 1000), RESSD_NO_SLOT);
	__set_bit(1023, m);
	KUNIT_EXPECT_EQ(test, ressd_log_trailer_at(rc, 1000), 1023U);

	bitmap_zero(m, 1024);
	for (i = 0; i < ARRAY_SIZE(kept); i++)
		__set_bit(kept[i], m);
	for (i = 0; i < ARRAY_SIZE(gone); i++)
		__set_bit(gone[i], m);
	/* The region [1010, 1024) and [0, 21): 35 slots. */
	rc->log.tail_slot = 1010;
	rc->log.used = 100;
	ressd_log_release(rc, 21, 7, 1, 35);
	for (i = 0; i < ARRAY_SIZE(kept); i++)
		KUNIT_EXPECT_TRUE_MSG(test, test_bit(kept[i], m), "slot %u", kept[i]);
	for (i = 0; i < ARRAY_SIZE(gone); i++)
		KUNIT_EXPECT_FALSE_MSG(test, test_bit(gone[i], m), "slot %u", gone[i]);
	KUNIT_EXPECT_EQ(test, rc->log.tail_slot, 21U);
	KUNIT_EXPECT_EQ(test, rc->log.used, 65U);
	ressd_index_exit(&rc->index);
	t_teardown(t);
}

/*
 * The room kept for the mover's copies (ressd_log_keep()): at most half the
 * room; small writes leave it (refused where they would take it, and the
 * mark where they may first be refused moves down by it), the copies take
 * it; the copies' slots are marked copied (rc->log.copied) and a release
 * clears the marks of its region, around the end of the log, and no other.
 */
static void ressd_log_test_kept(struct kunit *test)
{
	static const u64 blocks[] = { 7, 3, 100, 40 };
	struct t_alloc *t = t_setup(test, 1024, 512);	/* 63 data blocks a record */
	struct bio *carrier = kunit_kzalloc(test, sizeof(*carrier), GFP_KERNEL);
	struct ressd_c *rc = t->rc;
	u32 s, full, i;

	KUNIT_ASSERT_NOT_NULL(test, carrier);
	t_shared_log(test, rc);
	/* Limit 1016 (8 slots for invalidations): 76 slots of room. */
	rc->log.used = 940;
	spin_lock_irq(&rc->lock);
	full = __ressd_log_full_at(rc);
	spin_unlock_irq(&rc->lock);
	ressd_log_keep(rc, 100);
	KUNIT_EXPECT_EQ(test, rc->log.kept, 38U);
	ressd_log_keep(rc, 30);
	KUNIT_EXPECT_EQ(test, rc->log.kept, 30U);
	spin_lock_irq(&rc->lock);
	KUNIT_EXPECT_EQ(test, __ressd_log_full_at(rc), full - 30);
	spin_unlock_irq(&rc->lock);

	/* 1 + 46 + 30 > 76: refused; 1 + 45 + 30 fits. */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 46), RESSD_NO_SLOT);
	s = t_reserve(test, t, 45);
	KUNIT_ASSERT_LT(test, s, RESSD_DEFER_SLOT);
	KUNIT_EXPECT_EQ(test, s, 0U);
	KUNIT_EXPECT_EQ(test, rc->log.used, 940U + 1 + 45);
	/* 30 slots left, all kept: no small write, in the open record or a new one. */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), RESSD_NO_SLOT);
	KUNIT_EXPECT_EQ(test, rc->log.open->nr_data, 45U);
	t_seal(t);
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), RESSD_NO_SLOT);
	/* But the copies fit. */
	spin_lock_irq(&rc->lock);
	s = __ressd_log_reserve_copies(rc, carrier, blocks, ARRAY_SIZE(blocks));
	spin_unlock_irq(&rc->lock);
	KUNIT_ASSERT_LT(test, s, RESSD_DEFER_SLOT);
	KUNIT_EXPECT_EQ(test, s, 46U);	/* after the first record's trailer */
	for (i = 0; i < 60; i++)
		KUNIT_EXPECT_EQ_MSG(test, test_bit(i, rc->log.copied),
				    i >= 46 && i < 46 + ARRAY_SIZE(blocks), "slot %u", i);
	ressd_log_keep(rc, 0);
	KUNIT_EXPECT_EQ(test, rc->log.kept, 0U);
	s = t_reserve(test, t, 1);	/* in the copies' record */
	KUNIT_EXPECT_LT(test, s, RESSD_DEFER_SLOT);
	/* No room: nothing kept. */
	rc->log.used = 1016;
	ressd_log_keep(rc, 5);
	KUNIT_EXPECT_EQ(test, rc->log.kept, 0U);
	rc->log.used = 1000;

	/* A release clears the copied marks of its region, wrapping, and no other. */
	bitmap_zero(rc->log.copied, 1024);
	__set_bit(1009, rc->log.copied);
	__set_bit(1010, rc->log.copied);
	__set_bit(1023, rc->log.copied);
	__set_bit(0, rc->log.copied);
	__set_bit(20, rc->log.copied);
	__set_bit(21, rc->log.copied);
	rc->log.tail_slot = 1010;
	ressd_log_release(rc, 21, 7, 1, 35);
	KUNIT_EXPECT_TRUE(test, test_bit(1009, rc->log.copied));
	KUNIT_EXPECT_FALSE(test, test_bit(1010, rc->log.copied));
	KUNIT_EXPECT_FALSE(test, test_bit(1023, rc->log.copied));
	KUNIT_EXPECT_FALSE(test, test_bit(0, rc->log.copied));
	KUNIT_EXPECT_FALSE(test, test_bit(20, rc->log.copied));
	KUNIT_EXPECT_TRUE(test, test_bit(21, rc->log.copied));
	ressd_index_exit(&rc->index);
	t_teardown(t);
}

/* An empty flush as map() sees it, under rc->lock. */
static struct ressd_record *t_flush_direct(struct ressd_c *rc, struct bio *bio)
{
	struct ressd_record *r;

	spin_lock_irq(&rc->lock);
	r = __ressd_log_flush_direct(rc, bio);
	spin_unlock_irq(&rc->lock);
	return r;
}

static struct ressd_record *t_unplug_chunk(struct ressd_c *rc)
{
	struct ressd_record *r;

	spin_lock_irq(&rc->lock);
	r = __ressd_log_unplug_chunk(rc);
	spin_unlock_irq(&rc->lock);
	return r;
}

/*
 * The end of a plug, with the log idle, makes the open record's pending
 * writes the chunk in flight (the task writes it); not with nothing pending,
 * a write in flight or a sealed record waiting, a broken log or a log flush
 * running.
 */
static void ressd_log_test_unplug_chunk(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 1024, 64);
	struct ressd_c *rc = t->rc;
	struct ressd_record *r;

	init_waitqueue_head(&rc->wait);
	KUNIT_ASSERT_EQ(test, ressd_index_init(&rc->index, 1024, 0), 0);
	KUNIT_EXPECT_NULL(test, t_unplug_chunk(rc));		/* no open record */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 2), 0U);
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 2U);
	r = rc->log.open;
	KUNIT_ASSERT_NOT_NULL(test, r);
	rc->log.broken = true;
	KUNIT_EXPECT_NULL(test, t_unplug_chunk(rc));
	rc->log.broken = false;
	rc->log.flushing = true;
	KUNIT_EXPECT_NULL(test, t_unplug_chunk(rc));
	rc->log.flushing = false;
	rc->log.write_pending = true;
	KUNIT_EXPECT_PTR_EQ(test, t_unplug_chunk(rc), r);
	KUNIT_EXPECT_PTR_EQ(test, rc->log.inflight, r);
	KUNIT_EXPECT_FALSE(test, rc->log.write_pending);
	KUNIT_EXPECT_TRUE(test, bio_list_empty(&r->bios));
	KUNIT_EXPECT_EQ(test, bio_list_size(&r->chunk), 2U);
	KUNIT_EXPECT_EQ(test, r->chunk_first, 0U);
	KUNIT_EXPECT_EQ(test, r->nr_sub, 3U);
	/* In flight: the next burst waits for it. */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 3U);
	KUNIT_EXPECT_NULL(test, t_unplug_chunk(rc));
	/* Its completion, as a chunk's: indexed, the log dirty. */
	ressd_log_direct_done(rc, BLK_STS_OK);
	KUNIT_EXPECT_EQ(test, t_slot_of(rc, 1001), 1U);
	KUNIT_EXPECT_TRUE(test, rc->log.dirty);
	/* A sealed record waits for the worker. */
	t_seal(t);
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 5U);
	KUNIT_EXPECT_NULL(test, t_unplug_chunk(rc));
	t_complete(t);
	KUNIT_EXPECT_PTR_EQ(test, t_unplug_chunk(rc), rc->log.open);
	KUNIT_EXPECT_EQ(test, rc->log.open->chunk_first, 0U);
	ressd_log_direct_done(rc, BLK_STS_OK);
	/* Nothing pending. */
	KUNIT_EXPECT_NULL(test, t_unplug_chunk(rc));
	ressd_index_exit(&rc->index);
	t_teardown(t);
}

/*
 * An empty flush that finds the log idle, the open record's entries all
 * written (or only invalidations), and the log on the origin's device: the
 * record is sealed with PREFLUSH | FUA, the flush waits on it, and it is the
 * write in flight.  Not with pending data, a write in flight or a sealed
 * record waiting, other flush waiters, a log flush running, a broken log, a
 * log device of its own, or no open record.
 */
static void ressd_log_test_flush_direct(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 1024, 64);
	struct ressd_c *rc = t->rc;
	struct dm_dev *dev = t_shared_log(test, rc);
	struct bio *fl = kunit_kzalloc(test, sizeof(*fl), GFP_KERNEL);
	struct bio *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	struct ressd_record *r;

	KUNIT_ASSERT_NOT_NULL(test, fl);
	KUNIT_ASSERT_NOT_NULL(test, other);
	fl->bi_opf = REQ_OP_WRITE | REQ_PREFLUSH;

	KUNIT_EXPECT_NULL(test, t_flush_direct(rc, fl));	/* no open record */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 0U);
	r = rc->log.open;
	KUNIT_EXPECT_NULL(test, t_flush_direct(rc, fl));	/* pending data */
	KUNIT_EXPECT_PTR_EQ(test, t_unplug_chunk(rc), r);
	KUNIT_EXPECT_NULL(test, t_flush_direct(rc, fl));	/* in flight */
	ressd_log_direct_done(rc, BLK_STS_OK);

	rc->log_dev = &dev[1];
	KUNIT_EXPECT_NULL(test, t_flush_direct(rc, fl));
	rc->log_dev = &dev[0];
	rc->log.flushing = true;
	KUNIT_EXPECT_NULL(test, t_flush_direct(rc, fl));
	rc->log.flushing = false;
	rc->log.broken = true;
	KUNIT_EXPECT_NULL(test, t_flush_direct(rc, fl));
	rc->log.broken = false;
	bio_list_add(&rc->log.flush_waiters, other);
	KUNIT_EXPECT_NULL(test, t_flush_direct(rc, fl));
	bio_list_init(&rc->log.flush_waiters);

	KUNIT_EXPECT_PTR_EQ(test, t_flush_direct(rc, fl), r);
	KUNIT_EXPECT_NULL(test, rc->log.open);
	KUNIT_EXPECT_PTR_EQ(test, rc->log.inflight, r);
	KUNIT_EXPECT_TRUE(test, list_empty(&rc->log.sealed));
	KUNIT_EXPECT_TRUE(test, (r->flags & REQ_PREFLUSH) && (r->flags & REQ_FUA));
	KUNIT_EXPECT_EQ(test, r->slot, r->start + 1);		/* the trailer after its entry */
	KUNIT_EXPECT_EQ(test, rc->log.head, r->start + 2);
	KUNIT_EXPECT_PTR_EQ(test, r->waiters.head, fl);
	KUNIT_EXPECT_EQ(test, bio_list_size(&r->waiters), 1U);
	/* Written (what ressd_record_done() does with the buffer). */
	rc->log.inflight = NULL;
	list_add(&r->list, &rc->log.free_recs);

	/* A sealed record waits for the worker: not this way, not yet. */
	KUNIT_EXPECT_EQ(test, t_reserve(test, t, 1), 2U);
	t_seal(t);
	KUNIT_ASSERT_TRUE(test, t_inval(t, 1000));	/* a record of invalidations alone */
	r = rc->log.open;
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_EQ(test, r->nr_data, 0U);
	KUNIT_EXPECT_NULL(test, t_flush_direct(rc, other));
	KUNIT_EXPECT_TRUE(test, t_complete(t));
	KUNIT_EXPECT_PTR_EQ(test, t_flush_direct(rc, other), r);
	KUNIT_EXPECT_PTR_EQ(test, rc->log.inflight, r);
	rc->log.inflight = NULL;
	list_add(&r->list, &rc->log.free_recs);
	ressd_index_exit(&rc->index);
	t_teardown(t);
}

static enum hrtimer_restart (*t_seal_fn)(struct hrtimer *t);
static struct ressd_c *t_seal_rc;
static atomic_t t_seal_runs;

/*
 * The seal timer's own callback, then, the first time, the end of a burst
 * in the window after the callback dropped rc->lock and before it returned
 * (another CPU's, in life): the timer is still running there, not queued.
 */
static enum hrtimer_restart t_seal_then_burst(struct hrtimer *h)
{
	struct ressd_c *rc = t_seal_rc;
	enum hrtimer_restart ret = t_seal_fn(h);
	unsigned long flags;

	if (atomic_inc_return(&t_seal_runs) == 1) {
		spin_lock_irqsave(&rc->lock, flags);
		__ressd_log_seal_soon(rc);
		spin_unlock_irqrestore(&rc->lock, flags);
	}
	return ret;
}

/*
 * With commit_delay_us, a burst that ends while the seal timer's callback
 * is still running (it found nothing to write: the data of the burst that
 * started it went with a write in flight) must still get its data written:
 * the timer starts again, and kicks the worker when it fires.
 */
static void ressd_log_test_seal_timer_running(struct kunit *test)
{
	struct t_alloc *t = t_setup(test, 1024, 64);
	struct ressd_c *rc = t->rc;
	unsigned int delay = ressd_commit_delay_us;
	int i;

	/*
	 * A lock class of its own: the timer takes it in hard interrupt
	 * context, and other tests take the index lock under t_setup()'s
	 * class with interrupts on (the target never does).
	 */
	spin_lock_init(&rc->lock);
	INIT_WORK(&rc->worker, t_count_kick);
	atomic_set(&t_kicks, 0);
	atomic_set(&t_seal_runs, 0);
	t_seal_rc = rc;
	t_seal_fn = rc->log.seal_timer.function;
	rc->log.seal_timer.function = t_seal_then_burst;
	t_reserve(test, t, 1);			/* the burst's data, not written */
	ressd_commit_delay_us = 1000;		/* no assertion until it is put back */
	KUNIT_EXPECT_FALSE(test, rc->log.write_pending);
	hrtimer_start(&rc->log.seal_timer, ms_to_ktime(1), HRTIMER_MODE_REL);
	for (i = 0; i < 50 && !atomic_read(&t_kicks); i++)
		msleep(20);
	hrtimer_cancel(&rc->log.seal_timer);
	ressd_commit_delay_us = delay;
	KUNIT_EXPECT_TRUE(test, rc->log.write_pending);
	KUNIT_EXPECT_EQ(test, atomic_read(&t_seal_runs), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&t_kicks), 1);
	t_teardown(t);
}

static struct kunit_case ressd_log_test_cases[] = {
	KUNIT_CASE(ressd_log_test_plug_after_dtr),
	KUNIT_CASE(ressd_log_test_plug_seals),
	KUNIT_CASE(ressd_log_test_fua_fill),
	KUNIT_CASE(ressd_log_test_inval_dead),
	KUNIT_CASE(ressd_log_test_copies),
	KUNIT_CASE(ressd_log_test_inline),
	KUNIT_CASE(ressd_log_test_inline_plug),
	KUNIT_CASE(ressd_log_test_plug_completion),
	KUNIT_CASE(ressd_log_test_seal_timer_running),
	KUNIT_CASE(ressd_log_test_unplug_chunk),
	KUNIT_CASE(ressd_log_test_flush_direct),
	KUNIT_CASE(ressd_log_test_record_direct),
	KUNIT_CASE(ressd_log_test_trailer_map),
	KUNIT_CASE(ressd_log_test_kept),
	KUNIT_CASE(ressd_log_test_directed),
	KUNIT_CASE(ressd_log_test_defer),
	KUNIT_CASE(ressd_log_test_random),
	{}
};

static struct kunit_suite ressd_log_test_suite = {
	.name = "dm_ressd_log",
	.test_cases = ressd_log_test_cases,
};

kunit_test_suites(&ressd_log_test_suite);
