// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "ressd" device-mapper target: table line, I/O routing,
 * status and messages.
 *
 * dm-ressd splits a device into a normal area, which the upper layer sees,
 * and a small hidden reserved area (the log range) that may sit on the same
 * device or on another one.  The table line is
 *
 *   <start> <len> ressd <origin_dev> <origin_offset> <log_dev> <log_offset>
 *                       <log_sectors> [<#opt_args> <opt_args>...]
 *
 * This file owns the constructor (every argument is validated and each
 * failure has its own ti->error), map() and end_io(), the suspend sequence,
 * and the status and message interfaces.  map() never sleeps and never
 * allocates: a small random write (at most small_write_max and a record's
 * blocks, not continuing a recent stream) is put in the open log record
 * (dm-ressd-log.c) and held until the record is written; any other write
 * goes home, and when it covers logged blocks its completion records an
 * invalidation before those blocks are unmapped; reads go home, to the log,
 * or are cut where the index changes between the two.  Work that may sleep
 * is done by the worker (records, flushes, retries) and the mover
 * (dm-ressd-mover.c).
 *
 * Crash semantics: a write is acknowledged only when its data is on the
 * device (home, or in a written record); a FLUSH completes only when the
 * origin is flushed and every record written before it is durable; a FUA
 * write over logged blocks completes only when its invalidation is durable.
 *
 * Locking: rc->lock (a spinlock, taken with interrupts off because bio
 * completion takes it) protects the tunables, the mode and the log writer's
 * state; the index has its own lock, nested inside, or taken alone (reads
 * take only it); statistics are atomic64 counters.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd"

/* ---- argument parsing (pure; exported to KUnit) ---- */

void ressd_default_tunables(struct ressd_tunables *t)
{
	t->small_write_max = RESSD_DEF_SMALL_WRITE_MAX;
	t->high_watermark = RESSD_DEF_HIGH_WATERMARK;
	t->low_watermark = RESSD_DEF_LOW_WATERMARK;
	t->mover_batch = RESSD_DEF_MOVER_BATCH;
	memset(&t->dev_model, 0, sizeof(t->dev_model));	/* none */
	t->mover_policy = RESSD_POLICY_FIFO;
	t->log_mode = RESSD_LOG_ALWAYS;
	t->data_csum = 1;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_default_tunables);

int ressd_parse_sector(const char *s, sector_t *out)
{
	unsigned long long v;

	/* kstrtoull accepts a leading '+'; a table line should not. */
	if (!s || !isdigit(*s) || kstrtoull(s, 10, &v))
		return -EINVAL;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_parse_sector);

static int ressd_parse_uint(const char *s, unsigned int *out)
{
	if (!s || !isdigit(*s) || kstrtouint(s, 10, out))
		return -EINVAL;
	return 0;
}

/* The words of log_mode and mover_policy, by their enum values. */
static const char *const ressd_log_mode_names[] = {
	[RESSD_LOG_ALWAYS] = "always", [RESSD_LOG_NEVER] = "never", [RESSD_LOG_AUTO] = "auto",
};

static const char *const ressd_policy_names[] = {
	[RESSD_POLICY_FIFO] = "fifo", [RESSD_POLICY_DENSITY] = "density",
};

/* @s as one of @names (case-insensitive): its index in *@out, or -EINVAL. */
static int ressd_parse_word(const char *s, const char *const *names, unsigned int n,
			    unsigned int *out)
{
	unsigned int i;

	for (i = 0; s && i < n; i++) {
		if (!strcasecmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * One optional argument.  Each value is checked on its own here; the
 * relations between values (low < high, small writes fit a record) are
 * checked by ressd_check_tunables() once all of them are known.
 */
int ressd_parse_tunable(struct ressd_tunables *t, const char *key,
			const char *value, const char **error)
{
	unsigned int v;

	if (!strcasecmp(key, "small_write_max")) {
		if (ressd_parse_uint(value, &v)) {
			*error = "Invalid small_write_max";
			return -EINVAL;
		}
		if (!v || v % RESSD_SECTORS_PER_BLOCK ||
		    v > RESSD_MAX_MOVER_BATCH - RESSD_SECTORS_PER_BLOCK) {
			*error = RESSD_E_SMALL_WRITE_MAX;
			return -EINVAL;
		}
		t->small_write_max = v;
	} else if (!strcasecmp(key, "high_watermark")) {
		if (ressd_parse_uint(value, &v)) {
			*error = "Invalid high_watermark";
			return -EINVAL;
		}
		if (v < 1 || v > 100) {
			*error = "high_watermark must be 1 to 100";
			return -EINVAL;
		}
		t->high_watermark = v;
	} else if (!strcasecmp(key, "low_watermark")) {
		if (ressd_parse_uint(value, &v)) {
			*error = "Invalid low_watermark";
			return -EINVAL;
		}
		if (v > 99) {
			*error = "low_watermark must be 0 to 99";
			return -EINVAL;
		}
		t->low_watermark = v;
	} else if (!strcasecmp(key, "mover_batch")) {
		if (ressd_parse_uint(value, &v)) {
			*error = "Invalid mover_batch";
			return -EINVAL;
		}
		if (v < RESSD_MIN_MOVER_BATCH || v > RESSD_MAX_MOVER_BATCH ||
		    v % RESSD_SECTORS_PER_BLOCK) {
			*error = RESSD_E_MOVER_BATCH;
			return -EINVAL;
		}
		t->mover_batch = v;
	} else if (!strcasecmp(key, "dev_model")) {
		struct ressd_devmodel m;
		const char *why;

		if (ressd_devmodel_parse(value, &m)) {
			*error = "Invalid dev_model";
			return -EINVAL;
		}
		why = ressd_devmodel_check(&m);
		if (why) {
			*error = why;
			return -EINVAL;
		}
		t->dev_model = m;
	} else if (!strcasecmp(key, "log_mode")) {
		if (ressd_parse_word(value, ressd_log_mode_names,
				     ARRAY_SIZE(ressd_log_mode_names), &t->log_mode)) {
			*error = "log_mode must be always, never or auto";
			return -EINVAL;
		}
	} else if (!strcasecmp(key, "data_csum")) {
		if (ressd_parse_uint(value, &v) || v > 1) {
			*error = "data_csum must be 0 or 1";
			return -EINVAL;
		}
		t->data_csum = v;
	} else if (!strcasecmp(key, "mover_policy")) {
		if (ressd_parse_word(value, ressd_policy_names, ARRAY_SIZE(ressd_policy_names),
				     &t->mover_policy)) {
			*error = "mover_policy must be fifo or density";
			return -EINVAL;
		}
	} else {
		*error = "Unknown optional argument";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_parse_tunable);

/* Relations between tunables; NULL when they are consistent. */
static const char *ressd_check_tunables(const struct ressd_tunables *t)
{
	if (t->low_watermark >= t->high_watermark)
		return "low_watermark must be below high_watermark";
	/* A small write plus its record trailer must fit one mover batch. */
	if (t->small_write_max + RESSD_SECTORS_PER_BLOCK > t->mover_batch)
		return "small_write_max must be smaller than mover_batch";
	if (t->mover_policy == RESSD_POLICY_DENSITY && !t->dev_model.unit_sectors)
		return RESSD_E_DENSITY;
	if (t->log_mode == RESSD_LOG_AUTO && !ressd_devmodel_set(&t->dev_model))
		return RESSD_E_LOG_AUTO;
	return NULL;
}

const char *ressd_check_geometry(const struct ressd_geometry *g)
{
	sector_t end;

	if (!g->origin_sectors || g->origin_sectors % RESSD_SECTORS_PER_BLOCK)
		return "Length must be a multiple of 8 sectors";
	if (g->origin_offset % RESSD_SECTORS_PER_BLOCK)
		return "Origin offset must be a multiple of 8 sectors";
	if (g->log_offset % RESSD_SECTORS_PER_BLOCK)
		return "Log offset must be a multiple of 8 sectors";
	if (g->log_sectors % RESSD_SECTORS_PER_BLOCK)
		return "Log size must be a multiple of 8 sectors";
	if (g->log_sectors < RESSD_MIN_LOG_BLOCKS * RESSD_SECTORS_PER_BLOCK)
		return "Log range too small: at least 72 KiB";
	if (ressd_block_of(g->log_sectors) - RESSD_SB_BLOCKS > RESSD_MAX_SLOTS)
		return "Log range too large";
	if (ressd_block_of(g->origin_sectors) - 1 > RESSD_INDEX_MAX_BLOCK)
		return "Origin range too large";
	if (check_add_overflow(g->origin_offset, g->origin_sectors, &end) ||
	    end > g->origin_dev_sectors)
		return "Origin range exceeds the origin device";
	if (check_add_overflow(g->log_offset, g->log_sectors, &end) ||
	    end > g->log_dev_sectors)
		return "Log range exceeds the log device";
	if (g->same_dev && g->log_offset < g->origin_offset + g->origin_sectors &&
	    g->origin_offset < g->log_offset + g->log_sectors)
		return "Log range overlaps origin range";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_check_geometry);

/* The optional arguments' keys: each may be given once. */
static const char *const ressd_opt_keys[] = {
	"small_write_max", "high_watermark", "low_watermark", "mover_batch",
	"dev_model", "mover_policy", "log_mode", "data_csum",
};

/* Optional arguments: "<#opt_args> key value ...". */
static int ressd_parse_opt_args(struct dm_arg_set *as, struct ressd_tunables *t,
				char **error)
{
	unsigned int argc, seen = 0;
	const char *err = NULL;
	int r;

	if (!as->argc)
		return 0;
	/*
	 * Not dm_read_arg_group(): its sscanf("%u") wraps 2^32 + 2 to 2.
	 * Each key at most once: at most two words per key.
	 */
	if (ressd_parse_uint(dm_shift_arg(as), &argc) ||
	    argc > 2 * ARRAY_SIZE(ressd_opt_keys) ||
	    argc > as->argc) {
		*error = "Invalid number of optional arguments";
		return -EINVAL;
	}
	if (argc % 2) {
		*error = "Optional arguments must be key value pairs";
		return -EINVAL;
	}
	while (argc) {
		const char *key = dm_shift_arg(as);
		const char *value = dm_shift_arg(as);
		unsigned int bit;

		argc -= 2;
		r = ressd_parse_tunable(t, key, value, &err);
		if (r) {
			*error = (char *)err;
			return r;
		}
		/* ressd_parse_tunable() accepted the key: it is in the list. */
		for (bit = 0; bit < ARRAY_SIZE(ressd_opt_keys); bit++)
			if (!strcasecmp(key, ressd_opt_keys[bit]))
				break;
		bit = 1U << bit;
		if (seen & bit) {
			*error = "Duplicate optional argument";
			return -EINVAL;
		}
		seen |= bit;
	}
	err = ressd_check_tunables(t);
	if (err) {
		*error = (char *)err;
		return -EINVAL;
	}
	return 0;
}

/* ---- I/O ---- */

static inline struct ressd_io *ressd_io(struct bio *bio)
{
	return dm_per_bio_data(bio, sizeof(struct ressd_io));
}

void ressd_set_mode(struct ressd_c *rc, enum ressd_mode mode, const char *why)
{
	unsigned long flags;
	bool changed = false;

	spin_lock_irqsave(&rc->lock, flags);
	if (mode > rc->mode) {
		WRITE_ONCE(rc->mode, mode);	/* map and drain read it without the lock */
		changed = true;
	}
	spin_unlock_irqrestore(&rc->lock, flags);
	if (changed) {
		DMERR("%s: switching to %s mode: %s",
		      dm_device_name(dm_table_get_md(rc->ti->table)),
		      mode == RESSD_MODE_RO ? "read-only" : "fail", why);
		queue_work(system_wq, &rc->event_work);
		wake_up_all(&rc->wait);
		/* Writes held for room in the log fail now (ressd_worker()). */
		ressd_kick(rc);
	}
}

static void ressd_event_work(struct work_struct *ws)
{
	struct ressd_c *rc = container_of(ws, struct ressd_c, event_work);

	dm_table_event(rc->ti->table);
}

/**
 * ressd_classify() - is this write a small random write?
 * @cls: the recent streams (updated)
 * @start: first sector of the write
 * @sectors: its length
 * @small_write_max: the largest small write, in sectors
 *
 * A write continues a stream when it starts where one of the last
 * RESSD_STREAMS streams ended; that stream then moves to the front.  Any
 * other write starts a new stream in place of the least recently used one.
 * A write of at most @small_write_max is a small random write unless the
 * stream it continues holds RESSD_STREAM_MIN_SECTORS already: among random
 * 4 KiB writes one now and then starts where another ended, and sent home
 * alone it would cost the device a merge of its erase unit; a stream of
 * 4 KiB writes goes home from its third write on.  Interleaved sequential
 * streams (several files written at once, a journal beside data) each keep
 * their own entry, so that none is taken for random writes.  Alignment
 * needs no test here: the target exports 4 KiB logical blocks
 * (device-mapper aligns every target to them), so every write is whole
 * blocks.
 *
 * Return: true for a small random write (to the log).
 */
bool ressd_classify(struct ressd_classifier *cls, sector_t start,
		    unsigned int sectors, unsigned int small_write_max)
{
	unsigned int i, len = 0;
	bool random = true;

	for (i = 0; i < cls->nr; i++) {
		if (cls->end[i] == start) {
			len = cls->len[i];
			random = len < RESSD_STREAM_MIN_SECTORS;
			break;
		}
	}
	if (i == cls->nr && cls->nr < RESSD_STREAMS)
		cls->nr++;
	if (i == RESSD_STREAMS)
		i--;	/* a new stream replaces the least recently used */
	memmove(&cls->end[1], &cls->end[0], i * sizeof(cls->end[0]));
	memmove(&cls->len[1], &cls->len[0], i * sizeof(cls->len[0]));
	cls->end[0] = start + sectors;
	cls->len[0] = len + min(sectors, UINT_MAX - len);
	return random && sectors <= small_write_max;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_classify);

/* Does [@block, @block + @nr) hold a logged block? (rc->lock held) */
static bool __ressd_any_mapped(struct ressd_c *rc, u64 block, u64 nr)
{
	struct ressd_map m;

	if (!rc->index.mapped)
		return false;
	spin_lock(&rc->index.lock);
	__ressd_index_lookup(&rc->index, block, min_t(u64, nr, U32_MAX), &m);
	spin_unlock(&rc->index.lock);
	return m.mapped || m.len < nr;
}

static void ressd_defer(struct ressd_c *rc, struct bio *bio)
{
	bio_list_add(&rc->deferred, bio);
	atomic64_inc(&rc->deferred_bios);
}

static void ressd_remap_home(struct ressd_c *rc, struct bio *bio)
{
	bio_set_dev(bio, rc->origin->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = rc->geo.origin_offset +
			dm_target_offset(rc->ti, bio->bi_iter.bi_sector);
}

/* What map() does with a bio, decided under rc->lock. */
enum ressd_map_op {
	RESSD_MAP_LOGGED,	/* a write held in the open record */
	RESSD_MAP_LOG_READ,	/* a read remapped to the log */
	RESSD_MAP_DEFER,	/* on rc->deferred, for the worker */
	RESSD_MAP_HOME,		/* remapped home */
	RESSD_MAP_KILL,		/* failed (mode) */
};

/*
 * A small random write: into the open record, or deferred when no record
 * buffer is free; RESSD_MAP_HOME when the log is full.  With @spare, a bio
 * for the log write, *@rec is the record the write closed when map() is to
 * write it (__ressd_log_reserve_direct()).  (rc->lock held)
 */
static enum ressd_map_op __ressd_map_small(struct ressd_c *rc, struct bio *bio,
					   struct ressd_io *io, u64 block, u64 nr,
					   struct bio *spare, struct ressd_record **rec)
{
	u32 slot = spare ? __ressd_log_reserve_direct(rc, bio, block, nr, rec)
			 : __ressd_log_reserve(rc, bio, block, nr);

	if (slot == RESSD_DEFER_SLOT)
		return RESSD_MAP_DEFER;
	if (slot == RESSD_NO_SLOT) {
		atomic64_inc(&rc->full_writes);
		return RESSD_MAP_HOME;
	}
	io->kind = RESSD_IO_LOGGED;
	return RESSD_MAP_LOGGED;
}

/*
 * Any other write, or a discard, goes home.  Over logged blocks its
 * completion records their invalidation, and it waits while the mover
 * writes an older copy of them home.  A discard leaves logged blocks
 * mapped: reads keep returning their newest data (after a discard any
 * content is allowed, but never data older than the newest write, which
 * home may still hold when the device ignores discards), and the mover
 * later writes them home.  (rc->lock held)
 */
static enum ressd_map_op __ressd_map_home(struct ressd_c *rc, struct bio *bio,
					  struct ressd_io *io, u64 block, u64 nr)
{
	/* The mover is rewriting the unit home in order: after it (I5). */
	if (__ressd_mover_fill_busy(rc, block, nr))
		return RESSD_MAP_DEFER;
	if (bio_op(bio) != REQ_OP_DISCARD && __ressd_any_mapped(rc, block, nr)) {
		if (__ressd_mover_busy(rc, block, nr))
			return RESSD_MAP_DEFER;
		io->kind = RESSD_IO_INVAL;
		__ressd_log_inval_begin(rc, &io->inv, block, nr);
	}
	io->home_write = true;
	io->phase = __ressd_mover_home_get(rc);
	return RESSD_MAP_HOME;
}

/*
 * log_mode auto's choice until its first measure: the model's for an
 * absorbed share of 0 (a device with an erase unit always logs).
 * (rc->lock held)
 */
static void __ressd_log_mode_reset(struct ressd_c *rc, const struct ressd_tunables *t)
{
	lockdep_assert_held(&rc->lock);
	rc->log_pass = ressd_log_pass(&t->dev_model, 0, false);
	rc->alpha_pm = 0;		/* the choice's share, shown in status */
	rc->ghost_writes = 0;
	rc->ghost_hits = 0;
}

/*
 * Does this small write pass through (log_mode)?  With auto, each of its
 * blocks goes through the ghost log, and once a log's worth of small blocks
 * has been seen the model decides again (ressd_log_pass()): the choice
 * holds for at least that long.  (rc->lock held)
 */
static bool __ressd_log_mode_pass(struct ressd_c *rc, u64 block, u64 nr)
{
	u64 i;

	switch (rc->tunables.log_mode) {
	case RESSD_LOG_NEVER:
		return true;
	case RESSD_LOG_AUTO:
		break;
	default:
		return false;
	}
	for (i = 0; i < nr; i++) {
		int hit = ressd_ghost_note(&rc->ghost, block + i);

		if (hit < 0)
			continue;
		rc->ghost_hits += hit;
		/* A log's worth of small blocks, of which the sample is 1/16. */
		if (++rc->ghost_writes < max(rc->ghost.window / RESSD_GHOST_SAMPLE, 64U))
			continue;
		rc->alpha_pm = div_u64((u64)rc->ghost_hits * 1000, rc->ghost_writes);
		rc->log_pass = ressd_log_pass(&rc->tunables.dev_model, rc->alpha_pm,
					      rc->log_pass);
		rc->ghost_writes = 0;
		rc->ghost_hits = 0;
	}
	return rc->log_pass;
}

static int ressd_map_write(struct ressd_c *rc, struct bio *bio,
			   struct ressd_io *io)
{
	u64 block = ressd_block_of(dm_target_offset(rc->ti, bio->bi_iter.bi_sector));
	u64 nr = ressd_block_of(bio_sectors(bio));
	unsigned int bytes = bio->bi_iter.bi_size;
	bool discard = bio_op(bio) == REQ_OP_DISCARD;
	/*
	 * Once logged, the bio may complete as soon as rc->lock is dropped: a
	 * task ending its plug may write it (__ressd_log_unplug_chunk()), and
	 * when the worker maps it again nothing of dm's holds it any more.
	 */
	const blk_opf_t opf = bio->bi_opf;
	bool fua = opf & (REQ_FUA | REQ_PREFLUSH);
	enum ressd_map_op op = RESSD_MAP_HOME;
	struct ressd_record *rec = NULL;
	struct bio *spare = NULL;
	bool direct = false;
	unsigned long flags;

	/* A bio for the record this write may close: its pages and the trailer. */
	if (!discard && ressd_log_may_close(rc, bio, nr)) {
		unsigned int segs = bio_segments(bio);

		if (segs < BIO_MAX_VECS)
			spare = bio_alloc_bioset(rc->log_dev->bdev, segs + 1, REQ_OP_WRITE,
						 GFP_NOWAIT, &rc->bs);
	}
	spin_lock_irqsave(&rc->lock, flags);
	if (rc->mode != RESSD_MODE_RW) {
		op = RESSD_MAP_KILL;
	} else if (!discard &&
		   ressd_classify(&rc->cls, bio->bi_iter.bi_sector, bio_sectors(bio),
				  __ressd_log_small_max(rc))) {
		if (__ressd_log_mode_pass(rc, block, nr))
			atomic64_inc(&rc->passed_writes);
		else
			op = __ressd_map_small(rc, bio, io, block, nr, spare, &rec);
		/* The log is idle: no need to wait for the worker. */
		if (op == RESSD_MAP_LOGGED && !fua && __ressd_log_direct(rc, bio)) {
			io->kind = RESSD_IO_LOG_DIRECT;
			direct = true;
		}
	}
	if (op == RESSD_MAP_HOME)
		op = __ressd_map_home(rc, bio, io, block, nr);
	if (op == RESSD_MAP_DEFER)
		ressd_defer(rc, bio);
	spin_unlock_irqrestore(&rc->lock, flags);
	if (spare && !rec)
		bio_put(spare);

	switch (op) {
	case RESSD_MAP_LOGGED:
		/* The log write counts its own bytes (ressd_lw_add()). */
		atomic64_inc(&rc->redirected_writes);
		atomic64_add(bytes, &rc->user_write_bytes);
		if (rec) {
			atomic64_inc(&rc->submitter_log_writes);
			ressd_log_record_submit(rc, rec, spare);
			return DM_MAPIO_SUBMITTED;
		}
		if (direct) {
			atomic64_inc(&rc->inline_log_writes);
			ressd_log_direct_submit(rc, bio);
			return DM_MAPIO_REMAPPED;
		}
		/*
		 * Seal at the end of the burst, or now without a plug.  A FUA
		 * write's record is sealed already (with FUA).
		 */
		if (!fua && !ressd_plug_burst(rc, opf)) {
			spin_lock_irqsave(&rc->lock, flags);
			__ressd_log_seal_soon(rc);
			spin_unlock_irqrestore(&rc->lock, flags);
		}
		return DM_MAPIO_SUBMITTED;
	case RESSD_MAP_DEFER:
		return DM_MAPIO_SUBMITTED;
	case RESSD_MAP_HOME:
		if (!discard) {
			atomic64_inc(&rc->direct_writes);
			atomic64_add(bytes, &rc->user_write_bytes);
			atomic64_add(bytes, &rc->dev_write_bytes);
		}
		ressd_remap_home(rc, bio);
		return DM_MAPIO_REMAPPED;
	default:
		return DM_MAPIO_KILL;
	}
}

/*
 * A read of a target with logged blocks: the run at the start of the bio
 * decides (home or log).  Blocks of records not yet written are not in the
 * index: such a read returns the data before the write, which a write that
 * has not completed allows.  The index lock alone orders a read with the
 * writes and moves it races (rc->lock is not taken): a write's blocks are
 * in the index before it completes, a moved block leaves it only once its
 * home copy is written, and a log read takes its readers' reference in the
 * hold that found the slot (ressd_log_release()).
 */
static enum ressd_map_op ressd_map_read_index(struct ressd_c *rc, struct ressd_io *io,
					      u64 block, u32 nr, struct ressd_map *m)
{
	unsigned long flags;

	spin_lock_irqsave(&rc->index.lock, flags);
	__ressd_index_lookup(&rc->index, block, nr, m);
	if (m->mapped)
		io->phase = __ressd_log_read_get(rc);
	spin_unlock_irqrestore(&rc->index.lock, flags);
	if (!m->mapped)
		return RESSD_MAP_HOME;
	io->kind = RESSD_IO_LOG_READ;
	return RESSD_MAP_LOG_READ;
}

/* A read that spans more than one run is cut at the end of the first. */
static void ressd_cut_read(struct ressd_c *rc, struct bio *bio, sector_t off,
			   u32 run)
{
	sector_t len = ressd_block_sector(run) - ressd_sector_in_block(off);

	if (bio_sectors(bio) > len) {
		dm_accept_partial_bio(bio, len);
		atomic64_inc(&rc->split_reads);
	}
}

/*
 * Reads: home when nothing is logged (even in mode fail: home is intact),
 * else as ressd_map_read_index() decides.
 */
static int ressd_map_read(struct ressd_c *rc, struct bio *bio,
			  struct ressd_io *io)
{
	sector_t off = dm_target_offset(rc->ti, bio->bi_iter.bi_sector);
	u64 block = ressd_block_of(off);
	u32 nr = DIV_ROUND_UP(ressd_sector_in_block(off) + bio_sectors(bio),
			      RESSD_SECTORS_PER_BLOCK);
	struct ressd_map m = { .len = nr };
	enum ressd_map_op op = RESSD_MAP_HOME;

	if (READ_ONCE(rc->index.mapped)) {
		if (READ_ONCE(rc->mode) == RESSD_MODE_FAIL)
			op = RESSD_MAP_KILL;
		else
			op = ressd_map_read_index(rc, io, block, nr, &m);
	}

	switch (op) {
	case RESSD_MAP_LOG_READ:
		ressd_cut_read(rc, bio, off, m.len);
		bio_set_dev(bio, rc->log_dev->bdev);
		bio->bi_iter.bi_sector = ressd_slot_sector(rc, m.slot) +
					 ressd_sector_in_block(off);
		return DM_MAPIO_REMAPPED;
	case RESSD_MAP_HOME:
		ressd_cut_read(rc, bio, off, m.len);
		ressd_remap_home(rc, bio);
		return DM_MAPIO_REMAPPED;
	default:
		return DM_MAPIO_KILL;
	}
}

static int ressd_map_bio(struct ressd_c *rc, struct bio *bio)
{
	struct ressd_io *io = ressd_io(bio);

	memset(io, 0, sizeof(*io));
	INIT_LIST_HEAD(&io->inv.list);

	if (bio->bi_opf & REQ_PREFLUSH && !bio_sectors(bio)) {
		struct ressd_record *r = NULL;
		struct bio *spare = NULL;
		unsigned long flags;

		if (READ_ONCE(rc->mode) == RESSD_MODE_FAIL)
			return DM_MAPIO_KILL;
		io->kind = RESSD_IO_FLUSH;
		/*
		 * The bio of a record written from here, if one is open (a
		 * lockless hint) and a bio is at hand without sleeping.
		 */
		if (rc->origin->bdev == rc->log_dev->bdev && READ_ONCE(rc->log.open))
			spare = bio_alloc_bioset(rc->log_dev->bdev, 1, REQ_OP_WRITE, GFP_NOWAIT,
						 &rc->bs);
		spin_lock_irqsave(&rc->lock, flags);
		if (spare)
			r = __ressd_log_flush_direct(rc, bio);
		/* Completed by the log write, never remapped: end_io has nothing to do. */
		io->held = !!r;
		/* The home writes of these invalidations are covered. */
		io->gen = __ressd_log_inval_gen(rc);
		spin_unlock_irqrestore(&rc->lock, flags);
		if (r) {
			atomic64_inc(&rc->submitter_log_writes);
			ressd_log_record_submit(rc, r, spare);
			return DM_MAPIO_SUBMITTED;
		}
		if (spare)
			bio_put(spare);
		bio_set_dev(bio, rc->origin->bdev);
		return DM_MAPIO_REMAPPED;
	}
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return ressd_map_read(rc, bio, io);
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
		return ressd_map_write(rc, bio, io);
	default:
		return DM_MAPIO_KILL;
	}
}

static int ressd_map(struct dm_target *ti, struct bio *bio)
{
	return ressd_map_bio(ti->private, bio);
}

/*
 * Hold a completed bio, which the worker or the log completes again later
 * (then end_io returns DM_ENDIO_DONE): on inval_retry until a record has
 * room for its invalidation (@durable false), or until the log is durable.
 * Releases rc->lock.
 */
static int ressd_hold(struct ressd_c *rc, struct bio *bio, bool durable,
		      unsigned long flags)
	__releases(&rc->lock)
{
	ressd_io(bio)->held = true;
	if (durable)
		__ressd_log_wait_durable(rc, bio);
	else
		bio_list_add(&rc->inval_retry, bio);
	/*
	 * Kick before the lock is dropped: from then on the worker may
	 * complete @bio, a suspend that waited for it may end, and the
	 * destructor (whose synchronize_rcu() this end_io is not under) may
	 * free the workqueue.
	 */
	ressd_kick(rc);
	spin_unlock_irqrestore(&rc->lock, flags);
	return DM_ENDIO_INCOMPLETE;
}

static int ressd_end_io(struct dm_target *ti, struct bio *bio,
			blk_status_t *error)
{
	struct ressd_c *rc = ti->private;
	struct ressd_io *io = ressd_io(bio);
	unsigned long flags;

	if (io->held)		/* the second completion of a held bio */
		return DM_ENDIO_DONE;
	if (io->home_write)	/* first: it is complete at home */
		ressd_mover_home_put(rc, io->phase);

	switch (io->kind) {
	case RESSD_IO_LOG_READ:
		ressd_log_read_put(rc, io->phase);
		/*
		 * A read-ahead may fail without the device failing (a suspended
		 * dm device below fails it at once), as may a REQ_NOWAIT read
		 * (BLK_STS_AGAIN): only that bio fails.
		 */
		if (*error && *error != BLK_STS_AGAIN && !(bio->bi_opf & REQ_RAHEAD))
			ressd_set_mode(rc, RESSD_MODE_FAIL, "log read error");
		break;
	case RESSD_IO_INVAL:
		spin_lock_irqsave(&rc->lock, flags);
		if (*error) {
			/* Home may be torn: the logged copy stays the newest good one. */
			__ressd_log_inval_abort(rc, &io->inv);
			spin_unlock_irqrestore(&rc->lock, flags);
			break;
		}
		/* Hold the write (still pending) until a record can take it. */
		if (!__ressd_log_inval_end(rc, &io->inv))
			return ressd_hold(rc, bio, false, flags);
		/* FUA: the invalidation must be durable first (I2). */
		if (bio->bi_opf & REQ_FUA)
			return ressd_hold(rc, bio, true, flags);
		spin_unlock_irqrestore(&rc->lock, flags);
		break;
	case RESSD_IO_FLUSH:
		if (*error)
			break;
		spin_lock_irqsave(&rc->lock, flags);
		__ressd_origin_flushed(rc, io->gen);
		/* The origin is flushed; now the log. */
		if (__ressd_log_needs_flush(rc))
			return ressd_hold(rc, bio, true, flags);
		spin_unlock_irqrestore(&rc->lock, flags);
		break;
	case RESSD_IO_LOG_DIRECT:
		ressd_log_direct_done(rc, *error);
		break;
	case RESSD_IO_HOME:
		/*
		 * A FUA write home, over blocks whose logged copies an earlier
		 * home write invalidated: that invalidation may still wait in
		 * an unwritten record, and replay would map the blocks back to
		 * the older logged copies (I1).  Complete it once the
		 * invalidations recorded so far are durable in the log.
		 */
		if (*error || bio_op(bio) != REQ_OP_WRITE || !(bio->bi_opf & REQ_FUA))
			break;
		/* Lockless first look (rechecked under the lock): usually all durable. */
		if (ressd_log_invals_durable(rc))
			break;
		spin_lock_irqsave(&rc->lock, flags);
		if (!__ressd_log_invals_durable(rc))
			return ressd_hold(rc, bio, true, flags);
		spin_unlock_irqrestore(&rc->lock, flags);
		break;
	default:
		break;
	}
	return DM_ENDIO_DONE;
}

/* ---- the worker ---- */

/* Held home writes whose invalidation found no room: try again. */
static void ressd_retry_invalidations(struct ressd_c *rc)
{
	struct bio_list done, failed;
	struct bio *bio;
	bool wake;

	bio_list_init(&done);
	bio_list_init(&failed);
	spin_lock_irq(&rc->lock);
	if (rc->mode != RESSD_MODE_RW) {
		/*
		 * Only the mover can make room, and it runs only in rw: these
		 * writes are complete at home, but their invalidation will
		 * never be recorded, so the logged copy stays the one a read
		 * returns, and they fail.
		 */
		while ((bio = bio_list_pop(&rc->inval_retry))) {
			__ressd_log_inval_abort(rc, &ressd_io(bio)->inv);
			bio_list_add(&failed, bio);
		}
	}
	while ((bio = bio_list_peek(&rc->inval_retry))) {
		if (!__ressd_log_inval_end(rc, &ressd_io(bio)->inv))
			break;
		bio_list_pop(&rc->inval_retry);
		if (bio->bi_opf & REQ_FUA)
			__ressd_log_wait_durable(rc, bio);
		else
			bio_list_add(&done, bio);
	}
	/* Still no room: the mover must make it, even paused (mover.c). */
	wake = !bio_list_empty(&rc->inval_retry);
	spin_unlock_irq(&rc->lock);
	if (wake)
		ressd_mover_kick(rc);
	ressd_bio_list_endio(&done, BLK_STS_OK);
	ressd_bio_list_endio(&failed, BLK_STS_IOERR);
}

/* Map again the bios map() deferred (no record buffer, the mover's batch). */
static void ressd_map_deferred(struct ressd_c *rc)
{
	struct bio_list bios;
	struct bio *bio;

	spin_lock_irq(&rc->lock);
	bios = rc->deferred;
	bio_list_init(&rc->deferred);
	spin_unlock_irq(&rc->lock);
	while ((bio = bio_list_pop(&bios))) {
		switch (ressd_map_bio(rc, bio)) {
		case DM_MAPIO_REMAPPED:
			dm_submit_bio_remap(bio, NULL);
			break;
		case DM_MAPIO_KILL:
			bio_io_error(bio);
			break;
		default:	/* held in a record, or deferred again */
			break;
		}
	}
}

/*
 * The worker (rc->wq, ordered): held writes first, so that their
 * invalidations and FUA waits join the records written next; then the log
 * (flushes, chunks, sealed records); then the deferred bios, which may find
 * a record buffer or the mover's batch gone now.
 */
static void ressd_worker(struct work_struct *ws)
{
	struct ressd_c *rc = container_of(ws, struct ressd_c, worker);

	ressd_retry_invalidations(rc);
	ressd_log_work(rc);
	ressd_map_deferred(rc);
}

/* ---- suspend and resume ---- */

/*
 * Suspend: presuspend seals the open record so that every held write
 * completes while dm waits for in-flight I/O; postsuspend stops the mover and
 * makes the log durable.  The first preresume recovers the log (not the
 * constructor: during a table reload the old table is still writing until it
 * is suspended); resume restarts the mover.
 */
static void ressd_presuspend(struct dm_target *ti)
{
	struct ressd_c *rc = ti->private;

	spin_lock_irq(&rc->lock);
	WRITE_ONCE(rc->suspending, true);
	__ressd_log_seal(rc, 0);
	spin_unlock_irq(&rc->lock);
	ressd_mover_kick(rc);
	/* A "drain" waiting for the mover gives up (the mover stops now). */
	wake_up_all(&rc->wait);
}

/* The suspend was interrupted (a signal): back to normal operation. */
static void ressd_presuspend_undo(struct dm_target *ti)
{
	struct ressd_c *rc = ti->private;

	spin_lock_irq(&rc->lock);
	WRITE_ONCE(rc->suspending, false);
	spin_unlock_irq(&rc->lock);
	ressd_mover_kick(rc);
	ressd_kick(rc);
}

/*
 * Every record sealed so far is written (or failed) before this returns,
 * whatever the mode: the destructor frees what their completions touch, and
 * the next table's recovery reads what they wrote.
 */
static void ressd_postsuspend(struct dm_target *ti)
{
	struct ressd_c *rc = ti->private;

	ressd_mover_stop(rc);
	if (rc->recovered)
		ressd_log_sync(rc);
	flush_workqueue(rc->wq);
}

static int ressd_preresume(struct dm_target *ti)
{
	struct ressd_c *rc = ti->private;
	struct ressd_log_start st;
	int r;

	if (rc->recovered)
		return 0;
	r = ressd_meta_recover(rc, &st);
	if (r)
		return r;
	ressd_log_start(rc, &st);
	spin_lock_irq(&rc->lock);
	/* A read-only table serves what the log holds and changes nothing. */
	if (!ressd_table_writable(ti->table))
		WRITE_ONCE(rc->mode, RESSD_MODE_RO);
	rc->recovered = true;
	spin_unlock_irq(&rc->lock);
	return 0;
}

static void ressd_resume(struct dm_target *ti)
{
	struct ressd_c *rc = ti->private;

	spin_lock_irq(&rc->lock);
	WRITE_ONCE(rc->suspending, false);
	spin_unlock_irq(&rc->lock);
	if (ressd_mover_start(rc))
		ressd_set_mode(rc, RESSD_MODE_RO, "cannot start the mover");
	ressd_kick(rc);
}

/* ---- status and messages ---- */

static const char *ressd_mode_name(enum ressd_mode mode)
{
	switch (mode) {
	case RESSD_MODE_RW:
		return "rw";
	case RESSD_MODE_RO:
		return "ro";
	default:
		return "fail";
	}
}

static void ressd_status(struct dm_target *ti, status_type_t type,
			 unsigned int status_flags, char *result,
			 unsigned int maxlen)
{
	struct ressd_c *rc = ti->private;
	char model[RESSD_DM_STR_MAX];
	struct ressd_tunables t;
	enum ressd_mode mode;
	unsigned int sz = 0;
	bool has_model, density, log_pass;
	u64 mapped, used;
	u32 alpha_pm;

	spin_lock_irq(&rc->lock);
	t = rc->tunables;
	mode = rc->mode;
	log_pass = t.log_mode == RESSD_LOG_NEVER ||
		   (t.log_mode == RESSD_LOG_AUTO && rc->log_pass);
	alpha_pm = rc->alpha_pm;
	used = ressd_log_used(rc);
	spin_lock(&rc->index.lock);
	mapped = rc->index.mapped;
	spin_unlock(&rc->index.lock);
	spin_unlock_irq(&rc->lock);
	has_model = ressd_devmodel_set(&t.dev_model);
	ressd_devmodel_format(&t.dev_model, model, sizeof(model));
	density = t.mover_policy == RESSD_POLICY_DENSITY;

	switch (type) {
	case STATUSTYPE_INFO:
		DMEMIT("%llu/%u %llu %zu %lld %lld %lld %lld %lld %lld %s",
		       used, rc->index.nr_slots, mapped,
		       ressd_index_bytes(&rc->index),
		       atomic64_read(&rc->redirected_writes),
		       atomic64_read(&rc->direct_writes),
		       atomic64_read(&rc->split_reads),
		       atomic64_read(&rc->moved_blocks),
		       atomic64_read(&rc->mover_writes),
		       atomic64_read(&rc->metadata_commits),
		       ressd_mode_name(mode));
		/*
		 * Extras: small writes sent home because the log was full,
		 * the mover's pauses for foreground I/O, the bytes the users
		 * wrote and the target wrote to its devices.
		 */
		DMEMIT(" %lld %lld %lld %lld", atomic64_read(&rc->full_writes),
		       atomic64_read(&rc->mover_yields),
		       atomic64_read(&rc->user_write_bytes),
		       atomic64_read(&rc->dev_write_bytes));
		/* Erase units priced by the mover (dev_model with a unit). */
		DMEMIT(" %lld %lld %lld %lld", atomic64_read(&rc->fill_read_bytes),
		       atomic64_read(&rc->units_sparse),
		       atomic64_read(&rc->units_prefix),
		       atomic64_read(&rc->units_whole));
		/* Density-first cleaning (mover_policy density). */
		DMEMIT(" %lld %lld %lld", atomic64_read(&rc->copy_forwards),
		       atomic64_read(&rc->far_moves),
		       atomic64_read(&rc->far_dropped));
		/* log_mode: small writes passed through, the choice, absorbed share. */
		DMEMIT(" %lld %u %u", atomic64_read(&rc->passed_writes), log_pass, alpha_pm);
		/* Small writes written to the log by map() itself (no worker). */
		DMEMIT(" %lld", atomic64_read(&rc->inline_log_writes));
		/* Log writes the submitting task issued: an unplug's chunk, a flush's record. */
		DMEMIT(" %lld", atomic64_read(&rc->submitter_log_writes));
		/* The density threshold of the mover's last round (mover_policy density). */
		DMEMIT(" %u", density ? READ_ONCE(rc->mover.density_d) : 0);
		/* Log writes the worker issued: a hop from the writers' tasks. */
		DMEMIT(" %lld", atomic64_read(&rc->worker_log_writes));
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %llu %s %llu %llu", rc->origin->name,
		       (unsigned long long)rc->geo.origin_offset,
		       rc->log_dev->name, (unsigned long long)rc->geo.log_offset,
		       (unsigned long long)rc->geo.log_sectors);
		/* A key at its default is left out only where 0.2 had none. */
		DMEMIT(" %u small_write_max %u high_watermark %u",
		       8 + (has_model ? 2 : 0) + (density ? 2 : 0) +
		       (t.log_mode != RESSD_LOG_ALWAYS ? 2 : 0) + (!t.data_csum ? 2 : 0),
		       t.small_write_max, t.high_watermark);
		DMEMIT(" low_watermark %u mover_batch %u", t.low_watermark,
		       t.mover_batch);
		if (has_model)
			DMEMIT(" dev_model %s", model);
		if (density)
			DMEMIT(" mover_policy %s", ressd_policy_names[t.mover_policy]);
		if (t.log_mode != RESSD_LOG_ALWAYS)
			DMEMIT(" log_mode %s", ressd_log_mode_names[t.log_mode]);
		if (!t.data_csum)
			DMEMIT(" data_csum 0");
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",origin_name=%s,origin_offset=%llu", rc->origin->name,
		       (unsigned long long)rc->geo.origin_offset);
		DMEMIT(",log_name=%s,log_offset=%llu,log_sectors=%llu",
		       rc->log_dev->name, (unsigned long long)rc->geo.log_offset,
		       (unsigned long long)rc->geo.log_sectors);
		DMEMIT(",small_write_max=%u,high_watermark=%u", t.small_write_max,
		       t.high_watermark);
		DMEMIT(",low_watermark=%u,mover_batch=%u", t.low_watermark,
		       t.mover_batch);
		if (has_model)
			DMEMIT(",dev_model=%s", model);
		if (density)
			DMEMIT(",mover_policy=%s", ressd_policy_names[t.mover_policy]);
		if (t.log_mode != RESSD_LOG_ALWAYS)
			DMEMIT(",log_mode=%s", ressd_log_mode_names[t.log_mode]);
		if (!t.data_csum)
			DMEMIT(",data_csum=0");
		DMEMIT(",mode=%s;", ressd_mode_name(mode));
		break;
	}
}

/*
 * Messages:
 *   commit		make everything acknowledged durable in the log
 *   drain		move everything home; returns when the log is empty
 *   mover pause|resume	stop or restart the mover
 *   set <key> <value>	change a tunable (the same keys as the table line)
 */
static int ressd_message(struct dm_target *ti, unsigned int argc, char **argv,
			 char *result, unsigned int maxlen)
{
	struct ressd_c *rc = ti->private;
	struct ressd_tunables t;
	const char *err = NULL;
	int r;

	if (argc == 1 && !strcasecmp(argv[0], "commit")) {
		if (!rc->recovered || dm_suspended(ti))
			return -EBUSY;
		return ressd_log_sync(rc);
	}
	if (argc == 1 && !strcasecmp(argv[0], "drain")) {
		if (!rc->recovered || dm_suspended(ti))
			return -EBUSY;
		return ressd_mover_drain(rc);
	}
	if (argc == 2 && !strcasecmp(argv[0], "mover") &&
	    (!strcasecmp(argv[1], "pause") || !strcasecmp(argv[1], "resume"))) {
		ressd_mover_pause(rc, !strcasecmp(argv[1], "pause"));
		return 0;
	}
	if (argc == 3 && !strcasecmp(argv[0], "set")) {
		/*
		 * Read, changed and written back in one hold: messages are not
		 * serialised, and two at once must not undo each other.
		 * Parsing and checking are pure and short.
		 */
		spin_lock_irq(&rc->lock);
		t = rc->tunables;
		r = ressd_parse_tunable(&t, argv[1], argv[2], &err);
		if (!r) {
			err = ressd_check_tunables(&t);
			r = err ? -EINVAL : 0;
		}
		if (!r) {
			/* A new model or mode: its choice from scratch, as at creation. */
			if (memcmp(&t.dev_model, &rc->tunables.dev_model, sizeof(t.dev_model)) ||
			    t.log_mode != rc->tunables.log_mode)
				__ressd_log_mode_reset(rc, &t);
			rc->tunables = t;
		}
		spin_unlock_irq(&rc->lock);
		if (r) {
			DMWARN("%s: set %s %s: %s", dm_device_name(dm_table_get_md(ti->table)),
			       argv[1], argv[2], err);
			return r;
		}
		ressd_mover_kick(rc);
		/*
		 * data_csum 0 takes effect once a superblock with the feature
		 * is on disk: write one now, as the next checkpoint would.
		 */
		if (!t.data_csum && !READ_ONCE(rc->log.ordered_ok) && rc->recovered &&
		    !dm_suspended(ti) && READ_ONCE(rc->mode) == RESSD_MODE_RW) {
			r = ressd_meta_write_sb(rc);
			if (r)
				DMWARN("%s: set data_csum 0: superblock write failed (%d)",
				       dm_device_name(dm_table_get_md(ti->table)), r);
			return r;
		}
		return 0;
	}
	DMWARN("unsupported message '%s' with %u arguments",
	       argc ? argv[0] : "", argc);
	return -EINVAL;
}

static int ressd_iterate_devices(struct dm_target *ti,
				 iterate_devices_callout_fn fn, void *data)
{
	struct ressd_c *rc = ti->private;
	int r;

	r = fn(ti, rc->origin, rc->geo.origin_offset, ti->len, data);
	if (!r)
		r = fn(ti, rc->log_dev, rc->geo.log_offset, rc->geo.log_sectors, data);
	return r;
}

static void ressd_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	/*
	 * The unit of remapping is 4 KiB, and so is the logical block size we
	 * export (as dm-writecache does with its block size): the upper layer
	 * then never sends a write that covers part of a logged block, and no
	 * read-modify-write is ever needed.
	 */
	limits->logical_block_size = max_t(unsigned int, limits->logical_block_size,
					   RESSD_BLOCK_SIZE);
	limits->physical_block_size = max_t(unsigned int, limits->physical_block_size,
					    RESSD_BLOCK_SIZE);
	limits->io_min = max_t(unsigned int, limits->io_min, RESSD_BLOCK_SIZE);
	limits->discard_granularity = max_t(unsigned int, limits->discard_granularity,
					    RESSD_BLOCK_SIZE);
	/* The trailer's checksums are taken from the callers' pages. */
	ressd_limits_stable_writes(limits);
}

/* ---- constructor and destructor ---- */

/*
 * The ranges of every ressd target: a log range shared with another target
 * (as its log or its normal area) would be corrupted by both.  A reload
 * builds the new table while the old one is live, so a target of another
 * table of the same mapped device does not conflict.
 */
static LIST_HEAD(ressd_claims);
static DEFINE_MUTEX(ressd_claims_lock);

static bool ressd_ranges_overlap(struct block_device *a, sector_t a_start, sector_t a_len,
				 struct block_device *b, sector_t b_start, sector_t b_len)
{
	return a == b && a_start < b_start + b_len && b_start < a_start + a_len;
}

/* Does the log of @a overlap the log or the normal area of @b? */
static bool ressd_log_overlaps(struct ressd_c *a, struct ressd_c *b)
{
	return ressd_ranges_overlap(a->log_dev->bdev, a->geo.log_offset, a->geo.log_sectors,
				    b->log_dev->bdev, b->geo.log_offset, b->geo.log_sectors) ||
	       ressd_ranges_overlap(a->log_dev->bdev, a->geo.log_offset, a->geo.log_sectors,
				    b->origin->bdev, b->geo.origin_offset, b->geo.origin_sectors);
}

static int ressd_claim(struct ressd_c *rc)
{
	struct mapped_device *md = dm_table_get_md(rc->ti->table);
	struct ressd_c *o;
	int r = 0;

	mutex_lock(&ressd_claims_lock);
	list_for_each_entry(o, &ressd_claims, claim) {
		if (dm_table_get_md(o->ti->table) == md && o->ti->table != rc->ti->table)
			continue;
		if (ressd_log_overlaps(rc, o) || ressd_log_overlaps(o, rc)) {
			r = -EBUSY;
			break;
		}
	}
	if (!r)
		list_add(&rc->claim, &ressd_claims);
	mutex_unlock(&ressd_claims_lock);
	return r;
}

static void ressd_unclaim(struct ressd_c *rc)
{
	mutex_lock(&ressd_claims_lock);
	if (!list_empty(&rc->claim))
		list_del_init(&rc->claim);
	mutex_unlock(&ressd_claims_lock);
}

static void ressd_dtr(struct dm_target *ti)
{
	struct ressd_c *rc = ti->private;

	ressd_unclaim(rc);
	ressd_mover_stop(rc);
	/*
	 * Log write completions that are still returning (they queue the
	 * worker, or a callback on their task's plug, after completing the
	 * bios a suspend waited for), then the callbacks' handle (a callback
	 * may start the seal timer), the timer, the worker (which may raise a
	 * table event), then the event.
	 */
	synchronize_rcu();
	ressd_plug_release(rc);
	ressd_log_stop_timer(rc);
	if (rc->wq)
		destroy_workqueue(rc->wq);
	cancel_work_sync(&rc->event_work);
	bioset_exit(&rc->bs);
	ressd_log_exit(rc);
	ressd_index_exit(&rc->index);
	kvfree(rc->ghost.tab);
	if (rc->log_dev)
		dm_put_device(ti, rc->log_dev);
	if (rc->origin)
		dm_put_device(ti, rc->origin);
	kfree(rc);
}

static int ressd_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct ressd_geometry *g;
	struct ressd_c *rc;
	const char *err;
	int r;

	if (argc < 5) {
		ti->error = "Not enough arguments";
		return -EINVAL;
	}

	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc) {
		ti->error = "Cannot allocate context";
		return -ENOMEM;
	}
	rc->ti = ti;
	ti->private = rc;
	INIT_LIST_HEAD(&rc->claim);
	spin_lock_init(&rc->lock);
	ressd_meta_init(rc);
	spin_lock_init(&rc->index.lock);
	bio_list_init(&rc->deferred);
	bio_list_init(&rc->inval_retry);
	INIT_WORK(&rc->worker, ressd_worker);
	INIT_WORK(&rc->event_work, ressd_event_work);
	init_waitqueue_head(&rc->wait);
	rc->mode = RESSD_MODE_RW;
	ressd_default_tunables(&rc->tunables);
	g = &rc->geo;
	/* First: the destructor, which every failure below runs, tears it down. */
	r = ressd_log_init(rc);
	if (r) {
		ti->error = "Cannot allocate record buffers";
		goto bad;
	}

	r = dm_get_device(ti, dm_shift_arg(&as), dm_table_get_mode(ti->table),
			  &rc->origin);
	if (r) {
		ti->error = "Error opening origin device";
		goto bad;
	}
	if (ressd_parse_sector(dm_shift_arg(&as), &g->origin_offset)) {
		ti->error = "Invalid origin offset";
		r = -EINVAL;
		goto bad;
	}
	r = dm_get_device(ti, dm_shift_arg(&as), dm_table_get_mode(ti->table),
			  &rc->log_dev);
	if (r) {
		ti->error = "Error opening log device";
		goto bad;
	}
	if (ressd_parse_sector(dm_shift_arg(&as), &g->log_offset)) {
		ti->error = "Invalid log offset";
		r = -EINVAL;
		goto bad;
	}
	if (ressd_parse_sector(dm_shift_arg(&as), &g->log_sectors)) {
		ti->error = "Invalid log size";
		r = -EINVAL;
		goto bad;
	}
	r = ressd_parse_opt_args(&as, &rc->tunables, &ti->error);
	if (r)
		goto bad;
	if (as.argc) {
		ti->error = "Too many arguments";
		r = -EINVAL;
		goto bad;
	}

	g->origin_sectors = ti->len;
	g->origin_dev_sectors = bdev_nr_sectors(rc->origin->bdev);
	g->log_dev_sectors = bdev_nr_sectors(rc->log_dev->bdev);
	g->same_dev = rc->origin->bdev == rc->log_dev->bdev;
	err = ressd_check_geometry(g);
	if (err) {
		ti->error = (char *)err;
		r = -EINVAL;
		goto bad;
	}
	r = ressd_claim(rc);
	if (r) {
		ti->error = "Log range in use by another ressd target";
		goto bad;
	}
	r = ressd_plug_init(rc);
	if (r) {
		ti->error = "Cannot allocate context";
		goto bad;
	}

	/* Buckets over the target's blocks (a partial last block counts). */
	r = ressd_index_init(&rc->index, ressd_nr_slots(g->log_sectors),
			     ressd_block_of(ti->len + RESSD_SECTORS_PER_BLOCK - 1));
	if (!r)
		r = ressd_log_init_trailers(rc, ressd_nr_slots(g->log_sectors));
	if (r) {
		ti->error = "Cannot allocate the index";
		goto bad;
	}
	r = ressd_meta_load(rc, true, &err);
	if (r) {
		ti->error = (char *)err;
		goto bad;
	}
	rc->lg.nonce = rc->meta.sb.nonce;
	rc->lg.nr_slots = rc->meta.sb.nr_slots;
	rc->lg.origin_blocks = ressd_block_of(g->origin_sectors);
	/* log_mode auto's ghost log: a word a slot (whatever the mode now). */
	rc->ghost.size = rc->lg.nr_slots;
	rc->ghost.window = min_t(u32, rc->lg.nr_slots, RESSD_GHOST_WINDOW_MAX);
	rc->ghost.tab = kvcalloc(rc->ghost.size, sizeof(u32), GFP_KERNEL);
	if (!rc->ghost.tab) {
		ti->error = "Cannot allocate context";
		r = -ENOMEM;
		goto bad;
	}
	spin_lock_irq(&rc->lock);
	__ressd_log_mode_reset(rc, &rc->tunables);
	spin_unlock_irq(&rc->lock);

	r = bioset_init(&rc->bs, 64, 0, BIOSET_NEED_BVECS);
	if (r) {
		ti->error = "Cannot allocate bio set";
		goto bad;
	}
	rc->wq = alloc_ordered_workqueue("kressd", WQ_MEM_RECLAIM);
	if (!rc->wq) {
		ti->error = "Cannot allocate workqueue";
		r = -ENOMEM;
		goto bad;
	}

	ti->per_io_data_size = sizeof(struct ressd_io);
	/*
	 * The trailer's checksums are taken from the callers' pages: they must
	 * not change while they are written (an mmap'd page under writeback),
	 * or replay would drop a block it was told is durable as torn.
	 */
	ressd_ti_stable_writes(ti);	/* 6.11+: ressd_io_hints() */
	ti->num_flush_bios = 1;
	/*
	 * Small writes are acknowledged once their data is in the log and
	 * committed by the next flush: always announce a volatile write cache,
	 * even over devices without one, so that the upper layers send flushes.
	 */
	ti->flush_supported = true;
	ti->num_discard_bios = 1;
	ti->num_secure_erase_bios = 0;
	/* Zeroing is emulated with writes, which take the normal path. */
	ti->num_write_zeroes_bios = 0;
	return 0;

bad:
	ressd_dtr(ti);
	return r;
}

