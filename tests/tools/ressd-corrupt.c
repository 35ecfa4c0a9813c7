// SPDX-License-Identifier: GPL-2.0-only
/*
 * ressd-corrupt: mutate a valid dm-ressd log (on-disk format 2) for the
 * corrupt-metadata test (tests/functional/corrupt-log.sh), and judge the data the
 * target serves from each mutated log.
 *
 *   ressd-corrupt list  <image>                    one line per mutation
 *   ressd-corrupt apply <image> <i> <dev> <byte offset>
 *   ressd-corrupt scan  <dev> <nblocks> <out>      what each block holds
 *   ressd-corrupt check <image> <i> <base scan> <dev> <nblocks>
 *
 * <image> is a copy of a log range (superblocks A and B, then the slots)
 * that a real run of the target left behind.  The tool reads it as recovery
 * does: the newest valid superblock, then the chain of records from its
 * checkpoint (a trailer at the first slot u from the expected start that
 * has this volume's magic and nonce, its own slot, the expected seq and
 * start, and a good checksum).  Mutations are numbered; each one is
 *
 *   - a bit flip in one field of a superblock (the newest copy, the older
 *     one, or both) or of a record trailer (the first, a middle and the
 *     last record of the chain), left with its bad checksum: the checksum
 *     must catch it;
 *   - a field set to a chosen bad value and the checksum recomputed
 *     ("resealed", with the volume's nonce): the bounds and consistency
 *     checks behind the checksum must catch it: wrong magic or version,
 *     unknown feature flags, geometry, checkpoints out of range or ahead of
 *     the record, duplicate, wrapped and far-future sequence numbers, epochs
 *     out of order, slots and counts out of range, entries and
 *     invalidations beyond the normal area or wrapping around 2^64;
 *   - a block-level change: a zeroed trailer, a zeroed or flipped data
 *     block, a zeroed superblock or
 *     whole log, the second half of the log zeroed (a truncated copy),
 *     a record's trailer duplicated over the next one, a slot outside the
 *     chain damaged, a ring of records that fills a whole lap.
 *
 * apply writes the mutated image to <dev> at <byte offset>.  Each mutation
 * also says which blocks must come back exactly as from the intact log:
 *
 *   all     nothing the target needs was damaged (the older superblock, a
 *           slot outside the chain, an informational field)
 *   from K  the chain may end at record K: blocks named (entry or
 *           invalidation) by record K or a later one may fall back to an
 *           older value; all others must be unchanged
 *   entry   one entry's data is bad: only that block may fall back
 *   none    the checkpoint itself is in doubt: any block may fall back
 *
 * scan classifies every block of <dev> as the self-checking writer wrote it
 * (tests/tools/ressd-writer.c: 48-byte header with magic, block number and
 * generation, crc32c of the block): a generation, zero (all-zero block), or
 * garbage / foreign.  check scans again and compares with the scan of the
 * intact log: every block must be valid (never garbage or another block's
 * data), never newer than with the intact log (nothing invented), and the
 * protected blocks must be equal.  It prints one line per violation (at
 * most 20) and a summary; exit 0 when all held, 1 on a violation, 2 on an
 * error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"	/* tools/ressdsetup: the format header, kernel crc32c */

#define BS		RESSD_BLOCK_SIZE
#define BMAGIC		0x314b4c4257535352ULL	/* the writer's "RSSWBLK1" */
#define MAXREC		4096
#define G_ZERO		0
#define G_GARBAGE	(-1)
#define G_FOREIGN	(-2)

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ressd-corrupt: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---- the intact image ---- */

struct crec {			/* one record of the chain */
	u32 start, slot;	/* first data slot, trailer slot */
	u64 seq;
	u16 nr_data, nr_inval;
};

static u8 *img;			/* the image (mutated by apply and check) */
static u8 *orig;		/* the intact image */
static size_t img_len;
static u32 nr_slots;
static u64 nonce, origin_blocks;
static int newest;		/* 0: copy A, 1: copy B */
static struct crec chain[MAXREC];
static u32 nchain;

