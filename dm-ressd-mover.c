// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving logged blocks back to their home locations.
 *
 * The mover is a freezable kthread.  It wakes when the log passes
 * high_watermark (or on "drain") and works in rounds until the log is below
 * low_watermark.  One round:
 *
 *  1. plan: take the oldest written records from the tail (their headers are
 *     read back from the log); their live blocks are the slots the index
 *     still maps (the reverse map); sort them by block;
 *  2. issue, one mover_batch at a time: read the blocks from the log, mark
 *     the batch's block range busy (home writes over logged blocks in that
 *     range wait), drop blocks that changed meanwhile or that a home write
 *     in flight is about to supersede, and write the rest home in ascending
 *     order, neighbours merged into one bio;
 *  3. flush the origin and make the log durable, so that every write that
 *     superseded an entry of the region is durable before it disappears;
 *  4. write the superblock checkpoint with the new tail (FUA);
 *  5. unmap the moved slots, wait for log reads of the old read epoch, and
 *     only then hand the region back to the writer (I4).
 *
 * A crash before 4 replays the region again (its blocks are home and in the
 * log, the same data); after 4 the region is gone and its blocks are home.
 * The plan and the issue steps are separate so that a cost model can later
 * choose between sparse ordered writes and filling the gaps.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd-mover"

/* Slots one round takes at most (its plan array is 16 bytes a slot). */
#define RESSD_MOVER_MAX_REGION	65536

struct ressd_move {
	u64 block;
	u32 slot;
	bool skip;
};

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

/* Is a home write over logged blocks in flight on @block? (rc->lock held) */
static bool __ressd_busy_block(struct ressd_c *rc, u64 block)
{
	struct ressd_io *io;

	list_for_each_entry(io, &rc->busy, busy)
		if (block >= io->block && block - io->block < io->nr)
			return true;
	return false;
}

/*
 * Issue one batch of @n moves (sorted): read them from the log, then write
 * home the ones still valid.  Returns 0 or an error.
 */
static int ressd_mover_batch(struct ressd_c *rc, struct ressd_move *mv,
			     struct page **pages, u32 n)
{
	struct ressd_mover_wait w;
	struct bio *bio = NULL;
	u32 i, moved = 0, bios = 0;
	int r;

	ressd_mover_wait_init(&w);
	for (i = 0; i < n; i++) {
		bio = bio_alloc_bioset(rc->log->bdev, 1, REQ_OP_READ, GFP_NOIO, &rc->bs);
		bio->bi_iter.bi_sector = rc->geo.log_offset +
			((sector_t)(RESSD_SB_BLOCKS + mv[i].slot) << 3);
		__bio_add_page(bio, pages[i], RESSD_BLOCK_SIZE, 0);
		ressd_mover_submit(&w, bio);
	}
	r = ressd_mover_wait_all(&w);
	if (r)
		return r;

	/* From now until the batch is home, home writes over it wait. */
	spin_lock_irq(&rc->lock);
	rc->busy_lo = mv[0].block;
	rc->busy_hi = mv[n - 1].block + 1;
	spin_lock(&rc->index.lock);
	for (i = 0; i < n; i++) {
		u64 b;

		mv[i].skip = !__ressd_index_slot_block(&rc->index, mv[i].slot, &b) ||
			     b != mv[i].block || __ressd_busy_block(rc, b);
	}
	spin_unlock(&rc->index.lock);
	spin_unlock_irq(&rc->lock);

	ressd_mover_wait_init(&w);
	bio = NULL;
	for (i = 0; i < n; i++) {
		if (mv[i].skip)
			continue;
		/* Neighbours go in one bio, in ascending order. */
		if (bio && (mv[i].block != mv[i - 1].block + 1 || mv[i - 1].skip ||
			    bio_add_page(bio, pages[i], RESSD_BLOCK_SIZE, 0) != RESSD_BLOCK_SIZE)) {
			ressd_mover_submit(&w, bio);
			bios++;
			bio = NULL;
		} else if (bio) {
			moved++;
			continue;
		}
		bio = bio_alloc_bioset(rc->origin->bdev, min_t(u32, n - i, BIO_MAX_VECS),
				       REQ_OP_WRITE, GFP_NOIO, &rc->bs);
		bio->bi_iter.bi_sector = rc->geo.origin_offset + (mv[i].block << 3);
		__bio_add_page(bio, pages[i], RESSD_BLOCK_SIZE, 0);
		moved++;
	}
	if (bio) {
		ressd_mover_submit(&w, bio);
		bios++;
	}
	r = ressd_mover_wait_all(&w);

