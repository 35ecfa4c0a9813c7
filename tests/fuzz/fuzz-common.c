// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fuzz-replay harness and the independent model it checks replay
 * against, shared by the fuzz targets and the corpus generator.
 *
 * The model is written from Documentation/dm-ressd-design.rst ("On-disk
 * format", "Validation", "Recovery") and the top comment of
 * dm-ressd-format.h (format version 2: data blocks, then the trailer that
 * names them), not from dm-ressd-format.c: it reads trailer fields at the
 * byte offsets of the document's tables, computes the checksums with crc32c
 * directly, searches each record's trailer from its start as the format
 * describes, keeps the mapping as a plain list of (block, slot) pairs, and
 * applies "the records from that newest checkpoint on" by position in the
 * chain.
 */
#include <stdarg.h>

#include "fuzz-common.h"

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ressd-fuzz: FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

/* ---- the compact image encoding ---- */

bool fz_image_expand(const u8 *data, size_t size, struct fz_image *im)
{
	size_t pos = FZ_HDR_SIZE;
	u32 nblk;

	memset(im, 0, sizeof(*im));
	if (size < FZ_HDR_SIZE)
		return false;
	im->nr_slots = FZ_MIN_SLOTS + data[0] % (FZ_MAX_SLOTS - FZ_MIN_SLOTS + 1);
	im->flags = data[1];
	im->fail_read = data[2];
	/* data[3]: reserved */
	im->origin_offset = (u64)fz_get32(data, 4) * RESSD_SECTORS_PER_BLOCK;
	im->log_offset = (u64)fz_get32(data, 8) * RESSD_SECTORS_PER_BLOCK;
	im->origin_blocks = 1 + fz_get64(data, 12) % (RESSD_MAX_BLOCK + 1);
	nblk = RESSD_SB_BLOCKS + im->nr_slots;
	im->blk = calloc(nblk, RESSD_BLOCK_SIZE);
	if (!im->blk)
		abort();
	while (pos + FZ_CHUNK_HDR <= size) {
		u32 b = data[pos] % nblk;
		u32 off = fz_get16(data, pos + 1) % RESSD_BLOCK_SIZE;
		size_t len = fz_get16(data, pos + 3);

		pos += FZ_CHUNK_HDR;
		len = min_t(size_t, len, RESSD_BLOCK_SIZE - off);
		len = min_t(size_t, len, size - pos);
		memcpy(fz_block(im, b) + off, data + pos, len);
		pos += len;
	}
	return true;
}

void fz_image_free(struct fz_image *im)
{
	free(im->blk);
	im->blk = NULL;
}

size_t fz_image_compact(const struct fz_image *im, u8 *out, size_t cap)
{
	u32 b, nblk = RESSD_SB_BLOCKS + im->nr_slots;
	size_t pos = FZ_HDR_SIZE;
	u64 v;

	if (cap < FZ_HDR_SIZE || im->nr_slots < FZ_MIN_SLOTS || im->nr_slots > FZ_MAX_SLOTS)
		abort();
	memset(out, 0, FZ_HDR_SIZE);
	out[0] = im->nr_slots - FZ_MIN_SLOTS;
	out[1] = im->flags;
	out[2] = im->fail_read;
	fz_put32(out, 4, im->origin_offset / RESSD_SECTORS_PER_BLOCK);
	fz_put32(out, 8, im->log_offset / RESSD_SECTORS_PER_BLOCK);
	v = htole64(im->origin_blocks - 1);
	memcpy(out + 12, &v, 8);
	for (b = 0; b < nblk; b++) {
		const u8 *p = fz_block(im, b);
		u32 len = RESSD_BLOCK_SIZE;
		u16 w;

		while (len && !p[len - 1])
			len--;
		if (!len)
			continue;
		if (pos + FZ_CHUNK_HDR + len > cap)
			abort();
		out[pos] = b;
		w = 0;
		memcpy(out + pos + 1, &w, 2);
		w = htole16(len);
		memcpy(out + pos + 3, &w, 2);
		memcpy(out + pos + FZ_CHUNK_HDR, p, len);
		pos += FZ_CHUNK_HDR + len;
	}
	return pos;
}

void fz_geometry(const struct fz_image *im, struct ressd_geometry *g)
{
	memset(g, 0, sizeof(*g));
	g->origin_offset = im->origin_offset;
	g->origin_sectors = im->origin_blocks * RESSD_SECTORS_PER_BLOCK;
	g->origin_dev_sectors = g->origin_offset + g->origin_sectors;
	g->log_offset = im->log_offset;
	g->log_sectors = (u64)(RESSD_SB_BLOCKS + im->nr_slots) * RESSD_SECTORS_PER_BLOCK;
	g->log_dev_sectors = g->log_offset + g->log_sectors;
}

/* ---- the design document's checks, from its tables ---- */

static u32 fz_seed(u64 nonce)
{
	return (u32)nonce ^ (u32)(nonce >> 32);
}

/* crc32c of the 4 KiB block with its csum field (bytes 8..11) zero. */
u32 fz_meta_csum(const u8 *blk, u64 nonce)
{
	u8 copy[RESSD_BLOCK_SIZE];

	memcpy(copy, blk, sizeof(copy));
	memset(copy + 8, 0, 4);
	return crc32c(fz_seed(nonce), copy, sizeof(copy));
}

const char *fz_sb_expect(const u8 *blk, u64 location, const struct ressd_geometry *g)
{
	u64 blocks = g->log_sectors >> 3, want_slots;
	u32 v;

	if (fz_get64(blk, 0) != RESSD_SB_MAGIC)
		return "Bad superblock magic";
	if (fz_get64(blk, 16) != location)
		return "Superblock at the wrong location";
	if (fz_get32(blk, 8) != fz_meta_csum(blk, fz_get64(blk, 32)))
		return "Bad superblock checksum";
	/* generations stay below 2^62: the larger wins, and must never wrap */
	if (fz_get64(blk, 24) >= 1ULL << 62)
		return "Superblock generation out of range";
	v = fz_get32(blk, 12);
	if (v < RESSD_FORMAT_MIN || v > RESSD_FORMAT_MAX)
		return "Unsupported on-disk format version";
	if (fz_get32(blk, 48) & ~RESSD_FEATURE_INCOMPAT_SUPP)
		return "Unknown incompatible feature";
	if (fz_get32(blk, 52) != 4096)
		return "Unsupported block size";
	if (fz_get32(blk, 108) >= fz_get32(blk, 88))
		return "Superblock checkpoint out of range";
	/* sequence numbers stay below 2^62, so that replay's seq + 1 cannot wrap */
	if (fz_get64(blk, 112) > RESSD_MAX_SEQ)
		return "Superblock checkpoint out of range";
	/* the epoch likewise: recovery writes epoch + 1, which must not wrap to 0 */
	if (fz_get64(blk, 120) >= 1ULL << 62)
		return "Superblock checkpoint out of range";
	/* the checkpoint's epoch (a lower bound for the chain) is no newer */
	if (fz_get64(blk, 128) > fz_get64(blk, 120))
		return "Superblock checkpoint out of range";
	if (fz_get64(blk, 56) != g->origin_offset || fz_get64(blk, 64) != g->origin_sectors ||
	    fz_get64(blk, 72) != g->log_offset || fz_get64(blk, 80) != g->log_sectors)
		return "Superblock geometry does not match the table";
	/* nr_slots: log_sectors / 8 - 2, at most 2^26 */
	want_slots = blocks <= 2 ? 0 : blocks - 2;
	if (want_slots > RESSD_MAX_SLOTS)
		want_slots = RESSD_MAX_SLOTS;
	if (fz_get32(blk, 88) != want_slots)
		return "Superblock geometry does not match the table";
	return NULL;
}

const char *fz_rec_expect(const u8 *blk, const struct ressd_log_geo *lg, u32 slot)
{
	u32 nd, ni, i;

	if (fz_get64(blk, 0) != RESSD_REC_MAGIC)
		return "no record magic";
	if (fz_get64(blk, 16) != lg->nonce)
		return "record of another volume";
	if (fz_get32(blk, 32) != slot)
		return "record written for another slot";
	if (fz_get32(blk, 8) != fz_meta_csum(blk, lg->nonce))
		return "bad record checksum";
	if (fz_get32(blk, 12) < RESSD_FORMAT_MIN || fz_get32(blk, 12) > RESSD_FORMAT_MAX)
		return "unsupported record version";
	if (fz_get32(blk, 44))
		return "unknown record flags";
	nd = fz_get16(blk, 36);
	ni = fz_get16(blk, 38);
	/* at most 336 items (entries plus ranges) of 12 bytes after 64 */
	if (nd + ni > (4096 - 64) / 12)
		return "too many items in a record";
	/* the trailer is a slot of the log, its data the nd slots before it */
	if (slot >= lg->nr_slots)
		return "record trailer beyond the log";
	if (nd > slot)
		return "record starts before the log";
	if (fz_get32(blk, 40) >= lg->nr_slots)
		return "record checkpoint out of range";
	if (fz_get64(blk, 24) > RESSD_MAX_SEQ)
		return "record sequence number out of range";
	if (fz_get64(blk, 48) > fz_get64(blk, 24))
		return "record checkpoint ahead of the record";
	for (i = 0; i < nd; i++) {
		u64 b = fz_get64(blk, 64 + 12 * i);

		if (b == U64_MAX)
			continue;
		/* bit 62: ordered, no checksum (which must be zero) */
		if (b >> 62 == 1) {
			if (fz_get32(blk, 64 + 12 * i + 8))
				return "ordered record entry with a checksum";
			b -= 1ULL << 62;
		}
		if (b >= lg->origin_blocks)
			return "record entry beyond the origin";
	}
	for (i = 0; i < ni; i++) {
		u64 b = fz_get64(blk, 64 + 12 * (nd + i));
		u64 n = fz_get32(blk, 64 + 12 * (nd + i) + 8);

		if (!n || b >= lg->origin_blocks || b + n > lg->origin_blocks)
			return "record invalidation beyond the origin";
	}
	return NULL;
}

const char *fz_find_expect(const u8 *(*get)(void *ctx, u32 slot), void *ctx,
			   const struct ressd_log_geo *lg, u32 start, u64 seq,
			   u64 min_epoch, u64 max_epoch, u32 *found, u32 *reads)
{
	const char *miss = NULL;
	u64 u, last;

	*reads = 0;
	if (start >= lg->nr_slots)
		return "record start beyond the log";
	/* from the start, at most 336 slots further, before the end of the log */
	last = min_t(u64, (u64)start + (4096 - 64) / 12, lg->nr_slots - 1);
	for (u = start; u <= last; u++) {
		const u8 *b = get(ctx, u);
		const char *w;

		(*reads)++;
		if (fz_get64(b, 0) != RESSD_REC_MAGIC)
			continue;	/* data: skipped without a word */
		w = fz_rec_expect(b, lg, u);
		if (!w && fz_get64(b, 24) != seq)
			w = "sequence break";
		if (!w && u - fz_get16(b, 36) != start)
			w = "record does not start where the chain goes on";
		if (!w && (fz_get64(b, 56) < min_epoch || fz_get64(b, 56) > max_epoch))
			w = "epoch out of order";
		if (!w) {
			*found = u;
			return NULL;
		}
		if (!miss)
			miss = w;
	}
	return miss ? miss : "no record trailer";
}

static const u8 *fz_image_get(void *ctx, u32 slot)
{
	const struct fz_image *im = ctx;

	if (slot >= im->nr_slots)
		fz_fail("model: slot %u of a %u-slot image", slot, im->nr_slots);
	return fz_slot(im, slot);
}

/* ---- the model of recovery ---- */

struct fz_mrec {
	u32 start;			/* its first data slot */
	u32 slot;			/* its trailer's */
	u32 nr_data;
	u64 seq;
	u64 epoch;
	u32 tail_slot;
	u64 tail_seq;
};

struct fz_pair {
	u64 block;
	u32 slot;
};

struct fz_model {
	u32 n;				/* records in the chain */
	struct fz_mrec rec[FZ_MAX_SLOTS];
	u32 head;
	u64 next_seq;
	u64 last_epoch;
	u32 new_tail_slot;
	u64 new_tail_seq;
	bool bad_checkpoint;
	u32 first;			/* first record applied */
	u32 used;
	u32 records;
	u64 entries;
	u64 bad_data;
	u64 ordered;			/* entries taken without a checksum */
	u64 invalidated;
	const char *stop;		/* why the chain ends */
	u32 reads;			/* slots replay reads when it succeeds */
	u32 npairs;			/* the mapping: block -> slot */
	struct fz_pair pair[FZ_MAX_SLOTS];
};

struct fz_sb {
	u64 nonce;
	u32 nr_slots;
	u32 tail_slot;
	u64 tail_seq;
	u64 tail_epoch;
	u64 epoch;
};

static u32 fz_pair_remove(struct fz_model *m, u64 block, u64 nr)
{
	u32 i = 0, removed = 0;

	while (i < m->npairs) {
		if (m->pair[i].block >= block && m->pair[i].block - block < nr) {
			m->pair[i] = m->pair[--m->npairs];
			removed++;
		} else {
			i++;
		}
	}
	return removed;
}

static void fz_model_run(const struct fz_image *im, const struct ressd_log_geo *lg,
			 const struct fz_sb *sb, struct fz_model *m)
{
	u32 n = lg->nr_slots, slot = sb->tail_slot, walked = 0, k, i, j;
	u64 seq = sb->tail_seq, min_epoch = sb->tail_epoch;

	memset(m, 0, sizeof(*m));
	m->last_epoch = sb->tail_epoch;
	/* Pass 1: follow the chain, at most one lap. */
	for (;;) {
		struct fz_mrec *r = &m->rec[m->n];
		const u8 *h;
		u32 t, reads;

		if (walked >= n) {
			m->stop = "the chain fills the log";
			break;
		}
		m->stop = fz_find_expect(fz_image_get, (void *)im, lg, slot, seq, min_epoch,
					 sb->epoch, &t, &reads);
		m->reads += reads;
		if (m->stop)
			break;
		h = fz_slot(im, t);
		r->start = slot;
		r->slot = t;
		r->seq = fz_get64(h, 24);
		r->nr_data = fz_get16(h, 36);
		r->tail_slot = fz_get32(h, 40);
		r->tail_seq = fz_get64(h, 48);
		r->epoch = fz_get64(h, 56);
		if (walked + 1 + r->nr_data > n) {
			m->stop = "the chain is longer than the log";
			break;
		}
		walked += 1 + r->nr_data;
		min_epoch = r->epoch;
		m->last_epoch = r->epoch;
		seq++;
		/* the next record starts after the trailer, at 0 after the last slot */
		slot = t + 1 == n ? 0 : t + 1;
		m->n++;
	}
	m->head = slot;
	m->next_seq = seq;
	/* Pass 2 finds each record again: from its start to its trailer. */
	for (i = 0; i < m->n; i++)
		m->reads += 1 + m->rec[i].nr_data;

	/* The newest checkpoint any record carries. */
	m->new_tail_slot = sb->tail_slot;
	m->new_tail_seq = sb->tail_seq;
	for (i = 0; i < m->n; i++) {
		if (m->rec[i].tail_seq > m->new_tail_seq) {
			m->new_tail_seq = m->rec[i].tail_seq;
			m->new_tail_slot = m->rec[i].tail_slot;
		}
	}
	/* Pass 2 starts at the record that checkpoint names (its start), or at head. */
	if (m->n && m->new_tail_slot == m->rec[0].start && m->new_tail_seq == m->rec[0].seq) {
		k = 0;
	} else {
		for (k = 0; k < m->n; k++)
			if (m->rec[k].seq == m->new_tail_seq)
				break;
		if (k < m->n ? m->rec[k].start != m->new_tail_slot :
		    m->new_tail_seq != m->next_seq || m->new_tail_slot != m->head) {
			m->bad_checkpoint = true;
			return;
		}
	}
	m->first = k;
	for (; k < m->n; k++) {
		const struct fz_mrec *r = &m->rec[k];
		const u8 *h = fz_slot(im, r->slot);
		u32 ni = fz_get16(h, 38);

		for (j = 0; j < ni; j++) {
			size_t off = 64 + 12 * (r->nr_data + j);

			m->invalidated += fz_pair_remove(m, fz_get64(h, off), fz_get32(h, off + 8));
		}
		for (j = 0; j < r->nr_data; j++) {
			u64 block = fz_get64(h, 64 + 12 * j);
			u32 csum = fz_get32(h, 64 + 12 * j + 8);
			u32 ds = r->start + j;	/* entries[j] is in slot - nr_data + j */

			if (block == U64_MAX)
				continue;
			if (block >> 62 == 1) {
				block -= 1ULL << 62;	/* ordered: taken unread */
				m->ordered++;
			} else {
				m->reads++;
				if (crc32c(fz_seed(lg->nonce), fz_slot(im, ds), RESSD_BLOCK_SIZE) !=
				    csum) {
					m->bad_data++;
					continue;
				}
			}
			fz_pair_remove(m, block, 1);
			if (m->npairs >= FZ_MAX_SLOTS)
				fz_fail("model: more live pairs than slots");
			m->pair[m->npairs].block = block;
			m->pair[m->npairs].slot = ds;
			m->npairs++;
			m->entries++;
		}
		m->used += 1 + r->nr_data;
		m->records++;
	}
}

/* ---- running ressd_replay() ---- */

struct fz_reader {
	const struct fz_image *im;
	u32 reads;
	u32 fail_at;		/* this read fails with -EIO (0: none) */
	bool failed;
};

static int fz_read(void *ctx, u32 slot, void *buf)
{
	struct fz_reader *r = ctx;

	fz_assert(slot < r->im->nr_slots, "replay reads slot %u of a %u-slot log",
		  slot, r->im->nr_slots);
	r->reads++;
	if (r->reads == r->fail_at) {
		r->failed = true;
		return -EIO;
	}
	memcpy(buf, fz_slot(r->im, slot), RESSD_BLOCK_SIZE);
	return 0;
}

struct fz_run {
	struct ressd_index idx;
	struct ressd_replay rp;
	struct fz_reader reader;
	const char *error;
	int ret;
	u8 hdr[RESSD_BLOCK_SIZE];
	u8 data[RESSD_BLOCK_SIZE];
};

static void fz_run_replay(const struct fz_image *im, const struct ressd_log_geo *lg,
			  const struct fz_sb *sb, struct fz_run *run)
{
	int r;

	memset(run, 0, sizeof(*run));
	/* Buckets of a few blocks: replay's extents are cut at their ends. */
	r = ressd_index_init(&run->idx, lg->nr_slots, 256);
	fz_assert(r == 0, "ressd_index_init(%u) = %d", lg->nr_slots, r);
	run->reader.im = im;
	run->reader.fail_at = im->fail_read;
	run->rp.lg = lg;
	run->rp.tail_slot = sb->tail_slot;
	run->rp.tail_seq = sb->tail_seq;
	run->rp.tail_epoch = sb->tail_epoch;
	run->rp.epoch = sb->epoch;
	run->rp.read = fz_read;
	run->rp.ctx = &run->reader;
	run->rp.trailer = run->hdr;
	run->rp.data = run->data;
	run->rp.idx = &run->idx;
	run->ret = ressd_replay(&run->rp, &run->error);
}

static u32 fz_dist(u32 from, u32 to, u32 n)
{
	return (to + n - from) % n;
}

static int fz_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The invariants the brief and the design state, without the model. */
static void fz_check_index(struct fz_run *run, u32 n)
{
	struct ressd_index *idx = &run->idx;
	struct ressd_replay *rp = &run->rp;
	u64 blocks[FZ_MAX_SLOTS], prev = 0;
	u32 live = 0, s, heads = 0, k;
	struct rb_node *node;
	struct ressd_map rm;

	fz_assert(rp->used <= n, "used %u, %u slots", rp->used, n);
	fz_assert(rp->head < n && rp->new_tail_slot < n, "head %u, new tail %u, %u slots",
		  rp->head, rp->new_tail_slot, n);
	fz_assert(rp->used % n == fz_dist(rp->new_tail_slot, rp->head, n),
		  "used %u but %u slots from the new tail %u to head %u",
		  rp->used, fz_dist(rp->new_tail_slot, rp->head, n), rp->new_tail_slot, rp->head);
	/* The records from the new tail to head carry consecutive numbers. */
	fz_assert(rp->next_seq - rp->new_tail_seq == rp->records,
		  "%u records applied from seq %llu, next seq %llu", rp->records,
		  rp->new_tail_seq, rp->next_seq);
	/*
	 * Each pass finds every record once (its start to its trailer, at most
	 * one lap in all), pass 1 also the one that ends the chain (one scan,
	 * at most to the end of the log), pass 2 reads the data it applies.
	 */
	fz_assert(run->reader.reads <= 4 * n, "%u reads for %u slots", run->reader.reads, n);

	spin_lock(&idx->lock);
	for (s = 0; s < n; s++) {
		u64 b;

		if (!__ressd_index_slot_block(idx, s, &b))
			continue;
		fz_assert(fz_dist(rp->new_tail_slot, s, n) < rp->used || rp->used == n,
			  "slot %u (block %llu) mapped outside the live log [%u, %u), used %u",
			  s, b, rp->new_tail_slot, rp->head, rp->used);
		__ressd_index_lookup(idx, b, 1, &rm);
		fz_assert(rm.mapped && rm.slot == s && rm.len == 1,
			  "slot %u holds block %llu, but a lookup of it says mapped %d slot %u len %u",
			  s, b, rm.mapped, rm.slot, rm.len);
		blocks[live++] = b;
	}
	qsort(blocks, live, sizeof(blocks[0]), fz_cmp_u64);
	for (s = 1; s < live; s++)
		fz_assert(blocks[s] != blocks[s - 1], "block %llu held by two slots", blocks[s]);
	fz_assert(idx->mapped == live, "index says %llu mapped, %u distinct blocks in its slots",
		  idx->mapped, live);
	for (k = 0; k < idx->nr_buckets; k++) {
		fz_assert(test_bit(k, idx->busy) == !RB_EMPTY_ROOT(&idx->roots[k]),
			  "bucket %u: busy bit and tree disagree", k);
		for (node = rb_first(&idx->roots[k]); node; node = rb_next(node)) {
			struct ressd_slot *h = rb_entry(node, struct ressd_slot, node);
			u32 hs;
			u64 b;

			fz_assert(h >= idx->slots && h < idx->slots + n,
				  "tree node outside the slot array");
			hs = (u32)(h - idx->slots);
			fz_assert(__ressd_index_slot_block(idx, hs, &b), "free slot %u in the tree", hs);
			fz_assert(!heads || b > prev, "extent heads out of order: %llu after %llu",
				  b, prev);
			fz_assert(ressd_index_bucket(idx, b) == k,
				  "extent head %u (block %llu) in bucket %u's tree", hs, b, k);
			__ressd_index_lookup(idx, b, 1, &rm);
			fz_assert(rm.mapped && rm.slot == hs,
				  "extent head %u (block %llu) looks up to slot %u", hs, b, rm.slot);
			prev = b;
			heads++;
		}
	}
	fz_assert(heads == idx->extents, "%u extents in the tree, index says %llu",
		  heads, idx->extents);
	fz_assert(idx->extents <= idx->mapped, "%llu extents for %llu blocks",
		  idx->extents, idx->mapped);
	spin_unlock(&idx->lock);
}

static void fz_check_model(struct fz_run *run, const struct fz_model *m, u32 n)
{
	struct ressd_index *idx = &run->idx;
	struct ressd_replay *rp = &run->rp;
	struct ressd_map rm;
	u32 i;

	fz_assert(rp->head == m->head && rp->next_seq == m->next_seq,
		  "head %u seq %llu, model %u %llu", rp->head, rp->next_seq, m->head, m->next_seq);
	fz_assert(fz_streq(rp->stop, m->stop), "chain ends with \"%s\", model \"%s\"",
		  rp->stop, m->stop);
	/* The same scans: from each start to its trailer, no slot more. */
	fz_assert(run->reader.reads == m->reads, "%u reads, model %u", run->reader.reads,
		  m->reads);
	fz_assert(rp->ordered == m->ordered, "%llu ordered entries, model %llu", rp->ordered,
		  m->ordered);
	fz_assert(rp->last_epoch == m->last_epoch, "last epoch %llu, model %llu",
		  rp->last_epoch, m->last_epoch);
	fz_assert(rp->new_tail_slot == m->new_tail_slot && rp->new_tail_seq == m->new_tail_seq,
		  "new tail %u/%llu, model %u/%llu", rp->new_tail_slot, rp->new_tail_seq,
		  m->new_tail_slot, m->new_tail_seq);
	fz_assert(rp->used == m->used && rp->records == m->records,
		  "used %u records %u, model %u %u (chain of %u, applied from %u)",
		  rp->used, rp->records, m->used, m->records, m->n, m->first);
	fz_assert(rp->entries == m->entries && rp->bad_data == m->bad_data &&
		  rp->invalidated == m->invalidated,
		  "entries %llu bad %llu invalidated %llu, model %llu %llu %llu",
		  rp->entries, rp->bad_data, rp->invalidated, m->entries, m->bad_data,
		  m->invalidated);
	spin_lock(&idx->lock);
	fz_assert(idx->mapped == m->npairs, "%llu blocks mapped, model %u", idx->mapped, m->npairs);
	for (i = 0; i < m->npairs; i++) {
		__ressd_index_lookup(idx, m->pair[i].block, 1, &rm);
		fz_assert(rm.mapped && rm.slot == m->pair[i].slot,
			  "block %llu: mapped %d to slot %u, model slot %u",
			  m->pair[i].block, rm.mapped, rm.slot, m->pair[i].slot);
	}
	spin_unlock(&idx->lock);
	(void)n;
}

/* Replay writes nothing: a second replay of the same image is the same. */
static void fz_check_same(struct fz_run *a, struct fz_run *b, u32 n)
{
	u32 s;

	fz_assert(a->ret == b->ret && fz_streq(a->error, b->error), "second replay: %d %s, first %d %s",
		  b->ret, b->error, a->ret, a->error);
	if (a->ret)
		return;
	fz_assert(a->rp.head == b->rp.head && a->rp.next_seq == b->rp.next_seq &&
		  a->rp.used == b->rp.used && a->rp.records == b->rp.records &&
		  a->rp.new_tail_seq == b->rp.new_tail_seq && fz_streq(a->rp.stop, b->rp.stop),
		  "second replay differs");
	spin_lock(&a->idx.lock);
	spin_lock(&b->idx.lock);
	for (s = 0; s < n; s++) {
		u64 x = 0, y = 0;
		bool lx = __ressd_index_slot_block(&a->idx, s, &x);
		bool ly = __ressd_index_slot_block(&b->idx, s, &y);

		fz_assert(lx == ly && x == y, "slot %u differs between two replays", s);
	}
	spin_unlock(&b->idx.lock);
	spin_unlock(&a->idx.lock);
}

static void fz_fixup(const struct fz_image *im, const struct ressd_log_geo *lg)
{
	u32 s, i, n = im->nr_slots;

	for (s = 0; s < n; s++) {
		u8 *h = fz_slot(im, s);

		if (fz_get64(h, 0) != RESSD_REC_MAGIC)
			continue;
		if (im->flags & FZ_FIX_DATA) {
			/* its data: the nd slots before it (slots in order, so that a
			 * trailer look-alike among them is final before it is summed) */
			u32 nd = min_t(u32, fz_get16(h, 36), RESSD_REC_MAX_ITEMS);

			nd = min_t(u32, nd, s);
			for (i = 0; i < nd; i++)
				if (fz_get64(h, 64 + 12 * i) >> 62 != 1)	/* ordered: none */
					fz_put32(h, 64 + 12 * i + 8, crc32c(fz_seed(lg->nonce),
						 fz_slot(im, s - nd + i), RESSD_BLOCK_SIZE));
		}
		if (im->flags & (FZ_FIX_DATA | FZ_RESEAL_REC))
			fz_put32(h, 8, fz_meta_csum(h, lg->nonce));
	}
}

void fz_replay_check(const struct fz_image *im, struct fz_report *rep)
{
	static struct fz_run run_a, run_b;	/* 8 KiB buffers each: not on the stack */
	static struct fz_model model;
	struct ressd_geometry g;
	struct ressd_log_geo lg;
	struct fz_sb sb = { 0 };
	int i, best = -1;
	const u8 *sbb;

	memset(rep, 0, sizeof(*rep));
	rep->sb_best = -1;
	fz_geometry(im, &g);
	if (im->flags & FZ_RESEAL_SB)
		for (i = 0; i < RESSD_SB_BLOCKS; i++)
			fz_put32(fz_block(im, i), 8,
				 fz_meta_csum(fz_block(im, i), fz_get64(fz_block(im, i), 32)));

	/*
	 * The constructor's load: a log whose first 8 KiB (both copies) are all
	 * zero is formatted, not read.  One all-zero copy is an invalid copy.
	 */
	fz_assert(ressd_block_is_zero(fz_block(im, 0)) ==
		  !memchr_inv(fz_block(im, 0), 0, RESSD_BLOCK_SIZE) &&
		  ressd_block_is_zero(fz_block(im, 1)) ==
		  !memchr_inv(fz_block(im, 1), 0, RESSD_BLOCK_SIZE), "block_is_zero");
	if (!memchr_inv(fz_block(im, 0), 0, RESSD_SB_BLOCKS * RESSD_BLOCK_SIZE)) {
		fz_log("both copies all zero: the constructor formats the log");
		return;
	}
	for (i = 0; i < RESSD_SB_BLOCKS; i++) {
		const u8 *b = fz_block(im, i);
		const char *why = ressd_sb_check((const struct ressd_disk_sb *)b, i, &g);
		const char *want = fz_sb_expect(b, i, &g);

		fz_assert(fz_streq(why, want), "superblock %d: check says \"%s\", the design \"%s\"",
			  i, why, want);
		rep->sb_why[i] = why;
		fz_log("superblock %d: %s", i, why ? why : "valid");
		if (!why && (best < 0 || fz_get64(b, 24) > fz_get64(fz_block(im, best), 24)))
			best = i;
	}
	if (best < 0)
		return;
	if (!rep->sb_why[0] && !rep->sb_why[1] &&
	    fz_get64(fz_block(im, 0), 32) != fz_get64(fz_block(im, 1), 32)) {
		fz_log("superblock copies of different volumes: refused");
		return;
	}
	rep->sb_best = best;
	sbb = fz_block(im, best);
	/* unknown ro_compat features: a writable table is refused, a read-only one replays */
	rep->read_only = fz_get32(sbb, 44) & ~RESSD_FEATURE_RO_COMPAT_SUPP;
	if (rep->read_only)
		fz_log("superblock %d: unknown read-only compatible features %x: a read-only "
		       "table only", best, fz_get32(sbb, 44) & ~RESSD_FEATURE_RO_COMPAT_SUPP);
	sb.nonce = fz_get64(sbb, 32);
	sb.nr_slots = fz_get32(sbb, 88);
	sb.tail_slot = fz_get32(sbb, 108);
	sb.tail_seq = fz_get64(sbb, 112);
	sb.epoch = fz_get64(sbb, 120);
	sb.tail_epoch = fz_get64(sbb, 128);
	fz_assert(sb.nr_slots == im->nr_slots, "valid superblock with %u slots in a %u-slot log",
		  sb.nr_slots, im->nr_slots);
	lg.nonce = sb.nonce;
	lg.nr_slots = sb.nr_slots;
	lg.origin_blocks = g.origin_sectors >> 3;
	fz_fixup(im, &lg);
	fz_log("superblock %d wins: %u slots, %llu origin blocks, checkpoint %u/%llu, epoch %llu",
	       best, sb.nr_slots, lg.origin_blocks, sb.tail_slot, sb.tail_seq, sb.epoch);

	fz_model_run(im, &lg, &sb, &model);
	fz_run_replay(im, &lg, &sb, &run_a);
	rep->replayed = true;
	rep->ret = run_a.ret;
	rep->error = run_a.error;
	rep->rp = run_a.rp;
	rep->reads = run_a.reader.reads;
	fz_log("replay: %d (%s), stop \"%s\", head %u, next seq %llu, new tail %u/%llu, used %u, "
	       "%u records, %llu entries, %llu torn, %llu invalidated, %llu mapped; model: "
	       "chain %u from %u%s", run_a.ret, run_a.error ? run_a.error : "-",
	       run_a.rp.stop ? run_a.rp.stop : "-", run_a.rp.head, run_a.rp.next_seq,
	       run_a.rp.new_tail_slot, run_a.rp.new_tail_seq, run_a.rp.used, run_a.rp.records,
	       run_a.rp.entries, run_a.rp.bad_data, run_a.rp.invalidated, run_a.idx.mapped,
	       model.n, model.first, model.bad_checkpoint ? ", bad checkpoint" : "");

	if (fz_verbose) {
		u32 s, i;
		u64 b;

		fprintf(stderr, "index (block:slot):");
		spin_lock(&run_a.idx.lock);
		for (s = 0; s < lg.nr_slots; s++)
			if (__ressd_index_slot_block(&run_a.idx, s, &b))
				fprintf(stderr, " %llu:%u", b, s);
		spin_unlock(&run_a.idx.lock);
		fprintf(stderr, "\nmodel (block:slot):");
		for (i = 0; i < model.npairs; i++)
			fprintf(stderr, " %llu:%u", model.pair[i].block, model.pair[i].slot);
		fprintf(stderr, "\nmodel chain (start..trailer/seq):");
		for (i = 0; i < model.n; i++)
			fprintf(stderr, " %u..%u/%llu", model.rec[i].start, model.rec[i].slot,
				model.rec[i].seq);
		fprintf(stderr, "\nmodel: stop \"%s\", %u reads; replay: %u reads\n",
			model.stop ? model.stop : "-", model.reads, run_a.reader.reads);
	}
	if (run_a.reader.failed) {
		/* An I/O error reaches the caller as it is, with its message. */
		fz_assert(run_a.ret == -EIO && fz_streq(run_a.error, "Error reading the log"),
			  "read %u failed with -EIO, replay returned %d %s", run_a.reader.fail_at,
			  run_a.ret, run_a.error);
	} else if (run_a.ret) {
		fz_assert(run_a.ret == -EINVAL &&
			  fz_streq(run_a.error, "Log checkpoint does not match the log"),
			  "replay of an unchanging image failed: %d %s", run_a.ret, run_a.error);
		fz_assert(model.bad_checkpoint, "replay refused the checkpoint %u/%llu, the model "
			  "found it in the chain", run_a.rp.new_tail_slot, run_a.rp.new_tail_seq);
	} else {
		fz_assert(!model.bad_checkpoint, "the model found no record at the checkpoint "
			  "%u/%llu, replay accepted it", model.new_tail_slot, model.new_tail_seq);
		fz_check_index(&run_a, lg.nr_slots);
		fz_check_model(&run_a, &model, lg.nr_slots);
	}
	rep->mapped = run_a.idx.mapped;
	rep->extents = run_a.idx.extents;

	fz_run_replay(im, &lg, &sb, &run_b);
	fz_check_same(&run_a, &run_b, lg.nr_slots);
	ressd_index_exit(&run_a.idx);
	ressd_index_exit(&run_b.idx);
}
