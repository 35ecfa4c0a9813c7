// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reserved area read from user space: a deliberately independent second
 * implementation of dm-ressd-format.c's checks and replay (see log.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "log.h"
#include "util.h"

#define NONE_BLOCK	UINT64_MAX
#define RA_BLOCKS	256	/* 1 MiB per read */

u32 ressd_nr_slots(u64 log_sectors)
{
	u64 blocks = log_sectors >> 3;

	if (blocks <= RESSD_SB_BLOCKS)
		return 0;
	blocks -= RESSD_SB_BLOCKS;
	return blocks > RESSD_MAX_SLOTS ? RESSD_MAX_SLOTS : (u32)blocks;
}

const char *geo_check(const struct ressd_geo *g, u64 log_dev_sectors)
{
	if (!g->origin_sectors || g->origin_sectors % RESSD_SECTORS_PER_BLOCK)
		return "Length must be a multiple of 8 sectors";
	if (g->origin_offset % RESSD_SECTORS_PER_BLOCK)
		return "Origin offset must be a multiple of 8 sectors";
	if (g->log_offset % RESSD_SECTORS_PER_BLOCK)
		return "Log offset must be a multiple of 8 sectors";
	if (g->log_sectors % RESSD_SECTORS_PER_BLOCK)
		return "Log size must be a multiple of 8 sectors";
	if (g->log_sectors < (u64)RESSD_MIN_LOG_BLOCKS * RESSD_SECTORS_PER_BLOCK)
		return "Log range too small: at least 72 KiB";
	if ((g->log_sectors >> 3) - RESSD_SB_BLOCKS > RESSD_MAX_SLOTS)
		return "Log range too large";
	if ((g->origin_sectors >> 3) - 1 > RESSD_MAX_BLOCK)
		return "Origin range too large";
	if (g->log_offset + g->log_sectors < g->log_offset ||
	    g->log_offset + g->log_sectors > log_dev_sectors)
		return "Log range exceeds the log device";
	return NULL;
}

/* ---- the log range ---- */

int logdev_init(struct logdev *l, const struct rdev *d, u64 base, u64 nr_blocks)
{
	memset(l, 0, sizeof(*l));
	l->d = d;
	l->base = base;
	l->nr_blocks = nr_blocks;
	l->ra = xmalloc_aligned((size_t)RA_BLOCKS * RESSD_BLOCK_SIZE);
	return 0;
}

void logdev_exit(struct logdev *l)
{
	free(l->ra);
	l->ra = NULL;
}

int logdev_read(struct logdev *l, u64 b, void *buf)
{
	if (b >= l->nr_blocks)
		return -EINVAL;
	l->reads++;
	if (b < l->ra_start || b - l->ra_start >= l->ra_nr) {
		u64 n = l->nr_blocks - b;
		int r;

		if (n > RA_BLOCKS)
			n = RA_BLOCKS;
		l->ra_nr = 0;
		r = rdev_read(l->d, l->base + b * RESSD_BLOCK_SIZE, l->ra,
			      (size_t)n * RESSD_BLOCK_SIZE);
		if (r)
			return r;
		l->ra_start = b;
		l->ra_nr = (u32)n;
	}
	memcpy(buf, l->ra + (b - l->ra_start) * RESSD_BLOCK_SIZE, RESSD_BLOCK_SIZE);
	return 0;
}

/* ---- superblocks ---- */

void sb_decode(const void *blk, struct sb_info *i)
{
	const struct ressd_disk_sb *sb = blk;

	memset(i, 0, sizeof(*i));
	i->nonce = le64_get(sb->nonce);
	i->generation = le64_get(sb->generation);
	i->location = le64_get(sb->location);
	i->version = le32_get(sb->version);
	i->compat = le32_get(sb->compat);
	i->ro_compat = le32_get(sb->ro_compat);
	i->incompat = le32_get(sb->incompat);
	i->block_size = le32_get(sb->block_size);
	i->geo.origin_offset = le64_get(sb->origin_offset);
	i->geo.origin_sectors = le64_get(sb->origin_sectors);
	i->geo.log_offset = le64_get(sb->log_offset);
	i->geo.log_sectors = le64_get(sb->log_sectors);
	i->nr_slots = le32_get(sb->nr_slots);
	i->t.small_write_max = le32_get(sb->small_write_max);
	i->t.mover_batch = le32_get(sb->mover_batch);
	i->t.high_watermark = le32_get(sb->high_watermark);
	i->t.low_watermark = le32_get(sb->low_watermark);
	i->tail_slot = le32_get(sb->tail_slot);
	i->tail_seq = le64_get(sb->tail_seq);
	i->epoch = le64_get(sb->epoch);
	i->tail_epoch = le64_get(sb->tail_epoch);
}

