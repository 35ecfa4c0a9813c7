// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz-record: the record and superblock codecs, and the trailer scan, on
 * their own.
 *
 * Input: a 26-byte header, then a payload.
 *
 *   0      mode: 0 raw record, 1 record round trip,
 *                2 raw superblock, 3 superblock round trip,
 *                4 trailer scan (mod 5)
 *   1      flags (per mode, below)
 *   2..5   slot (or location) the block was read from
 *   6..9   log slots: 2 + v % (2^26 - 1)
 *   10..17 origin blocks: 1 + v % 2^48
 *   18..25 nonce
 *
 * Raw modes: the payload is the 4 KiB block (zero-padded).  flags bit 0 takes
 * the nonce from the block itself, bit 1 reseals its checksum, so that the
 * fuzzer gets past both walls.  The verdict must equal the design
 * document's checks (fz_rec_expect, fz_sb_expect), and a valid block must
 * survive decode, encode, decode unchanged.
 *
 * Round-trip modes: the payload is consumed field by field to build a
 * record (or superblock) for encode; with flags bit 0 every value is first
 * clamped into its valid range.  decode(encode(x)) must give x back, or
 * exactly the verdict the design's checks give for x.
 *
 * Trailer scan: ressd_rec_find() over a log of up to 2^26 slots (slot 2..5
 * is the record's start), all zero but for the blocks the payload places:
 * le64 seq, le64 min_epoch, le64 max_epoch, then up to FS_MAX_BLOCKS times
 * le16 distance from the start (mod RESSD_REC_MAX_ITEMS + 3, so that some
 * lie beyond the scan's reach), le16 length, and the block's first bytes.
 * flags bit 0 writes each placed block's slot into it, bit 1 the nonce,
 * bit 2 reseals its checksum (in that order, after all are placed); bits
 * 4..7 make that read of the scan fail.  The result, the reason, the
 * trailer found and the slots read (from the start on, in order) must be
 * the format's (fz_find_expect).
 */
#include "fuzz-common.h"

#define FR_HDR		26

struct fr_in {
	const u8 *p;
	size_t left;
};

static u64 fr_take(struct fr_in *in, unsigned int bytes)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < bytes && in->left; i++, in->left--)
		v |= (u64)*in->p++ << (8 * i);
	return v;
}

static void fr_lg(const u8 *data, struct ressd_log_geo *lg, u32 *slot)
{
	*slot = fz_get32(data, 2);
	lg->nr_slots = 2 + fz_get32(data, 6) % (RESSD_MAX_SLOTS - 1);
	lg->origin_blocks = 1 + fz_get64(data, 10) % (RESSD_MAX_BLOCK + 1);
	lg->nonce = fz_get64(data, 18);
}

static void fr_same_rec(const struct ressd_trailer *a, const struct ressd_trailer *b, const char *what)
{
	fz_assert(a->seq == b->seq && a->epoch == b->epoch && a->tail_seq == b->tail_seq &&
		  a->slot == b->slot && a->tail_slot == b->tail_slot &&
		  a->nr_data == b->nr_data && a->nr_inval == b->nr_inval,
		  "%s: seq %llu/%llu epoch %llu/%llu tail %u:%llu/%u:%llu slot %u/%u items %u+%u/%u+%u",
		  what, a->seq, b->seq, a->epoch, b->epoch, a->tail_slot, a->tail_seq, b->tail_slot,
		  b->tail_seq, a->slot, b->slot, a->nr_data, a->nr_inval, b->nr_data, b->nr_inval);
}

