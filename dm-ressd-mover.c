// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving logged blocks back to their home locations.
 *
 * The mover is a freezable kthread.  It wakes when the log passes
 * high_watermark (or on "drain") and works in rounds until the log is below
 * low_watermark.  One round:
 *
 *  1. plan: take the oldest written records from the tail (their headers are
 *     read back from the log, 64 slots a request); their live blocks are
 *     the slots the index still maps (the reverse map); sort them by block;
 *  2. issue, one mover_batch at a time: read the blocks from the log, mark
 *     the batch's block range busy (home writes over logged blocks in that
 *     range wait), drop blocks that changed meanwhile or that a home write
 *     in flight is about to supersede, and write the rest home in ascending
 *     order, neighbours merged into one bio;
 *  3. flush the origin and make the log durable, so that every write that
 *     superseded an entry of the region is durable before it disappears;
 *  4. write the superblock checkpoint with the new tail (FUA);
 *  5. unmap the moved slots, wait for the log reads that began before, and
 *     only then hand the region back to the writer (I4).
 *
 * A crash before 4 replays the region again (its blocks are home and in the
 * log, the same data); after 4 the region is gone and its blocks are home.
 * The plan and the issue steps are separate so that a cost model can later
 * choose between sparse ordered writes and filling the gaps.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/part_stat.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd-mover"

/* Slots one round takes at most (its plan array is 16 bytes a slot). */
#define RESSD_MOVER_MAX_REGION	65536

/* Bios of one step in flight: the step waits for all of them. */
struct ressd_mover_wait {
	atomic_t pending;
	blk_status_t status;
	struct completion done;
};

static int ressd_move_cmp(const void *a, const void *b)
{
	const struct ressd_move *x = a, *y = b;

	return x->block < y->block ? -1 : x->block > y->block;
}

static void ressd_mover_endio(struct bio *bio)
{
	struct ressd_mover_wait *w = bio->bi_private;

	if (bio->bi_status)
		w->status = bio->bi_status;
	bio_put(bio);
	if (atomic_dec_and_test(&w->pending))
		complete(&w->done);
}

static void ressd_mover_wait_init(struct ressd_mover_wait *w)
{
	atomic_set(&w->pending, 1);
	w->status = BLK_STS_OK;
	init_completion(&w->done);
}

static int ressd_mover_wait_all(struct ressd_mover_wait *w)
{
	if (!atomic_dec_and_test(&w->pending))
		wait_for_completion(&w->done);
	return blk_status_to_errno(w->status);
}

static void ressd_mover_submit(struct ressd_mover_wait *w, struct bio *bio)
{
	bio->bi_end_io = ressd_mover_endio;
	bio->bi_private = w;
	atomic_inc(&w->pending);
	submit_bio_noacct(bio);
}

/**
 * ressd_mover_next_run() - the next home write of a batch
 * @mv: the batch, sorted by block
 * @n: its length
 * @i: where to start looking
 * @max_blocks: the most blocks one bio may carry
 * @by_slot: a run of log slots (a read) instead of home blocks (a write)
 * @first: set to the index of the run's first move
 *
 * A run is a stretch of moves that are not skipped and whose home blocks
 * (or, @by_slot, log slots) follow each other, at most @max_blocks long:
 * one bio.  The next call starts at *@first + the returned length.
 *
 * Return: the run's length, 0 when no move is left.
 */
u32 ressd_mover_next_run(const struct ressd_move *mv, u32 n, u32 i,
			 u32 max_blocks, bool by_slot, u32 *first)
{
	u32 len = 1;

	while (i < n && mv[i].skip)
		i++;
	if (i >= n)
		return 0;
	*first = i;
	while (i + len < n && len < max_blocks && !mv[i + len].skip &&
	       (by_slot ? mv[i + len].slot == mv[i + len - 1].slot + 1 :
			  mv[i + len].block == mv[i + len - 1].block + 1))
		len++;
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_mover_next_run);

/*
 * Issue one batch of @n moves (sorted): read them from the log, then write
 * home the ones still valid.  Returns 0 or an error.
 */
static int ressd_mover_batch(struct ressd_c *rc, struct ressd_move *mv,
			     struct page **pages, u32 n)
{
	struct ressd_mover_wait w;
	u32 i, first, len, moved = 0, bios = 0;
	struct bio *bio;
	u8 old;
	int r;

