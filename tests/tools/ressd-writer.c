// SPDX-License-Identifier: GPL-2.0-only
/*
 * ressd-writer: a self-checking block writer and verifier for dm-ressd's
 * integrity and power-cut tests (invariants I1, I2, I3 and I5 of the design
 * rules).  User space, plain C with Linux headers and pthreads.
 *
 *   ressd-writer write  --dev D --blocks N [--seconds S | --ops K] [--seed X]
 *                       [--journal F] [--mix w4=30,w8=12,...] [--threads T]
 *                       [--verify-every M] [--mark-dm NAME]
 *   ressd-writer verify --dev D --journal F [--mode live|crash] [--cut NS]
 *                       [--seen]
 *   ressd-writer now    (prints CLOCK_MONOTONIC in ns, the clock of --cut)
 *
 * write runs for S seconds, K ops, or 10 s, with T threads (default 4); --mix
 * gives op weights (ops not named get 0; defaults in weights[] below);
 * --verify-every M quiesces every M ops and checks all N blocks.  A write
 * run on an existing journal continues it (same N, generations go on).
 *
 * Blocks.  Every 4 KiB block written carries a 48-byte header (magic, its
 * own block number, its generation: +1 per write of that block, the run id,
 * a crc32c of the whole block with the crc field zero, an op id) followed by
 * filler derived from (block, generation).  Generation 0 is the all-zero
 * block: the first run of a journal zero-fills blocks [0, N) and flushes.
 *
 * Journal.  Fixed 40-byte records appended with one write(2) each, under one
 * mutex, in the order things happen (so the record index orders events): a
 * record survives SIGKILL once write(2) returned, a torn tail fails its crc
 * and is ignored (and cut off by the next write run, which continues the
 * generations).  WRITE/DISCARD are appended before the I/O is issued, DONE
 * after it completed; FLUSH before fdatasync(2), FLUSH_DONE after.  Each
 * record carries a CLOCK_MONOTONIC time stamp taken under the mutex.
 *
 * Durability.  A write is durable at cut time T when its DONE precedes (in
 * the journal) a FLUSH whose FLUSH_DONE is stamped before T, or when it was
 * an O_DSYNC write (REQ_FUA) whose DONE is stamped before T.  An "fua" op
 * is such a write issued asynchronously (io_submit with RWF_DSYNC): the
 * kernel follows a synchronous O_DSYNC write to a block device with a
 * flush, but not an asynchronous one, so "fua" writes are REQ_FUA with no
 * flush after them, as a file system's journal commit.  A "wb" op (a
 * batch) writes 3 to 8 adjacent blocks as as many 4 KiB writes, in
 * descending order (each a small random write to the target) and in one
 * io_submit(2), which plugs them (the target may write the first at once
 * and gathers the others); they are durable after a flush as plain writes.
 * A "wc" op writes 1 to 4 blocks through the page cache (pages of 4 KiB:
 * one block each) and writes them back with sync_file_range(2), waiting, as
 * an fsync does: writes with REQ_SYNC in a plug, in ascending order (to the
 * target the first a small random write, the others a stream), whose end
 * the target writes in the task; complete, and durable after a flush, as
 * plain writes.  Stamps are
 * taken after the syscall returned, so "stamped before T" implies
 * "completed before T".
 *
 * Per block: issued = newest generation issued, comp = newest completed,
 * dur = newest durable; a discard is "after" a write when issued after it.
 *
 * What a block may hold (zeros = all-zero block, gen g = a crc-valid block
 * of THIS block number from a run of this journal with generation g):
 *   live  (no crash since the writes; any write in flight at a SIGKILL is
 *         allowed to have landed or not):
 *         no discard after the newest completed write:  gen in [comp, issued]
 *                                                      (zeros if comp == 0)
 *         a discard after it:      zeros, or gen in [dur, issued]
 *   crash (power cut at T, then recovery):
 *         gen in [dur, issued]; zeros only when dur == 0 or a discard was
 *         issued after the durable write.
 * So a completed discard may leave zeros or any generation of this block
 * not older than its durable one (never garbage, never older than durable:
 * a discard must not resurrect data from before the last durable write).
 * Everything else is a violation: garbage (no magic, bad crc, bad filler),
 * foreign (another block's data, or a run this journal does not know),
 * stale (older than allowed), future (a generation never issued).
 *
 * Crash after crash.  verify --mode crash --seen, when every block held,
 * appends a SEEN record per block to the journal: what recovery presented
 * (gen g, or zeros as g = 0).  What a recovered target presents was read
 * from the media, so it is durable: from that record on the block's floor
 * (dur and comp) is g, and the generations (g, issued] that the crash lost
 * are dead: they must never come back, whatever crashes follow.  A write run
 * on the journal then continues from the recovered state, and a later
 * verify --mode crash --cut T2 judges a second (third, ...) crash: writes
 * of the earlier runs count only through the SEEN records, since a flush
 * after a crash cannot make the writes the crash dropped durable.
 *
 * The writer never has two operations in flight on one block: each op claims
 * its blocks before the I/O.  Ops are generated in order from one PRNG, so a
 * seed gives the same op sequence (the interleaving of threads varies).
 * Marks.  With --mark-dm NAME, after journalling a FLUSH_DONE, the DONE of an
 * O_DSYNC write, or the INIT_DONE of a new journal, the thread that did so
 * sends the device-mapper target message "mark ressd-writer:<t_ns>" to the
 * dm device NAME (a dm-log-writes target below the device under test; the
 * DM_TARGET_MSG ioctl on /dev/mapper/control), t_ns being that record's
 * stamp.  Stamps are strictly increasing along the journal, so every
 * completion stamped at or before t_ns returned before the mark was sent,
 * and dm-log-writes logged its writes before the mark: a replay of the
 * log-writes log to any point at or after the mark may be verified with
 * --mode crash --cut <t_ns + 1>.
 *
 * SIGUSR1 stops the on-the-fly read verification (before a power cut: reads
 * after it may see dropped writes) and prints "reads-off" once no verifying
 * read is in flight.  SIGTERM/SIGINT stop the run cleanly.
 *
 * Exit status: 0 all checks held, 1 a violation, 2 an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/aio_abi.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "../../tools/lib/crc32c.h"

#define BS		4096
#define MAX_OP_BLOCKS	256		/* 1 MiB */
#define MAX_READ_BLOCKS	64
#define BMAGIC		0x314b4c4257535352ULL	/* "RSSWBLK1" */
#define JMAGIC		0x4c4e524aU		/* "JRNL" */
#define HDR_SIZE	48
#define MAX_RUNS	64
#define MAX_REPORT	20
#define NTHREADS_MAX	16

