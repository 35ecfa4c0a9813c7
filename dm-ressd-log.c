// SPDX-License-Identifier: GPL-2.0-only
/*
 * The log writer: how a small write reaches the reserved area.
 *
 * What it owns.  The record buffers (RESSD_NR_RECORDS, allocated once), the
 * open record and the sealed ones, the single log write in flight, the space
 * accounting of the circular log (head, used, the unwritten records from
 * pend_start), the sequence and epoch of the next record, the flush waiters,
 * the seal timer, and the generations that say which invalidations are
 * recorded, written and durable.  All of it is under rc->lock.
 *
 * The path of a small write.  map() calls __ressd_log_reserve(), which puts
 * the write's blocks into the open record (opening one at head when there is
 * none) and holds the bio there.  Nothing is copied: the data is written
 * from the caller's pages, which ask for stable writes (see dm-ressd.c).
 *
 * The data goes to the log as it comes: at the end of each burst the worker
 * writes the data held since the last one as a "chunk" (data blocks only, in
 * slot order), indexes it and completes those writes.  With the log idle, a
 * lone synchronous write goes there from map() (__ressd_log_direct()), and
 * the task that ends a plug of writes it waits for, or of writes without
 * crc32c to take, writes their chunk itself (__ressd_log_unplug_chunk(),
 * from the callback map() queued on its plug), also when its own inline
 * write completed within its submission (a device that completes in the
 * submitter's context) while other writers' data waited
 * (__ressd_log_plug_due()), or, without such a callback, that task writes
 * it at once with a bio had without waiting (ressd_log_direct_done()).  A
 * record is sealed when it is
 * full, at a flush or FUA, or at the end of the log; the worker then writes
 * the data still pending and the trailer that commits the whole record, as
 * one sequential write (or map() does, when the small write that closes the
 * record finds the log idle: __ressd_log_reserve_direct()).  So a lone small
 * write costs one 4 KiB log write, and the trailer is paid once per flush or
 * per full record (not per write), while the log is still written strictly
 * in slot order.
 *
 * One log write (chunk or record) is in flight at a time, so that writes
 * complete in slot order and the newest write of a block is the last one
 * indexed, as replay applies them.  The index only ever points at data that
 * is on the log device.
 *
 * Durability (I1).  Data written in chunks but not yet committed by a
 * trailer is acknowledged like a write in a volatile cache: a flush (or a
 * FUA write) seals the record and makes it durable.  The target always
 * announces a volatile write cache (ti->flush_supported), so the upper
 * layers send those flushes.  On a log that shares the origin's device, an
 * empty flush that finds the log idle seals and writes the record from
 * map() (__ressd_log_flush_direct()).  The record of a FUA write goes out with FUA,
 * also when that write is what fills it, and with PREFLUSH when anything
 * written before it is still volatile.  A flush with nothing written since
 * the last one costs an empty flush of the log device, or nothing.
 *
 * Invalidations (I2).  A completed home write or discard over logged blocks
 * is recorded in the open record (__ressd_log_invalidate) before its blocks
 * leave the index.  Such a record reaches the log only after the home writes
 * it records are durable: the origin is flushed first, or the record carries
 * PREFLUSH on a shared device, unless an origin flush since its newest
 * invalidation has already done it.  The generations inval_gen (recorded),
 * origin_flushed_gen, inval_written_gen and inval_durable_gen tell the rest
 * of the target how far each step has come.
 *
 * Free space (I4).  rc->log.used counts the slots from the tail (the oldest
 * record the mover has not moved home) to head, plus the trailer slot the
 * open record will take.  Small writes may use all but RESSD_INVAL_RESERVE
 * slots, less the room a density round keeps for its copies forward
 * (rc->log.kept); the rest is kept for records that carry only
 * invalidations, which a direct write over logged blocks needs.  Slots between the tail and head
 * are never handed out; only the mover moves the tail.
 *
 * Crash semantics.  A crash loses the open record and any record whose
 * trailer is not durable: replay stops at the first missing trailer, and a
 * chunk without its trailer is as if never written.  Its writes were only
 * acknowledged as volatile, so nothing a flush or FUA made durable is lost.
 * A failed log write or log flush latches log_broken: recovery would stop
 * before it, so no later log write is issued or acknowledged.
 *
 * Context.  Records are filled by map() and by bio completions (any
 * context, rc->lock with interrupts off); the worker (process context)
 * submits and flushes, and so do map() (an inline write, a flush's record,
 * the record a small write closed: never sleeping) and a task ending its
 * plug; completions run in interrupt context, or in the submitter's when
 * the device completes at once, under rcu_read_lock(), which the destructor
 * waits for.
 */
#include <linux/bio.h>
#include <linux/bitmap.h>
#include <linux/blk-cgroup.h>
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd-log"

static enum hrtimer_restart ressd_seal_timer(struct hrtimer *t);

