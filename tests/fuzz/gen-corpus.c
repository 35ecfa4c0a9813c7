// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen-corpus: write the seed corpora of the fuzz targets.
 *
 *   gen-corpus <replay-dir> <record-dir> <index-dir>
 *
 * A model writer builds log images with the project's own encoders
 * (ressd_sb_encode, ressd_rec_encode, ressd_csum) the way the target writes
 * them (format version 2): format (copy B at generation 2, copy A at 1), a
 * recovery that raises the epoch, records at head whose data blocks come
 * first and whose trailer follows them, records that never wrap (a padding
 * record of dead entries ends the lap with a trailer at the last slot), dead
 * entries whose slots are not written (they keep what an earlier lap left,
 * stale trailers included), a mover that frees the oldest records and
 * writes the checkpoint (the start of the oldest live record) before any
 * slot is reused.  Each image is replayed through the same checks as
 * fuzz-replay before it is written, and its figures are printed: the seeds
 * are real logs that replay deep.  fuzz-record gets their trailers and
 * superblocks, and trailer scans over their chains.
 */
#include <sys/stat.h>

#include "fuzz-common.h"

#define GW_MAX_REC	1024

struct gw {
	struct fz_image im;
	struct ressd_log_geo lg;
	struct ressd_geometry g;
	struct ressd_tunables t;
	struct ressd_sb_info sb;
	u32 head;
	u64 seq;
	u32 used;
	u32 nrec;
	u32 tail_rec;		/* oldest record not moved home */
	bool no_room;		/* write without making room: a forged image */
	bool ordered;		/* every other entry ordered (data_csum 0) */
	struct {
		u32 slot;	/* its start: the first data slot, or the trailer */
		u32 trailer;
		u32 len;	/* nr_data + 1 */
		u64 seq;
		u64 epoch;
	} rec[GW_MAX_REC];
	u64 rng;
};

