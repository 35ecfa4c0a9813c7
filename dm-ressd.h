/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal interfaces of the dm-ressd target.
 *
 * First the target's state, one struct per subsystem (each written only by
 * its own file).  Then one section per source file, in the order of Kbuild:
 * dm-ressd.c (the target), -log.c (the log writer), -mover.c, -meta.c
 * (superblocks, recovery); the pure codec and replay (-format.c) and the
 * index (-rbtree.c) have headers of their own, dm-ressd-codec.h and
 * dm-ressd-index.h, which know nothing of bios or of the target, so that
 * user space (the fuzzers) compiles them unchanged.  Calls go one way, down
 * that list (scripts/graph.py checks it); the one call back is
 * ressd_set_mode().  Functions whose names start with "__" expect the caller
 * to hold the lock named in their comment, and assert it with
 * lockdep_assert_held(); each prototype says whether it may sleep.
 *
 * The invariants the code cites, as Documentation/dm-ressd-design.rst
 * keeps them:
 *   I1  durability: a write completed before a completed flush, or with
 *       FUA, survives a power cut (its data or a later write's);
 *   I2  no stale resurrection: after recovery a block never reads older
 *       data than its newest durable write;
 *   I3  no foreign data: a read of X never returns another block's data,
 *       metadata, or a reused slot's old content;
 *   I4  slot reuse: a slot is reused only once its data is home and
 *       durable and the metadata that frees it is durable;
 *   I5  ordering: I/O overlapping a block in flight to the log or being
 *       moved waits or supersedes; the mover never writes home data older
 *       than what is home;
 *   I6  repeatable recovery: a crash during recovery recovers the same;
 *   I7  self-validating metadata: magic, version, location, sequence and a
 *       nonce-seeded crc32c, every value bounds-checked;
 *   I8  bad input: a bad table, geometry or device error gives a clear
 *       error or a latched mode, never a hang, an oops or silent loss.
 */
#ifndef DM_RESSD_H
#define DM_RESSD_H

#include <linux/types.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/wait.h>
#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <linux/device-mapper.h>

#include "compat.h"
#include "dm-ressd-codec.h"
#include "dm-ressd-index.h"

struct ressd_c;

enum ressd_mode {
	RESSD_MODE_RW,		/* normal operation */
	RESSD_MODE_RO,		/* metadata may no longer change */
	RESSD_MODE_FAIL,	/* all I/O fails */
};

/* ---- the target's state, one struct per subsystem ---- */

/*
 * A log record being filled, sealed or written.  The data of its entries is
 * not copied: the upper bios are held until their data is in the log.  While
 * the record is open, the data of a burst is written as a "chunk" (data
 * blocks only) when the burst ends, and those writes are then complete; the
 * trailer that commits them follows when the record is sealed (flush, FUA,
 * full, end of the log), in one write with any data still pending.
 * Protected by ressd_c->lock until it is sealed; afterwards only the worker
 * and the completions touch it.
 */
struct ressd_record {
	struct list_head list;		/* free or sealed list */
	struct ressd_c *rc;
	u32 start;			/* first data slot */
	u32 slot;			/* trailer slot, set when sealed */
	u32 cap;			/* data slots it may still take in all */
	u32 nr_data;
	u32 nr_inval;
	u32 nr_sub;			/* entries whose data was written in chunks */
	u32 chunk_first;		/* the chunk in flight: entries [first, nr_sub) */
	u64 seq;
	u64 inval_gen;			/* rc->log.inval_gen of its newest invalidation */
	blk_opf_t flags;		/* REQ_PREFLUSH | REQ_FUA when it must be durable */
	bool padding;			/* fills the end of the log: dead entries, no data */
	struct bio_list bios;		/* held writes not yet submitted, in slot order */
	struct bio_list chunk;		/* held writes of the chunk in flight */
	struct bio_list waiters;	/* held bios completed once it is written */
	struct page *trailer;		/* its trailer block */
	atomic_t remaining;		/* its log bios in flight */
	blk_status_t status;
	/* entries superseded by a completed home write: never indexed */
	DECLARE_BITMAP(killed, RESSD_REC_MAX_ITEMS);
	/*
	 * killed entries of the record that also carries their invalidation:
	 * dead on disk (replay applies a record's invalidations first)
	 */
	DECLARE_BITMAP(dead, RESSD_REC_MAX_ITEMS);
	/*
	 * entries written in chunks without crc32c (data_csum 0): ordered on
	 * disk, and the trailer goes out with PREFLUSH
	 */
	DECLARE_BITMAP(ordered, RESSD_REC_MAX_ITEMS);
	/* entries from the front, invalidation ranges from the back */
	struct ressd_disk_entry items[RESSD_REC_MAX_ITEMS];
};

#define RESSD_NR_RECORDS	4	/* open, sealed ones, in flight */

/* What a bio is to the target; kept in its per-bio data. */
enum ressd_io_kind {
	RESSD_IO_HOME = 0,	/* sent home; a FUA write may wait for the log */
	RESSD_IO_LOG_READ,	/* read from the log: holds a readers-phase reference */
	RESSD_IO_INVAL,		/* home write or discard over logged blocks */
	RESSD_IO_FLUSH,		/* empty flush sent to the origin */
	RESSD_IO_LOGGED,	/* small write held in a record */
	RESSD_IO_LOG_DIRECT,	/* small write remapped to its log slots */
};

/*
 * A home write or discard over logged blocks, from map() until the log has
 * recorded its invalidation (dm-ressd-log.c keeps them; rc->lock).
 */
struct ressd_inval {
	struct list_head list;	/* on rc->log.pending */
	u64 block;		/* first block covered */
	u64 nr;			/* blocks covered */
	bool held;		/* complete at home, waiting for room in a record */
};

struct ressd_io {
	struct ressd_inval inv;	/* an INVAL write */
	u64 gen;		/* a FLUSH: the invalidations it covers */
	u8 kind;		/* enum ressd_io_kind */
	u8 phase;		/* a LOG_READ's readers phase; a write */
				/*   home's home phase (home_write) */
	bool home_write;	/* a write or discard sent home, counted by the mover */
	bool held;		/* completion held once already (DM_ENDIO_INCOMPLETE), */
				/*   or a flush the log completes, never remapped */
};

/*
 * The classifier's memory: where the most recent write streams ended, most
 * recent first (bcache's sequential detection, in small).
 */
#define RESSD_STREAMS		8
/* A stream this long (two 4 KiB blocks) is sequential from its next write on. */
#define RESSD_STREAM_MIN_SECTORS	16
struct ressd_classifier {
	sector_t end[RESSD_STREAMS];	/* end sector of each stream, MRU first */
	unsigned int len[RESSD_STREAMS];	/* its sectors so far (saturating) */
	unsigned int nr;		/* streams remembered */
};

bool ressd_classify(struct ressd_classifier *cls, sector_t start,
		    unsigned int sectors, unsigned int small_write_max);

u32 ressd_mover_next_run(const struct ressd_move *mv, u32 n, u32 i,
			 u32 max_blocks, bool by_slot, u32 *first);

/*
 * Two phases of users, as SRCU has, in small: a user takes a reference on
 * the current phase and drops it when done; a waiter flips the phase and
 * waits until the old one has no users left, so that every user that began
 * before the flip has finished.  Get and flip under the owner's lock; put
 * in any context.
 */
struct ressd_phase {
	u8 cur;				/* under the owner's lock */
	atomic_t users[2];
};

static inline u8 ressd_phase_get(struct ressd_phase *p)
{
	atomic_inc(&p->users[p->cur]);
	return p->cur;
}

static inline void ressd_phase_put(struct ressd_phase *p, u8 phase,
				   wait_queue_head_t *wq)
{
	/*
	 * Most puts find nobody waiting: wq_has_sleeper() (its barrier pairs
	 * with the one in the waiter's prepare_to_wait()) spares them the
	 * wait queue's lock.
	 */
	if (atomic_dec_and_test(&p->users[phase]) && wq_has_sleeper(wq))
		wake_up_all(wq);
}

/* Flip; returns the old phase, to wait for with ressd_phase_idle(). */
static inline u8 ressd_phase_flip(struct ressd_phase *p)
{
	p->cur ^= 1;
	return p->cur ^ 1;
}

static inline bool ressd_phase_idle(struct ressd_phase *p, u8 phase)
{
	return !atomic_read(&p->users[phase]);
}

/*
 * The log writer's state (dm-ressd-log.c).  Only dm-ressd-log.c writes it,
 * under rc->lock (the readers' phase: under rc->index.lock); the other
 * files read it through the functions of its section, and recovery and the
 * mover move it through ressd_log_start() and ressd_log_release().
 */
struct ressd_log {
	u32 head;			/* next slot to hand out */
	u64 next_seq;			/* seq of the next record opened */
	u64 epoch;			/* records written now carry it */
	u32 tail_slot;			/* oldest live record: its first slot */
	u64 tail_seq;			/*   and its seq */
	u64 tail_epoch;			/*   and the chain's epoch there */
	u64 epoch_first_seq;		/* records from this seq on carry epoch */
	u32 used;			/* slots from the tail to head, and the */
					/*   open record's trailer (lockless */
					/*   readers: READ_ONCE) */
	u32 pend_start;			/* first slot of the oldest unwritten record */
	u32 pend_slots;			/* slots from pend_start on, as in used */
	u32 wake_used;			/* wake mover_wait when used reaches it */
	u32 kept;			/* slots small writes leave to the */
					/*   mover's copies forward */
	bool dirty;			/* log written since the last log flush */
	bool broken;			/* a log write or flush failed: recovery */
					/*   stops there, so no later one may be */
					/*   acknowledged (latched) */
	u64 inval_gen;			/* invalidations recorded so far */
	u64 origin_flushed_gen;		/* home writes of those up to here are durable */
	u64 inval_written_gen;		/* newest in a record written to the log */
	u64 inval_durable_gen;		/* those up to here are durable in the log */
	bool write_pending;		/* write the open record's data when idle */
	bool flushing;			/* the worker is flushing the log device */
	/*
	 * Both superblock copies carry the ordered-entries feature: chunks may
	 * be written without crc32c (data_csum 0; dm-ressd-meta.c sets it)
	 */
	bool ordered_ok;
	/*
	 * A bit per slot, set for the trailer of each written record between
	 * the tail and head (recovery sets those it replays): the mover reads
	 * a record's trailer at once instead of looking for it.  Changed under
	 * rc->lock; the mover reads its region's bits without it.
	 */
	unsigned long *trailers;
	/*
	 * The slots between the tail and head that hold the mover's copies
	 * forward of this activation: a round whose segment holds many of
	 * them copies less (ressd_round_decide()).  Changed under rc->lock;
	 * the mover reads its region's bits without it.
	 */
	unsigned long *copied;
	struct hrtimer seal_timer;	/* commit delay of an idle log */
	struct ressd_record *open;	/* the record being filled, or NULL */
	struct ressd_record *inflight;	/* record or chunk being written, or NULL */
	struct list_head sealed;	/* sealed records waiting to be written */
	struct list_head free_recs;	/* unused record buffers */
	struct bio_list flush_waiters;	/* held until the log is durable */
	struct list_head pending;	/* struct ressd_inval: home writes over */
					/*   logged blocks, not yet recorded */
	u32 nr_held;			/*   of which complete, waiting for room */
	struct ressd_phase readers;	/* reads of log slots in flight (cur: */
					/*   under rc->index.lock) */
	wait_queue_head_t mover_wait;	/* the mover sleeps here (used >= wake_used) */
};

/* Superblocks (dm-ressd-meta.c). */
struct ressd_meta {
	struct mutex lock;		/* serialises superblock writes */
	struct ressd_sb_info sb;	/* under lock */
	/*
	 * Under lock, set by each load: why the copy that did not win may have
	 * been newer than the winner (it is invalid, or not the generation just
	 * before), or NULL.  Recovery then looks through the whole log for a
	 * record only a newer superblock lets exist.
	 */
	const char *doubt;
	int doubt_copy;
};

/* The mover (dm-ressd-mover.c); the thread sleeps on rc->log.mover_wait. */
struct ressd_mover {
	struct task_struct *task;	/* the thread, while the target runs */
	bool paused;			/* under rc->lock: "mover pause" */
	u32 draining;			/* under rc->lock: "drain" messages */
					/*   waiting (each its own) */
	u64 busy_lo, busy_hi;		/* under rc->lock: batch in flight, */
					/*   blocks [lo, hi) */
	bool fill;			/* under rc->lock: a unit fill; every */
					/*   home write to [lo, hi) waits */
	struct ressd_phase home;	/* writes home in flight (I5); rc->lock */
	u32 density_d;			/* no lock: the last density round's */
					/*   threshold, 0 after a FIFO round */
					/*   (WRITE_ONCE here, READ_ONCE by */
					/*   status) */
};

/*
 * The target.  Fields set by the constructor and never changed afterwards
 * need no lock; the others name theirs.  Each subsystem's state is its own
 * struct, written only by its file; the fields of struct ressd_c itself are
 * dm-ressd.c's, and mode, suspending and recovered are read by all under
 * rc->lock (mode also with READ_ONCE without it: reads, flushes, drain).
 */
struct ressd_c {
	struct dm_target *ti;
	struct dm_dev *origin;
	struct dm_dev *log_dev;
	struct ressd_geometry geo;
	struct ressd_log_geo lg;	/* set once the superblock is loaded */
	struct list_head claim;		/* on the list of live targets' ranges */

	spinlock_t lock;		/* protects tunables, mode and the */
					/*   subsystems' state that says so */
	struct ressd_tunables tunables;
	enum ressd_mode mode;
	bool suspending;		/* between presuspend and resume */
	bool recovered;			/* replay done (first preresume) */

	struct ressd_index index;	/* its own lock, nested in rc->lock or alone */
	struct ressd_log log;
	struct ressd_meta meta;
	struct ressd_mover mover;

	/* The I/O path (dm-ressd.c), under rc->lock. */
	struct bio_list deferred;	/* bios map() could not handle yet */
	struct bio_list inval_retry;	/* INVAL writes waiting for record room */
	struct ressd_classifier cls;	/* recent write streams */
	struct ressd_plug *plug;	/* end-of-burst callbacks' handle */
	/* log_mode auto: the ghost log and the choice it leads to */
	struct ressd_ghost ghost;
	u32 ghost_writes, ghost_hits;	/* this window's sampled blocks, absorbed */
	u32 alpha_pm;			/* absorbed per mille, last window */
	bool log_pass;			/* small writes pass through now */

	/* Execution context shared by the subsystems (see ressd_kick()). */
	struct workqueue_struct *wq;	/* the worker: records, flushes, retries */
	struct work_struct worker;
	struct work_struct event_work;	/* dm_table_event() outside interrupts */
	struct bio_set bs;		/* record and mover bios */
	wait_queue_head_t wait;		/* record written, space freed, log */
					/*   readers or writes home gone, mode */
					/*   or mover state changed */

	/* Statistics for "dmsetup status"; atomic, no lock. */
	atomic64_t redirected_writes;
	atomic64_t direct_writes;
	atomic64_t split_reads;
	atomic64_t moved_blocks;
	atomic64_t mover_writes;
	atomic64_t mover_yields;		/* pauses for foreground I/O */
	atomic64_t metadata_commits;
	atomic64_t full_writes;		/* small writes sent home: log full */
	atomic64_t deferred_bios;	/* bios map() handed to the worker */
	atomic64_t user_write_bytes;	/* data the target's users wrote */
	atomic64_t dev_write_bytes;	/* data the target wrote to its devices */
	atomic64_t fill_read_bytes;	/* read home to fill erase units */
	atomic64_t units_sparse;	/* units priced and written sparse */
	atomic64_t units_prefix;	/* units filled up to their last block */
	atomic64_t units_whole;		/* units filled and written whole */
	atomic64_t copy_forwards;	/* blocks copied forward (density) */
	atomic64_t far_moves;		/* blocks of dense units moved from */
					/*   beyond the round's region */
	atomic64_t far_dropped;		/* of which unmapped at once */
	atomic64_t passed_writes;	/* small writes sent home by log_mode */
	atomic64_t inline_log_writes;	/* small writes map() wrote to the log itself */
	atomic64_t submitter_log_writes; /* chunks and records the submitter wrote */
	atomic64_t worker_log_writes;	/* chunks and records the worker wrote */
};

/* Run the target's worker (any context). */
static inline void ressd_kick(struct ressd_c *rc)
{
	queue_work(rc->wq, &rc->worker);
}

/* Complete every bio of @list, with @status unless it is 0 (any context). */
static inline void ressd_bio_list_endio(struct bio_list *list, blk_status_t status)
{
	struct bio *bio;

	while ((bio = bio_list_pop(list))) {
		if (status)
			bio->bi_status = status;
		bio_endio(bio);
	}
}

/* ---- functions in dm-ressd.c ---- */

/* The two longest ti->error messages, shared with the KUnit suites. */
#define RESSD_E_SMALL_WRITE_MAX \
	"small_write_max must be a multiple of 8 sectors below 4 MiB"
#define RESSD_E_MOVER_BATCH \
	"mover_batch must be a multiple of 8 sectors from 16 to 8192"
#define RESSD_E_DENSITY \
	"mover_policy density needs a dev_model with a unit size"
#define RESSD_E_LOG_AUTO \
	"log_mode auto needs a dev_model"

/*
 * Parse one tunable "key value" into @t, checking its range against the
 * other tunables.  Returns 0, or -EINVAL with a ti->error style message in
 * *@error.  Pure.
 */
int ressd_parse_tunable(struct ressd_tunables *t, const char *key,
			const char *value, const char **error);
/* Defaults of all tunables (pure). */
void ressd_default_tunables(struct ressd_tunables *t);
/* Check a geometry; returns NULL when valid, else the ti->error message (pure). */
const char *ressd_check_geometry(const struct ressd_geometry *g);
/* Parse a sector count or offset; 0 or -EINVAL (pure). */
int ressd_parse_sector(const char *s, sector_t *out);

/*
 * Latch a mode (rw -> ro -> fail, never back) and raise a table event.
 * Any context; takes rc->lock.  The one call other files make into this
 * one.
 */
void ressd_set_mode(struct ressd_c *rc, enum ressd_mode mode, const char *why);

/* ---- functions in dm-ressd-csum.c: which code computes crc32c ---- */

/*
 * Module load: choose the crc32c driver (the parameter csum_driver, or the
 * fastest that passes the check; may sleep).  0 or a negative errno.
 */
int __init ressd_csum_init(void);
/* Module unload. */
void ressd_csum_exit(void);
/* The crc32c driver in use (the parameter's value). */
const char *ressd_csum_driver(void);
/*
 * The index in @ns[0..@n) of the fastest (nanoseconds a block, U64_MAX
 * for none); index 0 stays unless another is faster by an eighth (pure).
 */
unsigned int ressd_csum_pick(const u64 *ns, unsigned int n);
/*
 * crypto_alloc_shash(@name), kept only if it computes crc32c (checked on
 * known values; @buf is 4 KiB of scratch): the tfm or an ERR_PTR, -EBADMSG
 * for a wrong result.  May sleep.
 */
struct crypto_shash *ressd_csum_get(const char *name, u8 *buf);

/* ---- functions in dm-ressd-log.c: the log writer ---- */

/*
 * Set up the writer's state and allocate its record buffers (may sleep).
 * The constructor calls it first: ressd_log_exit() is safe after a failure.
 */
int ressd_log_init(struct ressd_c *rc);
void ressd_log_exit(struct ressd_c *rc);
/* The trailer map of a log of @nr_slots slots (may sleep). */
int ressd_log_init_trailers(struct ressd_c *rc, u32 nr_slots);
/* The destructor: no seal timer runs after this (may sleep). */
void ressd_log_stop_timer(struct ressd_c *rc);

/* Where the writer starts after recovery (ressd_meta_recover() fills it). */
struct ressd_log_start {
	u32 head;		/* where the next record goes */
	u64 next_seq;		/*   and its seq */
	u32 tail_slot;		/* the checkpoint: the oldest live record */
	u64 tail_seq;
	u64 tail_epoch;		/*   and the chain's epoch there */
	u32 used;		/* slots from the tail to head */
	u64 epoch;		/* the epoch new records carry */
};

/* Hand the writer its place (before the target takes writes; may sleep). */
void ressd_log_start(struct ressd_c *rc, const struct ressd_log_start *st);

/*
 * Put the small write @bio of @nr blocks at @block in the open record
 * (opening one if needed).  Returns its first data slot, RESSD_NO_SLOT when
 * the log is full, or RESSD_DEFER_SLOT when no record buffer is free.  The
 * blocks enter the index when their data is written (in a chunk, or with
 * the trailer).  The record of a FUA write is sealed with FUA.  Caller
 * holds rc->lock; never sleeps.
 */
#define RESSD_DEFER_SLOT	(U32_MAX - 1)
u32 __ressd_log_reserve(struct ressd_c *rc, struct bio *bio, u64 block, u32 nr);
/*
 * The same, from map() with a bio for the log write at hand: when @bio
 * closes its record (full, or FUA) and the log is idle, that record is
 * written from map() and *@rec says which (else NULL): the caller writes it
 * with ressd_log_record_submit() once rc->lock is dropped.
 */
u32 __ressd_log_reserve_direct(struct ressd_c *rc, struct bio *bio, u64 block, u32 nr,
			       struct ressd_record **rec);
/*
 * Might a small write of @nr blocks close the open record?  A lockless
 * hint: whether map() should have a bio at hand for the record.
 */
bool ressd_log_may_close(struct ressd_c *rc, struct bio *bio, u32 nr);
/*
 * The same for the mover's copies forward: @nr entries for @blocks, their
 * data in the pages of @carrier, a bio that is never submitted and
 * completes when they are written (see dm-ressd-log.c for what the caller
 * must have checked).
 */
u32 __ressd_log_reserve_copies(struct ressd_c *rc, struct bio *carrier, const u64 *blocks,
			       u32 nr);
/*
 * The blocks of the entries of every record not yet written whole (open,
 * sealed, in flight), in no order, into @out (RESSD_UNWRITTEN_MAX of them
 * at most); returns how many, U32_MAX if there were more (a bug: take every
 * block as pending).  Caller holds rc->lock; never sleeps.
 */
#define RESSD_UNWRITTEN_MAX	(RESSD_NR_RECORDS * RESSD_REC_MAX_ITEMS)
u32 __ressd_log_unwritten(struct ressd_c *rc, u64 *out);
/*
 * Record the invalidation of logged blocks [block, block + nr) in the open
 * record and unmap the blocks.  False when no record can take it now.
 * Caller holds rc->lock; never sleeps.
 */
bool __ressd_log_invalidate(struct ressd_c *rc, u64 block, u64 nr);
/*
 * Is there room for @need more slots, with (@reserve) or without the
 * RESSD_INVAL_RESERVE kept for invalidations?  (rc->lock held)
 */
bool __ressd_log_room(struct ressd_c *rc, u32 need, bool reserve);
/* Used slots from which a small write may find no room.  (rc->lock held) */
u32 __ressd_log_full_at(struct ressd_c *rc);
void ressd_log_keep(struct ressd_c *rc, u32 slots);
/* The largest small write in sectors, a record's at most.  (rc->lock held) */
unsigned int __ressd_log_small_max(struct ressd_c *rc);
/*
 * Home writes over logged blocks (rc->lock held, never sleep): _begin at
 * map(), before the write goes home; _end at its completion, which records
 * the invalidation (false: no room yet, @inv is marked held and counted,
 * call again later); _abort when the write failed or will not be recorded.
 * Until one of the last two, __ressd_log_pending() finds it.
 */
void __ressd_log_inval_begin(struct ressd_c *rc, struct ressd_inval *inv,
			     u64 block, u64 nr);
bool __ressd_log_inval_end(struct ressd_c *rc, struct ressd_inval *inv);
void __ressd_log_inval_abort(struct ressd_c *rc, struct ressd_inval *inv);
/* The home write in flight over @block, or NULL (rc->lock held). */
struct ressd_inval *__ressd_log_pending(struct ressd_c *rc, u64 block);
/* How many of them are held for room in a record (rc->lock held). */
u32 __ressd_log_nr_held(struct ressd_c *rc);
/* The invalidations recorded so far; an origin flush issued now covers them. */
u64 __ressd_log_inval_gen(struct ressd_c *rc);
/* An origin flush issued at invalidation generation @gen completed (rc->lock held). */
void __ressd_origin_flushed(struct ressd_c *rc, u64 gen);
/* Flush the origin; the invalidations recorded so far are then covered (may sleep). */
int ressd_origin_flush(struct ressd_c *rc);
/*
 * Are all recorded invalidations durable in the log?  Lockless (may say no
 * when the answer just became yes), and under rc->lock.
 */
bool ressd_log_invals_durable(struct ressd_c *rc);
bool __ressd_log_invals_durable(struct ressd_c *rc);
/* Does anything acknowledged wait for a log flush? (rc->lock held) */
bool __ressd_log_needs_flush(struct ressd_c *rc);
/* An empty flush's record, sealed and written from map() (never sleeps). */
struct ressd_record *__ressd_log_flush_direct(struct ressd_c *rc, struct bio *bio);
/* Write a record map() took, @spare its first bio (no lock held; never sleeps). */
void ressd_log_record_submit(struct ressd_c *rc, struct ressd_record *r, struct bio *spare);
/* The end of a plug: the chunk its task writes (may sleep; no lock held). */
struct ressd_record *__ressd_log_unplug_chunk(struct ressd_c *rc);
void ressd_log_chunk_submit(struct ressd_c *rc, struct ressd_record *r);
/*
 * A small write went into the open record: have the end of the caller's
 * burst (its plug flushed) write it.  False when the caller has no plug.
 * Called without rc->lock; never sleeps.
 */
bool ressd_plug_burst(struct ressd_c *rc, blk_opf_t opf);
/* The constructor: allocate the handle those callbacks hold (may sleep). */
int ressd_plug_init(struct ressd_c *rc);
/*
 * The destructor, once no log write completes any more: callbacks still
 * queued on plugs no longer touch @rc.
 */
void ressd_plug_release(struct ressd_c *rc);
/*
 * Complete @bio once everything acknowledged before is durable in the log;
 * the caller then runs the worker (rc->lock held).
 */
void __ressd_log_wait_durable(struct ressd_c *rc, struct bio *bio);
/* Seal the open record, if any, with @flags (rc->lock held, never sleeps). */
void __ressd_log_seal(struct ressd_c *rc, blk_opf_t flags);
/*
 * A burst ended: write the open record's pending data now, after
 * commit_delay_us when the log is idle, or when the write in flight is done
 * (rc->lock held, never sleeps).
 */
void __ressd_log_seal_soon(struct ressd_c *rc);
#if IS_ENABLED(CONFIG_KUNIT)
extern unsigned int ressd_commit_delay_us;	/* the module parameter commit_delay_us */
/* ressd_log_direct_done() under rc->lock: the chunk this task takes, @spare at hand. */
struct ressd_record *__ressd_log_direct_done(struct ressd_c *rc, blk_status_t status, bool spare);
#endif
/*
 * A small write just reserved, written by map() itself when the log is
 * idle (no worker hop): true if __ressd_log_direct() made it the chunk in
 * flight (rc->lock held, never sleeps); then ressd_log_direct_submit()
 * (lock dropped) remaps it to its slots, and its completion calls
 * ressd_log_direct_done().
 */
bool __ressd_log_direct(struct ressd_c *rc, struct bio *bio);
void ressd_log_direct_submit(struct ressd_c *rc, struct bio *bio);
void ressd_log_direct_done(struct ressd_c *rc, blk_status_t status);
/* The worker's part: flushes, then chunks and sealed records (may sleep). */
void ressd_log_work(struct ressd_c *rc);
/* Make everything acknowledged so far durable in the log (may sleep). */
int ressd_log_sync(struct ressd_c *rc);

/*
 * Reads of log slots: take a reference on the readers' phase in the same
 * hold of the index lock as the lookup that sends a read to the log (the
 * index lock alone: reads never take rc->lock), drop it at completion (any
 * context).  ressd_log_release() flips the phase under the index lock too,
 * after the slots it hands back were unmapped, and waits for the readers
 * that began before.
 */
u8 __ressd_log_read_get(struct ressd_c *rc);
void ressd_log_read_put(struct ressd_c *rc, u8 phase);

/* Slots in use, for status and drain (lockless; READ_ONCE). */
u32 ressd_log_used(struct ressd_c *rc);

/* The mover's view of the log (rc->lock held). */
struct ressd_log_region {
	u32 tail_slot;		/* the oldest live record */
	u64 tail_seq;
	u64 tail_epoch;		/* the chain's epoch there */
	u64 epoch;		/* the current epoch: no record is newer */
	u32 used;		/* slots from the tail to head */
	u32 written;		/*   of which in written records */
};

void __ressd_log_region(struct ressd_c *rc, struct ressd_log_region *reg);
/*
 * The epoch a checkpoint at the record @seq carries: the current one when
 * that record is of this activation (written or not yet), else @chain_epoch,
 * the chain's epoch there (rc->lock held).
 */
u64 __ressd_log_checkpoint_epoch(struct ressd_c *rc, u64 seq, u64 chain_epoch);
/*
 * The mover moved the @nr slots from the tail home, unmapped them and wrote
 * the checkpoint (@slot, @seq, @epoch): wait for the reads of those slots
 * still in flight, then hand them back to the writer (I4).  May sleep.
 */
void ressd_log_release(struct ressd_c *rc, u32 slot, u64 seq, u64 epoch,
		       u32 nr);
/*
 * The trailer of the written record that starts at @start, as the writer
 * (or recovery) left it in rc->log.trailers: the first marked slot from
 * @start on, at most RESSD_REC_MAX_ITEMS further and before the end of the
 * log; RESSD_NO_SLOT when none (so also for @start at the end of the log).
 * A hint: the caller checks what it reads there.  No lock: the bits of the
 * mover's region do not change under it (bits further on may, which only
 * makes a hint for them stale).
 */
u32 ressd_log_trailer_at(struct ressd_c *rc, u32 start);
/*
 * Wake rc->log.mover_wait at each log write that leaves @used or more
 * slots in use (rc->lock held; U32_MAX: never).
 */
void __ressd_log_wake_mover_at(struct ressd_c *rc, u32 used);

/* ---- functions in dm-ressd-mover.c: the mover ---- */

/* Start and stop the thread (resume, suspend, destructor; may sleep). */
int ressd_mover_start(struct ressd_c *rc);
void ressd_mover_stop(struct ressd_c *rc);
/* Wake the mover: it runs if it has work (any context). */
void ressd_mover_kick(struct ressd_c *rc);
/* "mover pause" and "mover resume" (may sleep). */
void ressd_mover_pause(struct ressd_c *rc, bool pause);
/* Move everything home ("drain"); may sleep; 0 or an error. */
int ressd_mover_drain(struct ressd_c *rc);
/*
 * Is the mover writing an older copy of a block of [block, block + nr)
 * home?  A write there must wait for it (rc->lock held).
 */
bool __ressd_mover_busy(struct ressd_c *rc, u64 block, u64 nr);
/* Is a unit fill in flight over [@block, @block + @nr)? (rc->lock held) */
bool __ressd_mover_fill_busy(struct ressd_c *rc, u64 block, u64 nr);
/*
 * A write or discard goes home: take a reference on the home phase
 * (rc->lock held), and drop it when it completes there (any context).  The
 * mover waits for the writes home issued before each batch, so that none
 * lands over its copy of a block logged after it was mapped (I5).
 */
u8 __ressd_mover_home_get(struct ressd_c *rc);
void ressd_mover_home_put(struct ressd_c *rc, u8 phase);

/* ---- functions in dm-ressd-meta.c: superblocks, reading the log, recovery ---- */

/*
 * Read the superblocks: format an all-zero log, load a valid one, refuse
 * anything else with a message in *@error.  May sleep.
 */
int ressd_meta_load(struct ressd_c *rc, bool may_format, const char **error);
/* Write rc->meta.sb to both copies in turn, with FUA (takes meta.lock; may sleep). */
int ressd_meta_write_sb(struct ressd_c *rc);
/*
 * Recover: load the superblock, replay the log into the index, fill in
 * where the log writer starts, and (with a writable table) write the
 * checkpoint with a raised epoch.  Called from the first preresume (and
 * again if that failed); may sleep.
 */
struct ressd_log_start;
int ressd_meta_recover(struct ressd_c *rc, struct ressd_log_start *st);
/*
 * The mover moved the log's tail to the record @seq at @slot, whose chain
 * epoch is @epoch: write that checkpoint (takes meta.lock; may sleep).
 */
int ressd_meta_write_checkpoint(struct ressd_c *rc, u32 slot, u64 seq, u64 epoch);
/* Set up the superblock state (the constructor, first). */
void ressd_meta_init(struct ressd_c *rc);
/* Reading the log forward with read-ahead (recovery, the mover's plan; may sleep). */
struct ressd_readahead;
#define RESSD_RA_SLOTS	64	/* slots a read-ahead request */
struct ressd_readahead *ressd_ra_alloc(struct ressd_c *rc);
void ressd_ra_free(struct ressd_readahead *ra);
int ressd_ra_read(void *ra, u32 slot, void *buf);
/* One slot: the window becomes that slot alone when it is not held. */
int ressd_ra_read_one(struct ressd_readahead *ra, u32 slot, void *buf);

/* The first sector of log slot @slot on the log device. */
static inline sector_t ressd_slot_sector(struct ressd_c *rc, u32 slot)
{
	return rc->geo.log_offset + ressd_block_sector(RESSD_SB_BLOCKS + slot);
}

#endif /* DM_RESSD_H */