/* Mode 0: decode an arbitrary block; a valid one round-trips. */
static void fr_raw_record(const u8 *data, size_t size)
{
	static u8 blk[RESSD_BLOCK_SIZE], again[RESSD_BLOCK_SIZE];
	struct ressd_log_geo lg;
	struct ressd_trailer r, r2;
	const char *why, *want;
	size_t items_end;
	u32 slot;

	fr_lg(data, &lg, &slot);
	memset(blk, 0, sizeof(blk));
	memcpy(blk, data + FR_HDR, min_t(size_t, size - FR_HDR, sizeof(blk)));
	if (data[1] & 1)
		lg.nonce = fz_get64(blk, 16);
	if (data[1] & 2)
		fz_put32(blk, 8, fz_meta_csum(blk, lg.nonce));
	memset(&r, 0xa5, sizeof(r));
	why = ressd_rec_decode(blk, &lg, slot, &r);
	want = fz_rec_expect(blk, &lg, slot);
	fz_assert(why == want || (why && want && !strcmp(why, want)),
		  "decode says \"%s\", the design \"%s\"", why, want);
	if (why)
		return;
	/* What decode promises its callers: every value bounded. */
	fz_assert(r.slot == slot && r.nr_data + r.nr_inval <= RESSD_REC_MAX_ITEMS &&
		  slot < lg.nr_slots && r.nr_data <= slot && r.tail_slot < lg.nr_slots &&
		  r.tail_seq <= r.seq && ressd_rec_start(&r) == slot - r.nr_data,
		  "decoded values out of bounds");
	ressd_rec_encode(again, &lg, &r, ((const struct ressd_disk_rec *)blk)->entries,
			 (const struct ressd_disk_inval *)
			 (((const struct ressd_disk_rec *)blk)->entries + r.nr_data));
	items_end = RESSD_REC_HDR_SIZE + (size_t)(r.nr_data + r.nr_inval) *
		    sizeof(struct ressd_disk_entry);
	fz_assert(!memcmp(again, blk, 8) && !memcmp(again + 12, blk + 12, items_end - 12),
		  "re-encoding a valid trailer changed it");
	if (!memchr_inv(blk + items_end, 0, RESSD_BLOCK_SIZE - items_end))
		fz_assert(!memcmp(again, blk, RESSD_BLOCK_SIZE),
			  "re-encoding a valid trailer changed its checksum");
	fz_assert(!ressd_rec_decode(again, &lg, slot, &r2), "re-encoded trailer invalid");
	fr_same_rec(&r, &r2, "decode(encode(decode(x)))");
}

/* Mode 1: build a record, encode it, decode it. */
static void fr_record_roundtrip(const u8 *data, size_t size)
{
	static struct ressd_disk_entry e[RESSD_REC_MAX_ITEMS];
	static struct ressd_disk_inval inv[RESSD_REC_MAX_ITEMS];
	static u8 blk[RESSD_BLOCK_SIZE];
	struct fr_in in = { data + FR_HDR, size - FR_HDR };
	bool sane = data[1] & 1;
	struct ressd_log_geo lg;
	struct ressd_trailer r = { 0 }, d;
	const char *why, *want;
	u32 slot, i, read_slot;

	fr_lg(data, &lg, &slot);
	r.seq = fr_take(&in, 8);
	r.epoch = fr_take(&in, 8);
	r.tail_seq = fr_take(&in, 8);
	r.slot = slot;
	r.tail_slot = fr_take(&in, 4);
	r.nr_data = fr_take(&in, 2) % (RESSD_REC_MAX_ITEMS + 1);
	r.nr_inval = fr_take(&in, 2) % (RESSD_REC_MAX_ITEMS + 1 - r.nr_data);
	if (sane) {
		/* A record the writer could have written: data, then the trailer. */
		r.slot %= lg.nr_slots;
		r.nr_data = min_t(u32, r.nr_data, r.slot);
		r.nr_inval = min_t(u32, r.nr_inval, RESSD_REC_MAX_ITEMS - r.nr_data);
		r.tail_slot %= lg.nr_slots;
		r.seq &= RESSD_MAX_SEQ;
		if (r.tail_seq > r.seq)
			r.tail_seq = r.seq;
	}
	for (i = 0; i < r.nr_data; i++) {
		u64 b = fr_take(&in, 8);
		u32 csum = fr_take(&in, 4);

		if (sane && (b & 1)) {
			b = RESSD_DEAD_BLOCK;
		} else if (sane && (b & 2)) {
			/* ordered (data_csum 0): no checksum */
			b = ((b >> 2) % lg.origin_blocks) | RESSD_ENTRY_ORDERED;
			csum = 0;
		} else if (sane) {
			b = (b >> 2) % lg.origin_blocks;
		}
		e[i].block = cpu_to_le64(b);
		e[i].csum = cpu_to_le32(csum);
	}
	for (i = 0; i < r.nr_inval; i++) {
		u64 b = fr_take(&in, 8);
		u64 n = fr_take(&in, 4);

		if (sane) {
			b %= lg.origin_blocks;
			n = 1 + n % min_t(u64, lg.origin_blocks - b, U32_MAX);
		}
		inv[i].block = cpu_to_le64(b);
		inv[i].nr_blocks = cpu_to_le32((u32)n);
	}
	memset(blk, 0x5a, sizeof(blk));		/* encode must clear it all */
	ressd_rec_encode(blk, &lg, &r, e, inv);
	read_slot = (data[1] & 2) ? slot ^ 1 : r.slot;
	why = ressd_rec_decode(blk, &lg, read_slot, &d);
	want = fz_rec_expect(blk, &lg, read_slot);
	fz_assert(why == want || (why && want && !strcmp(why, want)),
		  "decode(encode(x)) says \"%s\", the design \"%s\"", why, want);
	if (sane && read_slot == r.slot)
		fz_assert(!why, "a record the writer could write is refused: %s", why);
	if (why)
		return;
	fr_same_rec(&r, &d, "decode(encode(x))");
	fz_assert(!memcmp(((struct ressd_disk_rec *)blk)->entries, e, r.nr_data * sizeof(*e)),
		  "entries changed");
	fz_assert(!memcmp(((struct ressd_disk_rec *)blk)->entries + r.nr_data, inv,
			  r.nr_inval * sizeof(*inv)), "invalidations changed");
	fz_assert(!memchr_inv(blk + RESSD_REC_HDR_SIZE + (r.nr_data + r.nr_inval) * 12, 0,
			      RESSD_BLOCK_SIZE - RESSD_REC_HDR_SIZE - (r.nr_data + r.nr_inval) * 12),
		  "encode left bytes after the items");
}

