// SPDX-License-Identifier: GPL-2.0-only
/*
 * The superblocks of the reserved area.
 *
 * This file owns blocks 0 and 1 of the log range: the two superblock copies
 * A and B.  Each write goes to the copy that does not hold the newest
 * generation, with PREFLUSH and FUA, so that a torn or lost write leaves the
 * other copy intact; on load the valid copy with the higher generation wins.
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
#include <linux/crc32c.h>
#include <linux/gfp.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/moduleparam.h>

#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd-meta"

u32 ressd_csum(u64 nonce, const void *data, size_t len)
{
	return crc32c((u32)nonce ^ (u32)(nonce >> 32), data, len);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_csum);

bool ressd_block_is_zero(const void *block)
{
	return !memchr_inv(block, 0, RESSD_BLOCK_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_block_is_zero);

u32 ressd_nr_slots(sector_t log_sectors)
{
	u64 blocks = log_sectors >> (RESSD_BLOCK_SHIFT - SECTOR_SHIFT);

	if (blocks <= RESSD_SB_BLOCKS)
		return 0;
	return min_t(u64, blocks - RESSD_SB_BLOCKS, RESSD_MAX_SLOTS);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_nr_slots);

/*
 * Checksum of a metadata block (superblock or record header): crc32c over
 * the 4 KiB block with its csum field (bytes 8..11 in both) taken as zero.
 */
#define RESSD_CSUM_OFFSET	8
u32 ressd_block_csum(const void *blk, u64 nonce)
{
	u32 seed = (u32)nonce ^ (u32)(nonce >> 32);
	const u8 *p = blk;
	u32 zero = 0, crc;

	BUILD_BUG_ON(offsetof(struct ressd_disk_sb, csum) != RESSD_CSUM_OFFSET);
	BUILD_BUG_ON(offsetof(struct ressd_disk_rec, csum) != RESSD_CSUM_OFFSET);
	crc = crc32c(seed, p, RESSD_CSUM_OFFSET);
	crc = crc32c(crc, &zero, sizeof(zero));
	return crc32c(crc, p + RESSD_CSUM_OFFSET + sizeof(zero),
		      RESSD_BLOCK_SIZE - RESSD_CSUM_OFFSET - sizeof(zero));
}
EXPORT_SYMBOL_IF_KUNIT(ressd_block_csum);

/* A superblock's checksum is seeded with the nonce it carries itself. */
static u32 ressd_sb_csum(const struct ressd_disk_sb *sb)
{
	return ressd_block_csum(sb, le64_to_cpu(sb->nonce));
}

void ressd_sb_encode(struct ressd_disk_sb *sb, u64 location,
		     const struct ressd_sb_info *info,
		     const struct ressd_geometry *g,
		     const struct ressd_tunables *t)
{
	BUILD_BUG_ON(sizeof(struct ressd_disk_sb) != 256);
	BUILD_BUG_ON(sizeof(struct ressd_disk_entry) != 12);
	BUILD_BUG_ON(sizeof(struct ressd_disk_inval) != 12);
	BUILD_BUG_ON(sizeof(struct ressd_disk_rec) != RESSD_REC_HDR_SIZE);

	memset(sb, 0, RESSD_BLOCK_SIZE);
	sb->magic = cpu_to_le64(RESSD_SB_MAGIC);
	sb->version = cpu_to_le32(RESSD_FORMAT_VERSION);
	sb->location = cpu_to_le64(location);
	sb->generation = cpu_to_le64(info->generation);
	sb->nonce = cpu_to_le64(info->nonce);
	sb->compat = cpu_to_le32(info->compat);
	sb->ro_compat = cpu_to_le32(info->ro_compat);
	sb->incompat = cpu_to_le32(info->incompat);
	sb->block_size = cpu_to_le32(RESSD_BLOCK_SIZE);
	sb->origin_offset = cpu_to_le64(g->origin_offset);
	sb->origin_sectors = cpu_to_le64(g->origin_sectors);
	sb->log_offset = cpu_to_le64(g->log_offset);
	sb->log_sectors = cpu_to_le64(g->log_sectors);
	sb->nr_slots = cpu_to_le32(info->nr_slots);
	sb->small_write_max = cpu_to_le32(t->small_write_max);
	sb->mover_batch = cpu_to_le32(t->mover_batch);
	sb->high_watermark = cpu_to_le32(t->high_watermark);
	sb->low_watermark = cpu_to_le32(t->low_watermark);
	sb->tail_slot = cpu_to_le32(info->tail_slot);
	sb->tail_seq = cpu_to_le64(info->tail_seq);
	sb->epoch = cpu_to_le64(info->epoch);
	sb->tail_epoch = cpu_to_le64(info->tail_epoch);
	sb->csum = cpu_to_le32(ressd_sb_csum(sb));
}
EXPORT_SYMBOL_IF_KUNIT(ressd_sb_encode);

/* Geometry fields must equal the table's. */
static const char *ressd_sb_check_geometry(const struct ressd_disk_sb *sb,
					   u64 location,
					   const struct ressd_geometry *g)
{
	static const struct {
		size_t off;
		const char *name;
	} fields[] = {
		{ offsetof(struct ressd_disk_sb, origin_offset), "origin offset" },
		{ offsetof(struct ressd_disk_sb, origin_sectors), "origin length" },
		{ offsetof(struct ressd_disk_sb, log_offset), "log offset" },
		{ offsetof(struct ressd_disk_sb, log_sectors), "log size" },
	};
	u64 want[ARRAY_SIZE(fields)] = {
		g->origin_offset, g->origin_sectors, g->log_offset, g->log_sectors
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		__le64 v;
		u64 found;

		memcpy(&v, (const u8 *)sb + fields[i].off, sizeof(v));
		found = le64_to_cpu(v);
		if (found != want[i]) {
			DMERR("superblock %llu: %s is %llu, the table says %llu",
			      location, fields[i].name, found, want[i]);
			return "Superblock geometry does not match the table";
		}
	}
	if (le32_to_cpu(sb->nr_slots) != ressd_nr_slots(g->log_sectors)) {
		DMERR("superblock %llu: %u log slots, expected %u", location,
		      le32_to_cpu(sb->nr_slots), ressd_nr_slots(g->log_sectors));
		return "Superblock geometry does not match the table";
	}
	return NULL;
}

