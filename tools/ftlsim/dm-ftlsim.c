// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "ftlsim" device-mapper target: an emulated low-end SSD.
 *
 * dm-ftlsim sits at the bottom of a stack and passes every bio to a backing
 * device, like dm-linear, while charging each request the service time a
 * cheap flash translation layer would need (ftlsim-model.c: hybrid
 * log-block FTL or page-mapped FTL with greedy collection).  A fixed delay
 * per request costs the same wherever a write lands; this model does not,
 * which is what makes it useful to evaluate dm-ressd.  The table line is
 *
 *   <start> <len> ftlsim <dev> <offset> <preset> [<#opt_args> <opt_args>...]
 *
 * with a preset (ssd-a, ssd-b, ssd-c, sd-card, sd-worst) and optional
 * key/value pairs that override the model's parameters, pick the mode and
 * the time scale (README.md lists them).
 *
 * Modes.  In virtual mode (the default) the target only accounts: each
 * request arrives when the device becomes free, so the counters, busy_us
 * among them, are a deterministic function of the request stream.  In
 * realtime mode a request arrives at the current time (in model time: real
 * time since the constructor divided by scale / 100), waits for the device
 * if it is busy, and its completion is held back until the modelled finish
 * time, mapped back to real time.  The bio itself is submitted at once; the
 * backing device's own latency only matters when it exceeds the model's.
 *
 * Holding a completion back.  end_io() returns DM_ENDIO_INCOMPLETE for a bio
 * whose deadline is in the future and puts it on a list ordered by
 * deadline; an hrtimer (soft, so its callback runs in softirq context)
 * ends the bios that are due with bio_endio() a second time, and end_io()
 * then lets them through.  dm-cache and dm-thin end a clone a second time
 * in the same way after hooking its completion.  Suspend needs nothing
 * extra: dm waits for every bio, so it waits for the held ones, at most
 * until the last deadline.
 *
 * State and crashes.  Nothing of the model is persistent: the data live on
 * the backing device, the FTL state (open logs, page map) and the counters
 * only in memory.  A new table, even an identical reload, starts from a
 * fresh device; precondition it again after a reload.  Suspend and resume
 * keep the state.
 *
 * Locking.  fc->lock protects the model (its state and counters); map()
 * takes it around ftlsim_model_submit(), so requests are accounted in the
 * order they reach map(), which never sleeps nor allocates.  fc->delay_lock
 * protects the list of held bios and the arming of the timer; end_io() may
 * run in hard interrupt context, so both locks are taken with interrupts
 * off.  They never nest.  Everything else in struct ftlsim_c is set by the
 * constructor and read-only afterwards: a new table makes a new target.
 */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/device-mapper.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "ftlsim-model.h"

#define DM_MSG_PREFIX "ftlsim"

#define FTLSIM_DEF_SCALE	100
#define FTLSIM_MAX_SCALE	10000

/* The target's own optional keys, after the model's (ftlsim_param_set()). */
enum {
	FTLSIM_KEY_MODE,
	FTLSIM_KEY_SCALE,
	FTLSIM_NR_TARGET_KEYS,
};

/*
 * One target.  The fields above the locks are set by the constructor and
 * only read afterwards (as is model.p, the model's parameters).
 */
struct ftlsim_c {
	struct dm_target *ti;
	struct dm_dev *dev;
	sector_t offset;		/* of the target on @dev */
	const struct ftlsim_preset *preset;
	bool realtime;
	u32 scale;			/* realtime: percent of model time */
	u64 t0;				/* realtime: ktime_get_ns() of model time 0 */
	bool pass_discards;		/* @dev supports discard */

	spinlock_t lock;		/* protects model */
	struct ftlsim_model model;	/* protected by lock */

	spinlock_t delay_lock;		/* protects delayed, and arms timer */
	struct list_head delayed;	/* protected by delay_lock; by deadline */
	struct hrtimer timer;		/* fires at the first deadline */
};

/*
 * Per-bio data, written by map() before the bio is issued and read by
 * end_io(), which runs once or, for a held bio, twice.
 */
struct ftlsim_pb {
	u64 deadline;			/* realtime: ktime_get_ns() to end at */
	bool held;			/* on fc->delayed, or was */
	struct list_head node;		/* on fc->delayed, under delay_lock */
};

/* ---- time ---- */

/* Real time to model time and back (realtime mode). */
static u64 ftlsim_model_now(struct ftlsim_c *fc)
{
	u64 now = ktime_get_ns();

	return now > fc->t0 ? mul_u64_u32_div(now - fc->t0, 100, fc->scale) : 0;
}

static u64 ftlsim_real_time(struct ftlsim_c *fc, u64 model_time)
{
	return fc->t0 + mul_u64_u32_div(model_time, fc->scale, 100);
}

/* ---- I/O ---- */

static enum ftlsim_op ftlsim_bio_op(struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return FTLSIM_OP_READ;
	case REQ_OP_WRITE:
		return bio_sectors(bio) ? FTLSIM_OP_WRITE : FTLSIM_OP_FLUSH;
	case REQ_OP_DISCARD:
		return FTLSIM_OP_DISCARD;
	default:
		return FTLSIM_OP_OTHER;
	}
}