static u8 *blk(u32 b) { return img + (size_t)b * BS; }
static u8 *slotp(u32 s) { return blk(RESSD_SB_BLOCKS + s); }
static struct ressd_disk_sb *sbp(int c) { return (struct ressd_disk_sb *)blk(c); }
static struct ressd_disk_rec *recp(u32 s) { return (struct ressd_disk_rec *)slotp(s); }

static void reseal(u8 *b)
{
	u32 c = ressd_block_csum(b, nonce);

	memcpy(b + 8, &(__le32){ le32_put(c) }, 4);
}

static bool csum_ok(const u8 *b)
{
	__le32 c;

	memcpy(&c, b + 8, 4);
	return le32_get(c) == ressd_block_csum(b, nonce);
}

static void load(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", path, strerror(errno));
	img_len = st.st_size;
	if (img_len < 4 * BS || img_len % BS)
		die("%s: %zu bytes is not a log range", path, img_len);
	img = malloc(img_len);
	if (!img || pread(fd, img, img_len, 0) != (ssize_t)img_len)
		die("%s: short read", path);
	close(fd);
	orig = malloc(img_len);
	if (!orig)
		die("out of memory");
	memcpy(orig, img, img_len);

	/* The newest superblock copy with magic, location and checksum. */
	newest = -1;
	for (int c = 0; c < 2; c++) {
		struct ressd_disk_sb *sb = sbp(c);

		if (le64_get(sb->magic) != RESSD_SB_MAGIC || le64_get(sb->location) != (u64)c)
			continue;
		nonce = le64_get(sb->nonce);
		if (!csum_ok(blk(c)))
			continue;
		if (newest < 0 || le64_get(sb->generation) > le64_get(sbp(newest)->generation))
			newest = c;
	}
	if (newest < 0)
		die("%s: no valid superblock", path);
	nonce = le64_get(sbp(newest)->nonce);
	nr_slots = le32_get(sbp(newest)->nr_slots);
	origin_blocks = le64_get(sbp(newest)->origin_sectors) / 8;
	if ((u64)nr_slots + RESSD_SB_BLOCKS != img_len / BS)
		die("%s: %u slots in the superblock, %zu in the image", path, nr_slots,
		    img_len / BS - RESSD_SB_BLOCKS);

	/* The chain, as replay's first pass follows it. */
	u32 start = le32_get(sbp(newest)->tail_slot);
	u64 seq = le64_get(sbp(newest)->tail_seq);
	u32 walked = 0;

	while (nchain < MAXREC && walked < nr_slots) {
		u32 last = start + RESSD_REC_MAX_ITEMS;
		bool found = false;

		if (last > nr_slots - 1)
			last = nr_slots - 1;
		for (u32 u = start; u <= last; u++) {
			struct ressd_disk_rec *r = recp(u);
			u32 nd = le16_get(r->nr_data);

			if (le64_get(r->magic) != RESSD_REC_MAGIC || le64_get(r->nonce) != nonce ||
			    le32_get(r->slot) != u || le64_get(r->seq) != seq || nd > u ||
			    u - nd != start || !csum_ok(slotp(u)))
				continue;
			chain[nchain++] = (struct crec){ start, u, seq, nd, le16_get(r->nr_inval) };
			walked += u - start + 1;
			start = u + 1 == nr_slots ? 0 : u + 1;
			seq++;
			found = true;
			break;
		}
		if (!found)
			break;
	}
}

/* ---- mutations ---- */

enum prot { P_ALL, P_FROM, P_ENTRY, P_NONE };

struct mut {
	char name[96];
	enum prot prot;
	u32 k;			/* P_FROM: chain index; P_ENTRY: unused */
	u64 block;		/* P_ENTRY: the block */
};

/* A field of a metadata block: offset and size. */
struct field {
	const char *name;
	u32 off, size;
};

static const struct field sb_fields[] = {
	{ "magic", 0, 8 }, { "csum", 8, 4 }, { "version", 12, 4 }, { "location", 16, 8 },
	{ "generation", 24, 8 }, { "nonce", 32, 8 }, { "compat", 40, 4 },
	{ "ro_compat", 44, 4 }, { "incompat", 48, 4 }, { "block_size", 52, 4 },
	{ "origin_offset", 56, 8 }, { "origin_sectors", 64, 8 }, { "log_offset", 72, 8 },
	{ "log_sectors", 80, 8 }, { "nr_slots", 88, 4 }, { "small_write_max", 92, 4 },
	{ "mover_batch", 96, 4 }, { "high_watermark", 100, 4 }, { "low_watermark", 104, 4 },
	{ "tail_slot", 108, 4 }, { "tail_seq", 112, 8 }, { "epoch", 120, 8 },
	{ "reserved", 128, 128 }, { "padding", 256, BS - 256 },
};