/* Block header, at offset 0 of every written block (host byte order). */
struct bhdr {
	uint64_t magic;		/*  0 BMAGIC */
	uint64_t block;		/*  8 its own block number */
	uint64_t gen;		/* 16 generation, >= 1 */
	uint64_t run;		/* 24 run id */
	uint32_t crc;		/* 32 crc32c of the 4 KiB block, this field 0 */
	uint32_t kind;		/* 36 op type that wrote it (information) */
	uint64_t op;		/* 40 op id (information) */
};

/* Journal record types. */
enum { J_HEAD = 1, J_RUN, J_INIT_DONE, J_WRITE, J_DISCARD, J_DONE, J_FLUSH,
	J_FLUSH_DONE, J_SEEN };
#define JF_DSYNC 1

struct jrec {
	uint32_t magic;		/* JMAGIC */
	uint32_t crc;		/* crc32c of the record, this field 0 */
	uint16_t type;
	uint16_t flags;		/* JF_DSYNC on WRITE and its DONE */
	uint32_t count;		/* blocks (WRITE, DISCARD, DONE); run number;
				   SEEN: the generation (0: zeros) */
	uint64_t block;		/* first block; HEAD: N; RUN: run id */
	uint64_t op;		/* op id (WRITE..FLUSH_DONE); RUN: seed */
	uint64_t t_ns;		/* CLOCK_MONOTONIC when appended */
};

/* Operation types and their names in --mix. */
enum { OP_W4, OP_W8, OP_SEQ, OP_DSYNC, OP_DISCARD, OP_READ, OP_FSYNC, OP_FUA, OP_BATCH,
       OP_CACHED, NOPS };
static const char *op_names[NOPS] = { "w4", "w8", "seq", "dsync", "discard",
				      "read", "fsync", "fua", "wb", "wc" };
static int weights[NOPS] = { 30, 12, 8, 6, 4, 30, 3, 0, 0, 0 };
#define MAX_BATCH	8	/* blocks (and aio writes) of a "wb" op */

/* Durable when it completes: O_DSYNC, or FUA through aio. */
static int op_dsync(int type)
{
	return type == OP_DSYNC || type == OP_FUA;
}

/* What a block read back as. */
enum { C_ZERO, C_VALID, C_GARBAGE, C_FOREIGN };
struct cls {
	int c;
	uint64_t gen, blk;
	const char *why;
};

struct op {
	int type;
	uint64_t id, start;
	uint32_t count;
	uint64_t gens[MAX_OP_BLOCKS];
	int verify;		/* READ: check the data */
	struct cls *cls;	/* READ: what each block held */
};

/* ---- global state; per-block arrays and counters under G.mu ---- */
static struct {
	int fd, fd_sync, fd_cached, jfd;
	uint64_t nblocks, seed, run;
	uint64_t runs[MAX_RUNS];
	int nruns;
	/* per block (see the comment at the top) */
	uint64_t *issued, *comp, *dur;
	uint64_t *dead_lo, *dead_hi;	/* gens (lo, hi] lost at a crash */
	uint64_t *comp_seq;	/* writer: journal index of the newest DONE */
	uint64_t *comp_iss, *dur_iss, *disc_iss;	/* replay: record indices */
	uint8_t *busy, *disc;
	int init_done;
	/* journal */
	uint64_t jseq, next_op, jvalid;
	/* op generation */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t rng, ops_gen, ops_limit, deadline_ns, verify_every;
	int generating, stop, reads_off, discard_ok;
	uint64_t inflight, verifying, seq_next;
	uint64_t recent[64];
	unsigned nrecent;
	int wsum, threads_done;
	uint64_t last_t;	/* newest journal stamp: stamps strictly increase */
	int ctl_fd;		/* /dev/mapper/control, with --mark-dm */
	const char *mark_dm;
	/* results */
	uint64_t nops[NOPS], nblk[NOPS], violations, reported;
} G = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
	.ctl_fd = -1 };

static volatile sig_atomic_t sig_stop, sig_reads_off;

#define die(...) (fprintf(stderr, "ressd-writer: " __VA_ARGS__), \
		  fputc('\n', stderr), exit(2))

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The standard CRC-32C (inverted in and out), from the one user-space
 * crc32c (tools/lib/crc32c.c, the kernel's semantics).
 */
static uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	return ~ressd_crc32c(~crc, buf, len);
}

/* ---- pseudo-random numbers ---- */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t n)	/* uniform-ish in [0, n), G.mu held */
{
	G.rng = mix64(G.rng);
	return n ? G.rng % n : 0;
}

/* ---- block contents ---- */
static uint64_t filler_seed(uint64_t b, uint64_t gen)
{
	return mix64(b * 0x100000001b3ULL ^ mix64(gen)) | 1;
}

static void make_block(uint8_t *p, uint64_t b, uint64_t gen, int kind,
		       uint64_t op)
{
	struct bhdr h = { BMAGIC, b, gen, G.run, 0, (uint32_t)kind, op };
	uint64_t s = filler_seed(b, gen);

	for (int off = HDR_SIZE; off < BS; off += 8) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;	/* xorshift64 */
		memcpy(p + off, &s, 8);
	}
	memcpy(p, &h, sizeof(h));
	h.crc = crc32c(0, p, BS);
	memcpy(p + offsetof(struct bhdr, crc), &h.crc, 4);
}

static int run_known(uint64_t run)
{
	for (int i = 0; i < G.nruns; i++)
		if (G.runs[i] == run)
			return 1;
	return 0;
}

/* What does block b's buffer p hold?  Pure: no lock needed. */
static struct cls classify(uint8_t *p, uint64_t b)
{
#define OUTCOME(cl, w) do { r.c = (cl); r.why = (w); return r; } while (0)
	struct cls r = { C_GARBAGE, 0, 0, NULL };
	struct bhdr h;
	uint32_t zero = 0, crc;
	uint64_t s, w;
	int off;

