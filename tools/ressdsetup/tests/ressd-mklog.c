// SPDX-License-Identifier: GPL-2.0-only
/*
 * ressd-mklog: write dm-ressd logs with known contents, for the tests of
 * ressdsetup check and dump (tests/host/ressdsetup.sh).
 *
 *   ressd-mklog gen <scenario> <device> [--log-device <file>] [--seed <n>] --expect <file>
 *   ressd-mklog expand <compact image> <output file>
 *   ressd-mklog crc
 *
 * gen reads the geometry from the ressd label of <device> and writes, into
 * its log range, a log as the kernel's writer makes it (on-disk format 2),
 * but each checkpoint written to one superblock copy, as the module did
 * before it wrote each state to both (the log a newer module must still
 * judge right): format (copy B at generation 2, copy A at 1), the first recovery's
 * checkpoint with epoch 1, records at head that never wrap (nr_data data
 * blocks, then their trailer; a padding record of dead entries ends with
 * its trailer in the last slot when the next record would not fit), a
 * mover that moves the oldest records home and writes a checkpoint before
 * any slot is reused.  The data blocks carry a pattern and their crc32c.
 * Then the scenario damages what it damages.
 *
 * The expected result is kept from the writer's side, not by replaying: the
 * mapping is updated as each record is written (its invalidations, then its
 * entries; a torn entry never reached the medium, so the block keeps its
 * older copy) and as the mover frees records (once that is durable: a later
 * record or a checkpoint carries the new tail).  Where the chain ends and
 * why comes from what the writer last put in each slot, searched as replay
 * searches for the next trailer.  The expect file gets:
 *
 *   records <n>   used <n>   torn <n>   mapped <n>
 *   stop <reason>   stop_slot <n>   result clean|problems|unusable
 *   map <block> <slot>        (sorted by block)
 *
 * expand turns an input of tests/fuzz's replay target (the compact encoding
 * of tests/fuzz/fuzz-common.c) into a log range at its log offset in a
 * sparse file, and prints "log_offset_bytes=<n>".
 *
 * crc prints the standard CRC-32C check value of "123456789", computed as
 * ~crc32c(~0, ...) with this tool's crc32c (e3069283 when right).
 */
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

#include "../crc32c.h"
#include "../label.h"

#define NONE	UINT32_MAX
#define MAX_REC	100000

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ressd-mklog: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

/* What the writer last put in each slot: for the expected end of the chain. */
enum { S_ZERO, S_TRAILER, S_DATA };
struct slotinfo {
	u8 kind;
	u32 start;		/* a trailer's record starts here */
	u64 seq, epoch;
};

struct grec {
	u32 slot, len;		/* first slot (data, or the trailer), 1 + nr_data */
	u64 seq, epoch;
	u32 torn;		/* torn entries */
};

/* The slot of a record's trailer. */
static u32 trailer_slot(const struct grec *r)
{
	return r->slot + r->len - 1;
}

struct gw {
	int fd;
	u64 base;		/* bytes */
	u32 nr_slots;
	u64 origin_blocks;
	u64 nblocks;		/* blocks the scenarios write: a prefix of the origin */
	struct {
		u64 origin_offset, origin_sectors, log_offset, log_sectors;
	} geo;			/* the label's, in sectors */
	u64 nonce, generation, epoch;
	u32 sb_version;		/* the superblocks' format version */
	u32 sb_tail_rec;	/* the superblock's checkpoint: a record index (nrec: at head) */
	u32 sb_tail_slot;
	u64 sb_tail_seq;
	u32 head;
	u64 seq;		/* of the next record */
	u32 used;
	struct grec *rec;
	u32 nrec;
	u32 tail_rec;		/* oldest record not moved home */
	u32 durable_tail_rec;	/* the newest checkpoint on disk (superblock or record) */
	struct slotinfo *si;
	u32 *map;		/* block -> slot, from the records after durable_tail_rec */
	u64 rng;
};