const char *ressd_sb_check(const struct ressd_disk_sb *sb, u64 location,
			   const struct ressd_geometry *g)
{
	u32 v, nr_slots;

	if (le64_to_cpu(sb->magic) != RESSD_SB_MAGIC) {
		DMERR("superblock %llu: magic %llx, expected %llx", location,
		      le64_to_cpu(sb->magic), RESSD_SB_MAGIC);
		return "Bad superblock magic";
	}
	if (le64_to_cpu(sb->location) != location) {
		DMERR("superblock %llu: says it is at block %llu", location,
		      le64_to_cpu(sb->location));
		return "Superblock at the wrong location";
	}
	if (le32_to_cpu(sb->csum) != ressd_sb_csum(sb)) {
		DMERR("superblock %llu: checksum %08x, computed %08x", location,
		      le32_to_cpu(sb->csum), ressd_sb_csum(sb));
		return "Bad superblock checksum";
	}
	v = le32_to_cpu(sb->version);
	if (v < RESSD_FORMAT_MIN || v > RESSD_FORMAT_MAX) {
		DMERR("superblock %llu: format version %u, supported %u..%u",
		      location, v, RESSD_FORMAT_MIN, RESSD_FORMAT_MAX);
		return "Unsupported on-disk format version";
	}
	v = le32_to_cpu(sb->incompat) & ~RESSD_FEATURE_INCOMPAT_SUPP;
	if (v) {
		DMERR("superblock %llu: unknown incompatible features %x",
		      location, v);
		return "Unknown incompatible feature";
	}
	if (le32_to_cpu(sb->block_size) != RESSD_BLOCK_SIZE) {
		DMERR("superblock %llu: block size %u, expected %u", location,
		      le32_to_cpu(sb->block_size), RESSD_BLOCK_SIZE);
		return "Unsupported block size";
	}
	nr_slots = le32_to_cpu(sb->nr_slots);
	if (le32_to_cpu(sb->tail_slot) >= nr_slots) {
		DMERR("superblock %llu: tail slot %u beyond %u slots", location,
		      le32_to_cpu(sb->tail_slot), nr_slots);
		return "Superblock checkpoint out of range";
	}
	if (le64_to_cpu(sb->tail_seq) > RESSD_MAX_SEQ) {
		DMERR("superblock %llu: sequence number %llu above %llu", location,
		      le64_to_cpu(sb->tail_seq), RESSD_MAX_SEQ);
		return "Superblock checkpoint out of range";
	}
	if (le64_to_cpu(sb->epoch) > RESSD_MAX_EPOCH) {
		DMERR("superblock %llu: epoch %llu above %llu", location,
		      le64_to_cpu(sb->epoch), RESSD_MAX_EPOCH);
		return "Superblock checkpoint out of range";
	}
	if (le64_to_cpu(sb->tail_epoch) > le64_to_cpu(sb->epoch)) {
		DMERR("superblock %llu: checkpoint epoch %llu above the epoch %llu",
		      location, le64_to_cpu(sb->tail_epoch), le64_to_cpu(sb->epoch));
		return "Superblock checkpoint out of range";
	}
	return ressd_sb_check_geometry(sb, location, g);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_sb_check);

/* Synchronous single-block I/O to the log device (may sleep). */
static int ressd_log_block_io(struct ressd_c *rc, u64 block, struct page *page,
			      blk_opf_t opf)
{
	struct bio_vec bv;
	struct bio bio;
	int r;

	bio_init(&bio, rc->log->bdev, &bv, 1, opf);
	bio.bi_iter.bi_sector = rc->geo.log_offset +
				(block << (RESSD_BLOCK_SHIFT - SECTOR_SHIFT));
	__bio_add_page(&bio, page, RESSD_BLOCK_SIZE, 0);
	r = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return r;
}

static void ressd_sb_decode(const struct ressd_disk_sb *sb,
			    struct ressd_sb_info *info)
{
	info->nonce = le64_to_cpu(sb->nonce);
	info->generation = le64_to_cpu(sb->generation);
	info->nr_slots = le32_to_cpu(sb->nr_slots);
	info->tail_slot = le32_to_cpu(sb->tail_slot);
	info->tail_seq = le64_to_cpu(sb->tail_seq);
	info->epoch = le64_to_cpu(sb->epoch);
	info->tail_epoch = le64_to_cpu(sb->tail_epoch);
	info->compat = le32_to_cpu(sb->compat);
	info->ro_compat = le32_to_cpu(sb->ro_compat);
	info->incompat = le32_to_cpu(sb->incompat);
}

/* Write superblock copy @location from rc->sb; caller holds meta_lock. */
static int __ressd_meta_write_copy(struct ressd_c *rc, u64 location,
				   struct page *page)
{
	struct ressd_tunables t;
	int r;

	lockdep_assert_held(&rc->meta_lock);
	spin_lock_irq(&rc->lock);
	t = rc->tunables;
	spin_unlock_irq(&rc->lock);

	ressd_sb_encode(page_address(page), location, &rc->sb, &rc->geo, &t);
	r = ressd_log_block_io(rc, location, page,
			       REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH | REQ_FUA);
	if (r)
		DMERR("writing superblock %llu failed: %d", location, r);
	else
		atomic64_inc(&rc->metadata_commits);
	return r;
}

int ressd_meta_write_sb(struct ressd_c *rc)
{
	struct page *page = alloc_page(GFP_KERNEL);
	int r;

	if (!page)
		return -ENOMEM;
	mutex_lock(&rc->meta_lock);
	rc->sb.generation++;
	/* Odd generations live in copy A, even ones in copy B. */
	r = __ressd_meta_write_copy(rc, (rc->sb.generation & 1) ? 0 : 1, page);
	if (r)
		rc->sb.generation--;
	mutex_unlock(&rc->meta_lock);
	__free_page(page);
	return r;
}

/* Format an empty log: a new nonce, both copies written. */
static int ressd_meta_format(struct ressd_c *rc, struct page *page,
			     const char **error)
{
	int r;

	if (!(dm_table_get_mode(rc->ti->table) & FMODE_WRITE)) {
		*error = "Cannot format a read-only log";
		return -EROFS;
	}
	mutex_lock(&rc->meta_lock);
	memset(&rc->sb, 0, sizeof(rc->sb));
	rc->sb.nonce = get_random_u64();
	rc->sb.nr_slots = ressd_nr_slots(rc->geo.log_sectors);
	rc->sb.tail_slot = 0;
	rc->sb.tail_seq = 1;
	rc->sb.compat = RESSD_FEATURE_COMPAT_TAIL_EPOCH;
	/*
	 * Copy B first, then A.  A crash in between leaves a valid copy B of
	 * an empty log, which the next activation loads.
	 */
	rc->sb.generation = 2;
	r = __ressd_meta_write_copy(rc, 1, page);
	if (!r) {
		rc->sb.generation = 1;
		r = __ressd_meta_write_copy(rc, 0, page);
	}
	/* Copy B holds the newest generation; the next write goes to A. */
	rc->sb.generation = 2;
	mutex_unlock(&rc->meta_lock);
	if (r) {
		*error = "Error writing the superblock";
		return r;
	}
	rc->formatted = true;
	DMINFO("formatted a new log of %u slots", rc->sb.nr_slots);
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
	    (dm_table_get_mode(rc->ti->table) & FMODE_WRITE)) {
		DMERR("superblock %d: unknown read-only compatible features %x",
		      best, info[best].ro_compat & ~RESSD_FEATURE_RO_COMPAT_SUPP);
		*error = "Unknown read-only compatible feature: use a read-only table";
		r = -EINVAL;
		goto out;
	}
	mutex_lock(&rc->meta_lock);
	rc->sb = info[best];
	mutex_unlock(&rc->meta_lock);
	DMINFO("loaded superblock %d, generation %llu, %u slots", best,
	       info[best].generation, info[best].nr_slots);
