// SPDX-License-Identifier: GPL-2.0-only
/*
 * The on-disk side of the reserved area: its superblocks, reading the log,
 * and recovery.
 *
 * This file owns blocks 0 and 1 of the log range: the two superblock copies
 * A and B, and rc->meta.sb, the in-memory copy of the newest.  It also reads the
 * log forward with read-ahead (recovery and the mover's plan), and recovers
 * after a crash or at the first resume: load the superblock, replay the
 * chain of records into the index (dm-ressd-format.c), hand the log writer
 * the place where the next record goes, and write the checkpoint with a
 * raised epoch before any new record (I6: records of the chain a crash cut
 * are never mistaken for new ones).  The encoders and checkers it uses are
 * pure and live in dm-ressd-format.c.
 *
 * Superblock writes: each state (a checkpoint, an epoch) is written to both
 * copies, first to the one that does not hold the newest generation, then
 * to the other, each with PREFLUSH and FUA and a generation one above the
 * last; on load the valid copy with the higher generation wins.  Nothing
 * depends on a state (a region reused, records of a new epoch) before both
 * writes are done: a torn write of the first leaves the state before it,
 * which the log still matches; a torn write of the second, or a copy that
 * rots later, leaves the other copy with the same state.  (A log written
 * before this wrote each state once: when the copy that lost the load may
 * have been the newer, recovery checks the log, ressd_meta_check_newer().)
 * Writers hold rc->meta.lock.
 *
 * Format rule: a log range whose first 8 KiB (both superblock copies) are
 * all zero is formatted (a new random nonce, generation 1 in copy A and 2 in
 * copy B, an empty log).  One all-zero copy is just an invalid copy: a torn
 * or lost write of that copy may read back as zeros, and the other copy
 * still holds the volume and its acknowledged data.  A log with at least one
 * valid superblock is loaded.  Anything else is refused with a specific
 * message; the target never reformats on its own.
 *
 * A superblock is valid when, in this order, its magic, its own location,
 * its checksum (crc32c seeded with the nonce it carries), its version, its
 * incompatible feature flags, its block size, its checkpoint (tail slot,
 * sequence number and epoch in range) and its geometry (which must equal the
 * table's) check out.  Every failed check logs the value found and the
 * value expected.  Read-only compatible features this code does not know
 * leave the copy valid, but only a read-only table may load it.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd-meta"

/* Synchronous single-block I/O to the log device (may sleep). */
static int ressd_log_block_io(struct ressd_c *rc, u64 block, struct page *page,
			      blk_opf_t opf)
{
	struct bio_vec bv;
	struct bio bio;
	int r;

	bio_init(&bio, rc->log_dev->bdev, &bv, 1, opf);
	bio.bi_iter.bi_sector = rc->geo.log_offset + ressd_block_sector(block);
	__bio_add_page(&bio, page, RESSD_BLOCK_SIZE, 0);
	r = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return r;
}

/* Write superblock copy @location from rc->meta.sb; caller holds meta_lock. */
static int __ressd_meta_write_copy(struct ressd_c *rc, u64 location,
				   struct page *page)
{
	struct ressd_tunables t;
	int r;

	lockdep_assert_held(&rc->meta.lock);
	spin_lock_irq(&rc->lock);
	t = rc->tunables;
	spin_unlock_irq(&rc->lock);

	ressd_sb_encode(page_address(page), location, &rc->meta.sb, &rc->geo, &t);
	r = ressd_log_block_io(rc, location, page,
			       REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH | REQ_FUA);
	if (r)
		DMERR("writing superblock %llu failed: %d", location, r);
	else
		atomic64_inc(&rc->metadata_commits);
	atomic64_add(RESSD_BLOCK_SIZE, &rc->dev_write_bytes);
	return r;
}

/*
 * Both copies, in turn.  With data_csum 0 they carry the ordered-entries
 * feature, which stays until a recovery finds no ordered entry left; once
 * both are written with it, the log writer may write ordered entries
 * (rc->log.ordered_ok): no module that does not know them loads the log.
 */