	/* Read the batch from the log, neighbouring slots in one bio. */
	ressd_mover_wait_init(&w);
	for (i = 0; i < n; i++) {
		mv[i].skip = false;
		mv[i].superseded = false;
	}
	i = 0;
	while ((len = ressd_mover_next_run(mv, n, i, BIO_MAX_VECS, true, &first))) {
		bio = bio_alloc_bioset(rc->log_dev->bdev, len, REQ_OP_READ, GFP_NOIO, &rc->bs);
		bio->bi_iter.bi_sector = ressd_slot_sector(rc, mv[first].slot);
		for (i = first; i < first + len; i++)
			__bio_add_page(bio, pages[i], RESSD_BLOCK_SIZE, 0);
		ressd_mover_submit(&w, bio);
	}
	r = ressd_mover_wait_all(&w);
	if (r)
		return r;

	/* From now until the batch is home, home writes over it wait. */
	spin_lock_irq(&rc->lock);
	rc->mover.busy_lo = mv[0].block;
	rc->mover.busy_hi = mv[n - 1].block + 1;
	spin_lock(&rc->index.lock);
	for (i = 0; i < n; i++) {
		struct ressd_inval *inv;
		u64 b;

		if (!__ressd_index_slot_block(&rc->index, mv[i].slot, &b) || b != mv[i].block) {
			mv[i].skip = true;
			continue;
		}
		inv = __ressd_log_pending(rc, b);
		mv[i].skip = !!inv;
		/*
		 * A held home write is newer and complete: the logged copy is
		 * dead.  Step 3 flushes it home before the checkpoint drops the
		 * slot, so no invalidation is needed to free the region; with a
		 * full log, waiting for one could wait for this very round.
		 */
		mv[i].superseded = inv && inv->held;
	}
	spin_unlock(&rc->index.lock);
	/*
	 * A write home mapped before a block of the batch was logged (so not
	 * pending, and older than the logged copy) may still be in flight:
	 * wait for every write home issued before now, or it could land over
	 * the copy written below, and the block would read older data once
	 * the mover unmaps it (I5).  Later ones over a block of the batch
	 * wait for the batch (busy_lo/hi).
	 */
	old = ressd_phase_flip(&rc->mover.home);
	spin_unlock_irq(&rc->lock);
	wait_event(rc->wait, ressd_phase_idle(&rc->mover.home, old));

	ressd_mover_wait_init(&w);
	i = 0;
	while ((len = ressd_mover_next_run(mv, n, i, BIO_MAX_VECS, false, &first))) {
		bio = bio_alloc_bioset(rc->origin->bdev, len, REQ_OP_WRITE, GFP_NOIO, &rc->bs);
		bio->bi_iter.bi_sector = rc->geo.origin_offset + (mv[first].block << 3);
		for (i = first; i < first + len; i++)
			__bio_add_page(bio, pages[i], RESSD_BLOCK_SIZE, 0);
		ressd_mover_submit(&w, bio);
		moved += len;
		bios++;
	}
	r = ressd_mover_wait_all(&w);

	spin_lock_irq(&rc->lock);
	rc->mover.busy_lo = 0;
	rc->mover.busy_hi = 0;
	spin_unlock_irq(&rc->lock);
	ressd_kick(rc);		/* home writes that waited for the batch */
	if (!r) {
		atomic64_add(moved, &rc->moved_blocks);
		atomic64_add(bios, &rc->mover_writes);
	}
	return r;
}

/*
 * Home writes over logged blocks stay in flight (held on inval_retry) until
 * a record has room for their invalidation, and a suspend waits for every
 * bio in flight.  With a full log only the mover can make that room, so it
 * runs a round of the whole log for them even while the target is
 * suspending or the mover is paused: otherwise the writes, and a suspend,
 * would wait for ever.  (rc->lock held)
 */
static bool __ressd_mover_needed(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->lock);
	return (rc->suspending || rc->mover.paused) && __ressd_log_nr_held(rc);
}