out:
	for (i = 0; i < RESSD_SB_BLOCKS; i++)
		if (page[i])
			__free_page(page[i]);
	return r;
}

/* ---- log records ---- */

void ressd_rec_encode(void *blk, const struct ressd_log_geo *lg,
		      const struct ressd_rec *r,
		      const struct ressd_disk_entry *e,
		      const struct ressd_disk_inval *inv)
{
	struct ressd_disk_rec *rec = blk;
	u8 *items = (u8 *)rec->entries;

	BUILD_BUG_ON(sizeof(struct ressd_disk_entry) != sizeof(struct ressd_disk_inval));
	if (WARN_ON_ONCE(r->nr_data + r->nr_inval > RESSD_REC_MAX_ITEMS))
		return;
	memset(blk, 0, RESSD_BLOCK_SIZE);
	rec->magic = cpu_to_le64(RESSD_REC_MAGIC);
	rec->version = cpu_to_le32(RESSD_FORMAT_VERSION);
	rec->nonce = cpu_to_le64(lg->nonce);
	rec->seq = cpu_to_le64(r->seq);
	rec->slot = cpu_to_le32(r->slot);
	rec->nr_data = cpu_to_le16(r->nr_data);
	rec->nr_inval = cpu_to_le16(r->nr_inval);
	rec->tail_slot = cpu_to_le32(r->tail_slot);
	rec->tail_seq = cpu_to_le64(r->tail_seq);
	rec->epoch = cpu_to_le64(r->epoch);
	memcpy(items, e, r->nr_data * sizeof(*e));
	memcpy(items + r->nr_data * sizeof(*e), inv, r->nr_inval * sizeof(*inv));
	rec->csum = cpu_to_le32(ressd_block_csum(blk, lg->nonce));
}
EXPORT_SYMBOL_IF_KUNIT(ressd_rec_encode);

