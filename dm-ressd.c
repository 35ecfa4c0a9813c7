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
 * failure has its own ti->error), the status and message interfaces, and
 * map().  The log range starts with two superblock copies
 * (dm-ressd-meta.c); the rest of it is the circular log of 4 KiB slots and
 * the index (dm-ressd-rbtree.c) that the redirection of small random writes
 * will fill.  Until that path exists every bio goes to its home location in
 * the normal area, which makes the target behave like dm-linear plus a
 * validated superblock: nothing is held in memory that a crash could lose.
 *
 * Locking: rc->lock (a spinlock, taken with interrupts off because bio
 * completion may take it) protects the tunables and the mode; statistics are
 * atomic64 counters.
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

#include "dm-ressd.h"

#define DM_MSG_PREFIX "ressd"

/* ---- argument parsing (pure; exported to KUnit) ---- */

void ressd_default_tunables(struct ressd_tunables *t)
{
	t->small_write_max = RESSD_DEF_SMALL_WRITE_MAX;
	t->high_watermark = RESSD_DEF_HIGH_WATERMARK;
	t->low_watermark = RESSD_DEF_LOW_WATERMARK;
	t->mover_batch = RESSD_DEF_MOVER_BATCH;
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
	/* A small write plus its record header must fit one mover batch. */
	if (t->small_write_max + RESSD_SECTORS_PER_BLOCK > t->mover_batch)
		return "small_write_max must be smaller than mover_batch";
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
		return "Log range too small";
	if ((g->log_sectors >> 3) - RESSD_SB_BLOCKS > RESSD_MAX_SLOTS)
		return "Log range too large";
	if ((g->origin_sectors >> 3) - 1 > RESSD_INDEX_MAX_BLOCK)
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
	 * Four keys, each at most once: at most 8 words.
	 */
	if (ressd_parse_uint(dm_shift_arg(as), &argc) || argc > 8 ||
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
		/* ressd_parse_tunable() accepted the key, so it is one of four. */
		if (!strcasecmp(key, "small_write_max"))
			bit = 1;
		else if (!strcasecmp(key, "high_watermark"))
			bit = 2;
		else if (!strcasecmp(key, "low_watermark"))
			bit = 4;
		else
			bit = 8;
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

static int ressd_map(struct dm_target *ti, struct bio *bio)
{
	struct ressd_c *rc = ti->private;

	bio_set_dev(bio, rc->origin->bdev);
	if (bio_sectors(bio) || op_is_zone_mgmt(bio_op(bio)))
		bio->bi_iter.bi_sector = rc->geo.origin_offset +
					 dm_target_offset(ti, bio->bi_iter.bi_sector);
	if (bio_op(bio) == REQ_OP_WRITE && bio_sectors(bio))
		atomic64_inc(&rc->direct_writes);
	return DM_MAPIO_REMAPPED;
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
	struct ressd_tunables t;
	enum ressd_mode mode;
	unsigned int sz = 0;
	u64 mapped, used;

	spin_lock_irq(&rc->lock);
	t = rc->tunables;
	mode = rc->mode;
	spin_unlock_irq(&rc->lock);
	spin_lock_irq(&rc->index.lock);
	mapped = rc->index.mapped;
	spin_unlock_irq(&rc->index.lock);
	used = 0;	/* no record is written to the log yet */

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
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %llu %s %llu %llu", rc->origin->name,
		       (unsigned long long)rc->geo.origin_offset,
		       rc->log->name, (unsigned long long)rc->geo.log_offset,
		       (unsigned long long)rc->geo.log_sectors);
		DMEMIT(" 8 small_write_max %u high_watermark %u", t.small_write_max,
		       t.high_watermark);
		DMEMIT(" low_watermark %u mover_batch %u", t.low_watermark,
		       t.mover_batch);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",origin_name=%s,origin_offset=%llu", rc->origin->name,
		       (unsigned long long)rc->geo.origin_offset);
		DMEMIT(",log_name=%s,log_offset=%llu,log_sectors=%llu",
		       rc->log->name, (unsigned long long)rc->geo.log_offset,
		       (unsigned long long)rc->geo.log_sectors);
		DMEMIT(",small_write_max=%u,high_watermark=%u", t.small_write_max,
		       t.high_watermark);
		DMEMIT(",low_watermark=%u,mover_batch=%u,mode=%s;", t.low_watermark,
		       t.mover_batch, ressd_mode_name(mode));
		break;
	}
}

