// SPDX-License-Identifier: GPL-2.0-only
/*
 * ressd-replay: reads a dm-log-writes log and rebuilds the logged device at
 * chosen crash states, for the replay crash harness (tests/crash/replay.sh).
 * User space, plain C.
 *
 *   ressd-replay info  --log L
 *   ressd-replay marks --log L
 *   ressd-replay list  --log L
 *   ressd-replay trailers --log L
 *   ressd-replay plan  --log L --states M [--seed S] [--i6-every K] [--sb SECTOR]
 *   ressd-replay apply --log L --dev D --range A:B
 *   ressd-replay apply --log L --dev D --list SPEC
 *
 * The log (Documentation/admin-guide/device-mapper/log-writes.rst and
 * drivers/md/dm-log-writes.c of the kernel): at byte 0 a super {le64 magic
 * 0x6a736677736872, le64 version 1, le64 nr_entries, le32 sectorsize}; from
 * byte sectorsize on, nr_entries entries, each one sector {le64 sector, le64
 * nr_sectors, le64 flags, le64 data_len} (a mark's text follows in the same
 * sector) and then nr_sectors sectors of data, except for a discard, which
 * has none.  Sectors are of sectorsize bytes.  Flags: FLUSH 1, FUA 2,
 * DISCARD 4, MARK 8, METADATA 16.  dm-log-writes logs a write only once a
 * FLUSH that followed its completion completed (it is then logged just
 * before that FLUSH), and a FUA write at its completion; so a prefix of the
 * log is a state the disk could be in after a power cut.  The log is
 * accepted only if its last entry is the mark "dm-log-writes-end" that the
 * target's destructor writes: otherwise the log ran out of space or is
 * torn, and a replay would miss writes.
 *
 * The writer (tests/tools/ressd-writer.c, --mark-dm) adds marks
 * "ressd-writer:<t_ns>" after each completed flush and O_DSYNC write: every
 * write durable at t_ns is logged before that mark.  For a state that holds
 * the log prefix [0, p) (plus, perhaps, writes from after p), the cut to
 * verify with is therefore 1 + the largest t_ns among the marks in [0, p),
 * or 0 when there is none.
 *
 * info prints the entry counts by kind; marks prints, for each mark, the
 * length of the log prefix that ends just after it and its text; list
 * prints each entry: index, sector, sectors, flags; trailers checks that
 * the data of each ordered entry of dm-ressd's trailers was flushed before
 * its trailer was written.
 *
 * plan prints up to M crash states, one a line, sorted by p:
 *
 *   <id> <kind> <p> <cut> <i6> <extras>
 *
 * meaning: the log prefix [0, p) replayed in order, then the entries of
 * <extras> ("-" for none; a comma list of entry indices, in the order to
 * apply them, an entry "i/o/n" standing for only the 4 KiB blocks [o, o+n)
 * of entry i: a torn write).  <i6> is 1 for the states on which the harness
 * also crashes during recovery.  Kinds:
 *   flush   p just after a FLUSH entry
 *   fua     p just after a FUA entry (without FLUSH)
 *   mark    p just after a writer mark
 *   cut     p anywhere
 *   checkpoint  p just after the first superblock copy of a checkpoint
 *           (--sb: the 512-byte sector where dm-ressd's two copies start):
 *           a superblock write whose tail moved within one epoch, the end of
 *           a mover round or of a part of a density round (the next part's
 *           copies not made yet); the format's and recoveries' superblock
 *           writes are not checkpoints
 *   subset  p at a FLUSH or FUA point, extras a random non-empty subset, in
 *           random order, of the writes of the window after p
 *   torn    p at a FLUSH or FUA point, extras a random subset of the window
 *           and one multi-block write of it (or the FUA or FLUSH write that
 *           closes the window, after the whole window) torn at a 4 KiB
 *           boundary
 * The window after p: the writes (and discards) logged before the next
 * entry with FLUSH or FUA, q.  They completed before q was logged and no
 * flush made them durable, so any subset of them may have reached the
 * medium, in any order; if q is a FUA write without FLUSH, q is part of the
 * window too (it had not completed).  If q carries data and FLUSH, its data
 * was written after all of the window was durable: it may be torn only on
 * top of the whole window.  Two chosen writes that overlap keep their log
 * order (a disk does not put an older write over a newer one to the same
 * sector): the later one is applied again at the end.  Tears are at 4 KiB
 * boundaries: the device under test exports 4 KiB logical blocks, the
 * unit that is atomic on the disks it targets.
 *
 * apply writes entries [A, B), or the entries of SPEC, to device D, with
 * O_DIRECT, and fsyncs it.  A discard is replayed as zeros (the most
 * hostile outcome a discard may have), but for the blocks that a FUA write
 * logged before it holds (superseded_by_fua(): as for a write without FUA,
 * the discard may have completed before that write was issued).
 *
 * Exit status: 0 done, 2 an error (a bad log, an I/O error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LW_MAGIC	0x6a736677736872ULL
#define LW_FLUSH	1
#define LW_FUA		2
#define LW_DISCARD	4
#define LW_MARK		8
#define BLK		4096
#define WMARK		"ressd-writer:"
#define REC_MAGIC	0x676c2d4453536552ULL	/* dm-ressd's "ReSSD-lg" */
#define SB_MAGIC	0x62732d4453536552ULL	/* dm-ressd's "ReSSD-sb" */