const char *ressd_rec_decode(const void *blk, const struct ressd_log_geo *lg,
			     u32 slot, struct ressd_rec *r)
{
	const struct ressd_disk_rec *rec = blk;
	const struct ressd_disk_entry *e = rec->entries;
	const struct ressd_disk_inval *inv;
	u32 i, v;

	if (le64_to_cpu(rec->magic) != RESSD_REC_MAGIC)
		return "no record magic";
	if (le64_to_cpu(rec->nonce) != lg->nonce)
		return "record of another volume";
	if (le32_to_cpu(rec->slot) != slot)
		return "record written for another slot";
	if (le32_to_cpu(rec->csum) != ressd_block_csum(blk, lg->nonce))
		return "bad record checksum";
	v = le32_to_cpu(rec->version);
	if (v < RESSD_FORMAT_MIN || v > RESSD_FORMAT_MAX)
		return "unsupported record version";
	if (rec->flags)
		return "unknown record flags";

	r->seq = le64_to_cpu(rec->seq);
	r->epoch = le64_to_cpu(rec->epoch);
	r->slot = slot;
	r->nr_data = le16_to_cpu(rec->nr_data);
	r->nr_inval = le16_to_cpu(rec->nr_inval);
	r->tail_slot = le32_to_cpu(rec->tail_slot);
	r->tail_seq = le64_to_cpu(rec->tail_seq);

	/* Every value is bounded before anyone uses it as an index. */
	if (r->nr_data + r->nr_inval > RESSD_REC_MAX_ITEMS)
		return "too many items in a record";
	if (slot >= lg->nr_slots)
		return "record trailer beyond the log";
	if (r->nr_data > slot)
		return "record starts before the log";
	if (r->tail_slot >= lg->nr_slots)
		return "record checkpoint out of range";
	if (r->seq > RESSD_MAX_SEQ)
		return "record sequence number out of range";
	if (r->tail_seq > r->seq)
		return "record checkpoint ahead of the record";
	for (i = 0; i < r->nr_data; i++) {
		u64 b = le64_to_cpu(e[i].block);

		if (b != RESSD_DEAD_BLOCK && b >= lg->origin_blocks)
			return "record entry beyond the origin";
	}
	inv = (const struct ressd_disk_inval *)(e + r->nr_data);
	for (i = 0; i < r->nr_inval; i++) {
		u64 b = le64_to_cpu(inv[i].block);
		u32 n = le32_to_cpu(inv[i].nr_blocks);

		if (!n || b >= lg->origin_blocks || n > lg->origin_blocks - b)
			return "record invalidation beyond the origin";
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_rec_decode);

int ressd_rec_find(int (*read)(void *ctx, u32 slot, void *buf), void *ctx,
		   const struct ressd_log_geo *lg, u32 start, u64 seq,
		   u64 min_epoch, u64 max_epoch, void *buf, struct ressd_rec *r,
		   const char **why)
{
	u32 last = min_t(u64, (u64)start + RESSD_REC_MAX_ITEMS, lg->nr_slots - 1);
	const char *miss = NULL;
	u32 u;
	int err;

	if (start >= lg->nr_slots) {
		*why = "record start beyond the log";
		return 1;
	}
	for (u = start; u <= last; u++) {
		const char *w;

		err = read(ctx, u, buf);
		if (err)
			return err;
		/* Data blocks: skipped without a word. */
		if (le64_to_cpu(((struct ressd_disk_rec *)buf)->magic) != RESSD_REC_MAGIC)
			continue;
		w = ressd_rec_decode(buf, lg, u, r);
		if (!w && r->seq != seq)
			w = "sequence break";
		if (!w && ressd_rec_start(r) != start)
			w = "record does not start where the chain goes on";
		if (!w && (r->epoch < min_epoch || r->epoch > max_epoch))
			w = "epoch out of order";
		if (!w)
			return 0;
		if (!miss)
			miss = w;
	}
	*why = miss ? miss : "no record trailer";
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_rec_find);

/*
 * Find the trailer of the record that starts at @slot with @seq, whose
 * epoch must lie between @min_epoch (its predecessor's) and the
 * superblock's.  Returns 0 for a valid record, 1 at the end of the chain
 * (rp->stop says why), or the read error.
 */
static int ressd_replay_header(struct ressd_replay *rp, u32 slot, u64 seq,
			       u64 min_epoch, struct ressd_rec *r)
{
	return ressd_rec_find(rp->read, rp->ctx, rp->lg, slot, seq, min_epoch,
			      rp->epoch, rp->hdr, r, &rp->stop);
}

/* Apply one valid record (its header in rp->hdr): invalidations, entries. */
static int ressd_replay_apply(struct ressd_replay *rp, const struct ressd_rec *r)
{
	const struct ressd_disk_rec *rec = rp->hdr;
	const struct ressd_disk_entry *e = rec->entries;
	const struct ressd_disk_inval *inv =
		(const struct ressd_disk_inval *)(e + r->nr_data);
	struct ressd_index *idx = rp->idx;
	u32 i;
	int err;

	for (i = 0; i < r->nr_inval; i++) {
		spin_lock_irq(&idx->lock);
		rp->invalidated += __ressd_index_remove_range(idx,
					le64_to_cpu(inv[i].block),
					le32_to_cpu(inv[i].nr_blocks));
		spin_unlock_irq(&idx->lock);
	}
	for (i = 0; i < r->nr_data; i++) {
		u64 block = le64_to_cpu(e[i].block);
		u32 slot = ressd_rec_start(r) + i;

		if (block == RESSD_DEAD_BLOCK)
			continue;
		err = rp->read(rp->ctx, slot, rp->data);
		if (err)
			return err;
		/* A torn record: this block never became durable; keep the older copy. */
		if (ressd_csum(rp->lg->nonce, rp->data, RESSD_BLOCK_SIZE) !=
		    le32_to_cpu(e[i].csum)) {
			rp->bad_data++;
			continue;
		}
		spin_lock_irq(&idx->lock);
		__ressd_index_insert(idx, block, slot);
		spin_unlock_irq(&idx->lock);
		rp->entries++;
	}
	return 0;
}

/*
 * The second pass reaches record seq at slot, whose chain epoch is epoch (or
 * the chain's end, seq == next_seq).  At the newest checkpoint's seq the
 * slot must be the checkpoint's, and the epoch there becomes the new
 * checkpoint's tail_epoch.  False if the checkpoint is not in the chain.
 */
static bool ressd_replay_checkpoint(struct ressd_replay *rp, u32 slot, u64 seq,
				    u64 epoch)
{
	if (seq != rp->new_tail_seq)
		return true;
	if (slot != rp->new_tail_slot)
		return false;
	rp->new_tail_epoch = epoch;
	return true;
}

/*
 * Two passes over the chain that starts at the superblock's checkpoint.  The
 * first finds its end and the newest checkpoint any record carries (the
 * mover may have moved records home after the superblock was written); the
 * second applies, in order, the records from that checkpoint on.  Nothing is
 * written, so a crash during replay replays the same way again.
 */
int ressd_replay(struct ressd_replay *rp, const char **error)
{
	const struct ressd_log_geo *lg = rp->lg;
	u32 slot = rp->tail_slot, walked = 0, nr_rec = 0, i;
	u64 seq = rp->tail_seq, epoch = rp->tail_epoch;
	struct ressd_rec r;
	int ret;

	rp->new_tail_slot = rp->tail_slot;
	rp->new_tail_seq = rp->tail_seq;
	rp->new_tail_epoch = rp->tail_epoch;
	rp->records = 0;
	rp->entries = 0;
	rp->bad_data = 0;
	rp->invalidated = 0;
	rp->used = 0;
	rp->stop = NULL;

	for (;;) {
		if (walked >= lg->nr_slots) {
			rp->stop = "the chain fills the log";
			break;
		}
		ret = ressd_replay_header(rp, slot, seq, epoch, &r);
		if (ret < 0)
			goto read_error;
		if (ret)
			break;
		if (walked + 1 + r.nr_data > lg->nr_slots) {
			rp->stop = "the chain is longer than the log";
			break;
		}
		if (r.tail_seq > rp->new_tail_seq) {
			rp->new_tail_seq = r.tail_seq;
			rp->new_tail_slot = r.tail_slot;
		}
		walked += 1 + r.nr_data;
		nr_rec++;
		epoch = r.epoch;
		seq++;
		slot = ressd_rec_next_slot(lg, r.slot);
	}
	rp->head = slot;
	rp->next_seq = seq;
	rp->last_epoch = epoch;

	slot = rp->tail_slot;
	seq = rp->tail_seq;
	epoch = rp->tail_epoch;
	for (i = 0; i < nr_rec; i++) {
		ret = ressd_replay_header(rp, slot, seq, epoch, &r);
		if (ret < 0)
			goto read_error;
		if (ret) {
			*error = "Log changed while it was replayed";
			return -EIO;
		}
		if (!ressd_replay_checkpoint(rp, slot, seq, epoch))
			goto bad_checkpoint;
		if (seq >= rp->new_tail_seq) {
			ret = ressd_replay_apply(rp, &r);
			if (ret)
				goto read_error;
			rp->records++;
			rp->used += 1 + r.nr_data;
		}
		epoch = r.epoch;
		seq++;
		slot = ressd_rec_next_slot(lg, r.slot);
	}
	if (!ressd_replay_checkpoint(rp, slot, seq, epoch))
		goto bad_checkpoint;
	return 0;

bad_checkpoint:
	DMERR("log checkpoint %u/%llu is not a record of the chain",
	      rp->new_tail_slot, rp->new_tail_seq);
	*error = "Log checkpoint does not match the log";
	return -EINVAL;
read_error:
	*error = "Error reading the log";
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_replay);

/* ---- the log writer ---- */

/*
 * Records are filled under rc->lock by map() (small writes) and by bio
 * completions (invalidations).  Their data goes to the log as it comes: at
 * the end of each burst the worker writes the data held since the last one
 * as a "chunk" (data blocks only, in slot order), indexes it and completes
 * those writes.  A record is sealed when it is full, at a flush or FUA, or
 * at the end of the log; the worker then writes the data still pending and
 * the trailer that commits the whole record, as one sequential write.  So
 * a lone small write costs one 4 KiB log write, and the trailer is paid once
 * per flush or per full record (not per write), while the log is still
 * written strictly in slot order.
 *
 * One log write (chunk or record) is in flight at a time, so that writes
 * complete in slot order and the newest write of a block is the last one
 * indexed, as replay applies them.  The index only ever points at data
 * that is on the log device.  Data written in chunks but not yet committed
 * by a trailer is acknowledged like a write in a volatile cache: a flush
 * (or a FUA write) seals the record and makes it durable; the target always
 * announces a volatile write cache (ti->flush_supported), so the upper
 * layers send those flushes.
 *
 * Free space: rc->used counts the slots from the tail (the oldest record the
 * mover has not moved home) to head, plus the trailer slot the open record
 * will take.  Small writes may use all but RESSD_INVAL_RESERVE slots; the
 * rest is kept for records that carry only invalidations, which a direct
 * write over logged blocks needs (I2).
 */

int ressd_log_init(struct ressd_c *rc)
{
	struct ressd_record *r;
	int i;

	/* Small writes keep at least as much room as invalidations. */
	BUILD_BUG_ON(RESSD_MIN_LOG_BLOCKS - RESSD_SB_BLOCKS < 2 * RESSD_INVAL_RESERVE);
	for (i = 0; i < RESSD_NR_RECORDS; i++) {
		r = kzalloc(sizeof(*r), GFP_KERNEL);
		if (!r)
			return -ENOMEM;
		r->hdr = alloc_page(GFP_KERNEL);
		if (!r->hdr) {
			kfree(r);
			return -ENOMEM;
		}
		r->rc = rc;
		list_add(&r->list, &rc->free_recs);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_init);

void ressd_log_exit(struct ressd_c *rc)
{
	struct ressd_record *r, *tmp;

	if (rc->open)
		list_add(&rc->open->list, &rc->free_recs);
	rc->open = NULL;
	list_splice_init(&rc->sealed, &rc->free_recs);
	list_for_each_entry_safe(r, tmp, &rc->free_recs, list) {
		list_del(&r->list);
		__free_page(r->hdr);
		kfree(r);
	}
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_exit);

/* Data blocks one record may take: a mover_batch, trailer included. */
static u32 __ressd_max_data(struct ressd_c *rc)
{
	return min_t(u32, rc->tunables.mover_batch / RESSD_SECTORS_PER_BLOCK - 1,
		     RESSD_REC_MAX_ITEMS);
}

static bool __ressd_log_room(struct ressd_c *rc, u32 need, bool reserve)
{
	u32 limit = rc->lg.nr_slots - (reserve ? 0 : RESSD_INVAL_RESERVE);

	return rc->used + need <= limit;
}

/* Hand out @n slots at head (data blocks of the open record). */
static void __ressd_advance_head(struct ressd_c *rc, u32 n)
{
	rc->head += n;
	if (rc->head >= rc->lg.nr_slots)
		rc->head = 0;
	rc->used += n;
	rc->pend_slots += n;
}

/*
 * Open a record at head; the caller checked the room for its trailer,
 * which is counted in used now and takes its slot when the record is sealed.
 */
static struct ressd_record *__ressd_log_open(struct ressd_c *rc)
{
	struct ressd_record *r;

	lockdep_assert_held(&rc->lock);
	r = list_first_entry_or_null(&rc->free_recs, struct ressd_record, list);
	if (!r)
		return NULL;
	list_del_init(&r->list);
	if (!rc->pend_slots)
		rc->pend_start = rc->head;
	WARN_ON_ONCE(rc->head >= rc->lg.nr_slots);
	r->start = rc->head;
	r->slot = r->start;
	r->seq = rc->next_seq++;
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
	bio_list_init(&r->bios);
	bio_list_init(&r->chunk);
	bio_list_init(&r->waiters);
	rc->used++;
	rc->pend_slots++;
	rc->open = r;
	return r;
}

void __ressd_log_seal(struct ressd_c *rc, blk_opf_t flags)
{
	struct ressd_record *r = rc->open;

	lockdep_assert_held(&rc->lock);
	if (!r)
		return;
	/* The trailer takes the slot after the data (counted in used at open). */
	r->slot = rc->head;
	rc->head = ressd_rec_next_slot(&rc->lg, r->slot);
	r->flags |= flags;
	rc->open = NULL;
	rc->write_pending = false;
	list_add_tail(&r->list, &rc->sealed);
	queue_work(rc->wq, &rc->worker);
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_seal);

/*
 * The end of a burst: write the open record's pending data now when the log
 * device is idle; otherwise let it gather until the write in flight is done
 * (group commit: chunks grow with the load).
 */
static unsigned int commit_delay_us;
module_param(commit_delay_us, uint, 0644);
MODULE_PARM_DESC(commit_delay_us,
		 "Longest wait for more small writes before an idle log writes them (0: none)");

/* Nothing in flight and nothing sealed: the worker may write a chunk. */
static bool __ressd_log_idle(struct ressd_c *rc)
{
	return !rc->inflight && list_empty(&rc->sealed);
}

void __ressd_log_seal_soon(struct ressd_c *rc)
{
	unsigned int delay = READ_ONCE(commit_delay_us);

	lockdep_assert_held(&rc->lock);
	if (!rc->open || bio_list_empty(&rc->open->bios))
		return;
	/*
	 * Whatever happens next (a write completes, or the timer fires)
	 * writes the pending data because of this flag; the timer of an
	 * earlier burst may already be running, and serves this one too.
	 */
	rc->write_pending = true;
	if (!__ressd_log_idle(rc))
		return;
	if (!delay)
		queue_work(rc->wq, &rc->worker);
	else if (!hrtimer_active(&rc->seal_timer))
		hrtimer_start(&rc->seal_timer, ns_to_ktime((u64)delay * NSEC_PER_USEC),
			      HRTIMER_MODE_REL);
}

enum hrtimer_restart ressd_seal_timer(struct hrtimer *t)
{
	struct ressd_c *rc = container_of(t, struct ressd_c, seal_timer);
	unsigned long flags;

	spin_lock_irqsave(&rc->lock, flags);
	if (rc->write_pending && __ressd_log_idle(rc))
		queue_work(rc->wq, &rc->worker);
	spin_unlock_irqrestore(&rc->lock, flags);
	return HRTIMER_NORESTART;
}

/* Room for @nr more data blocks in the open record? */
static bool __ressd_rec_fits(struct ressd_record *r, u32 nr)
{
	return r->nr_data + nr <= r->cap &&
	       r->nr_data + nr + r->nr_inval <= RESSD_REC_MAX_ITEMS;
}

u32 __ressd_log_reserve(struct ressd_c *rc, struct bio *bio, u64 block, u32 nr)
{
	struct ressd_record *r = rc->open;
	u32 first, i;

	lockdep_assert_held(&rc->lock);
	if (!rc->recovered || rc->suspending || nr > __ressd_max_data(rc))
		return RESSD_NO_SLOT;
	if (r && !__ressd_rec_fits(r, nr)) {
		__ressd_log_seal(rc, 0);
		r = NULL;
	}
	if (!r) {
		if (!__ressd_log_room(rc, 1 + nr, false))
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
			if (!__ressd_log_room(rc, 1 + nr, false))
				return RESSD_NO_SLOT;
			r = __ressd_log_open(rc);
			if (!r)
				return RESSD_DEFER_SLOT;
		}
	} else if (!__ressd_log_room(rc, nr, false)) {
		return RESSD_NO_SLOT;
	}
	first = r->start + r->nr_data;
	if (WARN_ON_ONCE(first + nr >= rc->lg.nr_slots))
		return RESSD_NO_SLOT;
	for (i = 0; i < nr; i++) {
		r->items[r->nr_data + i].block = cpu_to_le64(block + i);
		r->items[r->nr_data + i].csum = 0;
	}
	r->nr_data += nr;
	__ressd_advance_head(rc, nr);
	bio_list_add(&r->bios, bio);
	/*
	 * A FUA write is acknowledged when its record is written: that record
	 * goes out with FUA, also when this write is what fills it (I1).  The
	 * block layer has already split a PREFLUSH off a write with data; one
	 * that still carries it is treated as FUA.
	 */
	if (bio->bi_opf & (REQ_FUA | REQ_PREFLUSH))
		__ressd_log_seal(rc, REQ_FUA);
	else if (!__ressd_rec_fits(r, 1))
		__ressd_log_seal(rc, 0);
	return first;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_reserve);

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
	struct ressd_record *r = rc->open;
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
		r->inval_gen = ++rc->inval_gen;
		done += n;
	}
	/* Only now, with the invalidation recorded, unmap the blocks. */
	spin_lock(&rc->index.lock);
	__ressd_index_remove_range(&rc->index, block, nr);
	spin_unlock(&rc->index.lock);
	if (rc->inflight && rc->inflight != rc->open)
		__ressd_kill_entries(rc->inflight, block, nr, false);
	list_for_each_entry(r, &rc->sealed, list)
		__ressd_kill_entries(r, block, nr, false);
	/* Last: the invalidation itself may have sealed the old open record. */
	if (rc->open)
		__ressd_kill_entries(rc->open, block, nr, true);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_log_invalidate);