/* Bios the target's users have issued so far (the dm device's I/O stats). */
static u64 ressd_foreground_ios(struct ressd_c *rc)
{
	struct block_device *part = dm_disk(dm_table_get_md(rc->ti->table))->part0;

	return part_stat_read(part, ios[STAT_READ]) + part_stat_read(part, ios[STAT_WRITE]);
}

/*
 * Between two batches: when the target's users issued I/O during the last
 * batch, pause as long as that batch took (at most RESSD_MOVER_YIELD_MS), so
 * that the mover takes at most about half of the device while they are
 * busy; no pause when they are idle, during a drain, or when the log is
 * nearly full (pausing then would only send small writes home directly).
 */
#define RESSD_MOVER_YIELD_MS	20
#define RESSD_MOVER_NO_YIELD_PCT	90

static void ressd_mover_yield(struct ressd_c *rc, u64 *fg, s64 batch_us)
{
	u64 now = ressd_foreground_ios(rc);
	bool busy = now != *fg;
	u64 pct;

	*fg = now;
	spin_lock_irq(&rc->lock);
	pct = div_u64((u64)ressd_log_used(rc) * 100, rc->lg.nr_slots);
	busy = busy && !rc->mover.draining && pct < RESSD_MOVER_NO_YIELD_PCT;
	spin_unlock_irq(&rc->lock);
	if (!busy || batch_us <= 0)
		return;
	batch_us = min_t(s64, batch_us, RESSD_MOVER_YIELD_MS * USEC_PER_MSEC);
	atomic64_inc(&rc->mover_yields);
	usleep_range(batch_us, batch_us + batch_us / 4 + 50);
	*fg = ressd_foreground_ios(rc);
}

/*
 * One round.  Returns 0, -EAGAIN when a block of the region could not be
 * moved yet (a home write over it is in flight; try again soon), or an
 * error (the mover stops and the target goes read-only).
 */
