// SPDX-License-Identifier: GPL-2.0-only
/*
 * ressdsetup: set up, open, inspect and check dm-ressd devices.
 *
 *   ressdsetup format <device> --reserved <size> [options]
 *   ressdsetup convert <partition> --reserved <size> [options]  (convert.c)
 *   ressdsetup decommission <partition>
 *   ressdsetup table  <device>
 *   ressdsetup open   <device> <name>
 *   ressdsetup close  <name>
 *   ressdsetup status <name> [--json] [--watch]
 *   ressdsetup check  <device>
 *   ressdsetup dump   <device> [--json]
 *   ressdsetup probe  <device> --destructive | --range <offset>:<length> [--json]
 *   ressdsetup tab-check | tab-open | tab-close | generator | udev-id  (ressdtab.c)
 *
 * See ressdsetup.8 and Documentation/ressdsetup.rst.  The on-disk format of
 * the log comes from dm-ressd-format.h; the label that "format" writes at
 * offset 0 is ressdsetup's own (label.h).  "probe" (devprobe.c) parses its
 * own options.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "dev.h"
#include "devprobe.h"
#include "json.h"
#include "label.h"
#include "log.h"
#include "probe.h"
#include "ressdtab.h"
#include "status.h"
#include "util.h"

#define RESSDSETUP_VERSION	"1.0"

/* Exit codes of check and dump (as fsck's). */
#define FSCK_OK		0
#define FSCK_PROBLEMS	1
#define FSCK_UNUSABLE	4
#define FSCK_OPERR	8
#define FSCK_USAGE	16

/* ---- options ---- */

enum cmd { C_FORMAT, C_TABLE, C_OPEN, C_CLOSE, C_STATUS, C_CHECK, C_DUMP, C_CONVERT,
	   C_DECOMMISSION, C_NR };
static const char *const cmd_name[C_NR] = {
	"format", "table", "open", "close", "status", "check", "dump", "convert", "decommission"
};
#define M(c)	(1U << (c))

struct opts {
	const char *reserved, *log_device, *log_offset;
	const char *small_write_max, *high_watermark, *low_watermark, *mover_batch;
	const char *dev_model, *mover_policy, *log_mode, *data_csum;
	const char *from_line, *table_line, *interval, *count;
	bool batch, force, json, watch, readonly, drain, verbose, repair;
	const char *pos[4];
	int npos;
};

struct optdef {
	const char *name;
	bool arg;
	unsigned int cmds;
	size_t off;		/* of the const char * or bool in struct opts */
};

#define STR(f)	offsetof(struct opts, f)
static const struct optdef optdefs[] = {
	{ "reserved", true, M(C_FORMAT) | M(C_CONVERT), STR(reserved) },
	{ "log-device", true, M(C_FORMAT) | M(C_TABLE) | M(C_OPEN) | M(C_CHECK) | M(C_DUMP),
	  STR(log_device) },
	{ "log-offset", true, M(C_FORMAT) | M(C_CHECK) | M(C_DUMP), STR(log_offset) },
	{ "small-write-max", true, M(C_FORMAT) | M(C_CONVERT), STR(small_write_max) },
	{ "high-watermark", true, M(C_FORMAT) | M(C_CONVERT), STR(high_watermark) },
	{ "low-watermark", true, M(C_FORMAT) | M(C_CONVERT), STR(low_watermark) },
	{ "mover-batch", true, M(C_FORMAT) | M(C_CONVERT), STR(mover_batch) },
	{ "dev-model", true, M(C_FORMAT) | M(C_CONVERT), STR(dev_model) },
	{ "mover-policy", true, M(C_FORMAT) | M(C_CONVERT), STR(mover_policy) },
	{ "log-mode", true, M(C_FORMAT) | M(C_CONVERT), STR(log_mode) },
	{ "data-csum", true, M(C_FORMAT) | M(C_CONVERT), STR(data_csum) },
	{ "from-line", true, M(C_STATUS), STR(from_line) },
	{ "table-line", true, M(C_STATUS), STR(table_line) },
	{ "interval", true, M(C_STATUS), STR(interval) },
	{ "count", true, M(C_STATUS), STR(count) },
	{ "batch", false, M(C_FORMAT) | M(C_CONVERT) | M(C_DECOMMISSION), STR(batch) },
	{ "batch-mode", false, M(C_FORMAT) | M(C_CONVERT) | M(C_DECOMMISSION), STR(batch) },
	{ "force", false, M(C_FORMAT), STR(force) },
	{ "repair", false, M(C_CONVERT) | M(C_DECOMMISSION), STR(repair) },
	{ "json", false, M(C_STATUS) | M(C_DUMP), STR(json) },
	{ "watch", false, M(C_STATUS), STR(watch) },
	{ "readonly", false, M(C_OPEN), STR(readonly) },
	{ "drain", false, M(C_CLOSE), STR(drain) },
	{ "verbose", false, M(C_CHECK), STR(verbose) },
};

static const char *const cmd_usage[C_NR] = {
	"format <device> --reserved <size> [--log-device <dev> [--log-offset <bytes>]]\n"
	"         [--small-write-max <sectors>] [--high-watermark <%>] [--low-watermark <%>]\n"
	"         [--mover-batch <sectors>] [--dev-model <model>] [--mover-policy fifo|density]\n"
	"         [--log-mode always|never|auto] [--data-csum 0|1] [--batch] [--force]",
	"table <device> [--log-device <dev>]",
	"open <device> <name> [--log-device <dev>] [--readonly]",
	"close <name> [--drain]",
	"status <name> [--json] [--watch [--interval <seconds>] [--count <n>]]\n"
	"       status --from-line <status line> [--table-line <table line>] [--json]",
	"check <device> [--log-device <dev>] [--verbose]\n"
	"       check --log-device <dev> [--log-offset <bytes>] [--verbose]",
	"dump <device> [--log-device <dev>] [--json]\n"
	"       dump --log-device <dev> [--log-offset <bytes>] [--json]",
	"convert <partition> --reserved <size> [--small-write-max <sectors>] [--high-watermark <%>]\n"
	"         [--low-watermark <%>] [--mover-batch <sectors>] [--dev-model <model>]\n"
	"         [--mover-policy fifo|density] [--log-mode always|never|auto] [--data-csum 0|1]\n"
	"         [--batch] [--repair]",
	"decommission <partition> [--batch] [--repair]",
};

static void usage(FILE *f)
{
	int c;

	fprintf(f, "usage: %s <command> [arguments]\n\ncommands:\n", progname);
	for (c = 0; c < C_NR; c++)
		fprintf(f, "  %s\n", cmd_usage[c]);
	fprintf(f, "  %s\n", devprobe_usage);
	for (c = 0; tab_usage[c]; c++)
		fprintf(f, "  %s\n", tab_usage[c]);
	fprintf(f, "\n  %s --help | --version\n\nSee ressdsetup(8).\n", progname);
}

/* Parse argv[2..] for @cmd: 0, or -1 after an error message. */
static int parse_opts(enum cmd cmd, int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		const struct optdef *d = NULL;
		size_t k, len;

		if (!strcmp(a, "-q")) {
			a = "--batch";
		} else if (!strcmp(a, "-v")) {
			a = "--verbose";
		} else if (!strcmp(a, "--")) {
			for (i++; i < argc; i++) {
				if (o->npos == (int)ARRAY_SIZE(o->pos))
					goto too_many;
				o->pos[o->npos++] = argv[i];
			}
			break;
		}
		if (strncmp(a, "--", 2) || !a[2]) {
			if (o->npos == (int)ARRAY_SIZE(o->pos))
				goto too_many;
			o->pos[o->npos++] = a;
			continue;
		}
		a += 2;
		eq = strchr(a, '=');
		len = eq ? (size_t)(eq - a) : strlen(a);
		for (k = 0; k < ARRAY_SIZE(optdefs); k++)
			if (strlen(optdefs[k].name) == len && !strncmp(optdefs[k].name, a, len))
				d = &optdefs[k];
		if (!d || !(d->cmds & M(cmd))) {
			errmsg("%s: unknown option --%.*s (see %s %s --help)", cmd_name[cmd],
			       (int)len, a, progname, cmd_name[cmd]);
			return -1;
		}
		if (d->arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				errmsg("%s: option --%s needs a value", cmd_name[cmd], d->name);
				return -1;
			}
			*(const char **)((char *)o + d->off) = val;
		} else {
			if (eq) {
				errmsg("%s: option --%s takes no value", cmd_name[cmd], d->name);
				return -1;
			}
			*(bool *)((char *)o + d->off) = true;
		}
	}
	return 0;
too_many:
	errmsg("%s: too many arguments (see %s %s --help)", cmd_name[cmd], progname, cmd_name[cmd]);
	return -1;
}

static int want_pos(enum cmd cmd, const struct opts *o, int min, int max)
{
	if (o->npos < min || o->npos > max) {
		errmsg("%s: %s (usage: %s %s)", cmd_name[cmd],
		       o->npos < min ? "missing arguments" : "too many arguments",
		       progname, cmd_usage[cmd]);
		return -1;
	}
	return 0;
}

/* Paths end up in a table line, which is split at white space. */
static int check_path(const char *what, const char *path)
{
	if (!path[0] || strpbrk(path, " \t\n\r")) {
		errmsg("%s path '%s' is empty or contains white space: a table line cannot hold it",
		       what, path);
		return -1;
	}
	return 0;
}

/* ---- the label ---- */

/* Read and decode the label of @d: NULL when valid, else why not. */
static const char *read_label(const struct rdev *d, struct ressd_label *l, int *err)
{
	u8 *blk = xmalloc_aligned(RESSD_BLOCK_SIZE);
	const char *why;

	*err = 0;
	if (d->size < RESSD_BLOCK_SIZE) {
		free(blk);
		return "no ressd label (the device is smaller than 4 KiB)";
	}
	*err = rdev_read(d, 0, blk, RESSD_BLOCK_SIZE);
	if (*err) {
		free(blk);
		return "cannot read the label";
	}
	why = label_decode(blk, l);
	free(blk);
	return why;
}

/* The log device of a label: the device itself, the override, or the recorded path. */
static const char *label_log_path(const struct ressd_label *l, const char *dev_path,
				  const char *override)
{
	if (label_same_dev(l))
		return override ? override : dev_path;
	return override ? override : l->log_device;
}