int ressd_log_init(struct ressd_c *rc)
{
	struct ressd_log *log = &rc->log;
	struct ressd_record *r;
	int i;

	/* Small writes keep at least as much room as invalidations. */
	BUILD_BUG_ON(RESSD_MIN_LOG_BLOCKS - RESSD_SB_BLOCKS < 2 * RESSD_INVAL_RESERVE);
	INIT_LIST_HEAD(&log->sealed);
	INIT_LIST_HEAD(&log->free_recs);
	INIT_LIST_HEAD(&log->pending);
	bio_list_init(&log->flush_waiters);
	init_waitqueue_head(&log->mover_wait);
	hrtimer_init(&log->seal_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	log->seal_timer.function = ressd_seal_timer;
	log->wake_used = U32_MAX;
	for (i = 0; i < RESSD_NR_RECORDS; i++) {
		r = kzalloc(sizeof(*r), GFP_KERNEL);
		if (!r)
			return -ENOMEM;
		r->trailer = alloc_page(GFP_KERNEL);
		if (!r->trailer) {
			kfree(r);
			return -ENOMEM;
		}
		r->rc = rc;
		list_add(&r->list, &rc->log.free_recs);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_init);

void ressd_log_exit(struct ressd_c *rc)
{
	struct ressd_record *r, *tmp;

	if (rc->log.open)
		list_add(&rc->log.open->list, &rc->log.free_recs);
	rc->log.open = NULL;
	list_splice_init(&rc->log.sealed, &rc->log.free_recs);
	list_for_each_entry_safe(r, tmp, &rc->log.free_recs, list) {
		list_del(&r->list);
		__free_page(r->trailer);
		kfree(r);
	}
	kvfree(rc->log.trailers);
	rc->log.trailers = NULL;
	kvfree(rc->log.copied);
	rc->log.copied = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_exit);

int ressd_log_init_trailers(struct ressd_c *rc, u32 nr_slots)
{
	rc->log.trailers = kvcalloc(BITS_TO_LONGS(nr_slots), sizeof(long), GFP_KERNEL);
	rc->log.copied = kvcalloc(BITS_TO_LONGS(nr_slots), sizeof(long), GFP_KERNEL);
	return rc->log.trailers && rc->log.copied ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_init_trailers);

/* Data blocks one record may take: a mover_batch, trailer included. */
static u32 __ressd_max_data(struct ressd_c *rc)
{
	return min_t(u32, rc->tunables.mover_batch / RESSD_SECTORS_PER_BLOCK - 1,
		     RESSD_REC_MAX_ITEMS);
}

bool __ressd_log_room(struct ressd_c *rc, u32 need, bool reserve)
{
	u32 limit = rc->lg.nr_slots - (reserve ? 0 : RESSD_INVAL_RESERVE);

	lockdep_assert_held(&rc->lock);
	return rc->log.used + need <= limit;
}

/*
 * The largest small write in sectors: small_write_max, but no more than a
 * record takes (it may be set above that).  A larger write goes home as
 * any large write, not as a small one the log had no room for.
 */
unsigned int __ressd_log_small_max(struct ressd_c *rc)
{
	return min_t(unsigned int, rc->tunables.small_write_max,
		     __ressd_max_data(rc) * RESSD_SECTORS_PER_BLOCK);
}

/*
 * The fewest used slots at which the log may refuse a small write for room:
 * below it the largest write a record takes (small_write_max, at most
 * __ressd_max_data() blocks) still fits in a record of its own, its
 * trailer's slot included.  On a small log this lies below a high_watermark
 * of 90 %; the mover must start there at the latest, or the log, refusing
 * every small write, would stay below its watermark for good.
 * (rc->lock held)
 */
u32 __ressd_log_full_at(struct ressd_c *rc)
{
	/* The room kept for the mover's copies is not small writes'. */
	u32 limit = rc->lg.nr_slots - RESSD_INVAL_RESERVE - rc->log.kept;
	u32 need = 1 + __ressd_log_small_max(rc) / RESSD_SECTORS_PER_BLOCK;

	lockdep_assert_held(&rc->lock);
	return need < limit ? limit + 1 - need : 1;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_full_at);

/*
 * Keep @slots of the room for the mover's copies forward (0: none): small
 * writes leave them, and go home when they would take them; at most half
 * the room is kept.  A density round keeps what its largest part copies,
 * from its decision on, so that the small writes during its home writes
 * cannot leave its copies without room (ressd_round_part()).
 */
void ressd_log_keep(struct ressd_c *rc, u32 slots)
{
	u32 limit = rc->lg.nr_slots - RESSD_INVAL_RESERVE;

	spin_lock_irq(&rc->lock);
	/* Half the room at the most: small writes keep the other half. */
	rc->log.kept = min(slots, rc->log.used < limit ? (limit - rc->log.used) / 2 : 0);
	spin_unlock_irq(&rc->lock);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_keep);

/* Hand out @n slots at head (data blocks of the open record). */
static void __ressd_advance_head(struct ressd_c *rc, u32 n)
{
	rc->log.head += n;
	if (rc->log.head >= rc->lg.nr_slots)
		rc->log.head = 0;
	WRITE_ONCE(rc->log.used, rc->log.used + n);
	rc->log.pend_slots += n;
}

/*
 * Open a record at head; the caller checked the room for its trailer,
 * which is counted in used now and takes its slot when the record is sealed.
 */
static struct ressd_record *__ressd_log_open(struct ressd_c *rc)
{
	struct ressd_record *r;

	lockdep_assert_held(&rc->lock);
	r = list_first_entry_or_null(&rc->log.free_recs, struct ressd_record, list);
	if (!r)
		return NULL;
	list_del_init(&r->list);
	if (!rc->log.pend_slots)
		rc->log.pend_start = rc->log.head;
	WARN_ON_ONCE(rc->log.head >= rc->lg.nr_slots);
	r->start = rc->log.head;
	r->slot = r->start;
	r->seq = rc->log.next_seq++;
	r->nr_data = 0;
	r->nr_inval = 0;
	r->inval_gen = 0;
	r->nr_sub = 0;
	r->chunk_first = 0;
	r->flags = 0;
	r->padding = false;
	r->status = BLK_STS_OK;
	/* A record never wraps: its trailer is in the last slot at the latest. */
	r->cap = min_t(u32, __ressd_max_data(rc), rc->lg.nr_slots - 1 - r->start);
	bitmap_zero(r->killed, RESSD_REC_MAX_ITEMS);
	bitmap_zero(r->dead, RESSD_REC_MAX_ITEMS);
	bitmap_zero(r->ordered, RESSD_REC_MAX_ITEMS);
	bio_list_init(&r->bios);
	bio_list_init(&r->chunk);
	bio_list_init(&r->waiters);
	WRITE_ONCE(rc->log.used, rc->log.used + 1);
	rc->log.pend_slots++;
	rc->log.open = r;
	return r;
}

/* Close the open record: its trailer takes the slot after its data. */
static struct ressd_record *__ressd_log_close(struct ressd_c *rc, blk_opf_t flags)
{
	struct ressd_record *r = rc->log.open;

	lockdep_assert_held(&rc->lock);
	if (!r)
		return NULL;
	/* The trailer takes the slot after the data (counted in used at open). */
	r->slot = rc->log.head;
	rc->log.head = ressd_rec_next_slot(&rc->lg, r->slot);
	r->flags |= flags;
	rc->log.open = NULL;
	rc->log.write_pending = false;
	return r;
}

void __ressd_log_seal(struct ressd_c *rc, blk_opf_t flags)
{
	struct ressd_record *r = __ressd_log_close(rc, flags);

	if (!r)
		return;
	list_add_tail(&r->list, &rc->log.sealed);
	ressd_kick(rc);
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_seal);

/*
 * The end of a burst: write the open record's pending data now when the log
 * device is idle; otherwise let it gather until the write in flight is done
 * (group commit: chunks grow with the load).
 */
VISIBLE_IF_KUNIT unsigned int ressd_commit_delay_us;
EXPORT_SYMBOL_IF_KUNIT(ressd_commit_delay_us);
module_param_named(commit_delay_us, ressd_commit_delay_us, uint, 0644);
MODULE_PARM_DESC(commit_delay_us,
		 "Longest wait for more small writes before an idle log writes them (0: none)");

/* Nothing in flight and nothing sealed: the worker may write a chunk. */
static bool __ressd_log_idle(struct ressd_c *rc)
{
	return !rc->log.inflight && list_empty(&rc->log.sealed);
}

/*
 * May a submitter (map(), a task ending its plug) write to the log now,
 * instead of the worker?  Idle, not broken, and no log flush under way
 * (which covers only what was written before it).
 */
static bool __ressd_log_submitter_may_write(struct ressd_c *rc)
{
	return !rc->log.broken && !rc->log.flushing && __ressd_log_idle(rc);
}

void __ressd_log_seal_soon(struct ressd_c *rc)
{
	unsigned int delay = READ_ONCE(ressd_commit_delay_us);

	lockdep_assert_held(&rc->lock);
	if (!rc->log.open || bio_list_empty(&rc->log.open->bios))
		return;
	/*
	 * Whatever happens next (a write completes, or the timer fires)
	 * writes the pending data because of this flag; the timer of an
	 * earlier burst, if queued, serves this one too.  Not one whose
	 * callback is running: it may have looked at the flag already (it
	 * drops rc->lock before it returns), so start it again.
	 */
	rc->log.write_pending = true;
	if (!__ressd_log_idle(rc))
		return;
	if (!delay)
		ressd_kick(rc);
	else if (!hrtimer_is_queued(&rc->log.seal_timer))
		hrtimer_start(&rc->log.seal_timer, ns_to_ktime((u64)delay * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_seal_soon);

static enum hrtimer_restart ressd_seal_timer(struct hrtimer *t)
{
	struct ressd_c *rc = container_of(t, struct ressd_c, log.seal_timer);
	unsigned long flags;

	spin_lock_irqsave(&rc->lock, flags);
	if (rc->log.write_pending && __ressd_log_idle(rc))
		ressd_kick(rc);
	spin_unlock_irqrestore(&rc->lock, flags);
	return HRTIMER_NORESTART;
}

/* Room for @nr more data blocks in the open record? */
static bool __ressd_rec_fits(struct ressd_record *r, u32 nr)
{
	return r->nr_data + nr <= r->cap &&
	       r->nr_data + nr + r->nr_inval <= RESSD_REC_MAX_ITEMS;
}

/*
 * May map() write the record @bio closes, instead of the worker?  When the
 * log is idle (the record is the next log write), @bio is the record's only
 * data not written yet (the bio map() has at hand holds it and the
 * trailer), writing it cannot sleep (no origin flush first: see
 * ressd_rec_origin_durable()), and a plug cannot hold it (as for
 * __ressd_log_direct()).  (rc->lock held)
 */
static bool __ressd_log_record_direct_ok(struct ressd_c *rc, struct ressd_record *r,
					 struct bio *bio)
{
	return __ressd_log_submitter_may_write(rc) &&
	       (!current->plug || (bio->bi_opf & (REQ_SYNC | REQ_IDLE)) == (REQ_SYNC | REQ_IDLE)) &&
	       r->bios.head == bio && r->bios.tail == bio &&
	       (!r->nr_inval || r->inval_gen <= rc->log.origin_flushed_gen ||
		rc->origin->bdev == rc->log_dev->bdev);
}

/*
 * Entries for @bio: blocks @block.. , or @blocks[] when not NULL.  @rec: as
 * for __ressd_log_reserve_direct(), or NULL.
 */
static u32 __ressd_log_take(struct ressd_c *rc, struct bio *bio, u64 block,
			    const u64 *blocks, u32 nr, struct ressd_record **rec)
{
	struct ressd_record *r = rc->log.open;
	/* The room kept for copies forward is theirs (@blocks: copies). */
	u32 keep = blocks ? 0 : rc->log.kept;
	blk_opf_t flags = 0;
	u32 first, i;

	lockdep_assert_held(&rc->lock);
	if (!rc->recovered || rc->suspending || nr > __ressd_max_data(rc))
		return RESSD_NO_SLOT;
	if (r && !__ressd_rec_fits(r, nr)) {
		__ressd_log_seal(rc, 0);
		r = NULL;
	}
	if (!r) {
		if (!__ressd_log_room(rc, 1 + nr + keep, false))
			return RESSD_NO_SLOT;
		r = __ressd_log_open(rc);
		if (!r)
			return RESSD_DEFER_SLOT;
		if (!__ressd_rec_fits(r, nr)) {
			/*
			 * Too close to the end of the log (nr fits any record that
			 * starts at slot 0): this record fills the rest of the log
			 * with dead entries and a trailer in the last slot, of
			 * which only the trailer is written; the next record
			 * starts at slot 0.
			 */
			r->padding = true;
			for (i = 0; i < r->cap; i++) {
				r->items[i].block = cpu_to_le64(RESSD_DEAD_BLOCK);
				r->items[i].csum = 0;
			}
			r->nr_data = r->cap;
			__ressd_advance_head(rc, r->cap);
			__ressd_log_seal(rc, 0);
			if (!__ressd_log_room(rc, 1 + nr + keep, false))
				return RESSD_NO_SLOT;
			r = __ressd_log_open(rc);
			if (!r)
				return RESSD_DEFER_SLOT;
		}
	} else if (!__ressd_log_room(rc, nr + keep, false)) {
		return RESSD_NO_SLOT;
	}
	first = r->start + r->nr_data;
	if (WARN_ON_ONCE(first + nr >= rc->lg.nr_slots))
		return RESSD_NO_SLOT;
	for (i = 0; i < nr; i++) {
		r->items[r->nr_data + i].block = cpu_to_le64(blocks ? blocks[i] : block + i);
		r->items[r->nr_data + i].csum = 0;
	}
	r->nr_data += nr;
	__ressd_advance_head(rc, nr);
	if (blocks)
		bitmap_set(rc->log.copied, first, nr);
	bio_list_add(&r->bios, bio);
	/*
	 * A FUA write is acknowledged when its record is written: that record
	 * goes out with FUA, also when this write is what fills it (I1).  The
	 * block layer has already split a PREFLUSH off a write with data; one
	 * that still carries it is treated as FUA.
	 */
	if (bio->bi_opf & (REQ_FUA | REQ_PREFLUSH))
		flags = REQ_FUA;
	else if (__ressd_rec_fits(r, 1))
		return first;
	if (rec && __ressd_log_record_direct_ok(rc, r, bio)) {
		*rec = __ressd_log_close(rc, flags);
		rc->log.inflight = *rec;
	} else {
		__ressd_log_seal(rc, flags);
	}
	return first;
}

u32 __ressd_log_reserve(struct ressd_c *rc, struct bio *bio, u64 block, u32 nr)
{
	return __ressd_log_take(rc, bio, block, NULL, nr, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_reserve);

/*
 * A record that a small write closes is otherwise written by the worker: a
 * hop that the write, and every write behind it, waits for.  Its writer
 * needs a bio for it, which it allocates without sleeping before it takes
 * rc->lock, so only when the write may close the record.
 */
u32 __ressd_log_reserve_direct(struct ressd_c *rc, struct bio *bio, u64 block, u32 nr,
			       struct ressd_record **rec)
{
	*rec = NULL;
	return __ressd_log_take(rc, bio, block, NULL, nr, rec);
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_reserve_direct);

bool ressd_log_may_close(struct ressd_c *rc, struct bio *bio, u32 nr)
{
	/* Record buffers are never freed while the target lives. */
	struct ressd_record *r = READ_ONCE(rc->log.open);

	if (bio_sectors(bio) > READ_ONCE(rc->tunables.small_write_max) ||
	    READ_ONCE(rc->tunables.log_mode) == RESSD_LOG_NEVER)
		return false;
	if (bio->bi_opf & (REQ_FUA | REQ_PREFLUSH))
		return true;
	/* A write that opens a record seldom fills it too: not worth a bio. */
	return r && READ_ONCE(r->nr_data) + READ_ONCE(r->nr_inval) + nr + 1 >
		    min_t(u32, READ_ONCE(r->cap), RESSD_REC_MAX_ITEMS);
}

/*
 * Copies forward (the mover's density-first cleaning): entries like a
 * small write's, for blocks that need not follow each other, their data in
 * the pages of @carrier, which is never submitted and completes when they
 * are written.  The caller has checked, under rc->lock since, that each
 * block still maps to the slot its data was read from and that no
 * unwritten record holds an entry for it (__ressd_log_unwritten()): every
 * older write of the block is then indexed, so the copy is the newest entry
 * in log order as in the index, and a write that comes later is newer than
 * it in both (I2).  A home write that completes later invalidates it as it
 * would a small write.
 */
u32 __ressd_log_reserve_copies(struct ressd_c *rc, struct bio *carrier, const u64 *blocks,
			       u32 nr)
{
	return __ressd_log_take(rc, carrier, 0, blocks, nr, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_reserve_copies);

/* The blocks of @r's entries into @out; returns the new count. */
static u32 ressd_rec_blocks(const struct ressd_record *r, u64 *out, u32 n)
{
	u32 i;

	for (i = 0; i < r->nr_data; i++) {
		u64 b = le64_to_cpu(r->items[i].block);

		if (b == RESSD_DEAD_BLOCK)
			continue;
		/* Four record buffers, each counted once: never more. */
		if (WARN_ON_ONCE(n >= RESSD_UNWRITTEN_MAX))
			return U32_MAX;
		out[n++] = b;
	}
	return n;
}

u32 __ressd_log_unwritten(struct ressd_c *rc, u64 *out)
{
	struct ressd_record *r;
	u32 n = 0;

	lockdep_assert_held(&rc->lock);
	if (rc->log.open)
		n = ressd_rec_blocks(rc->log.open, out, n);
	/*
	 * Each record once: one whose chunk is in flight may have been sealed
	 * since, and is then on the sealed list as well.
	 */
	r = rc->log.inflight;
	if (r && r != rc->log.open && list_empty(&r->list) && n != U32_MAX)
		n = ressd_rec_blocks(r, out, n);
	list_for_each_entry(r, &rc->log.sealed, list)
		if (n != U32_MAX)
			n = ressd_rec_blocks(r, out, n);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_unwritten);

/*
 * Entries of unwritten records (open, sealed or in flight) for blocks that a
 * completed home write has just superseded must not enter the index when
 * their data is written.  Only those of the record that takes the
 * invalidation (the open one) are also marked dead on disk: there that is
 * required (replay applies a record's invalidations before its entries),
 * and the two become durable together.  An older record keeps them live on
 * disk: it may become durable (a flush in progress) while the record with
 * the invalidation does not, and a dead mark would then bring back a copy
 * older than the one it held, which may have been flushed (I2).
 */
static void __ressd_kill_entries(struct ressd_record *r, u64 block, u64 nr,
				 bool dead)
{
	u32 i;

	for (i = 0; i < r->nr_data; i++) {
		u64 b = le64_to_cpu(r->items[i].block);

		if (b >= block && b - block < nr) {
			set_bit(i, r->killed);
			if (dead)
				set_bit(i, r->dead);
		}
	}
}

bool __ressd_log_invalidate(struct ressd_c *rc, u64 block, u64 nr)
{
	struct ressd_record *r = rc->log.open;
	u64 done = 0;

	lockdep_assert_held(&rc->lock);
	while (done < nr) {
		struct ressd_disk_inval *inv;
		u32 n = min_t(u64, nr - done, U32_MAX);

		if (r && r->nr_data + r->nr_inval + 1 > RESSD_REC_MAX_ITEMS) {
			__ressd_log_seal(rc, 0);
			r = NULL;
		}
		if (!r) {
			if (!__ressd_log_room(rc, 1, true))
				return false;
			r = __ressd_log_open(rc);
			if (!r)
				return false;
		}
		inv = (struct ressd_disk_inval *)&r->items[RESSD_REC_MAX_ITEMS - 1 - r->nr_inval];
		inv->block = cpu_to_le64(block + done);
		inv->nr_blocks = cpu_to_le32(n);
		r->nr_inval++;
		/* Read without the lock by ressd_log_invals_durable(). */
		WRITE_ONCE(rc->log.inval_gen, rc->log.inval_gen + 1);
		r->inval_gen = rc->log.inval_gen;
		done += n;
	}
	/* Only now, with the invalidation recorded, unmap the blocks. */
	spin_lock(&rc->index.lock);
	__ressd_index_remove_range(&rc->index, block, nr);
	spin_unlock(&rc->index.lock);
	if (rc->log.inflight && rc->log.inflight != rc->log.open)
		__ressd_kill_entries(rc->log.inflight, block, nr, false);
	list_for_each_entry(r, &rc->log.sealed, list)
		__ressd_kill_entries(r, block, nr, false);
	/* Last: the invalidation itself may have sealed the old open record. */
	if (rc->log.open)
		__ressd_kill_entries(rc->log.open, block, nr, true);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_invalidate);

/* An origin flush issued when rc->log.inval_gen was @gen completed (rc->lock held). */
void __ressd_origin_flushed(struct ressd_c *rc, u64 gen)
{
	lockdep_assert_held(&rc->lock);
	if (gen > rc->log.origin_flushed_gen)
		rc->log.origin_flushed_gen = gen;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_origin_flushed);

/* Flush the origin; the invalidations recorded so far are then covered. */
int ressd_origin_flush(struct ressd_c *rc)
{
	u64 gen;
	int err;

	spin_lock_irq(&rc->lock);
	gen = rc->log.inval_gen;
	spin_unlock_irq(&rc->lock);
	err = blkdev_issue_flush(rc->origin->bdev);
	if (err)
		return err;
	spin_lock_irq(&rc->lock);
	__ressd_origin_flushed(rc, gen);
	spin_unlock_irq(&rc->lock);
	return 0;
}

bool __ressd_log_needs_flush(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->lock);
	/*
	 * A broken log: something acknowledged before may be lost (a record
	 * that failed, or whose invalidations were dropped), so every flush
	 * goes to the worker, which fails it.
	 */
	return rc->log.broken || rc->log.dirty || rc->log.inflight ||
	       !list_empty(&rc->log.sealed) ||
	       (rc->log.open && (rc->log.open->nr_data || rc->log.open->nr_inval));
}

/* Index entries [@first, @end) of @r, skipping dead and killed ones (rc->lock held). */
static void __ressd_rec_index(struct ressd_c *rc, struct ressd_record *r,
			      u32 first, u32 end)
{
	u32 i;

	lockdep_assert_held(&rc->lock);
	spin_lock(&rc->index.lock);
	for (i = first; i < end; i++) {
		u64 b = le64_to_cpu(r->items[i].block);

		if (b != RESSD_DEAD_BLOCK && !test_bit(i, r->killed))
			__ressd_index_insert(&rc->index, b, r->start + i);
	}
	spin_unlock(&rc->index.lock);
}

/*
 * A log write or log flush failed: recovery stops at the first record
 * missing, so no later log write or log flush may succeed.  Latch that, and
 * the mode.  Any context.
 */
static void ressd_log_broken(struct ressd_c *rc, enum ressd_mode mode, const char *why)
{
	unsigned long flags;

	spin_lock_irqsave(&rc->lock, flags);
	rc->log.broken = true;
	spin_unlock_irqrestore(&rc->lock, flags);
	ressd_set_mode(rc, mode, why);
}

/*
 * After a log write: wake who waits for the log, the worker when @kick,
 * and the mover once the log reaches its mark.
 */
static void ressd_log_wake(struct ressd_c *rc, bool kick)
{
	/* Seldom anyone: not the queue's lock at each write. */
	if (wq_has_sleeper(&rc->wait))
		wake_up_all(&rc->wait);
	if (kick)
		ressd_kick(rc);
	/*
	 * Lockless: the mover checks again under the lock, and sets
	 * wake_used under it before it sleeps (ressd_log_wake_mover_at()).
	 */
	if (READ_ONCE(rc->log.used) >= READ_ONCE(rc->log.wake_used) &&
	    wq_has_sleeper(&rc->log.mover_wait))
		wake_up(&rc->log.mover_wait);
}

/*
 * Has the worker something to do once the log write in flight is done?
 * (rc->lock held, after the completion's update of the log.)
 */
/* Work for the worker besides the open record's pending data. (rc->lock held) */
static bool __ressd_log_other_work(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->lock);
	return !list_empty(&rc->log.sealed) || !bio_list_empty(&rc->log.flush_waiters) ||
	       !bio_list_empty(&rc->deferred) || !bio_list_empty(&rc->inval_retry);
}

static bool __ressd_log_worker_due(struct ressd_c *rc, blk_status_t status)
{
	lockdep_assert_held(&rc->lock);
	return status || rc->log.write_pending || __ressd_log_other_work(rc);
}

/*
 * The log write in flight is done: what every completion does last.  Its
 * writes and the flushes waiting on it get its status; @kick: from
 * __ressd_log_worker_due().
 */
static void ressd_log_write_done(struct ressd_c *rc, struct bio_list *bios,
				 struct bio_list *waiters, blk_status_t status,
				 bool kick)
{
	ressd_bio_list_endio(bios, status);
	if (waiters)
		ressd_bio_list_endio(waiters, status);
	ressd_log_wake(rc, kick);
}

/* The chunk in flight, entries [chunk_first, nr_sub) of @r, is written. */
static void __ressd_chunk_written(struct ressd_c *rc, struct ressd_record *r,
				  blk_status_t status)
{
	lockdep_assert_held(&rc->lock);
	rc->log.inflight = NULL;
	if (!status) {
		__ressd_rec_index(rc, r, r->chunk_first, r->nr_sub);
		rc->log.dirty = true;
	}
}

/* A chunk of the open (or since sealed) record is on the log device. */
static void ressd_chunk_done(struct ressd_record *r)
{
	struct ressd_c *rc = r->rc;
	blk_status_t status = r->status;
	struct bio_list bios;
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&rc->lock, flags);
	__ressd_chunk_written(rc, r, status);
	bios = r->chunk;
	bio_list_init(&r->chunk);
	kick = __ressd_log_worker_due(rc, status);
	spin_unlock_irqrestore(&rc->lock, flags);
	ressd_log_write_done(rc, &bios, NULL, status, kick);
}

/* A record is on the medium (or failed): index it, complete its writes. */
static void ressd_record_done(struct ressd_record *r)
{
	struct ressd_c *rc = r->rc;
	blk_status_t status = r->status;
	struct bio_list bios, waiters;
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&rc->lock, flags);
	rc->log.inflight = NULL;
	rc->log.pend_start = ressd_rec_next_slot(&rc->lg, r->slot);
	rc->log.pend_slots -= 1 + r->nr_data;
	if (!status) {
		if (!r->padding)
			__ressd_rec_index(rc, r, r->nr_sub, r->nr_data);
		set_bit(r->slot, rc->log.trailers);
		if ((r->flags & (REQ_PREFLUSH | REQ_FUA)) == (REQ_PREFLUSH | REQ_FUA))
			rc->log.dirty = false;
		else if (!(r->flags & REQ_FUA))
			rc->log.dirty = true;
		rc->log.inval_written_gen = max(rc->log.inval_written_gen, r->inval_gen);
		/*
		 * A FUA record is durable, and so is everything before it: it
		 * carried PREFLUSH unless nothing written before was volatile.
		 */
		if (r->flags & REQ_FUA)
			WRITE_ONCE(rc->log.inval_durable_gen, rc->log.inval_written_gen);
	}
	bios = r->bios;
	waiters = r->waiters;
	bio_list_init(&r->bios);
	bio_list_init(&r->waiters);
	/* From here on r may be reopened: only the copies above are used. */
	list_add(&r->list, &rc->log.free_recs);
	kick = __ressd_log_worker_due(rc, status);
	spin_unlock_irqrestore(&rc->lock, flags);
	ressd_log_write_done(rc, &bios, &waiters, status, kick);
}

/* The last log bio of a chunk or a record completed. */
static bool ressd_log_bio_done(struct bio *bio, struct ressd_record **rp)
{
	struct ressd_record *r = bio->bi_private;

	if (bio->bi_status) {
		r->status = bio->bi_status;
		ressd_log_broken(r->rc, RESSD_MODE_FAIL, "log write failed");
	}
	bio_put(bio);
	*rp = r;
	return atomic_dec_and_test(&r->remaining);
}

/*
 * Once the completion of a log write has completed the bios waiting on it,
 * a suspend may finish and the destructor run while the completion still
 * touches the target: it runs under rcu_read_lock(), and the destructor
 * waits with synchronize_rcu().
 */
static void ressd_chunk_endio(struct bio *bio)
{
	struct ressd_record *r;

	rcu_read_lock();
	if (ressd_log_bio_done(bio, &r))
		ressd_chunk_done(r);
	rcu_read_unlock();
}

static void ressd_record_endio(struct bio *bio)
{
	struct ressd_record *r;

	rcu_read_lock();
	if (ressd_log_bio_done(bio, &r))
		ressd_record_done(r);
	rcu_read_unlock();
}

/*
 * Chunks may go without crc32c (data_csum 0) once the superblock says so:
 * their entries are ordered, which the trailer's PREFLUSH makes true.
 */
static bool ressd_log_ordered(struct ressd_c *rc)
{
	return !READ_ONCE(rc->tunables.data_csum) && READ_ONCE(rc->log.ordered_ok);
}

/*
 * crc32c of the data of the held writes in @list, block by block across
 * segments, into the entries from @i on.  Returns the entry after the last.
 */
static u32 ressd_bios_csum(struct ressd_c *rc, struct ressd_record *r,
			   struct bio_list *list, u32 i)
{
	u32 seed = (u32)rc->lg.nonce ^ (u32)(rc->lg.nonce >> 32);
	u32 filled = 0, crc = seed;
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *ubio;

	bio_list_for_each(ubio, list) {
		bio_for_each_segment(bv, ubio, iter) {
			u8 *p = bvec_kmap_local(&bv);
			u32 off = 0;

			while (off < bv.bv_len) {
				u32 n = min(bv.bv_len - off, RESSD_BLOCK_SIZE - filled);

				crc = ressd_crc32c_update(crc, p + off, n);
				off += n;
				filled += n;
				if (filled == RESSD_BLOCK_SIZE) {
					r->items[i++].csum = cpu_to_le32(crc);
					crc = seed;
					filled = 0;
				}
			}
			kunmap_local(p);
		}
	}
	WARN_ON_ONCE(filled);
	return i;
}

/*
 * The data of a chunk (written before its trailer, in a write that completes
 * first): ordered entries, or their crc32c as for a record's own data.
 */
static u32 ressd_chunk_csum(struct ressd_c *rc, struct ressd_record *r,
			    struct bio_list *list, u32 i)
{
	struct bio *ubio;
	u32 n;

	if (!ressd_log_ordered(rc))
		return ressd_bios_csum(rc, r, list, i);
	bio_list_for_each(ubio, list) {
		n = min_t(u32, ubio->bi_iter.bi_size >> RESSD_BLOCK_SHIFT,
			  RESSD_REC_MAX_ITEMS - i);
		bitmap_set(r->ordered, i, n);
		i += n;
	}
	return i;
}

/*
 * One sequential log write being built: the bios are cut at the vector
 * limit.  Each bio carries the record's FUA, and its PREFLUSH goes on the
 * last one, which holds the trailer: the block layer orders a bio only
 * behind its own preflush, so a trailer (with its invalidations) in a bio
 * without one could reach the medium before the home writes and the earlier
 * chunks that the flush must cover (I2).  An earlier bio of the record that
 * is not durable at a crash only makes entries of an unacknowledged record
 * torn.
 */
struct ressd_log_write {
	struct ressd_c *rc;
	struct ressd_record *r;
	struct bio *bio;
	struct bio *spare;	/* the first bio, allocated already (or NULL) */
	sector_t sector;
	blk_opf_t opf;
	bio_end_io_t *end_io;
};

static void ressd_lw_add(struct ressd_log_write *w, struct page *page,
			 unsigned int len, unsigned int off)
{
	struct ressd_c *rc = w->rc;

	if (w->bio && bio_add_page(w->bio, page, len, off) == len)
		goto added;
	if (w->bio) {
		atomic_inc(&w->r->remaining);
		w->bio->bi_opf &= ~REQ_PREFLUSH;	/* not the last bio */
		submit_bio_noacct(w->bio);
	}
	if (w->spare) {
		w->bio = w->spare;
		w->spare = NULL;
		w->bio->bi_opf = w->opf;
	} else {
		w->bio = bio_alloc_bioset(rc->log_dev->bdev, BIO_MAX_VECS, w->opf, GFP_NOIO,
					  &rc->bs);
	}
	/* The one log write every writer waits for: no user's cgroup throttles it. */
	bio_associate_blkg_from_css(w->bio, blkcg_root_css);
	w->bio->bi_iter.bi_sector = w->sector;
	w->bio->bi_end_io = w->end_io;
	w->bio->bi_private = w->r;
	__bio_add_page(w->bio, page, len, off);
added:
	w->sector += len >> SECTOR_SHIFT;
	atomic64_add(len, &rc->dev_write_bytes);
}

static void ressd_lw_add_bios(struct ressd_log_write *w, struct bio_list *list)
{
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *ubio;

	bio_list_for_each(ubio, list)
		bio_for_each_segment(bv, ubio, iter)
			ressd_lw_add(w, bv.bv_page, bv.bv_len, bv.bv_offset);
}

/* Submit the last bio; true when the whole write is already done. */
static bool ressd_lw_finish(struct ressd_log_write *w)
{
	if (w->bio) {
		atomic_inc(&w->r->remaining);
		submit_bio_noacct(w->bio);
	}
	return atomic_dec_and_test(&w->r->remaining);
}

/*
 * Write the chunk taken from the open record: data blocks only.  With
 * @spare, a bio of BIO_MAX_VECS vectors allocated already, into which the
 * whole chunk fits (__ressd_chunk_fits()): nothing is allocated here.
 */
static void ressd_chunk_submit(struct ressd_c *rc, struct ressd_record *r, struct bio *spare)
{
	struct ressd_log_write w = {
		.rc = rc, .r = r, .opf = REQ_OP_WRITE | REQ_SYNC, .spare = spare,
		.end_io = ressd_chunk_endio,
		.sector = ressd_slot_sector(rc, r->start + r->chunk_first),
	};

	u32 end = ressd_chunk_csum(rc, r, &r->chunk, r->chunk_first);

	WARN_ON_ONCE(end != r->nr_sub);
	atomic_set(&r->remaining, 1);
	ressd_lw_add_bios(&w, &r->chunk);
	if (WARN_ON_ONCE(w.spare))	/* a chunk without data */
		bio_put(w.spare);
	/* Done already (a device that completes at once): as a completion would. */
	if (ressd_lw_finish(&w)) {
		rcu_read_lock();
		ressd_chunk_done(r);
		rcu_read_unlock();
	}
}

/*
 * A record's invalidations must not reach the log before the home writes
 * they record: a power cut could keep the invalidation and lose the home
 * write, and the block would read data older than the logged copy that the
 * invalidation dropped (I2).  So the origin is flushed first unless an
 * origin flush since the newest of them has done it; on a shared device the
 * record's PREFLUSH does it.
 */
static int ressd_rec_origin_durable(struct ressd_c *rc, struct ressd_record *r)
{
	bool flush;

	spin_lock_irq(&rc->lock);
	flush = r->nr_inval && r->inval_gen > rc->log.origin_flushed_gen;
	if (flush && rc->origin->bdev == rc->log_dev->bdev) {
		r->flags |= REQ_PREFLUSH;
		flush = false;
	}
	spin_unlock_irq(&rc->lock);
	return flush ? ressd_origin_flush(rc) : 0;
}

/*
 * Write a sealed record: the data still pending, then its trailer, in as
 * few bios as the vector limit allows.  Each entry's crc32c is taken from
 * the data itself, before the write is acknowledged.  @spare: its first bio,
 * allocated already (or NULL), which this consumes.
 */
static void ressd_record_submit(struct ressd_c *rc, struct ressd_record *r,
				struct bio *spare)
{
	struct ressd_log_write w = {
		.rc = rc, .r = r, .end_io = ressd_record_endio, .spare = spare,
	};
	struct ressd_trailer tr = { };
	u32 i;

	if (ressd_rec_origin_durable(rc, r)) {
		/*
		 * The home writes of its invalidations may not be durable.
		 * Written, the record would make its invalidations count
		 * once any later log flush succeeds: a power cut could then
		 * lose a home write and replay would unmap its block, which
		 * would read home data older than its durable logged copy
		 * (I2).  So it fails as a failed log write does: nothing is
		 * written to the log from now on (recovery stops before this
		 * record, where those copies are still mapped), its writes
		 * and the flushes that wait on it fail, and reads still work
		 * (ro).
		 */
		r->status = BLK_STS_IOERR;
		ressd_log_broken(rc, RESSD_MODE_RO, "origin flush failed");
		if (spare)
			bio_put(spare);
		ressd_record_done(r);
		return;
	}
	i = ressd_bios_csum(rc, r, &r->bios, r->nr_sub);
	WARN_ON_ONCE(!r->padding && i != r->nr_data);
	WARN_ON_ONCE(r->slot != r->start + r->nr_data);

	spin_lock_irq(&rc->lock);
	tr.tail_slot = rc->log.tail_slot;
	tr.tail_seq = rc->log.tail_seq;
	tr.epoch = rc->log.epoch;
	/* A FUA record commits what was written before it: flush that first. */
	if ((r->flags & REQ_FUA) && (rc->log.dirty || r->nr_sub))
		r->flags |= REQ_PREFLUSH;
	/*
	 * Ordered entries have no crc32c to tell a torn chunk: their data,
	 * written and completed before, is durable before the trailer is.
	 */
	if (!bitmap_empty(r->ordered, r->nr_sub))
		r->flags |= REQ_PREFLUSH;
	/* Entries superseded by its own invalidations are dead on disk. */
	for (i = 0; i < r->nr_data; i++)
		if (test_bit(i, r->dead))
			r->items[i].block = cpu_to_le64(RESSD_DEAD_BLOCK);
	spin_unlock_irq(&rc->lock);
	tr.seq = r->seq;
	tr.slot = r->slot;
	tr.nr_data = r->nr_data;
	tr.nr_inval = r->nr_inval;
	/* Invalidations were filled from the back: move them after the entries. */
	memmove(&r->items[r->nr_data], &r->items[RESSD_REC_MAX_ITEMS - r->nr_inval],
		r->nr_inval * sizeof(r->items[0]));
	ressd_rec_encode(page_address(r->trailer), &rc->lg, &tr, r->items,
			 (struct ressd_disk_inval *)&r->items[r->nr_data]);
	ressd_rec_mark_ordered(page_address(r->trailer), &rc->lg, r->ordered);

	w.opf = REQ_OP_WRITE | REQ_SYNC | (r->flags & (REQ_FUA | REQ_PREFLUSH));
	/* A padding record's dead slots are not written: only its trailer. */
	w.sector = ressd_slot_sector(rc, r->padding ? r->slot : r->start + r->nr_sub);
	atomic_set(&r->remaining, 1);
	ressd_lw_add_bios(&w, &r->bios);
	ressd_lw_add(&w, r->trailer, RESSD_BLOCK_SIZE, 0);
	atomic64_inc(&rc->metadata_commits);
	WARN_ON_ONCE(w.spare);	/* the trailer at least took it */
	if (ressd_lw_finish(&w)) {
		rcu_read_lock();
		ressd_record_done(r);
		rcu_read_unlock();
	}
}

/* Flush waiters: attach them to the newest record, or flush the log. */
static void ressd_worker_flush(struct ressd_c *rc)
{
	struct bio_list waiters;
	struct ressd_record *r;
	int err;

	spin_lock_irq(&rc->lock);
	if (bio_list_empty(&rc->log.flush_waiters)) {
		spin_unlock_irq(&rc->lock);
		return;
	}
	if (rc->log.open && (rc->log.open->nr_data || rc->log.open->nr_inval))
		__ressd_log_seal(rc, 0);
	if (!list_empty(&rc->log.sealed)) {
		/* The newest sealed record flushes all before it. */
		r = list_last_entry(&rc->log.sealed, struct ressd_record, list);
		r->flags |= REQ_PREFLUSH | REQ_FUA;
		bio_list_merge(&r->waiters, &rc->log.flush_waiters);
		bio_list_init(&rc->log.flush_waiters);
		spin_unlock_irq(&rc->lock);
		return;
	}
	if (rc->log.inflight) {
		/* Wait for it; its completion runs the worker again. */
		spin_unlock_irq(&rc->lock);
		return;
	}
	waiters = rc->log.flush_waiters;
	bio_list_init(&rc->log.flush_waiters);
	if (rc->log.broken) {
		/* What was acknowledged after the last record is lost. */
		spin_unlock_irq(&rc->lock);
		ressd_bio_list_endio(&waiters, BLK_STS_IOERR);
		return;
	}
	if (!rc->log.dirty) {
		spin_unlock_irq(&rc->lock);
		ressd_bio_list_endio(&waiters, BLK_STS_OK);
		return;
	}
	/* No small write goes to the log inline meanwhile (__ressd_log_direct()). */
	rc->log.flushing = true;
	spin_unlock_irq(&rc->lock);
	err = blkdev_issue_flush(rc->log_dev->bdev);
	spin_lock_irq(&rc->lock);
	/* Nothing was written meanwhile: only the worker writes the log now. */
	if (!err) {
		rc->log.dirty = false;
		WRITE_ONCE(rc->log.inval_durable_gen, rc->log.inval_written_gen);
	} else {
		rc->log.broken = true;	/* before any later log write: latched below */
	}
	rc->log.flushing = false;
	spin_unlock_irq(&rc->lock);
	if (err)
		ressd_log_broken(rc, RESSD_MODE_FAIL, "log flush failed");
	ressd_bio_list_endio(&waiters, errno_to_blk_status(err));
}

/* The pending data of the open record @r becomes the chunk to write. */
static void __ressd_take_chunk(struct ressd_c *rc, struct ressd_record *r)
{
	rc->log.write_pending = false;
	r->chunk = r->bios;
	bio_list_init(&r->bios);
	r->chunk_first = r->nr_sub;
	r->nr_sub = r->nr_data;
}

/*
 * The next log write, if the log device is idle: the oldest sealed record,
 * else the open record's pending data when its burst has ended.  Sets
 * *@chunk for the latter.
 */
static struct ressd_record *__ressd_next_write(struct ressd_c *rc, bool *chunk)
{
	struct ressd_record *r;

	lockdep_assert_held(&rc->lock);
	if (rc->log.inflight)
		return NULL;
	r = list_first_entry_or_null(&rc->log.sealed, struct ressd_record, list);
	if (r) {
		list_del_init(&r->list);
		*chunk = false;
	} else {
		r = rc->log.open;
		if (!r || !rc->log.write_pending || bio_list_empty(&r->bios))
			return NULL;
		__ressd_take_chunk(rc, r);
		*chunk = true;
	}
	rc->log.inflight = r;
	return r;
}

/*
 * A small write that finds the log idle is written to its slots by map()
 * itself, remapped there (no worker and no bio of ours on the way): the
 * chunk of one write that the worker would have written at once.  The
 * writes that follow while it is in flight gather as before and go out as
 * one chunk after it (group commit), so a burst costs at most one log
 * write more than before.  In a plug only a synchronous direct write
 * (REQ_SYNC | REQ_IDLE; the block device's write_iter plugs each one): its
 * task usually sleeps next, which flushes the plug (an aio batch may keep
 * it there until the batch is submitted).  Other writes of a plug gather;
 * the end of the plug writes them, in the same task when it waits for them
 * or they need no crc32c (__ressd_log_unplug_chunk()), else in the worker;
 * one remapped here could
 * wait in the plug, the one log write in flight, with every other writer
 * behind it, for as long as the task runs.  Only with commit_delay_us 0, not during a log flush
 * (which covers only what was written before it), and while @bio is the
 * open record's only pending write.  On true its entries are the chunk in
 * flight: the caller calls ressd_log_direct_submit() once rc->lock is
 * dropped, and the completion ressd_log_direct_done().  Caller holds
 * rc->lock; never sleeps.
 */
bool __ressd_log_direct(struct ressd_c *rc, struct bio *bio)
{
	struct ressd_record *r = rc->log.open;

	lockdep_assert_held(&rc->lock);
	if (READ_ONCE(ressd_commit_delay_us) || !r || !__ressd_log_submitter_may_write(rc) ||
	    (current->plug && (bio->bi_opf & (REQ_SYNC | REQ_IDLE)) != (REQ_SYNC | REQ_IDLE)) ||
	    r->bios.head != bio || r->bios.tail != bio ||
	    r->nr_data - r->nr_sub != bio->bi_iter.bi_size >> RESSD_BLOCK_SHIFT)
		return false;
	__ressd_take_chunk(rc, r);
	bio_list_init(&r->chunk);	/* @bio is remapped, and completes itself */
	rc->log.inflight = r;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_direct);

/*
 * An empty flush that finds the log idle, its open record holding entries
 * (invalidations, or data all written as chunks: nothing pending) and the
 * log on the origin's device: map() seals that record with PREFLUSH | FUA
 * and writes it at once, and @bio completes when it is written.  The
 * record's preflush covers every write completed before, at home as in the
 * log, which is what the flush asks; the worker would otherwise flush the
 * origin, then seal and write the same record.  Returns the record, now the
 * log write in flight, for ressd_log_record_submit() once rc->lock is
 * dropped; NULL: not this way.  Caller holds rc->lock; never sleeps.
 */
struct ressd_record *__ressd_log_flush_direct(struct ressd_c *rc, struct bio *bio)
{
	struct ressd_record *r = rc->log.open;

	lockdep_assert_held(&rc->lock);
	if (rc->origin->bdev != rc->log_dev->bdev || !__ressd_log_submitter_may_write(rc) ||
	    !r || !(r->nr_data || r->nr_inval) || !bio_list_empty(&r->bios) ||
	    !bio_list_empty(&rc->log.flush_waiters))
		return NULL;
	r = __ressd_log_close(rc, REQ_PREFLUSH | REQ_FUA);
	bio_list_add(&r->waiters, bio);
	rc->log.inflight = r;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_flush_direct);

/*
 * Write the record that __ressd_log_flush_direct() or
 * __ressd_log_reserve_direct() took, in @spare, a bio that map() allocated
 * without sleeping with a vector for each page of the data still pending
 * and one for the trailer (no lock held; never sleeps: they took it only
 * when no origin flush must come first).
 */
void ressd_log_record_submit(struct ressd_c *rc, struct ressd_record *r, struct bio *spare)
{
	ressd_record_submit(rc, r, spare);
}

/*
 * The end of a burst, in the task that made it (its plug is finished, not
 * flushed by schedule(), and it is not inside a bio submission), or the
 * completion of an inline write within its submission (a task that may
 * sleep, with a bio at hand: ressd_log_direct_done()): with the
 * log idle and commit_delay_us 0, the open record's pending data becomes
 * the chunk in flight, which the caller writes with
 * ressd_log_chunk_submit() once its locks are dropped; the worker would
 * have written the same chunk after a hop.  The chunk's writes are held
 * upper bios, which a suspend waits for, and postsuspend waits for the
 * log (ressd_log_sync()): the target outlives the chunk, and the task's
 * reference (r->remaining) lasts until its last submission.  NULL: the
 * caller ends the burst as before
 * (__ressd_log_seal_soon()).  Caller holds rc->lock; never sleeps.
 */
struct ressd_record *__ressd_log_unplug_chunk(struct ressd_c *rc)
{
	struct ressd_record *r = rc->log.open;

	lockdep_assert_held(&rc->lock);
	if (READ_ONCE(ressd_commit_delay_us) || !r || bio_list_empty(&r->bios) ||
	    !__ressd_log_submitter_may_write(rc))
		return NULL;
	__ressd_take_chunk(rc, r);
	rc->log.inflight = r;
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_unplug_chunk);

/* Write the chunk __ressd_log_unplug_chunk() took (no lock held; may sleep). */
void ressd_log_chunk_submit(struct ressd_c *rc, struct ressd_record *r)
{
	ressd_chunk_submit(rc, r, NULL);
}

/*
 * The end of a burst: map() queues a callback on the submitter's plug
 * (blk_check_plugged(), as md's raid1 does), which runs when that task
 * flushes its plug.  That task may be preempted between map() and its
 * unplug while the table is removed, so the callback holds a reference on
 * a small handle, not on the target: the destructor clears the handle's
 * pointer under its lock, and the last reference frees it.
 */
struct ressd_plug {
	spinlock_t lock;		/* protects rc */
	struct ressd_c *rc;		/* NULL once the target is gone */
	/* the target's, and one per queued callback (which also holds the module) */
	struct kref ref;
};

struct ressd_plug_cb {
	struct blk_plug_cb cb;		/* cb.data: the struct ressd_plug */
	bool counted;			/* holds a reference (zeroed at allocation) */
	bool waited;			/* a write its task waits for (ressd_plug_burst()) */
};

static void ressd_plug_free(struct kref *ref)
{
	kfree(container_of(ref, struct ressd_plug, ref));
}

/*
 * The submitter's plug was flushed: the burst has ended.  Its task writes
 * the pending data itself when it waits for it, or when there is no crc32c
 * to take (ordered chunks), and may sleep here; else the worker writes it
 * (__ressd_log_seal_soon()).
 */
static void ressd_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct ressd_plug_cb *pcb = container_of(cb, struct ressd_plug_cb, cb);
	struct ressd_plug *p = cb->data;
	bool counted = pcb->counted;
	struct ressd_record *r = NULL;
	struct ressd_c *rc;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	rc = p->rc;
	if (rc) {
		spin_lock(&rc->lock);
		/*
		 * Not from schedule(), and a write the task waits for next, or
		 * a chunk without crc32c to take: it writes the chunk itself.
		 * Others leave it to the worker, which takes the checksums
		 * beside their task.
		 */
		if ((pcb->waited || ressd_log_ordered(rc)) && !from_schedule &&
		    !current->bio_list)
			r = __ressd_log_unplug_chunk(rc);
		if (!r)
			__ressd_log_seal_soon(rc);
		spin_unlock(&rc->lock);
	}
	spin_unlock_irqrestore(&p->lock, flags);
	/* The chunk in flight keeps the target from its destructor. */
	if (r) {
		atomic64_inc(&rc->submitter_log_writes);
		ressd_log_chunk_submit(rc, r);
	}
	kfree(cb);
	if (counted) {
		kref_put(&p->ref, ressd_plug_free);
		/* Last: the callback's code may go once the module is put. */
		module_put(THIS_MODULE);
	}
}

int ressd_plug_init(struct ressd_c *rc)
{
	rc->plug = kzalloc(sizeof(*rc->plug), GFP_KERNEL);
	if (!rc->plug)
		return -ENOMEM;
	spin_lock_init(&rc->plug->lock);
	kref_init(&rc->plug->ref);
	rc->plug->rc = rc;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_plug_init);

/*
 * A small write joins the open record in a plug: queue the callback that
 * ends the burst.  @opf: the write's flags; REQ_SYNC without REQ_IDLE is a
 * write its task waits for once the plug ends (the writeback of an fsync),
 * which the task then writes itself (ressd_unplug()).
 */
bool ressd_plug_burst(struct ressd_c *rc, blk_opf_t opf)
{
	struct blk_plug_cb *cb = blk_check_plugged(ressd_unplug, rc->plug,
						   sizeof(struct ressd_plug_cb));
	struct ressd_plug_cb *pcb;

	if (!cb)
		return false;
	/* A callback is queued once a plug; the first one takes a reference. */
	pcb = container_of(cb, struct ressd_plug_cb, cb);
	if (!pcb->counted) {
		kref_get(&rc->plug->ref);
		__module_get(THIS_MODULE);	/* the callback is our code */
		pcb->counted = true;
	}
	if ((opf & (REQ_SYNC | REQ_IDLE)) == REQ_SYNC)
		pcb->waited = true;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_plug_burst);

/*
 * In a bio submission of this task (current->bio_list: a log device that
 * completes in its submitter's context, as brd or zram), with chunks
 * without crc32c to take and commit_delay_us 0: where a completion may
 * leave the open record's pending data to this task.  (Any lock or none.)
 */
static bool ressd_log_in_submission(struct ressd_c *rc)
{
	return in_task() && current->bio_list && !READ_ONCE(ressd_commit_delay_us) &&
	       ressd_log_ordered(rc);
}

/*
 * Does the task's plug hold the end-of-burst callback of this target?  Its
 * own plug's list needs no lock; rc->plug stays while a write of the
 * target is in flight.
 */
static bool ressd_plug_queued(struct ressd_c *rc)
{
	struct blk_plug_cb *cb;

	if (!current->plug || !rc->plug)
		return false;
	list_for_each_entry(cb, &current->plug->cb_list, list)
		if (cb->callback == ressd_unplug && cb->data == rc->plug)
			return true;
	return false;
}

/* Does the pending data of @r fit one bio of BIO_MAX_VECS vectors? (rc->lock held) */
static bool __ressd_chunk_fits(struct ressd_record *r)
{
	unsigned int segs = 0;
	struct bio *b;

	bio_list_for_each(b, &r->bios) {
		segs += bio_segments(b);
		if (segs > BIO_MAX_VECS)
			return false;
	}
	return true;
}

/*
 * A small write that map() remapped to the idle log (__ressd_log_direct())
 * completed within its own submission (current->bio_list: a device that
 * completes in the submitter's context, as brd or zram do), while the open
 * record's data of other writers waits: when the task's plug already holds
 * the end-of-burst callback that map() queued for a write of this target
 * (a batch of writes in one plug), that callback writes their chunk when
 * the plug ends (ressd_unplug()), not the worker after a hop.  A callback
 * still on the plug's list is sure to run (flush_plug_callbacks() empties
 * it; from schedule() it hands the chunk to the worker), and the task is
 * one of the target's writers.  None is allocated here: one queued while a
 * plug dispatches its requests, after its callbacks ran (6.12's
 * __submit_bio() plugs each bio), would never run.  Not from a chunk's own
 * completion (a chain of chunks would keep one task writing everyone's),
 * not with commit_delay_us (the worker would write at once), and only for
 * chunks without crc32c to take (the worker takes those beside the
 * writers' tasks; ressd_unplug() asks again).  The destructor releases the
 * callbacks' handle only after the completions (synchronize_rcu()).
 * (rc->lock held; never sleeps.)
 */
static bool __ressd_log_plug_due(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->lock);
	return ressd_log_in_submission(rc) && ressd_plug_queued(rc);
}

