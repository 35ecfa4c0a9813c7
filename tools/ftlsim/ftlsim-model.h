/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The cost model of dm-ftlsim, an emulated low-end SSD: the interface of
 * ftlsim-model.c.
 *
 * The model turns a stream of requests (operation, sector range, arrival
 * time) into service times, the way a cheap flash translation layer would
 * spend them.  It knows nothing about bios, locks or time sources: the
 * caller serialises the calls (dm-ftlsim.c holds one spinlock around them)
 * and passes arrival times in nanoseconds of its own clock.  Every function
 * here is deterministic: the same request stream gives the same times and
 * counters.  Only ftlsim_model_init() allocates (and may sleep); no other
 * function allocates, sleeps or fails.
 *
 * Two flash translation layers are modelled (ftlsim-model.c states their
 * cost rules, README.md their parameters):
 *
 *   FTLSIM_FTL_LOG_BLOCK	hybrid log-block FTL (BAST-like): U-byte logical
 *				blocks, up to N open log blocks, switch, partial
 *				and full merges.  Presets ssd-a, ssd-b, sd-card,
 *				sd-worst.
 *   FTLSIM_FTL_PAGE_MAP	page-mapped FTL with greedy garbage collection
 *				over erase blocks and a spare area.  Preset ssd-c.
 *
 * The unit of mapping is a 4 KiB page; a request that is not aligned to
 * 4 KiB is charged for every page it touches.
 */
#ifndef DM_FTLSIM_MODEL_H
#define DM_FTLSIM_MODEL_H

#include <linux/bits.h>
#include <linux/types.h>

#define FTLSIM_PAGE_SIZE	4096
#define FTLSIM_PAGE_SECTORS	8
#define FTLSIM_PAGE_SHIFT	3	/* sectors to pages */

/* Limits of the tunables (checked by ftlsim_param_set()). */
#define FTLSIM_MIN_UNIT_KIB	8
#define FTLSIM_MAX_UNIT_KIB	65536
#define FTLSIM_MAX_OPEN_LOGS	256
#define FTLSIM_MAX_SPARE_PCT	100
#define FTLSIM_MAX_TIME_US	1000000

/**
 * enum ftlsim_ftl - the kind of flash translation layer modelled
 * @FTLSIM_FTL_LOG_BLOCK: hybrid log-block FTL
 * @FTLSIM_FTL_PAGE_MAP: page-mapped FTL with greedy garbage collection
 */
enum ftlsim_ftl {
	FTLSIM_FTL_LOG_BLOCK,
	FTLSIM_FTL_PAGE_MAP,
};

/**
 * enum ftlsim_op - the kind of a request
 * @FTLSIM_OP_READ: read the sector range
 * @FTLSIM_OP_WRITE: write the sector range
 * @FTLSIM_OP_DISCARD: discard (trim) the sector range
 * @FTLSIM_OP_FLUSH: an empty cache flush (no data)
 * @FTLSIM_OP_OTHER: anything else: passed through, costs nothing
 */
enum ftlsim_op {
	FTLSIM_OP_READ,
	FTLSIM_OP_WRITE,
	FTLSIM_OP_DISCARD,
	FTLSIM_OP_FLUSH,
	FTLSIM_OP_OTHER,
};

/**
 * struct ftlsim_params - every parameter of the model
 * @ftl: which FTL; fixed by the preset
 * @unit_kib: logical block size U (log-block) or erase block size
 *	(page-mapped), in KiB: a multiple of 4
 * @open_logs: N, the number of log blocks open at once (log-block only)
 * @spare_pct: spare area in percent of the logical capacity (page-mapped)
 * @write_base_ns: beta_w, fixed cost of a write request
 * @write_ns: alpha_w, cost of programming one page
 * @copy_ns: c, cost of copying one page during a merge or garbage collection
 * @erase_ns: e, cost of erasing one block
 * @read_base_ns: beta_r, fixed cost of a read request
 * @read_ns: alpha_r, cost of reading one page
 * @flush_ns: cost of a flush, or of the FUA or preflush part of a write
 * @discard_invalidate: discards drop data from the model (else no-op)
 *
 * Times are kept in nanoseconds; the table line gives them in microseconds
 * with up to three decimals.
 */
struct ftlsim_params {
	enum ftlsim_ftl ftl;
	u32 unit_kib;
	u32 open_logs;
	u32 spare_pct;
	u32 write_base_ns;
	u32 write_ns;
	u32 copy_ns;
	u32 erase_ns;
	u32 read_base_ns;
	u32 read_ns;
	u32 flush_ns;
	bool discard_invalidate;
};