	for (off = 0; off < BS; off += 8) {
		memcpy(&w, p + off, 8);
		if (w)
			break;
	}
	if (off == BS)
		OUTCOME(C_ZERO, NULL);
	memcpy(&h, p, sizeof(h));
	if (h.magic != BMAGIC)
		OUTCOME(C_GARBAGE, "garbage (no header)");
	memcpy(p + offsetof(struct bhdr, crc), &zero, 4);
	crc = crc32c(0, p, BS);
	memcpy(p + offsetof(struct bhdr, crc), &h.crc, 4);
	r.gen = h.gen, r.blk = h.block;
	if (crc != h.crc)
		OUTCOME(C_GARBAGE, "garbage (bad crc: torn or corrupt)");
	if (h.block != b)
		OUTCOME(C_FOREIGN, "foreign (another block's data)");
	if (!run_known(h.run))
		OUTCOME(C_FOREIGN, "foreign (a run this journal does not know)");
	s = filler_seed(b, h.gen);
	for (off = HDR_SIZE; off < BS; off += 8) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		memcpy(&w, p + off, 8);
		if (w != s)
			OUTCOME(C_GARBAGE, "garbage (filler does not match)");
	}
	if (h.gen == 0)
		OUTCOME(C_GARBAGE, "garbage (generation 0)");
	OUTCOME(C_VALID, NULL);
#undef OUTCOME
}

/* The allowed outcomes for block b (see the comment at the top). */
struct expect {
	int zero_ok;
	uint64_t lo, hi;
	uint64_t dead_lo, dead_hi;	/* but never in (dead_lo, dead_hi] */
};

static struct expect expect_live(uint64_t b)
{
	struct expect e = { 0, G.comp[b], G.issued[b], G.dead_lo[b],
			    G.dead_hi[b] };

	if (G.disc[b])
		e.zero_ok = 1, e.lo = G.dur[b];
	if (G.comp[b] == 0)
		e.zero_ok = 1;
	return e;
}

static struct expect expect_crash(uint64_t b)
{
	struct expect e = { 0, G.dur[b], G.issued[b], G.dead_lo[b],
			    G.dead_hi[b] };

	e.zero_ok = G.dur[b] == 0 || G.disc_iss[b] > G.dur_iss[b];
	return e;
}

/* Judge a read-back block; count and print a violation.  Returns 0 if ok. */
static int judge(uint64_t b, const struct cls *c, struct expect e,
		 const char *ctx)
{
	const char *why = c->why;
	char found[64];

	if (c->c == C_ZERO) {
		if (e.zero_ok)
			return 0;
		why = "zeros where data is due";
	} else if (c->c == C_VALID) {
		int dead = c->gen > e.dead_lo && c->gen <= e.dead_hi;

		if (c->gen >= e.lo && c->gen <= e.hi && !dead)
			return 0;
		why = dead ? "resurrected (lost at an earlier crash)" :
		      c->gen < e.lo ? "stale (older than allowed)" :
				      "future (generation never issued)";
	}
	G.violations++;
	if (G.reported++ < MAX_REPORT) {
		if (c->c == C_ZERO)
			snprintf(found, sizeof(found), "zeros");
		else if (c->c == C_GARBAGE && !c->gen && !c->blk)
			snprintf(found, sizeof(found), "no valid header");
		else
			snprintf(found, sizeof(found), "header of block %" PRIu64
				 " gen %" PRIu64, c->blk, c->gen);
		printf("VIOLATION %s: block %" PRIu64 ": %s: found %s, allowed gen %"
		       PRIu64 "..%" PRIu64 "%s\n", ctx, b, why, found, e.lo, e.hi,
		       e.zero_ok ? " or zeros" : "");
		fflush(stdout);
	}
	return 1;
}

