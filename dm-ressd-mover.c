// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving logged blocks back to their home locations.
 *
 * The mover is a freezable kthread.  It wakes when the log passes
 * high_watermark (or on "drain") and works in rounds until the log is below
 * low_watermark.  One round:
 *
 *  1. plan (ressd_round_plan): take the oldest written records from the
 *     tail (their trailers are read back from the log, where the writer's
 *     map of them says: rc->log.trailers);
 *     their live blocks are the slots the index still maps (the reverse
 *     map); sort them by block;
 *  2. issue (ressd_round_issue), one mover_batch at a time: read the blocks
 *     from the log (with a model's unit of at most 4 MiB, the blocks of
 *     many batches in one pass in slot order), wait for the writes home
 *     issued before the batch (I5), mark the batch's block range busy (home
 *     writes over logged blocks in that range wait), drop blocks that
 *     changed meanwhile or that a home write in flight is about to
 *     supersede, and write the rest home in ascending order, neighbours
 *     merged into one bio;
 *  3. for each part of the region (ressd_round_part(): a density round
 *     has up to RESSD_ROUND_PARTS, any other one): its copies forward
 *     (density, below), then durable (ressd_round_durable): flush the
 *     origin and make the log durable, so that every write that superseded
 *     an entry of the part is durable before it disappears; checkpoint
 *     (ressd_round_checkpoint): write the superblock checkpoint with the
 *     tail past the part (FUA); release (ressd_round_release): unmap the
 *     part's moved slots, wait for the log reads that began before, and
 *     only then hand the part back to the writer (I4).
 *
 * A round's buffers are allocated with reclaim kept from starting I/O
 * (memalloc_noio_save()): reclaim that wrote through this target could wait
 * for room in the log, which only the mover makes.
 *
 * A crash before a part's checkpoint replays the part again (its blocks are
 * home or copied, and in the log, the same data); after it the part is gone
 * and its blocks are home or at the head.  Nothing of the region is reused
 * before its part is released: all of the round's reads from the log, the
 * read ahead included, come before the first release, but for the copies
 * of a part, read from that part.
 *
 * With a device model that has an erase unit size (dev_model), step 2
 * prices each unit on its own (ressd_unit_choose(), dm-ressd-plan.c):
 * sparse units go in batches as above; a unit cheaper to fill is read from
 * home and written in order, its logged blocks in place
 * (ressd_mover_fill()).
 *
 * With mover_policy density (and a unit size), a round takes one segment
 * of the log from the tail and decides per unit (ressd_round_decide(),
 * between 1 and 2): a unit that has gathered many logged blocks goes home
 * with all of them, those beyond the segment (far moves) unmapped after
 * with an invalidation (ressd_round_drop_far(), after 2); the segment's
 * blocks of the other units are copied forward to the head as new log
 * entries (ressd_mover_forward(), part by part in 3), where they wait for
 * more of their unit: the room they take at the head comes back as each
 * part is released, and small writes leave the room the next part's
 * copies take (ressd_log_keep()).  A segment that holds many copies of
 * this activation already (rc->log.copied) copies as before 0.5.3: before
 * its home writes, half the segment and half the room at the most, in one
 * part.  A drain, or room for held home writes, takes everything home.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/bsearch.h>
#include <linux/delay.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/part_stat.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd-mover"

/* Slots one round takes at most (its plan array is 16 bytes a slot). */
#define RESSD_MOVER_MAX_REGION	65536
/* Moves one lock hold of ressd_round_drop_pass() looks at, at most. */
#define RESSD_DROP_STEP		64
/* Index runs one hold of the index lock walks, at most (unit counts). */
#define RESSD_SCAN_STEP		64
/* Slots one hold of the locks unmaps or checks when a round ends. */
#define RESSD_RELEASE_STEP	256
/* Rounds without memory (100 ms apart) a suspend waits for, at most. */
#define RESSD_MOVER_NOMEM_TRIES	50
/*
 * A density round releases its region in up to this many parts, each with
 * its own checkpoint, so that its copies forward take at most a part's
 * worth of the free slots before they come back (ressd_round_part()).
 */
#define RESSD_ROUND_PARTS	4
/* Tries of a copy forward that found no record buffer free. */
#define RESSD_FWD_TRIES		4

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