struct entry {
	uint64_t pos;		/* byte offset of the entry's sector in the log */
	uint64_t sector;	/* target sector, in sectorsize units */
	uint64_t nr;		/* sectors */
	uint64_t flags;
	uint64_t mark_t;	/* writer mark stamp, 0 if none */
};

static struct {
	int lfd;
	uint32_t ss;		/* sectorsize */
	uint64_t n;		/* entries */
	struct entry *e;
	uint64_t rng;
	uint64_t skipped;	/* blocks apply left out (superseded_by_fua) */
	uint64_t sb;		/* byte offset of dm-ressd's superblock copies */
	int has_sb;
} L;

#define die(...) (fprintf(stderr, "ressd-replay: " __VA_ARGS__), \
		  fputc('\n', stderr), exit(2))

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void *xalign(size_t sz)
{
	void *p;

	if (posix_memalign(&p, BLK, sz ? sz : BLK))
		die("out of memory");
	return memset(p, 0, sz);
}

static void xpread(int fd, void *buf, size_t len, uint64_t off, const char *what)
{
	ssize_t r = pread(fd, buf, len, (off_t)off);

	if (r != (ssize_t)len)
		die("reading %s at byte %" PRIu64 ": %s", what, off,
		    r < 0 ? strerror(errno) : "short read");
}

/* Read the super and index every entry. */
static void load(const char *path)
{
	uint8_t *sec = xalign(BLK);
	uint64_t pos, nent, magic, ver;

	L.lfd = open(path, O_RDONLY | O_DIRECT);
	if (L.lfd < 0)
		die("%s: %s", path, strerror(errno));
	xpread(L.lfd, sec, 512, 0, "the super");
	magic = le64(sec), ver = le64(sec + 8), nent = le64(sec + 16);
	L.ss = sec[24] | sec[25] << 8 | sec[26] << 16 | (uint32_t)sec[27] << 24;
	if (magic != LW_MAGIC)
		die("%s: not a dm-log-writes log (magic %#" PRIx64 ")", path, magic);
	if (ver != 1)
		die("%s: log version %" PRIu64 ", expected 1", path, ver);
	if (L.ss < 512 || L.ss > BLK || (L.ss & (L.ss - 1)))
		die("%s: sector size %u", path, L.ss);
	L.e = calloc(nent + 1, sizeof(*L.e));
	if (!L.e)
		die("out of memory");
	pos = L.ss;
	for (L.n = 0; L.n < nent; L.n++) {
		struct entry *e = &L.e[L.n];
		uint64_t dlen;

		xpread(L.lfd, sec, L.ss, pos, "an entry");
		e->pos = pos;
		e->sector = le64(sec), e->nr = le64(sec + 8);
		e->flags = le64(sec + 16), dlen = le64(sec + 24);
		if (e->nr > (1ULL << 32) / L.ss)
			die("entry %" PRIu64 ": %" PRIu64 " sectors", L.n, e->nr);
		if ((e->flags & LW_MARK) && dlen < L.ss - 32) {
			char txt[BLK] = "";

			memcpy(txt, sec + 32, dlen);
			txt[dlen] = 0;
			if (!strncmp(txt, WMARK, strlen(WMARK)))
				e->mark_t = strtoull(txt + strlen(WMARK), NULL, 10);
			else if (!strcmp(txt, "dm-log-writes-end") && L.n + 1 == nent)
				e->mark_t = UINT64_MAX;	/* the end */
		}
		pos += L.ss;
		if (!(e->flags & LW_DISCARD))
			pos += e->nr * L.ss;
	}
	if (!L.n || L.e[L.n - 1].mark_t != UINT64_MAX)
		die("%s: the last of %" PRIu64 " entries is not the mark "
		    "dm-log-writes-end: the log is incomplete", path, L.n);
	L.e[--L.n].mark_t = 0;	/* the end mark is not replayed */
	free(sec);
}