/* An origin flush issued when rc->inval_gen was @gen completed (rc->lock held). */
void __ressd_origin_flushed(struct ressd_c *rc, u64 gen)
{
	lockdep_assert_held(&rc->lock);
	if (gen > rc->origin_flushed_gen)
		rc->origin_flushed_gen = gen;
}

/* Flush the origin; the invalidations recorded so far are then covered. */
int ressd_origin_flush(struct ressd_c *rc)
{
	u64 gen;
	int err;

	spin_lock_irq(&rc->lock);
	gen = rc->inval_gen;
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
	return rc->log_dirty || rc->inflight || !list_empty(&rc->sealed) ||
	       (rc->open && (rc->open->nr_data || rc->open->nr_inval));
}

static void ressd_complete_list(struct bio_list *list, blk_status_t status)
{
	struct bio *bio;

	while ((bio = bio_list_pop(list))) {
		if (status)
			bio->bi_status = status;
		bio_endio(bio);
	}
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
	rc->log_broken = true;
	spin_unlock_irqrestore(&rc->lock, flags);
	ressd_set_mode(rc, mode, why);
}

/*
 * The log write in flight is done: what every completion does last.  Its
 * writes and the flushes waiting on it get its status.
 */
static void ressd_log_write_done(struct ressd_c *rc, struct bio_list *bios,
				 struct bio_list *waiters, blk_status_t status)
{
	ressd_complete_list(bios, status);
	if (waiters)
		ressd_complete_list(waiters, status);
	wake_up_all(&rc->wait);
	queue_work(rc->wq, &rc->worker);
	ressd_mover_log_grew(rc);
}