const char *sb_check(const void *blk, u64 location, const struct ressd_geo *g,
		     char *detail, size_t n)
{
	const struct ressd_disk_sb *sb = blk;
	struct sb_info i;
	u32 csum;

	sb_decode(blk, &i);
	detail[0] = 0;
	if (le64_get(sb->magic) != RESSD_SB_MAGIC) {
		snprintf(detail, n, "magic %" PRIx64 ", expected %llx",
			 le64_get(sb->magic), RESSD_SB_MAGIC);
		return "Bad superblock magic";
	}
	if (i.location != location) {
		snprintf(detail, n, "says it is at block %" PRIu64, i.location);
		return "Superblock at the wrong location";
	}
	csum = ressd_block_csum(blk, i.nonce);
	if (le32_get(sb->csum) != csum) {
		snprintf(detail, n, "checksum %08x, computed %08x", le32_get(sb->csum), csum);
		return "Bad superblock checksum";
	}
	if (i.generation > RESSD_MAX_GENERATION) {
		snprintf(detail, n, "generation %" PRIu64 " above %llu", i.generation,
			 RESSD_MAX_GENERATION);
		return "Superblock generation out of range";
	}
	if (i.version < RESSD_FORMAT_MIN || i.version > RESSD_FORMAT_MAX) {
		snprintf(detail, n, "format version %u, supported %u..%u", i.version,
			 RESSD_FORMAT_MIN, RESSD_FORMAT_MAX);
		return "Unsupported on-disk format version";
	}
	if (i.incompat & ~RESSD_FEATURE_INCOMPAT_SUPP) {
		snprintf(detail, n, "unknown incompatible features %x",
			 i.incompat & ~RESSD_FEATURE_INCOMPAT_SUPP);
		return "Unknown incompatible feature";
	}
	if (i.block_size != RESSD_BLOCK_SIZE) {
		snprintf(detail, n, "block size %u, expected %u", i.block_size, RESSD_BLOCK_SIZE);
		return "Unsupported block size";
	}
	if (i.tail_slot >= i.nr_slots) {
		snprintf(detail, n, "tail slot %u beyond %u slots", i.tail_slot, i.nr_slots);
		return "Superblock checkpoint out of range";
	}
	if (i.tail_seq > RESSD_MAX_SEQ) {
		snprintf(detail, n, "sequence number %" PRIu64 " above %llu", i.tail_seq,
			 RESSD_MAX_SEQ);
		return "Superblock checkpoint out of range";
	}
	if (i.epoch > RESSD_MAX_EPOCH) {
		snprintf(detail, n, "epoch %" PRIu64 " above %llu", i.epoch, RESSD_MAX_EPOCH);
		return "Superblock checkpoint out of range";
	}
	if (i.tail_epoch > i.epoch) {
		snprintf(detail, n, "checkpoint epoch %" PRIu64 " above the epoch %" PRIu64,
			 i.tail_epoch, i.epoch);
		return "Superblock checkpoint out of range";
	}
	if (g) {
		static const char *const name[] = {
			"origin offset", "origin length", "log offset", "log size"
		};
		const u64 found[] = { i.geo.origin_offset, i.geo.origin_sectors,
				      i.geo.log_offset, i.geo.log_sectors };
		const u64 want[] = { g->origin_offset, g->origin_sectors,
				     g->log_offset, g->log_sectors };
		size_t k;

		for (k = 0; k < ARRAY_SIZE(found); k++) {
			if (found[k] != want[k]) {
				snprintf(detail, n, "%s is %" PRIu64 ", the label says %" PRIu64,
					 name[k], found[k], want[k]);
				return "Superblock geometry does not match the table";
			}
		}
	}
	if (i.nr_slots != ressd_nr_slots(i.geo.log_sectors)) {
		snprintf(detail, n, "%u log slots, expected %u", i.nr_slots,
			 ressd_nr_slots(i.geo.log_sectors));
		return "Superblock geometry does not match the table";
	}
	return NULL;
}

/* ---- records ---- */