static int is_data(const struct entry *e)	/* a write or discard */
{
	return !(e->flags & LW_MARK) && e->nr;
}

/*
 * A write of a superblock copy (--sb: its two 4 KiB copies from that
 * 512-byte sector on): its epoch and tail_seq (struct ressd_disk_sb of
 * dm-ressd-format.h: le64 at bytes 120 and 112).  Returns 0 for any other
 * entry.
 */
static int sb_write(const struct entry *e, uint64_t *epoch, uint64_t *tail_seq)
{
	static uint8_t b[BLK] __attribute__((aligned(BLK)));	/* (O_DIRECT) */
	uint64_t at = e->sector * L.ss, off;

	if (!L.has_sb || !is_data(e) || (e->flags & LW_DISCARD) ||
	    at >= L.sb + 2 * BLK || at + e->nr * L.ss <= L.sb)
		return 0;
	off = at < L.sb ? L.sb - at : (BLK - (at - L.sb) % BLK) % BLK;
	if (off % L.ss || off + L.ss > e->nr * L.ss || L.ss > BLK)
		return 0;
	xpread(L.lfd, b, L.ss, e->pos + L.ss + off, "a superblock");
	if (le64(b) != SB_MAGIC)
		return 0;
	*tail_seq = le64(b + 112);
	*epoch = le64(b + 120);
	return 1;
}

static int is_point(const struct entry *e)	/* FLUSH or FUA */
{
	return !(e->flags & LW_MARK) && (e->flags & (LW_FLUSH | LW_FUA));
}

static uint64_t blocks_of(const struct entry *e)
{
	return e->nr * L.ss / BLK;
}

/* A write of more than one whole, aligned 4 KiB block. */
static int tearable(const struct entry *e)
{
	return is_data(e) && !(e->flags & LW_DISCARD) && blocks_of(e) > 1 &&
	       (e->nr * L.ss) % BLK == 0 && (e->sector * L.ss) % BLK == 0;
}

/* ---- apply ---- */

/*
 * The log order of two writes to one block is not always the order in which
 * they reached the disk: dm-log-writes logs a FUA write when it completes,
 * but a write without FUA only at the next flush.  A write X that completed
 * before a FUA write W to the same block was issued can therefore be logged
 * after W, and replaying the log in order would put X's older data over W's,
 * which no disk does.  The self-checking writer's blocks carry their
 * generation (tests/tools/ressd-writer.c: magic, block, gen at the start of
 * each 4 KiB block): when the newest earlier FUA write of a 4 KiB block in
 * the log, at most two flushes back, holds a newer writer block than X's, X's
 * block is not replayed.  Writes without FUA between W and X are logged in
 * the order they completed, as X is: one of them newer than X means X really
 * put older data over newer, and X is replayed (several such writes may all
 * have completed before W: the mover's copy of a block and a direct write).
 * An all-zero block X is generation 0 of whatever writer block the earlier
 * writes hold there: the writer writes zeros only when it starts a journal
 * (and flushes), so X is the mover's copy of a block never written or
 * discarded, read from home (a unit's gap it filled), which the target
 * writes before the FUA write that follows is issued (I5).
 * A target that wrote an older copy over a completed FUA write before the
 * next flush would look the same here; the live verifications (integrity,
 * fio-verify, soak) read such a block back and catch that.
 */
#define WRITER_MAGIC	0x314b4c4257535352ULL	/* "RSSWBLK1" */

/* The writer's block number and generation of a 4 KiB block; 0 if none. */
static int writer_gen(const uint8_t *b, uint64_t *blk, uint64_t *gen)
{
	if (le64(b) != WRITER_MAGIC)
		return 0;
	*blk = le64(b + 8), *gen = le64(b + 16);
	return 1;
}