/* Modes 2 and 3 check superblocks against this geometry. */
static void fr_sb_geo(struct fr_in *in, struct ressd_geometry *g, bool sane)
{
	memset(g, 0, sizeof(*g));
	g->origin_offset = fr_take(in, 8);
	g->origin_sectors = fr_take(in, 8);
	g->log_offset = fr_take(in, 8);
	g->log_sectors = fr_take(in, 8);
	if (sane) {
		g->origin_offset &= ~7ULL;
		g->origin_sectors = (1 + g->origin_sectors % (RESSD_MAX_BLOCK + 1)) * 8;
		g->log_offset &= ~7ULL;
		g->log_sectors = (4 + g->log_sectors % (RESSD_MAX_SLOTS - 1)) * 8;
	}
}

/* Mode 2: check an arbitrary superblock block. */
static void fr_raw_sb(const u8 *data, size_t size)
{
	static u8 blk[RESSD_BLOCK_SIZE];
	struct fr_in in = { data + FR_HDR, size - FR_HDR };
	struct ressd_geometry g;
	const char *why, *want;
	u64 loc = data[2] & 1;

	fr_sb_geo(&in, &g, data[1] & 4);
	memset(blk, 0, sizeof(blk));
	memcpy(blk, in.p, min_t(size_t, in.left, sizeof(blk)));
	if (data[1] & 1)	/* the geometry the block claims (so the fuzzer gets past it) */
		g = (struct ressd_geometry){ .origin_offset = fz_get64(blk, 56),
			.origin_sectors = fz_get64(blk, 64), .log_offset = fz_get64(blk, 72),
			.log_sectors = fz_get64(blk, 80) };
	if (data[1] & 2)
		fz_put32(blk, 8, fz_meta_csum(blk, fz_get64(blk, 32)));
	why = ressd_sb_check((const struct ressd_disk_sb *)blk, loc, &g);
	want = fz_sb_expect(blk, loc, &g);
	fz_assert(why == want || (why && want && !strcmp(why, want)),
		  "superblock check says \"%s\", the design \"%s\"", why, want);
}

