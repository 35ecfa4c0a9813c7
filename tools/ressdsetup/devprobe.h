/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RESSD_DEVPROBE_H
#define RESSD_DEVPROBE_H

/*
 * ressdsetup probe: measure a device and say whether dm-ressd helps it.
 * (probe.h is something else: it looks for file-system signatures.)
 *
 * Three layers, each usable on its own:
 *
 *  - the runner (devprobe_run()) issues the tests' requests one at a time
 *    through a backend that times them: real O_DIRECT I/O on a device or
 *    file, or dm-ftlsim's flash cost model and presets (ftlsim-model.c,
 *    built in);
 *  - the math (devprobe_fit_affine(), devprobe_summarize(), devprobe_eq5(),
 *    devprobe_recommend()): pure functions of the measured times, no I/O;
 *  - devprobe_main(): options, safety checks, output, --self-test.
 *
 * Units: times in seconds, bandwidths in bytes per second, sizes in bytes;
 * the output converts to microseconds and MB/s (10^6 bytes per second, as
 * the ReSSD paper and ftlsim.md use).
 */
#include <stdbool.h>
#include <stddef.h>

#include "ressd-types.h"
#include "../../dm-ressd-plan.h"	/* struct ressd_devmodel (dev_model) */

#define DEVPROBE_PAGE		4096u
/* Request sizes of each test (bytes). */
#define DEVPROBE_NR_SEQ		5	/* sequential: 1 MiB, 256, 64, 16, 4 KiB */
#define DEVPROBE_NR_RAND	5	/* random: 4, 8, 16, 32, 64 KiB */
#define DEVPROBE_NR_OW		5	/* ordered-sequential: 4, 128, 256, 384, 512 KiB */
/* Space left between two ordered-sequential writes (ReSSD paper, Fig. 2). */
#define DEVPROBE_OW_GAP		(128u * 1024)

extern const u32 devprobe_seq_sizes[DEVPROBE_NR_SEQ];
extern const u32 devprobe_rand_sizes[DEVPROBE_NR_RAND];
extern const u32 devprobe_ow_sizes[DEVPROBE_NR_OW];

/* Requests of one size in one test: how many and their total time. */
struct devprobe_stat {
	u32 bytes;		/* request size */
	u64 count;
	double seconds;
};

/*
 * LSDM's affine model of one kind of write: t = alpha * n + beta, n the
 * number of 4 KiB pages of the request.
 */
struct devprobe_affine {
	bool ok;		/* at least two sizes measured */
	double alpha;		/* seconds per 4 KiB page */
	double beta;		/* seconds per request */
	unsigned int points;	/* request sizes fitted */
	double max_rel_err;	/* largest |model - mean| / mean over the sizes */
};

/* Test 5: unit sizes tried, 8 KiB to 64 MiB. */
#define DEVPROBE_NR_SCAN	14
/* Test 5: units written round-robin, 1 to this many. */
#define DEVPROBE_MAX_OPEN	16
/* Test 5: counted requests of each unit-size candidate (odd: a median). */
#define DEVPROBE_SCAN_N		9