/*
 * The writer block number and generation that entry @w holds at the 4 KiB
 * block starting at sector @first; 0 if none (not aligned, not the writer's).
 */
static int entry_gen(const struct entry *w, uint64_t first, uint64_t *blk,
		     uint64_t *gen)
{
	uint8_t *wb;
	int ok;

	if ((w->sector * L.ss) % BLK)
		return 0;
	wb = xalign(BLK);
	xpread(L.lfd, wb, BLK, w->pos + L.ss + (first - w->sector) * L.ss,
	       "entry data");
	ok = writer_gen(wb, blk, gen);
	free(wb);
	return ok;
}

static int all_zero(const uint8_t *b, size_t len)
{
	while (len--)
		if (*b++)
			return 0;
	return 1;
}

/*
 * Is block @d of entry @i (data @b; zeros for a discard) older than a FUA
 * write logged before it?
 */
static int superseded_by_fua(uint64_t i, uint64_t d, const uint8_t *b)
{
	uint64_t first = d * BLK / L.ss, blk = 0, gen, wblk, wgen;
	int flushes = 0, zero = 0;

	if (!writer_gen(b, &blk, &gen)) {
		if (!all_zero(b, BLK))
			return 0;
		zero = 1, gen = 0;	/* generation 0 of the block found below */
	}
	while (i--) {
		const struct entry *w = &L.e[i];

		if ((w->flags & LW_FLUSH) && !(w->flags & LW_MARK) && ++flushes > 2)
			return 0;
		if (!is_data(w) || w->sector >= first + BLK / L.ss ||
		    w->sector + w->nr <= first)
			continue;
		if ((w->flags & LW_DISCARD) || !entry_gen(w, first, &wblk, &wgen) ||
		    (!zero && wblk != blk))
			return 0;
		blk = wblk, zero = 0;
		if (w->flags & LW_FUA)
			return wgen > gen;
		if (wgen > gen)		/* completed before X and newer */
			return 0;
	}
	return 0;
}

static void apply_one(int fd, uint64_t i, uint64_t o, uint64_t cnt)
{
	struct entry *e;
	uint64_t len, off = 0;
	uint8_t *buf;

	if (i >= L.n)
		die("entry %" PRIu64 " out of range (%" PRIu64 " entries)", i, L.n);
	e = &L.e[i];
	len = e->nr * L.ss;
	if (!is_data(e))
		return;
	if (cnt) {	/* torn: only blocks [o, o + cnt) */
		if ((e->sector * L.ss) % BLK || len % BLK ||
		    o + cnt > len / BLK)
			die("entry %" PRIu64 " cannot be torn at block %" PRIu64
			    "+%" PRIu64, i, o, cnt);
		off = o * BLK, len = cnt * BLK;
	}
	buf = xalign(len);
	if (!(e->flags & LW_DISCARD))
		xpread(L.lfd, buf, len, e->pos + L.ss + off, "entry data");
	if (!(e->flags & LW_FUA) && (e->sector * L.ss) % BLK == 0 &&
	    len % BLK == 0) {
		/*
		 * Block by block, leaving out those a FUA write superseded; a
		 * discard's blocks are zeros, older than any generation a FUA
		 * write holds (a disk may ignore a discard, so leaving one out
		 * is a state a disk can be in).
		 */
		uint64_t d0 = (e->sector * L.ss + off) / BLK;

		for (uint64_t k = 0; k < len / BLK; k++) {
			if (superseded_by_fua(i, d0 + k, buf + k * BLK)) {
				L.skipped++;
				continue;
			}
			if (pwrite(fd, buf + k * BLK, BLK, (off_t)((d0 + k) * BLK)) != BLK)
				die("writing entry %" PRIu64 " (block %" PRIu64 "): %s",
				    i, d0 + k, strerror(errno));
		}
		free(buf);
		return;
	}
	if (pwrite(fd, buf, len, (off_t)(e->sector * L.ss + off)) != (ssize_t)len)
		die("writing entry %" PRIu64 " (sector %" PRIu64 "+%" PRIu64 "): %s",
		    i, e->sector, e->nr, strerror(errno));
	free(buf);
}