static struct target_type ressd_target = {
	.name = "ressd",
	.version = {0, 5, 4},
	.module = THIS_MODULE,
	.ctr = ressd_ctr,
	.dtr = ressd_dtr,
	.map = ressd_map,
	.end_io = ressd_end_io,
	.presuspend = ressd_presuspend,
	.presuspend_undo = ressd_presuspend_undo,
	.postsuspend = ressd_postsuspend,
	.preresume = ressd_preresume,
	.resume = ressd_resume,
	.status = ressd_status,
	.message = ressd_message,
	.iterate_devices = ressd_iterate_devices,
	.io_hints = ressd_io_hints,
};

static int __init dm_ressd_init(void)
{
	int r = ressd_csum_init();

	if (r)
		return r;
	r = dm_register_target(&ressd_target);
	if (r) {
		DMERR("register failed %d", r);
		ressd_csum_exit();
	}
	return r;
}

static void __exit dm_ressd_exit(void)
{
	dm_unregister_target(&ressd_target);
	ressd_csum_exit();
}

module_init(dm_ressd_init);
module_exit(dm_ressd_exit);

MODULE_DESCRIPTION(DM_NAME " target that logs small random writes sequentially for cheap flash");
MODULE_AUTHOR("dm-ressd developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("dm-ressd");
MODULE_VERSION(RESSD_VERSION);
