// SPDX-License-Identifier: GPL-2.0-only
/*
 * The on-disk codec of dm-ressd: checksums, the superblock's encoder and
 * checker, the record trailer's encoder and decoder, the search for a
 * record's trailer, and replay.
 *
 * Everything here is pure: it reads and writes memory and, in replay, the
 * index, but it does no I/O of its own (reads go through a callback) and
 * takes no lock of the target.  So it is compiled unchanged by the module,
 * by the KUnit suites and by the user-space fuzzers (tests/fuzz), and what
 * they prove of it holds for the module.
 *
 * The layout it encodes is in dm-ressd-format.h; the rules it checks are
 * Documentation/dm-ressd-design.rst's.  Every value read from disk is
 * bounds-checked here before anything uses it (I7): a superblock is checked
 * in the order magic, location, checksum, version, features, block size,
 * checkpoint, geometry, and every failed check logs the value found and
 * the value expected; a trailer is checked for magic, nonce, its own slot,
 * its checksum and the range of every count, block and slot it names.
 *
 * Replay (I2, I6): the chain of records from the checkpoint is walked
 * twice.  The first pass finds its end and the newest checkpoint any record
 * carries; the second applies, in order, the records from that checkpoint
 * on: a record's invalidations first, then its entries whose data checksum
 * matches.  Nothing is written, so a crash during replay replays the same
 * way again.
 */
#include <linux/device-mapper.h>	/* DMERR and friends, nothing else */
#include <linux/string.h>

#include "compat.h"
#include "dm-ressd-codec.h"
#include "dm-ressd-index.h"

#define DM_MSG_PREFIX "ressd-meta"

u32 ressd_csum(u64 nonce, const void *data, size_t len)
{
	return ressd_crc32c_update((u32)nonce ^ (u32)(nonce >> 32), data, len);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_csum);