/* Open @path and read its label; exits on failure with EXIT_DEVICE. */
static void open_labelled(const char *path, struct rdev *d, struct ressd_label *l)
{
	char err[512];
	const char *why;
	int r;

	if (rdev_open(d, path, RDEV_READ, err, sizeof(err)) < 0) {
		errmsg("%s", err);
		exit(EXIT_DEVICE);
	}
	why = read_label(d, l, &r);
	if (r) {
		errmsg("%s: cannot read the label: %s", path, strerror(-r));
		exit(EXIT_DEVICE);
	}
	if (why) {
		errmsg("%s: %s%s", path, why,
		       strcmp(why, "no ressd label") ? "" : " (format it with 'ressdsetup format')");
		exit(EXIT_DEVICE);
	}
	if (l->origin_offset + l->origin_sectors > d->size / SECTOR_SIZE ||
	    l->head_offset + RESSD_LABEL_AREA_SECTORS > d->size / SECTOR_SIZE ||
	    (label_same_dev(l) && l->log_offset + l->log_sectors > d->size / SECTOR_SIZE)) {
		errmsg("%s: the device is smaller (%" PRIu64 " sectors) than its label says",
		       path, d->size / SECTOR_SIZE);
		exit(EXIT_DEVICE);
	}
}

static void build_table(char *buf, size_t n, const char *dev, const char *logdev,
			const struct ressd_label *l)
{
	char model[RESSD_DM_STR_MAX];
	bool has_model = ressd_devmodel_set(&l->dm);
	bool density = l->flags & RESSD_LABEL_DENSITY;
	const char *lm = label_log_mode(l);
	bool log_mode = strcmp(lm, "always");
	const char *dc = l->flags & RESSD_LABEL_NO_DATA_CSUM ? " data_csum 0" : "";

	ressd_devmodel_format(&l->dm, model, sizeof(model));
	snprintf(buf, n,
		 "0 %" PRIu64 " ressd %s %" PRIu64 " %s %" PRIu64 " %" PRIu64
		 " %d small_write_max %u high_watermark %u low_watermark %u mover_batch %u%s%s%s%s%s%s",
		 l->origin_sectors, dev, l->origin_offset, logdev, l->log_offset,
		 l->log_sectors, 8 + (has_model ? 2 : 0) + (density ? 2 : 0) + (log_mode ? 2 : 0) +
		 (*dc ? 2 : 0),
		 l->t.small_write_max, l->t.high_watermark, l->t.low_watermark,
		 l->t.mover_batch, has_model ? " dev_model " : "", has_model ? model : "",
		 density ? " mover_policy density" : "", log_mode ? " log_mode " : "",
		 log_mode ? lm : "", dc);
}

/*
 * A converted device's origin (label.h, RESSD_LABEL_HEAD): a dm-linear
 * table that puts the head copy first and the rest of the normal area in
 * place after it.  @sep separates its two lines.
 */
static void head_table(char *buf, size_t n, const char *dev, const struct ressd_label *l,
		       const char *sep)
{
	snprintf(buf, n, "0 %" PRIu64 " linear %s %" PRIu64 "%s%" PRIu64 " %" PRIu64 " linear %s %" PRIu64,
		 (u64)RESSD_LABEL_AREA_SECTORS, dev, l->head_offset, sep, (u64)RESSD_LABEL_AREA_SECTORS,
		 (u64)(l->origin_sectors - RESSD_LABEL_AREA_SECTORS), dev, (u64)RESSD_LABEL_AREA_SECTORS);
}

/* The dm-linear device under a converted device's target. */
static void origin_name(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s-origin", name);
}

/* ---- format ---- */

static int opt_tunable(const char *name, const char *val, u32 *out)
{
	size_t len;
	char buf[32];

	if (!val)
		return 0;
	len = strlen(val);
	/* watermarks may be written as percentages */
	if (len && len < sizeof(buf) && val[len - 1] == '%' && strstr(name, "watermark")) {
		memcpy(buf, val, len - 1);
		buf[len - 1] = 0;
		val = buf;
	}
	if (parse_u32(val, out)) {
		errmsg("format: --%s: '%s' is not a number", name, val);
		return -1;
	}
	return 0;
}

/* Refuse a device that holds something recognisable at @off, unless forced. */
static int refuse_signature(const struct rdev *d, u64 off, const char *where, bool force)
{
	const char *sig;
	int err;

	sig = probe_device(d, off, &err);
	if (err) {
		errmsg("%s: cannot read it: %s", d->path, strerror(-err));
		return EXIT_DEVICE;
	}
	if (!sig)
		return 0;
	if (force) {
		printf("%s%s holds %s: overwriting it (--force).\n", d->path, where, sig);
		return 0;
	}
	errmsg("%s%s contains %s: refusing to format it (use --force to overwrite it)",
	       d->path, where, sig);
	return EXIT_PARAM;
}

static int zero_range(const struct rdev *d, u64 off, u64 len)
{
	size_t chunk = 256 * 1024;
	u8 *z = xmalloc_aligned(chunk);
	int r = 0;

	while (len && !r) {
		size_t n = len < chunk ? (size_t)len : chunk;

		r = rdev_write(d, off, z, n);
		off += n;
		len -= n;
	}
	free(z);
	return r;
}

/*
 * The tunables, the device model, the mover policy, the log mode and
 * data_csum of @o (format, convert) into @l (its flags included): EXIT_OK,
 * or EXIT_PARAM after a message.
 */
static int label_options(const char *cmd, const struct opts *o, struct ressd_label *l)
{
	const char *why;
	bool density;

	memset(l, 0, sizeof(*l));
	tun_defaults(&l->t);
	if (opt_tunable("small-write-max", o->small_write_max, &l->t.small_write_max) ||
	    opt_tunable("high-watermark", o->high_watermark, &l->t.high_watermark) ||
	    opt_tunable("low-watermark", o->low_watermark, &l->t.low_watermark) ||
	    opt_tunable("mover-batch", o->mover_batch, &l->t.mover_batch))
		return EXIT_PARAM;
	why = tun_check(&l->t);
	if (why) {
		errmsg("%s: %s", cmd, why);
		return EXIT_PARAM;
	}
	if (o->dev_model) {
		if (ressd_devmodel_parse(o->dev_model, &l->dm)) {
			errmsg("%s: --dev-model: '%s' is not 'none' or 11 numbers separated by colons "
			       "(U:off:N:bw:aw:c:e:br:ar:rw4k:ow4k)", cmd, o->dev_model);
			return EXIT_PARAM;
		}
		why = ressd_devmodel_check(&l->dm);
		if (why) {
			errmsg("%s: --dev-model: %s", cmd, why);
			return EXIT_PARAM;
		}
	}
	if (o->mover_policy && strcasecmp(o->mover_policy, "fifo") &&
	    strcasecmp(o->mover_policy, "density")) {
		errmsg("%s: --mover-policy: '%s' is not fifo or density", cmd, o->mover_policy);
		return EXIT_PARAM;
	}
	density = o->mover_policy && !strcasecmp(o->mover_policy, "density");
	if (density && !l->dm.unit_sectors) {
		errmsg("%s: --mover-policy density needs a --dev-model with a unit size", cmd);
		return EXIT_PARAM;
	}
	if (o->log_mode && strcasecmp(o->log_mode, "always") && strcasecmp(o->log_mode, "never") &&
	    strcasecmp(o->log_mode, "auto")) {
		errmsg("%s: --log-mode: '%s' is not always, never or auto", cmd, o->log_mode);
		return EXIT_PARAM;
	}
	if (o->log_mode && !strcasecmp(o->log_mode, "auto") && !ressd_devmodel_set(&l->dm)) {
		errmsg("%s: --log-mode auto needs a --dev-model", cmd);
		return EXIT_PARAM;
	}
	if (o->data_csum && strcmp(o->data_csum, "0") && strcmp(o->data_csum, "1")) {
		errmsg("%s: --data-csum: '%s' is not 0 or 1", cmd, o->data_csum);
		return EXIT_PARAM;
	}
	if (density)
		l->flags |= RESSD_LABEL_DENSITY;
	if (o->data_csum && !strcmp(o->data_csum, "0"))
		l->flags |= RESSD_LABEL_NO_DATA_CSUM;
	if (o->log_mode && !strcasecmp(o->log_mode, "never"))
		l->flags |= RESSD_LABEL_LOG_NEVER;
	if (o->log_mode && !strcasecmp(o->log_mode, "auto"))
		l->flags |= RESSD_LABEL_LOG_AUTO;
	return EXIT_OK;
}