static void apply_list(int fd, char *spec)
{
	for (char *t = strtok(spec, ","); t; t = strtok(NULL, ",")) {
		uint64_t i, o = 0, c = 0;

		if (sscanf(t, "%" SCNu64 "/%" SCNu64 "/%" SCNu64, &i, &o, &c) < 1 ||
		    (strchr(t, '/') && !c))
			die("bad entry '%s' in the list", t);
		apply_one(fd, i, o, c);
	}
}

/* ---- plan ---- */
static uint64_t rnd(uint64_t n)
{
	uint64_t x = (L.rng += 0x9e3779b97f4a7c15ULL);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return n ? x % n : 0;
}

struct state {
	uint64_t p;
	int kind;
	char *extras;
};

enum { K_FLUSH, K_FUA, K_MARK, K_CUT, K_CKPT, K_SUBSET, K_TORN, NK };
static const char *kind_names[NK] = { "flush", "fua", "mark", "cut", "checkpoint",
				      "subset", "torn" };

static struct state *st;
static uint64_t nst, cap;
static uint64_t *cut_at;	/* cut for the prefix [0, p) */

static void add_state(uint64_t p, int kind, char *extras)
{
	if (nst == cap) {
		cap = cap ? 2 * cap : 256;
		st = realloc(st, cap * sizeof(*st));
		if (!st)
			die("out of memory");
	}
	st[nst++] = (struct state){ p, kind, extras };
}

static int overlap(const struct entry *a, const struct entry *b)
{
	uint64_t ae = a->sector + a->nr, be = b->sector + b->nr;

	return a->sector < be && b->sector < ae;
}

/*
 * The window after a point p: its writes w[0..*nw) and the closing entry q
 * (L.n if none).  Returns whether q belongs to the window (FUA only).
 */
static int window(uint64_t p, uint64_t *w, uint64_t *nw, uint64_t *q)
{
	uint64_t i;

	*nw = 0;
	for (i = p; i < L.n && !is_point(&L.e[i]); i++)
		if (is_data(&L.e[i]))
			w[(*nw)++] = i;
	*q = i;
	return i < L.n && !(L.e[i].flags & LW_FLUSH) && is_data(&L.e[i]);
}

/* Append the chosen entries c[0..k) in random order, overlaps fixed up. */
static void emit_subset(FILE *f, const uint64_t *c, uint64_t k)
{
	uint64_t *perm = malloc((k + 1) * sizeof(*perm));

	if (!perm)
		die("out of memory");
	for (uint64_t i = 0; i < k; i++)
		perm[i] = c[i];
	for (uint64_t i = k; i > 1; i--) {
		uint64_t j = rnd(i), t = perm[i - 1];

		perm[i - 1] = perm[j], perm[j] = t;
	}
	for (uint64_t i = 0; i < k; i++)
		fprintf(f, "%" PRIu64 ",", perm[i]);
	/* c is in log order: apply again, in log order, each chosen write that
	 * overlaps another chosen one, so the newest lands last */
	for (uint64_t i = 0; i < k; i++)
		for (uint64_t j = 0; j < k; j++)
			if (i != j && overlap(&L.e[c[i]], &L.e[c[j]])) {
				fprintf(f, "%" PRIu64 ",", c[i]);
				break;
			}
	free(perm);
}

/* A subset or torn state at point p; returns 0 if p's window does not allow it. */
static int make_window_state(uint64_t p, int torn, uint64_t *w, uint64_t *c)
{
	uint64_t nw, q, k = 0, tear = UINT64_MAX, nb, o, cnt;
	int q_in = window(p, w, &nw, &q);
	char *buf = NULL;
	size_t blen = 0;
	FILE *f;

	if (q_in)
		w[nw++] = q;
	if (!torn) {
		if (nw < 1)
			return 0;
		for (uint64_t i = 0; i < nw; i++)	/* each with probability 1/2 */
			if (rnd(2))
				c[k++] = w[i];
		if (!k)
			c[k++] = w[rnd(nw)];
		if (k == nw && nw > 1) {	/* keep it a proper subset */
			uint64_t j = rnd(k);

			memmove(c + j, c + j + 1, (k - j - 1) * sizeof(*c));
			k--;
		}
	} else {
		uint64_t multi[64], nm = 0;

		for (uint64_t i = 0; i < nw && nm < 64; i++)
			if (tearable(&L.e[w[i]]))
				multi[nm++] = w[i];
		/* q with FLUSH and data: torn on top of the whole window */
		if (q < L.n && !q_in && tearable(&L.e[q]) && (nm == 0 || rnd(2))) {
			tear = q;
			for (uint64_t i = 0; i < nw; i++)
				c[k++] = w[i];
		} else if (nm) {
			tear = multi[rnd(nm)];
			for (uint64_t i = 0; i < nw; i++)
				if (w[i] != tear && rnd(2))
					c[k++] = w[i];
		} else {
			return 0;
		}
	}
	f = open_memstream(&buf, &blen);
	emit_subset(f, c, k);
	if (tear != UINT64_MAX) {
		nb = blocks_of(&L.e[tear]);
		cnt = 1 + rnd(nb - 1);			/* 1 .. nb-1 blocks land */
		o = rnd(2) ? 0 : nb - cnt;		/* the head or the tail */
		fprintf(f, "%" PRIu64 "/%" PRIu64 "/%" PRIu64 ",", tear, o, cnt);
	}
	fclose(f);
	if (blen && buf[blen - 1] == ',')
		buf[--blen] = 0;
	add_state(p, torn ? K_TORN : K_SUBSET, buf);
	return 1;
}