static u64 rnd(struct gw *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static void wblock(struct gw *w, u64 b, const void *buf)
{
	if (pwrite(w->fd, buf, RESSD_BLOCK_SIZE, (off_t)(w->base + b * RESSD_BLOCK_SIZE)) !=
	    RESSD_BLOCK_SIZE)
		die("write: %s", strerror(errno));
}

static void rblock(struct gw *w, u64 b, void *buf)
{
	if (pread(w->fd, buf, RESSD_BLOCK_SIZE, (off_t)(w->base + b * RESSD_BLOCK_SIZE)) !=
	    RESSD_BLOCK_SIZE)
		die("read: %s", strerror(errno));
}

/* ---- superblocks (fields through struct ressd_disk_sb) ---- */

static void put_sb(struct gw *w, u64 loc, u64 gen, u32 tail_slot, u64 tail_seq, u64 log_sectors)
{
	u8 blk[RESSD_BLOCK_SIZE] = { 0 };
	struct ressd_disk_sb *sb = (struct ressd_disk_sb *)blk;

	sb->magic = le64_put(RESSD_SB_MAGIC);
	sb->version = le32_put(w->sb_version);
	sb->location = le64_put(loc);
	sb->generation = le64_put(gen);
	sb->nonce = le64_put(w->nonce);
	sb->block_size = le32_put(RESSD_BLOCK_SIZE);
	sb->origin_offset = le64_put(w->geo.origin_offset);
	sb->origin_sectors = le64_put(w->geo.origin_sectors);
	sb->log_offset = le64_put(w->geo.log_offset);
	sb->log_sectors = le64_put(log_sectors);
	sb->nr_slots = le32_put((u32)(log_sectors / 8 - RESSD_SB_BLOCKS));
	sb->small_write_max = le32_put(16);
	sb->mover_batch = le32_put(1024);
	sb->high_watermark = le32_put(50);
	sb->low_watermark = le32_put(0);
	sb->tail_slot = le32_put(tail_slot);
	sb->tail_seq = le64_put(tail_seq);
	sb->epoch = le64_put(w->epoch);
	sb->csum = le32_put(ressd_block_csum(blk, w->nonce));
	wblock(w, loc, blk);
}

static void tail_now(struct gw *w, u32 *slot, u64 *seq)
{
	if (w->tail_rec < w->nrec) {
		*slot = w->rec[w->tail_rec].slot;
		*seq = w->rec[w->tail_rec].seq;
	} else {
		*slot = w->head;
		*seq = w->seq;
	}
}

/* The moves up to tail_rec are now durable: their blocks are home. */
static void make_durable(struct gw *w)
{
	u32 r, i;

	for (r = w->durable_tail_rec; r < w->tail_rec; r++)
		for (i = 0; i + 1 < w->rec[r].len; i++) {
			u32 slot = w->rec[r].slot + i;
			u64 b;

			for (b = 0; b < w->nblocks; b++)	/* small models: fine */
				if (w->map[b] == slot)
					w->map[b] = NONE;
		}
	if (w->tail_rec > w->durable_tail_rec)
		w->durable_tail_rec = w->tail_rec;
}

static void checkpoint(struct gw *w)
{
	w->generation++;
	tail_now(w, &w->sb_tail_slot, &w->sb_tail_seq);
	w->sb_tail_rec = w->tail_rec;
	put_sb(w, (w->generation & 1) ? 0 : 1, w->generation, w->sb_tail_slot, w->sb_tail_seq,
	       w->geo.log_sectors);
	make_durable(w);
}

static void move_oldest(struct gw *w)
{
	if (w->tail_rec < w->nrec)
		w->used -= w->rec[w->tail_rec++].len;
}

/* ---- records ---- */

static void fill(struct gw *w, u8 *data, u64 block, u64 seq)
{
	u64 v[4] = { htole64(block ^ 0x5555), htole64(seq), rnd(w), rnd(w) };
	size_t k;

	for (k = 0; k < RESSD_BLOCK_SIZE; k += sizeof(v))
		memcpy(data + k, v, sizeof(v));
}

/*
 * Write one record of @nd entries (RESSD_DEAD_BLOCK: dead) and @ni ranges at
 * head: its data in slots head .. head + nd - 1, then its trailer in slot
 * head + nd; torn entry @torn (-1: none).  Makes room first, as the mover
 * does.
 */
static void record(struct gw *w, u32 nd, const u64 *blocks, u32 ni, const u64 *ib,
		   const u32 *in, int torn, bool padding)
{
	u8 hdr[RESSD_BLOCK_SIZE] = { 0 }, data[RESSD_BLOCK_SIZE];
	struct ressd_disk_rec *rec = (struct ressd_disk_rec *)hdr;
	u8 *items = hdr + RESSD_REC_HDR_SIZE;
	bool moved = false;
	u32 i, slot, trailer, tail_slot;
	u64 tail_seq, b;

	if (nd + ni > RESSD_REC_MAX_ITEMS || 1 + nd > w->nr_slots - w->head)
		die("record does not fit");
	while (w->used + 1 + nd > w->nr_slots) {
		move_oldest(w);
		moved = true;
	}
	if (moved)
		checkpoint(w);	/* durable before any slot is reused */
	if (w->nrec == MAX_REC)
		die("too many records");
	slot = w->head;
	trailer = slot + nd;
	tail_now(w, &tail_slot, &tail_seq);
	rec->magic = le64_put(RESSD_REC_MAGIC);
	rec->version = le32_put(RESSD_FORMAT_VERSION);
	rec->nonce = le64_put(w->nonce);
	rec->seq = le64_put(w->seq);
	rec->slot = le32_put(trailer);
	rec->nr_data = le16_put((u16)nd);
	rec->nr_inval = le16_put((u16)ni);
	rec->tail_slot = le32_put(tail_slot);
	rec->tail_seq = le64_put(tail_seq);
	rec->epoch = le64_put(w->epoch);
	w->rec[w->nrec] = (struct grec){ slot, 1 + nd, w->seq, w->epoch, 0 };
	for (i = 0; i < nd; i++) {
		struct ressd_disk_entry e;

		e.block = le64_put(blocks[i]);
		e.csum = 0;
		if (blocks[i] != RESSD_DEAD_BLOCK) {
			fill(w, data, blocks[i], w->seq);
			e.csum = le32_put(ressd_csum(w->nonce, data, RESSD_BLOCK_SIZE));
			if ((int)i == torn) {
				data[100] ^= 0x20;	/* never reached the medium */
				w->rec[w->nrec].torn++;
			}
			wblock(w, RESSD_SB_BLOCKS + (u64)slot + i, data);
			w->si[slot + i] = (struct slotinfo){ S_DATA, 0, 0, 0 };
		} else if (!padding) {
			/* a dead entry's slot was written all the same (its bio's data) */
			fill(w, data, 0, w->seq);
			wblock(w, RESSD_SB_BLOCKS + (u64)slot + i, data);
			w->si[slot + i] = (struct slotinfo){ S_DATA, 0, 0, 0 };
		}
		memcpy(items + i * sizeof(e), &e, sizeof(e));
	}
	for (i = 0; i < ni; i++) {
		struct ressd_disk_inval v;

		v.block = le64_put(ib[i]);
		v.nr_blocks = le32_put(in[i]);
		memcpy(items + (nd + i) * sizeof(v), &v, sizeof(v));
	}
	rec->csum = le32_put(ressd_block_csum(hdr, w->nonce));
	wblock(w, RESSD_SB_BLOCKS + (u64)trailer, hdr);
	w->si[trailer] = (struct slotinfo){ S_TRAILER, slot, w->seq, w->epoch };

	/* The model: the record carries the new tail; then invalidations, entries. */
	make_durable(w);
	for (i = 0; i < ni; i++)
		for (b = ib[i]; b < ib[i] + in[i] && b < w->nblocks; b++)
			w->map[b] = NONE;
	for (i = 0; i < nd; i++)
		if (blocks[i] != RESSD_DEAD_BLOCK && (int)i != torn)
			w->map[blocks[i]] = slot + i;

	w->nrec++;
	w->used += 1 + nd;
	w->seq++;
	w->head = trailer + 1 >= w->nr_slots ? 0 : trailer + 1;
}

/*
 * As the writer does it: when the record would not fit before the end, a
 * padding record of dead entries first, whose trailer is the last slot.
 */
static void append(struct gw *w, u32 nd, const u64 *blocks, u32 ni, const u64 *ib,
		   const u32 *in, int torn)
{
	if (1 + nd > w->nr_slots - w->head) {
		static u64 dead[RESSD_REC_MAX_ITEMS];
		u32 i, pad = w->nr_slots - w->head - 1;

		for (i = 0; i < pad; i++)
			dead[i] = RESSD_DEAD_BLOCK;
		record(w, pad, dead, 0, NULL, NULL, -1, true);
	}
	record(w, nd, blocks, ni, ib, in, torn, false);
}

static void append_random(struct gw *w, u32 max_data, u64 span)
{
	u64 blocks[RESSD_REC_MAX_ITEMS], ib[2];
	u32 in[2], nd = (u32)(1 + rnd(w) % max_data), ni = (u32)(rnd(w) % 3), i;

	if (nd > w->nr_slots / 2 - 1)
		nd = w->nr_slots / 2 - 1;
	for (i = 0; i < nd; i++)
		blocks[i] = rnd(w) % 9 == 0 ? RESSD_DEAD_BLOCK : rnd(w) % span;
	for (i = 0; i < ni; i++) {
		ib[i] = rnd(w) % span;
		in[i] = (u32)(1 + rnd(w) % 4);
		if (ib[i] + in[i] > w->nblocks)
			in[i] = (u32)(w->nblocks - ib[i]);
	}
	append(w, nd, blocks, ni, ib, in, -1);
}

/* ---- the expected result ---- */

struct expect {
	u32 records, used, torn;
	const char *stop;
	u32 stop_slot;
	const char *result;
	u32 *map;
};

/* What replay must find, from the writer's side (the chain from the checkpoints). */
static void expect_now(struct gw *w, struct expect *e, const char *result)
{
	u32 r, walked = 0, u, last;
	u64 last_epoch = 0;

	memset(e, 0, sizeof(*e));
	for (r = w->durable_tail_rec; r < w->nrec; r++) {
		e->records++;
		e->used += w->rec[r].len;
		e->torn += w->rec[r].torn;
	}
	for (r = w->sb_tail_rec; r < w->nrec; r++)
		walked += w->rec[r].len;
	if (w->nrec > w->sb_tail_rec)
		last_epoch = w->rec[w->nrec - 1].epoch;
	e->stop_slot = w->head;
	if (walked >= w->nr_slots) {
		e->stop = "the chain fills the log";
	} else {
		/*
		 * Replay looks for the next trailer from head on, up to
		 * RESSD_REC_MAX_ITEMS slots further, before the end of the log:
		 * blocks without the record magic are skipped, the first trailer
		 * that does not fit says why the chain ends.
		 */
		last = w->head + RESSD_REC_MAX_ITEMS < w->nr_slots - 1 ?
		       w->head + (u32)RESSD_REC_MAX_ITEMS : w->nr_slots - 1;
		e->stop = "no record trailer";
		for (u = w->head; u <= last; u++) {
			const struct slotinfo *s = &w->si[u];

			if (s->kind != S_TRAILER)
				continue;
			if (s->seq != w->seq)
				e->stop = "sequence break";
			else if (s->start != w->head)
				e->stop = "record does not start where the chain goes on";
			else if (s->epoch < last_epoch || s->epoch > w->epoch)
				e->stop = "epoch out of order";
			else
				die("slot %u continues the chain: a generator bug", u);
			break;
		}
		/* none of the later trailers may continue it either */
		for (; u <= last; u++) {
			const struct slotinfo *s = &w->si[u];

			if (s->kind == S_TRAILER && s->seq == w->seq && s->start == w->head &&
			    s->epoch >= last_epoch && s->epoch <= w->epoch)
				die("slot %u continues the chain: a generator bug", u);
		}
	}
	e->result = result;
	e->map = malloc(w->nblocks * sizeof(*e->map));
	if (!e->map)
		die("out of memory");
	memcpy(e->map, w->map, w->nblocks * sizeof(*e->map));
}

static void write_expect(struct gw *w, const struct expect *e, const char *path)
{
	FILE *f = fopen(path, "w");
	u64 b, mapped = 0;

	if (!f)
		die("%s: %s", path, strerror(errno));
	for (b = 0; b < w->nblocks; b++)
		mapped += e->map[b] != NONE;
	fprintf(f, "records %u\nused %u\ntorn %u\nmapped %" PRIu64 "\nstop %s\nstop_slot %u\n"
		"result %s\n", e->records, e->used, e->torn, mapped, e->stop, e->stop_slot,
		e->result);
	for (b = 0; b < w->nblocks; b++)
		if (e->map[b] != NONE)
			fprintf(f, "map %" PRIu64 " %u\n", b, e->map[b]);
	if (fclose(f))
		die("%s: %s", path, strerror(errno));
}

/* ---- set-up ---- */

static void gw_init(struct gw *w, const char *device, const char *logdev, u64 seed)
{
	u8 blk[RESSD_BLOCK_SIZE];
	struct ressd_label l;
	const char *why, *lp;
	int fd;
	u64 b;

	memset(w, 0, sizeof(*w));
	fd = open(device, O_RDONLY);
	if (fd < 0 || pread(fd, blk, sizeof(blk), 0) != (ssize_t)sizeof(blk))
		die("%s: %s", device, strerror(errno));
	close(fd);
	why = label_decode(blk, &l);
	if (why)
		die("%s: %s", device, why);
	lp = logdev ? logdev : label_same_dev(&l) ? device : l.log_device;
	w->fd = open(lp, O_RDWR);
	if (w->fd < 0)
		die("%s: %s", lp, strerror(errno));
	w->geo.origin_offset = l.origin_offset;
	w->geo.origin_sectors = l.origin_sectors;
	w->geo.log_offset = l.log_offset;
	w->geo.log_sectors = l.log_sectors;
	w->base = l.log_offset * 512;
	w->nr_slots = (u32)(l.log_sectors / 8 - RESSD_SB_BLOCKS);
	w->origin_blocks = l.origin_sectors / 8;
	w->nblocks = w->origin_blocks < 4096 ? w->origin_blocks : 4096;
	w->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	w->sb_version = RESSD_FORMAT_VERSION;
	w->nonce = 0x7e55d000ULL + seed * 0x10001ULL;
	w->rec = calloc(MAX_REC, sizeof(*w->rec));
	w->si = calloc(w->nr_slots, sizeof(*w->si));
	w->map = malloc(w->nblocks * sizeof(*w->map));
	if (!w->rec || !w->si || !w->map)
		die("out of memory");
	for (b = 0; b < w->nblocks; b++)
		w->map[b] = NONE;
	/* A clean log range. */
	memset(blk, 0, sizeof(blk));
	for (b = 0; b < l.log_sectors / 8; b++)
		wblock(w, b, blk);
	/* Format: copy B at generation 2, then A at 1; checkpoint slot 0 seq 1. */
	w->seq = 1;
	put_sb(w, 1, 2, 0, 1, w->geo.log_sectors);
	put_sb(w, 0, 1, 0, 1, w->geo.log_sectors);
	w->generation = 2;
	/* The first recovery: epoch 1, a checkpoint (generation 3, copy A). */
	w->epoch = 1;
	checkpoint(w);
}

/* Flip a byte of block @b of the log range (a trailer or a superblock). */
static void corrupt(struct gw *w, u64 b, size_t off)
{
	u8 blk[RESSD_BLOCK_SIZE];

	rblock(w, b, blk);
	blk[off] ^= 0x01;
	wblock(w, b, blk);
}

/* Restore the writer to just after record @n (a crash that lost the rest). */
static void rewind_to(struct gw *w, u32 n, const u32 *map_then)
{
	u32 r;

	for (r = n; r < w->nrec; r++)
		w->used -= w->rec[r].len;
	w->head = w->rec[n].slot;
	w->seq = w->rec[n].seq;
	w->nrec = n;
	memcpy(w->map, map_then, w->nblocks * sizeof(*w->map));
}

static int gen(const char *scenario, const char *device, const char *logdev, u64 seed,
	       const char *expect_path)
{
	static const u8 zero[RESSD_BLOCK_SIZE];
	static struct gw w;
	struct expect e;
	u64 b[RESSD_REC_MAX_ITEMS], ib[4];
	u32 in[4], i, *snap;

	gw_init(&w, device, logdev, seed);
	snap = malloc(w.nblocks * sizeof(*snap));
	if (!snap)
		die("out of memory");
	if (w.nblocks < 64 || w.nr_slots < 24)
		die("%s: the scenarios want at least 64 origin blocks and 24 log slots", device);

	if (!strcmp(scenario, "empty")) {
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "basic")) {
		/* overwrites, dead entries, a trailer-only record, invalidations */
		b[0] = 5, b[1] = 6, b[2] = 7;
		append(&w, 3, b, 0, NULL, NULL, -1);
		b[0] = 9;
		append(&w, 1, b, 0, NULL, NULL, -1);
		b[0] = 6;
		append(&w, 1, b, 0, NULL, NULL, -1);
		b[0] = 1, b[1] = RESSD_DEAD_BLOCK, b[2] = 3;
		append(&w, 3, b, 0, NULL, NULL, -1);
		ib[0] = 9, in[0] = 1;
		append(&w, 0, b, 1, ib, in, -1);
		/* within a record the invalidations go first: 41 stays mapped here */
		b[0] = RESSD_DEAD_BLOCK, b[1] = 1, b[2] = 20, b[3] = 41;
		ib[0] = 5, in[0] = 2, ib[1] = 40, in[1] = 10;
		append(&w, 4, b, 2, ib, in, -1);
		b[0] = 42, b[1] = 43;
		append(&w, 2, b, 0, NULL, NULL, -1);
		ib[0] = 43, in[0] = 1;
		append(&w, 1, b, 1, ib, in, -1);	/* 42 again, 43 dropped */
		for (i = 0; i < 8; i++)
			b[i] = 30 + i;
		append(&w, 8, b, 0, NULL, NULL, -1);
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "wrap")) {
		/* many laps: padding, mover checkpoints, stale trailers of earlier laps */
		for (i = 0; i < 20 * w.nr_slots / 4; i++)
			append_random(&w, 6, 48);
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "laps")) {
		/*
		 * The kernel's default mover: past 50 % it moves everything home and
		 * writes a checkpoint.  Records of one size put every lap's trailers
		 * at the same slots: the chain ends at a trailer of the previous lap.
		 */
		for (i = 0; i < 3 * w.nr_slots; i++) {
			if (w.used > w.nr_slots / 2) {
				while (w.tail_rec < w.nrec)
					move_oldest(&w);
				checkpoint(&w);
			}
			b[0] = rnd(&w) % 40, b[1] = rnd(&w) % 40, b[2] = 40 + i % 20;
			append(&w, 3, b, 0, NULL, NULL, -1);
		}
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "newer-checkpoint")) {
		/* the mover moved records after the last superblock write */
		for (i = 0; i < 4; i++)
			append_random(&w, 3, 32);
		move_oldest(&w);
		move_oldest(&w);
		for (i = 0; i < 2; i++)
			append_random(&w, 3, 32);
		if (w.sb_tail_rec == w.durable_tail_rec)
			die("newer-checkpoint: no newer checkpoint in the records");
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "torn-data")) {
		/* the last record's second block never reached the medium */
		b[0] = 10, b[1] = 11, b[2] = 12;
		append(&w, 3, b, 0, NULL, NULL, -1);
		b[0] = 13, b[1] = 11, b[2] = 14;
		append(&w, 3, b, 0, NULL, NULL, 1);
		expect_now(&w, &e, "problems");
	} else if (!strcmp(scenario, "data-rot")) {
		/* a block rots in a middle record; a later record rewrites it */
		for (i = 0; i < 3; i++) {
			b[0] = 50 + i, b[1] = 60 + i;
			append(&w, 2, b, 0, NULL, NULL, i == 1 ? 0 : -1);
		}
		b[0] = 51;
		append(&w, 1, b, 0, NULL, NULL, -1);
		expect_now(&w, &e, "problems");
	} else if (!strcmp(scenario, "torn-trailer") || !strcmp(scenario, "corrupt-middle")) {
		u32 k = !strcmp(scenario, "torn-trailer") ? 5 : 2, n = 6;

		for (i = 0; i < n; i++) {
			if (i == k) {
				memcpy(snap, w.map, w.nblocks * sizeof(*snap));
				expect_now(&w, &e, "problems");
			}
			b[0] = 2 * i, b[1] = 2 * i + 1, b[2] = 3;
			append(&w, 3, b, 0, NULL, NULL, -1);
		}
		corrupt(&w, RESSD_SB_BLOCKS + (u64)trailer_slot(&w.rec[k]), 200);
		e.stop = "bad record checksum";
		e.stop_slot = w.rec[k].slot;
	} else if (!strcmp(scenario, "lost-trailer")) {
		/*
		 * A crash after the last record's data reached the medium but
		 * before its trailer did: the chain ends at its data, which
		 * replay skips; the blocks keep their older copies.
		 */
		for (i = 0; i < 5; i++) {
			if (i == 4)
				memcpy(snap, w.map, w.nblocks * sizeof(*snap));
			b[0] = i, b[1] = 7, b[2] = 20 + i;
			append(&w, 3, b, 0, NULL, NULL, -1);
		}
		wblock(&w, RESSD_SB_BLOCKS + (u64)trailer_slot(&w.rec[4]), zero);
		w.si[trailer_slot(&w.rec[4])].kind = S_ZERO;
		rewind_to(&w, 4, snap);
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "misplaced-trailer")) {
		/*
		 * After the chain, a trailer of the current life with the next
		 * sequence number whose data does not start where the chain goes
		 * on (one slot further): replay must not take it.
		 */
		u8 hdr[RESSD_BLOCK_SIZE] = { 0 };
		struct ressd_disk_rec *rec = (struct ressd_disk_rec *)hdr;
		struct ressd_disk_entry en = { le64_put(3), 0 };
		u32 t;

		for (i = 0; i < 3; i++) {
			b[0] = 10 + i;
			append(&w, 1, b, 0, NULL, NULL, -1);
		}
		t = w.head + 2;
		fill(&w, hdr, 3, w.seq);
		wblock(&w, RESSD_SB_BLOCKS + (u64)t - 1, hdr);
		w.si[t - 1] = (struct slotinfo){ S_DATA, 0, 0, 0 };
		en.csum = le32_put(ressd_csum(w.nonce, hdr, RESSD_BLOCK_SIZE));
		memset(hdr, 0, sizeof(hdr));
		rec->magic = le64_put(RESSD_REC_MAGIC);
		rec->version = le32_put(RESSD_FORMAT_VERSION);
		rec->nonce = le64_put(w.nonce);
		rec->seq = le64_put(w.seq);
		rec->slot = le32_put(t);
		rec->nr_data = le16_put(1);
		rec->tail_slot = le32_put(w.sb_tail_slot);
		rec->tail_seq = le64_put(w.sb_tail_seq);
		rec->epoch = le64_put(w.epoch);
		memcpy(rec->entries, &en, sizeof(en));
		rec->csum = le32_put(ressd_block_csum(hdr, w.nonce));
		wblock(&w, RESSD_SB_BLOCKS + (u64)t, hdr);
		w.si[t] = (struct slotinfo){ S_TRAILER, t - 1, w.seq, w.epoch };
		expect_now(&w, &e, "problems");
	} else if (!strcmp(scenario, "window-edge") || !strcmp(scenario, "window-beyond")) {
		/*
		 * Replay looks for the next trailer at most RESSD_REC_MAX_ITEMS
		 * slots beyond where the record starts: a stale trailer of an
		 * earlier lap (a lower seq, no data) exactly there ends the chain
		 * with a sequence break, one slot further it is not looked at.
		 */
		u8 hdr[RESSD_BLOCK_SIZE] = { 0 };
		struct ressd_disk_rec *rec = (struct ressd_disk_rec *)hdr;
		u32 t;

		for (i = 0; i < 2; i++) {
			b[0] = 10 + i, b[1] = 30 + i;
			append(&w, 2, b, 0, NULL, NULL, -1);
		}
		t = w.head + (u32)RESSD_REC_MAX_ITEMS + !strcmp(scenario, "window-beyond");
		if (t >= w.nr_slots)
			die("%s: %s wants a log of more than %u slots", device, scenario, t + 1);
		rec->magic = le64_put(RESSD_REC_MAGIC);
		rec->version = le32_put(RESSD_FORMAT_VERSION);
		rec->nonce = le64_put(w.nonce);
		rec->seq = le64_put(w.seq - 1);
		rec->slot = le32_put(t);
		rec->tail_slot = le32_put(0);
		rec->tail_seq = le64_put(1);
		rec->epoch = le64_put(w.epoch);
		rec->csum = le32_put(ressd_block_csum(hdr, w.nonce));
		wblock(&w, RESSD_SB_BLOCKS + (u64)t, hdr);
		w.si[t] = (struct slotinfo){ S_TRAILER, t, w.seq - 1, w.epoch };
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "stale-future")) {
		/*
		 * Record 6 lost, 7 reached the medium; recovery raised the epoch;
		 * a new record 6 of the same length ends where the stale 7 lies.
		 */
		for (i = 0; i < 7; i++) {
			if (i == 5)
				memcpy(snap, w.map, w.nblocks * sizeof(*snap));
			b[0] = (i * 2) % 40, b[1] = (i * 2 + 1) % 40;
			append(&w, 2, b, 0, NULL, NULL, -1);
		}
		wblock(&w, RESSD_SB_BLOCKS + (u64)trailer_slot(&w.rec[5]), zero);
		w.si[trailer_slot(&w.rec[5])].kind = S_ZERO;
		rewind_to(&w, 5, snap);
		w.epoch++;
		checkpoint(&w);
		b[0] = 30, b[1] = 31;
		append(&w, 2, b, 0, NULL, NULL, -1);
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "stale-beyond")) {
		/*
		 * As stale-future, but the new record 6 is as long as the old 6 and
		 * 7 together: it ends where the stale 8 lies, a sequence number
		 * ahead of the one the chain wants (and of an older epoch).
		 */
		for (i = 0; i < 9; i++) {
			if (i == 5)
				memcpy(snap, w.map, w.nblocks * sizeof(*snap));
			b[0] = (i * 2) % 40, b[1] = (i * 2 + 1) % 40;
			append(&w, 2, b, 0, NULL, NULL, -1);
		}
		wblock(&w, RESSD_SB_BLOCKS + (u64)trailer_slot(&w.rec[5]), zero);
		w.si[trailer_slot(&w.rec[5])].kind = S_ZERO;
		rewind_to(&w, 5, snap);
		w.epoch++;
		checkpoint(&w);
		for (i = 0; i < 5; i++)
			b[i] = 30 + i;
		append(&w, 5, b, 0, NULL, NULL, -1);
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "full")) {
		/* the chain fills the log exactly: records of 3 slots, then one to the end */
		while (w.nr_slots - w.used >= 3) {
			b[0] = w.nrec % w.nblocks, b[1] = (w.nrec + 100) % w.nblocks;
			append(&w, 2, b, 0, NULL, NULL, -1);
		}
		if (w.used < w.nr_slots) {
			u32 left = w.nr_slots - w.used - 1;

			for (i = 0; i < left; i++)
				b[i] = 200 + i;
			append(&w, left, b, 0, NULL, NULL, -1);
		}
		expect_now(&w, &e, "clean");
	} else if (!strcmp(scenario, "sb-one-bad")) {
		for (i = 0; i < 5; i++)
			append_random(&w, 3, 32);
		checkpoint(&w);	/* no moves: the older copy has the same checkpoint */
		corrupt(&w, (w.generation & 1) ? 0 : 1, 300);
		expect_now(&w, &e, "problems");
	} else if (!strcmp(scenario, "sb-both-bad")) {
		append_random(&w, 3, 32);
		corrupt(&w, 0, 300);
		corrupt(&w, 1, 300);
		expect_now(&w, &e, "unusable");
		e.stop = "-";
	} else if (!strcmp(scenario, "format-1")) {
		/*
		 * Superblocks of on-disk format 1 (the record header before its
		 * data): refused, the log must be drained by an older module.
		 */
		append_random(&w, 3, 32);
		w.sb_version = 1;
		checkpoint(&w);
		checkpoint(&w);
		expect_now(&w, &e, "unusable");
		e.stop = "-";
	} else if (!strcmp(scenario, "sb-geometry")) {
		/* superblocks of a log range one block shorter than the label's */
		append_random(&w, 3, 32);
		put_sb(&w, 0, 5, 0, 1, w.geo.log_sectors - 8);
		put_sb(&w, 1, 4, 0, 1, w.geo.log_sectors - 8);
		expect_now(&w, &e, "unusable");
		e.stop = "-";
	} else if (!strcmp(scenario, "bad-checkpoint")) {
		/* the last record names a checkpoint whose slot is not its record's */
		u8 hdr[RESSD_BLOCK_SIZE];
		struct ressd_disk_rec *rec = (struct ressd_disk_rec *)hdr;
		u32 last;

		for (i = 0; i < 4; i++) {
			b[0] = i;
			append(&w, 1, b, 0, NULL, NULL, -1);
		}
		last = trailer_slot(&w.rec[w.nrec - 1]);
		rblock(&w, RESSD_SB_BLOCKS + (u64)last, hdr);
		rec->tail_seq = le64_put(w.rec[1].seq);
		rec->tail_slot = le32_put(w.rec[1].slot + 1);	/* its second slot */
		rec->csum = le32_put(ressd_block_csum(hdr, w.nonce));
		wblock(&w, RESSD_SB_BLOCKS + (u64)last, hdr);
		expect_now(&w, &e, "unusable");
		e.stop = "-";
	} else {
		die("unknown scenario %s", scenario);
	}
	write_expect(&w, &e, expect_path);
	if (fsync(w.fd) || close(w.fd))
		die("sync: %s", strerror(errno));
	free(e.map);
	free(snap);
	free(w.rec);
	free(w.si);
	free(w.map);
	return 0;
}