const char *rec_decode(const void *blk, const struct log_geo *lg, u32 slot, struct rec *r)
{
	const struct ressd_disk_rec *rec = blk;
	const u8 *items = (const u8 *)blk + RESSD_REC_HDR_SIZE;
	u32 i, v;

	memset(r, 0, sizeof(*r));
	if (le64_get(rec->magic) != RESSD_REC_MAGIC)
		return "no record magic";
	if (le64_get(rec->nonce) != lg->nonce)
		return "record of another volume";
	if (le32_get(rec->slot) != slot)
		return "record written for another slot";
	if (le32_get(rec->csum) != ressd_block_csum(blk, lg->nonce))
		return "bad record checksum";
	v = le32_get(rec->version);
	if (v < RESSD_FORMAT_MIN || v > RESSD_FORMAT_MAX)
		return "unsupported record version";
	if (rec->flags)
		return "unknown record flags";

	r->seq = le64_get(rec->seq);
	r->epoch = le64_get(rec->epoch);
	r->slot = slot;
	r->nr_data = le16_get(rec->nr_data);
	r->nr_inval = le16_get(rec->nr_inval);
	r->tail_slot = le32_get(rec->tail_slot);
	r->tail_seq = le64_get(rec->tail_seq);

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
		struct ressd_disk_entry e;
		u64 b;

		memcpy(&e, items + i * sizeof(e), sizeof(e));
		b = le64_get(e.block);
		if (b == RESSD_DEAD_BLOCK)
			continue;
		if (ressd_entry_ordered(b)) {
			if (le32_get(e.csum))
				return "ordered record entry with a checksum";
			b &= ~RESSD_ENTRY_ORDERED;
		}
		if (b >= lg->origin_blocks)
			return "record entry beyond the origin";
	}
	for (i = 0; i < r->nr_inval; i++) {
		struct ressd_disk_inval inv;
		u64 b;
		u32 n;

		memcpy(&inv, items + (r->nr_data + i) * sizeof(inv), sizeof(inv));
		b = le64_get(inv.block);
		n = le32_get(inv.nr_blocks);
		if (!n || b >= lg->origin_blocks || n > lg->origin_blocks - b)
			return "record invalidation beyond the origin";
	}
	return NULL;
}

/* ---- the mapping: block -> slot, open addressing ---- */