static int ressd_mover_round(struct ressd_c *rc)
{
	u32 tail_slot, end_slot, want, region = 0, n = 0, i, batch, used;
	struct page *hdr = NULL, **pages = NULL;
	struct ressd_readahead *ra = NULL;
	struct ressd_move *mv = NULL;
	u64 tail_seq, end_seq, fg, chain_epoch, max_epoch, tail_epoch;
	struct ressd_log_region reg;
	struct ressd_rec rec;
	bool left = false;
	const char *why;
	int r = 0;

	spin_lock_irq(&rc->lock);
	__ressd_log_region(rc, &reg);
	tail_slot = reg.tail_slot;
	tail_seq = reg.tail_seq;
	chain_epoch = reg.tail_epoch;
	max_epoch = reg.epoch;
	used = reg.used;
	want = reg.written;	/* written records only */
	if (!rc->mover.draining && !__ressd_mover_needed(rc)) {
		u32 low = div_u64((u64)rc->lg.nr_slots * rc->tunables.low_watermark, 100);

		want = min(want, used > low ? used - low : 0);
	}
	batch = rc->tunables.mover_batch >> 3;
	spin_unlock_irq(&rc->lock);
	want = min_t(u32, want, RESSD_MOVER_MAX_REGION);
	if (!want)
		return 0;

	hdr = alloc_page(GFP_KERNEL);
	ra = ressd_ra_alloc(rc);
	/* Whole records only: the last may overshoot want by one record. */
	mv = kvmalloc_array(want + RESSD_REC_MAX_ITEMS, sizeof(*mv), GFP_KERNEL);
	pages = kcalloc(batch, sizeof(*pages), GFP_KERNEL);
	if (!hdr || !ra || !mv || !pages) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < batch; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i]) {
			r = -ENOMEM;
			goto out;
		}
	}

	/* 1. Plan: the oldest records, their live blocks, in block order. */
	end_slot = tail_slot;
	end_seq = tail_seq;
	while (region < want) {
		/*
		 * The chain's epochs, as replay checks them: a stale trailer
		 * (of a record cut off by an earlier crash) is never taken.
		 */
		r = ressd_rec_find(ressd_ra_read, ra, &rc->lg, end_slot, end_seq,
				   chain_epoch, max_epoch, page_address(hdr), &rec, &why);
		if (r < 0)
			goto out;
		if (r) {
			DMERR("record %llu at slot %u: %s (tail %u/%llu, used %u)",
			      end_seq, end_slot, why, tail_slot, tail_seq,
			      ressd_log_used(rc));
			r = -EIO;
			goto out;
		}
		if (region && region + 1 + rec.nr_data > want)
			break;
		spin_lock_irq(&rc->index.lock);
		for (i = 0; i < rec.nr_data; i++) {
			u32 s = end_slot + i;

			if (__ressd_index_slot_block(&rc->index, s, &mv[n].block)) {
				mv[n].slot = s;
				mv[n].skip = false;
				n++;
			}
		}
		spin_unlock_irq(&rc->index.lock);
		region += 1 + rec.nr_data;
		end_slot = ressd_rec_next_slot(&rc->lg, rec.slot);
		end_seq++;
		chain_epoch = rec.epoch;
	}
	sort(mv, n, sizeof(*mv), ressd_move_cmp, NULL);

	/* 2. Issue, one batch at a time, yielding to foreground I/O. */
	fg = ressd_foreground_ios(rc);
	for (i = 0; i < n; i += batch) {
		ktime_t t0 = ktime_get();

		r = ressd_mover_batch(rc, mv + i, pages, min(batch, n - i));
		if (r)
			goto out;
		ressd_mover_yield(rc, &fg, ktime_us_delta(ktime_get(), t0));
	}

	/* 3. Everything that superseded an entry of the region is durable. */
	r = ressd_origin_flush(rc);
	if (!r)
		r = ressd_log_sync(rc);
	if (r)
		goto out;
	spin_lock_irq(&rc->index.lock);
	for (i = 0; i < n && !left; i++) {
		u64 b;

		left = mv[i].skip && !mv[i].superseded &&
		       __ressd_index_slot_block(&rc->index, mv[i].slot, &b);
	}
	spin_unlock_irq(&rc->index.lock);
	if (left) {
		r = -EAGAIN;
		goto out;
	}

	/*
	 * 4. The checkpoint: the region is no longer part of the log.  It
	 * carries the chain's epoch there, or the current one when the record
	 * at the new tail is one of this activation (written or not yet), so
	 * that replay never takes a stale record there after a crash (I2).
	 */
	spin_lock_irq(&rc->lock);
	tail_epoch = __ressd_log_checkpoint_epoch(rc, end_seq, chain_epoch);
	spin_unlock_irq(&rc->lock);
	r = ressd_meta_write_checkpoint(rc, end_slot, end_seq, tail_epoch);
	if (r)
		goto out;

	/* 5. Unmap, let older log reads finish, hand the slots back. */
	spin_lock_irq(&rc->lock);
	spin_lock(&rc->index.lock);
	for (i = 0; i < n; i++)
		__ressd_index_remove_slot(&rc->index, mv[i].slot);
	/* I4: no slot of the region may still hold live data. */
	for (i = 0; i < region; i++) {
		u64 b;

		if (__ressd_index_slot_block(&rc->index, (tail_slot + i) % rc->lg.nr_slots, &b))
			break;
	}
	spin_unlock(&rc->index.lock);
	spin_unlock_irq(&rc->lock);
	if (WARN_ON_ONCE(i < region)) {
		r = -EIO;
		goto out;
	}
	ressd_log_release(rc, end_slot, end_seq, tail_epoch, region);
out:
	if (pages)
		for (i = 0; i < batch; i++)
			if (pages[i])
				__free_page(pages[i]);
	kfree(pages);
	kvfree(mv);
	if (hdr)
		__free_page(hdr);
	ressd_ra_free(ra);
	return r;
}

/*
 * Should a round run now?  One round per crossing of high_watermark: it
 * moves the log down to low_watermark, and the mover then waits until the
 * log passes high_watermark again.  Large rounds are what makes the home
 * writes cheap: the more blocks one round sorts, the more of them share an
 * erase unit of the device.  @active is set at high_watermark and cleared
 * by the thread after each round.
 */