static int cmp_state(const void *a, const void *b)
{
	const struct state *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

/* Pick up to quota of the candidate prefixes cand[0..nc), uniformly. */
static uint64_t pick(uint64_t *cand, uint64_t nc, uint64_t quota, int kind)
{
	uint64_t got = 0;

	for (uint64_t i = 0; i < nc && got < quota; i++)
		if (rnd(nc - i) < quota - got) {
			add_state(cand[i], kind, NULL);
			got++;
		}
	return got;
}

static int cmd_plan(uint64_t m, uint64_t i6_every)
{
	static const int pct[NK] = { 25, 15, 10, 10, 10, 20, 10 };
	uint64_t *cand[NK], nc[NK] = { 0 }, *w, *c, max = 0, left = m;
	uint64_t *pts, npts = 0, per[NK] = { 0 };
	uint64_t ep, seq, sb_epoch = 0, sb_seq = 0;
	int sb_seen = 0;

	cut_at = calloc(L.n + 1, sizeof(*cut_at));
	pts = calloc(L.n + 1, sizeof(*pts));
	w = calloc(L.n + 1, sizeof(*w)), c = calloc(L.n + 1, sizeof(*c));
	for (int k = 0; k < NK; k++)
		cand[k] = calloc(L.n + 1, sizeof(**cand));
	if (!cut_at || !pts || !w || !c || !cand[NK - 1])
		die("out of memory");
	for (uint64_t i = 0; i < L.n; i++) {
		struct entry *e = &L.e[i];

		if (e->mark_t > max)
			max = e->mark_t;
		cut_at[i + 1] = max ? max + 1 : 0;
		if (e->mark_t)
			cand[K_MARK][nc[K_MARK]++] = i + 1;
		else if (is_point(e))
			cand[e->flags & LW_FLUSH ? K_FLUSH : K_FUA]
			    [nc[e->flags & LW_FLUSH ? K_FLUSH : K_FUA]++] = i + 1;
		if (is_point(e))
			pts[npts++] = i + 1;
		/*
		 * A checkpoint: a superblock write that moves the tail within
		 * one epoch (a round's end, or a part's in a density round),
		 * not the format's, a recovery's (a new epoch) or a tunable's
		 * (the same tail); the first of its two copies.
		 */
		if (sb_write(e, &ep, &seq)) {
			if (sb_seen && ep == sb_epoch && seq != sb_seq)
				cand[K_CKPT][nc[K_CKPT]++] = i + 1;
			sb_seen = 1;
			sb_epoch = ep;
			sb_seq = seq;
		}
	}
	cut_at[0] = 0;
	for (uint64_t i = 0; i < L.n; i++)
		cand[K_CUT][nc[K_CUT]++] = i + 1;
	for (int k = K_FLUSH; k <= K_CKPT; k++)
		left -= pick(cand[k], nc[k], m * pct[k] / 100, k);
	/* the rest: subsets and torn writes at random points */
	for (uint64_t tries = 0; left && npts && tries < 50 * m; tries++) {
		int torn = tries % 2;

		if (make_window_state(pts[rnd(npts)], torn, w, c))
			left--;
	}
	qsort(st, nst, sizeof(*st), cmp_state);
	for (uint64_t i = 0; i < nst; i++) {
		per[st[i].kind]++;
		printf("%" PRIu64 " %s %" PRIu64 " %" PRIu64 " %d %s\n", i,
		       kind_names[st[i].kind], st[i].p, cut_at[st[i].p],
		       i6_every && i % i6_every == i6_every - 1,
		       st[i].extras && *st[i].extras ? st[i].extras : "-");
	}
	fprintf(stderr, "plan: %" PRIu64 " states of %" PRIu64 " entries:", nst, L.n);
	for (int k = 0; k < NK; k++)
		fprintf(stderr, " %s=%" PRIu64 "/%" PRIu64, kind_names[k], per[k],
			k <= K_CKPT ? nc[k] : npts);
	fprintf(stderr, " (picked/candidates)\n");
	return 0;
}

static int cmd_info(void)
{
	uint64_t fl = 0, fua = 0, marks = 0, disc = 0, wr = 0, bytes = 0;

	for (uint64_t i = 0; i < L.n; i++) {
		struct entry *e = &L.e[i];

		fl += !!(e->flags & LW_FLUSH) && !(e->flags & LW_MARK);
		fua += (e->flags & (LW_FUA | LW_FLUSH)) == LW_FUA;
		marks += !!e->mark_t;
		disc += !!(e->flags & LW_DISCARD);
		if (is_data(e) && !(e->flags & LW_DISCARD))
			wr++, bytes += e->nr * L.ss;
	}
	printf("log: %" PRIu64 " entries: %" PRIu64 " writes (%" PRIu64
	       " MiB), %" PRIu64 " flush, %" PRIu64 " fua, %" PRIu64
	       " discards, %" PRIu64 " writer marks; sector size %u\n", L.n, wr,
	       bytes >> 20, fl, fua, disc, marks, L.ss);
	return 0;
}

/* list: each entry's index, sector, sectors and flags (sectorsize units). */
static int cmd_list(void)
{
	for (uint64_t i = 0; i < L.n; i++)
		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", i,
		       L.e[i].sector, L.e[i].nr, L.e[i].flags);
	return 0;
}

