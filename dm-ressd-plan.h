/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device cost model dm-ressd's mover prices its work with
 * (Documentation/mover-pricing.md): the erase unit of a cheap flash device
 * and what its flash translation layer charges for writes, reads and
 * merges.  Pure: no locks, no allocation, no kernel objects, so that the
 * module, KUnit and user-space tools compile dm-ressd-plan.c unchanged.
 *
 * The model is the hybrid log-block FTL of dm-ftlsim (ftlsim.md): a write
 * request costs w_req_ns plus w_page_ns per 4 KiB page; an erase unit of P
 * pages written in order from its first page is a switch merge (erase_ns),
 * one written in order up to page L a partial merge ((P - L) copies and an
 * erase), and any other a full merge (P copies and two erases).  Without a
 * unit size (page-mapped devices, or no model at all) only the request and
 * page costs mean anything.
 */
#ifndef DM_RESSD_PLAN_H
#define DM_RESSD_PLAN_H

#include <linux/types.h>

/* Limits of a dev_model (checked by ressd_devmodel_check()). */
#define RESSD_DM_MIN_UNIT	16		/* sectors: 8 KiB */
#define RESSD_DM_MAX_UNIT	131072		/* sectors: 64 MiB */
#define RESSD_DM_MAX_OPEN	256
#define RESSD_DM_MAX_NS		1000000000	/* no single cost above 1 s */
#define RESSD_DM_FIELDS		11

/**
 * struct ressd_devmodel - what the device charges; all zero: no model
 * @unit_sectors: erase unit (logical block of the FTL) in sectors; 0: none
 * @unit_offset: where a unit starts on the origin device, modulo the unit,
 *	in sectors
 * @open_units: units the FTL keeps open for writes at once; 0: unknown
 * @w_req_ns: fixed cost of a write request
 * @w_page_ns: cost of writing one 4 KiB page
 * @copy_ns: cost of copying one page inside the device (merges)
 * @erase_ns: cost of erasing one unit
 * @r_req_ns: fixed cost of a read request
 * @r_page_ns: cost of reading one 4 KiB page
 * @rw4k_ns: measured 4 KiB random write; 0: derived from the above
 * @ow4k_ns: measured 4 KiB write to a logged page in order; 0: derived
 *
 * The table line and status give the fields in this order, separated by
 * colons (the dev_model key); "none" is the model of all zeros.
 */
struct ressd_devmodel {
	u32 unit_sectors;
	u32 unit_offset;
	u32 open_units;
	u32 w_req_ns;
	u32 w_page_ns;
	u32 copy_ns;
	u32 erase_ns;
	u32 r_req_ns;
	u32 r_page_ns;
	u32 rw4k_ns;
	u32 ow4k_ns;
};

/* Bytes the table form of any model takes, NUL included. */
#define RESSD_DM_STR_MAX	(RESSD_DM_FIELDS * 11)

/*
 * Parse the table form of a model: "none" (any case), or RESSD_DM_FIELDS
 * decimal numbers of at most 10 digits, each below 2^32, separated by
 * colons.  0, or -1 when @s is not that; the ranges are
 * ressd_devmodel_check()'s.
 */
int ressd_devmodel_parse(const char *s, struct ressd_devmodel *m);
/* The table form into @buf of @len (RESSD_DM_STR_MAX) bytes. */
void ressd_devmodel_format(const struct ressd_devmodel *m, char *buf, size_t len);
/* Is there a model at all? */
bool ressd_devmodel_set(const struct ressd_devmodel *m);
/* NULL when the values are consistent, else why not (a ti->error). */
const char *ressd_devmodel_check(const struct ressd_devmodel *m);
/* The model's fields as an array, in table order (for parsing and printing). */
void ressd_devmodel_to_array(const struct ressd_devmodel *m, u32 *v);
void ressd_devmodel_from_array(struct ressd_devmodel *m, const u32 *v);

/* Pages (4 KiB) per unit: P; 0 without a unit size. */
u32 ressd_cost_unit_pages(const struct ressd_devmodel *m);
/* One write request of @pages in order: w_req + pages * w_page. */
u64 ressd_cost_write(const struct ressd_devmodel *m, u32 pages);
/* One read request of @pages: r_req + pages * r_page. */
u64 ressd_cost_read(const struct ressd_devmodel *m, u32 pages);
/*
 * Merges of a unit: full (P * copy + 2 * erase), switch (erase) and
 * partial after @used pages in order ((P - used) * copy + erase).
 */