/* Mode 3: encode a superblock, check it. */
static void fr_sb_roundtrip(const u8 *data, size_t size)
{
	static u8 blk[RESSD_BLOCK_SIZE];
	struct fr_in in = { data + FR_HDR, size - FR_HDR };
	bool sane = data[1] & 1;
	struct ressd_sb_info info = { 0 };
	struct ressd_tunables t = { 0 };
	struct ressd_geometry g, gc;
	const char *why, *want;
	u64 loc = data[2] & 1;

	fr_sb_geo(&in, &g, sane);
	info.nonce = fz_get64(data, 18);
	info.generation = fr_take(&in, 8);
	info.nr_slots = fr_take(&in, 4);
	info.tail_slot = fr_take(&in, 4);
	info.tail_seq = fr_take(&in, 8);
	info.epoch = fr_take(&in, 8);
	info.compat = fr_take(&in, 4);
	info.ro_compat = fr_take(&in, 4);
	info.incompat = fr_take(&in, 4);
	t.small_write_max = fr_take(&in, 4);
	t.mover_batch = fr_take(&in, 4);
	t.high_watermark = fr_take(&in, 4);
	t.low_watermark = fr_take(&in, 4);
	if (sane) {
		info.nr_slots = ressd_nr_slots(g.log_sectors);
		info.tail_slot %= info.nr_slots;
		info.generation &= RESSD_MAX_GENERATION;
		info.tail_seq &= RESSD_MAX_SEQ;
		info.epoch &= RESSD_MAX_EPOCH;
		info.incompat = 0;
	}
	memset(blk, 0x5a, sizeof(blk));
	ressd_sb_encode((struct ressd_disk_sb *)blk, loc, &info, &g, &t);
	gc = g;
	if (data[1] & 2) {	/* a table that differs in one field */
		switch (data[3] % 4) {
		case 0:
			gc.origin_offset += 8;
			break;
		case 1:
			gc.origin_sectors += 8;
			break;
		case 2:
			gc.log_offset += 8;
			break;
		default:
			gc.log_sectors += 8;
			break;
		}
	}
	why = ressd_sb_check((const struct ressd_disk_sb *)blk, loc, &gc);
	want = fz_sb_expect(blk, loc, &gc);
	fz_assert(why == want || (why && want && !strcmp(why, want)),
		  "check(encode(x)) says \"%s\", the design \"%s\"", why, want);
	if (sane && !(data[1] & 2))
		fz_assert(!why, "a superblock the target could write is refused: %s", why);
	/* The fields land where the design's table puts them. */
	fz_assert(fz_get64(blk, 24) == info.generation && fz_get64(blk, 32) == info.nonce &&
		  fz_get32(blk, 88) == info.nr_slots && fz_get32(blk, 108) == info.tail_slot &&
		  fz_get64(blk, 112) == info.tail_seq && fz_get64(blk, 120) == info.epoch &&
		  fz_get32(blk, 40) == info.compat && fz_get32(blk, 44) == info.ro_compat &&
		  fz_get32(blk, 48) == info.incompat && fz_get32(blk, 92) == t.small_write_max &&
		  fz_get32(blk, 96) == t.mover_batch && fz_get32(blk, 100) == t.high_watermark &&
		  fz_get32(blk, 104) == t.low_watermark && fz_get64(blk, 16) == loc &&
		  fz_get64(blk, 56) == g.origin_offset && fz_get64(blk, 64) == g.origin_sectors &&
		  fz_get64(blk, 72) == g.log_offset && fz_get64(blk, 80) == g.log_sectors,
		  "superblock fields not where the design puts them");
	fz_assert(!memchr_inv(blk + 128, 0, RESSD_BLOCK_SIZE - 128),
		  "superblock bytes after 128 not zero");
}

/* Mode 4: ressd_rec_find() against the format's search. */
#define FS_MAX_BLOCKS	16

struct fs_log {
	const struct ressd_log_geo *lg;
	u32 nr;
	u32 slot[FS_MAX_BLOCKS];
	u8 *blk[FS_MAX_BLOCKS];
	/* the reader's view */
	u32 start;
	u32 reads;
	u32 fail_at;
};

static const u8 *fs_get(void *ctx, u32 slot)
{
	static const u8 zero[RESSD_BLOCK_SIZE];
	struct fs_log *l = ctx;
	int i;

	for (i = (int)l->nr - 1; i >= 0; i--)	/* the last one placed wins */
		if (l->slot[i] == slot)
			return l->blk[i];
	return zero;
}