/*
 * Test 5, the erase unit and what the device charges around it (the cost
 * model of a log-block FTL: ftlsim.md, Documentation/mover-pricing.md):
 *
 *   a. 8 KiB writes at random offsets that are 8 KiB past a multiple of
 *	16 KiB: inside any unit of 16 KiB or more, out of order: each pays
 *	a page pair and, once the device's open units are taken, the full
 *	merge F = P c + 2 e of the unit it evicts;
 *   b. for S = 8 KiB, 16 KiB, ... 64 MiB: 8 KiB writes across an odd
 *	multiple of S.  Where S is below the unit U (both powers of two), no
 *	odd multiple of S is a unit boundary and the write costs as in (a);
 *	from S = U on, each one opens two units and costs about one merge
 *	more.  U is the smallest S whose median extra, and the next one's,
 *	is over half of (a)'s median; none: "no unit effect" (a page-mapped
 *	FTL: ssd-c);
 *   c. with U known, whole units written in order, the first half in 4 KiB
 *	requests and the second in 8 KiB ones: between a unit's first and
 *	last request each costs beta_w + n alpha_w, the last one adds the
 *	switch merge e (each unit's means; the median over three units);
 *	alpha_w is test 1's sequential slope less e / P;
 *	(b)'s unit stands only if these 8 KiB writes in order cost less
 *	than half of (a)'s: else no unit (unconfirmed); a U below 8 pages,
 *	too small for (c), is no unit either (unconfirmed);
 *   d. k units written round-robin, one page of each in turn and in order
 *	within each, k = 1, 2, ...: cheap while the device keeps k units
 *	open, a merge per write beyond: N, the open units;
 *   e. 1 MiB random reads beside test 3's 4 KiB ones: beta_r and alpha_r.
 *
 * Unit boundaries are taken at multiples of U from the start of the
 * medium: the device itself when it is a whole disk, the disk when it is a
 * partition (its start, from sysfs, is the plan's shift; --medium-offset
 * gives it for anything else).  All the positions above are multiples on
 * the medium, so that a partition that does not start on a unit boundary
 * is measured as the disk is; the unit then starts @offset bytes into the
 * device (dev_model's unit_offset).
 */
struct devprobe_units {
	bool ran;
	struct devprobe_stat inside;		/* (a) */
	double inside_median;
	unsigned int nr_scan;			/* (b): candidates measured */
	u64 scan_bytes[DEVPROBE_NR_SCAN];
	struct devprobe_stat straddle[DEVPROBE_NR_SCAN];
	double straddle_median[DEVPROBE_NR_SCAN];
	u64 unit;				/* bytes; 0: no unit effect */
	u64 unconfirmed;			/* (b)'s unit when (c) found no merge */
	u64 offset;				/* where a unit starts on the device,
						 * modulo unit: (unit - shift % unit) % unit */
	struct devprobe_stat fill4, fill8, fill_last;	/* (c), all units */
	double fill_t4, fill_t8, fill_tlast;	/* (c), median over units of the means */
	unsigned int nr_open_tried;		/* (d) */
	struct devprobe_stat rr[DEVPROBE_MAX_OPEN];
	u32 open_units;				/* 0: unknown (more than tried) */
	struct devprobe_stat read_big;		/* (e) */
	/* filled by devprobe_units_fit(), in seconds */
	bool costs;				/* (c) ran: the write costs below */
	double w_req, w_page, copy, erase, full, r_req, r_page;
};

/* What the tests measured, and what follows from it alone. */
struct devprobe_result {
	struct devprobe_stat seq[DEVPROBE_NR_SEQ];
	struct devprobe_stat rand[DEVPROBE_NR_RAND];
	struct devprobe_stat read4k;
	struct devprobe_stat ow[DEVPROBE_NR_OW];
	struct devprobe_units units;
	u64 shift;		/* the plan's: where the device starts on the medium */
	double elapsed;		/* all requests, warm-ups included */
	/* filled by devprobe_summarize() */
	double sw;		/* sequential write bandwidth (1 MiB requests) */
	double rw4k;		/* 4 KiB random write bandwidth */
	double rr4k;		/* 4 KiB random read bandwidth */
	double ow_bw[DEVPROBE_NR_OW];	/* ordered-sequential, per size */
	double ow4k;		/* = ow_bw[0] */
	struct devprobe_affine fit_seq, fit_rand;
};

/* The ReSSD paper's condition (Eq. 5) and what Eqs. 2-4 add to it. */
struct devprobe_eq5 {
	bool valid;		/* all four bandwidths measured */
	double inv_sw, inv_rr, inv_ow, inv_rw;	/* seconds per byte */
	double lhs;		/* 1/SW + 1/RR4K + 1/OW4K */
	bool holds;		/* lhs < 1/RW4K */
	double worst_speedup;	/* T_SSD / T'_ReSSD: nothing rewritten in the log */
	double best_speedup;	/* SW / RW4K: everything rewritten in the log */
	/*
	 * The smallest share alpha of the logged data that must be rewritten
	 * while still in the reserved area for ReSSD to win (Eq. 3 with the
	 * bound OW_iKB >= OW_4KB): 0 when Eq. 5 holds, > 1 when never.
	 */
	double alpha_min;
};