/* Account @bio in the model; returns its finish time in model time. */
static u64 __ftlsim_account(struct ftlsim_c *fc, struct bio *bio)
{
	unsigned int flags = 0;
	u64 arrival;

	lockdep_assert_held(&fc->lock);
	if (bio->bi_opf & (REQ_PREFLUSH | REQ_FUA))
		flags |= FTLSIM_REQ_FLUSH;
	/* Virtual mode: no idle time, each request finds the device free. */
	arrival = fc->realtime ? ftlsim_model_now(fc) : fc->model.device_free;
	return ftlsim_model_submit(&fc->model, ftlsim_bio_op(bio),
				   dm_target_offset(fc->ti, bio->bi_iter.bi_sector),
				   bio_sectors(bio), flags, arrival);
}

/*
 * Account the bio in arrival order, then remap it like dm-linear.  Never
 * sleeps: the model neither allocates nor blocks.
 */
static int ftlsim_map(struct dm_target *ti, struct bio *bio)
{
	struct ftlsim_c *fc = ti->private;
	struct ftlsim_pb *pb = dm_per_bio_data(bio, sizeof(*pb));
	unsigned long irqflags;
	u64 finish;

	spin_lock_irqsave(&fc->lock, irqflags);
	finish = __ftlsim_account(fc, bio);
	spin_unlock_irqrestore(&fc->lock, irqflags);

	pb->held = false;
	pb->deadline = fc->realtime ? ftlsim_real_time(fc, finish) : 0;

	/* A discard the backing device cannot take: the model had it. */
	if (bio_op(bio) == REQ_OP_DISCARD && !fc->pass_discards) {
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	bio_set_dev(bio, fc->dev->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = fc->offset +
					 dm_target_offset(ti, bio->bi_iter.bi_sector);
	return DM_MAPIO_REMAPPED;
}

/* Arm the timer for the first held bio; the caller holds delay_lock. */
static void __ftlsim_arm(struct ftlsim_c *fc)
{
	struct ftlsim_pb *first;

	lockdep_assert_held(&fc->delay_lock);
	first = list_first_entry_or_null(&fc->delayed, struct ftlsim_pb, node);
	if (first)
		hrtimer_start(&fc->timer, ns_to_ktime(first->deadline),
			      HRTIMER_MODE_ABS_SOFT);
}

/*
 * Realtime mode: hold a bio that completed before its modelled finish time
 * (the error, if any, is kept in the bio and reported when it is ended).
 */
static int ftlsim_end_io(struct dm_target *ti, struct bio *bio,
			 blk_status_t *error)
{
	struct ftlsim_c *fc = ti->private;
	struct ftlsim_pb *pb = dm_per_bio_data(bio, sizeof(*pb));
	struct ftlsim_pb *pos;
	unsigned long flags;

	if (!fc->realtime || pb->held || ktime_get_ns() >= pb->deadline)
		return DM_ENDIO_DONE;

	pb->held = true;
	spin_lock_irqsave(&fc->delay_lock, flags);
	/* Keep the list by deadline; completions come nearly in order. */
	list_for_each_entry_reverse(pos, &fc->delayed, node)
		if (pos->deadline <= pb->deadline)
			break;
	list_add(&pb->node, &pos->node);
	if (fc->delayed.next == &pb->node)
		__ftlsim_arm(fc);
	spin_unlock_irqrestore(&fc->delay_lock, flags);
	return DM_ENDIO_INCOMPLETE;
}

/* Softirq context: end every held bio that is due, re-arm for the next. */
static enum hrtimer_restart ftlsim_timer_fn(struct hrtimer *timer)
{
	struct ftlsim_c *fc = container_of(timer, struct ftlsim_c, timer);
	struct ftlsim_pb *pb, *tmp;
	unsigned long flags;
	LIST_HEAD(due);
	u64 now;

	spin_lock_irqsave(&fc->delay_lock, flags);
	now = ktime_get_ns();
	list_for_each_entry_safe(pb, tmp, &fc->delayed, node) {
		if (pb->deadline > now)
			break;
		list_move_tail(&pb->node, &due);
	}
	/* hrtimer_start() from the callback re-queues it: no RESTART. */
	__ftlsim_arm(fc);
	spin_unlock_irqrestore(&fc->delay_lock, flags);

	list_for_each_entry_safe(pb, tmp, &due, node) {
		list_del(&pb->node);
		bio_endio(dm_bio_from_per_bio_data(pb, sizeof(*pb)));
	}
	return HRTIMER_NORESTART;
}

/* ---- status and messages ---- */

static void ftlsim_status(struct dm_target *ti, status_type_t type,
			  unsigned int status_flags, char *result,
			  unsigned int maxlen)
{
	struct ftlsim_c *fc = ti->private;
	const struct ftlsim_params *p = &fc->model.p;
	const struct ftlsim_params *base = &fc->preset->params;
	const char *mode = fc->realtime ? "realtime" : "virtual";
	unsigned int sz = 0, i, nr;
	struct ftlsim_stats s;
	char v[24], b[24];
	u32 wa_frac;
	u64 wa;

	switch (type) {
	case STATUSTYPE_INFO:
		/* A consistent snapshot of the counters, formatted unlocked. */
		spin_lock_irq(&fc->lock);
		s = fc->model.stats;
		spin_unlock_irq(&fc->lock);
		wa = div_u64_rem(ftlsim_wa_milli(&s), 1000, &wa_frac);
		DMEMIT("preset=%s mode=%s busy_us=%llu wait_us=%llu",
		       fc->preset->name, mode, div_u64(s.busy_ns, 1000),
		       div_u64(s.wait_ns, 1000));
		DMEMIT(" reads=%llu writes=%llu flushes=%llu discards=%llu",
		       s.reads, s.writes, s.flushes, s.discards);
		DMEMIT(" read_bytes=%llu write_bytes=%llu discard_bytes=%llu",
		       s.read_bytes, s.write_bytes, s.discard_bytes);
		DMEMIT(" host_pages=%llu switch_merges=%llu partial_merges=%llu",
		       s.host_pages, s.switch_merges, s.partial_merges);
		DMEMIT(" full_merges=%llu gc_runs=%llu erases=%llu",
		       s.full_merges, s.gc_runs, s.erases);
		DMEMIT(" copied_pages=%llu wa=%llu.%03u", s.copied_pages, wa,
		       wa_frac);
		break;
	case STATUSTYPE_TABLE:
		/* The preset, then only what differs from it. */
		DMEMIT("%s %llu %s", fc->dev->name, (unsigned long long)fc->offset,
		       fc->preset->name);
		nr = 0;
		for (i = 0; i < ftlsim_param_count(); i++)
			if (ftlsim_param_format(p, i, v, sizeof(v)) &&
			    ftlsim_param_format(base, i, b, sizeof(b)) && strcmp(v, b))
				nr += 2;
		if (fc->realtime)
			nr += fc->scale != FTLSIM_DEF_SCALE ? 4 : 2;
		if (!nr)
			break;
		DMEMIT(" %u", nr);
		for (i = 0; i < ftlsim_param_count(); i++)
			if (ftlsim_param_format(p, i, v, sizeof(v)) &&
			    ftlsim_param_format(base, i, b, sizeof(b)) && strcmp(v, b))
				DMEMIT(" %s %s", ftlsim_param_name(i), v);
		if (fc->realtime)
			DMEMIT(" mode realtime");
		if (fc->realtime && fc->scale != FTLSIM_DEF_SCALE)
			DMEMIT(" scale %u", fc->scale);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",device_name=%s,offset=%llu,preset=%s,mode=%s;",
		       fc->dev->name, (unsigned long long)fc->offset,
		       fc->preset->name, mode);
		break;
	}
}

/*
 * Messages:
 *   reset	zero the counters; the FTL state (open logs, page map) stays
 *   reset all	zero the counters and return the FTL to a fresh device
 */
static int ftlsim_message(struct dm_target *ti, unsigned int argc, char **argv,
			  char *result, unsigned int maxlen)
{
	struct ftlsim_c *fc = ti->private;

	if ((argc == 1 || (argc == 2 && !strcasecmp(argv[1], "all"))) &&
	    !strcasecmp(argv[0], "reset")) {
		spin_lock_irq(&fc->lock);
		ftlsim_model_reset_stats(&fc->model);
		if (argc == 2)
			ftlsim_model_reset_state(&fc->model);
		spin_unlock_irq(&fc->lock);
		return 0;
	}
	DMWARN("%s: unsupported message '%s' with %u arguments",
	       dm_device_name(dm_table_get_md(ti->table)), argc ? argv[0] : "",
	       argc);
	return -EINVAL;
}

static int ftlsim_iterate_devices(struct dm_target *ti,
				  iterate_devices_callout_fn fn, void *data)
{
	struct ftlsim_c *fc = ti->private;

	return fn(ti, fc->dev, fc->offset, ti->len, data);
}

static void ftlsim_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct ftlsim_c *fc = ti->private;

	/* The model maps 4 KiB pages: say so to the layers above. */
	if (limits->physical_block_size < FTLSIM_PAGE_SIZE)
		limits->physical_block_size = FTLSIM_PAGE_SIZE;
	if (limits->io_min < FTLSIM_PAGE_SIZE)
		limits->io_min = FTLSIM_PAGE_SIZE;
	/* Discards reach the model even when the backing device lacks them. */
	if (!fc->pass_discards) {
		limits->discard_granularity = FTLSIM_PAGE_SIZE;
		limits->max_discard_sectors = UINT_MAX >> SECTOR_SHIFT;
		limits->max_hw_discard_sectors = UINT_MAX >> SECTOR_SHIFT;
	}
}