static u64 hash64(u64 k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

static int bmap_init(struct bmap *m, u32 nr_slots)
{
	u64 cap = 16, i;

	while (cap < 2 * (u64)nr_slots)
		cap <<= 1;
	m->keys = malloc(cap * sizeof(*m->keys));
	m->vals = malloc(cap * sizeof(*m->vals));
	if (!m->keys || !m->vals)
		return -ENOMEM;
	for (i = 0; i < cap; i++)
		m->keys[i] = NONE_BLOCK;
	m->mask = cap - 1;
	m->count = 0;
	return 0;
}

static void bmap_free(struct bmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
}

/* Index of @block, or of the empty place where it would go. */
static u64 bmap_find(const struct bmap *m, u64 block)
{
	u64 i = hash64(block) & m->mask;

	while (m->keys[i] != NONE_BLOCK && m->keys[i] != block)
		i = (i + 1) & m->mask;
	return i;
}

/* Remove the key at @i, shifting back the run after it. */
static void bmap_delete_at(struct bmap *m, u64 i)
{
	u64 j = i;

	for (;;) {
		u64 home;

		j = (j + 1) & m->mask;
		if (m->keys[j] == NONE_BLOCK)
			break;
		home = hash64(m->keys[j]) & m->mask;
		/* Can the key at j move to the hole at i? (i cyclically in [home, j)) */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = NONE_BLOCK;
	m->count--;
}

/* __ressd_index_insert(): map @block to @slot, replacing an older mapping. */
static void map_insert(struct replay *rp, u64 block, u32 slot)
{
	struct bmap *m = &rp->map;
	u64 i;

	if (rp->slot_block[slot] != NONE_BLOCK) {	/* never in a valid chain */
		i = bmap_find(m, rp->slot_block[slot]);
		if (m->keys[i] != NONE_BLOCK)
			bmap_delete_at(m, i);
	}
	i = bmap_find(m, block);
	if (m->keys[i] == block) {
		rp->slot_block[m->vals[i]] = NONE_BLOCK;
	} else {
		m->keys[i] = block;
		m->count++;
	}
	m->vals[i] = slot;
	rp->slot_block[slot] = block;
}

/* __ressd_index_remove_range(): how many blocks of [block, block + nr) were mapped. */
static u64 map_remove_range(struct replay *rp, u64 block, u64 nr)
{
	struct bmap *m = &rp->map;
	u64 removed = 0, k, i;

	if (nr <= rp->lg->nr_slots) {
		for (k = 0; k < nr; k++) {
			i = bmap_find(m, block + k);
			if (m->keys[i] == NONE_BLOCK)
				continue;
			rp->slot_block[m->vals[i]] = NONE_BLOCK;
			bmap_delete_at(m, i);
			removed++;
		}
		return removed;
	}
	for (k = 0; k < rp->lg->nr_slots; k++) {
		u64 b = rp->slot_block[k];

		if (b == NONE_BLOCK || b < block || b - block >= nr)
			continue;
		i = bmap_find(m, b);
		bmap_delete_at(m, i);
		rp->slot_block[k] = NONE_BLOCK;
		removed++;
	}
	return removed;
}

/* ---- replay: ressd_replay() ---- */

/*
 * ressd_rec_find() through ressd_replay_trailer(): find the trailer of the
 * record that starts at @start with @seq and an epoch in [@min_epoch, the
 * superblock's]: the first slot from @start on (at most RESSD_REC_MAX_ITEMS
 * further, before the end of the log) that holds one; @hdr gets it.  0
 * found; 1 end of the chain, where rp->stop says why (the first block with
 * the record magic that was refused, or "no record trailer") and the other
 * rp->stop_* fields where; <0 a read error.  rp is only written on 1.
 */
static int replay_header(struct replay *rp, u8 *hdr, u32 start, u64 seq, u64 min_epoch,
			 struct rec *r)
{
	const struct ressd_disk_rec *rec = (const struct ressd_disk_rec *)hdr;
	const struct log_geo *lg = rp->lg;
	u64 end = (u64)start + RESSD_REC_MAX_ITEMS;
	u32 last, u, miss_slot = 0;
	const char *miss = NULL;
	bool miss_has_rec = false;
	struct rec m, miss_rec;
	int err;

	memset(&miss_rec, 0, sizeof(miss_rec));
	if (start >= lg->nr_slots) {
		rp->stop = "record start beyond the log";
		rp->stop_slot = start;
		rp->stop_last = start - 1;
		rp->stop_miss = false;
		rp->stop_has_rec = false;
		return 1;
	}
	last = end < lg->nr_slots - 1 ? (u32)end : lg->nr_slots - 1;
	for (u = start; u <= last; u++) {
		const char *bad, *w;

		err = logdev_read(rp->l, RESSD_SB_BLOCKS + (u64)u, hdr);
		if (err)
			return err;
		/* Data blocks: skipped without a word. */
		if (le64_get(rec->magic) != RESSD_REC_MAGIC)
			continue;
		bad = rec_decode(hdr, lg, u, &m);
		w = bad;
		if (!w && m.seq != seq)
			w = "sequence break";
		if (!w && rec_start(&m) != start)
			w = "record does not start where the chain goes on";
		if (!w && (m.epoch < min_epoch || m.epoch > rp->epoch))
			w = "epoch out of order";
		if (!w) {
			*r = m;
			return 0;
		}
		if (!miss) {
			/* The first near miss says why the chain stops, if it does. */
			miss = w;
			miss_slot = u;
			miss_has_rec = !bad;
			miss_rec = m;
		}
	}
	rp->stop = miss ? miss : "no record trailer";
	rp->stop_slot = start;
	rp->stop_last = last;
	rp->stop_miss = miss != NULL;
	rp->stop_miss_slot = miss_slot;
	rp->stop_has_rec = miss_has_rec;
	rp->stop_rec = miss_rec;
	return 1;
}

static int note_torn(struct replay *rp, const struct rec *r, u32 i, u64 block, u32 want, u32 got)
{
	struct torn_entry *t;

	if (!(rp->nr_torn & (rp->nr_torn + 1))) {	/* 0, 1, 3, 7, ...: grow */
		t = realloc(rp->torn, (rp->nr_torn * 2 + 2) * sizeof(*t));
		if (!t)
			return -ENOMEM;
		rp->torn = t;
	}
	t = &rp->torn[rp->nr_torn++];
	t->seq = r->seq;
	t->rec_start = rec_start(r);
	t->rec_slot = r->slot;
	t->index = i;
	t->slot = rec_start(r) + i;
	t->block = block;
	t->want = want;
	t->got = got;
	return 0;
}

/* ressd_replay_apply(): invalidations, then entries. */
static int replay_apply(struct replay *rp, const u8 *hdr, const struct rec *r,
			struct rec_info *ri, u8 *data)
{
	const u8 *items = hdr + RESSD_REC_HDR_SIZE;
	u32 i;
	int err;

	for (i = 0; i < r->nr_inval; i++) {
		struct ressd_disk_inval inv;

		memcpy(&inv, items + (r->nr_data + i) * sizeof(inv), sizeof(inv));
		rp->invalidated += map_remove_range(rp, le64_get(inv.block),
						    le32_get(inv.nr_blocks));
	}
	for (i = 0; i < r->nr_data; i++) {
		struct ressd_disk_entry e;
		u32 slot = rec_start(r) + i, got;
		u64 block;

		memcpy(&e, items + i * sizeof(e), sizeof(e));
		block = le64_get(e.block);
		if (block == RESSD_DEAD_BLOCK)
			continue;
		/* Durable before its trailer was: nothing to check. */
		if (ressd_entry_ordered(block)) {
			map_insert(rp, block & ~RESSD_ENTRY_ORDERED, slot);
			rp->entries++;
			rp->ordered++;
			continue;
		}
		err = logdev_read(rp->l, RESSD_SB_BLOCKS + (u64)slot, data);
		if (err)
			return err;
		got = ressd_csum(rp->lg->nonce, data, RESSD_BLOCK_SIZE);
		if (got != le32_get(e.csum)) {
			rp->bad_data++;
			ri->torn++;
			if (note_torn(rp, r, i, block, le32_get(e.csum), got))
				return -ENOMEM;
			continue;
		}
		map_insert(rp, block, slot);
		rp->entries++;
	}
	return 0;
}

static u32 count_dead(const u8 *hdr, const struct rec *r)
{
	const u8 *items = hdr + RESSD_REC_HDR_SIZE;
	u32 i, n = 0;

	for (i = 0; i < r->nr_data; i++) {
		struct ressd_disk_entry e;

		memcpy(&e, items + i * sizeof(e), sizeof(e));
		n += le64_get(e.block) == RESSD_DEAD_BLOCK;
	}
	return n;
}

int replay_run(struct replay *rp)
{
	const struct log_geo *lg = rp->lg;
	u32 slot = rp->tail_slot, walked = 0, nr_rec = 0, i, cap = 0;
	u64 seq = rp->tail_seq, epoch = rp->tail_epoch;
	u8 *hdr, *data;
	struct rec r;
	int ret;

	rp->new_tail_slot = rp->tail_slot;
	rp->new_tail_seq = rp->tail_seq;
	rp->records = 0;
	rp->entries = 0;
	rp->bad_data = 0;
	rp->ordered = 0;
	rp->invalidated = 0;
	rp->used = 0;
	rp->stop = NULL;
	rp->error = NULL;
	rp->slot_block = malloc((size_t)lg->nr_slots * sizeof(*rp->slot_block));
	if (!rp->slot_block || bmap_init(&rp->map, lg->nr_slots))
		return -ENOMEM;
	for (i = 0; i < lg->nr_slots; i++)
		rp->slot_block[i] = NONE_BLOCK;
	hdr = xmalloc_aligned(RESSD_BLOCK_SIZE);
	data = xmalloc_aligned(RESSD_BLOCK_SIZE);

	/* Pass 1: the chain's end and the newest checkpoint. */
	for (;;) {
		if (walked >= lg->nr_slots) {
			rp->stop = "the chain fills the log";
			rp->stop_slot = slot;
			rp->stop_last = slot - 1;
			rp->stop_miss = false;
			rp->stop_has_rec = false;
			break;
		}
		ret = replay_header(rp, hdr, slot, seq, epoch, &r);
		if (ret < 0)
			goto read_error;
		if (ret)
			break;
		if (walked + 1 + r.nr_data > lg->nr_slots) {
			rp->stop = "the chain is longer than the log";
			rp->stop_slot = slot;
			rp->stop_last = r.slot;
			rp->stop_miss = true;
			rp->stop_miss_slot = r.slot;
			rp->stop_rec = r;
			rp->stop_has_rec = true;
			break;
		}
		if (r.tail_seq > rp->new_tail_seq) {
			rp->new_tail_seq = r.tail_seq;
			rp->new_tail_slot = r.tail_slot;
		}
		if (nr_rec == cap) {
			struct rec_info *n;

			cap = cap ? 2 * cap : 64;
			n = realloc(rp->recs, cap * sizeof(*n));
			if (!n) {
				ret = -ENOMEM;
				goto out;
			}
			rp->recs = n;
		}
		memset(&rp->recs[nr_rec], 0, sizeof(rp->recs[nr_rec]));
		rp->recs[nr_rec].r = r;
		rp->recs[nr_rec].dead = count_dead(hdr, &r);
		walked += 1 + r.nr_data;
		nr_rec++;
		epoch = r.epoch;
		seq++;
		slot = rec_next_slot(lg, r.slot);
	}
	rp->head = slot;
	rp->next_seq = seq;
	rp->last_epoch = epoch;
	rp->walked = walked;
	rp->nr_recs = nr_rec;

	/* Pass 2: apply the records from the newest checkpoint on. */
	slot = rp->tail_slot;
	seq = rp->tail_seq;
	epoch = rp->tail_epoch;
	for (i = 0; i < nr_rec; i++) {
		ret = replay_header(rp, hdr, slot, seq, epoch, &r);
		if (ret < 0)
			goto read_error;
		if (ret) {
			rp->error = "Log changed while it was replayed";
			ret = -EINVAL;
			goto out;
		}
		if (seq == rp->new_tail_seq && slot != rp->new_tail_slot)
			goto bad_checkpoint;
		if (seq >= rp->new_tail_seq) {
			rp->recs[i].applied = true;
			ret = replay_apply(rp, hdr, &r, &rp->recs[i], data);
			if (ret == -ENOMEM)
				goto out;
			if (ret)
				goto read_error;
			rp->records++;
			rp->used += 1 + r.nr_data;
		}
		epoch = r.epoch;
		seq++;
		slot = rec_next_slot(lg, r.slot);
	}
	if (rp->new_tail_seq == seq && rp->new_tail_slot != slot)
		goto bad_checkpoint;
	ret = 0;
	goto out;

bad_checkpoint:
	rp->error = "Log checkpoint does not match the log";
	ret = -EINVAL;
	goto out;
read_error:
	rp->error = "Error reading the log";
out:
	free(hdr);
	free(data);
	return ret;
}

void replay_free(struct replay *rp)
{
	free(rp->slot_block);
	free(rp->recs);
	free(rp->torn);
	bmap_free(&rp->map);
	rp->slot_block = NULL;
	rp->recs = NULL;
	rp->torn = NULL;
}

int scan_outside(struct replay *rp, struct scan_result *s)
{
	const struct log_geo *lg = rp->lg;
	u32 slot = rp->head, n = lg->nr_slots - rp->walked, k;
	u8 *hdr = xmalloc_aligned(RESSD_BLOCK_SIZE);
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (rp->walked > lg->nr_slots)	/* the chain is longer than the log */
		n = 0;
	for (k = 0; k < n; k++, slot = slot + 1 >= lg->nr_slots ? 0 : slot + 1) {
		struct rec r;

		err = logdev_read(rp->l, RESSD_SB_BLOCKS + (u64)slot, hdr);
		if (err)
			break;
		s->slots++;
		if (rec_decode(hdr, lg, slot, &r))
			continue;
		if (r.epoch > rp->epoch || r.tail_seq > rp->new_tail_seq) {
			if (!s->newer)
				s->first_newer = r;
			s->newer++;
		}
		if (r.seq < rp->next_seq) {
			s->old++;
		} else if (r.epoch < rp->epoch) {
			s->stale++;
		} else {
			if (!s->orphans || r.seq < s->first_orphan.seq)
				s->first_orphan = r;
			s->orphans++;
		}
	}
	free(hdr);
	return err;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct map_pair *x = a, *y = b;

	return x->block < y->block ? -1 : x->block > y->block;
}

struct map_pair *replay_mapping(const struct replay *rp, u64 *n)
{
	struct map_pair *p = xcalloc(rp->map.count ? rp->map.count : 1, sizeof(*p));
	u64 k = 0;
	u32 s;

	for (s = 0; s < rp->lg->nr_slots; s++) {
		if (rp->slot_block[s] == NONE_BLOCK)
			continue;
		p[k].block = rp->slot_block[s];
		p[k].slot = s;
		k++;
	}
	qsort(p, k, sizeof(*p), cmp_pair);
	*n = k;
	return p;
}