void ressd_plug_release(struct ressd_c *rc)
{
	struct ressd_plug *p = rc->plug;

	if (!p)
		return;
	spin_lock_irq(&p->lock);
	p->rc = NULL;
	spin_unlock_irq(&p->lock);
	kref_put(&p->ref, ressd_plug_free);
	rc->plug = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_plug_release);

/*
 * Take the crc32c of the data of @bio, which __ressd_log_direct() made the
 * chunk in flight, and remap it to its slots.  Nothing else touches the
 * chunk's entries or bounds until its completion.  It is the one log write
 * in flight, which every other writer waits for: it goes as the worker's
 * would, with no flag, priority or cgroup of its submitter that could fail
 * it early (a failed log write breaks the log), hold it back, or leave it
 * to a poller.
 */
void ressd_log_direct_submit(struct ressd_c *rc, struct bio *bio)
{
	struct ressd_record *r = rc->log.inflight;
	struct bio_list one = BIO_EMPTY_LIST;
	u32 end;

	bio_list_add(&one, bio);
	end = ressd_chunk_csum(rc, r, &one, r->chunk_first);
	WARN_ON_ONCE(end != r->nr_sub);
	bio->bi_opf &= ~(REQ_NOWAIT | REQ_FAILFAST_MASK);
	bio->bi_opf |= REQ_SYNC;
	bio_clear_polled(bio);
	bio->bi_ioprio = 0;
	bio_set_dev(bio, rc->log_dev->bdev);
	bio_associate_blkg_from_css(bio, blkcg_root_css);
	bio->bi_iter.bi_sector = ressd_slot_sector(rc, r->start + r->chunk_first);
	atomic64_add(bio->bi_iter.bi_size, &rc->dev_write_bytes);
}