static int ressd_slot_ref_cmp(const void *a, const void *b)
{
	const struct ressd_slot_ref *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
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
 * How a round reads the log.  The moves of a step, or of the steps read
 * ahead together (ressd_round_fill_read()), are read in slot order
 * (@sorted, unless its buffers could not be had), neighbouring slots in one
 * bio, and with a device model a gap of up to @gap slots between two of them
 * is read through into @scratch rather than cut (ressd_read_run()):
 * scattered slots, as a dense unit's are, cost a request each otherwise.
 */
struct ressd_log_reader {
	bool sorted;
	u32 gap;
	struct page *scratch;
	struct ressd_slot_ref *ref;	/* room for the moves read at once */
};

/* Read the moves in slot order, gaps read through; move i into pages[i]. */
static int ressd_mover_read_sorted(struct ressd_c *rc, const struct ressd_log_reader *rd,
				   struct ressd_move *mv, struct page **pages, u32 n)
{
	struct ressd_mover_wait w;
	u32 i, k, cnt, slots, s;
	struct bio *bio;

	for (i = 0; i < n; i++) {
		rd->ref[i].slot = mv[i].slot;
		rd->ref[i].idx = i;
	}
	sort(rd->ref, n, sizeof(*rd->ref), ressd_slot_ref_cmp, NULL);
	ressd_mover_wait_init(&w);
	for (k = 0; k < n; k += cnt) {
		cnt = ressd_read_run(rd->ref, n, k, rd->gap, BIO_MAX_VECS, &slots);
		bio = bio_alloc_bioset(rc->log_dev->bdev, slots, REQ_OP_READ, GFP_NOIO, &rc->bs);
		bio->bi_iter.bi_sector = ressd_slot_sector(rc, rd->ref[k].slot);
		for (i = k; i < k + cnt; i++) {
			for (s = i > k ? rd->ref[i - 1].slot + 1 : rd->ref[i].slot;
			     s < rd->ref[i].slot; s++)
				__bio_add_page(bio, rd->scratch, RESSD_BLOCK_SIZE, 0);
			__bio_add_page(bio, pages[rd->ref[i].idx], RESSD_BLOCK_SIZE, 0);
		}
		ressd_mover_submit(&w, bio);
	}
	return ressd_mover_wait_all(&w);
}

/* Read the moves' log slots, neighbouring slots in one bio; move i into pages[i]. */
static int ressd_mover_read_log(struct ressd_c *rc, const struct ressd_log_reader *rd,
				struct ressd_move *mv, struct page **pages, u32 n)
{
	struct ressd_mover_wait w;
	u32 i, first, len;
	struct bio *bio;

	for (i = 0; i < n; i++) {
		mv[i].skip = false;
		mv[i].superseded = false;
	}
	if (rd->sorted) {
		struct ressd_log_reader exact = *rd;
		int r = ressd_mover_read_sorted(rc, rd, mv, pages, n);

		/*
		 * A slot read through may fail where the moves' own would not
		 * (never written, written right now, or a stack that checks
		 * what it reads: several gap slots share one page): read the
		 * moves' slots alone before giving up.
		 */
		if (!r || !rd->gap)
			return r;
		exact.gap = 0;
		return ressd_mover_read_sorted(rc, &exact, mv, pages, n);
	}
	ressd_mover_wait_init(&w);
	i = 0;
	while ((len = ressd_mover_next_run(mv, n, i, BIO_MAX_VECS, true, &first))) {
		bio = bio_alloc_bioset(rc->log_dev->bdev, len, REQ_OP_READ, GFP_NOIO, &rc->bs);
		bio->bi_iter.bi_sector = ressd_slot_sector(rc, mv[first].slot);
		for (i = first; i < first + len; i++)
			__bio_add_page(bio, pages[i], RESSD_BLOCK_SIZE, 0);
		ressd_mover_submit(&w, bio);
	}
	return ressd_mover_wait_all(&w);
}

/*
 * Hold the home writes of [@lo, @hi): all of them when @fill, else those
 * over logged blocks.  (rc->lock held)
 */
static void __ressd_mover_hold(struct ressd_c *rc, u64 lo, u64 hi, bool fill)
{
	lockdep_assert_held(&rc->lock);
	rc->mover.busy_lo = lo;
	rc->mover.busy_hi = hi;
	rc->mover.fill = fill;
}

/*
 * Mark the moves that changed since they were planned, or that a home
 * write in flight is about to supersede.  (rc->lock held)
 */
static void __ressd_mover_check(struct ressd_c *rc, struct ressd_move *mv, u32 n)
{
	u32 i;

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
}

/* The home writes the mover held may go (they are mapped again). */
static void ressd_mover_unhold(struct ressd_c *rc)
{
	spin_lock_irq(&rc->lock);
	rc->mover.busy_lo = 0;
	rc->mover.busy_hi = 0;
	rc->mover.fill = false;
	spin_unlock_irq(&rc->lock);
	ressd_kick(rc);		/* home writes that waited for the batch */
}

/* Flip the phase of the writes home, and wait for those of the old one. */
static void ressd_mover_wait_home(struct ressd_c *rc)
{
	u8 old;

	spin_lock_irq(&rc->lock);
	old = ressd_phase_flip(&rc->mover.home);
	spin_unlock_irq(&rc->lock);
	wait_event(rc->wait, ressd_phase_idle(&rc->mover.home, old));
}

/* A bio of @cnt blocks from home block @block on, on @pages[0..@cnt). */
static struct bio *ressd_mover_home_bio(struct ressd_c *rc, blk_opf_t opf, u64 block,
					struct page **pages, u32 cnt)
{
	struct bio *bio = bio_alloc_bioset(rc->origin->bdev, cnt, opf, GFP_NOIO, &rc->bs);
	u32 i;

	bio->bi_iter.bi_sector = rc->geo.origin_offset + ressd_block_sector(block);
	for (i = 0; i < cnt; i++)
		__bio_add_page(bio, pages[i], RESSD_BLOCK_SIZE, 0);
	return bio;
}

/*
 * Write the moves not skipped home, move i from pages[i], neighbours in
 * one bio; *@moved and *@bios count them.
 */
static int ressd_mover_write_runs(struct ressd_c *rc, struct ressd_move *mv,
				  struct page **pages, u32 n, u32 *moved, u32 *bios)
{
	struct ressd_mover_wait w;
	u32 i = 0, first, len;
	struct bio *bio;

	ressd_mover_wait_init(&w);
	while ((len = ressd_mover_next_run(mv, n, i, BIO_MAX_VECS, false, &first))) {
		bio = ressd_mover_home_bio(rc, REQ_OP_WRITE, mv[first].block, pages + first, len);
		ressd_mover_submit(&w, bio);
		i = first + len;
		atomic64_add(len * RESSD_BLOCK_SIZE, &rc->dev_write_bytes);
		*moved += len;
		(*bios)++;
	}
	return ressd_mover_wait_all(&w);
}

/*
 * Write home the moves of one batch of @n (sorted) still valid, read from
 * the log into @pages already (ressd_mover_read_log()).  Read early, a
 * move still holds its data: the index maps a slot only once its data is
 * on the log device, nothing maps a slot anew and no slot of the region is
 * reused before its part is released, after the round's home writes, and
 * each move is checked again here.  Returns 0 or an
 * error.
 */
static int ressd_mover_batch_home(struct ressd_c *rc, struct ressd_move *mv,
				  struct page **pages, u32 n)
{
	u32 moved = 0, bios = 0;
	int r;

	/*
	 * A write home mapped before a block of the batch was logged (so not
	 * pending, and older than the logged copy) may still be in flight:
	 * wait for every write home issued before now, or it could land over
	 * the copy written below, and the block would read older data once
	 * the mover unmaps it (I5).  One mapped later is newer than nothing
	 * of the batch: its blocks were logged before (written records only),
	 * so it is pending and skipped below, or waits for the batch.  The
	 * wait comes before the busy range, so that it holds up no writes.
	 */
	ressd_mover_wait_home(rc);

	/* From now until the batch is home, home writes over it wait. */
	spin_lock_irq(&rc->lock);
	__ressd_mover_hold(rc, mv[0].block, mv[n - 1].block + 1, false);
	__ressd_mover_check(rc, mv, n);
	spin_unlock_irq(&rc->lock);

	r = ressd_mover_write_runs(rc, mv, pages, n, &moved, &bios);
	ressd_mover_unhold(rc);
	if (!r) {
		atomic64_add(moved, &rc->moved_blocks);
		atomic64_add(bios, &rc->mover_writes);
	}
	return r;
}

/* Read one batch of @n moves (sorted) from the log into @pages, then write it home. */
static int ressd_mover_batch(struct ressd_c *rc, const struct ressd_log_reader *rd,
			     struct ressd_move *mv, struct page **pages, u32 n)
{
	int r = ressd_mover_read_log(rc, rd, mv, pages, n);

	return r ? r : ressd_mover_batch_home(rc, mv, pages, n);
}

/*
 * Fill the gaps of one erase unit (step e of Documentation/mover-pricing.md):
 * write its blocks [@lo, @lo + @len) home in order, the @n moves of the
 * unit from the log and every other block from home, so that the device
 * pays a switch or partial merge instead of a full one.  @logp holds the
 * moves' pages, read from the log already (ressd_round_fill_read()), @unit
 * the unit's.
 *
 * I5: every home write to the range, over a logged block or not, is held
 * from before the wait for those in flight until the unit is written.  A
 * write mapped earlier has completed before home is read, so the fill
 * writes its data back; one mapped later waits, and lands after the fill.
 * A small write meanwhile goes to the log and is newer than anything the
 * fill writes.  The fill writes a block either bytes read from its home
 * location after that wait, or its logged copy checked as still current
 * (I3); rewriting a block with the bytes it holds is harmless if torn.
 * A failed read of home leaves the unit to sparse writes: a block that
 * could not be read is never written.
 */
static int ressd_mover_fill(struct ressd_c *rc, struct ressd_move *mv, u32 n,
			    struct page **logp, struct page **unit, u64 lo, u32 len,
			    bool whole)
{
	struct ressd_mover_wait w;
	u32 i, off, cnt, moved = 0, bios = 0;
	struct bio *bio;
	int r;

	spin_lock_irq(&rc->lock);
	__ressd_mover_hold(rc, lo, lo + len, true);
	spin_unlock_irq(&rc->lock);
	ressd_mover_wait_home(rc);
	/* A move superseded by now is written with its home data. */
	spin_lock_irq(&rc->lock);
	__ressd_mover_check(rc, mv, n);
	spin_unlock_irq(&rc->lock);

	ressd_mover_wait_init(&w);
	for (off = 0; off < len; off += cnt) {
		cnt = min_t(u32, len - off, BIO_MAX_VECS);
		bio = ressd_mover_home_bio(rc, REQ_OP_READ, lo + off, unit + off, cnt);
		ressd_mover_submit(&w, bio);
	}
	r = ressd_mover_wait_all(&w);
	if (r) {
		DMWARN_LIMIT("filling blocks %llu-%llu: reading home failed (%d), written sparse",
			     lo, lo + len - 1, r);
		r = ressd_mover_write_runs(rc, mv, logp, n, &moved, &bios);
		if (!r)
			atomic64_inc(&rc->units_sparse);
		goto out;
	}
	atomic64_add((u64)len * RESSD_BLOCK_SIZE, &rc->fill_read_bytes);

	/* The moves still valid take the place of their blocks' home data. */
	for (i = 0; i < n; i++) {
		if (!mv[i].skip) {
			swap(unit[mv[i].block - lo], logp[i]);
			moved++;
		}
	}
	/* In order, each piece after the one before: the device sees appends. */
	for (off = 0; off < len && !r; off += cnt) {
		cnt = min_t(u32, len - off, BIO_MAX_VECS);
		ressd_mover_wait_init(&w);
		bio = ressd_mover_home_bio(rc, REQ_OP_WRITE, lo + off, unit + off, cnt);
		ressd_mover_submit(&w, bio);
		atomic64_add((u64)cnt * RESSD_BLOCK_SIZE, &rc->dev_write_bytes);
		bios++;
		r = ressd_mover_wait_all(&w);
	}
	if (!r)
		atomic64_inc(whole ? &rc->units_whole : &rc->units_prefix);
out:
	ressd_mover_unhold(rc);
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
 * The mover's marks, in slots: it starts at @high, high_watermark or where
 * the log may first refuse a small write when that is lower (a small log);
 * a round goes down to @low, low_watermark, below @high whatever the
 * tunables (else a round with nothing to move would start again at once).
 * (rc->lock held)
 */
static void __ressd_mover_marks(struct ressd_c *rc, u32 *high, u32 *low)
{
	*high = DIV_ROUND_UP_ULL((u64)rc->lg.nr_slots * rc->tunables.high_watermark, 100);
	*high = min(*high, __ressd_log_full_at(rc));
	*low = div_u64((u64)rc->lg.nr_slots * rc->tunables.low_watermark, 100);
	*low = min(*low, *high - 1);
}

/*
 * Between two batches: when the target's users issued I/O during the last
 * batch, pause as long as that batch took (at most RESSD_MOVER_YIELD_MS), so
 * that the mover takes at most about half of the device while they are
 * busy; no pause when they are idle, during a drain, or when the log is
 * nearly full or may refuse small writes (pausing then would only send
 * them home directly).
 */
#define RESSD_MOVER_YIELD_MS	20
#define RESSD_MOVER_NO_YIELD_PCT	90

static void ressd_mover_yield(struct ressd_c *rc, u64 *fg, s64 batch_us)
{
	u64 now = ressd_foreground_ios(rc);
	bool busy = now != *fg;
	u32 used;
	u64 pct;

	*fg = now;
	spin_lock_irq(&rc->lock);
	used = ressd_log_used(rc);
	pct = div_u64((u64)used * 100, rc->lg.nr_slots);
	busy = busy && !rc->mover.draining && pct < RESSD_MOVER_NO_YIELD_PCT &&
	       used < __ressd_log_full_at(rc);
	spin_unlock_irq(&rc->lock);
	if (!busy || batch_us <= 0)
		return;
	batch_us = min_t(s64, batch_us, RESSD_MOVER_YIELD_MS * USEC_PER_MSEC);
	atomic64_inc(&rc->mover_yields);
	usleep_range(batch_us, batch_us + batch_us / 4 + 50);
	*fg = ressd_foreground_ios(rc);
}

/*
 * One round, from the tail: what its steps share.  The buffers are
 * allocated for the round under memalloc_noio_save() (ressd_mover_thread),
 * so that reclaim never waits on I/O that waits on the mover.
 */
/* The end of a part of the round's region: where the log's tail goes. */
struct ressd_round_cut {
	u32 slot;		/* the first slot after the part */
	u64 seq;		/* the record that starts there */
	u64 epoch;		/* the chain's epoch there */
	u32 region;		/* slots from the round's tail to there */
};

struct ressd_round {
	/* the log's tail when the round began */
	u32 tail_slot;
	u64 tail_seq;
	/* the parts of the region, released one after the other */
	struct ressd_round_cut cut[RESSD_ROUND_PARTS];
	u32 nr_cuts;
	u32 fwd_next;		/* the first copy forward of the next part */
	bool fwd_first;		/* copies before the home writes, one part */
	/* the region planned: [tail_slot, end_slot), records tail_seq..end_seq - 1 */
	u32 end_slot;
	u64 end_seq;
	u64 chain_epoch;	/* the chain's epoch at end_seq */
	u64 max_epoch;		/* no record is newer */
	u32 region;		/* slots in the region */
	u32 want;		/* slots to move at the most */
	u32 batch;		/* blocks a batch */
	u32 n;			/* live blocks planned */
	struct ressd_move *mv;	/* want + RESSD_REC_MAX_ITEMS + far_cap */
	struct page **pages;	/* batch pages */
	struct page *trailer;	/* a trailer read back */
	struct ressd_readahead *ra;
	/* pricing erase units (step e): the model when the round began */
	struct ressd_devmodel dm;
	u32 unit_pages;		/* P; 0: units are not priced */
	/*
	 * P pages for a unit, then fill_cap (P at least) for the moves of the
	 * steps written next, units to fill and sparse batches, read from the
	 * log together: fill_lo is the move in fill[P], fill_hi the first move
	 * not read.  NULL: no fills, and each sparse batch is read on its own.
	 */
	struct page **fill;
	u32 fill_cap;
	u32 fill_lo, fill_hi;
	/*
	 * Density-first cleaning (mover_policy density): mv[0..n_home) go
	 * home, sorted by block, the dense units' blocks from beyond the
	 * region (far) among them; fwd[0..n_fwd) are copied forward.
	 */
	bool density;
	bool drain;		/* a "drain" message's round: everything home */
	u32 n_home;
	u32 far_cap;		/* far moves a round takes at most */
	u32 n_far;
	struct ressd_move *fwd;
	u32 n_fwd;
	struct ressd_unit_tally *tally;
	u64 *unwritten;		/* RESSD_UNWRITTEN_MAX blocks */
	u64 *blocks;		/* a forward batch's blocks */
	u64 *sorted;		/* a step's blocks, sorted */
	unsigned long *pend;	/* of those, the ones an unwritten record holds */
	struct ressd_log_reader rd;
};

static void ressd_round_free_fill(struct ressd_round *r)
{
	u32 i;

	if (!r->fill)
		return;
	for (i = 0; i < r->unit_pages + r->fill_cap; i++)
		if (r->fill[i])
			__free_page(r->fill[i]);
	kvfree(r->fill);
	r->fill = NULL;
	r->fill_cap = 0;
}

/*
 * The pages of unit fills and of the read ahead, when the model prices
 * units of at most RESSD_FILL_MAX_PAGES: P for a unit, and for the moves of
 * the steps written next half as many as the log has slots, up to
 * RESSD_FILL_READ_PAGES and to the moves the round may take, P at least.
 * A drain's round may take as many as the log has slots, up to
 * RESSD_FILL_DRAIN_PAGES and a 32nd of the memory (RESSD_FILL_READ_PAGES
 * at least): its moves lie all over the log, and each pass of the read
 * ahead reads it through from end to end (a 32 MiB log drained with 6000
 * live blocks: two passes of 4096 pages read 16000 pages, one reads 8000).
 * Without P + P of them units go sparse, and each batch is read on its
 * own.  The pages go back when the home writes are done.  A drain at
 * suspend (held writes) keeps the smaller pool.
 */
static void ressd_round_fill_pages(struct ressd_c *rc, struct ressd_round *r)
{
	u32 P = r->unit_pages, want, i;

	if (!P || P > RESSD_FILL_MAX_PAGES)
		return;
	if (r->drain)
		want = min_t(unsigned long, min_t(u32, rc->lg.nr_slots, RESSD_FILL_DRAIN_PAGES),
			     max_t(unsigned long, RESSD_FILL_READ_PAGES, totalram_pages() / 32));
	else
		want = min_t(u32, rc->lg.nr_slots / 2, RESSD_FILL_READ_PAGES);
	want = max(P, min(want, r->want + RESSD_REC_MAX_ITEMS + r->far_cap));
	r->fill = kvcalloc(P + want, sizeof(*r->fill), GFP_KERNEL);
	if (!r->fill)
		return;
	for (i = 0; i < P + want; i++) {
		/* Past P + P pages, only what comes easily. */
		r->fill[i] = alloc_page(i < 2 * P ? GFP_KERNEL :
					GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
		if (!r->fill[i])
			break;
	}
	r->fill_cap = i - min(i, P);
	if (r->fill_cap < P)
		ressd_round_free_fill(r);	/* sparse writes do without */
}

/* How much to move, and the buffers for it; 0 with r->want 0: nothing. */
static int ressd_round_init(struct ressd_c *rc, struct ressd_round *r)
{
	struct ressd_log_region reg;
	u32 i;

	memset(r, 0, sizeof(*r));
	spin_lock_irq(&rc->lock);
	__ressd_log_region(rc, &reg);
	r->want = reg.written;	/* written records only */
	r->batch = ressd_block_of(rc->tunables.mover_batch);
	r->dm = rc->tunables.dev_model;
	r->drain = rc->mover.draining && !rc->suspending;
	if (!r->drain && !__ressd_mover_needed(rc)) {
		u32 high, low;

		__ressd_mover_marks(rc, &high, &low);
		r->want = min(r->want, reg.used > low ? reg.used - low : 0);
		/*
		 * Density: one segment from the tail a round, an eighth of
		 * the log (two records at least); a drain, or room for held
		 * home writes, sends everything home as FIFO does.
		 */
		r->density = rc->tunables.mover_policy == RESSD_POLICY_DENSITY &&
			     r->dm.unit_sectors;
		if (r->density)
			r->want = min(r->want, max(rc->lg.nr_slots / 8, 2 * r->batch));
	}
	spin_unlock_irq(&rc->lock);
	r->unit_pages = ressd_cost_unit_pages(&r->dm);
	r->tail_slot = reg.tail_slot;
	r->tail_seq = reg.tail_seq;
	r->chain_epoch = reg.tail_epoch;
	r->max_epoch = reg.epoch;
	r->end_slot = reg.tail_slot;
	r->end_seq = reg.tail_seq;
	r->want = min_t(u32, r->want, RESSD_MOVER_MAX_REGION);
	if (!r->want)
		return 0;

	r->trailer = alloc_page(GFP_KERNEL);
	r->ra = ressd_ra_alloc(rc);
	/*
	 * Whole records only: the last may overshoot want by one record.  A
	 * dense unit goes home with all its logged blocks: room for as many
	 * far moves as the log has slots (capped as the region is).
	 */
	r->far_cap = r->density ? min_t(u32, rc->lg.nr_slots, RESSD_MOVER_MAX_REGION) : 0;
	r->mv = kvmalloc_array(r->want + RESSD_REC_MAX_ITEMS + r->far_cap, sizeof(*r->mv),
			       GFP_KERNEL);
	r->pages = kcalloc(r->batch, sizeof(*r->pages), GFP_KERNEL);
	if (!r->trailer || !r->ra || !r->mv || !r->pages)
		return -ENOMEM;
	if (r->density) {
		r->fwd = kvmalloc_array(r->want + RESSD_REC_MAX_ITEMS, sizeof(*r->fwd),
					GFP_KERNEL);
		r->tally = kvmalloc_array(r->want + RESSD_REC_MAX_ITEMS, sizeof(*r->tally),
					  GFP_KERNEL);
		r->unwritten = kvmalloc_array(RESSD_UNWRITTEN_MAX, sizeof(u64), GFP_KERNEL);
		r->blocks = kmalloc_array(r->batch, sizeof(u64), GFP_KERNEL);
		r->sorted = kmalloc_array(max_t(u32, r->batch, RESSD_DROP_STEP), sizeof(u64),
					  GFP_KERNEL);
		r->pend = bitmap_zalloc(max_t(u32, r->batch, RESSD_DROP_STEP), GFP_KERNEL);
		if (!r->fwd || !r->tally || !r->unwritten || !r->blocks || !r->sorted ||
		    !r->pend)
			return -ENOMEM;
	}
	for (i = 0; i < r->batch; i++) {
		r->pages[i] = alloc_page(GFP_KERNEL);
		if (!r->pages[i])
			return -ENOMEM;
	}
	ressd_round_fill_pages(rc, r);
	/*
	 * Reads in slot order, neighbouring slots in one bio (in block order
	 * they seldom are neighbours), and with a model gaps read through.
	 */
	r->rd.gap = ressd_devmodel_set(&r->dm) ? ressd_read_gap(&r->dm) : 0;
	r->rd.scratch = alloc_page(GFP_KERNEL);
	r->rd.ref = kvmalloc_array(max3(r->batch, r->unit_pages, r->fill_cap),
				   sizeof(*r->rd.ref), GFP_KERNEL);
	r->rd.sorted = r->rd.scratch && r->rd.ref;
	return 0;
}

static void ressd_round_exit(struct ressd_round *r)
{
	u32 i;

	ressd_round_free_fill(r);
	if (r->pages)
		for (i = 0; i < r->batch; i++)
			if (r->pages[i])
				__free_page(r->pages[i]);
	kfree(r->pages);
	kvfree(r->mv);
	kvfree(r->fwd);
	kvfree(r->tally);
	kvfree(r->unwritten);
	kfree(r->blocks);
	kfree(r->sorted);
	bitmap_free(r->pend);
	kvfree(r->rd.ref);
	if (r->rd.scratch)
		__free_page(r->rd.scratch);
	if (r->trailer)
		__free_page(r->trailer);
	ressd_ra_free(r->ra);
}

/*
 * The trailer of the record r->end_seq, which starts at r->end_slot: read
 * where the writer's map says it is, else looked for slot by slot as replay
 * does.  The chain's epochs are checked as replay checks them: a stale
 * trailer (of a record cut off by an earlier crash) is never taken.
 */
static int ressd_round_trailer(struct ressd_c *rc, struct ressd_round *r,
			       struct ressd_trailer *rec)
{
	u32 t = ressd_log_trailer_at(rc, r->end_slot), next;
	void *buf = page_address(r->trailer);
	const char *why;
	bool broken;
	int err;

	if (t != RESSD_NO_SLOT) {
		/*
		 * Small records (a flush each): the read-ahead window holds
		 * the next trailers too.  A full record's: that slot alone.
		 */
		next = ressd_log_trailer_at(rc, t + 1);
		if (next != RESSD_NO_SLOT && next - t < RESSD_RA_SLOTS)
			err = ressd_ra_read(r->ra, t, buf);
		else
			err = ressd_ra_read_one(r->ra, t, buf);
		if (err)
			return err;
		if (!ressd_rec_check(buf, &rc->lg, t, r->end_slot, r->end_seq,
				     r->chain_epoch, r->max_epoch, rec))
			return 0;
	}
	err = ressd_rec_find(ressd_ra_read, r->ra, &rc->lg, r->end_slot, r->end_seq,
			     r->chain_epoch, r->max_epoch, buf, rec, &why);
	if (err < 0)
		return err;
	if (err) {
		DMERR("record %llu at slot %u: %s (tail %u/%llu, used %u)",
		      r->end_seq, r->end_slot, why, r->tail_slot, r->tail_seq,
		      ressd_log_used(rc));
		return -EIO;
	}
	/*
	 * The map missed a record the log holds: the writer's bug, unless the
	 * record's write failed after its trailer was on the medium (the log
	 * is broken then, and nothing is indexed from it).
	 */
	spin_lock_irq(&rc->lock);
	broken = rc->log.broken;
	spin_unlock_irq(&rc->lock);
	WARN_ONCE(!broken, "dm-ressd: no trailer mark for record %llu at slot %u (mark %u, found %u)",
		  r->end_seq, r->end_slot, t, rec->slot);
	return 0;
}

/* The region is one part: the last cut. */
static void ressd_round_one_part(struct ressd_round *r)
{
	r->cut[0] = r->cut[r->nr_cuts - 1];
	r->nr_cuts = 1;
}

/* The region planned so far ends a part. */
static void ressd_round_cut_here(struct ressd_round *r)
{
	struct ressd_round_cut *c = &r->cut[r->nr_cuts++];

	c->slot = r->end_slot;
	c->seq = r->end_seq;
	c->epoch = r->chain_epoch;
	c->region = r->region;
}

/*
 * 1. Plan: the oldest records, their live blocks, in block order.  A
 * density round's region is cut into parts at record boundaries, about
 * want / RESSD_ROUND_PARTS slots each; any other round is one part.
 */
static int ressd_round_plan(struct ressd_c *rc, struct ressd_round *r)
{
	u64 part = r->density ? DIV_ROUND_UP(r->want, RESSD_ROUND_PARTS) : U64_MAX;
	struct ressd_trailer rec;
	int err;
	u32 i;

	while (r->region < r->want) {
		err = ressd_round_trailer(rc, r, &rec);
		if (err)
			return err;
		if (r->region && r->region + 1 + rec.nr_data > r->want)
			break;
		spin_lock_irq(&rc->index.lock);
		for (i = 0; i < rec.nr_data; i++) {
			struct ressd_move *mv = &r->mv[r->n];
			u32 s = r->end_slot + i;

			if (__ressd_index_slot_block(&rc->index, s, &mv->block)) {
				mv->slot = s;
				mv->skip = false;
				mv->superseded = false;
				mv->far = false;
				/* The region's bits change only when it is released. */
				mv->copied = data_race(test_bit(s, rc->log.copied));
				r->n++;
			}
		}
		spin_unlock_irq(&rc->index.lock);
		r->region += 1 + rec.nr_data;
		r->end_slot = ressd_rec_next_slot(&rc->lg, rec.slot);
		r->end_seq++;
		r->chain_epoch = rec.epoch;
		if (r->nr_cuts < RESSD_ROUND_PARTS - 1 && r->region < r->want &&
		    r->region >= part * (r->nr_cuts + 1))
			ressd_round_cut_here(r);
	}
	if (!r->nr_cuts || r->cut[r->nr_cuts - 1].region != r->region)
		ressd_round_cut_here(r);
	sort(r->mv, r->n, sizeof(*r->mv), ressd_move_cmp, NULL);
	r->n_home = r->n;
	return 0;
}

/* How far @slot lies from the round's tail, in log order. */
static u32 ressd_round_dist(struct ressd_c *rc, const struct ressd_round *r, u32 slot)
{
	return slot >= r->tail_slot ? slot - r->tail_slot
				    : slot + rc->lg.nr_slots - r->tail_slot;
}

/* Is @slot in the round's region (from the tail, r->region slots)? */
static bool ressd_round_in_region(struct ressd_c *rc, struct ressd_round *r, u32 slot)
{
	return ressd_round_dist(rc, r, slot) < r->region;
}

/* Is @slot in the part [@lo, @hi) of the region (slots from the tail)? */
static bool ressd_round_in_part(struct ressd_c *rc, const struct ressd_round *r, u32 slot,
				u32 lo, u32 hi)
{
	u32 d = ressd_round_dist(rc, r, slot);

	return d >= lo && d < hi;
}

/* The first copy forward from fwd[@i] on that lies @hi slots from the tail or beyond. */
static u32 ressd_round_fwd_end(struct ressd_c *rc, const struct ressd_round *r, u32 i, u32 hi)
{
	while (i < r->n_fwd && ressd_round_dist(rc, r, r->fwd[i].slot) < hi)
		i++;
	return i;
}

/*
 * The blocks of [@lo, @hi) the index maps: how many.  With @far, those
 * whose slots lie beyond the region are added after the region's moves as
 * far moves, up to r->far_cap of them.  The index lock is held for at most
 * RESSD_SCAN_STEP runs of mapped or unmapped blocks at a time: the counts
 * are a heuristic, and far moves are checked again before they are used.
 */
static u32 ressd_round_unit_scan(struct ressd_c *rc, struct ressd_round *r, u64 lo, u64 hi,
				 bool far)
{
	struct ressd_map m;
	u32 dirty = 0, i, runs = 0;
	u64 b = lo;

	spin_lock_irq(&rc->index.lock);
	while (b < hi) {
		/* A large unit's walk lets readers in now and then. */
		if (++runs % RESSD_SCAN_STEP == 0) {
			spin_unlock_irq(&rc->index.lock);
			cond_resched();
			spin_lock_irq(&rc->index.lock);
		}
		__ressd_index_lookup(&rc->index, b, (u32)min_t(u64, hi - b, U32_MAX), &m);
		if (m.mapped)
			dirty += m.len;
		for (i = 0; m.mapped && far && i < m.len && r->n_far < r->far_cap; i++) {
			struct ressd_move *mv = &r->mv[r->n + r->n_far];

			if (ressd_round_in_region(rc, r, m.slot + i))
				continue;
			mv->block = b + i;
			mv->slot = m.slot + i;
			mv->skip = false;
			mv->superseded = false;
			mv->far = true;
			mv->copied = false;
			r->n_far++;
		}
		b += m.len;
	}
	spin_unlock_irq(&rc->index.lock);
	return dirty;
}

static int ressd_move_slot_cmp(const void *a, const void *b)
{
	const struct ressd_move *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/*
 * Copies forward a record takes (ressd_round_forward()): a record's worth,
 * and at most a bio's pages (the carrier has one per block).
 */
static u32 ressd_round_fwd_chunk(const struct ressd_round *r)
{
	return min_t(u32, min_t(u32, r->batch - 1, RESSD_REC_MAX_ITEMS), BIO_MAX_VECS);
}

/* Reverse @n moves in place. */
static void ressd_moves_reverse(struct ressd_move *mv, u32 n)
{
	u32 i;

	for (i = 0; i < n / 2; i++)
		swap(mv[i], mv[n - 1 - i]);
}

/*
 * The copies forward in log order from the round's tail: sorted by slot,
 * then those before the tail (the region wraps there) moved after the
 * others.
 */
static void ressd_round_sort_fwd(struct ressd_round *r)
{
	u32 j;

	sort(r->fwd, r->n_fwd, sizeof(*r->fwd), ressd_move_slot_cmp, NULL);
	for (j = 0; j < r->n_fwd && r->fwd[j].slot < r->tail_slot; j++)
		;
	if (!j || j == r->n_fwd)
		return;
	ressd_moves_reverse(r->fwd, j);
	ressd_moves_reverse(r->fwd + j, r->n_fwd - j);
	ressd_moves_reverse(r->fwd, r->n_fwd);
}

/*
 * 1b. Decide (mover_policy density; Documentation/mover-pricing.md, step
 * c): count each unit the region touches in the whole log, send the
 * densest ones home with all their logged blocks, wherever they sit (far
 * moves), and copy the region's blocks of the others forward.  As much is
 * copied as the round may copy (ressd_density_decide()): at most three
 * quarters of the region, so that each round frees room, and, as the
 * region is released a part at a time after the part's copies
 * (ressd_round_part()), about half the room small writes have, trailers
 * included, a part (the room kept for a part is at most that:
 * ressd_log_keep()).  A region of which an eighth or more are copies of
 * this activation already copies as rounds did before parts: at most half
 * the region and half the room, before the home writes, in one part (in a
 * log much smaller than what is written, blocks copied round after round
 * cost more than the merges they save).  A unit half full of logged blocks
 * goes home whatever the budget.
 */
static void ressd_round_decide(struct ressd_c *rc, struct ressd_round *r)
{
	u64 origin_blocks = rc->lg.origin_blocks, P = r->unit_pages;
	u32 i, j, k, nt = 0, nh = 0, d, used, limit, half_room, max_fwd, per, fwd, before;

	if (!r->density)
		WRITE_ONCE(rc->mover.density_d, 0);	/* (status) */
	if (!r->density || !r->n)
		return;
	for (i = 0; i < r->n; i = j) {
		s64 lo;
		u64 hi;

		ressd_unit_of(&r->dm, rc->geo.origin_offset, r->mv[i].block, &lo);
		hi = (u64)(lo + (s64)P);
		for (j = i + 1; j < r->n && r->mv[j].block < hi; j++)
			;
		r->tally[nt].first = i;
		r->tally[nt].nr = j - i;
		r->tally[nt].dirty = ressd_round_unit_scan(rc, r, lo > 0 ? lo : 0,
							   min(hi, origin_blocks), false);
		nt++;
	}
	/* Copies take a trailer per record's data too. */
	used = ressd_log_used(rc);
	limit = rc->lg.nr_slots - RESSD_INVAL_RESERVE;
	half_room = used < limit ? (limit - used) / 2 : 0;
	for (i = 0, k = 0; i < r->n; i++)
		k += r->mv[i].copied;
	if ((u64)k * 8 < r->n) {
		max_fwd = min_t(u64, r->region - r->region / 4, (u64)half_room * r->nr_cuts);
	} else {
		max_fwd = min(r->region / 2, half_room);
		ressd_round_one_part(r);
		r->fwd_first = true;
	}
	per = ressd_round_fwd_chunk(r);
	max_fwd = div_u64((u64)max_fwd * per, per + 1);
	fwd = ressd_density_decide(r->tally, nt, max_fwd, &d);
	WRITE_ONCE(rc->mover.density_d, d);	/* (status) */
	/*
	 * A unit half full of logged blocks or more goes home whatever the
	 * budget: it gains little more by waiting, and its copies would cost
	 * as much as filling its gaps.
	 */
	for (k = 0; k < nt; k++) {
		if (!r->tally[k].home && (u64)r->tally[k].dirty * 2 >= P) {
			r->tally[k].home = true;
			fwd -= r->tally[k].nr;
		}
	}

	/*
	 * The dense units' blocks beyond the region, after the region's moves.
	 * A unit goes home once with all its logged blocks: one whose blocks
	 * do not fit among the far moves (more than the log's slots, or
	 * written since the count) is copied forward if the round may copy
	 * that much more, else it goes home with the region's blocks alone.
	 */
	for (k = 0; k < nt; k++) {
		s64 lo;

		if (!r->tally[k].home)
			continue;
		before = r->n_far;
		if (r->tally[k].dirty <= r->tally[k].nr ||
		    r->n_far + r->tally[k].dirty - r->tally[k].nr <= r->far_cap) {
			ressd_unit_of(&r->dm, rc->geo.origin_offset,
				      r->mv[r->tally[k].first].block, &lo);
			ressd_round_unit_scan(rc, r, lo > 0 ? lo : 0,
					      min((u64)(lo + (s64)P), origin_blocks), true);
			if (r->n_far < r->far_cap)
				continue;
			r->n_far = before;	/* cut short: none of them */
		}
		if (fwd + r->tally[k].nr <= max_fwd) {
			r->tally[k].home = false;
			fwd += r->tally[k].nr;
		}
	}
	/* Home: the dense units' region moves, then the far ones; the rest forward. */
	for (k = 0; k < nt; k++) {
		for (i = r->tally[k].first; i < r->tally[k].first + r->tally[k].nr; i++) {
			if (r->tally[k].home)
				r->mv[nh++] = r->mv[i];
			else
				r->fwd[r->n_fwd++] = r->mv[i];
		}
	}
	memmove(&r->mv[nh], &r->mv[r->n], r->n_far * sizeof(*r->mv));
	nh += r->n_far;
	sort(r->mv, nh, sizeof(*r->mv), ressd_move_cmp, NULL);
	/*
	 * A block rewritten since the plan may be both a region move (its old
	 * slot, dead now) and a far one: keep the far one.
	 */
	for (i = 0, j = 0; i < nh; i++) {
		if (j && r->mv[j - 1].block == r->mv[i].block) {
			if (r->mv[i].far)
				r->mv[j - 1] = r->mv[i];
			continue;
		}
		r->mv[j++] = r->mv[i];
	}
	r->n_home = j;
	ressd_round_sort_fwd(r);
}

static void ressd_mover_copy_endio(struct bio *bio)
{
	complete(bio->bi_private);
}

static int ressd_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Which of @blocks[0..@n) (sorted, each once) have an entry in a record not
 * yet written whole: bit i of r->pend for @blocks[i].  The batch is sorted
 * by the caller, outside the lock; here each unwritten entry is looked up
 * in it (rc->lock held).
 */
static void __ressd_round_pending(struct ressd_c *rc, struct ressd_round *r,
				  const u64 *blocks, u32 n)
{
	u32 nu = __ressd_log_unwritten(rc, r->unwritten), i;
	const u64 *hit;

	bitmap_zero(r->pend, n);
	if (nu == U32_MAX) {
		bitmap_fill(r->pend, n);
		return;
	}
	for (i = 0; i < nu; i++) {
		hit = bsearch(&r->unwritten[i], blocks, n, sizeof(u64), ressd_u64_cmp);
		if (hit)
			__set_bit(hit - blocks, r->pend);
	}
}

/*
 * Copy @n moves (sorted by slot, at most a record's data) forward to the
 * log's head: read them from the log; then, under rc->lock, keep those that
 * a batch home would keep (__ressd_mover_check()) and that no unwritten
 * record holds an entry for, and append them as entries of the open record
 * (__ressd_log_reserve_copies(), which says why that is safe), sealed at
 * once; wait until they are written.  Nothing was copied on -ENOSPC (no
 * room) or -EAGAIN (no record buffer free).
 */
static int ressd_mover_forward(struct ressd_c *rc, struct ressd_round *r,
			       struct ressd_move *mv, u32 n)
{
	DECLARE_COMPLETION_ONSTACK(done);
	u32 i, nv = 0, slot;
	struct bio *carrier;
	int err;

	err = ressd_mover_read_log(rc, &r->rd, mv, r->pages, n);
	if (err)
		return err;
	carrier = bio_alloc_bioset(rc->log_dev->bdev, n, REQ_OP_WRITE, GFP_NOIO, &rc->bs);
	carrier->bi_end_io = ressd_mover_copy_endio;
	carrier->bi_private = &done;
	for (i = 0; i < n; i++)
		r->sorted[i] = mv[i].block;
	sort(r->sorted, n, sizeof(u64), ressd_u64_cmp, NULL);

	spin_lock_irq(&rc->lock);
	__ressd_mover_check(rc, mv, n);
	__ressd_round_pending(rc, r, r->sorted, n);
	for (i = 0; i < n; i++) {
		const u64 *at = bsearch(&mv[i].block, r->sorted, n, sizeof(u64), ressd_u64_cmp);

		if (mv[i].skip)
			continue;
		if (test_bit(at - r->sorted, r->pend)) {
			/* A newer write waits in a record: the slot dies when it lands. */
			mv[i].skip = true;
			continue;
		}
		r->blocks[nv++] = mv[i].block;
		__bio_add_page(carrier, r->pages[i], RESSD_BLOCK_SIZE, 0);
	}
	slot = nv ? __ressd_log_reserve_copies(rc, carrier, r->blocks, nv) : RESSD_NO_SLOT;
	if (slot < RESSD_DEFER_SLOT)
		__ressd_log_seal(rc, 0);
	spin_unlock_irq(&rc->lock);

	if (slot >= RESSD_DEFER_SLOT) {
		bio_put(carrier);
		if (!nv)
			return 0;
		return slot == RESSD_DEFER_SLOT ? -EAGAIN : -ENOSPC;
	}
	wait_for_completion(&done);
	err = blk_status_to_errno(carrier->bi_status);
	bio_put(carrier);
	if (!err)
		atomic64_add(nv, &rc->copy_forwards);
	return err;
}

/*
 * May the far move mv[@i], written home, leave the index?  It must still
 * map its block to its slot, with no home write and no unwritten entry of
 * the block waiting (bit @i - @first of r->pend) (rc->lock held).
 */
static bool __ressd_round_droppable(struct ressd_c *rc, struct ressd_round *r, u32 i,
				    u32 first)
{
	const struct ressd_move *mv = &r->mv[i];
	bool ok;
	u64 b;

	if (!mv->far || mv->skip || test_bit(i - first, r->pend))
		return false;
	spin_lock(&rc->index.lock);
	ok = __ressd_index_slot_block(&rc->index, mv->slot, &b) && b == mv->block;
	spin_unlock(&rc->index.lock);
	return ok && !__ressd_log_pending(rc, mv->block);
}

/*
 * The far moves written home stay in the log, beyond the region: unmap
 * them now, each run of neighbours with one invalidation, so that no later
 * round moves them again.  Done before the origin flush of step 3, which
 * the record that carries the invalidations waits for
 * (ressd_rec_origin_durable()): replay never drops a block whose home copy
 * may be lost.  Later writes of such a block are newer than the
 * invalidation in log order (it is in the open record); a FUA write home
 * waits for it to be durable, as for any invalidation.  When the
 * invalidations fill every record buffer, the log writes them first
 * (ressd_log_sync(); each flushes the origin before it is written) and the
 * walk goes on; far moves held back because their entries are in a
 * record not yet written are taken in a second pass once the log has
 * written it.  One left mapped (no room, or a newer write waiting) is moved
 * again later.
 */
static u64 ressd_round_drop_pass(struct ressd_c *rc, struct ressd_round *r, u32 *held)
{
	u64 dropped = 0, synced = U64_MAX;
	u32 first, end, i, len;
	bool full = false;

	*held = 0;
	for (first = 0; first < r->n_home; first = end) {
		end = min(first + RESSD_DROP_STEP, r->n_home);
		/* Sorted by block, each once (ressd_round_decide()). */
		for (i = first; i < end; i++)
			r->sorted[i - first] = r->mv[i].block;
		spin_lock_irq(&rc->lock);
		__ressd_round_pending(rc, r, r->sorted, end - first);
		for (i = first; i < end; i += len) {
			len = 1;
			if (!__ressd_round_droppable(rc, r, i, first)) {
				*held += r->mv[i].far && !r->mv[i].skip &&
					 test_bit(i - first, r->pend);
				continue;
			}
			while (i + len < end && r->mv[i + len].block == r->mv[i].block + len &&
			       __ressd_round_droppable(rc, r, i + len, first))
				len++;
			/*
			 * Half the slots kept for home writes' invalidations
			 * may carry these too, the other half stays theirs: on
			 * a log that small writes keep full, far blocks left
			 * mapped were each moved again by a later round, whose
			 * region they filled, and the mover fell ever further
			 * behind (on sd-card's model a third of the small
			 * writes went home).  This round's release then makes
			 * room without taking any.
			 */
			if (!__ressd_log_room(rc, 1 + RESSD_INVAL_RESERVE / 2, true)) {
				full = true;
				break;
			}
			if (!__ressd_log_invalidate(rc, r->mv[i].block, len))
				break;
			dropped += len;
		}
		spin_unlock_irq(&rc->lock);
		if (full)
			break;
		if (i < end) {
			/*
			 * No record buffer free (the invalidations filled them)
			 * or no room: let the log write what it holds, and take
			 * this step again from the run that did not fit; give
			 * up when a sync made no room for a single one.
			 */
			if (dropped == synced || ressd_log_sync(rc))
				break;
			synced = dropped;
			end = i;
		}
	}
	return dropped;
}

static void ressd_round_drop_far(struct ressd_c *rc, struct ressd_round *r)
{
	u64 dropped, far = 0;
	u32 k, held;

	for (k = 0; k < r->n_home; k++)
		far += r->mv[k].far && !r->mv[k].skip;
	atomic64_add(far, &rc->far_moves);
	dropped = ressd_round_drop_pass(rc, r, &held);
	/*
	 * Far moves whose entries sit in the open record (written, its
	 * trailer not yet): once it is written they may go too.
	 */
	if (held && !ressd_log_sync(rc))
		dropped += ressd_round_drop_pass(rc, r, &held);
	atomic64_add(dropped, &rc->far_dropped);
}

/*
 * 3a. Copy forward (density) the copies of the part that ends @hi slots
 * from the round's tail, a record's chunk at a time; home if no room.
 * When every record buffer is taken (small writes' records waiting to be
 * written), the log writes what it holds first, up to
 * RESSD_FWD_TRIES times: sent home, each copy would cost the device a
 * merge of its sparse unit.
 */
static int ressd_round_forward(struct ressd_c *rc, struct ressd_round *r, u32 hi)
{
	u32 i, end, cnt, tries, max = ressd_round_fwd_chunk(r);
	u64 fg = ressd_foreground_ios(rc);
	int err;

	end = ressd_round_fwd_end(rc, r, r->fwd_next, hi);
	for (i = r->fwd_next; i < end; i += cnt) {
		ktime_t t0 = ktime_get();

		cnt = min(max, end - i);
		err = ressd_mover_forward(rc, r, r->fwd + i, cnt);
		for (tries = 0; err == -EAGAIN && tries < RESSD_FWD_TRIES; tries++) {
			err = ressd_log_sync(rc);
			if (!err)
				err = ressd_mover_forward(rc, r, r->fwd + i, cnt);
		}
		if (err == -ENOSPC || err == -EAGAIN) {
			sort(r->fwd + i, cnt, sizeof(*r->fwd), ressd_move_cmp, NULL);
			err = ressd_mover_batch(rc, &r->rd, r->fwd + i, r->pages, cnt);
		}
		if (err)
			return err;
		ressd_mover_yield(rc, &fg, ktime_us_delta(ktime_get(), t0));
	}
	r->fwd_next = end;
	return 0;
}

/*
 * Read from the log the moves of the step that starts at move @i and of
 * the steps after it, units to fill and sparse batches alike, as many as
 * r->fill_cap pages hold, all in one pass in slot order (gaps read
 * through): the blocks of a unit, or of a batch of units, lie all over the
 * log, and read step by step each would be a request of its own (a sparse
 * batch of mover_batch blocks among the thousands of slots of a round reads
 * nearly one request a block).  A move read early is checked again when
 * its step is written (ressd_mover_batch_home(), ressd_mover_fill()).
 */
static int ressd_round_fill_read(struct ressd_c *rc, struct ressd_round *r,
				 const struct ressd_step_geo *g, u32 i)
{
	struct ressd_step st;
	u32 end = i;

	while (end < r->n_home) {
		ressd_plan_step(&r->dm, g, r->mv, r->n_home, end, &st);
		if (end - i + st.n > r->fill_cap)
			break;
		end += st.n;
	}
	r->fill_lo = i;
	r->fill_hi = end;
	return ressd_mover_read_log(rc, &r->rd, r->mv + i, r->fill + r->unit_pages, end - i);
}

/*
 * 2. Issue the home writes, one step at a time, yielding to foreground
 * I/O.  Without a device model that has a unit size every step is a batch
 * of sparse writes; with one, each erase unit is priced on its own.  The
 * copies forward come after, a part at a time (ressd_round_part()).
 */
static int ressd_round_issue(struct ressd_c *rc, struct ressd_round *r)
{
	struct ressd_step_geo g = {
		.origin_offset = rc->geo.origin_offset,
		.origin_blocks = rc->lg.origin_blocks,
		.batch = r->batch,
		.fill_ok = !!r->fill,
	};
	u64 fg = ressd_foreground_ios(rc);
	struct ressd_step st;
	u32 i;
	int err;

	for (i = 0; i < r->n_home; i += st.n) {
		ktime_t t0 = ktime_get();
		struct page **ahead;

		ressd_plan_step(&r->dm, &g, r->mv, r->n_home, i, &st);
		atomic64_add(st.sparse_units, &rc->units_sparse);
		if (r->fill && i + st.n > r->fill_hi) {
			err = ressd_round_fill_read(rc, r, &g, i);
			if (err)
				return err;
			/* The read ahead is many steps' worth: a pause of its own. */
			ressd_mover_yield(rc, &fg, ktime_us_delta(ktime_get(), t0));
			t0 = ktime_get();
		}
		/* The step's moves in the read ahead: fill[P + (i - fill_lo)] on. */
		ahead = r->fill ? r->fill + r->unit_pages + (i - r->fill_lo) : NULL;
		if (st.op == RESSD_UNIT_SPARSE && i + st.n > r->fill_hi) {
			/* Larger than the pages of the read ahead (or none). */
			err = ressd_mover_batch(rc, &r->rd, r->mv + i, r->pages, st.n);
		} else if (st.op == RESSD_UNIT_SPARSE) {
			err = ressd_mover_batch_home(rc, r->mv + i, ahead, st.n);
		} else if (WARN_ON_ONCE(i < r->fill_lo || i + st.n > r->fill_hi)) {
			/* The moves read for it, or the fill would write others' pages. */
			err = -EIO;
		} else {
			err = ressd_mover_fill(rc, r->mv + i, st.n, ahead, r->fill, st.lo, st.len,
					       st.op == RESSD_UNIT_WHOLE);
		}
		if (err)
			return err;
		ressd_mover_yield(rc, &fg, ktime_us_delta(ktime_get(), t0));
	}
	return 0;
}

/* Move @i of the round: its home moves, then its copies forward. */
static const struct ressd_move *ressd_round_move(const struct ressd_round *r, u32 i)
{
	return i < r->n_home ? &r->mv[i] : &r->fwd[i - r->n_home];
}

/*
 * 3b. Everything that superseded an entry of the part [@lo, @hi) (slots
 * from the round's tail) is durable: the home writes (the origin flush)
 * and the invalidations (the log).  -EAGAIN when a block skipped for a
 * write in flight is still live.  That is checked before the flush: a
 * block unmapped by then had its home write complete before the flush was
 * issued, which makes it durable; one unmapped after the check is tried
 * again.  The moves are checked RESSD_RELEASE_STEP a hold of the index
 * lock (interrupts off), as ressd_round_release() unmaps them: a round may
 * hold over 100000.  A slot of the region once unmapped stays so (nothing
 * maps it anew).
 */
static int ressd_round_durable(struct ressd_c *rc, struct ressd_round *r, u32 lo, u32 hi)
{
	u32 n = r->n_home + r->n_fwd, i = 0, step;
	bool left = false;
	int err;

	while (i < n && !left) {
		spin_lock_irq(&rc->index.lock);
		for (step = 0; i < n && step < RESSD_RELEASE_STEP && !left; i++, step++) {
			const struct ressd_move *mv = ressd_round_move(r, i);
			u64 b;

			left = !mv->far && mv->skip && !mv->superseded &&
			       ressd_round_in_part(rc, r, mv->slot, lo, hi) &&
			       __ressd_index_slot_block(&rc->index, mv->slot, &b);
		}
		spin_unlock_irq(&rc->index.lock);
		cond_resched();
	}
	if (left)
		return -EAGAIN;
	err = ressd_origin_flush(rc);
	if (!err)
		err = ressd_log_sync(rc);
	return err;
}

/*
 * 3c. The checkpoint: the part is no longer part of the log.  It carries
 * the chain's epoch there, or the current one when the record at the new
 * tail is one of this activation (written or not yet), so that replay never
 * takes a stale record there after a crash (I2).
 */
static int ressd_round_checkpoint(struct ressd_c *rc, struct ressd_round_cut *c)
{
	spin_lock_irq(&rc->lock);
	c->epoch = __ressd_log_checkpoint_epoch(rc, c->seq, c->epoch);
	spin_unlock_irq(&rc->lock);
	return ressd_meta_write_checkpoint(rc, c->slot, c->seq, c->epoch);
}

/*
 * 3d. Unmap the part [@lo, @hi), let older log reads finish, hand its
 * slots back (I4).  A round unmaps thousands of slots: a hold of rc->lock
 * with interrupts off for all of them took about 2 ms under emulation,
 * during which map() waited.  So the slots go RESSD_RELEASE_STEP at a
 * time, map() running in between.  That is safe: a block unmapped already
 * reads home, where the round wrote it and flushed it; one not unmapped yet
 * still reads its slot, which stays as it is until ressd_log_release() has
 * waited for those reads; a write meanwhile that maps the block elsewhere
 * frees its old slot, which __ressd_index_remove_slot() then leaves alone;
 * and nothing maps a slot of the region anew (slots between tail and head
 * are never handed out).
 */
static int ressd_round_release(struct ressd_c *rc, struct ressd_round *r, u32 lo, u32 hi,
			       const struct ressd_round_cut *c)
{
	u32 n = r->n_home + r->n_fwd, i = 0, k, step, end;
	u64 b;

	while (i < n) {
		spin_lock_irq(&rc->lock);
		spin_lock(&rc->index.lock);
		for (step = 0; i < n && step < RESSD_RELEASE_STEP; i++, step++) {
			const struct ressd_move *mv = ressd_round_move(r, i);

			if (!mv->far && ressd_round_in_part(rc, r, mv->slot, lo, hi))
				__ressd_index_remove_slot(&rc->index, mv->slot);
		}
		spin_unlock(&rc->index.lock);
		spin_unlock_irq(&rc->lock);
		cond_resched();
	}
	/* I4: no slot of the part may still hold live data. */
	for (i = lo; i < hi; i += RESSD_RELEASE_STEP) {
		end = min(i + RESSD_RELEASE_STEP, hi);
		spin_lock_irq(&rc->index.lock);
		for (k = i; k < end; k++)
			if (__ressd_index_slot_block(&rc->index,
						     (r->tail_slot + k) % rc->lg.nr_slots, &b))
				break;
		spin_unlock_irq(&rc->index.lock);
		if (WARN_ON_ONCE(k < end))
			return -EIO;
		cond_resched();
	}
	ressd_log_release(rc, c->slot, c->seq, c->epoch, hi - lo);
	return 0;
}

/*
 * Keep for the copies forward of parts @k on the room the largest of them
 * takes, a trailer per record's chunk included (ressd_log_keep()).
 */
static void ressd_round_keep(struct ressd_c *rc, struct ressd_round *r, u32 k)
{
	u32 per = ressd_round_fwd_chunk(r), i = r->fwd_next, keep = 0, cnt, end;

	for (; r->density && k < r->nr_cuts; k++, i = end) {
		end = ressd_round_fwd_end(rc, r, i, r->cut[k].region);
		cnt = end - i;
		keep = max(keep, cnt + DIV_ROUND_UP(cnt, per));
	}
	ressd_log_keep(rc, keep);
}

/*
 * 3. Part @k of the region, once its home writes are done: its copies
 * forward, then durable, the checkpoint past it, and its slots back to the
 * writer.  A density round's copies take room at the head before the part
 * they come from is released: part by part, the room small writes need
 * meanwhile comes back as the round goes.
 */
static int ressd_round_part(struct ressd_c *rc, struct ressd_round *r, u32 k)
{
	u32 lo = k ? r->cut[k - 1].region : 0, hi = r->cut[k].region;
	int err = 0;

	if (r->density && !r->fwd_first) {
		err = ressd_round_forward(rc, r, hi);
		/* Its copies took their room: keep what the next parts take. */
		ressd_round_keep(rc, r, k + 1);
	}
	if (!err)
		err = ressd_round_durable(rc, r, lo, hi);
	if (!err)
		err = ressd_round_checkpoint(rc, &r->cut[k]);
	if (!err)
		err = ressd_round_release(rc, r, lo, hi, &r->cut[k]);
	/* The part's slots are room again: half of it may be kept. */
	if (!err && r->density && !r->fwd_first)
		ressd_round_keep(rc, r, k + 1);
	return err;
}

/*
 * One round.  Returns 0; -EAGAIN when a block of the region could not be
 * moved yet (a home write over it is in flight; try again soon); -ENOMEM
 * when its buffers could not be allocated (nothing done yet; try again
 * later); or an error (the target goes read-only).  An I/O that failed with
 * BLK_STS_RESOURCE comes back as -ENOMEM too: past the buffers, that is an
 * error like any other.
 */
static int ressd_mover_round(struct ressd_c *rc)
{
	struct ressd_round r;
	int err;
	u32 k;

	err = ressd_round_init(rc, &r);
	if (err) {
		ressd_round_exit(&r);
		return err;
	}
	if (r.want)
		err = ressd_round_plan(rc, &r);
	if (!err && r.want) {
		ressd_round_decide(rc, &r);
		/* Parts make room only for copies: none, no parts. */
		if (!r.n_fwd)
			ressd_round_one_part(&r);
		if (r.fwd_first)
			err = ressd_round_forward(rc, &r, r.region);
		else
			ressd_round_keep(rc, &r, 0);
	}
	if (!err && r.want)
		err = ressd_round_issue(rc, &r);
	/* Its pages are of no more use: a drain's may be many. */
	ressd_round_free_fill(&r);
	if (!err && r.want && r.density)
		ressd_round_drop_far(rc, &r);
	for (k = 0; !err && r.want && k < r.nr_cuts; k++)
		err = ressd_round_part(rc, &r, k);
	if (r.density)
		ressd_log_keep(rc, 0);
	ressd_round_exit(&r);
	return err == -ENOMEM ? -EIO : err;
}

/*
 * Should a round run now?  One round per crossing of high_watermark: it
 * moves the log down to low_watermark, and the mover then waits until the
 * log passes high_watermark again.  Large rounds are what makes the home
 * writes cheap: the more blocks one round sorts, the more of them share an
 * erase unit of the device.  @active is set at high_watermark (or where the
 * log may first refuse a small write, when that is lower: a small log) and
 * cleared by the thread after each round.
 */
static bool ressd_mover_should_run(struct ressd_c *rc, bool *active)
{
	struct ressd_log_region reg;
	u32 high, low;
	bool run;

	spin_lock_irq(&rc->lock);
	__ressd_mover_marks(rc, &high, &low);
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
	unsigned int noio, nomem = 0;
	bool active = false;
	int r;

	set_freezable();
	while (!kthread_should_stop()) {
		wait_event_freezable(rc->log.mover_wait, kthread_should_stop() ||
				     ressd_mover_should_run(rc, &active));
		if (kthread_should_stop())
			break;
		noio = memalloc_noio_save();
		r = ressd_mover_round(rc);
		memalloc_noio_restore(noio);
		wake_up_all(&rc->wait);
		/*
		 * No memory for a round's buffers: memory pressure passes,
		 * and the log keeps taking writes meanwhile (or sends them
		 * home when full).  Only a suspend that waits for writes held
		 * for room gives up after RESSD_MOVER_NOMEM_TRIES.
		 */
		if (r == -ENOMEM && (++nomem < RESSD_MOVER_NOMEM_TRIES ||
				     !READ_ONCE(rc->suspending))) {
			DMWARN_LIMIT("%s: no memory for a mover round; trying again",
				     dm_device_name(dm_table_get_md(rc->ti->table)));
			wait_event_freezable_timeout(rc->log.mover_wait, kthread_should_stop(),
						     msecs_to_jiffies(100));
			continue;
		}
		nomem = 0;
		if (r != -EAGAIN)
			active = false;
		if (r == -EAGAIN)
			wait_event_freezable_timeout(rc->log.mover_wait, kthread_should_stop(),
						     msecs_to_jiffies(10));
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
	WRITE_ONCE(rc->mover.paused, pause);	/* drain reads it without the lock */
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

bool __ressd_mover_fill_busy(struct ressd_c *rc, u64 block, u64 nr)
{
	lockdep_assert_held(&rc->lock);
	return rc->mover.fill && __ressd_mover_busy(rc, block, nr);
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
	/* A count: a drain that leaves early must not end another one's. */
	rc->mover.draining++;
	spin_unlock_irq(&rc->lock);

	r = ressd_log_sync(rc);
	ressd_mover_kick(rc);
	if (!r)
		r = wait_event_interruptible(rc->wait, !ressd_log_used(rc) ||
					     READ_ONCE(rc->mode) != RESSD_MODE_RW ||
					     READ_ONCE(rc->mover.paused) ||
					     READ_ONCE(rc->suspending));
	spin_lock_irq(&rc->lock);
	rc->mover.draining--;
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