int ressd_meta_write_sb(struct ressd_c *rc)
{
	struct page *page = alloc_page(GFP_KERNEL);
	bool ordered;
	int i, r = 0;

	if (!page)
		return -ENOMEM;
	spin_lock_irq(&rc->lock);
	ordered = !rc->tunables.data_csum;
	spin_unlock_irq(&rc->lock);
	mutex_lock(&rc->meta.lock);
	if (ordered)
		rc->meta.sb.incompat |= RESSD_FEATURE_INCOMPAT_ORDERED;
	for (i = 0; i < RESSD_SB_BLOCKS && !r; i++) {
		/* A generation no load takes: the copy would be lost (a forged log). */
		if (rc->meta.sb.generation >= RESSD_MAX_GENERATION) {
			DMERR("superblock generation %llu at its end: not written",
			      rc->meta.sb.generation);
			r = -EOVERFLOW;
			break;
		}
		rc->meta.sb.generation++;
		/* Odd generations live in copy A, even ones in copy B. */
		r = __ressd_meta_write_copy(rc, (rc->meta.sb.generation & 1) ? 0 : 1, page);
		if (r)
			rc->meta.sb.generation--;
	}
	/* Cleared only by a recovery, before the log writer starts. */
	if (!r)
		WRITE_ONCE(rc->log.ordered_ok,
			   !!(rc->meta.sb.incompat & RESSD_FEATURE_INCOMPAT_ORDERED));
	mutex_unlock(&rc->meta.lock);
	__free_page(page);
	return r;
}

/* Format an empty log: a new nonce, both copies written. */
static int ressd_meta_format(struct ressd_c *rc, struct page *page,
			     const char **error)
{
	int r;

	if (!ressd_table_writable(rc->ti->table)) {
		*error = "Cannot format a read-only log";
		return -EROFS;
	}
	mutex_lock(&rc->meta.lock);
	memset(&rc->meta.sb, 0, sizeof(rc->meta.sb));
	rc->meta.sb.nonce = get_random_u64();
	rc->meta.sb.nr_slots = ressd_nr_slots(rc->geo.log_sectors);
	rc->meta.sb.tail_slot = 0;
	rc->meta.sb.tail_seq = 1;
	rc->meta.sb.compat = RESSD_FEATURE_COMPAT_TAIL_EPOCH;
	/*
	 * Copy B first, then A.  A crash in between leaves a valid copy B of
	 * an empty log, which the next activation loads.
	 */
	rc->meta.sb.generation = 2;
	r = __ressd_meta_write_copy(rc, 1, page);
	if (!r) {
		rc->meta.sb.generation = 1;
		r = __ressd_meta_write_copy(rc, 0, page);
	}
	/* Copy B holds the newest generation; the next write goes to A. */
	rc->meta.sb.generation = 2;
	mutex_unlock(&rc->meta.lock);
	if (r) {
		*error = "Error writing the superblock";
		return r;
	}
	DMINFO("formatted a new log of %u slots", rc->meta.sb.nr_slots);
	return 0;
}