/* A chunk of the open (or since sealed) record is on the log device. */
static void ressd_chunk_done(struct ressd_record *r)
{
	struct ressd_c *rc = r->rc;
	blk_status_t status = r->status;
	struct bio_list bios;
	unsigned long flags;

	spin_lock_irqsave(&rc->lock, flags);
	rc->inflight = NULL;
	if (!status) {
		__ressd_rec_index(rc, r, r->chunk_first, r->nr_sub);
		rc->log_dirty = true;
	}
	bios = r->chunk;
	bio_list_init(&r->chunk);
	spin_unlock_irqrestore(&rc->lock, flags);
	ressd_log_write_done(rc, &bios, NULL, status);
}

/* A record is on the medium (or failed): index it, complete its writes. */
static void ressd_record_done(struct ressd_record *r)
{
	struct ressd_c *rc = r->rc;
	blk_status_t status = r->status;
	struct bio_list bios, waiters;
	unsigned long flags;

	spin_lock_irqsave(&rc->lock, flags);
	rc->inflight = NULL;
	rc->pend_start = ressd_rec_next_slot(&rc->lg, r->slot);
	rc->pend_slots -= 1 + r->nr_data;
	if (!status) {
		if (!r->padding)
			__ressd_rec_index(rc, r, r->nr_sub, r->nr_data);
		if ((r->flags & (REQ_PREFLUSH | REQ_FUA)) == (REQ_PREFLUSH | REQ_FUA))
			rc->log_dirty = false;
		else if (!(r->flags & REQ_FUA))
			rc->log_dirty = true;
		rc->inval_written_gen = max(rc->inval_written_gen, r->inval_gen);
		/*
		 * A FUA record is durable, and so is everything before it: it
		 * carried PREFLUSH unless nothing written before was volatile.
		 */
		if (r->flags & REQ_FUA)
			rc->inval_durable_gen = rc->inval_written_gen;
	}
	bios = r->bios;
	waiters = r->waiters;
	bio_list_init(&r->bios);
	bio_list_init(&r->waiters);
	/* From here on r may be reopened: only the copies above are used. */
	list_add(&r->list, &rc->free_recs);
	spin_unlock_irqrestore(&rc->lock, flags);
	ressd_log_write_done(rc, &bios, &waiters, status);
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

				crc = crc32c(crc, p + off, n);
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
	w->bio = bio_alloc_bioset(rc->log->bdev, BIO_MAX_VECS, w->opf, GFP_NOIO, &rc->bs);
	w->bio->bi_iter.bi_sector = w->sector;
	w->bio->bi_end_io = w->end_io;
	w->bio->bi_private = w->r;
	__bio_add_page(w->bio, page, len, off);
added:
	w->sector += len >> SECTOR_SHIFT;
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

/* Write the chunk the worker took from the open record: data blocks only. */
static void ressd_chunk_submit(struct ressd_c *rc, struct ressd_record *r)
{
	struct ressd_log_write w = {
		.rc = rc, .r = r, .opf = REQ_OP_WRITE | REQ_SYNC,
		.end_io = ressd_chunk_endio,
		.sector = ressd_slot_sector(rc, r->start + r->chunk_first),
	};

	u32 end = ressd_bios_csum(rc, r, &r->chunk, r->chunk_first);

	WARN_ON_ONCE(end != r->nr_sub);
	atomic_set(&r->remaining, 1);
	ressd_lw_add_bios(&w, &r->chunk);
	if (ressd_lw_finish(&w))
		ressd_chunk_done(r);
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
	flush = r->nr_inval && r->inval_gen > rc->origin_flushed_gen;
	if (flush && rc->origin->bdev == rc->log->bdev) {
		r->flags |= REQ_PREFLUSH;
		flush = false;
	}
	spin_unlock_irq(&rc->lock);
	return flush ? ressd_origin_flush(rc) : 0;
}

/*
 * Write a sealed record: the data still pending, then its trailer, in as
 * few bios as the vector limit allows.  Each entry's crc32c is taken from
 * the data itself, before the write is acknowledged.
 */
static void ressd_record_submit(struct ressd_c *rc, struct ressd_record *r)
{
	struct ressd_log_write w = {
		.rc = rc, .r = r, .end_io = ressd_record_endio,
	};
	struct ressd_rec hdr = { };
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
		ressd_record_done(r);
		return;
	}
	i = ressd_bios_csum(rc, r, &r->bios, r->nr_sub);
	WARN_ON_ONCE(!r->padding && i != r->nr_data);
	WARN_ON_ONCE(r->slot != r->start + r->nr_data);

	spin_lock_irq(&rc->lock);
	hdr.tail_slot = rc->tail_slot;
	hdr.tail_seq = rc->tail_seq;
	hdr.epoch = rc->epoch;
	/* A FUA record commits what was written before it: flush that first. */
	if ((r->flags & REQ_FUA) && (rc->log_dirty || r->nr_sub))
		r->flags |= REQ_PREFLUSH;
	/* Entries superseded by its own invalidations are dead on disk. */
	for (i = 0; i < r->nr_data; i++)
		if (test_bit(i, r->dead))
			r->items[i].block = cpu_to_le64(RESSD_DEAD_BLOCK);
	spin_unlock_irq(&rc->lock);
	hdr.seq = r->seq;
	hdr.slot = r->slot;
	hdr.nr_data = r->nr_data;
	hdr.nr_inval = r->nr_inval;
	/* Invalidations were filled from the back: move them after the entries. */
	memmove(&r->items[r->nr_data], &r->items[RESSD_REC_MAX_ITEMS - r->nr_inval],
		r->nr_inval * sizeof(r->items[0]));
	ressd_rec_encode(page_address(r->hdr), &rc->lg, &hdr, r->items,
			 (struct ressd_disk_inval *)&r->items[r->nr_data]);

	w.opf = REQ_OP_WRITE | REQ_SYNC | (r->flags & (REQ_FUA | REQ_PREFLUSH));
	/* A padding record's dead slots are not written: only its trailer. */
	w.sector = ressd_slot_sector(rc, r->padding ? r->slot : r->start + r->nr_sub);
	atomic_set(&r->remaining, 1);
	ressd_lw_add_bios(&w, &r->bios);
	ressd_lw_add(&w, r->hdr, RESSD_BLOCK_SIZE, 0);
	atomic64_inc(&rc->metadata_commits);
	if (ressd_lw_finish(&w))
		ressd_record_done(r);
}