static const struct field rec_fields[] = {
	{ "magic", 0, 8 }, { "csum", 8, 4 }, { "version", 12, 4 }, { "nonce", 16, 8 },
	{ "seq", 24, 8 }, { "slot", 32, 4 }, { "nr_data", 36, 2 }, { "nr_inval", 38, 2 },
	{ "tail_slot", 40, 4 }, { "flags", 44, 4 }, { "tail_seq", 48, 8 }, { "epoch", 56, 8 },
	{ "entry0.block", 64, 8 }, { "entry0.csum", 72, 4 }, { "padding", BS - 4, 4 },
};

static void put(u8 *b, u32 off, u32 size, u64 v)
{
	switch (size) {
	case 2: memcpy(b + off, &(__le16){ le16_put((u16)v) }, 2); break;
	case 4: memcpy(b + off, &(__le32){ le32_put((u32)v) }, 4); break;
	default: memcpy(b + off, &(__le64){ le64_put(v) }, 8); break;
	}
}

static u64 get(const u8 *b, u32 off, u32 size)
{
	__le16 a;
	__le32 c;
	__le64 d;

	switch (size) {
	case 2: memcpy(&a, b + off, 2); return le16_get(a);
	case 4: memcpy(&c, b + off, 4); return le32_get(c);
	default: memcpy(&d, b + off, 8); return le64_get(d);
	}
}

/*
 * Build mutation @want into img (when @apply) or just count: returns the
 * number of mutations when @want is out of range.  Each step below is one
 * mutation: "M(name, prot, k) { change }".
 */
static u32 nmut;
static struct mut cur;
static long want = -1;

#define M(p, kk, ...) \
	for (int once_ = begin(p, kk, __VA_ARGS__); once_; once_ = 0)