bool ressd_block_is_zero(const void *block)
{
	return !memchr_inv(block, 0, RESSD_BLOCK_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_block_is_zero);

u32 ressd_nr_slots(sector_t log_sectors)
{
	u64 blocks = ressd_block_of(log_sectors);

	if (blocks <= RESSD_SB_BLOCKS)
		return 0;
	return min_t(u64, blocks - RESSD_SB_BLOCKS, RESSD_MAX_SLOTS);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_nr_slots);

/*
 * Checksum of a metadata block (superblock or record trailer): crc32c over
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
	crc = ressd_crc32c_update(seed, p, RESSD_CSUM_OFFSET);
	crc = ressd_crc32c_update(crc, &zero, sizeof(zero));
	return ressd_crc32c_update(crc, p + RESSD_CSUM_OFFSET + sizeof(zero),
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
	if (le64_to_cpu(sb->generation) > RESSD_MAX_GENERATION) {
		DMERR("superblock %llu: generation %llu above %llu", location,
		      le64_to_cpu(sb->generation), RESSD_MAX_GENERATION);
		return "Superblock generation out of range";
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

void ressd_sb_decode(const struct ressd_disk_sb *sb, struct ressd_sb_info *info)
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
EXPORT_SYMBOL_IF_KUNIT(ressd_sb_decode);

/* ---- log records ---- */

void ressd_rec_encode(void *blk, const struct ressd_log_geo *lg,
		      const struct ressd_trailer *r,
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

u32 ressd_rec_mark_ordered(void *blk, const struct ressd_log_geo *lg,
			   const unsigned long *ordered)
{
	struct ressd_disk_rec *rec = blk;
	u32 i, n = 0, nr = le16_to_cpu(rec->nr_data);

	for (i = 0; i < nr && i < RESSD_REC_MAX_ITEMS; i++) {
		u64 b = le64_to_cpu(rec->entries[i].block);

		if (!test_bit(i, ordered) || b == RESSD_DEAD_BLOCK)
			continue;
		rec->entries[i].block = cpu_to_le64(b | RESSD_ENTRY_ORDERED);
		rec->entries[i].csum = 0;
		n++;
	}
	if (n)
		rec->csum = cpu_to_le32(ressd_block_csum(blk, lg->nonce));
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_rec_mark_ordered);

const char *ressd_rec_decode(const void *blk, const struct ressd_log_geo *lg,
			     u32 slot, struct ressd_trailer *r)
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

		if (b == RESSD_DEAD_BLOCK)
			continue;
		if (ressd_entry_ordered(b)) {
			if (e[i].csum)
				return "ordered record entry with a checksum";
			b &= ~RESSD_ENTRY_ORDERED;
		}
		if (b >= lg->origin_blocks)
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

const char *ressd_rec_check(const void *buf, const struct ressd_log_geo *lg, u32 slot,
			    u32 start, u64 seq, u64 min_epoch, u64 max_epoch,
			    struct ressd_trailer *r)
{
	const char *w = ressd_rec_decode(buf, lg, slot, r);

	if (!w && r->seq != seq)
		w = "sequence break";
	if (!w && ressd_rec_start(r) != start)
		w = "record does not start where the chain goes on";
	if (!w && (r->epoch < min_epoch || r->epoch > max_epoch))
		w = "epoch out of order";
	return w;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_rec_check);

int ressd_rec_find(int (*read)(void *ctx, u32 slot, void *buf), void *ctx,
		   const struct ressd_log_geo *lg, u32 start, u64 seq,
		   u64 min_epoch, u64 max_epoch, void *buf, struct ressd_trailer *r,
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
		w = ressd_rec_check(buf, lg, u, start, seq, min_epoch, max_epoch, r);
		if (!w)
			return 0;
		if (!miss)
			miss = w;
	}
	*why = miss ? miss : "no record trailer";
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_rec_find);

int ressd_log_find_newer(int (*read)(void *ctx, u32 slot, void *buf), void *ctx,
			 const struct ressd_log_geo *lg, u64 epoch, u64 tail_seq,
			 void *buf, struct ressd_trailer *r)
{
	u32 u;
	int err;

	for (u = 0; u < lg->nr_slots; u++) {
		err = read(ctx, u, buf);
		if (err)
			return err;
		/* Data blocks fail the decoder's first check, the magic. */
		if (!ressd_rec_decode(buf, lg, u, r) &&
		    (r->epoch > epoch || r->tail_seq > tail_seq))
			return 1;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_find_newer);

/*
 * Find the trailer of the record that starts at @slot with @seq, whose
 * epoch must lie between @min_epoch (its predecessor's) and the
 * superblock's.  Returns 0 for a valid record, 1 at the end of the chain
 * (rp->stop says why), or the read error.
 */
static int ressd_replay_trailer(struct ressd_replay *rp, u32 slot, u64 seq,
				u64 min_epoch, struct ressd_trailer *r)
{
	return ressd_rec_find(rp->read, rp->ctx, rp->lg, slot, seq, min_epoch,
			      rp->epoch, rp->trailer, r, &rp->stop);
}

/* Apply one valid record (its trailer in rp->trailer): invalidations, entries. */
static int ressd_replay_apply(struct ressd_replay *rp, const struct ressd_trailer *r)
{
	const struct ressd_disk_rec *rec = rp->trailer;
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
		if (ressd_entry_ordered(block)) {
			/* Durable before its trailer was: nothing to check. */
			block &= ~RESSD_ENTRY_ORDERED;
			rp->ordered++;
		} else {
			err = rp->read(rp->ctx, slot, rp->data);
			if (err)
				return err;
			/*
			 * A torn record: this block never became durable; keep
			 * the older copy.
			 */
			if (ressd_csum(rp->lg->nonce, rp->data, RESSD_BLOCK_SIZE) !=
			    le32_to_cpu(e[i].csum)) {
				rp->bad_data++;
				continue;
			}
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
	struct ressd_trailer r;
	int ret;

	rp->new_tail_slot = rp->tail_slot;
	rp->new_tail_seq = rp->tail_seq;
	rp->new_tail_epoch = rp->tail_epoch;
	rp->records = 0;
	rp->entries = 0;
	rp->bad_data = 0;
	rp->ordered = 0;
	rp->invalidated = 0;
	rp->used = 0;
	rp->stop = NULL;

	for (;;) {
		if (walked >= lg->nr_slots) {
			rp->stop = "the chain fills the log";
			break;
		}
		ret = ressd_replay_trailer(rp, slot, seq, epoch, &r);
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
		ret = ressd_replay_trailer(rp, slot, seq, epoch, &r);
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
			if (rp->trailers)
				__set_bit(r.slot, rp->trailers);
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

u64 ressd_checkpoint_epoch(u64 seq, u64 first_seq, u64 epoch, u64 chain_epoch)
{
	return seq >= first_seq ? epoch : chain_epoch;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_checkpoint_epoch);