/* Flush waiters: attach them to the newest record, or flush the log. */
static void ressd_worker_flush(struct ressd_c *rc)
{
	struct bio_list waiters;
	struct ressd_record *r;
	int err;

	spin_lock_irq(&rc->lock);
	if (bio_list_empty(&rc->flush_waiters)) {
		spin_unlock_irq(&rc->lock);
		return;
	}
	if (rc->open && (rc->open->nr_data || rc->open->nr_inval))
		__ressd_log_seal(rc, 0);
	if (!list_empty(&rc->sealed)) {
		/* The newest sealed record flushes all before it. */
		r = list_last_entry(&rc->sealed, struct ressd_record, list);
		r->flags |= REQ_PREFLUSH | REQ_FUA;
		bio_list_merge(&r->waiters, &rc->flush_waiters);
		bio_list_init(&rc->flush_waiters);
		spin_unlock_irq(&rc->lock);
		return;
	}
	if (rc->inflight) {
		/* Wait for it; its completion runs the worker again. */
		spin_unlock_irq(&rc->lock);
		return;
	}
	waiters = rc->flush_waiters;
	bio_list_init(&rc->flush_waiters);
	if (rc->log_broken) {
		/* What was acknowledged after the last record is lost. */
		spin_unlock_irq(&rc->lock);
		ressd_complete_list(&waiters, BLK_STS_IOERR);
		return;
	}
	if (!rc->log_dirty) {
		spin_unlock_irq(&rc->lock);
		ressd_complete_list(&waiters, BLK_STS_OK);
		return;
	}
	spin_unlock_irq(&rc->lock);
	err = blkdev_issue_flush(rc->log->bdev);
	spin_lock_irq(&rc->lock);
	/* Nothing was written meanwhile: only the worker writes the log. */
	if (!err) {
		rc->log_dirty = false;
		rc->inval_durable_gen = rc->inval_written_gen;
	}
	spin_unlock_irq(&rc->lock);
	if (err)
		ressd_log_broken(rc, RESSD_MODE_FAIL, "log flush failed");
	ressd_complete_list(&waiters, errno_to_blk_status(err));
}

/* Held home writes whose invalidation found no room: try again. */
static void ressd_worker_inval_retry(struct ressd_c *rc)
{
	struct bio_list done, failed;
	struct bio *bio;
	bool wake;

	bio_list_init(&done);
	bio_list_init(&failed);
	spin_lock_irq(&rc->lock);
	if (rc->mode != RESSD_MODE_RW) {
		/*
		 * Only the mover can make room, and it runs only in rw: these
		 * writes are complete at home, but their invalidation will
		 * never be recorded, so the logged copy stays the one a read
		 * returns, and they fail.
		 */
		while ((bio = bio_list_pop(&rc->inval_retry))) {
			struct ressd_io *io = dm_per_bio_data(bio, sizeof(struct ressd_io));

			list_del_init(&io->busy);
			bio_list_add(&failed, bio);
		}
	}
	while ((bio = bio_list_peek(&rc->inval_retry))) {
		struct ressd_io *io = dm_per_bio_data(bio, sizeof(struct ressd_io));

		if (!__ressd_log_invalidate(rc, io->block, io->nr))
			break;
		bio_list_pop(&rc->inval_retry);
		list_del_init(&io->busy);
		if (bio->bi_opf & REQ_FUA)
			bio_list_add(&rc->flush_waiters, bio);
		else
			bio_list_add(&done, bio);
	}
	/* Still no room: the mover must make it, even paused (mover.c). */
	wake = !bio_list_empty(&rc->inval_retry);
	spin_unlock_irq(&rc->lock);
	if (wake)
		wake_up(&rc->mover_wait);
	ressd_complete_list(&done, BLK_STS_OK);
	ressd_complete_list(&failed, BLK_STS_IOERR);
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
	if (rc->inflight)
		return NULL;
	r = list_first_entry_or_null(&rc->sealed, struct ressd_record, list);
	if (r) {
		list_del_init(&r->list);
		*chunk = false;
	} else {
		r = rc->open;
		if (!r || !rc->write_pending || bio_list_empty(&r->bios))
			return NULL;
		rc->write_pending = false;
		r->chunk = r->bios;
		bio_list_init(&r->bios);
		r->chunk_first = r->nr_sub;
		r->nr_sub = r->nr_data;
		*chunk = true;
	}
	rc->inflight = r;
	return r;
}