static int begin(enum prot p, u32 k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int begin(enum prot p, u32 k, const char *fmt, ...)
{
	va_list ap;
	int hit = (long)nmut == want;

	nmut++;
	if (!hit && want >= 0)
		return 0;
	memset(&cur, 0, sizeof(cur));
	va_start(ap, fmt);
	vsnprintf(cur.name, sizeof(cur.name), fmt, ap);
	va_end(ap);
	cur.prot = p;
	cur.k = k;
	if (want < 0) {		/* list */
		printf("%u %s\n", nmut - 1, cur.name);
		return 0;
	}
	return 1;
}

/* A slot no record of the chain uses, or NONE. */
static u32 outside_chain(void)
{
	for (u32 s = nr_slots; s-- > 0;) {
		bool in = false;

		for (u32 i = 0; i < nchain && !in; i++) {
			const struct crec *c = &chain[i];

			in = c->start <= c->slot ? s >= c->start && s <= c->slot : true;
		}
		if (!in)
			return s;
	}
	return UINT32_MAX;
}

static void mutations(void)
{
	const int older = !newest;
	u32 ks[3] = { 0, nchain / 2, nchain - 1 };
	u64 sb_epoch = le64_get(sbp(newest)->epoch);

	/* Superblocks: raw bit flips, checksum left as is. */
	for (size_t f = 0; f < sizeof(sb_fields) / sizeof(sb_fields[0]); f++) {
		const struct field *fl = &sb_fields[f];
		u32 byte = fl->off + (fl->size > 8 ? 3 : (u32)f % fl->size);

		/* Both copies hold the newest state (dm-ressd-meta.c). */
		M(P_ALL, 0, "sb-newest-flip-%s", fl->name)
			blk(newest)[byte] ^= 1 << (f % 8);
		M(P_NONE, 0, "sb-both-flip-%s", fl->name) {
			blk(0)[byte] ^= 1 << (f % 8);
			blk(1)[byte] ^= 1 << (f % 8);
		}
	}
	M(P_ALL, 0, "sb-older-flip-magic")
		blk(older)[0] ^= 0x10;
	M(P_ALL, 0, "sb-older-flip-generation")
		blk(older)[24] ^= 0x4;

	/* Superblocks: bad values behind a good checksum, in both copies. */
	static const struct {
		const char *field;
		u32 off, size;
		u64 val;	/* ~0 - n: relative, see below */
		enum prot prot;
	} sbv[] = {
		{ "magic=ReSSD-lg", 0, 8, RESSD_REC_MAGIC, P_NONE },
		{ "version=1", 12, 4, 1, P_NONE },
		{ "version=3", 12, 4, 3, P_NONE },
		{ "version=2^32-1", 12, 4, 0xffffffff, P_NONE },
		{ "compat=1", 40, 4, 1, P_NONE },
		{ "ro_compat=1", 44, 4, 1, P_NONE },
		/* bit 0 is the ordered-entries feature: a log without any loads */
		{ "incompat=1", 48, 4, 1, P_ALL },
		{ "incompat=2", 48, 4, 2, P_NONE },
		{ "incompat=2^31", 48, 4, 0x80000000u, P_NONE },
		{ "block_size=512", 52, 4, 512, P_NONE },
		{ "block_size=8192", 52, 4, 8192, P_NONE },
		{ "block_size=0", 52, 4, 0, P_NONE },
		{ "nr_slots=0", 88, 4, 0, P_NONE },
		{ "nr_slots=2^32-1", 88, 4, 0xffffffff, P_NONE },
		{ "tail_slot=2^32-1", 108, 4, 0xffffffff, P_NONE },
		{ "tail_seq=0", 112, 8, 0, P_NONE },
		{ "tail_seq=2^62-1", 112, 8, (1ULL << 62) - 1, P_NONE },
		{ "tail_seq=2^62", 112, 8, 1ULL << 62, P_NONE },
		{ "tail_seq=2^64-1", 112, 8, UINT64_MAX, P_NONE },
		{ "epoch=0", 120, 8, 0, P_NONE },
		/* the largest valid (a writable table refuses it: exhausted) */
		{ "epoch=2^62-1", 120, 8, (1ULL << 62) - 1, P_ALL },
		{ "epoch=2^62", 120, 8, 1ULL << 62, P_NONE },
		{ "epoch=2^64-1", 120, 8, UINT64_MAX, P_NONE },
		{ "generation=0", 24, 8, 0, P_NONE },
		{ "generation=2^62-1", 24, 8, (1ULL << 62) - 1, P_ALL },
		{ "generation=2^62", 24, 8, 1ULL << 62, P_NONE },
		{ "generation=2^64-1", 24, 8, UINT64_MAX, P_NONE },
		{ "small_write_max=0", 92, 4, 0, P_ALL },
		{ "mover_batch=2^32-1", 96, 4, 0xffffffff, P_ALL },
		{ "high_watermark=1000", 100, 4, 1000, P_ALL },
		{ "reserved=1", 128, 8, 1, P_NONE },
	};
	for (size_t i = 0; i < sizeof(sbv) / sizeof(sbv[0]); i++) {
		M(sbv[i].prot, 0, "sb-both-sealed-%s", sbv[i].field) {
			for (int c = 0; c < 2; c++) {
				put(blk(c), sbv[i].off, sbv[i].size, sbv[i].val);
				reseal(blk(c));
			}
		}
	}
	/* Relative values: geometry off by one block, checkpoint out of range. */
	static const struct field geo[] = {
		{ "origin_offset", 56, 8 }, { "origin_sectors", 64, 8 },
		{ "log_offset", 72, 8 }, { "log_sectors", 80, 8 },
	};
	for (size_t i = 0; i < 4; i++) {
		M(P_NONE, 0, "sb-both-sealed-%s+8", geo[i].name) {
			for (int c = 0; c < 2; c++) {
				put(blk(c), geo[i].off, 8, get(blk(c), geo[i].off, 8) + 8);
				reseal(blk(c));
			}
		}
	}
	M(P_NONE, 0, "sb-both-sealed-nr_slots+1")
		for (int c = 0; c < 2; c++) {
			put(blk(c), 88, 4, nr_slots + 1);
			reseal(blk(c));
		}
	M(P_NONE, 0, "sb-both-sealed-tail_slot=nr_slots")
		for (int c = 0; c < 2; c++) {
			put(blk(c), 108, 4, nr_slots);
			reseal(blk(c));
		}
	M(P_NONE, 0, "sb-both-sealed-location-swapped")
		for (int c = 0; c < 2; c++) {
			put(blk(c), 16, 8, !c);
			reseal(blk(c));
		}
	M(P_NONE, 0, "sb-newest-sealed-nonce-other")
		{
			u64 n = nonce;

			put(blk(newest), 32, 8, n ^ 0x5a5a);
			nonce = n ^ 0x5a5a;
			reseal(blk(newest));
			nonce = n;
		}
	M(P_NONE, 0, "sb-both-sealed-nonce-other")
		{
			u64 n = nonce;

			nonce = n ^ 0xa5a5;
			for (int c = 0; c < 2; c++) {
				put(blk(c), 32, 8, nonce);
				reseal(blk(c));
			}
			nonce = n;
		}
	M(P_ALL, 0, "sb-newest-sealed-older-generation")
		{
			put(blk(newest), 24, 8, get(blk(older), 24, 8) - 2);
			reseal(blk(newest));
		}
	M(P_NONE, 0, "sb-both-sealed-tail-at-head")	/* a lap: nothing to replay */
		{
			const struct crec *l = &chain[nchain - 1];

			for (int c = 0; c < 2; c++) {
				put(blk(c), 108, 4, l->slot + 1 == nr_slots ? 0 : l->slot + 1);
				put(blk(c), 112, 8, l->seq + 1);
				reseal(blk(c));
			}
		}
	M(P_NONE, 0, "sb-both-sealed-tail-one-record-back")
		{
			for (int c = 0; c < 2; c++) {
				put(blk(c), 112, 8, get(blk(c), 112, 8) - 1);
				reseal(blk(c));
			}
		}
	/*
	 * One zeroed copy is just an invalid copy: the other one loads, and
	 * holds the newest checkpoint too.  Only both copies zeroed format
	 * afresh (Documentation/dm-ressd.rst).
	 */
	M(P_ALL, 0, "sb-A-zeroed")
		memset(blk(0), 0, BS);
	M(P_ALL, 0, "sb-B-zeroed")
		memset(blk(1), 0, BS);
	M(P_NONE, 0, "sb-both-zeroed")	/* the first 8 KiB zero: formats afresh */
		memset(blk(0), 0, 2 * BS);

	/* Record trailers: the first, a middle and the last record. */
	for (int ki = 0; ki < 3; ki++) {
		u32 k = ks[ki];
		const struct crec *c = &chain[k];
		u8 *t = slotp(c->slot);
		const char *which = ki == 0 ? "first" : ki == 1 ? "middle" : "last";

		if (ki && ks[ki] == ks[ki - 1])
			continue;
		for (size_t f = 0; f < sizeof(rec_fields) / sizeof(rec_fields[0]); f++) {
			const struct field *fl = &rec_fields[f];

			if (fl->off >= 64 && fl->off < BS - 4 && !c->nr_data)
				continue;
			/* entry0.block: a low bit, another block in range, so
			 * only the checksum can tell.
			 */
			u32 byte = fl->off == 64 ? 64 : fl->off + (u32)f % fl->size;

			M(P_FROM, k, "rec-%s-flip-%s", which, fl->name)
				t[byte] ^= 1 << (f % 8);
		}
		static const struct {
			const char *field;
			u32 off, size;
			int rel;	/* 0: absolute val, 1: seq + val, 2: slot + val */
			u64 val;
		} rv[] = {
			{ "magic=ReSSD-sb", 0, 8, 0, RESSD_SB_MAGIC },
			{ "version=1", 12, 4, 0, 1 },
			{ "version=3", 12, 4, 0, 3 },
			{ "seq=duplicate", 24, 8, 1, (u64)-1 },
			{ "seq+1", 24, 8, 1, 1 },
			{ "seq-far-future", 24, 8, 1, 1000000 },
			{ "seq=2^62", 24, 8, 0, 1ULL << 62 },
			{ "seq=2^64-1", 24, 8, 0, UINT64_MAX },
			{ "slot+1", 32, 4, 2, 1 },
			{ "slot=nr_slots", 32, 4, 3, 0 },
			{ "slot=2^32-1", 32, 4, 0, 0xffffffff },
			{ "nr_data=0", 36, 2, 0, 0 },
			{ "nr_data=slot+1", 36, 2, 2, 1 },
			{ "nr_data=337", 36, 2, 0, 337 },
			{ "nr_data=2^16-1", 36, 2, 0, 0xffff },
			{ "nr_inval=336", 38, 2, 0, 336 },
			{ "nr_inval=2^16-1", 38, 2, 0, 0xffff },
			{ "tail_slot=nr_slots", 40, 4, 3, 0 },
			{ "tail_slot=2^32-1", 40, 4, 0, 0xffffffff },
			{ "tail_seq=seq+1", 48, 8, 1, 1 },
			{ "tail_seq=2^64-1", 48, 8, 0, UINT64_MAX },
			{ "flags=1", 44, 4, 0, 1 },
			{ "epoch=0", 56, 8, 0, 0 },
			{ "epoch=sb+1", 56, 8, 4, 1 },
			{ "epoch=2^64-1", 56, 8, 0, UINT64_MAX },
			{ "nonce-other", 16, 8, 5, 0x3c3c },
		};
		for (size_t i = 0; i < sizeof(rv) / sizeof(rv[0]); i++) {
			M(P_FROM, k, "rec-%s-sealed-%s", which, rv[i].field) {
				u64 v = rv[i].val;

				if (rv[i].rel == 1)
					v += c->seq;
				else if (rv[i].rel == 2)
					v += c->slot;
				else if (rv[i].rel == 3)
					v += nr_slots;
				else if (rv[i].rel == 4)
					v += sb_epoch;
				else if (rv[i].rel == 5)
					v ^= nonce;
				put(t, rv[i].off, rv[i].size, v);
				reseal(t);
			}
		}
		/* Entries and invalidations out of range, behind a good checksum. */
		static const struct {
			const char *what;
			int rel;	/* 1: origin_blocks + val */
			u64 val;
		} eb[] = {
			{ "origin_blocks", 1, 0 }, { "2^48", 0, 1ULL << 48 },
			{ "2^64-2", 0, UINT64_MAX - 1 },
		};
		for (size_t i = 0; c->nr_data && i < 3; i++) {
			M(P_FROM, k, "rec-%s-sealed-entry0.block=%s", which, eb[i].what) {
				put(t, 64, 8, eb[i].val + (eb[i].rel ? origin_blocks : 0));
				reseal(t);
			}
		}
		if (c->nr_data) {
			u64 b0 = get(t, 64, 8);

			M(P_ENTRY, k, "rec-%s-sealed-entry0.csum-wrong", which) {
				cur.block = b0;
				put(t, 72, 4, get(t, 72, 4) ^ 1);
				reseal(t);
			}
			M(P_ENTRY, k, "rec-%s-sealed-entry0-dead", which) {
				cur.block = b0;
				put(t, 64, 8, RESSD_DEAD_BLOCK);
				reseal(t);
			}
			M(P_ENTRY, k, "rec-%s-data0-zeroed", which) {
				cur.block = b0;
				memset(slotp(c->start), 0, BS);
			}
			M(P_ENTRY, k, "rec-%s-data0-flipped", which) {
				cur.block = b0;
				slotp(c->start)[2000] ^= 0x20;
			}
		}
		if (c->nr_data + c->nr_inval < RESSD_REC_MAX_ITEMS) {
			static const struct {
				const char *what;
				int rel;
				u64 block;
				u32 n;
			} iv[] = {
				{ "{origin_blocks,1}", 1, 0, 1 },
				{ "{origin_blocks-1,2}", 1, (u64)-1, 2 },
				{ "{2^64-8,16}", 0, UINT64_MAX - 7, 16 },
				{ "{0,2^32-1}", 0, 0, 0xffffffff },
			};
			u32 at = 64 + 12 * (c->nr_data + c->nr_inval);

			for (size_t i = 0; i < 4; i++) {
				M(P_FROM, k, "rec-%s-sealed-inval%s", which, iv[i].what) {
					put(t, at, 8, iv[i].block + (iv[i].rel ? origin_blocks : 0));
					put(t, at + 8, 4, iv[i].n);
					put(t, 38, 2, c->nr_inval + 1);
					reseal(t);
				}
			}
		}
		M(P_NONE, k, "rec-%s-sealed-checkpoint-self", which) {
			put(t, 40, 4, c->start);
			put(t, 48, 8, c->seq);
			reseal(t);
		}
		M(P_FROM, k, "rec-%s-trailer-zeroed", which)
			memset(t, 0, BS);
		if (k + 1 < nchain) {
			const struct crec *n = &chain[k + 1];

			M(P_FROM, k + 1, "rec-%s-trailer-duplicated-over-next", which) {
				u8 *nt = slotp(n->slot);

				memcpy(nt, t, BS);
				put(nt, 32, 4, n->slot);
				reseal(nt);
			}
		}
	}

	/* Whole blocks and the whole log. */
	u32 out = outside_chain();

	if (out != UINT32_MAX) {
		M(P_ALL, 0, "slot-outside-chain-zeroed")
			memset(slotp(out), 0, BS);
		M(P_ALL, 0, "slot-outside-chain-flipped")
			slotp(out)[100] ^= 0xff;
	}
	M(P_NONE, 0, "log-second-half-zeroed")
		memset(slotp(nr_slots / 2), 0, (size_t)(nr_slots - nr_slots / 2) * BS);
	M(P_NONE, 0, "log-all-slots-zeroed")
		memset(slotp(0), 0, (size_t)nr_slots * BS);
	M(P_NONE, 0, "log-all-zeroed")
		memset(img, 0, img_len);
	M(P_NONE, 0, "log-all-ones")
		memset(img, 0xff, img_len);
	/* A ring: every slot a valid empty record, seqs rising around one lap. */
	M(P_NONE, 0, "ring-of-empty-records-one-lap")
		{
			u32 t0 = le32_get(sbp(newest)->tail_slot);
			u64 s0 = le64_get(sbp(newest)->tail_seq);

			for (u32 i = 0; i < nr_slots; i++) {
				u32 s = (t0 + i) % nr_slots;
				struct ressd_disk_rec *r = recp(s);

				memset(r, 0, BS);
				r->magic = le64_put(RESSD_REC_MAGIC);
				r->version = le32_put(RESSD_FORMAT_VERSION);
				r->nonce = le64_put(nonce);
				r->seq = le64_put(s0 + i);
				r->slot = le32_put(s);
				r->tail_slot = le32_put(t0);
				r->tail_seq = le64_put(s0);
				r->epoch = le64_put(sb_epoch);
				reseal((u8 *)r);
			}
		}
}

static void do_mutation(long i)
{
	want = i;
	nmut = 0;
	mutations();
	if (i >= (long)nmut)
		die("mutation %ld: there are %u", i, nmut);
}

/* ---- judging the data ---- */

static long long classify(const u8 *p, u64 b)
{
	u64 magic, block, gen;
	u32 crc, zero = 0;
	u8 tmp[BS];
	size_t off;

	for (off = 0; off < BS && !p[off]; off++)
		;
	if (off == BS)
		return G_ZERO;
	memcpy(&magic, p, 8);
	memcpy(&block, p + 8, 8);
	memcpy(&gen, p + 16, 8);
	memcpy(&crc, p + 32, 4);
	if (magic != BMAGIC)
		return G_GARBAGE;
	memcpy(tmp, p, BS);
	memcpy(tmp + 32, &zero, 4);
	if (~crc32c(~0U, tmp, BS) != crc || gen == 0 || gen > (1ULL << 40))
		return G_GARBAGE;
	if (block != b)
		return G_FOREIGN;
	return (long long)gen;
}

static long long *scan(const char *dev, u64 n)
{
	int fd = open(dev, O_RDONLY | O_DIRECT);
	long long *g = calloc(n, sizeof(*g));
	u8 *buf;

	if (fd < 0)
		die("%s: %s", dev, strerror(errno));
	if (!g || posix_memalign((void **)&buf, BS, 64 * BS))
		die("out of memory");
	for (u64 b = 0; b < n; b += 64) {
		u64 c = n - b < 64 ? n - b : 64;

		if (pread(fd, buf, c * BS, (off_t)(b * BS)) != (ssize_t)(c * BS))
			die("%s: read of blocks %" PRIu64 "+%" PRIu64 ": %s", dev, b, c,
			    strerror(errno));
		for (u64 i = 0; i < c; i++)
			g[b + i] = classify(buf + i * BS, b + i);
	}
	close(fd);
	free(buf);
	return g;
}

/* Blocks named by chain records from index k on. */
static void mark_from(bool *named, u64 n, u32 k)
{
	for (u32 i = k; i < nchain; i++) {
		const struct crec *c = &chain[i];
		const u8 *t = orig + (size_t)(RESSD_SB_BLOCKS + c->slot) * BS;

		for (u32 e = 0; e < (u32)c->nr_data + c->nr_inval; e++) {
			u64 b = get(t, 64 + 12 * e, 8);
			u64 cnt = e < c->nr_data ? 1 : get(t, 64 + 12 * e + 8, 4);

			for (u64 j = 0; j < cnt && b + j < n; j++)
				named[b + j] = true;
		}
	}
}

static int check(const char *base_scan, const char *dev, u64 n)
{
	long long *base = calloc(n, sizeof(*base)), *now;
	bool *free_ = calloc(n, sizeof(bool));
	FILE *f = fopen(base_scan, "r");
	u64 bad = 0, older = 0, same = 0;

	if (!f || !base || !free_)
		die("%s: %s", base_scan, strerror(errno));
	for (u64 b = 0; b < n; b++)
		if (fscanf(f, "%lld", &base[b]) != 1)
			die("%s: short", base_scan);
	fclose(f);
	switch (cur.prot) {
	case P_ALL: break;
	case P_FROM: mark_from(free_, n, cur.k); break;
	case P_ENTRY: if (cur.block < n) free_[cur.block] = true; break;
	case P_NONE: memset(free_, 1, n); break;
	}
	now = scan(dev, n);
	for (u64 b = 0; b < n; b++) {
		const char *why = NULL;

		if (now[b] == G_GARBAGE)
			why = "garbage";
		else if (now[b] == G_FOREIGN)
			why = "another block's data";
		else if (now[b] > base[b])
			why = "newer than from the intact log";
		else if (now[b] < base[b] && !free_[b])
			why = "older, but no damaged record names it";
		if (why) {
			if (bad++ < 20)
				printf("violation: block %" PRIu64 ": %s (gen %lld, intact log %lld)\n",
				       b, why, now[b], base[b]);
		} else if (now[b] == base[b]) {
			same++;
		} else {
			older++;
		}
	}
	printf("check %s: %" PRIu64 " blocks as from the intact log, %" PRIu64
	       " older (allowed), %" PRIu64 " violations\n", cur.name, same, older, bad);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "list")) {
		load(argv[2]);
		fprintf(stderr, "chain: %u records, %u slots, origin %" PRIu64 " blocks\n",
			nchain, nr_slots, origin_blocks);
		if (!nchain)
			die("the log holds no record");
		mutations();
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "apply")) {
		int fd;

		load(argv[2]);
		do_mutation(atol(argv[3]));
		fd = open(argv[4], O_WRONLY);
		if (fd < 0 || pwrite(fd, img, img_len, atoll(argv[5])) != (ssize_t)img_len ||
		    fsync(fd))
			die("%s: %s", argv[4], strerror(errno));
		close(fd);
		printf("%s\n", cur.name);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "scan")) {
		u64 n = strtoull(argv[3], NULL, 0);
		long long *g = scan(argv[2], n);
		FILE *f = fopen(argv[4], "w");
		u64 bad = 0;

		if (!f)
			die("%s: %s", argv[4], strerror(errno));
		for (u64 b = 0; b < n; b++) {
			fprintf(f, "%lld\n", g[b]);
			bad += g[b] < 0;
		}
		fclose(f);
		printf("scan: %" PRIu64 " blocks, %" PRIu64 " invalid\n", n, bad);
		return bad ? 1 : 0;
	}
	if (argc == 7 && !strcmp(argv[1], "check")) {
		load(argv[2]);
		do_mutation(atol(argv[3]));
		return check(argv[4], argv[5], strtoull(argv[6], NULL, 0));
	}
	fprintf(stderr, "usage: see the comment at the top of ressd-corrupt.c\n");
	return 2;
}