	spin_lock_irq(&rc->lock);
	rc->busy_lo = 0;
	rc->busy_hi = 0;
	spin_unlock_irq(&rc->lock);
	queue_work(rc->wq, &rc->worker);	/* home writes that waited */
	if (!r) {
		atomic64_add(moved, &rc->moved_blocks);
		atomic64_add(bios, &rc->mover_writes);
	}
	return r;
}

/*
 * One round.  Returns 0, -EAGAIN when a block of the region could not be
 * moved yet (a home write over it is in flight; try again soon), or an
 * error (the mover stops and the target goes read-only).
 */
static int ressd_mover_round(struct ressd_c *rc)
{
	u32 tail_slot, end_slot, want, region = 0, n = 0, i, batch, old, used;
	struct page *hdr = NULL, **pages = NULL;
	struct ressd_move *mv = NULL;
	u64 tail_seq, end_seq;
	struct ressd_rec rec;
	bool left = false;
	const char *why;
	int r = 0;

	spin_lock_irq(&rc->lock);
	tail_slot = rc->tail_slot;
	tail_seq = rc->tail_seq;
	used = rc->used;
	want = used - rc->pend_slots;	/* written records only */
	if (!rc->draining) {
		u32 low = div_u64((u64)rc->lg.nr_slots * rc->tunables.low_watermark, 100);

		want = min(want, used > low ? used - low : 0);
	}
	batch = rc->tunables.mover_batch >> 3;
	spin_unlock_irq(&rc->lock);
	want = min_t(u32, want, RESSD_MOVER_MAX_REGION);
	if (!want)
		return 0;

	hdr = alloc_page(GFP_KERNEL);
	/* Whole records only: the last may overshoot want by one record. */
	mv = kvmalloc_array(want + RESSD_REC_MAX_ITEMS, sizeof(*mv), GFP_KERNEL);
	pages = kcalloc(batch, sizeof(*pages), GFP_KERNEL);
	if (!hdr || !mv || !pages) {
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
		r = ressd_log_read_slot(rc, end_slot, hdr);
		if (r)
			goto out;
		why = ressd_rec_decode(page_address(hdr), &rc->lg, end_slot, &rec);
		if (!why && rec.seq != end_seq)
			why = "sequence break";
		if (why) {
			DMERR("record %llu at slot %u: %s", end_seq, end_slot, why);
			DMERR("(found seq %llu, %u data, %u inval; tail %u/%llu, used %u)",
			      rec.seq, rec.nr_data, rec.nr_inval, tail_slot, tail_seq,
			      READ_ONCE(rc->used));
			r = -EIO;
			goto out;
		}
		if (region && region + 1 + rec.nr_data > want)
			break;
		spin_lock_irq(&rc->index.lock);
		for (i = 0; i < rec.nr_data; i++) {
			u32 s = end_slot + 1 + i;

			if (__ressd_index_slot_block(&rc->index, s, &mv[n].block)) {
				mv[n].slot = s;
				mv[n].skip = false;
				n++;
			}
		}
		spin_unlock_irq(&rc->index.lock);
		region += 1 + rec.nr_data;
		end_slot = ressd_rec_next_slot(&rc->lg, end_slot, rec.nr_data);
		end_seq++;
	}
	sort(mv, n, sizeof(*mv), ressd_move_cmp, NULL);

	/* 2. Issue, one batch at a time. */
	for (i = 0; i < n; i += batch) {
		r = ressd_mover_batch(rc, mv + i, pages, min(batch, n - i));
		if (r)
			goto out;
	}

	/* 3. Everything that superseded an entry of the region is durable. */
	r = blkdev_issue_flush(rc->origin->bdev);
	if (!r)
		r = ressd_log_sync(rc);
	if (r)
		goto out;
	spin_lock_irq(&rc->index.lock);
	for (i = 0; i < n && !left; i++) {
		u64 b;

		left = mv[i].skip && __ressd_index_slot_block(&rc->index, mv[i].slot, &b);
	}
	spin_unlock_irq(&rc->index.lock);
	if (left) {
		r = -EAGAIN;
		goto out;
	}

	/* 4. The checkpoint: the region is no longer part of the log. */
	mutex_lock(&rc->meta_lock);
	rc->sb.tail_slot = end_slot;
	rc->sb.tail_seq = end_seq;
	mutex_unlock(&rc->meta_lock);
	r = ressd_meta_write_sb(rc);
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
	if (WARN_ON_ONCE(i < region)) {
		spin_unlock_irq(&rc->lock);
		r = -EIO;
		goto out;
	}
	old = rc->read_epoch;
	rc->read_epoch ^= 1;
	spin_unlock_irq(&rc->lock);
	wait_event(rc->wait, !atomic_read(&rc->log_readers[old]));

	spin_lock_irq(&rc->lock);
	rc->tail_slot = end_slot;
	rc->tail_seq = end_seq;
	rc->used -= region;
	spin_unlock_irq(&rc->lock);
	queue_work(rc->wq, &rc->worker);
out:
	if (pages)
		for (i = 0; i < batch; i++)
			if (pages[i])
				__free_page(pages[i]);
	kfree(pages);
	kvfree(mv);
	if (hdr)
		__free_page(hdr);
	return r;
}

