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

/* Checksum of a superblock block: over 4 KiB with the csum field as zero. */
static u32 ressd_sb_csum(const struct ressd_disk_sb *sb)
{
	u64 nonce = le64_to_cpu(sb->nonce);
	u32 zero = 0, crc;
	const u8 *p = (const u8 *)sb;
	size_t off = offsetof(struct ressd_disk_sb, csum);
	u32 seed = (u32)nonce ^ (u32)(nonce >> 32);

	crc = crc32c(seed, p, off);
	crc = crc32c(crc, &zero, sizeof(zero));
	return crc32c(crc, p + off + sizeof(zero),
		      RESSD_BLOCK_SIZE - off - sizeof(zero));
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