/* ---- journal ---- */
static uint64_t jappend(int type, int flags, uint64_t block, uint32_t count,
			uint64_t op)	/* G.mu held (or single-threaded) */
{
	struct jrec r = { JMAGIC, 0, (uint16_t)type, (uint16_t)flags, count,
			  block, op, now_ns() };

	if (r.t_ns <= G.last_t)		/* never equal: see "Marks" above */
		r.t_ns = G.last_t + 1;
	G.last_t = r.t_ns;
	r.crc = crc32c(0, &r, sizeof(r));
	if (write(G.jfd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		die("journal write: %s", strerror(errno));
	return G.jseq++;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	return p ? p : (die("out of memory"), NULL);
}

static void alloc_state(void)
{
	uint64_t n = G.nblocks;

	G.issued = xcalloc(n, 8), G.comp = xcalloc(n, 8), G.dur = xcalloc(n, 8);
	G.comp_seq = xcalloc(n, 8), G.comp_iss = xcalloc(n, 8);
	G.dur_iss = xcalloc(n, 8), G.disc_iss = xcalloc(n, 8);
	G.dead_lo = xcalloc(n, 8), G.dead_hi = xcalloc(n, 8);
	G.busy = xcalloc(n, 1), G.disc = xcalloc(n, 1);
}

/*
 * Replay the journal at path into the per-block state, counting as durable
 * what was durable at time cut (UINT64_MAX: every completed flush counts).
 * Sets G.jvalid to the length of the valid prefix.  Returns 0 if the file
 * does not exist or is empty.
 */
static int replay(const char *path, uint64_t cut)
{
	struct jrec *r;
	struct stat st;
	uint64_t n, i, F = 0, *op_iss, *op_rec, nop = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		die("%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) || st.st_size == 0) {
		close(fd);
		return 0;
	}
	r = xcalloc(1, st.st_size);
	if (read(fd, r, st.st_size) != st.st_size)
		die("%s: short read", path);
	close(fd);
	n = st.st_size / sizeof(*r);
	for (i = 0; i < n; i++) {	/* the valid prefix */
		uint32_t crc = r[i].crc;

		r[i].crc = 0;
		if (r[i].magic != JMAGIC || crc32c(0, &r[i], sizeof(*r)) != crc)
			break;
		r[i].crc = crc;
		if (r[i].type >= J_WRITE && r[i].type <= J_FLUSH_DONE &&
		    r[i].op >= nop)
			nop = r[i].op + 1;
	}
	if (i < n || st.st_size % sizeof(*r))
		fprintf(stderr, "ressd-writer: journal: %" PRIu64 " valid records, "
			"a torn tail of %" PRIu64 " bytes ignored\n", i,
			(uint64_t)st.st_size - i * sizeof(*r));
	n = i;
	if (n == 0 || r[0].type != J_HEAD)
		die("%s: not a ressd-writer journal", path);
	if (G.nblocks && G.nblocks != r[0].block)
		die("journal is for %" PRIu64 " blocks, not %" PRIu64, r[0].block,
		    G.nblocks);
	G.nblocks = r[0].block;
	alloc_state();
	op_iss = xcalloc(nop + 1, 8), op_rec = xcalloc(nop + 1, 8);
	/* Pass 1: F = the newest FLUSH that completed before the cut. */
	for (i = 0; i < n; i++) {
		if ((r[i].type == J_WRITE || r[i].type == J_DISCARD ||
		     r[i].type == J_SEEN) &&
		    (r[i].block >= G.nblocks ||
		     (r[i].type != J_SEEN && r[i].count > G.nblocks - r[i].block)))
			die("%s: record %" PRIu64 " out of range", path, i);
		if (r[i].type == J_WRITE || r[i].type == J_DISCARD ||
		    r[i].type == J_FLUSH)
			op_iss[r[i].op] = i, op_rec[r[i].op] = i;
		if (r[i].type == J_FLUSH_DONE && r[i].t_ns < cut &&
		    op_iss[r[i].op] > F)
			F = op_iss[r[i].op];
	}
	/* Pass 2: generations, completions, durability, discards. */
	for (i = 0; i < n; i++) {
		struct jrec *j = &r[i], *o;
		uint64_t b;

		switch (j->type) {
		case J_RUN:
			if (G.nruns < MAX_RUNS)
				G.runs[G.nruns++] = j->block;
			break;
		case J_INIT_DONE:
			G.init_done = 1;
			break;
		case J_WRITE:
			for (b = j->block; b < j->block + j->count; b++)
				G.issued[b]++;
			break;
		case J_DISCARD:
			for (b = j->block; b < j->block + j->count; b++)
				G.disc_iss[b] = i;
			break;
		case J_DONE:
			o = &r[op_rec[j->op]];
			if (o->type != J_WRITE)
				break;
			for (b = o->block; b < o->block + o->count; b++) {
				/* one op at a time per block: this op's gen */
				G.comp[b] = G.issued[b];
				G.comp_iss[b] = op_iss[j->op];
				if (i < F || ((o->flags & JF_DSYNC) && j->t_ns < cut))
					G.dur[b] = G.comp[b], G.dur_iss[b] = G.comp_iss[b];
			}
			break;
		case J_SEEN:	/* what a recovery presented (see the top) */
			b = j->block;
			G.dur[b] = G.comp[b] = j->count;
			G.dur_iss[b] = G.comp_iss[b] = i;
			G.dead_lo[b] = j->count, G.dead_hi[b] = G.issued[b];
			break;
		}
		if (j->type >= J_WRITE && j->type <= J_FLUSH_DONE &&
		    j->op >= G.next_op)
			G.next_op = j->op + 1;
		if (j->t_ns > G.last_t)
			G.last_t = j->t_ns;
	}
	for (uint64_t b = 0; b < G.nblocks; b++)
		G.disc[b] = G.disc_iss[b] > G.comp_iss[b];
	G.jseq = n;
	G.jvalid = n * sizeof(*r);
	free(r), free(op_iss), free(op_rec);
	return 1;
}

/* ---- device ---- */
static void *xalign(size_t sz)
{
	void *p;

	if (posix_memalign(&p, BS, sz))
		die("out of memory");
	return memset(p, 0, sz);
}

static void open_dev(const char *dev, int rw)
{
	uint64_t bytes;

	G.fd = open(dev, (rw ? O_RDWR : O_RDONLY) | O_DIRECT);
	if (G.fd < 0)
		die("%s: %s", dev, strerror(errno));
	if (ioctl(G.fd, BLKGETSIZE64, &bytes))
		die("%s: BLKGETSIZE64: %s", dev, strerror(errno));
	if (bytes / BS < G.nblocks)
		die("%s holds %" PRIu64 " blocks, need %" PRIu64, dev, bytes / BS,
		    G.nblocks);
	if (rw) {
		G.fd_sync = open(dev, O_RDWR | O_DIRECT | O_DSYNC);
		if (G.fd_sync < 0)
			die("%s: %s", dev, strerror(errno));
		G.fd_cached = open(dev, O_RDWR);
		if (G.fd_cached < 0)
			die("%s: %s", dev, strerror(errno));
	}
}

/*
 * Send "mark ressd-writer:<t>" to the dm device G.mark_dm (see "Marks" at the
 * top).  Called with G.mu held, right after the record stamped t, so marks
 * reach the log in stamp order.  A failed mark is an error: a replay could
 * not tell what was durable.
 */
static void send_mark(uint64_t t)
{
	union {
		struct dm_ioctl io;
		char buf[sizeof(struct dm_ioctl) + sizeof(struct dm_target_msg) + 64];
	} u;
	struct dm_target_msg *msg;

	if (!G.mark_dm)
		return;
	if (G.ctl_fd < 0)
		G.ctl_fd = open("/dev/mapper/control", O_RDWR);
	if (G.ctl_fd < 0)
		die("/dev/mapper/control: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.io.version[0] = DM_VERSION_MAJOR;
	u.io.version[1] = 0;
	u.io.version[2] = 0;
	u.io.data_size = sizeof(u);
	u.io.data_start = sizeof(struct dm_ioctl);
	snprintf(u.io.name, sizeof(u.io.name), "%s", G.mark_dm);
	msg = (struct dm_target_msg *)(u.buf + sizeof(struct dm_ioctl));
	msg->sector = 0;
	snprintf(msg->message, 64, "mark ressd-writer:%" PRIu64, t);
	if (ioctl(G.ctl_fd, DM_TARGET_MSG, &u))
		die("mark on dm device %s: %s", G.mark_dm, strerror(errno));
}

static int discard_supported(void)	/* queue/discard_max_bytes > 0 */
{
	struct stat st;
	char path[128];
	unsigned long long max = 0;
	FILE *f;

	if (fstat(G.fd, &st) || !S_ISBLK(st.st_mode))
		return 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/discard_max_bytes",
		 major(st.st_rdev), minor(st.st_rdev));
	if ((f = fopen(path, "r")) && fscanf(f, "%llu", &max) != 1)
		max = 0;
	if (f)
		fclose(f);
	return max > 0;
}

/*
 * A FUA write with no flush after it: O_DIRECT through aio with RWF_DSYNC
 * (one aio context per thread), waited for at once.
 */
static __thread aio_context_t aio_ctx;

static void aio_init(void)
{
	if (!aio_ctx && syscall(SYS_io_setup, MAX_BATCH, &aio_ctx))
		die("io_setup: %s", strerror(errno));
}

static void xpio_fua(void *buf, uint64_t block, uint32_t count)
{
	struct iocb cb, *cbs[1] = { &cb };
	size_t len = (size_t)count * BS;
	struct io_event ev;

	aio_init();
	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = G.fd;
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_buf = (uint64_t)(uintptr_t)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = (int64_t)(block * BS);
	cb.aio_rw_flags = RWF_DSYNC;
	if (syscall(SYS_io_submit, aio_ctx, 1, cbs) != 1)
		die("io_submit of blocks %" PRIu64 "+%u: %s", block, count, strerror(errno));
	if (syscall(SYS_io_getevents, aio_ctx, 1, 1, &ev, NULL) != 1)
		die("io_getevents: %s", strerror(errno));
	if (ev.res != (int64_t)len)
		die("fua write of blocks %" PRIu64 "+%u: %s", block, count,
		    ev.res < 0 ? strerror((int)-ev.res) : "short");
}

/*
 * A "wb" op: @count 4 KiB writes, the last block first, in one io_submit
 * (which plugs more than two), all waited for.
 */
static void xpio_batch(uint8_t *buf, uint64_t block, uint32_t count)
{
	struct iocb cb[MAX_BATCH], *cbs[MAX_BATCH];
	struct io_event ev[MAX_BATCH];
	uint32_t k, got = 0;
	long n;

	aio_init();
	for (k = 0; k < count; k++) {
		uint32_t i = count - 1 - k;

		memset(&cb[k], 0, sizeof(cb[k]));
		cb[k].aio_fildes = G.fd;
		cb[k].aio_lio_opcode = IOCB_CMD_PWRITE;
		cb[k].aio_buf = (uint64_t)(uintptr_t)(buf + (size_t)i * BS);
		cb[k].aio_nbytes = BS;
		cb[k].aio_offset = (int64_t)((block + i) * BS);
		cbs[k] = &cb[k];
	}
	n = syscall(SYS_io_submit, aio_ctx, (long)count, cbs);
	if (n != (long)count)	/* the process ends: nothing is left in flight */
		die("io_submit of %u writes at block %" PRIu64 ": %s", count, block,
		    n < 0 ? strerror(errno) : "short");
	while (got < count) {
		n = syscall(SYS_io_getevents, aio_ctx, 1, (long)(count - got), ev, NULL);
		if (n < 1)
			die("io_getevents: %s", strerror(errno));
		for (k = 0; k < (uint32_t)n; k++)
			if (ev[k].res != BS)
				die("batch write at block %" PRIu64 ": %s", block,
				    (int64_t)ev[k].res < 0 ? strerror((int)-(int64_t)ev[k].res) :
				    "short");
		got += (uint32_t)n;
	}
}

static void xpio(int write, int fd, void *buf, uint64_t block, uint32_t count)
{
	size_t len = (size_t)count * BS;
	ssize_t n = write ? pwrite(fd, buf, len, (off_t)(block * BS)) :
			    pread(fd, buf, len, (off_t)(block * BS));

	if (n != (ssize_t)len)
		die("%s of blocks %" PRIu64 "+%u: %s", write ? "write" : "read",
		    block, count, n < 0 ? strerror(errno) : "short");
}

/* A "wc" op: through the page cache, then written back and waited for. */
static void xpio_cached(uint8_t *buf, uint64_t block, uint32_t count)
{
	xpio(1, G.fd_cached, buf, block, count);
	if (sync_file_range(G.fd_cached, (off64_t)(block * BS), (off64_t)count * BS,
			    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
			    SYNC_FILE_RANGE_WAIT_AFTER))
		die("sync_file_range of blocks %" PRIu64 "+%u: %s", block, count,
		    strerror(errno));
}

/*
 * Read blocks [0, N) and judge each with expect_live() or expect_crash().
 * Fills out[4] with counts: zeros, newest completed, older allowed, newer;
 * and seen[b] (if not NULL) with the generation found (0: zeros).
 */
static void check_all(uint8_t *buf, int crash, const char *ctx, uint64_t out[4],
		      uint32_t *seen)
{
	for (uint64_t b0 = 0; b0 < G.nblocks; b0 += MAX_OP_BLOCKS) {
		uint32_t cnt = G.nblocks - b0 < MAX_OP_BLOCKS ?
			       (uint32_t)(G.nblocks - b0) : MAX_OP_BLOCKS;

		xpio(0, G.fd, buf, b0, cnt);
		for (uint32_t k = 0; k < cnt; k++) {
			uint64_t b = b0 + k;
			struct cls c = classify(buf + (size_t)k * BS, b);
			struct expect e = crash ? expect_crash(b) : expect_live(b);

			if (judge(b, &c, e, ctx))
				continue;
			if (seen)
				seen[b] = c.c == C_ZERO ? 0 : (uint32_t)c.gen;
			if (c.c == C_ZERO)
				out[0]++;
			else if (c.gen == G.comp[b])
				out[1]++;
			else
				out[c.gen < G.comp[b] ? 2 : 3]++;
		}
	}
}

/* ---- the writer ---- */

/* Pick the next op from the PRNG.  G.mu held. */
static void gen_op(struct op *op)
{
	uint64_t N = G.nblocks, r = rnd(G.wsum), base, off;
	int t = 0;

	while (r >= (uint64_t)weights[t])
		r -= weights[t++];
	if (t == OP_DISCARD && !G.discard_ok)
		t = OP_W4;
	op->type = t;
	op->id = G.next_op++;
	op->count = 1;
	/* a recently written small block, to aim large writes, discards and
	 * reads at blocks that may sit in the log */
	base = G.nrecent ? G.recent[rnd(G.nrecent)] : rnd(N);
	r = rnd(4);
	switch (t) {
	case OP_W4:
	case OP_W8:
	case OP_DSYNC:
	case OP_FUA:
		op->count = (t == OP_W8 || (op_dsync(t) && rnd(2))) ? 2 : 1;
		/* mostly random; 1 in 8 continues a recent one (not "random") */
		op->start = rnd(8) ? rnd(N) : base + 1;
		G.recent[G.nrecent < 64 ? G.nrecent++ : rnd(64)] = op->start;
		break;
	case OP_CACHED:
		op->count = 1 + (uint32_t)rnd(4);
		op->start = rnd(N);
		G.recent[G.nrecent < 64 ? G.nrecent++ : rnd(64)] = op->start;
		break;
	case OP_BATCH:	/* adjacent blocks, written as 4 KiB writes */
		op->count = 3 + (uint32_t)rnd(MAX_BATCH - 3 + 1);
		op->start = rnd(N);
		G.recent[G.nrecent < 64 ? G.nrecent++ : rnd(64)] = op->start;
		break;
	case OP_SEQ:	/* a stream, anywhere, or over recent small writes */
		op->count = 16 + (uint32_t)rnd(MAX_OP_BLOCKS - 16 + 1);
		off = rnd(op->count);
		op->start = r == 0 ? G.seq_next : r == 1 ? rnd(N) :
			    base > off ? base - off : 0;
		break;
	case OP_DISCARD:	/* 4 KiB..256 KiB, aligned to its size */
		op->count = 1u << rnd(7);
		op->start = (r < 2 ? base : rnd(N)) & ~(uint64_t)(op->count - 1);
		break;
	case OP_READ:		/* half of them around recent small writes */
		op->count = 1 + (uint32_t)rnd(MAX_READ_BLOCKS);
		off = rnd(op->count);
		op->start = r < 2 ? rnd(N) : base > off ? base - off : 0;
		break;
	case OP_FSYNC:
		op->count = 0, op->start = 0;
		return;
	}
	if (op->count > N)
		op->count = (uint32_t)N;
	if (op->start + op->count > N)	/* N - count stays aligned: N % 64 == 0 */
		op->start = N - op->count;
	if (t == OP_SEQ)
		G.seq_next = op->start + op->count < N ? op->start + op->count : 0;
}

static int range_busy(const struct op *op)
{
	for (uint32_t k = 0; k < op->count; k++)
		if (G.busy[op->start + k])
			return 1;
	return 0;
}

/* Claim the op's blocks and journal its start.  G.mu held. */
static void issue(struct op *op)
{
	G.inflight++;
	for (uint32_t k = 0; k < op->count; k++)
		G.busy[op->start + k] = 1;
	switch (op->type) {
	case OP_READ:
		op->verify = !G.reads_off;
		G.verifying += op->verify;
		return;
	case OP_FSYNC:
		op->start = jappend(J_FLUSH, 0, 0, 0, op->id); /* F's index */
		return;
	case OP_DISCARD:
		jappend(J_DISCARD, 0, op->start, op->count, op->id);
		return;
	}
	jappend(J_WRITE, op_dsync(op->type) ? JF_DSYNC : 0, op->start, op->count,
		op->id);
	for (uint32_t k = 0; k < op->count; k++)
		op->gens[k] = ++G.issued[op->start + k];
}

/* Journal the op's completion, update the expectations, release.  G.mu held. */
static void complete(struct op *op)
{
	uint64_t idx, b;

	G.nops[op->type]++;
	G.nblk[op->type] += op->count;
	switch (op->type) {
	case OP_READ:
		if (op->verify) {
			for (uint32_t k = 0; k < op->count; k++)
				if (judge(op->start + k, &op->cls[k],
					  expect_live(op->start + k), "read"))
					G.stop = 1;
			G.verifying--;
		}
		break;
	case OP_FSYNC:
		jappend(J_FLUSH_DONE, 0, 0, 0, op->id);
		send_mark(G.last_t);
		for (b = 0; b < G.nblocks; b++)
			if (G.comp_seq[b] < op->start && G.comp[b] > G.dur[b])
				G.dur[b] = G.comp[b];
		G.inflight--;
		return;
	case OP_DISCARD:
		jappend(J_DONE, 0, op->start, op->count, op->id);
		for (uint32_t k = 0; k < op->count; k++)
			G.disc[op->start + k] = 1;
		break;
	default:
		idx = jappend(J_DONE, op_dsync(op->type) ? JF_DSYNC : 0, op->start,
			      op->count, op->id);
		for (uint32_t k = 0; k < op->count; k++) {
			b = op->start + k;
			G.comp[b] = op->gens[k];
			G.comp_seq[b] = idx;
			G.disc[b] = 0;
			if (op_dsync(op->type))
				G.dur[b] = op->gens[k];
		}
		if (op_dsync(op->type))
			send_mark(G.last_t);
	}
	for (uint32_t k = 0; k < op->count; k++)
		G.busy[op->start + k] = 0;
	G.inflight--;
}

static void do_io(struct op *op, uint8_t *buf)
{
	uint64_t range[2];

	switch (op->type) {
	case OP_READ:	/* classify here, judge in complete() under G.mu */
		xpio(0, G.fd, buf, op->start, op->count);
		for (uint32_t k = 0; op->verify && k < op->count; k++)
			op->cls[k] = classify(buf + (size_t)k * BS, op->start + k);
		break;
	case OP_FSYNC:
		if (fdatasync(G.fd))
			die("fdatasync: %s", strerror(errno));
		break;
	case OP_DISCARD:
		range[0] = op->start * BS, range[1] = (uint64_t)op->count * BS;
		if (ioctl(G.fd, BLKDISCARD, range))
			die("BLKDISCARD %" PRIu64 "+%u: %s", op->start, op->count,
			    strerror(errno));
		break;
	default:
		for (uint32_t k = 0; k < op->count; k++)
			make_block(buf + (size_t)k * BS, op->start + k, op->gens[k],
				   op->type, op->id);
		if (op->type == OP_FUA)
			xpio_fua(buf, op->start, op->count);
		else if (op->type == OP_BATCH)
			xpio_batch(buf, op->start, op->count);
		else if (op->type == OP_CACHED)
			xpio_cached(buf, op->start, op->count);
		else
			xpio(1, op->type == OP_DSYNC ? G.fd_sync : G.fd, buf, op->start,
			     op->count);
	}
}

static void *worker(void *arg)
{
	uint8_t *buf = xalign((size_t)MAX_OP_BLOCKS * BS);
	struct op *op = xcalloc(1, sizeof(*op));

	(void)arg;
	op->cls = xcalloc(MAX_READ_BLOCKS, sizeof(*op->cls));
	pthread_mutex_lock(&G.mu);
	for (;;) {
		while (G.generating && !G.stop)
			pthread_cond_wait(&G.cv, &G.mu);
		if (G.stop || (G.ops_limit && G.ops_gen >= G.ops_limit) ||
		    (G.deadline_ns && now_ns() >= G.deadline_ns))
			break;
		G.generating = 1;	/* ops are generated and claimed in order */
		if (G.verify_every && G.ops_gen && G.ops_gen % G.verify_every == 0) {
			uint64_t cnt[4] = { 0 };
			char ctx[48];

			while (G.inflight)	/* quiesce, then check everything */
				pthread_cond_wait(&G.cv, &G.mu);
			snprintf(ctx, sizeof(ctx), "check after %" PRIu64 " ops", G.ops_gen);
			if (!G.reads_off)
				check_all(buf, 0, ctx, cnt, NULL);
			printf("%s: %" PRIu64 " zero, %" PRIu64 " newest, %" PRIu64
			       " violations\n", ctx, cnt[0], cnt[1], G.violations);
			fflush(stdout);
			if (G.violations)
				G.stop = 1;
		}
		gen_op(op);
		G.ops_gen++;
		while (range_busy(op))
			pthread_cond_wait(&G.cv, &G.mu);
		issue(op);
		G.generating = 0;
		pthread_cond_broadcast(&G.cv);
		pthread_mutex_unlock(&G.mu);

		do_io(op, buf);

		pthread_mutex_lock(&G.mu);
		complete(op);
		pthread_cond_broadcast(&G.cv);
	}
	G.stop = 1;
	G.threads_done++;
	pthread_cond_broadcast(&G.cv);
	pthread_mutex_unlock(&G.mu);
	free(buf), free(op->cls), free(op);
	return NULL;
}

static void on_signal(int sig)
{
	*(sig == SIGUSR1 ? &sig_reads_off : &sig_stop) = 1;
}

static void parse_mix(char *s)	/* ops not named get weight 0 */
{
	memset(weights, 0, sizeof(weights));
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		int t;

		if (!eq)
			die("--mix: want name=weight, got '%s'", tok);
		*eq = 0;
		for (t = 0; t < NOPS && strcmp(op_names[t], tok); t++)
			;
		if (t == NOPS)
			die("--mix: unknown op '%s'", tok);
		weights[t] = atoi(eq + 1);
	}
}

static int cmd_write(const char *dev, const char *journal, int nthreads,
		     uint64_t seconds)
{
	pthread_t th[NTHREADS_MAX];
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t all, old;
	uint64_t t0, runno;
	int t;

	if (replay(journal, UINT64_MAX)) {
		if (!G.init_done)
			die("%s: the first run died before its zero-fill finished",
			    journal);
		G.jfd = open(journal, O_WRONLY);
		if (G.jfd < 0 || ftruncate(G.jfd, (off_t)G.jvalid) ||
		    lseek(G.jfd, 0, SEEK_END) < 0)
			die("%s: %s", journal, strerror(errno));
		open_dev(dev, 1);
	} else {
		uint8_t *z = xalign((size_t)MAX_OP_BLOCKS * BS);

		if (!G.nblocks || G.nblocks % 64)
			die("--blocks: a multiple of 64 is needed for a new journal");
		alloc_state();
		G.jfd = open(journal, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (G.jfd < 0)
			die("%s: %s", journal, strerror(errno));
		jappend(J_HEAD, 0, G.nblocks, 0, 1);
		open_dev(dev, 1);
		/* generation 0 everywhere: zero-fill and flush */
		for (uint64_t b = 0; b < G.nblocks; b += MAX_OP_BLOCKS)
			xpio(1, G.fd, z, b, G.nblocks - b < MAX_OP_BLOCKS ?
				 (uint32_t)(G.nblocks - b) : MAX_OP_BLOCKS);
		if (fdatasync(G.fd))
			die("fdatasync: %s", strerror(errno));
		jappend(J_INIT_DONE, 0, 0, 0, 0);
		send_mark(G.last_t);
		free(z);
	}
	if (G.next_op == 0)
		G.next_op = 1;
	runno = (uint64_t)G.nruns;
	if (G.nruns >= MAX_RUNS)
		die("too many runs in one journal");
	G.run = mix64(G.seed ^ mix64(runno + 0x5253));
	G.runs[G.nruns++] = G.run;
	jappend(J_RUN, 0, G.run, (uint32_t)runno, G.seed);
	G.rng = mix64(G.seed);
	G.discard_ok = discard_supported();
	if (!G.discard_ok && weights[OP_DISCARD])
		printf("note: the device does not support discard; no discards\n");
	for (t = 0; t < NOPS; t++)
		G.wsum += weights[t];
	if (G.wsum <= 0)
		die("--mix: all weights are zero");
	if (weights[OP_CACHED] && sysconf(_SC_PAGESIZE) != BS)
		die("--mix: wc needs pages of one block (%ld bytes here)", sysconf(_SC_PAGESIZE));

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);	/* signals go to main only */
	t0 = now_ns();
	G.deadline_ns = seconds ? t0 + seconds * 1000000000ULL : 0;
	if (!seconds && !G.ops_limit)
		G.deadline_ns = t0 + 10ULL * 1000000000ULL;
	for (t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, worker, NULL))
			die("pthread_create failed");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	printf("started: run %" PRIu64 " (%016" PRIx64 ") seed %" PRIu64 ", %"
	       PRIu64 " blocks, %d threads\n", runno, G.run, G.seed, G.nblocks,
	       nthreads);
	fflush(stdout);

	pthread_mutex_lock(&G.mu);
	while (G.threads_done < nthreads) {
		struct timespec ts = { 0, 20000000 };

		if (sig_stop && !G.stop) {
			G.stop = 1;
			pthread_cond_broadcast(&G.cv);
		}
		if (sig_reads_off && !G.reads_off) {
			G.reads_off = 1;	/* new reads are not checked */
			while (G.verifying)
				pthread_cond_wait(&G.cv, &G.mu);
			printf("reads-off at %" PRIu64 "\n", now_ns());
			fflush(stdout);
		}
		pthread_mutex_unlock(&G.mu);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&G.mu);
	}
	pthread_mutex_unlock(&G.mu);
	for (t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);

	printf("done in %.1f s:", (double)(now_ns() - t0) / 1e9);
	for (t = 0; t < NOPS; t++)
		printf(" %s=%" PRIu64 "/%" PRIu64 "blk", op_names[t], G.nops[t],
		       G.nblk[t]);
	printf("; %" PRIu64 " violations\n", G.violations);
	return G.violations ? 1 : 0;
}