u64 ressd_cost_full_merge(const struct ressd_devmodel *m);
u64 ressd_cost_switch_merge(const struct ressd_devmodel *m);
u64 ressd_cost_partial_merge(const struct ressd_devmodel *m, u32 used);
/* A 4 KiB random write: rw4k, else one page and a full merge. */
u64 ressd_cost_rw4k(const struct ressd_devmodel *m);

/*
 * How the mover writes one erase unit home (Documentation/mover-pricing.md,
 * step e).  SPARSE writes the unit's logged blocks alone, in ascending runs:
 * the device later pays a full merge (a partial one when they are pages 0
 * to k - 1).  PREFIX and WHOLE fill the gaps from home and write pages 0 to
 * the last logged one, or all of them, in order: a partial or a switch
 * merge, for a read of the unit and a sequential write.
 */
enum ressd_unit_op {
	RESSD_UNIT_SPARSE,
	RESSD_UNIT_PREFIX,
	RESSD_UNIT_WHOLE,
};

/* Units of more pages than this (4 MiB) are never filled. */
#define RESSD_FILL_MAX_PAGES	1024
/*
 * Moves of the steps a round writes next read at once, at most (16 MiB of
 * pages; a drain's: RESSD_FILL_DRAIN_PAGES); no more than half the log's
 * slots either, unless a unit has more pages (ressd_round_fill_pages()).
 */
#define RESSD_FILL_READ_PAGES	4096
/*
 * A drain's read ahead, at most (64 MiB of pages, and no more than a 32nd
 * of the memory, RESSD_FILL_READ_PAGES at least): a drain takes every live
 * block home in one round, and each pass of the read ahead reads through
 * the whole log.
 */
#define RESSD_FILL_DRAIN_PAGES	16384
/* Pages per request (the block layer's BIO_MAX_VECS). */
#define RESSD_REQ_PAGES		256

/**
 * struct ressd_unit_shape - a unit's logged blocks, as the mover sees them
 * @dirty: blocks to write home (k)
 * @runs: runs of adjacent blocks among them
 * @first_off: page of the first one in the unit
 * @last_off: page of the last one in the unit
 * @inside: the whole unit lies in the normal area, so that it may be filled
 */
struct ressd_unit_shape {
	u32 dirty;
	u32 runs;
	u32 first_off;
	u32 last_off;
	bool inside;
};

/* One block the mover plans to move home (dm-ressd-mover.c). */
struct ressd_move {
	u64 block;	/* home block */
	u32 slot;	/* log slot holding it */
	bool skip;	/* changed since planned: not moved */
	bool superseded;	/* skipped: newer data is home, its write held */
	bool far;	/* outside the round's region: a dense unit's other block */
	bool copied;	/* a copy forward of this activation */
};

/**
 * struct ressd_step_geo - where the target's blocks sit on the device
 * @origin_offset: sectors: the normal area's start on the origin device
 * @origin_blocks: 4 KiB blocks in the normal area
 * @batch: moves a batch of sparse writes takes at most (>= 1)
 * @fill_ok: units may be filled (the mover has the pages for it)
 */
struct ressd_step_geo {
	u64 origin_offset;
	u64 origin_blocks;
	u32 batch;
	bool fill_ok;
};

/*
 * The erase unit of the target's block @b under model @m (with a unit
 * size): its number (counted from one unit below the device's start, so
 * that it is never negative) and, in *@lo, its first block, which is below
 * 0 when the unit begins before the normal area (pure).
 */
u64 ressd_unit_of(const struct ressd_devmodel *m, u64 origin_offset, u64 b, s64 *lo);

/**
 * struct ressd_step - one step of a mover round (ressd_plan_step())
 * @op: SPARSE: a batch of sparse writes; else one unit to fill
 * @n: moves the step takes, from where it starts
 * @lo: a fill's first block
 * @len: a fill's length in blocks
 * @sparse_units: units this step begins and writes sparse
 */
struct ressd_step {
	enum ressd_unit_op op;
	u32 n;
	s64 lo;
	u32 len;
	u32 sparse_units;
};

/*
 * The step of a round that starts at move @i of @mv[0..@n) (sorted by
 * block, each block once): sparse units join a batch until it holds
 * g->batch moves or a unit to fill comes, which is the next step's; a unit
 * to fill is a step of its own, all its moves; a unit with more moves than
 * a batch goes sparse in as many batches, and the step that ends it ends
 * there.  Without a unit size every step is a batch of sparse writes (pure).
 */
void ressd_plan_step(const struct ressd_devmodel *m, const struct ressd_step_geo *g,
		     const struct ressd_move *mv, u32 n, u32 i, struct ressd_step *st);