/*
 * trailers: the log writes whose last 4 KiB block is a dm-ressd record
 * trailer (its magic), those among them that name ordered entries (bit 62
 * of an entry's block: data_csum 0), and those of these whose ordered data
 * is not durable before them.  An ordered entry has no crc32c: its data,
 * written earlier, must be durable before the trailer is, which the
 * trailer's PREFLUSH does.  In the log that reads: the last write of each
 * ordered entry's slot (the nr_data - j blocks before the trailer) comes
 * before a FLUSH entry that comes before the trailer (device-mapper turns a
 * PREFLUSH with data into an empty flush, then the write; a FLUSH entry
 * logs every write completed before it).  Exit 1 when one is not.
 */
static int cmd_trailers(void)
{
	uint8_t *b = xalign(BLK);
	uint64_t tr = 0, ord = 0, bad = 0;

	for (uint64_t i = 0; i < L.n; i++) {
		struct entry *e = &L.e[i];
		uint64_t nd, n = 0, late = 0, len = e->nr * L.ss, tbyte, f;

		if (!is_data(e) || (e->flags & LW_DISCARD) || len < BLK)
			continue;
		xpread(L.lfd, b, BLK, e->pos + L.ss + len - BLK, "a written block");
		if (le64(b) != REC_MAGIC)
			continue;
		tr++;
		tbyte = e->sector * L.ss + len - BLK;	/* the trailer on the device */
		/* the last FLUSH before it (i: none) */
		for (f = i; f-- > 0;)
			if ((L.e[f].flags & LW_FLUSH) && !(L.e[f].flags & LW_MARK))
				break;
		if (f == UINT64_MAX)
			f = i;
		nd = b[36] | (uint64_t)b[37] << 8;
		for (uint64_t j = 0; j < nd && j < (BLK - 64) / 12; j++) {
			uint64_t blk = le64(b + 64 + 12 * j), at, k;

			if (blk == UINT64_MAX || blk >> 62 != 1)
				continue;
			n++;
			if (tbyte < (nd - j) * BLK)
				continue;
			at = tbyte - (nd - j) * BLK;
			/* its data's last write before the trailer's */
			for (k = i; k-- > 0;) {
				const struct entry *w = &L.e[k];

				if (is_data(w) && !(w->flags & LW_DISCARD) &&
				    w->sector * L.ss <= at && at < (w->sector + w->nr) * L.ss)
					break;
			}
			if (k != UINT64_MAX && (f == i || k > f))
				late++;
		}
		if (!n)
			continue;
		ord++;
		if (late && ++bad <= 5)
			printf("entry %" PRIu64 ": a trailer naming %" PRIu64 " ordered entries, %"
			       PRIu64 " of them written after its last preceding flush\n", i, n, late);
	}
	printf("trailers: %" PRIu64 ", %" PRIu64 " naming ordered entries, %" PRIu64
	       " of them before their data was flushed\n", tr, ord, bad);
	free(b);
	return bad ? 1 : 0;
}