/* ---- constructor and destructor ---- */

static int ftlsim_parse_uint(const char *s, unsigned int *out)
{
	if (!s || !isdigit(*s) || kstrtouint(s, 10, out))
		return -EINVAL;
	return 0;
}

/* "mode" and "scale"; -ENOENT when @key is not one of them. */
static int ftlsim_parse_target_key(struct ftlsim_c *fc, const char *key,
				   const char *value, char **error)
{
	unsigned int v;

	if (!strcasecmp(key, "mode")) {
		if (!strcasecmp(value, "virtual")) {
			fc->realtime = false;
		} else if (!strcasecmp(value, "realtime")) {
			fc->realtime = true;
		} else {
			*error = "Invalid mode";
			return -EINVAL;
		}
		return FTLSIM_KEY_MODE;
	}
	if (!strcasecmp(key, "scale")) {
		if (ftlsim_parse_uint(value, &v)) {
			*error = "Invalid scale";
			return -EINVAL;
		}
		if (v < 1 || v > FTLSIM_MAX_SCALE) {
			*error = "scale must be 1 to 10000";
			return -EINVAL;
		}
		fc->scale = v;
		return FTLSIM_KEY_SCALE;
	}
	return -ENOENT;
}

/* Optional arguments: "<#opt_args> key value ...", each key at most once. */
static int ftlsim_parse_opt_args(struct dm_arg_set *as, struct ftlsim_c *fc,
				 struct ftlsim_params *p, char **error)
{
	unsigned int nr_keys = ftlsim_param_count() + FTLSIM_NR_TARGET_KEYS;
	unsigned long seen = 0, scale_seen;
	unsigned int argc;
	const char *err;
	int r;