/*
 * Messages:
 *   set <key> <value>	change a tunable (the same keys as the table line)
 */
static int ressd_message(struct dm_target *ti, unsigned int argc, char **argv,
			 char *result, unsigned int maxlen)
{
	struct ressd_c *rc = ti->private;
	struct ressd_tunables t;
	const char *err = NULL;
	int r;

	if (argc == 3 && !strcasecmp(argv[0], "set")) {
		spin_lock_irq(&rc->lock);
		t = rc->tunables;
		spin_unlock_irq(&rc->lock);
		r = ressd_parse_tunable(&t, argv[1], argv[2], &err);
		if (!r) {
			err = ressd_check_tunables(&t);
			r = err ? -EINVAL : 0;
		}
		if (r) {
			DMWARN("%s: set %s %s: %s", dm_device_name(dm_table_get_md(ti->table)),
			       argv[1], argv[2], err);
			return r;
		}
		spin_lock_irq(&rc->lock);
		rc->tunables = t;
		spin_unlock_irq(&rc->lock);
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
		r = fn(ti, rc->log, rc->geo.log_offset, rc->geo.log_sectors, data);
	return r;
}

static void ressd_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	/* Our unit of remapping is 4 KiB: tell the upper layer. */
	if (limits->physical_block_size < RESSD_BLOCK_SIZE)
		limits->physical_block_size = RESSD_BLOCK_SIZE;
	if (limits->io_min < RESSD_BLOCK_SIZE)
		limits->io_min = RESSD_BLOCK_SIZE;
}

/* ---- constructor and destructor ---- */

static void ressd_dtr(struct dm_target *ti)
{
	struct ressd_c *rc = ti->private;

	ressd_index_exit(&rc->index);
	if (rc->log)
		dm_put_device(ti, rc->log);
	if (rc->origin)
		dm_put_device(ti, rc->origin);
	kfree(rc);
}

static int ressd_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	fmode_t mode = dm_table_get_mode(ti->table);
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
	spin_lock_init(&rc->lock);
	mutex_init(&rc->meta_lock);
	spin_lock_init(&rc->index.lock);
	rc->mode = RESSD_MODE_RW;
	ressd_default_tunables(&rc->tunables);
	g = &rc->geo;

	r = dm_get_device(ti, dm_shift_arg(&as), mode, &rc->origin);
	if (r) {
		ti->error = "Error opening origin device";
		goto bad;
	}
	if (ressd_parse_sector(dm_shift_arg(&as), &g->origin_offset)) {
		ti->error = "Invalid origin offset";
		r = -EINVAL;
		goto bad;
	}
	r = dm_get_device(ti, dm_shift_arg(&as), mode, &rc->log);
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
	g->log_dev_sectors = bdev_nr_sectors(rc->log->bdev);
	g->same_dev = rc->origin->bdev == rc->log->bdev;
	err = ressd_check_geometry(g);
	if (err) {
		ti->error = (char *)err;
		r = -EINVAL;
		goto bad;
	}

	r = ressd_index_init(&rc->index, ressd_nr_slots(g->log_sectors));
	if (r) {
		ti->error = "Cannot allocate the index";
		goto bad;
	}
	r = ressd_meta_load(rc, &err);
	if (r) {
		ti->error = (char *)err;
		goto bad;
	}

	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_secure_erase_bios = 0;
	ti->num_write_zeroes_bios = 1;
	return 0;

bad:
	ressd_dtr(ti);
	return r;
}

static struct target_type ressd_target = {
	.name = "ressd",
	.version = {0, 1, 0},
	.module = THIS_MODULE,
	.ctr = ressd_ctr,
	.dtr = ressd_dtr,
	.map = ressd_map,
	.status = ressd_status,
	.message = ressd_message,
	.iterate_devices = ressd_iterate_devices,
	.io_hints = ressd_io_hints,
};

static int __init dm_ressd_init(void)
{
	int r = dm_register_target(&ressd_target);

	if (r)
		DMERR("register failed %d", r);
	return r;
}

static void __exit dm_ressd_exit(void)
{
	dm_unregister_target(&ressd_target);
}

module_init(dm_ressd_init);
module_exit(dm_ressd_exit);

MODULE_DESCRIPTION(DM_NAME " target that logs small random writes sequentially for cheap flash");
MODULE_AUTHOR("dm-ressd developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("dm-ressd");