int ressd_meta_load(struct ressd_c *rc, bool may_format, const char **error)
{
	struct page *page[RESSD_SB_BLOCKS] = { NULL, NULL };
	const char *why[RESSD_SB_BLOCKS] = { NULL, NULL };
	struct ressd_sb_info info[RESSD_SB_BLOCKS];
	int best = -1, i, r = 0;

	for (i = 0; i < RESSD_SB_BLOCKS; i++) {
		page[i] = alloc_page(GFP_KERNEL);
		if (!page[i]) {
			*error = "Cannot allocate superblock buffer";
			r = -ENOMEM;
			goto out;
		}
		r = ressd_log_block_io(rc, i, page[i], REQ_OP_READ | REQ_SYNC);
		if (r) {
			*error = "Error reading the superblock";
			goto out;
		}
	}

	/* The format rule: both copies all zero, not just one of them. */
	if (ressd_block_is_zero(page_address(page[0])) &&
	    ressd_block_is_zero(page_address(page[1]))) {
		if (!may_format) {
			*error = "Superblock was erased under the table";
			r = -EINVAL;
			goto out;
		}
		r = ressd_meta_format(rc, page[0], error);
		goto out;
	}

	for (i = 0; i < RESSD_SB_BLOCKS; i++) {
		why[i] = ressd_sb_check(page_address(page[i]), i, &rc->geo);
		if (why[i])
			continue;
		ressd_sb_decode(page_address(page[i]), &info[i]);
		if (best < 0 || info[i].generation > info[best].generation)
			best = i;
	}
	if (best < 0) {
		/* Copy A decides the message: it is the one a user looks at. */
		*error = why[0];
		r = -EINVAL;
		goto out;
	}
	if (!why[0] && !why[1] && info[0].nonce != info[1].nonce) {
		*error = "Superblock copies belong to different volumes";
		r = -EINVAL;
		goto out;
	}
	/* Unknown read-only compatible features: the log may only be read. */
	if ((info[best].ro_compat & ~RESSD_FEATURE_RO_COMPAT_SUPP) &&
	    ressd_table_writable(rc->ti->table)) {
		DMERR("superblock %d: unknown read-only compatible features %x",
		      best, info[best].ro_compat & ~RESSD_FEATURE_RO_COMPAT_SUPP);
		*error = "Unknown read-only compatible feature: use a read-only table";
		r = -EINVAL;
		goto out;
	}
	/* Numbers a load and replay accept for everything this activation writes. */
	if (ressd_table_writable(rc->ti->table) &&
	    ressd_sb_numbers_exhausted(info[best].generation, info[best].epoch,
				       info[best].tail_seq)) {
		DMERR("superblock %d: generation %llu, epoch %llu, checkpoint seq %llu: near %llu",
		      best, info[best].generation, info[best].epoch, info[best].tail_seq,
		      RESSD_MAX_SEQ);
		*error = "Log sequence numbers exhausted: use a read-only table";
		r = -EINVAL;
		goto out;
	}
	mutex_lock(&rc->meta.lock);
	rc->meta.sb = info[best];
	rc->meta.doubt_copy = !best;
	rc->meta.doubt = why[!best];
	if (!why[!best] && info[!best].generation + 1 != info[best].generation)
		rc->meta.doubt = "not the generation before the newest";
	mutex_unlock(&rc->meta.lock);
	DMINFO("loaded superblock %d, generation %llu, %u slots", best,
	       info[best].generation, info[best].nr_slots);
out:
	for (i = 0; i < RESSD_SB_BLOCKS; i++)
		if (page[i])
			__free_page(page[i]);
	return r;
}

/*
 * Recovery and the mover's plan read the log forward, record after record:
 * read ahead RESSD_RA_SLOTS slots per request instead of one block per
 * synchronous read.  The window is never refreshed, so a reader may only
 * ask for slots that do not change while it holds the window (written
 * records between the tail and the records in flight).
 */
struct ressd_readahead {
	struct ressd_c *rc;
	u32 start, nr;			/* slots held: [start, start + nr) */
	struct page *pages[RESSD_RA_SLOTS];
	struct bio_vec bvec[RESSD_RA_SLOTS];
};

struct ressd_readahead *ressd_ra_alloc(struct ressd_c *rc)
{
	struct ressd_readahead *ra = kzalloc(sizeof(*ra), GFP_KERNEL);
	u32 i;

	if (!ra)
		return NULL;
	ra->rc = rc;
	for (i = 0; i < RESSD_RA_SLOTS; i++) {
		ra->pages[i] = alloc_page(GFP_KERNEL);
		if (!ra->pages[i])
			goto fail;
	}
	return ra;
fail:
	while (i--)
		__free_page(ra->pages[i]);
	kfree(ra);
	return NULL;
}

void ressd_ra_free(struct ressd_readahead *ra)
{
	u32 i;

	if (!ra)
		return;
	for (i = 0; i < RESSD_RA_SLOTS; i++)
		__free_page(ra->pages[i]);
	kfree(ra);
}