/* marks: each mark's text and the prefix length that ends just after it. */
static int cmd_marks(void)
{
	uint8_t *sec = xalign(BLK);

	if (!sec)
		die("out of memory");
	for (uint64_t i = 0; i < L.n; i++) {
		struct entry *e = &L.e[i];
		uint64_t dlen;

		if (!(e->flags & LW_MARK))
			continue;
		xpread(L.lfd, sec, L.ss, e->pos, "a mark");
		dlen = le64(sec + 24);
		if (dlen >= L.ss - 32)
			continue;
		printf("%" PRIu64 " %.*s\n", i + 1, (int)dlen, (const char *)sec + 32);
	}
	free(sec);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ressd-replay info  --log L\n"
		"       ressd-replay marks --log L\n"
		"       ressd-replay list  --log L\n"
		"       ressd-replay trailers --log L\n"
		"       ressd-replay plan  --log L --states M [--seed S] [--i6-every K] [--sb SECTOR]\n"
		"       ressd-replay apply --log L --dev D (--range A:B | --list SPEC)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", 1, NULL, 'l' }, { "dev", 1, NULL, 'd' },
		{ "states", 1, NULL, 'm' }, { "seed", 1, NULL, 's' },
		{ "i6-every", 1, NULL, 'k' }, { "range", 1, NULL, 'r' },
		{ "list", 1, NULL, 'L' }, { "sb", 1, NULL, 'b' }, { NULL, 0, NULL, 0 },
	};
	const char *log = NULL, *dev = NULL;
	char *list = NULL;
	uint64_t m = 100, k6 = 0, a = 0, b = 0;
	int c, ranged = 0, fd;

	if (argc < 2)
		usage();
	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': log = optarg; break;
		case 'd': dev = optarg; break;
		case 'm': m = strtoull(optarg, NULL, 0); break;
		case 's': L.rng = strtoull(optarg, NULL, 0); break;
		case 'k': k6 = strtoull(optarg, NULL, 0); break;
		case 'r':
			if (sscanf(optarg, "%" SCNu64 ":%" SCNu64, &a, &b) != 2)
				usage();
			ranged = 1;
			break;
		case 'L': list = optarg; break;
		case 'b':
			L.sb = strtoull(optarg, NULL, 0) * 512;
			L.has_sb = 1;
			break;
		default: usage();
		}
	}
	if (!log || optind != argc - 1)
		usage();
	load(log);
	if (!strcmp(argv[1], "info"))
		return cmd_info();
	if (!strcmp(argv[1], "marks"))
		return cmd_marks();
	if (!strcmp(argv[1], "list"))
		return cmd_list();
	if (!strcmp(argv[1], "trailers"))
		return cmd_trailers();
	if (!strcmp(argv[1], "plan"))
		return cmd_plan(m, k6);
	if (strcmp(argv[1], "apply") || !dev || ranged == !!list)
		usage();
	fd = open(dev, O_WRONLY | O_DIRECT);
	if (fd < 0)
		die("%s: %s", dev, strerror(errno));
	if (ranged) {
		if (a > b || b > L.n)
			die("range %" PRIu64 "..%" PRIu64 " outside 0..%" PRIu64, a, b, L.n);
		for (uint64_t i = a; i < b; i++)
			apply_one(fd, i, 0, 0);
	} else {
		apply_list(fd, list);
	}
	if (fsync(fd))
		die("fsync %s: %s", dev, strerror(errno));
	close(fd);
	if (L.skipped)
		fprintf(stderr, "ressd-replay: %" PRIu64 " blocks left out: a FUA write "
			"logged before them holds newer data\n", L.skipped);
	return 0;
}