/* The modelled cost of writing @u home with @op (pure). */
u64 ressd_unit_cost(const struct ressd_devmodel *m, const struct ressd_unit_shape *u,
		    enum ressd_unit_op op);
/*
 * The cheapest way (SPARSE, then WHOLE, on a tie; SPARSE whenever filling is not allowed:
 * no unit size, a unit larger than RESSD_FILL_MAX_PAGES, or not @u->inside);
 * its cost in *@cost_ns when @cost_ns is not NULL (pure).
 */
enum ressd_unit_op ressd_unit_choose(const struct ressd_devmodel *m,
				     const struct ressd_unit_shape *u, u64 *cost_ns);

/* A move's log slot, and where the move is (reads in slot order). */
struct ressd_slot_ref {
	u32 slot;
	u32 idx;
};

/*
 * The next log read from @ref[@i] of @ref[0..@n) (sorted by slot): the
 * moves whose slots follow the one before with at most @gap slots between
 * them (read through, into a page thrown away: cheaper than a request of
 * its own when the gap is below r_req / r_page), covering at most @max
 * slots.  Returns the moves it takes, at least one; *@slots the slots it
 * covers (pure).
 */
u32 ressd_read_run(const struct ressd_slot_ref *ref, u32 n, u32 i, u32 gap, u32 max,
		   u32 *slots);
/* The widest gap worth reading through under model @m: 0 without one (pure). */
u32 ressd_read_gap(const struct ressd_devmodel *m);

/**
 * struct ressd_unit_tally - an erase unit a density round touches
 * @first: its first move among the region's (sorted by block)
 * @nr: its moves in the region
 * @dirty: its blocks logged anywhere in the log (k)
 * @home: written home with all @dirty blocks; else its @nr are copied forward
 */
struct ressd_unit_tally {
	u32 first;
	u32 nr;
	u32 dirty;
	bool home;
};

/*
 * Density-first cleaning (Documentation/mover-pricing.md, step c): the
 * region's blocks of a unit are copied forward, and wait in the log for
 * more of the unit's blocks, as long as the round may copy them (@max_fwd:
 * the round must free room, and copies take it); the densest units go home
 * first, with all their logged blocks.  d is the largest threshold whose
 * copies (the moves of units with fewer than d logged blocks) fit within
 * @max_fwd: every unit with at least d goes home.  A unit's trip home
 * costs about the same whatever it carries (a merge, or a whole-unit
 * write), a copy one log block: so as few units as the room allows go home,
 * each as full as it can be.  Sets each @home and *@d; returns the moves
 * copied forward (pure).
 */
u32 ressd_density_decide(struct ressd_unit_tally *t, u32 nt, u32 max_fwd, u32 *d);

/*
 * The online choice between logging small writes and passing them through
 * (log_mode auto; Documentation/mover-pricing.md, step g).  A ghost log
 * tells which small writes a FIFO log of @window slots would have absorbed
 * (their block written again before the mover took the older copy): one
 * word per slot, the block's 8-bit tag and the small-write clock (24 bits)
 * at its last write, hashed by block.  Only one block in RESSD_GHOST_SAMPLE
 * (by a hash of the block) is kept, so that a window's sampled blocks fill
 * a sixteenth of the words: two blocks in one word evict each other and
 * hide hits (with every block kept that hid 4 in 10 of them; with one in 8,
 * about 1 in 6).  A collision with another block of the same tag counts a
 * hit that is not one: rare.
 */
struct ressd_ghost {
	u32 *tab;
	u32 size;	/* words in @tab, at least 1 */
	u32 window;	/* below 2^24 */
	u32 clock;
};

#define RESSD_GHOST_WINDOW_MAX	((1U << 24) - 1)
#define RESSD_GHOST_SAMPLE	16

/*
 * Note a small write of @block: 1 when the ghost log absorbs it, 0 when not,
 * -1 when the block is not one of the sample (pure).
 */
int ressd_ghost_note(struct ressd_ghost *g, u64 block);
/*
 * Should small writes pass through (true) or be logged, with @alpha_pm per
 * mille of them absorbed in the log and @pass the current choice?  Eq. 3 of
 * the ReSSD paper with the model's costs: a logged block costs a log write
 * (a page of a 16-page chunk), and unless absorbed a log read and a write
 * home (ow4k, else a page); passed through, rw4k.  Logging is kept within
 * 5 % either way (hysteresis).  A device with an erase unit always logs:
 * its merges make the home write the cheaper part, priced by the mover;
 * without a model, always log (pure).
 */
bool ressd_log_pass(const struct ressd_devmodel *m, u32 alpha_pm, bool pass);

#endif /* DM_RESSD_PLAN_H */