/* Read @slot through @ra, the window @n slots from it on when it is not held. */
static int ressd_ra_fetch(struct ressd_readahead *ra, u32 slot, u32 n, void *buf)
{
	struct ressd_c *rc = ra->rc;

	if (slot >= rc->lg.nr_slots)
		return -EINVAL;
	if (slot < ra->start || slot - ra->start >= ra->nr) {
		u32 i;
		struct bio bio;
		int r;

		ra->nr = 0;
		bio_init(&bio, rc->log_dev->bdev, ra->bvec, n, REQ_OP_READ | REQ_SYNC);
		bio.bi_iter.bi_sector = ressd_slot_sector(rc, slot);
		for (i = 0; i < n; i++)
			__bio_add_page(&bio, ra->pages[i], RESSD_BLOCK_SIZE, 0);
		r = submit_bio_wait(&bio);
		bio_uninit(&bio);
		if (r)
			return r;
		ra->start = slot;
		ra->nr = n;
	}
	memcpy(buf, page_address(ra->pages[slot - ra->start]), RESSD_BLOCK_SIZE);
	return 0;
}

int ressd_ra_read(void *ctx, u32 slot, void *buf)
{
	struct ressd_readahead *ra = ctx;

	return ressd_ra_fetch(ra, slot, min_t(u32, RESSD_RA_SLOTS, ra->rc->lg.nr_slots - slot),
			      buf);
}

int ressd_ra_read_one(struct ressd_readahead *ra, u32 slot, void *buf)
{
	return ressd_ra_fetch(ra, slot, 1, buf);
}

/*
 * A log written before each state went to both copies had one copy a
 * state, and a checkpoint durable before the log writer reused the region
 * it released.  When the copy that lost the load may have been the newest
 * (it is invalid: a torn write, or a written one that rotted; or it is not
 * the generation just before), the winner's checkpoint may be one round
 * old: its region may hold newer records, and its chain then ends early,
 * dropping acknowledged writes without a word, or replays records already
 * superseded.  A torn write is harmless (nothing relied on it yet); a lost
 * durable one leaves records that carry its checkpoint or epoch, unless
 * none was written after it.  Look for one in the whole log (only then,
 * and nothing but trailers is decoded), and refuse rather than serve an
 * older state.  A read error refuses too, as in replay.  For a log written
 * both ways this never finds anything: the first write of a pair that tore
 * leaves the state before it, which nothing relied on.
 */
static int ressd_meta_check_newer(struct ressd_c *rc, struct ressd_readahead *ra,
				  const struct ressd_replay *rp, void *buf,
				  const char **err)
{
	struct ressd_trailer t;
	int r;

	if (!rc->meta.doubt)
		return 0;
	DMWARN("superblock %d: %s; looking through the log for newer records",
	       rc->meta.doubt_copy, rc->meta.doubt);
	r = ressd_log_find_newer(ressd_ra_read, ra, &rc->lg, rc->meta.sb.epoch,
				 rp->new_tail_seq, buf, &t);
	if (r < 0) {
		*err = "Error reading the log";
		return r;
	}
	if (!r)
		return 0;
	DMERR("superblock %d is not the newest: generation %llu, epoch %llu, checkpoint seq %llu",
	      !rc->meta.doubt_copy, rc->meta.sb.generation, rc->meta.sb.epoch,
	      rp->new_tail_seq);
	DMERR("record seq %llu at slot %u is newer: epoch %llu, checkpoint seq %llu",
	      t.seq, t.slot, t.epoch, t.tail_seq);
	*err = "Log is newer than its superblock: the newest copy is damaged";
	return -EINVAL;
}