/*
 * The inline write's completion under rc->lock.  When only the open
 * record's data waits, its writer's plug takes it (__ressd_log_plug_due());
 * else, in a submission of this task (ressd_log_in_submission()) with
 * @spare, a bio allocated without waiting into which the chunk fits, this
 * task takes it: returned, to be written with @spare once no lock is held
 * (on 6.12 a write's plug ends inside its submission, before its inline
 * write is done, so the plug's callback finds the log busy and leaves the
 * data to whatever comes next).  Not from a chunk's own completion: a
 * chain of chunks would keep one task writing everyone's.
 */
VISIBLE_IF_KUNIT struct ressd_record *__ressd_log_direct_done(struct ressd_c *rc,
							      blk_status_t status, bool spare)
{
	struct ressd_record *r, *take = NULL;
	unsigned long flags;
	bool work;

	if (status)
		ressd_log_broken(rc, RESSD_MODE_FAIL, "log write failed");
	spin_lock_irqsave(&rc->lock, flags);
	r = rc->log.inflight;
	if (WARN_ON_ONCE(!r)) {
		spin_unlock_irqrestore(&rc->lock, flags);
		return NULL;
	}
	if (status)
		r->status = status;
	__ressd_chunk_written(rc, r, status);
	work = __ressd_log_worker_due(rc, status);
	/* Only the open record's data waits: its writer's plug, or this task, may take it. */
	if (work && !status && !__ressd_log_other_work(rc)) {
		if (__ressd_log_plug_due(rc)) {
			work = false;
		} else if (spare && ressd_log_in_submission(rc) && rc->log.open &&
			   __ressd_chunk_fits(rc->log.open)) {
			take = __ressd_log_unplug_chunk(rc);
			work = !take;
		}
	}
	spin_unlock_irqrestore(&rc->lock, flags);
	ressd_log_wake(rc, work);
	return take;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_direct_done);