static int cmd_format(const struct opts *o)
{
	const u64 area = RESSD_LABEL_AREA_SECTORS * SECTOR_SIZE;	/* 1 MiB */
	const u64 min_log = (u64)RESSD_MIN_LOG_BLOCKS * RESSD_BLOCK_SIZE;
	const u64 max_log = ((u64)RESSD_MAX_SLOTS + RESSD_SB_BLOCKS) * RESSD_BLOCK_SIZE;
	struct rdev dev, logstore, *log = &dev;
	struct ressd_label l;
	u64 reserved = 0, log_off = 0, log_len, normal_end;
	char h1[32], h2[32], h3[32], warning[1024], uuid[37];
	const char *why, *path;
	u8 *blk;
	int r;

	if (want_pos(C_FORMAT, o, 1, 1))
		return EXIT_PARAM;
	path = o->pos[0];
	r = label_options("format", o, &l);
	if (r)
		return r;
	if (!o->reserved && !o->log_device) {
		errmsg("format: --reserved <size> is needed (the size of the log, e.g. 64M)");
		return EXIT_PARAM;
	}
	if (o->reserved && parse_size(o->reserved, &reserved)) {
		errmsg("format: --reserved: '%s' is not a size (a number with K, M, G or T)",
		       o->reserved);
		return EXIT_PARAM;
	}
	if (o->reserved && (reserved % RESSD_BLOCK_SIZE)) {
		errmsg("format: --reserved: %s is not a multiple of 4 KiB", o->reserved);
		return EXIT_PARAM;
	}
	if (o->reserved && reserved < min_log) {
		errmsg("format: the reserved area of %s is below the minimum log size of %s "
		       "(two superblocks and one record of a block and its trailer)",
		       human_bytes(reserved, h1), human_bytes(min_log, h2));
		return EXIT_PARAM;
	}
	if (o->reserved && reserved > max_log) {
		errmsg("format: the reserved area of %s is above the maximum log size of %s",
		       human_bytes(reserved, h1), human_bytes(max_log, h2));
		return EXIT_PARAM;
	}
	if (o->log_offset && !o->log_device) {
		errmsg("format: --log-offset needs --log-device");
		return EXIT_PARAM;
	}
	if (o->log_offset && (parse_size(o->log_offset, &log_off) || log_off % RESSD_BLOCK_SIZE)) {
		errmsg("format: --log-offset: '%s' is not a multiple of 4 KiB", o->log_offset);
		return EXIT_PARAM;
	}
	if (check_path("device", path) || (o->log_device && check_path("log device", o->log_device)))
		return EXIT_PARAM;

	r = rdev_open_unused(&dev, path, "format");
	if (r)
		return r;
	if (o->log_device) {
		r = rdev_open_unused(&logstore, o->log_device, "format");
		if (r)
			return r;
		log = &logstore;
		if (rdev_same(&dev, log)) {
			errmsg("format: the log device is the device itself: leave out --log-device");
			return EXIT_PARAM;
		}
	}

	/* The layout. */
	if (!o->log_device) {
		if (dev.size < reserved + 2 * area) {
			errmsg("%s is too small (%s) for a %s reserved area: it needs at least %s "
			       "(the label's 1 MiB, a normal area of at least 1 MiB, the reserved area)",
			       path, human_bytes(dev.size, h1), human_bytes(reserved, h2),
			       human_bytes(reserved + 2 * area, h3));
			return EXIT_DEVICE;
		}
		log_off = (dev.size - reserved) & ~(area - 1);
		log_len = (dev.size - log_off) & ~(u64)(RESSD_BLOCK_SIZE - 1);
		normal_end = log_off;
		if (normal_end < 2 * area) {
			errmsg("%s is too small (%s): the normal area would be %s, at least 1 MiB is needed",
			       path, human_bytes(dev.size, h1),
			       human_bytes(normal_end > area ? normal_end - area : 0, h2));
			return EXIT_DEVICE;
		}
		if (log_len > max_log)	/* rounding up to 1 MiB went too far */
			log_len = max_log;
		l.flags |= RESSD_LABEL_SAME_DEV;
	} else {
		normal_end = dev.size & ~(u64)(RESSD_BLOCK_SIZE - 1);
		if (normal_end < 2 * area) {
			errmsg("%s is too small (%s): the normal area after the 1 MiB label area would be %s, "
			       "at least 1 MiB is needed", path, human_bytes(dev.size, h1),
			       human_bytes(normal_end > area ? normal_end - area : 0, h2));
			return EXIT_DEVICE;
		}
		if (log_off >= log->size) {
			errmsg("%s: the log offset %s is beyond its end (%s)", log->path,
			       human_bytes(log_off, h1), human_bytes(log->size, h2));
			return EXIT_DEVICE;
		}
		log_len = o->reserved ? reserved :
			  (log->size - log_off) & ~(u64)(RESSD_BLOCK_SIZE - 1);
		if (!o->reserved && log_len > max_log)
			log_len = max_log;
		if (log_len < min_log) {
			errmsg("%s: the log range would be %s, below the minimum log size of %s",
			       log->path, human_bytes(log_len, h1), human_bytes(min_log, h2));
			return EXIT_DEVICE;
		}
		if (log_off + log_len > log->size) {
			errmsg("%s is too small (%s) for a %s log range at %s", log->path,
			       human_bytes(log->size, h1), human_bytes(log_len, h2),
			       human_bytes(log_off, h3));
			return EXIT_DEVICE;
		}
		snprintf(l.log_device, sizeof(l.log_device), "%s", o->log_device);
		if (strlen(o->log_device) >= sizeof(l.log_device)) {
			errmsg("format: the log device path is longer than %zu bytes",
			       sizeof(l.log_device) - 1);
			return EXIT_PARAM;
		}
		if (o->log_device[0] != '/') {
			char *abs = absolute_path(o->log_device);

			if (strlen(abs) >= sizeof(l.log_device)) {
				errmsg("format: the log device path is longer than %zu bytes",
				       sizeof(l.log_device) - 1);
				free(abs);
				return EXIT_PARAM;
			}
			snprintf(l.log_device, sizeof(l.log_device), "%s", abs);
			free(abs);
		}
		l.log_device_sectors = log->size / SECTOR_SIZE;
	}
	l.device_sectors = dev.size / SECTOR_SIZE;
	l.origin_offset = RESSD_LABEL_AREA_SECTORS;
	l.origin_sectors = (normal_end - area) / SECTOR_SIZE;
	l.log_offset = log_off / SECTOR_SIZE;
	l.log_sectors = log_len / SECTOR_SIZE;
	l.created = (u64)time(NULL);
	if (getrandom(&l.nonce, sizeof(l.nonce), 0) != sizeof(l.nonce) ||
	    getrandom(l.uuid, sizeof(l.uuid), 0) != sizeof(l.uuid)) {
		errmsg("format: cannot get random numbers: %s", strerror(errno));
		return EXIT_DEVICE;
	}
	l.uuid[6] = (l.uuid[6] & 0x0f) | 0x40;	/* version 4 */
	l.uuid[8] = (l.uuid[8] & 0x3f) | 0x80;	/* RFC 4122 variant */
	blk = xmalloc_aligned(RESSD_BLOCK_SIZE);
	label_encode(blk, &l);
	why = label_decode(blk, &l);
	if (why) {	/* a layout bug: never write it */
		errmsg("format: internal error: the label would be invalid: %s", why);
		return EXIT_DEVICE;
	}

	/* What is there now. */
	r = refuse_signature(&dev, 0, "", o->force);
	if (!r && o->log_device)
		r = refuse_signature(log, 0, "", o->force);
	if (!r && log_off) {
		char where[64];

		snprintf(where, sizeof(where), " at the log offset %" PRIu64, log_off);
		r = refuse_signature(log, log_off, where, o->force);
	}
	if (r)
		return r;

	if (o->log_device)
		snprintf(warning, sizeof(warning),
			 "This will overwrite data on %s (its first 1 MiB) and on %s\n"
			 "(the first 8 KiB of the log range) irrevocably; the normal area\n"
			 "keeps its old contents.", path, log->path);
	else
		snprintf(warning, sizeof(warning),
			 "This will overwrite data on %s irrevocably (its first 1 MiB and\n"
			 "the first 8 KiB of the reserved area at the end); the normal area\n"
			 "keeps its old contents.", path);
	if (!o->batch && !confirm(warning)) {
		errmsg("format: not confirmed: nothing was written");
		return EXIT_PARAM;
	}

	/*
	 * The log range's first 8 KiB (both superblock copies) zero, so that the
	 * target formats the log on first activation; then the label area; the
	 * label itself last, once the rest is durable.
	 */
	r = zero_range(log, log_off, 2 * RESSD_BLOCK_SIZE);
	if (!r && log != &dev)
		r = rdev_sync(log);
	if (!r)
		r = zero_range(&dev, 0, area);
	if (!r)
		r = rdev_sync(&dev);
	if (!r)
		r = rdev_write(&dev, 0, blk, RESSD_BLOCK_SIZE);
	if (!r)
		r = rdev_sync(&dev);
	free(blk);
	if (r) {
		errmsg("format: writing %s failed: %s", path, strerror(-r));
		return EXIT_DEVICE;
	}
	uuid_format(l.uuid, uuid);
	printf("Formatted %s (uuid %s):\n", path, uuid);
	printf("  label          sectors 0..7 (4 KiB)\n");
	printf("  normal area    sectors %" PRIu64 "..%" PRIu64 " (%s) on %s\n",
	       l.origin_offset, l.origin_offset + l.origin_sectors - 1,
	       human_bytes(l.origin_sectors * SECTOR_SIZE, h1), path);
	printf("  reserved area  sectors %" PRIu64 "..%" PRIu64 " (%s, %u log slots) on %s\n",
	       l.log_offset, l.log_offset + l.log_sectors - 1,
	       human_bytes(l.log_sectors * SECTOR_SIZE, h1), ressd_nr_slots(l.log_sectors),
	       log->path);
	printf("The log is formatted by dm-ressd when the device is first opened:\n"
	       "  ressdsetup open %s <name>\n", path);
	rdev_close(&dev);
	if (log != &dev)
		rdev_close(log);
	return EXIT_OK;
}

/* ---- table, open, close ---- */

static int cmd_table(const struct opts *o)
{
	struct ressd_label l;
	struct rdev d;
	char table[1024];
	const char *logdev;

	if (want_pos(C_TABLE, o, 1, 1))
		return EXIT_PARAM;
	open_labelled(o->pos[0], &d, &l);
	logdev = label_log_path(&l, o->pos[0], o->log_device);
	if (check_path("device", o->pos[0]) || check_path("log device", logdev))
		return EXIT_PARAM;
	if (l.flags & RESSD_LABEL_HEAD) {
		char head[512];

		head_table(head, sizeof(head), o->pos[0], &l, "\n#   ");
		printf("# converted: the origin is the dm-linear device <name>-origin, whose table is\n"
		       "#   %s\n", head);
		build_table(table, sizeof(table), "/dev/mapper/<name>-origin", logdev, &l);
	} else {
		build_table(table, sizeof(table), o->pos[0], logdev, &l);
	}
	printf("%s\n", table);
	rdev_close(&d);
	return EXIT_OK;
}

static const char *dmsetup_path(void)
{
	const char *p = getenv("RESSDSETUP_DMSETUP");

	return p && *p ? p : "dmsetup";
}

/* dmsetup with @args (run_prog). */
static int run_dmsetup(const char *const *args, char **out)
{
	return run_prog(dmsetup_path(), args, out);
}

/* A device-mapper name; /dev/mapper/<name> is taken for <name>. */
static int check_name(const char **namep)
{
	const char *name = *namep;

	if (!strncmp(name, "/dev/mapper/", 12))
		*namep = name += 12;
	if (!name[0] || strlen(name) > 127 || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..")) {
		errmsg("'%s' is not a valid device-mapper name (1 to 127 characters, no '/')", name);
		return -1;
	}
	return 0;
}

/*
 * dmsetup create @name with @table (read-only with @ro, with the DM UUID
 * @uuid unless NULL): 0, or an exit code after a message.
 */
static int dm_create(const char *name, const char *table, bool ro, const char *uuid)
{
	const char *args[10];
	int n = 0, r;

	args[n++] = "create";
	args[n++] = name;
	if (ro)
		args[n++] = "--readonly";
	if (uuid) {
		args[n++] = "--uuid";
		args[n++] = uuid;
	}
	args[n++] = "--table";
	args[n++] = table;
	args[n] = NULL;
	r = run_dmsetup(args, NULL);
	if (r) {
		errmsg("open: 'dmsetup create %s' failed%s; the kernel's reason is in its log "
		       "(dmesg | tail)", name, r < 0 ? " to run" : "");
		return EXIT_PARAM;
	}
	return EXIT_OK;
}

/*
 * Create the target @name of the device @path (label @l, log on @logdev);
 * a converted device's dm-linear origin <name>-origin first.
 */