/* ---- expand: tests/fuzz's compact image encoding ---- */

#define FZ_MAX_SLOTS	64
#define FZ_MIN_SLOTS	2
#define FZ_HDR_SIZE	20
#define FZ_CHUNK_HDR	5

static u64 get_le(const u8 *p, int n)
{
	u64 v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static int expand(const char *in, const char *out)
{
	static u8 data[1 << 20];
	u32 nr_slots, nblk;
	u64 log_offset, pos = FZ_HDR_SIZE;
	size_t size;
	u8 *img;
	FILE *f = fopen(in, "rb");
	int fd;

	if (!f)
		die("%s: %s", in, strerror(errno));
	size = fread(data, 1, sizeof(data), f);
	fclose(f);
	if (size < FZ_HDR_SIZE)
		die("%s: too short", in);
	nr_slots = FZ_MIN_SLOTS + data[0] % (FZ_MAX_SLOTS - FZ_MIN_SLOTS + 1);
	log_offset = get_le(data + 8, 4) * 8;
	nblk = RESSD_SB_BLOCKS + nr_slots;
	img = calloc(nblk, RESSD_BLOCK_SIZE);
	if (!img)
		die("out of memory");
	while (pos + FZ_CHUNK_HDR <= size) {
		u32 b = data[pos] % nblk;
		u32 off = (u32)(get_le(data + pos + 1, 2) % RESSD_BLOCK_SIZE);
		size_t len = (size_t)get_le(data + pos + 3, 2);

		pos += FZ_CHUNK_HDR;
		if (len > RESSD_BLOCK_SIZE - off)
			len = RESSD_BLOCK_SIZE - off;
		if (len > size - pos)
			len = size - pos;
		memcpy(img + (size_t)b * RESSD_BLOCK_SIZE + off, data + pos, len);
		pos += len;
	}
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("%s: %s", out, strerror(errno));
	if (pwrite(fd, img, (size_t)nblk * RESSD_BLOCK_SIZE, (off_t)(log_offset * 512)) !=
	    (ssize_t)nblk * RESSD_BLOCK_SIZE || close(fd))
		die("%s: %s", out, strerror(errno));
	free(img);
	printf("log_offset_bytes=%" PRIu64 "\n", log_offset * 512);
	return 0;
}

int main(int argc, char **argv)
{
	const char *logdev = NULL, *expect = NULL;
	u64 seed = 1;
	int i;

	if (argc == 2 && !strcmp(argv[1], "crc")) {
		printf("%08x\n", ~crc32c(~0U, "123456789", 9));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "expand"))
		return expand(argv[2], argv[3]);
	if (argc >= 4 && !strcmp(argv[1], "gen")) {
		for (i = 4; i < argc; i++) {
			if (!strcmp(argv[i], "--log-device") && i + 1 < argc)
				logdev = argv[++i];
			else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
				seed = strtoull(argv[++i], NULL, 10);
			else if (!strcmp(argv[i], "--expect") && i + 1 < argc)
				expect = argv[++i];
			else
				die("unknown argument %s", argv[i]);
		}
		if (!expect)
			die("gen needs --expect <file>");
		return gen(argv[2], argv[3], logdev, seed, expect);
	}
	fprintf(stderr, "usage: ressd-mklog gen <scenario> <device> [--log-device <file>] "
		"[--seed <n>] --expect <file>\n"
		"       ressd-mklog expand <compact image> <output file>\n"
		"       ressd-mklog crc\n");
	return 2;
}