/* Should a round run now?  @active is the hysteresis between the marks. */
static bool ressd_mover_should_run(struct ressd_c *rc, bool *active)
{
	bool run;
	u64 pct;

	spin_lock_irq(&rc->lock);
	pct = div_u64((u64)rc->used * 100, rc->lg.nr_slots);
	if (pct >= rc->tunables.high_watermark)
		*active = true;
	else if (pct <= rc->tunables.low_watermark)
		*active = false;
	run = !rc->mover_paused && !rc->suspending && rc->mode == RESSD_MODE_RW &&
	      rc->used > rc->pend_slots && (rc->draining || *active);
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
		wait_event_freezable(rc->mover_wait, kthread_should_stop() ||
				     ressd_mover_should_run(rc, &active));
		if (kthread_should_stop())
			break;
		mutex_lock(&rc->mover_lock);
		r = ressd_mover_round(rc);
		mutex_unlock(&rc->mover_lock);
		wake_up_all(&rc->wait);
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

	if (rc->mover)
		return 0;
	t = kthread_run(ressd_mover_thread, rc, "kressd_mover");
	if (IS_ERR(t))
		return PTR_ERR(t);
	rc->mover = t;
	return 0;
}

void ressd_mover_stop(struct ressd_c *rc)
{
	if (!rc->mover)
		return;
	kthread_stop(rc->mover);
	rc->mover = NULL;
}

void ressd_mover_kick(struct ressd_c *rc)
{
	wake_up(&rc->mover_wait);
}

int ressd_mover_drain(struct ressd_c *rc)
{
	int r;

	spin_lock_irq(&rc->lock);
	if (rc->mover_paused) {
		spin_unlock_irq(&rc->lock);
		DMWARN("drain: the mover is paused");
		return -EBUSY;
	}
	rc->draining = true;
	spin_unlock_irq(&rc->lock);

	r = ressd_log_sync(rc);
	ressd_mover_kick(rc);
	if (!r)
		r = wait_event_interruptible(rc->wait, !READ_ONCE(rc->used) ||
					     READ_ONCE(rc->mode) != RESSD_MODE_RW ||
					     READ_ONCE(rc->mover_paused));
	spin_lock_irq(&rc->lock);
	rc->draining = false;
	if (!r && rc->used)
		r = rc->mode != RESSD_MODE_RW ? -EIO : -EBUSY;
	spin_unlock_irq(&rc->lock);
	return r;
}