static int open_target(const char *path, const char *logdev, const char *name,
		       const struct ressd_label *l, bool ro)
{
	char table[1024], origin[160], opath[180], uuid[64], u[37];
	const char *rm[] = { "remove", origin, NULL };
	int r;

	if (!(l->flags & RESSD_LABEL_HEAD)) {
		build_table(table, sizeof(table), path, logdev, l);
		return dm_create(name, table, ro, NULL);
	}
	origin_name(origin, sizeof(origin), name);
	if (strlen(origin) > 127) {
		errmsg("open: the name '%s' is too long for a converted device (its origin "
		       "device is named '<name>-origin', at most 127 characters)", name);
		return EXIT_PARAM;
	}
	head_table(table, sizeof(table), path, l, "\n");
	/* (58-ressd-origin.rules keeps udev from probing and linking it) */
	uuid_format(l->uuid, u);
	snprintf(uuid, sizeof(uuid), "RESSD-ORIGIN-%s", u);
	r = dm_create(origin, table, ro, uuid);
	if (r)
		return r;
	snprintf(opath, sizeof(opath), "/dev/mapper/%s", origin);
	build_table(table, sizeof(table), opath, logdev, l);
	r = dm_create(name, table, ro, NULL);
	if (r)
		run_dmsetup(rm, NULL);
	return r;
}

static int cmd_open(const struct opts *o)
{
	struct ressd_label l;
	struct rdev d, ld;
	char err[512];
	const char *logdev, *name = o->pos[1];
	int r;

	if (want_pos(C_OPEN, o, 2, 2) || check_name(&name))
		return EXIT_PARAM;
	open_labelled(o->pos[0], &d, &l);
	if (!d.blk) {
		errmsg("%s is a regular file: attach it to a loop device first "
		       "(losetup -f --show %s) and open that", d.path, d.path);
		return EXIT_DEVICE;
	}
	logdev = label_log_path(&l, o->pos[0], o->log_device);
	if (check_path("device", o->pos[0]) || check_path("log device", logdev))
		return EXIT_PARAM;
	/*
	 * Like cryptsetup: a device that is mounted or already held (by an open
	 * dm-ressd device, above all) is not opened again.  Two targets on one
	 * log would each replay it and then overwrite each other's records.
	 */
	if (rdev_busy(&d)) {
		errmsg("%s is in use (already open, mounted or held by another device): "
		       "refusing to open it", d.path);
		return EXIT_BUSY;
	}
	if (!label_same_dev(&l) || o->log_device) {
		if (rdev_open(&ld, logdev, RDEV_READ, err, sizeof(err)) < 0) {
			errmsg("log device: %s (give the right one with --log-device)", err);
			return EXIT_DEVICE;
		}
		if (!ld.blk) {
			errmsg("log device %s is a regular file: attach it to a loop device first", logdev);
			return EXIT_DEVICE;
		}
		if (rdev_busy(&ld)) {
			errmsg("log device %s is in use (already open, mounted or held by another "
			       "device): refusing to open it", logdev);
			return EXIT_BUSY;
		}
		if (l.log_offset + l.log_sectors > ld.size / SECTOR_SIZE) {
			errmsg("log device %s is too small (%" PRIu64 " sectors) for the log range "
			       "of the label (sectors %" PRIu64 "..%" PRIu64 ")", logdev,
			       ld.size / SECTOR_SIZE, l.log_offset, l.log_offset + l.log_sectors - 1);
			return EXIT_DEVICE;
		}
		rdev_close(&ld);
	}
	rdev_close(&d);
	r = open_target(o->pos[0], logdev, name, &l, o->readonly);
	if (!r)
		printf("Opened /dev/mapper/%s\n", name);
	return r;
}

/* A converted device's dm-linear origin, when there is one (its DM UUID says so): removed. */
static int remove_origin(const char *name)
{
	char origin[160], path[180], *out = NULL;
	const char *args[] = { "remove", "--retry", origin, NULL };
	const char *info[] = { "info", "-c", "-o", "uuid", "--noheadings", origin, NULL };
	bool ours;

	origin_name(origin, sizeof(origin), name);
	snprintf(path, sizeof(path), "/dev/mapper/%s", origin);
	if (access(path, F_OK))
		return EXIT_OK;
	ours = !run_dmsetup(info, &out) && out && !strncmp(out, "RESSD-ORIGIN-", 13);
	free(out);
	if (!ours)
		return EXIT_OK;
	if (run_dmsetup(args, NULL)) {
		errmsg("close: 'dmsetup remove %s' failed", origin);
		return EXIT_PARAM;
	}
	return EXIT_OK;
}

static int cmd_close(const struct opts *o)
{
	const char *name = o->pos[0];
	const char *drain[] = { "message", NULL, "0", "drain", NULL };
	const char *remove[] = { "remove", NULL, NULL };

	if (want_pos(C_CLOSE, o, 1, 1) || check_name(&name))
		return EXIT_PARAM;
	drain[1] = remove[1] = name;
	if (o->drain && run_dmsetup(drain, NULL)) {
		errmsg("close: 'dmsetup message %s 0 drain' failed: the device stays open", name);
		return EXIT_PARAM;
	}
	if (run_dmsetup(remove, NULL)) {
		errmsg("close: 'dmsetup remove %s' failed", name);
		return EXIT_PARAM;
	}
	return remove_origin(name);
}

/* convert.h's @how from the options. */
static unsigned int conv_how(const struct opts *o)
{
	return (o->batch ? RESSD_CONV_BATCH : 0) | (o->repair ? RESSD_CONV_REPAIR : 0);
}

/* ---- convert, decommission (convert.c) ---- */

static int cmd_convert(const struct opts *o)
{
	const u64 min_log = (u64)RESSD_MIN_LOG_BLOCKS * RESSD_BLOCK_SIZE;
	struct ressd_label l;
	u64 reserved;
	int r;

	if (want_pos(C_CONVERT, o, 1, 1))
		return EXIT_PARAM;
	r = label_options("convert", o, &l);
	if (r)
		return r;
	if (!o->reserved) {
		errmsg("convert: --reserved <size> is needed (the size of the log, e.g. 64M)");
		return EXIT_PARAM;
	}
	if (parse_size(o->reserved, &reserved) || reserved % RESSD_BLOCK_SIZE || reserved < min_log) {
		errmsg("convert: --reserved: '%s' is not a size in 4 KiB blocks of at least %" PRIu64
		       " KiB", o->reserved, min_log / 1024);
		return EXIT_PARAM;
	}
	if (check_path("device", o->pos[0]))
		return EXIT_PARAM;
	return convert_device(o->pos[0], &l, reserved, conv_how(o));
}

/*
 * Drain the log of the converted device @path (label @l): open it under a
 * name of its own, "drain", check that the log is empty, close it.
 */
static int drain_device(const char *path, const struct ressd_label *l)
{
	char name[64], *out = NULL;
	const char *drain[] = { "message", name, "0", "drain", NULL };
	const char *status[] = { "status", name, NULL };
	const char *rm[] = { "remove", "--retry", name, NULL };
	unsigned long used = 1;
	int r;

	snprintf(name, sizeof(name), "ressd-decommission-%d", (int)getpid());
	printf("Draining the log of %s (opened as %s)...\n", path, name);
	r = open_target(path, path, name, l, false);
	if (r)
		return r;
	r = run_dmsetup(drain, NULL) || run_dmsetup(status, &out) ? EXIT_PARAM : EXIT_OK;
	/* "0 <len> ressd <used>/<total> ..." */
	if (!r && (!out || sscanf(out, "%*u %*u ressd %lu/", &used) != 1 || used))
		r = EXIT_PARAM;
	free(out);
	if (run_dmsetup(rm, NULL) || remove_origin(name))
		r = EXIT_PARAM;
	if (r)
		errmsg("decommission: draining the log of %s failed (%lu slots still used): "
		       "nothing was changed; the kernel's reason is in its log (dmesg | tail)",
		       path, used);
	return r;
}

static int cmd_decommission(const struct opts *o)
{
	struct ressd_label l;
	struct rdev d;
	const char *why, *path = o->pos[0];
	char warning[512], err_buf[256];
	u8 *sbs;
	bool used;
	int r, err;

	if (want_pos(C_DECOMMISSION, o, 1, 1) || check_path("device", o->pos[0]))
		return EXIT_PARAM;
	r = rdev_open_unused(&d, path, "decommission");
	if (r) {
		if (r == EXIT_BUSY)
			errmsg("(an open dm-ressd device is closed with 'ressdsetup close <name>')");
		return r;
	}
	why = read_label(&d, &l, &err);
	if (err) {
		errmsg("%s: cannot read the label: %s", path, strerror(-err));
		rdev_close(&d);
		return EXIT_DEVICE;
	}
	if (why) {
		rdev_close(&d);
		return decommission_resume(path, conv_how(o));
	}
	if ((l.flags & RESSD_LABEL_HEAD) && l.device_sectors != d.size / SECTOR_SIZE) {
		errmsg("%s changed size since it was converted (%" PRIu64 " sectors, now %" PRIu64
		       "): refusing to decommission it", path, l.device_sectors, d.size / SECTOR_SIZE);
		rdev_close(&d);
		return EXIT_DEVICE;
	}
	if (!(l.flags & RESSD_LABEL_HEAD)) {
		errmsg("%s was made by 'ressdsetup format', not 'convert': its data starts at 1 MiB "
		       "and cannot be put back in place. Its normal area holds all of it after "
		       "'ressdsetup open' and 'ressdsetup close --drain' (sectors %" PRIu64
		       " to %" PRIu64 ")", path, l.origin_offset, l.origin_offset + l.origin_sectors - 1);
		rdev_close(&d);
		return EXIT_PARAM;
	}
	/* a log that was never opened has zero superblocks: nothing in it */
	sbs = xmalloc_aligned(2 * RESSD_BLOCK_SIZE);
	r = log_superblocks(&d, &l, sbs);
	rdev_close(&d);
	if (r)
		goto out;
	used = log_sbs_opened(sbs);
	snprintf(warning, sizeof(warning),
		 "This will drain the log of %s and make it a plain ext partition\n"
		 "again, its file system grown over the whole partition.", path);
	if (!o->batch && !confirm(warning)) {
		errmsg("decommission: not confirmed: nothing was written");
		r = EXIT_PARAM;
		goto out;
	}
	if (used) {
		r = drain_device(path, &l);
		/*
		 * The superblocks of the drained log, which the drain wrote
		 * (its device removed).  Written in the moment between that
		 * remove and this read, they would pass for the drained ones.
		 */
		if (!r && rdev_open(&d, path, RDEV_READ, err_buf, sizeof(err_buf))) {
			errmsg("%s: %s", path, err_buf);
			r = EXIT_DEVICE;
		}
		if (!r) {
			r = log_superblocks(&d, &l, sbs);
			rdev_close(&d);
		}
		if (r)
			goto out;
	}
	r = decommission_device(path, &l, conv_how(o), sbs);
out:
	free(sbs);
	return r;
}

/* ---- status ---- */