/**
 * struct ftlsim_preset - a named parameter set
 * @name: the name used on the table line
 * @like: the device it imitates (for documentation)
 * @params: the parameters
 */
struct ftlsim_preset {
	const char *name;
	const char *like;
	struct ftlsim_params params;
};

/**
 * struct ftlsim_stats - counters of one model; reset by a message
 * @busy_ns: modelled time the device spent serving requests
 * @wait_ns: time requests waited for the device (start - arrival)
 * @reads: read requests
 * @writes: write requests (with data)
 * @flushes: requests with a flush, preflush or FUA
 * @discards: discard requests
 * @read_bytes: bytes read
 * @write_bytes: bytes written
 * @discard_bytes: bytes discarded
 * @host_pages: pages programmed on behalf of the host (pages touched)
 * @switch_merges: switch merges (log-block)
 * @partial_merges: partial merges (log-block)
 * @full_merges: full merges (log-block)
 * @gc_runs: garbage collections that copied a victim block (page-mapped)
 * @erases: blocks erased, by merges, garbage collection or in the background
 * @copied_pages: pages copied by merges or garbage collection
 */
struct ftlsim_stats {
	u64 busy_ns;
	u64 wait_ns;
	u64 reads;
	u64 writes;
	u64 flushes;
	u64 discards;
	u64 read_bytes;
	u64 write_bytes;
	u64 discard_bytes;
	u64 host_pages;
	u64 switch_merges;
	u64 partial_merges;
	u64 full_merges;
	u64 gc_runs;
	u64 erases;
	u64 copied_pages;
};

/**
 * struct ftlsim_log - one open log block of the log-block FTL
 * @lbn: the logical block it is bound to
 * @stamp: recency for the LRU order: the log with the smallest stamp is
 *	evicted first
 * @used: pages written to it
 * @in_order: page k of the logical block sits in slot k, for every slot
 */
struct ftlsim_log {
	u64 lbn;
	u64 stamp;
	u32 used;
	bool in_order;
};

/**
 * struct ftlsim_model - the state of one emulated device
 * @p: its parameters
 * @nr_pages: logical capacity in 4 KiB pages
 * @ppb: pages per logical block (log-block) or per erase block (page-mapped)
 * @device_free: time at which the device finishes its last command
 * @stats: the counters
 * @logs: log-block: the open logs, @nr_open of them at the front
 * @nr_open: log-block: number of open logs
 * @lru_clock: log-block: source of &ftlsim_log.stamp
 * @nr_blocks: page-mapped: physical erase blocks
 * @l2p: page-mapped: logical to physical page, FTLSIM_NONE if unmapped
 * @p2l: page-mapped: physical to logical page, FTLSIM_NONE if invalid
 * @valid: page-mapped: valid pages in each block
 * @prev: page-mapped: previous block in the same @bucket list
 * @next: page-mapped: next block in the same @bucket list
 * @bucket: page-mapped: closed blocks listed by their number of valid pages
 *	(@ppb + 1 list heads), for the greedy choice of a victim
 * @free: page-mapped: stack of erased blocks, @nr_free of them
 * @nr_free: page-mapped: number of erased blocks
 * @frontier: page-mapped: the blocks being written, one for host writes
 *	(FTLSIM_HOST) and one for the copies of garbage collection (FTLSIM_GC)
 * @wp: page-mapped: next page to write in each @frontier
 *
 * The caller serialises every access (dm-ftlsim: &ftlsim_c.lock).
 */
struct ftlsim_model {
	struct ftlsim_params p;
	u64 nr_pages;
	u32 ppb;
	u64 device_free;
	struct ftlsim_stats stats;

	struct ftlsim_log *logs;
	u32 nr_open;
	u64 lru_clock;

	u32 nr_blocks;
	u32 *l2p;
	u32 *p2l;
	u32 *valid;
	u32 *prev;
	u32 *next;
	u32 *bucket;
	u32 *free;
	u32 nr_free;
	u32 frontier[2];
	u32 wp[2];
};

#define FTLSIM_NONE	U32_MAX

/* Page-mapped FTL: the two frontiers, erased blocks kept, spare minimum. */
#define FTLSIM_HOST		0
#define FTLSIM_GC		1
#define FTLSIM_PMAP_RESERVE	2
#define FTLSIM_PMAP_MIN_SPARE	4

/* Request flags for ftlsim_model_submit(). */
#define FTLSIM_REQ_FLUSH	BIT(0)	/* preflush or FUA: charge flush_ns */