void ressd_worker(struct work_struct *ws)
{
	struct ressd_c *rc = container_of(ws, struct ressd_c, worker);
	struct ressd_record *r;
	struct bio_list bios;
	struct bio *bio;
	bool chunk = false;

	ressd_worker_inval_retry(rc);
	ressd_worker_flush(rc);
	for (;;) {
		bool broken;

		spin_lock_irq(&rc->lock);
		r = __ressd_next_write(rc, &chunk);
		broken = rc->log_broken;
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
		} else if (chunk) {
			ressd_chunk_submit(rc, r);
		} else {
			ressd_record_submit(rc, r);
		}
	}
	ressd_worker_flush(rc);

	spin_lock_irq(&rc->lock);
	bios = rc->deferred;
	bio_list_init(&rc->deferred);
	spin_unlock_irq(&rc->lock);
	while ((bio = bio_list_pop(&bios))) {
		switch (ressd_map_bio(rc, bio)) {
		case DM_MAPIO_REMAPPED:
			dm_submit_bio_remap(bio, NULL);
			break;
		case DM_MAPIO_KILL:
			bio_io_error(bio);
			break;
		default:	/* held in a record, or deferred again */
			break;
		}
	}
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
	bio_list_add(&rc->flush_waiters, token);
	spin_unlock_irq(&rc->lock);
	queue_work(rc->wq, &rc->worker);
	wait_for_completion(&done);
	r = blk_status_to_errno(token->bi_status);
	bio_put(token);
	return r;
}

/*
 * Recovery and the mover's plan read the log forward, record after record:
 * read ahead RESSD_RA_SLOTS slots per request instead of one block per
 * synchronous read.  The window is never refreshed, so a reader may only
 * ask for slots that do not change while it holds the window (written
 * records between the tail and the records in flight).
 */
#define RESSD_RA_SLOTS	64

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

int ressd_ra_read(void *ctx, u32 slot, void *buf)
{
	struct ressd_readahead *ra = ctx;
	struct ressd_c *rc = ra->rc;

	if (slot >= rc->lg.nr_slots)
		return -EINVAL;
	if (slot < ra->start || slot - ra->start >= ra->nr) {
		u32 i, n = min_t(u32, RESSD_RA_SLOTS, rc->lg.nr_slots - slot);
		struct bio bio;
		int r;

		ra->nr = 0;
		bio_init(&bio, rc->log->bdev, ra->bvec, n, REQ_OP_READ | REQ_SYNC);
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

int ressd_log_recover(struct ressd_c *rc)
{
	struct page *hdr = alloc_page(GFP_KERNEL), *data = alloc_page(GFP_KERNEL);
	struct ressd_readahead *ra = ressd_ra_alloc(rc);
	struct ressd_replay rp = { };
	const char *err = NULL;
	int r = -ENOMEM;

	if (!hdr || !data || !ra)
		goto out;
	/* A resume retried after a failed recovery: replay into an empty index. */
	ressd_index_reset(&rc->index);
	/* The superblock may have moved on since the constructor read it. */
	r = ressd_meta_load(rc, false, &err);
	if (r)
		goto out;
	if (rc->sb.nonce != rc->lg.nonce) {
		err = "Log was reformatted under the table";
		r = -EINVAL;
		goto out;
	}
	rp.lg = &rc->lg;
	rp.tail_slot = rc->sb.tail_slot;
	rp.tail_seq = rc->sb.tail_seq;
	rp.tail_epoch = rc->sb.tail_epoch;
	rp.epoch = rc->sb.epoch;
	rp.read = ressd_ra_read;
	rp.ctx = ra;
	rp.hdr = page_address(hdr);
	rp.data = page_address(data);
	rp.idx = &rc->index;
	r = ressd_replay(&rp, &err);
	if (r)
		goto out;

	spin_lock_irq(&rc->lock);
	rc->head = rp.head;
	rc->next_seq = rp.next_seq;
	rc->tail_slot = rp.new_tail_slot;
	rc->tail_seq = rp.new_tail_seq;
	rc->used = rp.used;
	rc->pend_start = rp.head;
	rc->pend_slots = 0;
	rc->log_dirty = false;
	rc->epoch = rc->sb.epoch + 1;
	rc->epoch_first_seq = rp.next_seq;
	/*
	 * Nothing left in the log: the next record at the checkpoint is
	 * written in the new epoch, and nothing older may be taken for it.
	 */
	rc->tail_epoch = rp.new_tail_seq == rp.next_seq ? rc->epoch : rp.new_tail_epoch;
	spin_unlock_irq(&rc->lock);

	if (!(dm_table_get_mode(rc->ti->table) & FMODE_WRITE)) {
		/* Read-only table: serve what the log holds, change nothing. */
		spin_lock_irq(&rc->lock);
		rc->mode = RESSD_MODE_RO;
		spin_unlock_irq(&rc->lock);
		DMINFO("read-only table: %llu blocks in the log, nothing written",
		       rc->index.mapped);
		goto out;
	}
	/* The checkpoint with the new epoch goes out before any new record. */
	mutex_lock(&rc->meta_lock);
	rc->sb.tail_slot = rp.new_tail_slot;
	rc->sb.tail_seq = rp.new_tail_seq;
	rc->sb.epoch++;
	rc->sb.tail_epoch = rc->tail_epoch;
	rc->sb.compat |= RESSD_FEATURE_COMPAT_TAIL_EPOCH;
	mutex_unlock(&rc->meta_lock);
	r = ressd_meta_write_sb(rc);
	if (r) {
		err = "Error writing the checkpoint";
		goto out;
	}
	DMINFO("recovered %u records: %llu blocks in the log, %llu torn, %u/%u slots used (%s)",
	       rp.records, rc->index.mapped, rp.bad_data, rp.used, rc->lg.nr_slots,
	       rp.stop ? rp.stop : "end");
out:
	if (r)
		DMERR("recovery failed: %s (%d)", err ? err : "out of memory", r);
	if (hdr)
		__free_page(hdr);
	if (data)
		__free_page(data);
	ressd_ra_free(ra);
	return r;
}