static bool ressd_mover_should_run(struct ressd_c *rc, bool *active)
{
	struct ressd_log_region reg;
	bool run;
	u32 high;

	spin_lock_irq(&rc->lock);
	high = DIV_ROUND_UP_ULL((u64)rc->lg.nr_slots * rc->tunables.high_watermark, 100);
	__ressd_log_region(rc, &reg);
	if (reg.used >= high)
		*active = true;
	run = rc->mode == RESSD_MODE_RW && reg.written &&
	      (__ressd_mover_needed(rc) ||
	       (!rc->mover.paused && !rc->suspending && (rc->mover.draining || *active)));
	/*
	 * Until the next look: each log write from high_watermark on wakes
	 * the thread, each one during a drain (set under the lock, so that a
	 * write that completes after this look sees it).
	 */
	__ressd_log_wake_mover_at(rc, rc->mover.draining ? 0 : high);
	spin_unlock_irq(&rc->lock);
	return run;
}

static int ressd_mover_thread(void *data)
{
	struct ressd_c *rc = data;
	bool active = false;
	int r;

	set_freezable();
	while (!kthread_should_stop()) {
		wait_event_freezable(rc->log.mover_wait, kthread_should_stop() ||
				     ressd_mover_should_run(rc, &active));
		if (kthread_should_stop())
			break;
		r = ressd_mover_round(rc);
		wake_up_all(&rc->wait);
		if (r != -EAGAIN)
			active = false;
		if (r == -EAGAIN)
			schedule_timeout_interruptible(msecs_to_jiffies(10));
		else if (r)
			ressd_set_mode(rc, RESSD_MODE_RO, "the mover failed");
	}
	return 0;
}

int ressd_mover_start(struct ressd_c *rc)
{
	struct task_struct *t;

	if (rc->mover.task)
		return 0;
	t = kthread_run(ressd_mover_thread, rc, "kressd_mover");
	if (IS_ERR(t))
		return PTR_ERR(t);
	rc->mover.task = t;
	return 0;
}

void ressd_mover_stop(struct ressd_c *rc)
{
	if (!rc->mover.task)
		return;
	kthread_stop(rc->mover.task);
	rc->mover.task = NULL;
}

void ressd_mover_kick(struct ressd_c *rc)
{
	wake_up(&rc->log.mover_wait);
}

void ressd_mover_pause(struct ressd_c *rc, bool pause)
{
	spin_lock_irq(&rc->lock);
	rc->mover.paused = pause;
	spin_unlock_irq(&rc->lock);
	ressd_mover_kick(rc);
	/* A "drain" waiting for the mover gives up. */
	wake_up_all(&rc->wait);
}

bool __ressd_mover_busy(struct ressd_c *rc, u64 block, u64 nr)
{
	lockdep_assert_held(&rc->lock);
	return block < rc->mover.busy_hi && rc->mover.busy_lo < block + nr;
}

u8 __ressd_mover_home_get(struct ressd_c *rc)
{
	lockdep_assert_held(&rc->lock);
	return ressd_phase_get(&rc->mover.home);
}

void ressd_mover_home_put(struct ressd_c *rc, u8 phase)
{
	ressd_phase_put(&rc->mover.home, phase, &rc->wait);
}

int ressd_mover_drain(struct ressd_c *rc)
{
	u32 used;
	int r;

	spin_lock_irq(&rc->lock);
	if (rc->mover.paused || rc->suspending) {
		spin_unlock_irq(&rc->lock);
		DMWARN("drain: the mover is %s",
		       rc->mover.paused ? "paused" : "stopped (suspending)");
		return -EBUSY;
	}
	rc->mover.draining = true;
	spin_unlock_irq(&rc->lock);

	r = ressd_log_sync(rc);
	ressd_mover_kick(rc);
	if (!r)
		r = wait_event_interruptible(rc->wait, !ressd_log_used(rc) ||
					     READ_ONCE(rc->mode) != RESSD_MODE_RW ||
					     READ_ONCE(rc->mover.paused) ||
					     READ_ONCE(rc->suspending));
	spin_lock_irq(&rc->lock);
	rc->mover.draining = false;
	/*
	 * A suspend stops the mover and then waits for this message to
	 * return (it runs in the table's SRCU read section): give up.
	 */
	used = ressd_log_used(rc);
	if (!r && used && rc->suspending)
		DMWARN("drain: interrupted by a suspend, %u slots still used", used);
	if (!r && used)
		r = rc->mode != RESSD_MODE_RW ? -EIO : -EBUSY;
	spin_unlock_irq(&rc->lock);
	return r;
}