static int fs_read(void *ctx, u32 slot, void *buf)
{
	struct fs_log *l = ctx;

	fz_assert(slot < l->lg->nr_slots, "scan reads slot %u of a %u-slot log", slot,
		  l->lg->nr_slots);
	fz_assert(slot == l->start + l->reads, "read %u of a scan from %u is slot %u",
		  l->reads, l->start, slot);
	if (++l->reads == l->fail_at)
		return -EIO;
	memcpy(buf, fs_get(l, slot), RESSD_BLOCK_SIZE);
	return 0;
}

static void fr_scan(const u8 *data, size_t size)
{
	static u8 blocks[FS_MAX_BLOCKS][RESSD_BLOCK_SIZE], buf[RESSD_BLOCK_SIZE];
	struct fr_in in = { data + FR_HDR, size - FR_HDR };
	struct fs_log l = { 0 };
	struct ressd_log_geo lg;
	struct ressd_trailer r;
	const char *why = NULL, *want;
	u64 seq, min_epoch, max_epoch;
	u32 start, found = 0, reads, i;
	int ret;

	fr_lg(data, &lg, &start);
	l.lg = &lg;
	seq = fr_take(&in, 8);
	min_epoch = fr_take(&in, 8);
	max_epoch = fr_take(&in, 8);
	while (in.left >= 4 && l.nr < FS_MAX_BLOCKS) {
		u64 slot = start + fr_take(&in, 2) % (RESSD_REC_MAX_ITEMS + 3);
		size_t len = min_t(size_t, fr_take(&in, 2), in.left);
		u8 *b = blocks[l.nr];

		len = min_t(size_t, len, RESSD_BLOCK_SIZE);
		memset(b, 0, RESSD_BLOCK_SIZE);
		memcpy(b, in.p, len);
		in.p += len;
		in.left -= len;
		if (slot >= lg.nr_slots)
			continue;
		l.slot[l.nr] = slot;
		l.blk[l.nr++] = b;
	}
	for (i = 0; i < l.nr; i++) {
		u8 *b = l.blk[i];

		if (data[1] & 1)
			fz_put32(b, 32, l.slot[i]);
		if (data[1] & 2) {
			u64 v = htole64(lg.nonce);

			memcpy(b + 16, &v, 8);
		}
		if (data[1] & 4)
			fz_put32(b, 8, fz_meta_csum(b, lg.nonce));
	}
	want = fz_find_expect(fs_get, &l, &lg, start, seq, min_epoch, max_epoch, &found, &reads);
	l.start = start;
	l.fail_at = data[1] >> 4;
	memset(&r, 0xa5, sizeof(r));
	ret = ressd_rec_find(fs_read, &l, &lg, start, seq, min_epoch, max_epoch, buf, &r, &why);
	if (l.fail_at && l.fail_at <= reads) {
		fz_assert(ret == -EIO && l.reads == l.fail_at,
			  "read %u failed: scan returned %d after %u reads", l.fail_at, ret, l.reads);
		return;
	}
	fz_assert(l.reads == reads, "scan from %u read %u slots, the format %u", start,
		  l.reads, reads);
	if (want) {
		fz_assert(ret == 1 && fz_streq(why, want),
			  "scan from %u: %d \"%s\", the format: \"%s\"", start, ret, ret ? why : "",
			  want);
		return;
	}
	fz_assert(ret == 0, "scan from %u: %d \"%s\", the format: trailer at %u", start, ret,
		  why, found);
	fz_assert(r.slot == found && r.seq == seq && ressd_rec_start(&r) == start &&
		  r.nr_data == fz_get16(fs_get(&l, found), 36) &&
		  r.epoch >= min_epoch && r.epoch <= max_epoch &&
		  !memcmp(buf, fs_get(&l, found), RESSD_BLOCK_SIZE),
		  "scan from %u took slot %u seq %llu start %u, the format slot %u", start, r.slot,
		  r.seq, ressd_rec_start(&r), found);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	if (size < FR_HDR)
		return 0;
	switch (data[0] % 5) {
	case 0:
		fr_raw_record(data, size);
		break;
	case 1:
		fr_record_roundtrip(data, size);
		break;
	case 2:
		fr_raw_sb(data, size);
		break;
	case 3:
		fr_sb_roundtrip(data, size);
		break;
	default:
		fr_scan(data, size);
		break;
	}
	return 0;
}