	if (!as->argc)
		return 0;
	/* Not dm_read_arg_group(): its sscanf("%u") wraps 2^32 + 2 to 2. */
	if (ftlsim_parse_uint(dm_shift_arg(as), &argc) || argc > as->argc ||
	    argc > 2 * nr_keys) {
		*error = "Invalid number of optional arguments";
		return -EINVAL;
	}
	if (argc % 2) {
		*error = "Optional arguments must be key value pairs";
		return -EINVAL;
	}
	for (; argc; argc -= 2) {
		const char *key = dm_shift_arg(as);
		const char *value = dm_shift_arg(as);

		r = ftlsim_param_set(p, key, value, &err);
		if (r == -ENOENT) {
			r = ftlsim_parse_target_key(fc, key, value, error);
			if (r == -ENOENT)
				*error = "Unknown optional argument";
			if (r < 0)
				return -EINVAL;
			r += ftlsim_param_count();
		} else if (r < 0) {
			*error = (char *)err;
			return r;
		}
		if (seen & BIT(r)) {
			*error = "Duplicate optional argument";
			return -EINVAL;
		}
		seen |= BIT(r);
	}
	scale_seen = BIT(ftlsim_param_count() + FTLSIM_KEY_SCALE);
	if ((seen & scale_seen) && !fc->realtime) {
		*error = "scale needs mode realtime";
		return -EINVAL;
	}
	return 0;
}