/* The first line of @text whose target is ressd (or the first line). */
static char *ressd_line(char *text)
{
	char *line, *save = NULL;
	char *first = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char t[64];

		if (!first)
			first = line;
		if (sscanf(line, "%*s %*s %63s", t) == 1 && !strcmp(t, "ressd"))
			return line;
	}
	return first ? first : text;
}

static int status_once(const struct opts *o, const char *name)
{
	const char *sargs[] = { "status", name, NULL };
	const char *targs[] = { "table", name, NULL };
	struct ressd_status st;
	struct ressd_table t;
	char *sout = NULL, *tout = NULL, err[256];
	bool have_t;
	int r;

	r = run_dmsetup(sargs, &sout);
	if (r) {
		errmsg("status: 'dmsetup status %s' failed", name);
		free(sout);
		return EXIT_DEVICE;
	}
	if (status_parse(ressd_line(sout), &st, err, sizeof(err))) {
		errmsg("status: cannot parse the status of %s: %s", name, err);
		free(sout);
		return EXIT_DEVICE;
	}
	r = run_dmsetup(targs, &tout);
	have_t = !r && !table_parse(ressd_line(tout), &t, err, sizeof(err));
	if (!have_t)
		errmsg("status: no table of %s (%s)", name, r ? "dmsetup table failed" : err);
	if (o->json)
		status_print_json(stdout, name, &st, have_t ? &t : NULL);
	else
		status_print(stdout, name, &st, have_t ? &t : NULL);
	free(sout);
	free(tout);
	return EXIT_OK;
}

static int cmd_status(const struct opts *o)
{
	u32 interval = 2, count = 0, k;
	const char *name;
	char err[256];
	int r;

	if (o->from_line) {
		struct ressd_status st;
		struct ressd_table t;

		if (want_pos(C_STATUS, o, 0, 1))
			return EXIT_PARAM;
		if (status_parse(o->from_line, &st, err, sizeof(err))) {
			errmsg("status: cannot parse the status line: %s", err);
			return EXIT_PARAM;
		}
		if (o->table_line && table_parse(o->table_line, &t, err, sizeof(err))) {
			errmsg("status: cannot parse the table line: %s", err);
			return EXIT_PARAM;
		}
		if (o->json)
			status_print_json(stdout, o->npos ? o->pos[0] : NULL, &st,
					  o->table_line ? &t : NULL);
		else
			status_print(stdout, o->npos ? o->pos[0] : NULL, &st,
				     o->table_line ? &t : NULL);
		return EXIT_OK;
	}
	if (o->table_line) {
		errmsg("status: --table-line goes with --from-line");
		return EXIT_PARAM;
	}
	name = o->pos[0];
	if (want_pos(C_STATUS, o, 1, 1) || check_name(&name))
		return EXIT_PARAM;
	if ((o->interval && (parse_u32(o->interval, &interval) || !interval)) ||
	    (o->count && parse_u32(o->count, &count))) {
		errmsg("status: --interval and --count want positive whole numbers");
		return EXIT_PARAM;
	}
	if (!o->watch)
		return status_once(o, name);
	for (k = 0; !count || k < count; k++) {
		if (k)
			sleep(interval);
		if (isatty(STDOUT_FILENO))
			printf("\033[H\033[2J");
		else if (k && !o->json)
			printf("\n");
		if (!o->json) {
			time_t now = time(NULL);
			char ts[64];

			strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", localtime(&now));
			printf("%s (every %u s; Ctrl-C to stop)\n", ts, interval);
		}
		r = status_once(o, name);
		if (r)
			return r;
		fflush(stdout);
	}
	return EXIT_OK;
}

/* ---- check and dump: reading the label, the superblocks and the log ---- */

struct ctx {
	const struct opts *o;
	bool verbose;
	/* the labelled device, if any */
	const char *dev_path;
	struct rdev dev;
	bool have_dev;
	struct ressd_label label;
	/* the log */
	const char *log_path;
	struct rdev logstore;
	const struct rdev *log;
	u64 base;			/* bytes */
	struct ressd_geo geo;		/* the label's, or the newest copy's */
	bool geo_known;
	struct logdev ld;
	u8 *sbblk[RESSD_SB_BLOCKS];
	struct sb_info sbi[RESSD_SB_BLOCKS];
	const char *sb_why[RESSD_SB_BLOCKS];
	char sb_detail[RESSD_SB_BLOCKS][256];
	bool blank;			/* both superblock copies all zero */
	int best;
	struct log_geo lg;
	struct replay rp;
	bool replayed;
	int replay_ret;
	struct scan_result scan;
	bool scanned;
	/* findings */
	int problems;
	bool unusable, operr;
	bool quiet;			/* dump: findings are not printed as lines */
	struct json *j;
};