enum devprobe_verdict {
	DEVPROBE_USE,		/* Eq. 5 holds: helps whatever the workload */
	DEVPROBE_LOCALITY,	/* helps only if enough small writes are rewritten */
	DEVPROBE_DONT,		/* would need most writes rewritten, or never helps */
	DEVPROBE_UNKNOWN,	/* something was not measured */
};

struct devprobe_reco {
	enum devprobe_verdict verdict;
	u32 small_write_max;	/* sectors */
	u32 mover_batch;	/* sectors */
	u64 working_set;	/* bytes the reserved share is taken of */
	double reserved_pct;	/* percent of working_set */
	u64 reserved;		/* bytes, a multiple of 1 MiB; 0 when not to use */
	u64 index_bytes;	/* memory of the remap index for @reserved */
	double n_break;		/* pages: largest random write logging pays for */
	double ow_knee;		/* bytes: smallest ordered write near the best */
};

/* ---- the math: pure functions, no I/O ---- */

/*
 * Weighted least squares of t = alpha * n + beta over @k points (@n, @t,
 * weights @w; @w NULL: all 1).  False (and @out->ok false) when fewer than
 * two distinct @n carry weight.
 */
bool devprobe_fit_affine(const double *n, const double *t, const double *w,
			 size_t k, struct devprobe_affine *out);
/*
 * Fit one test's sizes: each size's mean time is one point, weighted by
 * 1 / mean^2 so that the sum of squared *relative* errors is minimised (as
 * LSDM does); a size with no request is left out.
 */
void devprobe_fit_stats(const struct devprobe_stat *s, size_t k,
			struct devprobe_affine *out);
/* Bandwidths and fits of @r from its counts and times. */
void devprobe_summarize(struct devprobe_result *r);
/*
 * The costs of test 5 from its times (called by devprobe_summarize()), and
 * the dev_model they make: the unit, the open units, the costs in ns and
 * the measured 4 KiB random and ordered writes; all zero when test 5 did
 * not run.
 */
void devprobe_units_fit(struct devprobe_result *r);
void devprobe_devmodel(const struct devprobe_result *r, struct ressd_devmodel *m);
/* Eq. 5 of the ReSSD paper on four bandwidths (bytes per second). */
void devprobe_eq5(double sw, double rr4k, double ow4k, double rw4k,
		  struct devprobe_eq5 *out);
/*
 * The verdict and settings for @r (summarised) and @e; @working_set is what
 * the reserved share is taken of (the device size when the user gave
 * nothing).
 */
void devprobe_recommend(const struct devprobe_result *r,
			const struct devprobe_eq5 *e, u64 working_set,
			struct devprobe_reco *out);
const char *devprobe_verdict_name(enum devprobe_verdict v);

/* ---- the runner ---- */

/*
 * Time one request: a read or a write of @len bytes at byte @off.  Store
 * its duration in *@secs and return 0, or return -errno with a message in
 * @err.
 */
struct devprobe_backend {
	int (*io)(void *ctx, bool write, u64 off, u32 len, double *secs,
		  char *err, size_t errlen);
	void *ctx;
};

struct devprobe_plan {
	u64 base, len;		/* the byte range written and read */
	u64 shift;		/* where the device starts on the medium (bytes) */
	double seconds;		/* budget of each of the four tests */
	bool progress;		/* report on stderr */
	bool tty;		/* stderr is a terminal: refresh one line */
	u64 seed;
};

/* Run the five tests: 0, or -errno after an I/O error (message in @err). */
int devprobe_run(const struct devprobe_plan *p, const struct devprobe_backend *b,
		 struct devprobe_result *r, char *err, size_t errlen);

/* ---- the command ---- */

/* "ressdsetup probe ...": @argv[0] is "probe". */
int devprobe_main(int argc, char **argv);
extern const char devprobe_usage[];

#endif