/*
 * The write of ressd_log_direct_submit() completed (any context, before the
 * upper bio completes): what ressd_chunk_done() does for a chunk, and the
 * worker runs only if something waits for it.  Under rcu_read_lock() as
 * the other log completions: the destructor of a device removed without a
 * suspend may run as soon as the log is idle again.
 */
void ressd_log_direct_done(struct ressd_c *rc, blk_status_t status)
{
	struct ressd_record *r;
	struct bio *spare = NULL;

	/*
	 * Lockless hints: others' data waits, no callback of ours on the plug
	 * takes it, and this task may write it: in a submission, and free to
	 * sleep (submit_bio_noacct() says so; a blk-mq device may complete a
	 * request within its dispatch, under rcu_read_lock()).
	 */
	if (!status && READ_ONCE(rc->log.write_pending) && ressd_log_in_submission(rc) &&
	    preemptible() && !rcu_preempt_depth() && !ressd_plug_queued(rc))
		spare = bio_alloc_bioset(rc->log_dev->bdev, BIO_MAX_VECS, REQ_OP_WRITE,
					 GFP_NOWAIT, &rc->bs);
	rcu_read_lock();
	r = __ressd_log_direct_done(rc, status, spare);
	if (!r && spare)
		bio_put(spare);		/* before the destructor may free rc->bs */
	rcu_read_unlock();
	/* The chunk in flight keeps the target from its destructor. */
	if (r) {
		/* The worker too re-maps writes (deferred ones) that may go inline. */
		if (current_work() == &rc->worker)
			atomic64_inc(&rc->worker_log_writes);
		else
			atomic64_inc(&rc->submitter_log_writes);
		ressd_chunk_submit(rc, r, spare);
	}
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_direct_done);