/*
 * After a verified recovery: append what each block held as SEEN records
 * (see "Crash after crash" at the top), cutting off a torn tail first.
 */
static void record_seen(const char *journal, const uint32_t *seen)
{
	G.jfd = open(journal, O_WRONLY);
	if (G.jfd < 0 || ftruncate(G.jfd, (off_t)G.jvalid) ||
	    lseek(G.jfd, 0, SEEK_END) < 0)
		die("%s: %s", journal, strerror(errno));
	for (uint64_t b = 0; b < G.nblocks; b++)
		jappend(J_SEEN, 0, b, seen[b], 0);
	if (fsync(G.jfd) || close(G.jfd))
		die("%s: %s", journal, strerror(errno));
	printf("recorded what recovery presented: later crashes must keep it\n");
}

static int cmd_verify(const char *dev, const char *journal, int crash,
		      uint64_t cut, int seen_rec)
{
	uint8_t *buf = xalign((size_t)MAX_OP_BLOCKS * BS);
	uint64_t cnt[4] = { 0 }, durable = 0, acked = 0, inflight = 0;
	uint32_t *seen;

	if (!replay(journal, crash ? cut : UINT64_MAX))
		die("%s: no journal", journal);
	if (!G.init_done)
		die("%s: the writer died before its zero-fill finished", journal);
	open_dev(dev, 0);
	seen = seen_rec ? xcalloc(G.nblocks, sizeof(*seen)) : NULL;
	for (uint64_t b = 0; seen && b < G.nblocks; b++)
		if (G.issued[b] > UINT32_MAX)
			die("block %" PRIu64 ": too many generations for --seen", b);
	check_all(buf, crash, crash ? "crash" : "live", cnt, seen);
	for (uint64_t b = 0; b < G.nblocks; b++) {
		durable += G.dur[b] > 0;
		acked += G.comp[b] > G.dur[b];
		inflight += G.issued[b] > G.comp[b];
	}
	printf("verify %s: %" PRIu64 " blocks (%d runs): %" PRIu64 " zero, %"
	       PRIu64 " newest, %" PRIu64 " older (acked, lost), %" PRIu64
	       " newer (unacked, landed), %" PRIu64 " violations\n",
	       crash ? "crash" : "live", G.nblocks, G.nruns, cnt[0], cnt[1],
	       cnt[2], cnt[3], G.violations);
	printf("journal: %" PRIu64 " blocks with a durable write, %" PRIu64
	       " with acked writes not durable, %" PRIu64 " with writes in flight\n",
	       durable, acked, inflight);
	if (seen && !G.violations)
		record_seen(journal, seen);
	free(buf), free(seen);
	return G.violations ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ressd-writer write --dev D --blocks N [--seconds S | --ops K]\n"
		"           [--seed X] [--journal F] [--mix w4=30,w8=12,seq=8,dsync=6,"
		"discard=4,read=30,fsync=3,fua=0,wb=0,wc=0]\n"
		"           [--threads T] [--verify-every M] [--mark-dm NAME]\n"
		"       ressd-writer verify --dev D --journal F [--mode live|crash] [--cut NS]\n"
		"           [--seen]\n"
		"       ressd-writer now\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", 1, NULL, 'd' }, { "blocks", 1, NULL, 'b' },
		{ "seconds", 1, NULL, 's' }, { "ops", 1, NULL, 'o' },
		{ "seed", 1, NULL, 'x' }, { "journal", 1, NULL, 'j' },
		{ "mix", 1, NULL, 'm' }, { "verify-every", 1, NULL, 'v' },
		{ "threads", 1, NULL, 't' }, { "mode", 1, NULL, 'M' },
		{ "cut", 1, NULL, 'c' }, { "mark-dm", 1, NULL, 'k' },
		{ "seen", 0, NULL, 'S' }, { NULL, 0, NULL, 0 },
	};
	const char *dev = NULL, *journal = "ressd-writer.journal", *mode = "live";
	uint64_t seconds = 0, cut = UINT64_MAX;
	int c, nthreads = 4, seen = 0;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "now")) {
		printf("%" PRIu64 "\n", now_ns());
		return 0;
	}
	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'b': G.nblocks = strtoull(optarg, NULL, 0); break;
		case 's': seconds = strtoull(optarg, NULL, 0); break;
		case 'o': G.ops_limit = strtoull(optarg, NULL, 0); break;
		case 'x': G.seed = strtoull(optarg, NULL, 0); break;
		case 'j': journal = optarg; break;
		case 'm': parse_mix(optarg); break;
		case 'v': G.verify_every = strtoull(optarg, NULL, 0); break;
		case 't': nthreads = atoi(optarg); break;
		case 'M': mode = optarg; break;
		case 'c': cut = strtoull(optarg, NULL, 0); break;
		case 'k': G.mark_dm = optarg; break;
		case 'S': seen = 1; break;
		default: usage();
		}
	}
	if (!dev || optind != argc - 1)
		usage();
	if (nthreads < 1 || nthreads > NTHREADS_MAX)
		die("--threads: 1..%d", NTHREADS_MAX);
	if (!strcmp(argv[1], "write"))
		return cmd_write(dev, journal, nthreads, seconds);
	if (strcmp(argv[1], "verify"))
		usage();
	if (strcmp(mode, "live") && strcmp(mode, "crash"))
		die("--mode: live or crash");
	if (!strcmp(mode, "crash") && cut == UINT64_MAX)
		die("--mode crash needs --cut (from 'ressd-writer now')");
	if (seen && strcmp(mode, "crash"))
		die("--seen: with --mode crash only");
	return cmd_verify(dev, journal, !strcmp(mode, "crash"), cut, seen);
}