static void say(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void unusable(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void operr(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void vline(struct ctx *c, const char *prefix, const char *fmt, va_list ap)
{
	FILE *f = c->quiet ? stderr : stdout;

	if (c->quiet && !strcmp(prefix, ""))
		return;
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
}

static void say(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(c, "", fmt, ap);
	va_end(ap);
}

static void problem(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->problems++;
	va_start(ap, fmt);
	vline(c, "PROBLEM: ", fmt, ap);
	va_end(ap);
}

static void unusable(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->unusable = true;
	va_start(ap, fmt);
	vline(c, "ERROR: ", fmt, ap);
	va_end(ap);
}

static void operr(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->operr = true;
	va_start(ap, fmt);
	vline(c, "FAILED: ", fmt, ap);
	va_end(ap);
}

static const char *copy_name(int i)
{
	return i ? "B" : "A";
}

/* Open the device and its label (when given), then the log device. */
static int load_devices(struct ctx *c)
{
	const struct opts *o = c->o;
	char err[512], h1[32];
	const char *why;
	int r;

	c->log = NULL;
	if (o->npos) {
		c->dev_path = o->pos[0];
		if (o->log_offset) {
			errmsg("--log-offset is only for a log device without a label");
			return FSCK_USAGE;
		}
		if (rdev_open(&c->dev, c->dev_path, RDEV_READ, err, sizeof(err)) < 0) {
			operr(c, "%s", err);
			return FSCK_OPERR;
		}
		c->have_dev = true;
		if (rdev_busy(&c->dev))
			say(c, "warning: %s is in use (an active dm-ressd target?): the log may "
			    "change while it is read", c->dev_path);
		why = read_label(&c->dev, &c->label, &r);
		if (r) {
			operr(c, "%s: cannot read the label: %s", c->dev_path, strerror(-r));
			return FSCK_OPERR;
		}
		if (why) {
			unusable(c, "%s: label: %s", c->dev_path, why);
			return FSCK_UNUSABLE;
		}
		c->geo.origin_offset = c->label.origin_offset;
		c->geo.origin_sectors = c->label.origin_sectors;
		c->geo.log_offset = c->label.log_offset;
		c->geo.log_sectors = c->label.log_sectors;
		c->geo_known = true;
		c->base = c->geo.log_offset * SECTOR_SIZE;
		if (c->geo.origin_offset + c->geo.origin_sectors > c->dev.size / SECTOR_SIZE) {
			unusable(c, "%s is %s, smaller than its normal area's end at sector %" PRIu64,
				 c->dev_path, human_bytes(c->dev.size, h1),
				 c->geo.origin_offset + c->geo.origin_sectors);
			return FSCK_UNUSABLE;
		}
		c->log_path = label_log_path(&c->label, c->dev_path, o->log_device);
		if (label_same_dev(&c->label) && !o->log_device)
			c->log = &c->dev;
	} else {
		if (!o->log_device) {
			errmsg("give a device with a ressd label, or --log-device for a log range "
			       "without one");
			return FSCK_USAGE;
		}
		c->log_path = o->log_device;
		if (o->log_offset && (parse_size(o->log_offset, &c->base) ||
				      c->base % RESSD_BLOCK_SIZE)) {
			errmsg("--log-offset: '%s' is not a multiple of 4 KiB", o->log_offset);
			return FSCK_USAGE;
		}
	}
	if (!c->log) {
		if (rdev_open(&c->logstore, c->log_path, RDEV_READ, err, sizeof(err)) < 0) {
			operr(c, "log device: %s", err);
			return FSCK_OPERR;
		}
		c->log = &c->logstore;
		if (rdev_busy(c->log))
			say(c, "warning: %s is in use (an active dm-ressd target?): the log may "
			    "change while it is read", c->log_path);
	}
	if (c->geo_known) {
		if (c->base + c->geo.log_sectors * SECTOR_SIZE > c->log->size) {
			unusable(c, "%s is %s, smaller than the log range's end at sector %" PRIu64,
				 c->log_path, human_bytes(c->log->size, h1),
				 c->geo.log_offset + c->geo.log_sectors);
			return FSCK_UNUSABLE;
		}
	} else if (c->base + RESSD_SB_BLOCKS * RESSD_BLOCK_SIZE > c->log->size) {
		unusable(c, "%s: no room for two superblocks at offset %" PRIu64,
			 c->log_path, c->base);
		return FSCK_UNUSABLE;
	}
	return 0;
}

static bool block_is_zero(const u8 *p)
{
	size_t k;

	for (k = 0; k < RESSD_BLOCK_SIZE; k++)
		if (p[k])
			return false;
	return true;
}

/* Read and check both superblock copies; choose the newest valid one. */
static int load_superblocks(struct ctx *c)
{
	struct ressd_geo g;
	int i, r, src = -1;

	logdev_init(&c->ld, c->log, c->base,
		    c->geo_known ? c->geo.log_sectors / RESSD_SECTORS_PER_BLOCK : RESSD_SB_BLOCKS);
	for (i = 0; i < RESSD_SB_BLOCKS; i++) {
		c->sbblk[i] = xmalloc_aligned(RESSD_BLOCK_SIZE);
		r = logdev_read(&c->ld, (u64)i, c->sbblk[i]);
		if (r) {
			operr(c, "cannot read superblock %s: %s", copy_name(i), strerror(-r));
			return FSCK_OPERR;
		}
		sb_decode(c->sbblk[i], &c->sbi[i]);
	}
	c->best = -1;
	/*
	 * The format rule: both copies all zero (the first 8 KiB) mean "format
	 * me"; one all-zero copy is an invalid copy, the other may still load.
	 */
	c->blank = block_is_zero(c->sbblk[0]) && block_is_zero(c->sbblk[1]);
	if (c->blank)
		return 0;

	if (!c->geo_known) {
		/* No label: the geometry is the newest copy's that checks out on its own. */
		for (i = 0; i < RESSD_SB_BLOCKS; i++) {
			char d[256];

			if (sb_check(c->sbblk[i], (u64)i, NULL, d, sizeof(d)))
				continue;
			if (src < 0 || c->sbi[i].generation > c->sbi[src].generation)
				src = i;
		}
		if (src >= 0) {
			const char *why;

			c->geo = c->sbi[src].geo;
			if (c->geo.log_offset * SECTOR_SIZE != c->base) {
				unusable(c, "superblock %s says the log range starts at sector %" PRIu64
					 ", not at %" PRIu64 " where it was read (--log-offset)",
					 copy_name(src), c->geo.log_offset, c->base / SECTOR_SIZE);
				return FSCK_UNUSABLE;
			}
			why = geo_check(&c->geo, c->log->size / SECTOR_SIZE);
			if (why) {
				unusable(c, "superblock %s: geometry: %s", copy_name(src), why);
				return FSCK_UNUSABLE;
			}
			c->geo_known = true;
			c->ld.nr_blocks = c->geo.log_sectors / RESSD_SECTORS_PER_BLOCK;
		}
	}
	for (i = 0; i < RESSD_SB_BLOCKS; i++) {
		g = c->geo;
		c->sb_why[i] = sb_check(c->sbblk[i], (u64)i, c->geo_known ? &g : NULL,
					c->sb_detail[i], sizeof(c->sb_detail[i]));
		if (!c->sb_why[i] && (c->best < 0 || c->sbi[i].generation > c->sbi[c->best].generation))
			c->best = i;
	}
	return 0;
}

static void report_label(struct ctx *c)
{
	const struct ressd_label *l = &c->label;
	char h1[32], uuid[37], ts[64];
	time_t t = (time_t)l->created;

	uuid_format(l->uuid, uuid);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", localtime(&t));
	say(c, "label: valid, uuid %s, formatted %s", uuid, ts);
	say(c, "  normal area    sectors %" PRIu64 "..%" PRIu64 " (%s) on %s", l->origin_offset,
	    l->origin_offset + l->origin_sectors - 1,
	    human_bytes(l->origin_sectors * SECTOR_SIZE, h1), c->dev_path);
	say(c, "  reserved area  sectors %" PRIu64 "..%" PRIu64 " (%s, %u log slots) on %s",
	    l->log_offset, l->log_offset + l->log_sectors - 1,
	    human_bytes(l->log_sectors * SECTOR_SIZE, h1), ressd_nr_slots(l->log_sectors),
	    c->log_path);
	say(c, "  tunables       small_write_max %u, high_watermark %u, low_watermark %u, "
	    "mover_batch %u", l->t.small_write_max, l->t.high_watermark, l->t.low_watermark,
	    l->t.mover_batch);
	if (ressd_devmodel_set(&l->dm)) {
		char model[RESSD_DM_STR_MAX];

		ressd_devmodel_format(&l->dm, model, sizeof(model));
		say(c, "  device model   %s", model);
	}
	if (l->flags & RESSD_LABEL_DENSITY)
		say(c, "  mover policy   density");
	if (l->flags & (RESSD_LABEL_LOG_NEVER | RESSD_LABEL_LOG_AUTO))
		say(c, "  log mode       %s", label_log_mode(l));
	if (l->flags & RESSD_LABEL_NO_DATA_CSUM)
		say(c, "  data csum      0");
	if (c->dev.size / SECTOR_SIZE != l->device_sectors)
		say(c, "  note: %s is %" PRIu64 " sectors now, %" PRIu64 " when formatted "
		    "(the layout stays as formatted)", c->dev_path, c->dev.size / SECTOR_SIZE,
		    l->device_sectors);
}

/* Judge the superblocks (after load_superblocks): false when the log cannot be used. */
static bool judge_superblocks(struct ctx *c)
{
	int i;

	if (c->blank) {
		say(c, "log: the first 8 KiB of the log range (both superblock copies) are zero: "
		    "dm-ressd formats a new log when the device is opened");
		return false;
	}
	for (i = 0; i < RESSD_SB_BLOCKS; i++) {
		const struct sb_info *s = &c->sbi[i];

		if (c->sb_why[i]) {
			say(c, "superblock %s: INVALID: %s (%s)", copy_name(i), c->sb_why[i],
			    c->sb_detail[i]);
			continue;
		}
		say(c, "superblock %s: valid, generation %" PRIu64 ", epoch %" PRIu64
		    ", checkpoint slot %u seq %" PRIu64 ", nonce %016" PRIx64, copy_name(i),
		    s->generation, s->epoch, s->tail_slot, s->tail_seq, s->nonce);
		if ((s->generation & 1) != (i == 0))
			problem(c, "superblock %s has generation %" PRIu64 ": copy %s holds the %s ones",
				copy_name(i), s->generation, copy_name(i), i ? "even" : "odd");
	}
	if (c->best < 0) {
		/* Copy A decides the message, as in the kernel. */
		unusable(c, "no valid superblock: dm-ressd refuses the log with \"%s\"",
			 c->sb_why[0]);
		return false;
	}
	if (!c->sb_why[0] && !c->sb_why[1] && c->sbi[0].nonce != c->sbi[1].nonce) {
		unusable(c, "Superblock copies belong to different volumes (nonces %016" PRIx64
			 " and %016" PRIx64 ")", c->sbi[0].nonce, c->sbi[1].nonce);
		return false;
	}
	for (i = 0; i < RESSD_SB_BLOCKS; i++)
		if (c->sb_why[i])
			problem(c, "superblock %s is invalid (%s); dm-ressd uses copy %s, and its "
				"next checkpoint goes to copy %s first, then to copy %s",
				copy_name(i), c->sb_why[i], copy_name(c->best),
				copy_name((c->sbi[c->best].generation + 1) & 1 ? 0 : 1),
				copy_name((c->sbi[c->best].generation + 1) & 1 ? 1 : 0));
	say(c, "log: dm-ressd loads superblock %s (generation %" PRIu64 ")", copy_name(c->best),
	    c->sbi[c->best].generation);
	if (ressd_sb_numbers_exhausted(c->sbi[c->best].generation, c->sbi[c->best].epoch,
				       c->sbi[c->best].tail_seq))
		problem(c, "generation %" PRIu64 ", epoch %" PRIu64 ", checkpoint sequence %" PRIu64
			": dm-ressd refuses a writable table with \"Log sequence numbers exhausted: "
			"use a read-only table\" (open it with --readonly)",
			c->sbi[c->best].generation, c->sbi[c->best].epoch, c->sbi[c->best].tail_seq);
	if (c->sbi[c->best].ro_compat & ~RESSD_FEATURE_RO_COMPAT_SUPP)
		problem(c, "superblock %s has read-only compatible features this version does not "
			"know (%x): dm-ressd refuses a writable table with \"Unknown read-only "
			"compatible feature: use a read-only table\"; open it with --readonly",
			copy_name(c->best),
			c->sbi[c->best].ro_compat & ~RESSD_FEATURE_RO_COMPAT_SUPP);
	return true;
}

/*
 * Records only a newer superblock than the loaded one lets exist.  When the
 * other copy may have been that newer one (it is invalid, or not the
 * generation just before), dm-ressd looks through the whole log for them
 * and refuses the log (dm-ressd-meta.c, ressd_meta_check_newer()).
 */
static int judge_newer(struct ctx *c)
{
	const struct sb_info *s = &c->sbi[c->best];
	const struct rec *r = &c->scan.first_newer;
	int other = !c->best;
	bool doubt = c->sb_why[other] || c->sbi[other].generation + 1 != s->generation;

	if (!c->scan.newer)
		return 0;
	if (doubt) {
		unusable(c, "%u records of the log are newer than superblock %s (the first: seq %"
			 PRIu64 " at slot %u, epoch %" PRIu64 ", checkpoint seq %" PRIu64 "; the "
			 "superblock: epoch %" PRIu64 ", checkpoint seq %" PRIu64 "), and superblock "
			 "%s, which may have been the newest, is %s: dm-ressd refuses the log with "
			 "\"Log is newer than its superblock: the newest copy is damaged\"",
			 c->scan.newer, copy_name(c->best), r->seq, r->slot, r->epoch, r->tail_seq,
			 s->epoch, c->rp.new_tail_seq, copy_name(other),
			 c->sb_why[other] ? "invalid" : "not the generation before");
		return FSCK_UNUSABLE;
	}
	problem(c, "%u records of the log are newer than superblock %s (the first: seq %" PRIu64
		" at slot %u, epoch %" PRIu64 ", checkpoint seq %" PRIu64 "), though superblock %s "
		"is the generation before it: a log dm-ressd did not write", c->scan.newer,
		copy_name(c->best), r->seq, r->slot, r->epoch, r->tail_seq, copy_name(other));
	return 0;
}

static int do_replay(struct ctx *c)
{
	const struct sb_info *s = &c->sbi[c->best];

	c->lg.nonce = s->nonce;
	c->lg.nr_slots = s->nr_slots;
	c->lg.origin_blocks = c->geo.origin_sectors >> 3;
	memset(&c->rp, 0, sizeof(c->rp));
	c->rp.l = &c->ld;
	c->rp.lg = &c->lg;
	c->rp.tail_slot = s->tail_slot;
	c->rp.tail_seq = s->tail_seq;
	c->rp.epoch = s->epoch;
	c->rp.tail_epoch = s->tail_epoch;
	c->replay_ret = replay_run(&c->rp);
	c->replayed = true;
	if (c->replay_ret == -ENOMEM) {
		operr(c, "out of memory for the replay of %u slots", c->lg.nr_slots);
		return FSCK_OPERR;
	}
	if (c->replay_ret == -EINVAL) {
		unusable(c, "replay fails: \"%s\": dm-ressd refuses to recover this log",
			 c->rp.error);
		return FSCK_UNUSABLE;
	}
	if (c->replay_ret) {
		operr(c, "error reading the log: %s", strerror(-c->replay_ret));
		return FSCK_OPERR;
	}
	if (scan_outside(&c->rp, &c->scan)) {
		operr(c, "error reading the log outside the chain");
		return FSCK_OPERR;
	}
	c->scanned = true;
	return judge_newer(c);
}

/* What lies where the chain ends, in words; problem() for what is not a normal end. */
static void judge_stop(struct ctx *c)
{
	const struct replay *rp = &c->rp;
	const struct rec *r = &rp->stop_rec;
	const char *s = rp->stop;
	char at[128];

	if (!strcmp(s, "the chain fills the log")) {
		say(c, "  the chain ends after one lap: every slot holds a live record");
		return;
	}
	say(c, "  the chain ends at slot %u, where the record of seq %" PRIu64 " would start: %s",
	    rp->stop_slot, rp->next_seq, s);
	if (rp->stop_miss)
		snprintf(at, sizeof(at), "slot %u, the first block with the record magic in "
			 "slots %u..%u,", rp->stop_miss_slot, rp->stop_slot, rp->stop_last);
	else
		snprintf(at, sizeof(at), "slots %u..%u", rp->stop_slot, rp->stop_last);
	if (!strcmp(s, "no record trailer")) {
		say(c, "  (a normal end: %s hold no record trailer of this log)", at);
	} else if (!strcmp(s, "record of another volume")) {
		say(c, "  (a normal end: %s holds a record of another volume)", at);
	} else if (!strcmp(s, "sequence break")) {
		say(c, "  (%s holds record seq %" PRIu64 " of epoch %" PRIu64 "%s)", at, r->seq,
		    r->epoch, r->seq < rp->tail_seq ? ", of an earlier lap: a normal end" :
		    r->seq < rp->next_seq ? ", of this chain further on (the log is nearly full): "
		    "a normal end" : r->epoch < rp->epoch ? ", from before the last recovery, which "
		    "replay rightly ignores" : ", of the current life: see below");
	} else if (!strcmp(s, "epoch out of order") ||
		   !strcmp(s, "record does not start where the chain goes on")) {
		say(c, "  (%s holds record seq %" PRIu64 " of epoch %" PRIu64 " starting at slot %u; "
		    "the chain is at epoch %" PRIu64 ", the superblock at %" PRIu64 "%s)", at, r->seq,
		    r->epoch, rec_start(r), rp->last_epoch, rp->epoch,
		    r->epoch < rp->epoch ? ": a record left from before the last recovery, "
		    "which replay rightly ignores" : "");
		if (r->epoch >= rp->epoch &&
		    !strcmp(s, "record does not start where the chain goes on"))
			problem(c, "the record trailer at slot %u has the sequence number the chain "
				"wants, but its data starts at slot %u, not %u: replay ends the chain "
				"there", rp->stop_miss_slot, rec_start(r), rp->stop_slot);
	} else if (!strcmp(s, "bad record checksum")) {
		problem(c, "the record trailer at slot %u is torn or corrupt (bad checksum), or "
			"data that looks like a trailer: replay ends the chain there",
			rp->stop_miss_slot);
	} else if (!strcmp(s, "the chain is longer than the log")) {
		problem(c, "the record at slots %u..%u (seq %" PRIu64 ", %u data blocks) would make "
			"the chain longer than the log: replay ends the chain there", rec_start(r),
			r->slot, r->seq, r->nr_data);
	} else if (rp->stop_miss) {
		problem(c, "the record trailer at slot %u is damaged (%s): replay ends the chain there",
			rp->stop_miss_slot, s);
	} else {
		problem(c, "the chain ends at slot %u (%s)", rp->stop_slot, s);
	}
}

static void report_replay(struct ctx *c)
{
	const struct replay *rp = &c->rp;
	size_t k, shown;

	say(c, "log: %u records in the chain from slot %u seq %" PRIu64 "; %u applied from the "
	    "newest checkpoint (slot %u seq %" PRIu64 ")", rp->nr_recs, rp->tail_slot,
	    rp->tail_seq, rp->records, rp->new_tail_slot, rp->new_tail_seq);
	say(c, "log: %" PRIu64 " entries applied, %" PRIu64 " torn, %" PRIu64 " blocks invalidated, "
	    "%" PRIu64 " blocks mapped, %u/%u slots used", rp->entries, rp->bad_data,
	    rp->invalidated, rp->map.count, rp->used, c->lg.nr_slots);
	if (rp->ordered)
		say(c, "log: %" PRIu64 " of them ordered (no checksum: durable before their "
		    "trailer, data_csum 0)", rp->ordered);
	judge_stop(c);
	shown = c->verbose ? rp->nr_torn : (rp->nr_torn < 10 ? rp->nr_torn : 10);
	for (k = 0; k < shown; k++) {
		const struct torn_entry *t = &rp->torn[k];

		problem(c, "torn entry: record seq %" PRIu64 " at slots %u..%u, entry %u (block %"
			PRIu64 ", slot %u): data crc32c %08x, the trailer says %08x; replay keeps "
			"the block's older copy", t->seq, t->rec_start, t->rec_slot, t->index,
			t->block, t->slot, t->got, t->want);
	}
	if (shown < rp->nr_torn) {
		c->problems += (int)(rp->nr_torn - shown);
		say(c, "PROBLEM: %zu more torn entries (--verbose lists them)", rp->nr_torn - shown);
	}
	if (c->scanned) {
		say(c, "log: outside the chain: %u slots, %u older records, %u stale records",
		    c->scan.slots, c->scan.old, c->scan.stale);
		if (c->scan.orphans)
			problem(c, "%u records of the current life lie beyond the end of the chain "
				"(the first: seq %" PRIu64 " at slots %u..%u, epoch %" PRIu64 "); "
				"replay cannot reach them: their writes are lost", c->scan.orphans,
				c->scan.first_orphan.seq, rec_start(&c->scan.first_orphan),
				c->scan.first_orphan.slot, c->scan.first_orphan.epoch);
	}
}

static int ctx_result(struct ctx *c, int early)
{
	if (early == FSCK_USAGE)
		return FSCK_USAGE;
	if (c->operr)
		return FSCK_OPERR;
	if (c->unusable)
		return FSCK_UNUSABLE;
	return c->problems ? FSCK_PROBLEMS : FSCK_OK;
}

static void ctx_free(struct ctx *c)
{
	int i;

	if (c->replayed)
		replay_free(&c->rp);
	logdev_exit(&c->ld);
	for (i = 0; i < RESSD_SB_BLOCKS; i++)
		free(c->sbblk[i]);
	if (c->log == &c->logstore)
		rdev_close(&c->logstore);
	if (c->have_dev)
		rdev_close(&c->dev);
}

static int cmd_check(const struct opts *o)
{
	struct ctx c;
	int r, res;

	if (want_pos(C_CHECK, o, 0, 1))
		return FSCK_USAGE;
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.verbose = o->verbose;
	r = load_devices(&c);
	if (!r && c.have_dev)
		report_label(&c);
	if (!r)
		r = load_superblocks(&c);
	if (!r && judge_superblocks(&c)) {
		r = do_replay(&c);
		if (!r)
			report_replay(&c);
	}
	res = ctx_result(&c, r);
	switch (res) {
	case FSCK_OK:
		say(&c, "result: clean");
		break;
	case FSCK_PROBLEMS:
		say(&c, "result: %d problem%s found (exit 1)", c.problems, c.problems == 1 ? "" : "s");
		break;
	case FSCK_UNUSABLE:
		say(&c, "result: unusable: dm-ressd would refuse this device (exit 4)");
		break;
	case FSCK_OPERR:
		say(&c, "result: the check could not be completed (exit 8)");
		break;
	}
	ctx_free(&c);
	return res;
}

/* ---- dump ---- */

static void dump_sb_text(struct ctx *c, int i)
{
	const struct sb_info *s = &c->sbi[i];

	printf("superblock %s: %s%s%s%s\n", copy_name(i), c->sb_why[i] ? "INVALID: " : "valid",
	       c->sb_why[i] ? c->sb_why[i] : "", c->sb_why[i] ? " - " : "",
	       c->sb_why[i] ? c->sb_detail[i] : "");
	printf("  generation %" PRIu64 ", epoch %" PRIu64 ", nonce %016" PRIx64 ", version %u\n",
	       s->generation, s->epoch, s->nonce, s->version);
	printf("  checkpoint slot %u seq %" PRIu64 " epoch %" PRIu64 ", %u slots\n", s->tail_slot,
	       s->tail_seq, s->tail_epoch, s->nr_slots);
	printf("  geometry: origin offset %" PRIu64 ", origin length %" PRIu64 ", log offset %" PRIu64
	       ", log size %" PRIu64 " (sectors)\n", s->geo.origin_offset, s->geo.origin_sectors,
	       s->geo.log_offset, s->geo.log_sectors);
	printf("  tunables: small_write_max %u, high_watermark %u, low_watermark %u, mover_batch %u\n",
	       s->t.small_write_max, s->t.high_watermark, s->t.low_watermark, s->t.mover_batch);
}

static void dump_sb_json(struct ctx *c, int i)
{
	const struct sb_info *s = &c->sbi[i];
	struct json *j = c->j;
	char nonce[17];

	snprintf(nonce, sizeof(nonce), "%016" PRIx64, s->nonce);
	json_obj_begin(j, NULL);
	json_str(j, "copy", copy_name(i));
	json_bool(j, "valid", !c->sb_why[i]);
	json_str(j, "error", c->sb_why[i]);
	json_str(j, "detail", c->sb_why[i] ? c->sb_detail[i] : NULL);
	json_u64(j, "generation", s->generation);
	json_u64(j, "epoch", s->epoch);
	json_str(j, "nonce", nonce);
	json_u64(j, "version", s->version);
	json_u64(j, "tail_slot", s->tail_slot);
	json_u64(j, "tail_seq", s->tail_seq);
	json_u64(j, "tail_epoch", s->tail_epoch);
	json_u64(j, "nr_slots", s->nr_slots);
	json_u64(j, "origin_offset", s->geo.origin_offset);
	json_u64(j, "origin_sectors", s->geo.origin_sectors);
	json_u64(j, "log_offset", s->geo.log_offset);
	json_u64(j, "log_sectors", s->geo.log_sectors);
	json_obj_end(j);
}

/* Runs of consecutive blocks in consecutive slots, sorted by block. */
static void dump_mapping(struct ctx *c)
{
	struct map_pair *p;
	u64 n, k, runs = 0;

	p = replay_mapping(&c->rp, &n);
	for (k = 0; k < n; k++)
		runs += !k || p[k].block != p[k - 1].block + 1 || p[k].slot != p[k - 1].slot + 1;
	if (c->j) {
		json_arr_begin(c->j, "mapping");
	} else {
		printf("mapping: %" PRIu64 " blocks in %" PRIu64 " runs (block -> slot)\n", n, runs);
	}
	for (k = 0; k < n;) {
		u64 e = k + 1;

		while (e < n && p[e].block == p[e - 1].block + 1 && p[e].slot == p[e - 1].slot + 1)
			e++;
		if (c->j) {
			json_obj_begin(c->j, NULL);
			json_u64(c->j, "block", p[k].block);
			json_u64(c->j, "slot", p[k].slot);
			json_u64(c->j, "length", e - k);
			json_obj_end(c->j);
		} else if (e - k == 1) {
			printf("  %" PRIu64 " -> %u\n", p[k].block, p[k].slot);
		} else {
			printf("  %" PRIu64 "-%" PRIu64 " -> %u-%" PRIu64 "\n", p[k].block,
			       p[e - 1].block, p[k].slot, (u64)p[k].slot + (e - k) - 1);
		}
		k = e;
	}
	if (c->j)
		json_arr_end(c->j);
	free(p);
}

static void dump_records(struct ctx *c)
{
	const struct replay *rp = &c->rp;
	u32 i;

	if (c->j)
		json_arr_begin(c->j, "records");
	else
		printf("records from the checkpoint (slot %u seq %" PRIu64 "):\n"
		       "  %-12s %8s %8s %8s %5s %5s %-22s %s\n", rp->tail_slot, rp->tail_seq,
		       "seq", "start", "trailer", "epoch", "data", "inval", "checkpoint", "state");
	for (i = 0; i < rp->nr_recs; i++) {
		const struct rec_info *ri = &rp->recs[i];
		const struct rec *r = &ri->r;
		char cp[48];

		if (c->j) {
			json_obj_begin(c->j, NULL);
			json_u64(c->j, "seq", r->seq);
			json_u64(c->j, "start", rec_start(r));
			json_u64(c->j, "slot", r->slot);
			json_u64(c->j, "epoch", r->epoch);
			json_u64(c->j, "nr_data", r->nr_data);
			json_u64(c->j, "nr_inval", r->nr_inval);
			json_u64(c->j, "dead", ri->dead);
			json_u64(c->j, "torn", ri->torn);
			json_u64(c->j, "tail_slot", r->tail_slot);
			json_u64(c->j, "tail_seq", r->tail_seq);
			json_bool(c->j, "applied", ri->applied);
			json_obj_end(c->j);
			continue;
		}
		snprintf(cp, sizeof(cp), "%u/%" PRIu64, r->tail_slot, r->tail_seq);
		printf("  %-12" PRIu64 " %8u %8u %8" PRIu64 " %5u %5u %-22s %s", r->seq,
		       rec_start(r), r->slot, r->epoch, r->nr_data, r->nr_inval, cp,
		       ri->applied ? "live" : "moved home");
		if (ri->dead)
			printf(", %u dead", ri->dead);
		if (ri->torn)
			printf(", %u TORN", ri->torn);
		printf("\n");
	}
	if (c->j)
		json_arr_end(c->j);
}

static int cmd_dump(const struct opts *o)
{
	struct json j;
	struct ctx c;
	int r, i, res;
	bool ok = false;

	if (want_pos(C_DUMP, o, 0, 1))
		return FSCK_USAGE;
	memset(&c, 0, sizeof(c));
	c.o = o;
	c.quiet = true;
	c.verbose = o->verbose;
	r = load_devices(&c);
	if (!r)
		r = load_superblocks(&c);
	if (r) {
		res = ctx_result(&c, r);
		ctx_free(&c);
		return res;
	}
	if (o->json) {
		json_init(&j, stdout);
		c.j = &j;
		json_obj_begin(&j, NULL);
		json_str(&j, "device", c.dev_path);
		json_str(&j, "log_device", c.log_path);
		json_u64(&j, "log_offset_bytes", c.base);
		if (c.have_dev) {
			char uuid[37], model[RESSD_DM_STR_MAX];

			uuid_format(c.label.uuid, uuid);
			json_obj_begin(&j, "label");
			json_str(&j, "uuid", uuid);
			json_bool(&j, "same_device", label_same_dev(&c.label));
			json_u64(&j, "origin_offset", c.label.origin_offset);
			json_u64(&j, "origin_sectors", c.label.origin_sectors);
			json_u64(&j, "log_offset", c.label.log_offset);
			json_u64(&j, "log_sectors", c.label.log_sectors);
			json_u64(&j, "small_write_max", c.label.t.small_write_max);
			json_u64(&j, "high_watermark", c.label.t.high_watermark);
			json_u64(&j, "low_watermark", c.label.t.low_watermark);
			json_u64(&j, "mover_batch", c.label.t.mover_batch);
			ressd_devmodel_format(&c.label.dm, model, sizeof(model));
			json_str(&j, "dev_model", model);
			json_str(&j, "mover_policy",
				 c.label.flags & RESSD_LABEL_DENSITY ? "density" : "fifo");
			json_str(&j, "log_mode", label_log_mode(&c.label));
			json_u64(&j, "data_csum", !(c.label.flags & RESSD_LABEL_NO_DATA_CSUM));
			json_obj_end(&j);
		}
		json_bool(&j, "log_empty", c.blank);
	} else {
		if (c.have_dev) {
			char uuid[37];

			uuid_format(c.label.uuid, uuid);
			printf("label: uuid %s, normal area %" PRIu64 "+%" PRIu64 " on %s, log range %"
			       PRIu64 "+%" PRIu64 " on %s (sectors)\n", uuid, c.label.origin_offset,
			       c.label.origin_sectors, c.dev_path, c.label.log_offset,
			       c.label.log_sectors, c.log_path);
		} else {
			printf("log range at byte %" PRIu64 " of %s\n", c.base, c.log_path);
		}
	}
	if (!o->json && c.blank) {
		printf("log: empty (the first 8 KiB of the log range, both superblock copies, are "
		       "zero): dm-ressd formats it when the device is opened\n");
	}
	if (!c.blank) {
		ok = judge_superblocks(&c);
		if (c.j)
			json_arr_begin(&j, "superblocks");
		for (i = 0; i < RESSD_SB_BLOCKS; i++)
			if (c.j)
				dump_sb_json(&c, i);
			else
				dump_sb_text(&c, i);
		if (c.j) {
			json_arr_end(&j);
			if (c.best < 0)
				json_null(&j, "best");
			else
				json_u64(&j, "best", (u64)c.best);
		}
	}
	if (ok) {
		r = do_replay(&c);
		if (c.j) {
			json_obj_begin(&j, "replay");
			json_str(&j, "error", c.rp.error);
			json_u64(&j, "tail_slot", c.rp.tail_slot);
			json_u64(&j, "tail_seq", c.rp.tail_seq);
			json_u64(&j, "new_tail_slot", c.rp.new_tail_slot);
			json_u64(&j, "new_tail_seq", c.rp.new_tail_seq);
			json_u64(&j, "chain_records", c.rp.nr_recs);
			json_u64(&j, "records", c.rp.records);
			json_u64(&j, "entries", c.rp.entries);
			json_u64(&j, "torn", c.rp.bad_data);
			json_u64(&j, "ordered", c.rp.ordered);
			json_u64(&j, "invalidated", c.rp.invalidated);
			json_u64(&j, "mapped", c.rp.map.count);
			json_u64(&j, "used", c.rp.used);
			json_u64(&j, "nr_slots", c.lg.nr_slots);
			json_u64(&j, "head", c.rp.head);
			json_u64(&j, "next_seq", c.rp.next_seq);
			json_str(&j, "stop", c.rp.stop);
			json_u64(&j, "stop_slot", c.rp.stop_slot);
			if (c.rp.stop && c.rp.stop_miss)
				json_u64(&j, "stop_miss_slot", c.rp.stop_miss_slot);
			else
				json_null(&j, "stop_miss_slot");
			json_u64(&j, "orphans", c.scan.orphans);
			json_u64(&j, "stale", c.scan.stale);
			json_obj_end(&j);
		}
		if (c.rp.recs)
			dump_records(&c);
		if (!c.j && c.rp.stop) {
			char miss[48];

			snprintf(miss, sizeof(miss), " (the trailer at slot %u)", c.rp.stop_miss_slot);
			if (!strcmp(c.rp.stop, "the chain fills the log"))
				printf("the chain fills the log\n");
			else
				printf("the chain ends at slot %u (seq %" PRIu64 "): %s%s\n",
				       c.rp.stop_slot, c.rp.next_seq, c.rp.stop,
				       c.rp.stop_miss ? miss : "");
		}
		if (!c.j && c.rp.error)
			printf("replay fails: %s\n", c.rp.error);
		if (!r && !c.rp.error)
			dump_mapping(&c);
		if (!c.j && !r && c.rp.error == NULL && c.rp.nr_torn)
			printf("%zu torn entries (see ressdsetup check)\n", c.rp.nr_torn);
	}
	if (c.j) {
		json_obj_end(&j);
		json_done(&j);
	}
	res = ctx_result(&c, r);
	/* dump reports only what stops it: problems are check's business */
	if (res == FSCK_PROBLEMS)
		res = FSCK_OK;
	ctx_free(&c);
	return res;
}

/* ---- main ---- */

/* /etc/ressdtab commands (ressdtab.c): open and close run through main(). */
int main(int argc, char **argv);

static int tab_dmsetup(const char *const *args)
{
	return run_dmsetup(args, NULL);
}

static int tab_main(int argc, char **argv)
{
	static const struct tab_ops ops = { .run = main, .dmsetup = tab_dmsetup };
	static const char *const names[] = {
		"tab-check", "tab-open", "tab-close", "generator", "udev-id"
	};
	size_t k;
	int i;

	for (k = 0; k < ARRAY_SIZE(names); k++)
		if (!strcmp(argv[0], names[k]))
			break;
	if (k == ARRAY_SIZE(names))
		return -1;
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: %s %s\n\nSee ressdsetup(8).\n", progname, tab_usage[k]);
			return 0;
		}
	switch (k) {
	case 0:
		return tab_check_main(argc, argv);
	case 1:
		return tab_open_main(argc, argv, &ops);
	case 2:
		return tab_close_main(argc, argv, &ops);
	case 3:
		return tab_generator_main(argc, argv);
	default:
		return tab_udev_id_main(argc, argv);
	}
}

static int cmd_help(enum cmd c)
{
	printf("usage: %s %s\n\nSee ressdsetup(8).\n", progname, cmd_usage[c]);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	int c, i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_PARAM;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ressdsetup %s (dm-ressd on-disk format %u, label version %u)\n",
		       RESSDSETUP_VERSION, RESSD_FORMAT_VERSION, RESSD_LABEL_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "probe"))
		return devprobe_main(argc - 1, argv + 1);
	c = tab_main(argc - 1, argv + 1);
	if (c >= 0)
		return c;
	for (c = 0; c < C_NR; c++)
		if (!strcmp(argv[1], cmd_name[c]))
			break;
	if (c == C_NR) {
		errmsg("unknown command '%s'", argv[1]);
		usage(stderr);
		return EXIT_PARAM;
	}
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return cmd_help((enum cmd)c);
	if (parse_opts((enum cmd)c, argc, argv, &o))
		return c == C_CHECK || c == C_DUMP ? FSCK_USAGE : EXIT_PARAM;
	switch (c) {
	case C_FORMAT:
		return cmd_format(&o);
	case C_TABLE:
		return cmd_table(&o);
	case C_OPEN:
		return cmd_open(&o);
	case C_CLOSE:
		return cmd_close(&o);
	case C_STATUS:
		return cmd_status(&o);
	case C_CHECK:
		return cmd_check(&o);
	case C_CONVERT:
		return cmd_convert(&o);
	case C_DECOMMISSION:
		return cmd_decommission(&o);
	default:
		return cmd_dump(&o);
	}
}