void ressd_log_work(struct ressd_c *rc)
{
	struct ressd_record *r;
	bool chunk = false;

	ressd_worker_flush(rc);
	for (;;) {
		bool broken;

		spin_lock_irq(&rc->lock);
		r = __ressd_next_write(rc, &chunk);
		broken = rc->log.broken;
		spin_unlock_irq(&rc->lock);
		if (!r)
			break;
		if (broken) {
			/* Not issued: it would follow a missing record. */
			r->status = BLK_STS_IOERR;
			if (chunk)
				ressd_chunk_done(r);
			else
				ressd_record_done(r);
		} else {
			atomic64_inc(&rc->worker_log_writes);
			if (chunk)
				ressd_chunk_submit(rc, r, NULL);
			else
				ressd_record_submit(rc, r, NULL);
		}
	}
	ressd_worker_flush(rc);
}

static void ressd_sync_endio(struct bio *bio)
{
	complete(bio->bi_private);
}

int ressd_log_sync(struct ressd_c *rc)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct bio *token;
	int r;

	/* A bio that is never submitted: it only waits with the others. */
	token = bio_alloc_bioset(NULL, 0, REQ_OP_WRITE, GFP_NOIO, &rc->bs);
	token->bi_end_io = ressd_sync_endio;
	token->bi_private = &done;
	spin_lock_irq(&rc->lock);
	bio_list_add(&rc->log.flush_waiters, token);
	spin_unlock_irq(&rc->lock);
	ressd_kick(rc);
	wait_for_completion(&done);
	r = blk_status_to_errno(token->bi_status);
	bio_put(token);
	return r;
}