int ressd_meta_recover(struct ressd_c *rc, struct ressd_log_start *st)
{
	struct page *trailer = alloc_page(GFP_KERNEL), *data = alloc_page(GFP_KERNEL);
	struct ressd_readahead *ra = ressd_ra_alloc(rc);
	struct ressd_replay rp = { };
	const char *err = NULL;
	int r = -ENOMEM;

	if (!trailer || !data || !ra)
		goto out;
	/* A resume retried after a failed recovery: replay into an empty index. */
	ressd_index_reset(&rc->index);
	bitmap_zero(rc->log.trailers, rc->lg.nr_slots);
	bitmap_zero(rc->log.copied, rc->lg.nr_slots);
	/* The superblock may have moved on since the constructor read it. */
	r = ressd_meta_load(rc, false, &err);
	if (r)
		goto out;
	if (rc->meta.sb.nonce != rc->lg.nonce) {
		err = "Log was reformatted under the table";
		r = -EINVAL;
		goto out;
	}
	rp.lg = &rc->lg;
	rp.tail_slot = rc->meta.sb.tail_slot;
	rp.tail_seq = rc->meta.sb.tail_seq;
	rp.tail_epoch = rc->meta.sb.tail_epoch;
	rp.epoch = rc->meta.sb.epoch;
	rp.read = ressd_ra_read;
	rp.ctx = ra;
	rp.trailer = page_address(trailer);
	rp.data = page_address(data);
	rp.idx = &rc->index;
	rp.trailers = rc->log.trailers;
	r = ressd_replay(&rp, &err);
	if (r)
		goto out;
	r = ressd_meta_check_newer(rc, ra, &rp, page_address(trailer), &err);
	if (r)
		goto out;

	st->head = rp.head;
	st->next_seq = rp.next_seq;
	st->tail_slot = rp.new_tail_slot;
	st->tail_seq = rp.new_tail_seq;
	st->used = rp.used;
	st->epoch = rc->meta.sb.epoch + 1;
	/*
	 * Nothing left in the log (the checkpoint is at next_seq, the first
	 * record of the new epoch): nothing older may be taken for it.
	 */
	st->tail_epoch = ressd_checkpoint_epoch(rp.new_tail_seq, rp.next_seq, st->epoch,
						rp.new_tail_epoch);

	if (!ressd_table_writable(rc->ti->table)) {
		/* Read-only table: serve what the log holds, change nothing. */
		DMINFO("read-only table: %llu blocks in the log, nothing written",
		       rc->index.mapped);
		goto out;
	}
	/* The checkpoint with the new epoch goes out before any new record. */
	mutex_lock(&rc->meta.lock);
	rc->meta.sb.tail_slot = st->tail_slot;
	rc->meta.sb.tail_seq = st->tail_seq;
	rc->meta.sb.epoch = st->epoch;
	rc->meta.sb.tail_epoch = st->tail_epoch;
	rc->meta.sb.compat |= RESSD_FEATURE_COMPAT_TAIL_EPOCH;
	/* Ordered entries left in the chain keep the feature (data_csum adds it). */
	if (rp.ordered)
		rc->meta.sb.incompat |= RESSD_FEATURE_INCOMPAT_ORDERED;
	else
		rc->meta.sb.incompat &= ~RESSD_FEATURE_INCOMPAT_ORDERED;
	mutex_unlock(&rc->meta.lock);
	r = ressd_meta_write_sb(rc);
	if (r) {
		err = "Error writing the checkpoint";
		goto out;
	}
	DMINFO("recovered %u records: %llu blocks in the log, %llu torn, %u/%u slots used (%s)",
	       rp.records, rc->index.mapped, rp.bad_data, rp.used, rc->lg.nr_slots,
	       rp.stop ? rp.stop : "end");
	if (rp.ordered)
		DMINFO("recovered %llu ordered entries (data_csum 0: no checksum)", rp.ordered);
out:
	if (r)
		DMERR("recovery failed: %s (%d)", err ? err : "out of memory", r);
	if (trailer)
		__free_page(trailer);
	if (data)
		__free_page(data);
	ressd_ra_free(ra);
	return r;
}

int ressd_meta_write_checkpoint(struct ressd_c *rc, u32 slot, u64 seq, u64 epoch)
{
	mutex_lock(&rc->meta.lock);
	rc->meta.sb.tail_slot = slot;
	rc->meta.sb.tail_seq = seq;
	rc->meta.sb.tail_epoch = epoch;
	mutex_unlock(&rc->meta.lock);
	return ressd_meta_write_sb(rc);
}

void ressd_meta_init(struct ressd_c *rc)
{
	mutex_init(&rc->meta.lock);
}