/* ---- parameters and presets (pure, no allocation) ---- */

/**
 * ftlsim_preset_find() - look up a preset by name
 * @name: e.g. "ssd-a"; case-insensitive
 *
 * Return: the preset, or NULL when there is none of that name.
 */
const struct ftlsim_preset *ftlsim_preset_find(const char *name);

/**
 * ftlsim_preset_get() - the presets in table order
 * @i: index from 0
 *
 * Return: the @i-th preset, or NULL past the last one.
 */
const struct ftlsim_preset *ftlsim_preset_get(unsigned int i);

/**
 * ftlsim_param_count() - number of optional model parameters
 *
 * Return: the number of keys ftlsim_param_set() knows.
 */
unsigned int ftlsim_param_count(void);

/**
 * ftlsim_param_name() - the key of a model parameter
 * @i: index below ftlsim_param_count()
 *
 * Return: the key, e.g. "erase_us".
 */
const char *ftlsim_param_name(unsigned int i);

/**
 * ftlsim_param_set() - set one model parameter from a table-line key/value
 * @p: the parameters (already holding a preset)
 * @key: the key, case-insensitive
 * @value: the value as written on the table line
 * @error: set to a short message when the value is refused
 *
 * Return: the index of the key (>= 0) on success; -ENOENT for an unknown
 * key (@error is set too); -EINVAL for a bad value or a key that does not
 * apply to this FTL.  @p is not changed on failure.
 */
int ftlsim_param_set(struct ftlsim_params *p, const char *key,
		     const char *value, const char **error);

/**
 * ftlsim_param_format() - the value of a parameter as the table line says it
 * @p: the parameters
 * @i: index below ftlsim_param_count()
 * @buf: output buffer
 * @len: its size
 *
 * Return: true when the parameter applies to @p's FTL (and @buf holds it).
 */
bool ftlsim_param_format(const struct ftlsim_params *p, unsigned int i,
			 char *buf, size_t len);

/**
 * ftlsim_params_check() - can a model with these parameters be built
 * @p: the parameters
 * @nr_sectors: the size of the emulated device in 512-byte sectors
 *
 * Return: NULL, or a short message saying what is wrong.
 */
const char *ftlsim_params_check(const struct ftlsim_params *p, u64 nr_sectors);

/* ---- the model ---- */

/**
 * ftlsim_model_init() - allocate and reset a model; may sleep
 * @m: the model (its memory is zeroed here)
 * @p: checked parameters (ftlsim_params_check())
 * @nr_sectors: the size of the emulated device in 512-byte sectors
 *
 * Return: 0 or -ENOMEM.
 */
int ftlsim_model_init(struct ftlsim_model *m, const struct ftlsim_params *p,
		      u64 nr_sectors);

/**
 * ftlsim_model_exit() - free what ftlsim_model_init() allocated
 * @m: the model; may be zeroed or partly initialised
 */
void ftlsim_model_exit(struct ftlsim_model *m);

/**
 * ftlsim_model_reset_state() - forget all written data: a fresh device
 * @m: the model
 *
 * Open logs are dropped without merging, the page map becomes empty.  The
 * counters and the device clock stay.  Runs in O(device size).
 */
void ftlsim_model_reset_state(struct ftlsim_model *m);

/**
 * ftlsim_model_reset_stats() - zero the counters
 * @m: the model
 */
void ftlsim_model_reset_stats(struct ftlsim_model *m);

/**
 * ftlsim_model_submit() - account one request
 * @m: the model
 * @op: the kind of request
 * @sector: its first sector, relative to the start of the device
 * @nr_sectors: its length in sectors
 * @flags: FTLSIM_REQ_* flags
 * @arrival: when it reaches the device, in ns of the caller's clock
 *
 * The device serves one command at a time: the request starts at
 * max(@arrival, device free) and keeps the device busy for its service
 * time.  Never sleeps, never allocates.
 *
 * Return: the time at which the request completes.
 */
u64 ftlsim_model_submit(struct ftlsim_model *m, enum ftlsim_op op, u64 sector,
			u64 nr_sectors, unsigned int flags, u64 arrival);

/**
 * ftlsim_wa_milli() - write amplification in thousandths
 * @s: the counters
 *
 * Return: 1000 * (host pages + copied pages) / host pages, rounded; 0 when
 * nothing was written.
 */
u64 ftlsim_wa_milli(const struct ftlsim_stats *s);

#endif /* DM_FTLSIM_MODEL_H */