/* ---- what the rest of the target asks of the log ---- */

void ressd_log_stop_timer(struct ressd_c *rc)
{
	hrtimer_cancel(&rc->log.seal_timer);
}

void __ressd_log_wait_durable(struct ressd_c *rc, struct bio *bio)
{
	lockdep_assert_held(&rc->lock);
	bio_list_add(&rc->log.flush_waiters, bio);
}

u64 __ressd_log_inval_gen(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->lock);
	return rc->log.inval_gen;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_inval_gen);

bool ressd_log_invals_durable(struct ressd_c *rc)
{
	/* Both only grow; a stale pair errs towards "not durable". */
	return READ_ONCE(rc->log.inval_gen) <= READ_ONCE(rc->log.inval_durable_gen);
}

bool __ressd_log_invals_durable(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->lock);
	return rc->log.inval_gen <= rc->log.inval_durable_gen;
}

u32 ressd_log_used(struct ressd_c *rc)
{
	return READ_ONCE(rc->log.used);
}

void __ressd_log_inval_begin(struct ressd_c *rc, struct ressd_inval *inv,
			     u64 block, u64 nr)
{
	lockdep_assert_held(&rc->lock);
	inv->block = block;
	inv->nr = nr;
	inv->held = false;
	list_add_tail(&inv->list, &rc->log.pending);
}