static void ftlsim_dtr(struct dm_target *ti)
{
	struct ftlsim_c *fc = ti->private;

	/* No bio is in flight any more, so none is held. */
	hrtimer_cancel(&fc->timer);
	ftlsim_model_exit(&fc->model);
	if (fc->dev)
		dm_put_device(ti, fc->dev);
	kfree(fc);
}

/*
 * <dev> <offset> <preset> [<#opt_args> <opt_args>...]: every argument is
 * checked before the model is allocated, each failure with its own
 * ti->error; the model is allocated here, once, so that map() never does.
 */
static int ftlsim_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	unsigned long long offset;
	struct ftlsim_params p;
	struct ftlsim_c *fc;
	const char *arg, *err;
	sector_t end;
	int r;

	if (argc < 3) {
		ti->error = "Not enough arguments";
		return -EINVAL;
	}
	fc = kzalloc(sizeof(*fc), GFP_KERNEL);
	if (!fc) {
		ti->error = "Cannot allocate context";
		return -ENOMEM;
	}
	fc->ti = ti;
	ti->private = fc;
	fc->scale = FTLSIM_DEF_SCALE;
	spin_lock_init(&fc->lock);
	spin_lock_init(&fc->delay_lock);
	INIT_LIST_HEAD(&fc->delayed);
	hrtimer_init(&fc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	fc->timer.function = ftlsim_timer_fn;

	r = dm_get_device(ti, dm_shift_arg(&as), dm_table_get_mode(ti->table),
			  &fc->dev);
	if (r) {
		ti->error = "Error opening device";
		goto bad;
	}
	arg = dm_shift_arg(&as);
	/* kstrtoull accepts a leading '+'; a table line should not. */
	if (!isdigit(*arg) || kstrtoull(arg, 10, &offset)) {
		ti->error = "Invalid device offset";
		r = -EINVAL;
		goto bad;
	}
	fc->offset = offset;
	if (check_add_overflow(fc->offset, ti->len, &end) ||
	    end > bdev_nr_sectors(fc->dev->bdev)) {
		ti->error = "Target range exceeds the device";
		r = -EINVAL;
		goto bad;
	}
	fc->preset = ftlsim_preset_find(dm_shift_arg(&as));
	if (!fc->preset) {
		ti->error = "Unknown preset";
		r = -EINVAL;
		goto bad;
	}
	p = fc->preset->params;
	r = ftlsim_parse_opt_args(&as, fc, &p, &ti->error);
	if (r)
		goto bad;
	if (as.argc) {
		ti->error = "Too many arguments";
		r = -EINVAL;
		goto bad;
	}
	err = ftlsim_params_check(&p, ti->len);
	if (err) {
		ti->error = (char *)err;
		r = -EINVAL;
		goto bad;
	}

	r = ftlsim_model_init(&fc->model, &p, ti->len);
	if (r) {
		ti->error = "Cannot allocate the FTL model";
		goto bad;
	}
	/* Model time 0: realtime mode starts with an idle device. */
	fc->t0 = ktime_get_ns();
	fc->pass_discards = bdev_max_discard_sectors(fc->dev->bdev) > 0;

	/* Flushes and discards are charged here and passed down. */
	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->discards_supported = true;
	ti->num_secure_erase_bios = 0;
	/* Zeroing falls back to writes of zeroes, which the model charges. */
	ti->num_write_zeroes_bios = 0;
	ti->per_io_data_size = sizeof(struct ftlsim_pb);
	return 0;

bad:
	ftlsim_dtr(ti);
	return r;
}

static struct target_type ftlsim_target = {
	.name = "ftlsim",
	.version = {1, 0, 0},
	.features = DM_TARGET_NOWAIT,
	.module = THIS_MODULE,
	.ctr = ftlsim_ctr,
	.dtr = ftlsim_dtr,
	.map = ftlsim_map,
	.end_io = ftlsim_end_io,
	.status = ftlsim_status,
	.message = ftlsim_message,
	.iterate_devices = ftlsim_iterate_devices,
	.io_hints = ftlsim_io_hints,
};

static int __init dm_ftlsim_init(void)
{
	int r = dm_register_target(&ftlsim_target);

	if (r)
		DMERR("register failed %d", r);
	return r;
}

static void __exit dm_ftlsim_exit(void)
{
	dm_unregister_target(&ftlsim_target);
}

module_init(dm_ftlsim_init);
module_exit(dm_ftlsim_exit);

MODULE_DESCRIPTION(DM_NAME " target emulating a low-end SSD's flash translation layer");
MODULE_AUTHOR("dm-ressd developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("dm-ftlsim");