static u64 gw_rand(struct gw *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static void gw_write_sb(struct gw *w)
{
	u64 loc;

	w->sb.generation++;
	loc = (w->sb.generation & 1) ? 0 : 1;	/* odd in A, even in B */
	ressd_sb_encode((struct ressd_disk_sb *)fz_block(&w->im, loc), loc, &w->sb, &w->g, &w->t);
}

static void gw_tail(struct gw *w, u32 *slot, u64 *seq)
{
	if (w->tail_rec < w->nrec) {
		*slot = w->rec[w->tail_rec].slot;
		*seq = w->rec[w->tail_rec].seq;
	} else {
		*slot = w->head;
		*seq = w->seq;
	}
}

/* The mover wrote the oldest record home (no checkpoint yet). */
static void gw_move(struct gw *w)
{
	if (w->tail_rec < w->nrec)
		w->used -= w->rec[w->tail_rec++].len;
}

static void gw_checkpoint(struct gw *w)
{
	gw_tail(w, &w->sb.tail_slot, &w->sb.tail_seq);
	gw_write_sb(w);
}

/* Format, then the first recovery's checkpoint with the epoch raised. */
static void gw_init(struct gw *w, u32 nr_slots, u64 origin_blocks, u64 seed)
{
	memset(w, 0, sizeof(*w));
	w->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	w->im.nr_slots = nr_slots;
	w->im.origin_blocks = origin_blocks;
	w->im.origin_offset = 0;
	w->im.log_offset = (origin_blocks + 16) * RESSD_SECTORS_PER_BLOCK % (1ULL << 32);
	w->im.blk = calloc(RESSD_SB_BLOCKS + nr_slots, RESSD_BLOCK_SIZE);
	if (!w->im.blk)
		abort();
	fz_geometry(&w->im, &w->g);
	w->t = (struct ressd_tunables){ 16, 50, 0, 1024 };
	w->sb.nonce = 0x7e55d000ULL + seed * 0x10001ULL;
	w->sb.nr_slots = ressd_nr_slots(w->g.log_sectors);
	if (w->sb.nr_slots != nr_slots)
		abort();
	w->sb.tail_slot = 0;
	w->sb.tail_seq = 1;
	w->sb.generation = 1;
	gw_write_sb(w);				/* B, generation 2 */
	w->sb.generation = 0;
	gw_write_sb(w);				/* A, generation 1 */
	w->sb.generation = 2;
	w->lg.nonce = w->sb.nonce;
	w->lg.nr_slots = nr_slots;
	w->lg.origin_blocks = origin_blocks;
	w->seq = 1;
	/* recovery: epoch 1, checkpoint at generation 3 (copy A) */
	w->sb.epoch++;
	gw_checkpoint(w);
}

static void gw_fill(u8 *data, u64 block, u64 seq)
{
	u64 v[2] = { htole64(block ^ 0x5555), htole64(seq) };

	memset(data, 0, RESSD_BLOCK_SIZE);
	memcpy(data, v, sizeof(v));
}

static void gw_record(struct gw *w, u32 nd, const u64 *blocks, u32 ni, const u64 *inv_b,
		      const u32 *inv_n, int torn)
{
	struct ressd_disk_entry e[RESSD_REC_MAX_ITEMS];
	struct ressd_disk_inval inv[RESSD_REC_MAX_ITEMS];
	struct ressd_trailer r = { 0 };
	bool moved = false;
	u32 i;

	if (nd + ni > RESSD_REC_MAX_ITEMS || 1 + nd > w->lg.nr_slots - w->head)
		abort();
	while (!w->no_room && w->used + 1 + nd > w->lg.nr_slots) {
		gw_move(w);
		moved = true;
	}
	if (moved)	/* the checkpoint is durable before a slot is reused */
		gw_checkpoint(w);
	r.seq = w->seq;
	r.epoch = w->sb.epoch;
	r.slot = w->head + nd;	/* the trailer, after the data */
	r.nr_data = nd;
	r.nr_inval = ni;
	gw_tail(w, &r.tail_slot, &r.tail_seq);
	for (i = 0; i < nd; i++) {
		u8 *data = fz_slot(&w->im, w->head + i);

		e[i].block = cpu_to_le64(blocks[i]);
		if (blocks[i] == RESSD_DEAD_BLOCK) {
			e[i].csum = 0;	/* its data is not written */
		} else if (w->ordered && (int)i != torn && i % 2 == 0) {
			/* written in a chunk before the trailer (data_csum 0) */
			gw_fill(data, blocks[i], r.seq);
			e[i].csum = 0;
			e[i].block = cpu_to_le64(blocks[i] | RESSD_ENTRY_ORDERED);
		} else {
			gw_fill(data, blocks[i], r.seq);
			e[i].csum = cpu_to_le32(ressd_csum(w->lg.nonce, data, RESSD_BLOCK_SIZE));
		}
		if ((int)i == torn && blocks[i] != RESSD_DEAD_BLOCK)
			data[3] ^= 0x10;	/* the write never reached the medium */
	}
	for (i = 0; i < ni; i++) {
		inv[i].block = cpu_to_le64(inv_b[i]);
		inv[i].nr_blocks = cpu_to_le32(inv_n[i]);
	}
	ressd_rec_encode(fz_slot(&w->im, r.slot), &w->lg, &r, e, inv);
	if (w->nrec == GW_MAX_REC)
		abort();
	w->rec[w->nrec].slot = w->head;
	w->rec[w->nrec].trailer = r.slot;
	w->rec[w->nrec].len = 1 + nd;
	w->rec[w->nrec].seq = r.seq;
	w->rec[w->nrec].epoch = r.epoch;
	w->nrec++;
	w->used += 1 + nd;
	w->seq++;
	w->head = ressd_rec_next_slot(&w->lg, r.slot);
}

/* A record as the writer makes it: padding first when it would not end by the last slot. */
static void gw_append(struct gw *w, u32 nd, const u64 *blocks, u32 ni, const u64 *inv_b,
		      const u32 *inv_n, int torn)
{
	if (1 + nd > w->lg.nr_slots - w->head) {
		u64 dead[FZ_MAX_SLOTS];
		u32 i, pad = w->lg.nr_slots - w->head - 1;

		for (i = 0; i < pad; i++)
			dead[i] = RESSD_DEAD_BLOCK;
		gw_record(w, pad, dead, 0, NULL, NULL, -1);
	}
	gw_record(w, nd, blocks, ni, inv_b, inv_n, torn);
}

static void gw_append_random(struct gw *w, u32 max_data, int torn)
{
	u64 blocks[RESSD_REC_MAX_ITEMS], inv_b[2];
	u32 inv_n[2], nd = gw_rand(w) % (max_data + 1), ni = gw_rand(w) % 3, i;

	nd = min_t(u32, nd, w->lg.nr_slots - 2);
	if (torn >= (int)nd)
		torn = -1;
	for (i = 0; i < nd; i++)
		blocks[i] = gw_rand(w) % 8 == 0 ? RESSD_DEAD_BLOCK :
			    gw_rand(w) % w->lg.origin_blocks;
	for (i = 0; i < ni; i++) {
		inv_b[i] = gw_rand(w) % w->lg.origin_blocks;
		inv_n[i] = min_t(u64, 1 + gw_rand(w) % 4, w->lg.origin_blocks - inv_b[i]);
	}
	gw_append(w, nd, blocks, ni, inv_b, inv_n, torn);
}

/* Data slot @j of record @k gets @content (4 KiB) and its entry the checksum of it. */
static void gw_set_data(struct gw *w, u32 k, u32 j, const u8 *content)
{
	u8 *t = fz_slot(&w->im, w->rec[k].trailer);

	if (j + 1 >= w->rec[k].len)
		abort();
	memcpy(fz_slot(&w->im, w->rec[k].slot + j), content, RESSD_BLOCK_SIZE);
	fz_put32(t, 64 + 12 * j + 8, ressd_csum(w->lg.nonce, content, RESSD_BLOCK_SIZE));
	fz_put32(t, 8, ressd_block_csum(t, w->lg.nonce));
}

/* A trailer look-alike in @blk: a valid trailer for @slot of @nr_data dead entries. */
static void gw_lookalike(struct gw *w, u8 *blk, u32 slot, u64 seq, u32 nr_data, u64 nonce)
{
	struct ressd_disk_entry dead[4];
	struct ressd_disk_inval none[1] = { { 0, 0 } };
	struct ressd_log_geo lg = w->lg;
	struct ressd_trailer r = { .seq = seq, .epoch = w->sb.epoch, .slot = slot,
			       .nr_data = nr_data };
	u32 i;

	if (nr_data > 4)
		abort();
	for (i = 0; i < 4; i++) {
		dead[i].block = cpu_to_le64(RESSD_DEAD_BLOCK);
		dead[i].csum = 0;
	}
	lg.nonce = nonce;
	ressd_rec_encode(blk, &lg, &r, dead, none);	/* not NULL: memcpy */
}

/* Slots from @from on, @n of them, whose block carries the record magic. */
static u32 gw_magic_in(struct gw *w, u32 from, u32 n)
{
	u32 s, k = 0;

	for (s = from; s < from + n && s < w->lg.nr_slots; s++)
		k += fz_get64(fz_slot(&w->im, s), 0) == RESSD_REC_MAGIC;
	return k;
}

/* ---- output ---- */

static const char *replay_dir, *record_dir, *index_dir;
static unsigned int nr_files;

static void write_file(const char *dir, const char *name, const u8 *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
	nr_files++;
}

static void put_le64(u8 *p, u64 v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static void put_le16(u8 *p, u16 v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

/* The 26-byte fuzz-record header. */
static void fr_header(u8 *buf, u8 mode, u8 flags, u32 slot, u32 nr_slots, u64 origin_blocks,
		      u64 nonce)
{
	memset(buf, 0, 26);
	buf[0] = mode;
	buf[1] = flags;
	fz_put32(buf, 2, slot);
	fz_put32(buf, 6, nr_slots - 2);
	put_le64(buf + 10, origin_blocks - 1);
	put_le64(buf + 18, nonce);
}

/* A mode-4 input: its header and the scan's seq and epochs; blocks go after. */
static size_t scan_begin(u8 *buf, u8 flags, u32 start, u32 nr_slots, u64 origin_blocks,
			 u64 nonce, u64 seq, u64 min_epoch, u64 max_epoch)
{
	fr_header(buf, 4, flags, start, nr_slots, origin_blocks, nonce);
	put_le64(buf + 26, seq);
	put_le64(buf + 34, min_epoch);
	put_le64(buf + 42, max_epoch);
	return 50;
}

static size_t scan_block(u8 *buf, size_t pos, size_t cap, u32 dist, const u8 *blk)
{
	u32 len = RESSD_BLOCK_SIZE;

	while (len && !blk[len - 1])
		len--;
	if (!len || pos + 4 + len > cap)
		return pos;
	put_le16(buf + pos, dist);
	put_le16(buf + pos + 2, len);
	memcpy(buf + pos + 4, blk, len);
	return pos + 4 + len;
}

/*
 * fuzz-record seeds, mode 4: the scan for a record that starts at @start,
 * over the image's non-zero blocks from there (as many as fit).
 */
static void scan_seed(const char *name, struct gw *w, u32 start, u64 seq, u64 min_epoch)
{
	static u8 buf[4200];
	char fname[256];
	size_t pos;
	u32 d, nb = 0;

	pos = scan_begin(buf, 0, start, w->lg.nr_slots, w->lg.origin_blocks, w->lg.nonce, seq,
			 min_epoch, w->sb.epoch);
	for (d = 0; start + d < w->lg.nr_slots && d <= RESSD_REC_MAX_ITEMS && nb < 16; d++) {
		size_t next = scan_block(buf, pos, sizeof(buf), d, fz_slot(&w->im, start + d));

		nb += next != pos;
		pos = next;
	}
	snprintf(fname, sizeof(fname), "scan-%s-%u-%llu", name, start, seq % 1000);
	write_file(record_dir, fname, buf, pos);
}

/*
 * fuzz-record seeds: every valid trailer of the image (mode 0), its
 * superblock copy A (mode 2), and scans from the starts of its last
 * records and from head (mode 4).
 */
static void record_seeds(const char *name, struct gw *w)
{
	static u8 buf[26 + RESSD_BLOCK_SIZE];
	char fname[256];
	u32 s, len, n = 0;
	struct ressd_trailer r;

	for (s = 0; s < w->lg.nr_slots && n < 4; s++) {
		const u8 *h = fz_slot(&w->im, s);

		if (ressd_rec_decode(h, &w->lg, s, &r))
			continue;
		fr_header(buf, 0, 0, s, w->lg.nr_slots, w->lg.origin_blocks, w->lg.nonce);
		len = RESSD_BLOCK_SIZE;
		while (len && !h[len - 1])
			len--;
		memcpy(buf + 26, h, len);
		snprintf(fname, sizeof(fname), "rec-%s-%u", name, s);
		write_file(record_dir, fname, buf, 26 + len);
		n++;
	}
	/* and its superblock copy A, in mode 2 against its own geometry */
	memset(buf, 0, 26);
	buf[0] = 2;
	{
		u64 geo[4] = { htole64(w->g.origin_offset), htole64(w->g.origin_sectors),
			       htole64(w->g.log_offset), htole64(w->g.log_sectors) };
		u8 sbbuf[26 + 32 + 256];

		memcpy(sbbuf, buf, 26);
		memcpy(sbbuf + 26, geo, 32);
		memcpy(sbbuf + 58, fz_block(&w->im, 0), 256);
		snprintf(fname, sizeof(fname), "sb-%s", name);
		write_file(record_dir, fname, sbbuf, sizeof(sbbuf));
	}
	for (s = w->nrec > 2 ? w->nrec - 2 : 0; s < w->nrec; s++)
		scan_seed(name, w, w->rec[s].slot, w->rec[s].seq, s ? w->rec[s - 1].epoch : 0);
	scan_seed(name, w, w->head, w->seq, w->nrec ? w->rec[w->nrec - 1].epoch : 0);
}

static void emit(const char *name, struct gw *w, const char *want_stop, u64 want_bad)
{
	static u8 out[FZ_HDR_SIZE + (RESSD_SB_BLOCKS + FZ_MAX_SLOTS) * (RESSD_BLOCK_SIZE + 8)];
	struct fz_image im;
	struct fz_report rep;
	size_t n = fz_image_compact(&w->im, out, sizeof(out));

	/* What the fuzzer will see: the compact form, expanded again. */
	if (!fz_image_expand(out, n, &im) || memcmp(im.blk, w->im.blk,
	    (size_t)(RESSD_SB_BLOCKS + w->im.nr_slots) * RESSD_BLOCK_SIZE))
		fz_fail("%s: compact encoding does not round-trip", name);
	fz_replay_check(&im, &rep);
	if (!rep.replayed || rep.ret)
		fz_fail("%s: replay did not succeed (%d %s)", name, rep.ret, rep.error);
	if (want_stop && !(rep.rp.stop && !strcmp(want_stop, rep.rp.stop)))
		fz_fail("%s: replay stopped at \"%s\", expected \"%s\"", name, rep.rp.stop, want_stop);
	if (rep.rp.bad_data != want_bad)
		fz_fail("%s: %llu torn entries, expected %llu", name, rep.rp.bad_data, want_bad);
	printf("  %-18s %2u slots %6zu bytes: sb %d, %3u records %4llu entries %2llu torn "
	       "%3llu invalidated %2llu mapped %2llu extents, used %2u, stop: %s\n",
	       name, w->im.nr_slots, n, rep.sb_best, rep.rp.records, rep.rp.entries,
	       rep.rp.bad_data, rep.rp.invalidated, rep.mapped, rep.extents, rep.rp.used,
	       rep.rp.stop ? rep.rp.stop : "-");
	fz_image_free(&im);
	write_file(replay_dir, name, out, n);
	record_seeds(name, w);
	/* also with the checksum-fixing flags set, for the fuzzer to keep */
	out[1] = FZ_RESEAL_SB | FZ_FIX_DATA | FZ_RESEAL_REC;
	{
		char fname[256];

		snprintf(fname, sizeof(fname), "%s-fixup", name);
		write_file(replay_dir, fname, out, n);
		/* and with one of replay's reads failing */
		out[1] = 0;
		out[2] = 1 + nr_files % 7;
		snprintf(fname, sizeof(fname), "%s-ioerror", name);
		write_file(replay_dir, fname, out, n);
	}
	fz_image_free(&w->im);
}

/*
 * fuzz-record, mode 4, by hand: scans over logs larger than fuzz-replay's,
 * where RESSD_REC_MAX_ITEMS bounds the range before the end of the log.
 */
static void scan_seeds(void)
{
	static u8 buf[4200], blk[RESSD_BLOCK_SIZE];
	struct ressd_disk_entry e[RESSD_REC_MAX_ITEMS];
	struct ressd_disk_inval none[1] = { { 0, 0 } };
	struct ressd_log_geo lg = { .nonce = 0x5ca7, .nr_slots = 1000, .origin_blocks = 5000 };
	const u32 max = RESSD_REC_MAX_ITEMS;
	struct ressd_trailer r = { .seq = 77, .epoch = 4, .slot = 10 + max, .nr_data = max,
			       .tail_slot = 10, .tail_seq = 77 };
	size_t pos;
	u32 i, start;

	for (i = 0; i < max; i++) {
		e[i].block = cpu_to_le64(i % 3 ? i : RESSD_DEAD_BLOCK);
		e[i].csum = cpu_to_le32(i);
	}
	ressd_rec_encode(blk, &lg, &r, e, none);
	/* The largest record: its trailer is the scan's last slot; one start
	 * later it is out of reach; near the end of the log the range is cut. */
	for (start = 9; start <= 10; start++) {
		char fname[64];

		pos = scan_begin(buf, 0, start, lg.nr_slots, lg.origin_blocks, lg.nonce, 77, 3, 4);
		pos = scan_block(buf, pos, sizeof(buf), 10 + max - start, blk);
		snprintf(fname, sizeof(fname), "scan-max-%u", start);
		write_file(record_dir, fname, buf, pos);
	}
	pos = scan_begin(buf, 0, lg.nr_slots - 3, lg.nr_slots, lg.origin_blocks, lg.nonce, 77, 3,
			 4);
	pos = scan_block(buf, pos, sizeof(buf), 2, blk);
	write_file(record_dir, "scan-end", buf, pos);

	/* Near misses before the trailer, and the fix-up flags to change them. */
	pos = scan_begin(buf, 0x07, 500, lg.nr_slots, lg.origin_blocks, lg.nonce, 9, 1, 2);
	for (i = 0; i < 4; i++) {
		r = (struct ressd_trailer){ .seq = i == 1 ? 8 : 9, .epoch = i == 2 ? 3 : 2,
					.slot = 501 + i, .nr_data = i == 3 ? 3 : 0 };
		ressd_rec_encode(blk, &lg, &r, e, none);
		pos = scan_block(buf, pos, sizeof(buf), 1 + i, blk);
	}
	r = (struct ressd_trailer){ .seq = 9, .epoch = 2, .slot = 506, .nr_data = 6 };
	ressd_rec_encode(blk, &lg, &r, e, none);
	pos = scan_block(buf, pos, sizeof(buf), 6, blk);
	write_file(record_dir, "scan-misses", buf, pos);
	buf[1] = 0;
	write_file(record_dir, "scan-misses-raw", buf, pos);
	buf[1] = 0x30;			/* the third read fails */
	write_file(record_dir, "scan-ioerror", buf, pos);
}

/* fuzz-index: operation sequences (see fuzz-index.c for the encoding). */
struct ix_seed {
	u8 buf[10 + 9 * 64];
	size_t len;
};

static void ix_begin(struct ix_seed *x, u32 nr_slots, u64 base)
{
	u64 v = htole64(base);
	u16 w = htole16(nr_slots <= 512 ? nr_slots - 1 : 0x8000 | (nr_slots - 16384));

	memcpy(x->buf, &w, 2);
	memcpy(x->buf + 2, &v, 8);
	x->len = 10;
}

static void ix_op(struct ix_seed *x, u8 op, u16 a, u16 b, u32 c)
{
	u8 *p = x->buf + x->len;

	if (x->len + 9 > sizeof(x->buf))
		abort();
	p[0] = op;
	a = htole16(a);
	b = htole16(b);
	c = htole32(c);
	memcpy(p + 1, &a, 2);
	memcpy(p + 3, &b, 2);
	memcpy(p + 5, &c, 4);
	x->len += 9;
}

enum { IX_INSERT, IX_FILL, IX_REMOVE_RANGE, IX_REMOVE_SLOT, IX_LOOKUP, IX_SLOT_BLOCK };

static void index_seeds(struct gw *w)
{
	struct ix_seed x;
	u32 i;

	/* A small log: inserts, overwrites, a split, lookups. */
	ix_begin(&x, 64, 0);
	for (i = 0; i < 12; i++)
		ix_op(&x, IX_INSERT, i % 7, i, 0);
	ix_op(&x, IX_FILL, 20, 30, 10);
	ix_op(&x, IX_REMOVE_RANGE, 23, 0, 3);
	ix_op(&x, IX_LOOKUP, 20, 0, 16);
	ix_op(&x, IX_REMOVE_SLOT, 0, 3, 0);
	ix_op(&x, IX_LOOKUP, 0, 0, 8);
	ix_op(&x, IX_SLOT_BLOCK, 0, 5, 0);
	write_file(index_dir, "small", x.buf, x.len);

	/* Extents at their length cap (16383 slots) and runs across it. */
	ix_begin(&x, 20000, 1000);
	ix_op(&x, IX_FILL, 0, 0, 19999);
	ix_op(&x, IX_LOOKUP, 0, 0, 30000);
	ix_op(&x, IX_LOOKUP, 16380, 0, 10);
	ix_op(&x, IX_REMOVE_SLOT, 0, 16383, 0);
	ix_op(&x, IX_LOOKUP, 16380, 0, 10);
	ix_op(&x, IX_INSERT, 16383, 16383, 0);
	ix_op(&x, IX_LOOKUP, 0, 0, 30000);
	ix_op(&x, IX_REMOVE_RANGE, 16000, 0, 1000);
	ix_op(&x, IX_FILL, 16000, 18000, 999);
	ix_op(&x, IX_LOOKUP, 15990, 0, 2000);
	/* a full extent at slots 1.., then its left neighbour: no merge */
	ix_op(&x, IX_REMOVE_RANGE | 0x80, 0, 0, 1);
	ix_op(&x, IX_FILL, 30001, 1, 16382);
	ix_op(&x, IX_INSERT, 30000, 0, 0);
	ix_op(&x, IX_LOOKUP, 30000, 0, 20000);
	ix_op(&x, IX_REMOVE_SLOT, 0, 0, 0);
	ix_op(&x, IX_FILL, 29999, 16384, 1);
	ix_op(&x, IX_LOOKUP, 29990, 0, 20000);
	write_file(index_dir, "extent-cap", x.buf, x.len);

	/* The last blocks of the largest origin. */
	ix_begin(&x, 512, RESSD_MAX_BLOCK - 100);
	ix_op(&x, IX_FILL, 0, 0, 200);
	ix_op(&x, IX_LOOKUP, 90, 0, 1000);
	ix_op(&x, IX_REMOVE_RANGE | 0x80, 50, 0, 0xffffffff);
	ix_op(&x, IX_LOOKUP, 0, 0, 100);
	write_file(index_dir, "top-block", x.buf, x.len);

	/* Random operations over a few blocks. */
	w->rng = 7;
	for (i = 0; i < 4; i++) {
		u32 k;
		char name[32];

		ix_begin(&x, 8 + 40 * i, i * 1000);
		for (k = 0; k < 60; k++)
			ix_op(&x, gw_rand(w) % 6, gw_rand(w) % 24, gw_rand(w) % 400,
			      gw_rand(w) % 12);
		snprintf(name, sizeof(name), "random-%u", i);
		write_file(index_dir, name, x.buf, x.len);
	}
}

int main(int argc, char **argv)
{
	static struct gw w;
	u64 b[RESSD_REC_MAX_ITEMS], ib[2];
	u32 in[2], i, j, k, s6, len6;
	u64 seq6;

	if (argc != 4) {
		fprintf(stderr, "usage: %s <replay-dir> <record-dir> <index-dir>\n", argv[0]);
		return 2;
	}
	replay_dir = argv[1];
	record_dir = argv[2];
	index_dir = argv[3];
	mkdir(replay_dir, 0755);
	mkdir(record_dir, 0755);
	mkdir(index_dir, 0755);
	printf("gen-corpus: seed logs (replayed and checked before writing)\n");

	/* A freshly formatted and recovered log. */
	gw_init(&w, 16, 64, 1);
	emit("empty", &w, "no record trailer", 0);

	/* A few records, one block overwritten. */
	gw_init(&w, 32, 64, 2);
	b[0] = 5, b[1] = 6, b[2] = 7;
	gw_append(&w, 3, b, 0, NULL, NULL, -1);
	b[0] = 9;
	gw_append(&w, 1, b, 0, NULL, NULL, -1);
	b[0] = 6;
	gw_append(&w, 1, b, 0, NULL, NULL, -1);
	emit("few-records", &w, "no record trailer", 0);

	/* Invalidations: a direct write over logged blocks, then newer entries. */
	gw_init(&w, 32, 128, 3);
	b[0] = 10, b[1] = 11, b[2] = 12, b[3] = 13;
	gw_append(&w, 4, b, 0, NULL, NULL, -1);
	ib[0] = 11, in[0] = 2, b[0] = 20;
	gw_append(&w, 1, b, 1, ib, in, -1);
	ib[0] = 0, in[0] = 128, b[0] = 12, b[1] = 13;
	gw_append(&w, 2, b, 1, ib, in, -1);
	ib[0] = 13, in[0] = 1;
	gw_append(&w, 0, b, 1, ib, in, -1);
	emit("invalidations", &w, "no record trailer", 0);

	/* Dead entries, a trailer-only record. */
	gw_init(&w, 20, 32, 4);
	b[0] = 1, b[1] = RESSD_DEAD_BLOCK, b[2] = 3;
	gw_append(&w, 3, b, 0, NULL, NULL, -1);
	gw_append(&w, 0, b, 0, NULL, NULL, -1);
	b[0] = RESSD_DEAD_BLOCK, b[1] = 1;
	gw_append(&w, 2, b, 0, NULL, NULL, -1);
	emit("dead-entries", &w, "no record trailer", 0);

	/* A torn last record: one data block never reached the medium. */
	gw_init(&w, 32, 64, 5);
	b[0] = 1, b[1] = 2;
	gw_append(&w, 2, b, 0, NULL, NULL, -1);
	b[0] = 2, b[1] = 3, b[2] = 4;
	gw_append(&w, 3, b, 0, NULL, NULL, 0);
	emit("torn-last", &w, "no record trailer", 1);

	/* Wrapped several times, padding records, checkpoints. */
	gw_init(&w, 24, 40, 6);
	for (i = 0; i < 30; i++)
		gw_append_random(&w, 5, -1);
	emit("wrapped", &w, NULL, 0);

	/* The same with ordered entries (data_csum 0), some laps over. */
	gw_init(&w, 24, 40, 6);
	w.ordered = true;
	for (i = 0; i < 40; i++)
		gw_append_random(&w, 5, -1);
	emit("wrapped-ordered", &w, NULL, 0);

	/*
	 * A torn record of ordered entries: the data written with the trailer
	 * (checked) is torn, the chunk before it (ordered) is taken.
	 */
	gw_init(&w, 32, 64, 21);
	w.ordered = true;
	b[0] = 1, b[1] = 2;
	gw_append(&w, 2, b, 0, NULL, NULL, -1);
	b[0] = 2, b[1] = 3, b[2] = 4;
	gw_append(&w, 3, b, 0, NULL, NULL, 1);
	emit("torn-ordered", &w, "no record trailer", 1);

	/* The mover moved records after the last superblock write. */
	gw_init(&w, 32, 64, 7);
	for (i = 0; i < 4; i++)
		gw_append_random(&w, 3, -1);
	gw_move(&w);
	gw_move(&w);
	for (i = 0; i < 2; i++)
		gw_append_random(&w, 3, -1);
	emit("newer-checkpoint", &w, NULL, 0);

	/*
	 * Record 6 lost its trailer, 7 survived; recovery raised the epoch; a
	 * new record 6 of the same length, so that the chain goes on exactly
	 * where the stale 7 starts: only its epoch refuses it.
	 */
	gw_init(&w, 64, 32, 8);
	for (i = 0; i < 7; i++) {
		u32 k;

		for (k = 0; k < 2; k++)
			b[k] = (i * 2 + k) % 32;
		gw_append(&w, 2, b, 0, NULL, NULL, -1);
	}
	s6 = w.rec[5].slot;
	len6 = w.rec[5].len - 1;
	seq6 = w.rec[5].seq;
	memset(fz_slot(&w.im, s6), 0, RESSD_BLOCK_SIZE);
	w.nrec = 5;
	w.head = s6;
	w.seq = seq6;
	w.used -= 2 * (1 + len6);
	w.sb.epoch++;
	gw_checkpoint(&w);
	b[0] = 30, b[1] = 31;
	gw_append(&w, len6, b, 0, NULL, NULL, -1);
	emit("stale-future", &w, "epoch out of order", 0);

	/* The chain fills the whole log. */
	gw_init(&w, 16, 64, 9);
	for (i = 0; i < 4; i++) {
		b[0] = i * 3, b[1] = i * 3 + 1, b[2] = i * 3 + 2;
		gw_append(&w, 3, b, 0, NULL, NULL, -1);
	}
	emit("full", &w, "the chain fills the log", 0);

	/* The largest origin: blocks and ranges at its very end. */
	gw_init(&w, 64, RESSD_MAX_BLOCK + 1, 10);
	for (i = 0; i < 40; i++)
		b[i] = RESSD_MAX_BLOCK - 45 + i;
	gw_append(&w, 40, b, 0, NULL, NULL, -1);
	ib[0] = RESSD_MAX_BLOCK - 9, in[0] = 10;
	ib[1] = 0, in[1] = U32_MAX;
	b[0] = RESSD_MAX_BLOCK, b[1] = 0;
	gw_append(&w, 2, b, 2, ib, in, -1);
	emit("huge-origin", &w, "no record trailer", 0);

	/* The newest superblock copy is torn: the older one is used. */
	gw_init(&w, 32, 64, 11);
	for (i = 0; i < 5; i++)
		gw_append_random(&w, 4, -1);
	gw_checkpoint(&w);
	fz_block(&w.im, w.sb.generation & 1 ? 0 : 1)[200] ^= 1;
	emit("torn-superblock", &w, NULL, 0);

	/*
	 * Copy A reads back as zeros (a torn write of it) while copy B holds
	 * the newest checkpoint: B is loaded with the whole log, not formatted.
	 */
	gw_init(&w, 32, 64, 17);
	for (i = 0; i < 3; i++)
		gw_append_random(&w, 4, -1);
	gw_checkpoint(&w);			/* generation 4: copy B */
	for (i = 0; i < 3; i++)
		gw_append_random(&w, 4, -1);
	memset(fz_block(&w.im, 0), 0, RESSD_BLOCK_SIZE);
	emit("zero-copy-a", &w, "no record trailer", 0);

	/* Long: a 64-slot log through many laps. */
	gw_init(&w, 64, 200, 12);
	for (i = 0; i < 150; i++)
		gw_append_random(&w, 12, -1);
	emit("many-laps", &w, NULL, 0);

	/* Sequential runs that the index merges into extents. */
	gw_init(&w, 48, 1000, 13);
	for (i = 0; i < 20; i++)
		b[i] = 100 + i;
	gw_append(&w, 20, b, 0, NULL, NULL, -1);
	for (i = 0; i < 10; i++)
		b[i] = 105 + i;
	ib[0] = 110, in[0] = 3;
	gw_append(&w, 10, b, 1, ib, in, -1);
	emit("extents", &w, "no record trailer", 0);

	/*
	 * Forged: a record of dead entries (data not written) whose trailer
	 * lands on the (dead, unwritten) first data slot of the chain's first
	 * record: one slot more than the log.
	 */
	gw_init(&w, 16, 64, 15);
	for (i = 0; i < 4; i++) {
		b[0] = i == 1 ? RESSD_DEAD_BLOCK : 2 * i, b[1] = 2 * i + 1;
		gw_append(&w, 2, b, 0, NULL, NULL, -1);
	}
	gw_move(&w);
	gw_checkpoint(&w);
	b[0] = 20, b[1] = 21, b[2] = 22;
	gw_append(&w, 3, b, 0, NULL, NULL, -1);
	w.no_room = true;
	b[0] = b[1] = b[2] = RESSD_DEAD_BLOCK;
	gw_append(&w, 3, b, 0, NULL, NULL, -1);
	emit("overrun", &w, "the chain is longer than the log", 0);

	/* Sequence numbers at the top of their range (the last one is RESSD_MAX_SEQ). */
	gw_init(&w, 32, 64, 14);
	w.seq = RESSD_MAX_SEQ - 3;
	gw_checkpoint(&w);
	for (i = 0; i < 4; i++)
		gw_append_random(&w, 4, -1);
	emit("high-seq", &w, "no record trailer", 0);

	/*
	 * Stale trailers of an earlier lap inside records whose dead entries
	 * were not written: the scan skips them and takes the record's own.
	 */
	gw_init(&w, 24, 32, 16);
	for (i = 0; i < 14; i++) {
		b[0] = i % 32;
		gw_append(&w, i % 2, b, 0, NULL, NULL, -1);
	}
	for (i = 0, k = 0; i < 3; i++) {
		for (j = 0; j < 5; j++)
			b[j] = RESSD_DEAD_BLOCK;
		if (w.head + 6 <= w.lg.nr_slots)
			k += gw_magic_in(&w, w.head, 5);
		gw_append(&w, 5, b, 0, NULL, NULL, -1);
		b[0] = 20 + i;
		gw_append(&w, 1, b, 0, NULL, NULL, -1);
	}
	if (k < 2)
		fz_fail("stale-in-range: %u stale trailers in dead slots", k);
	emit("stale-in-range", &w, NULL, 0);

	/*
	 * Data blocks that look like trailers (user data is arbitrary): a valid
	 * trailer of another seq, a broken one, one of another slot, one of
	 * this seq and epoch with another start, another volume's.  The scan
	 * skips them, replay maps them as the data they are.
	 */
	gw_init(&w, 32, 64, 17);
	b[0] = 1, b[1] = 2;
	gw_append(&w, 2, b, 0, NULL, NULL, -1);
	for (j = 0; j < 5; j++)
		b[j] = 10 + j;
	gw_append(&w, 5, b, 0, NULL, NULL, -1);
	{
		static u8 blk[RESSD_BLOCK_SIZE];
		u32 s1 = w.rec[1].slot;

		gw_lookalike(&w, blk, s1, w.rec[1].seq + 3, 0, w.lg.nonce);
		gw_set_data(&w, 1, 0, blk);
		gw_lookalike(&w, blk, s1 + 1, w.rec[1].seq, 0, w.lg.nonce);
		blk[300] ^= 8;
		gw_set_data(&w, 1, 1, blk);
		gw_lookalike(&w, blk, s1 + 3, w.rec[1].seq, 0, w.lg.nonce);
		gw_set_data(&w, 1, 2, blk);
		gw_lookalike(&w, blk, s1 + 3, w.rec[1].seq, 1, w.lg.nonce);
		gw_set_data(&w, 1, 3, blk);
		gw_lookalike(&w, blk, s1 + 4, w.rec[1].seq, 0, w.lg.nonce ^ 1);
		gw_set_data(&w, 1, 4, blk);
	}
	b[0] = 12;
	gw_append(&w, 1, b, 0, NULL, NULL, -1);
	emit("magic-data", &w, "no record trailer", 0);

	/*
	 * A torn record: its data is on the medium, one block a broken trailer
	 * look-alike, its trailer is not: that block is the first near miss.
	 */
	gw_init(&w, 32, 64, 18);
	b[0] = 1, b[1] = 2;
	gw_append(&w, 2, b, 0, NULL, NULL, -1);
	b[0] = 3, b[1] = 4, b[2] = 5;
	gw_append(&w, 3, b, 0, NULL, NULL, -1);
	{
		static u8 blk[RESSD_BLOCK_SIZE];

		gw_lookalike(&w, blk, w.rec[1].slot + 1, w.rec[1].seq, 0, w.lg.nonce);
		blk[64] ^= 1;
		gw_set_data(&w, 1, 1, blk);
		memset(fz_slot(&w.im, w.rec[1].trailer), 0, RESSD_BLOCK_SIZE);
	}
	emit("torn-lookalike", &w, "bad record checksum", 0);

	/* A lost trailer, the records after it on the medium: the chain ends there. */
	gw_init(&w, 32, 64, 19);
	for (i = 0; i < 5; i++) {
		b[0] = 2 * i, b[1] = 2 * i + 1;
		gw_append(&w, i % 3, b, 0, NULL, NULL, -1);
	}
	memset(fz_slot(&w.im, w.rec[2].trailer), 0, RESSD_BLOCK_SIZE);
	emit("lost-trailer", &w, "sequence break", 0);

	/*
	 * The end of the log: a record that ends exactly at the last slot, the
	 * next at slot 0 (the mover made room); then a trailer alone at the
	 * last slot (padding of no entries) before slot 0.
	 */
	gw_init(&w, 16, 64, 20);
	b[0] = 1, b[1] = 2, b[2] = 3, b[3] = 4, b[4] = 5, b[5] = 6;
	gw_append(&w, 3, b, 0, NULL, NULL, -1);
	gw_append(&w, 4, b + 1, 0, NULL, NULL, -1);
	gw_append(&w, 6, b, 0, NULL, NULL, -1);
	if (w.rec[2].trailer != 15 || w.head != 0)
		fz_fail("last-slot: trailer at %u, head %u", w.rec[2].trailer, w.head);
	gw_append(&w, 2, b + 3, 0, NULL, NULL, -1);
	emit("last-slot", &w, "sequence break", 0);

	gw_init(&w, 16, 64, 21);
	for (i = 0; i < 8; i++)
		b[i] = 40 + i;
	gw_append(&w, 6, b, 0, NULL, NULL, -1);
	gw_append(&w, 7, b, 0, NULL, NULL, -1);
	gw_append(&w, 2, b + 2, 0, NULL, NULL, -1);	/* after a padding trailer at 15 */
	if (w.rec[2].trailer != 15 || w.rec[2].len != 1 || w.rec[3].slot != 0)
		fz_fail("pad-alone: no trailer alone at the last slot");
	emit("pad-alone", &w, NULL, 0);

	/*
	 * Record 6 lost, 7 survived; recovery raised the epoch; a new record 6
	 * of the same length, then a new record 7 one block longer whose dead
	 * (unwritten) last data slot still holds the stale trailer 7: same seq,
	 * same start, an older epoch.  The scan must pass it and take the new one.
	 */
	gw_init(&w, 64, 32, 22);
	for (i = 0; i < 7; i++) {
		for (k = 0; k < 2; k++)
			b[k] = (i * 2 + k) % 32;
		gw_append(&w, 2, b, 0, NULL, NULL, -1);
	}
	s6 = w.rec[5].slot;
	len6 = w.rec[5].len - 1;
	seq6 = w.rec[5].seq;
	memset(fz_slot(&w.im, w.rec[5].trailer), 0, RESSD_BLOCK_SIZE);
	w.nrec = 5;
	w.head = s6;
	w.seq = seq6;
	w.used -= 2 * (1 + len6);
	w.sb.epoch++;
	gw_checkpoint(&w);
	b[0] = 30, b[1] = 31;
	gw_append(&w, len6, b, 0, NULL, NULL, -1);
	b[0] = 28, b[1] = 29, b[2] = RESSD_DEAD_BLOCK;
	if (fz_get64(fz_slot(&w.im, w.head + 2), 0) != RESSD_REC_MAGIC)
		fz_fail("stale-epoch-in-range: no stale trailer at %u", w.head + 2);
	gw_append(&w, 3, b, 0, NULL, NULL, -1);
	emit("stale-epoch-in-range", &w, "no record trailer", 0);

	/* fuzz-record: structured inputs for the round-trip modes. */
	{
		u8 buf[26 + 256];
		struct gw *r = &w;

		r->rng = 99;
		for (i = 0; i < 8; i++) {
			char fname[64];
			u32 k;

			for (k = 0; k < sizeof(buf); k++)
				buf[k] = gw_rand(r);
			buf[0] = i % 2 ? 3 : 1;
			buf[1] = 1;	/* clamp into valid values */
			snprintf(fname, sizeof(fname), "roundtrip-%u", i);
			write_file(record_dir, fname, buf, sizeof(buf));
		}
	}
	scan_seeds();
	index_seeds(&w);
	printf("gen-corpus: %u files in %s, %s and %s\n", nr_files, replay_dir, record_dir,
	       index_dir);
	return 0;
}