bool __ressd_log_inval_end(struct ressd_c *rc, struct ressd_inval *inv)
{
	lockdep_assert_held(&rc->lock);
	if (!__ressd_log_invalidate(rc, inv->block, inv->nr)) {
		if (!inv->held) {
			inv->held = true;
			rc->log.nr_held++;
		}
		return false;
	}
	__ressd_log_inval_abort(rc, inv);
	return true;
}

void __ressd_log_inval_abort(struct ressd_c *rc, struct ressd_inval *inv)
{
	lockdep_assert_held(&rc->lock);
	list_del_init(&inv->list);
	if (inv->held) {
		inv->held = false;
		rc->log.nr_held--;
	}
}

struct ressd_inval *__ressd_log_pending(struct ressd_c *rc, u64 block)
{
	struct ressd_inval *inv;

	lockdep_assert_held(&rc->lock);
	list_for_each_entry(inv, &rc->log.pending, list)
		if (block >= inv->block && block - inv->block < inv->nr)
			return inv;
	return NULL;
}

u32 __ressd_log_nr_held(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->lock);
	return rc->log.nr_held;
}

u8 __ressd_log_read_get(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->index.lock);
	return ressd_phase_get(&rc->log.readers);
}

void ressd_log_read_put(struct ressd_c *rc, u8 phase)
{
	ressd_phase_put(&rc->log.readers, phase, &rc->wait);
}

void ressd_log_start(struct ressd_c *rc, const struct ressd_log_start *st)
{
	spin_lock_irq(&rc->lock);
	rc->log.head = st->head;
	rc->log.next_seq = st->next_seq;
	rc->log.tail_slot = st->tail_slot;
	rc->log.tail_seq = st->tail_seq;
	rc->log.tail_epoch = st->tail_epoch;
	WRITE_ONCE(rc->log.used, st->used);
	rc->log.pend_start = st->head;
	rc->log.pend_slots = 0;
	rc->log.dirty = false;
	rc->log.epoch = st->epoch;
	rc->log.epoch_first_seq = st->next_seq;
	spin_unlock_irq(&rc->lock);
}

void __ressd_log_region(struct ressd_c *rc, struct ressd_log_region *reg)
{
	lockdep_assert_held(&rc->lock);
	reg->tail_slot = rc->log.tail_slot;
	reg->tail_seq = rc->log.tail_seq;
	reg->tail_epoch = rc->log.tail_epoch;
	reg->epoch = rc->log.epoch;
	reg->used = rc->log.used;
	reg->written = rc->log.used - rc->log.pend_slots;
}

u64 __ressd_log_checkpoint_epoch(struct ressd_c *rc, u64 seq, u64 chain_epoch)
{
	lockdep_assert_held(&rc->lock);
	return ressd_checkpoint_epoch(seq, rc->log.epoch_first_seq, rc->log.epoch,
				      chain_epoch);
}

/* Clear @nr bits of a ring of @size from @start, maybe wrapping. */
static void ressd_bitmap_clear_ring(unsigned long *map, u32 size, u32 start, u32 nr)
{
	if (start + nr <= size) {
		bitmap_clear(map, start, nr);
	} else {
		bitmap_clear(map, start, size - start);
		bitmap_clear(map, 0, nr - (size - start));
	}
}

void ressd_log_release(struct ressd_c *rc, u32 slot, u64 seq, u64 epoch,
		       u32 nr)
{
	u8 old;

	/*
	 * The caller has unmapped every slot of the region: a read that
	 * found one took its reference in the same hold of the index lock
	 * as its lookup, so before, on the current phase.  Later reads take
	 * the other phase; wait for the old one to drain.
	 */
	spin_lock_irq(&rc->index.lock);
	old = ressd_phase_flip(&rc->log.readers);
	spin_unlock_irq(&rc->index.lock);
	wait_event(rc->wait, ressd_phase_idle(&rc->log.readers, old));

	spin_lock_irq(&rc->lock);
	/* Forget the region's trailers: @nr slots from the tail, maybe wrapping. */
	ressd_bitmap_clear_ring(rc->log.trailers, rc->lg.nr_slots, rc->log.tail_slot, nr);
	ressd_bitmap_clear_ring(rc->log.copied, rc->lg.nr_slots, rc->log.tail_slot, nr);
	rc->log.tail_slot = slot;
	rc->log.tail_seq = seq;
	rc->log.tail_epoch = epoch;
	WRITE_ONCE(rc->log.used, rc->log.used - nr);
	spin_unlock_irq(&rc->lock);
	ressd_kick(rc);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_release);

u32 ressd_log_trailer_at(struct ressd_c *rc, u32 start)
{
	u32 end = min_t(u64, (u64)start + RESSD_REC_MAX_ITEMS + 1, rc->lg.nr_slots);
	/* Words beyond the region may change meanwhile (ressd_record_done()). */
	u32 t = (u32)data_race(find_next_bit(rc->log.trailers, end, start));

	return t < end ? t : RESSD_NO_SLOT;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_trailer_at);

void __ressd_log_wake_mover_at(struct ressd_c *rc, u32 used)
{
	lockdep_assert_held(&rc->lock);
	WRITE_ONCE(rc->log.wake_used, used);
}
