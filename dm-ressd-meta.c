// SPDX-License-Identifier: GPL-2.0-only
/*
 * The superblocks of the reserved area.
 *
 * This file owns blocks 0 and 1 of the log range: the two superblock copies
 * A and B.  Each write goes to the copy that does not hold the newest
 * generation, with PREFLUSH and FUA, so that a torn or lost write leaves the
 * other copy intact; on load the valid copy with the higher generation wins.
 *
 * Format rule: a log range whose first 4 KiB are all zero is formatted (a new
 * random nonce, generation 1 in copy A and 2 in copy B, an empty log).  A log
 * with at least one valid superblock is loaded.  Anything else is refused
 * with a specific message; the target never reformats on its own.
 *
 * A superblock is valid when, in this order, its magic, its own location,
 * its checksum (crc32c seeded with the nonce it carries), its version, its
 * feature flags, and its geometry (which must equal the table's) check out.
 * Every failed check logs the value found and the value expected.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/gfp.h>
#include <linux/random.h>
#include <linux/string.h>

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
	/* Copy B first: copy A, which decides the format rule, comes last. */
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

int ressd_meta_load(struct ressd_c *rc, const char **error)
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

	if (ressd_block_is_zero(page_address(page[0]))) {
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
	if ((u64)slot + 1 + r->nr_data > lg->nr_slots)
		return "record runs past the end of the log";
	if (r->tail_slot >= lg->nr_slots)
		return "record checkpoint out of range";
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

/*
 * Read and check the header expected at @slot with @seq, whose epoch must
 * lie between @min_epoch (its predecessor's) and the superblock's.
 * Returns 0 for a valid header, 1 at the end of the chain (rp->stop says
 * why), or the read error.
 */
static int ressd_replay_header(struct ressd_replay *rp, u32 slot, u64 seq,
			       u64 min_epoch, struct ressd_rec *r)
{
	const char *why;
	int err;

	err = rp->read(rp->ctx, slot, rp->hdr);
	if (err)
		return err;
	why = ressd_rec_decode(rp->hdr, rp->lg, slot, r);
	if (!why && r->seq != seq)
		why = "sequence break";
	if (!why && (r->epoch < min_epoch || r->epoch > rp->epoch))
		why = "epoch out of order";
	if (why) {
		rp->stop = why;
		return 1;
	}
	return 0;
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
		u32 slot = r->slot + 1 + i;

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
	u64 seq = rp->tail_seq, epoch = 0;
	struct ressd_rec r;
	int ret;

	rp->new_tail_slot = rp->tail_slot;
	rp->new_tail_seq = rp->tail_seq;
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
		slot = ressd_rec_next_slot(lg, slot, r.nr_data);
	}
	rp->head = slot;
	rp->next_seq = seq;
	rp->last_epoch = epoch;

	slot = rp->tail_slot;
	seq = rp->tail_seq;
	epoch = 0;
	for (i = 0; i < nr_rec; i++) {
		ret = ressd_replay_header(rp, slot, seq, epoch, &r);
		if (ret < 0)
			goto read_error;
		if (ret) {
			*error = "Log changed while it was replayed";
			return -EIO;
		}
		if (seq == rp->new_tail_seq && slot != rp->new_tail_slot)
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
		slot = ressd_rec_next_slot(lg, slot, r.nr_data);
	}
	if (rp->new_tail_seq == seq && rp->new_tail_slot != slot)
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
