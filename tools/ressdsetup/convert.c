// SPDX-License-Identifier: GPL-2.0-only
/*
 * ressdsetup convert and decommission: an ext2/3/4 partition made into a
 * dm-ressd device in place, and back, without moving the file system's
 * data.  The converted layout (label.h, RESSD_LABEL_HEAD):
 *
 *   0      4 KiB      1 MiB               fs_end     +1 MiB        end-4K  end
 *   | label | zeros   | file system ...     | head copy | log ...     | intent |
 *
 * The file system is shrunk to fs_end (resize2fs); its first 1 MiB is
 * copied to fs_end (the head copy), where the mapped device finds it: open
 * stacks a dm-linear device (<name>-origin: the head copy, then the file
 * system in place from 1 MiB) under the target.  The label then takes the
 * first 1 MiB, so that the raw partition is no longer seen as a file
 * system.  The intent block, the last 4 KiB of the partition, holds the
 * same label from before the first 1 MiB is overwritten until
 * decommission has put the head back: with it a rerun knows the layout
 * when the first 1 MiB is torn.
 *
 * Each step is durable (fsync) before the next, and each command, rerun
 * after a crash at any point, finds where it stopped:
 *
 *   convert:  e2fsck, resize2fs, head copy, log start zeroed, intent,
 *             first 1 MiB = label + zeros
 *   decommission (the log drained first, by ressdsetup.c): intent written
 *             again, head copy back to the first 1 MiB, intent zeroed,
 *             e2fsck, resize2fs to the whole partition
 *
 * RESSD_CONVERT_STOP=<step> (resize, copy, intent, label; restore, unintent)
 * ends the command after that step, as a crash there would: the tests use
 * it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "log.h"
#include "probe.h"
#include "util.h"

#define AREA		(RESSD_LABEL_AREA_SECTORS * SECTOR_SIZE)	/* 1 MiB */
#define EXT_SB_OFF	1024
#define EXT_MAGIC	0xEF53
#define EXT_ERROR_FS	0x0002	/* s_state */
#define EXT_INCOMPAT_64BIT	0x80

/* The ext2/3/4 superblock in the first 2 KiB at @head, or NULL. */
static const u8 *ext_sb(const u8 *head)
{
	const u8 *sb = head + EXT_SB_OFF;

	return (sb[56] | sb[57] << 8) == EXT_MAGIC ? sb : NULL;
}

/* An ext2/3/4 superblock in the 1 MiB at @head: 0 and its size in bytes, or -1. */
static int ext_size(const u8 *head, u64 *bytes)
{
	const u8 *sb = ext_sb(head);
	u32 lo, hi = 0, log_bs, incompat;

	if (!sb)
		return -1;
	lo = (u32)sb[4] | (u32)sb[5] << 8 | (u32)sb[6] << 16 | (u32)sb[7] << 24;
	log_bs = (u32)sb[24] | (u32)sb[25] << 8 | (u32)sb[26] << 16 | (u32)sb[27] << 24;
	incompat = (u32)sb[96] | (u32)sb[97] << 8 | (u32)sb[98] << 16 | (u32)sb[99] << 24;
	if (incompat & EXT_INCOMPAT_64BIT)
		hi = (u32)sb[336] | (u32)sb[337] << 8 | (u32)sb[338] << 16 | (u32)sb[339] << 24;
	if (log_bs > 6)
		return -1;
	*bytes = ((u64)hi << 32 | lo) * (1024ULL << log_bs);
	return 0;
}

static void stop_after(const char *step)
{
	const char *s = getenv("RESSD_CONVERT_STOP");

	if (s && !strcmp(s, step)) {
		printf("Stopped after the step '%s' (RESSD_CONVERT_STOP): run the command again.\n",
		       step);
		exit(9);
	}
}

static int io(int r, const struct rdev *d, const char *what)
{
	if (r)
		errmsg("%s: %s: %s", d->path, what, strerror(-r));
	return r ? EXIT_DEVICE : EXIT_OK;
}

static int write_sync(const struct rdev *d, u64 off, const void *buf, size_t len, const char *what)
{
	int r = rdev_write(d, off, buf, len);

	if (!r)
		r = rdev_sync(d);
	return io(r, d, what);
}

/* The offset of the intent block: the last whole 4 KiB of the device. */
static u64 intent_offset(const struct rdev *d)
{
	return (d->size & ~(u64)(RESSD_BLOCK_SIZE - 1)) - RESSD_BLOCK_SIZE;
}

/*
 * The label of the converted layout in the intent block: 0 with @l, 1 when
 * there is none (or it is not for this device), or an exit code.
 */
static int read_intent(const struct rdev *d, struct ressd_label *l)
{
	u8 *blk = xmalloc_aligned(RESSD_BLOCK_SIZE);
	int r = rdev_read(d, intent_offset(d), blk, RESSD_BLOCK_SIZE);

	if (r) {
		free(blk);
		return io(r, d, "reading the intent block");
	}
	r = label_decode(blk, l) || !(l->flags & RESSD_LABEL_HEAD) ||
	    l->device_sectors != d->size / SECTOR_SIZE;
	free(blk);
	return r;
}

/*
 * Does the ext superblock of @path carry the error flag (s_state &
 * EXT2_ERROR_FS)?  resize2fs sets it before its first change and clears it
 * when it has finished, so a resize2fs that was interrupted leaves it.
 */
static bool ext_marked_errors(const char *path)
{
	u8 *head = xmalloc_aligned(RESSD_BLOCK_SIZE);
	char err[256];
	struct rdev d;
	bool marked = false;

	if (!rdev_open(&d, path, RDEV_READ, err, sizeof(err))) {
		const u8 *sb = rdev_read(&d, 0, head, RESSD_BLOCK_SIZE) ? NULL : ext_sb(head);

		marked = sb && ((sb[58] | sb[59] << 8) & EXT_ERROR_FS);
		rdev_close(&d);
	}
	free(head);
	return marked;
}

static int fsck(const char *path, const char *how)
{
	const char *args[] = { "-f", how, path, NULL };

	printf("Checking the file system (e2fsck -f %s %s)...\n", how, path);
	return run_prog("e2fsck", args, NULL);
}

/*
 * e2fsck -f -p.  When it stops on problems it leaves (exit 4) on a file
 * system that carried the error flag before it ran, e2fsck -f -y: with
 * RESSD_CONV_REPAIR, or after asking unless RESSD_CONV_BATCH.  An
 * interrupted resize2fs leaves such a file system (and asks for 'e2fsck
 * -fy'); so do an error the kernel found and an e2fsck -p that stopped
 * before: the flag does not say which, hence no repair without a yes.
 */
static int run_fsck(const char *path, unsigned int how)
{
	/* (before e2fsck -p, which sets the flag when it stops on a problem) */
	bool marked = ext_marked_errors(path);
	const char *run = "-p";
	int r = fsck(path, run);

	if (r > 0 && (r & 4) && !(r & 8) && marked) {
		printf("%s: the file system was marked as having errors before the check: a\n"
		       "resize2fs that was interrupted leaves it so (and asks for e2fsck -f -y), as do\n"
		       "an error the kernel found and an e2fsck -p that stopped.\n", path);
		if (!(how & RESSD_CONV_REPAIR) &&
		    ((how & RESSD_CONV_BATCH) ||
		     !confirm("Repair it with e2fsck -f -y (answering yes to every question)?"))) {
			errmsg("%s: e2fsck -f -p stopped (exit %d): repair the file system (e2fsck -f -y "
			       "%s), or run the command again with --repair", path, r, path);
			return EXIT_DEVICE;
		}
		run = "-y";
		r = fsck(path, run);
	}
	/* 0: clean, 1: errors corrected */
	if (r == 0 || r == 1)
		return EXIT_OK;
	if (r < 0)
		errmsg("%s: e2fsck -f %s %s: could not run", path, run, path);
	else
		errmsg("%s: e2fsck -f %s %s: exit %d: repair the file system (e2fsck -f %s) first",
		       path, run, path, r, path);
	return EXIT_DEVICE;
}

static int run_resize(const char *path, u64 bytes)
{
	char size[32];
	const char *args[] = { path, size, NULL };
	int r;

	if (bytes)
		snprintf(size, sizeof(size), "%" PRIu64 "K", bytes / 1024);
	else
		args[1] = NULL;	/* to the device's size */
	printf("Resizing the file system (resize2fs %s %s)...\n", path, bytes ? size : "");
	r = run_prog("resize2fs", args, NULL);
	if (r) {
		errmsg("%s: resize2fs %s: exit %d", path, r < 0 ? "could not run" : "failed", r);
		return EXIT_DEVICE;
	}
	return EXIT_OK;
}

int log_superblocks(const struct rdev *d, const struct ressd_label *l, u8 *sbs)
{
	return io(rdev_read(d, l->log_offset * SECTOR_SIZE, sbs, 2 * RESSD_BLOCK_SIZE), d,
		  "reading the log");
}

bool log_sbs_opened(const u8 *sbs)
{
	size_t i;

	for (i = 0; i < 2 * RESSD_BLOCK_SIZE; i++)
		if (sbs[i])
			return true;
	return false;
}

int log_ever_opened(const struct rdev *d, const struct ressd_label *l, bool *opened)
{
	u8 *sb = xmalloc_aligned(2 * RESSD_BLOCK_SIZE);
	int r = log_superblocks(d, l, sb);

	*opened = !r && log_sbs_opened(sb);
	free(sb);
	return r;
}

/* What the first 1 MiB (@area) holds, against the intent @l of a conversion. */
enum head_state {
	HEAD_TORN,	/* each sector the label area's or the head copy's: a write of
			 * either over the other, done, not begun, or torn */
	HEAD_FS,	/* a file system that changed since the head copy was made
			 * (mounted since): the newest */
	HEAD_GROWN,	/* a file system larger than the normal area: the intent is stale */
	HEAD_OTHER,	/* neither */
};

static int classify(const struct rdev *d, const struct ressd_label *l, const u8 *area,
		    enum head_state *st)
{
	struct ressd_label conv = *l;
	u8 *copy = xmalloc_aligned(AREA), *lab = xmalloc_aligned(AREA);
	u64 fs_bytes, off;
	bool fs = !ext_size(area, &fs_bytes);
	int r = io(rdev_read(d, l->head_offset * SECTOR_SIZE, copy, AREA), d, "reading the head copy");

	conv.flags &= ~RESSD_LABEL_RESTORING;
	label_encode(lab, &conv);
	*st = HEAD_TORN;
	for (off = 0; off < AREA; off += SECTOR_SIZE)
		if (memcmp(area + off, copy + off, SECTOR_SIZE) &&
		    memcmp(area + off, lab + off, SECTOR_SIZE))
			*st = HEAD_OTHER;
	if (fs && fs_bytes > l->origin_sectors * SECTOR_SIZE)
		*st = HEAD_GROWN;
	else if (*st == HEAD_OTHER && fs)
		*st = HEAD_FS;
	free(copy);
	free(lab);
	return r;
}

/*
 * Is @area, the first 1 MiB, the label area of @l with damage inside its
 * label block only: the label's magic at its start, every sector after the
 * label block as the label area's (zeros), and, the magic aside, no
 * signature probe_signature() knows (a swap area, an LVM label)?
 */
static bool label_only_damaged(const struct ressd_label *l, const u8 *area)
{
	_Static_assert(PROBE_BYTES <= AREA, "the probe reads within the label area");
	u8 *lab = xmalloc_aligned(AREA);
	bool only;

	label_encode(lab, l);
	only = label_has_magic(area) &&
	       !memcmp(area + RESSD_BLOCK_SIZE, lab + RESSD_BLOCK_SIZE, AREA - RESSD_BLOCK_SIZE);
	if (only) {
		memcpy(lab, area, PROBE_BYTES);
		memset(lab, 0, 8);
		only = !probe_signature(lab, PROBE_BYTES);
	}
	free(lab);
	return only;
}

/* The label block and zeros over the first 1 MiB: the converted device. */
static int write_label_area(const struct rdev *d, const struct ressd_label *l)
{
	u8 *area = xmalloc_aligned(AREA);
	int r;

	label_encode(area, l);
	r = write_sync(d, 0, area, AREA, "writing the label");
	free(area);
	return r;
}

/* The converted layout of @d for a log of at least @reserved bytes, into @l. */
static int plan(const struct rdev *d, u64 reserved, struct ressd_label *l)
{
	const u64 min_log = (u64)RESSD_MIN_LOG_BLOCKS * RESSD_BLOCK_SIZE;
	const u64 max_log = ((u64)RESSD_MAX_SLOTS + RESSD_SB_BLOCKS) * RESSD_BLOCK_SIZE;
	u64 end = intent_offset(d), log_off, fs_end;
	char h1[32], h2[32];

	if (end < reserved + 4 * AREA) {
		errmsg("%s is too small (%s) for a %s reserved area", d->path,
		       human_bytes(d->size, h1), human_bytes(reserved, h2));
		return EXIT_DEVICE;
	}
	log_off = (end - reserved) & ~(AREA - 1);
	fs_end = log_off - AREA;
	if (end - log_off > max_log) {
		errmsg("convert: the reserved area of %s is above the maximum log size of %s",
		       human_bytes(end - log_off, h1), human_bytes(max_log, h2));
		return EXIT_PARAM;
	}
	if (end - log_off < min_log) {
		errmsg("convert: the reserved area of %s is below the minimum log size of %s",
		       human_bytes(end - log_off, h1), human_bytes(min_log, h2));
		return EXIT_PARAM;
	}
	l->flags |= RESSD_LABEL_SAME_DEV | RESSD_LABEL_HEAD;
	l->device_sectors = d->size / SECTOR_SIZE;
	l->origin_offset = 0;
	l->origin_sectors = fs_end / SECTOR_SIZE;
	l->head_offset = fs_end / SECTOR_SIZE;
	l->log_offset = log_off / SECTOR_SIZE;
	l->log_sectors = (end - log_off) / SECTOR_SIZE;
	l->created = (u64)time(NULL);
	if (getrandom(&l->nonce, sizeof(l->nonce), 0) != sizeof(l->nonce) ||
	    getrandom(l->uuid, sizeof(l->uuid), 0) != sizeof(l->uuid)) {
		errmsg("convert: cannot get random numbers: %s", strerror(errno));
		return EXIT_DEVICE;
	}
	l->uuid[6] = (l->uuid[6] & 0x0f) | 0x40;	/* version 4 */
	l->uuid[8] = (l->uuid[8] & 0x3f) | 0x80;	/* RFC 4122 variant */
	return EXIT_OK;
}

static void report(const struct ressd_label *l, const char *path)
{
	char h1[32], uuid[37];

	uuid_format(l->uuid, uuid);
	printf("Converted %s (uuid %s):\n", path, uuid);
	printf("  label          sectors 0..7 (4 KiB)\n");
	printf("  normal area    sectors 0..%" PRIu64 " (%s): the file system, its first 1 MiB "
	       "at sectors %" PRIu64 "..%" PRIu64 "\n", l->origin_sectors - 1,
	       human_bytes(l->origin_sectors * SECTOR_SIZE, h1), l->head_offset,
	       (u64)(l->head_offset + RESSD_LABEL_AREA_SECTORS - 1));
	printf("  reserved area  sectors %" PRIu64 "..%" PRIu64 " (%s, %u log slots)\n",
	       l->log_offset, l->log_offset + l->log_sectors - 1,
	       human_bytes(l->log_sectors * SECTOR_SIZE, h1), ressd_nr_slots(l->log_sectors));
	printf("Open it with: ressdsetup open %s <name>; mount /dev/mapper/<name>\n", path);
}

/*
 * The head copy is durable and the intent names it: make the first 1 MiB
 * the label (the last step of convert, or its rerun).
 */
static int finish_convert(const struct rdev *d, struct ressd_label *l)
{
	int r = write_label_area(d, l);

	if (!r) {
		stop_after("label");
		report(l, d->path);
	}
	return r;
}

int convert_device(const char *path, const struct ressd_label *tmpl, u64 reserved,
		   unsigned int how)
{
	bool batch = how & RESSD_CONV_BATCH;
	struct ressd_label l, cur;
	struct rdev dev, *d = &dev;
	u8 *head;
	u64 fs_bytes, size;
	enum head_state st;
	bool blk;
	char h1[32], h2[32], h3[32], warning[1024];
	int r, ri;

	r = rdev_open_unused(d, path, "convert");
	if (r)
		return r;
	head = xmalloc_aligned(AREA);
	r = io(rdev_read(d, 0, head, AREA), d, "reading its first 1 MiB");
	if (r)
		goto out;
	if (!label_decode(head, &cur)) {
		if (cur.flags & RESSD_LABEL_HEAD) {
			printf("%s is converted already.\n", d->path);
			r = EXIT_OK;
		} else {
			errmsg("%s is a dm-ressd device made by 'ressdsetup format': nothing to convert",
			       d->path);
			r = EXIT_PARAM;
		}
		goto out;
	}
	ri = read_intent(d, &l);
	if (ri > 1) {
		r = ri;
		goto out;
	}
	if (!ri && (l.flags & RESSD_LABEL_RESTORING)) {
		errmsg("%s: a decommission was interrupted while it put the file system's first "
		       "1 MiB back: run 'ressdsetup decommission %s' again first", path, path);
		r = EXIT_PARAM;
		goto out;
	}
	if (!ri) {
		/*
		 * A conversion that stopped after the intent: its head copy is
		 * durable.  The first 1 MiB holds that copy, the label, or a
		 * torn mix of the two: the label goes on.  A file system that
		 * changed since (mounted): copied again first.  One that grew
		 * past the normal area: the intent is stale, start again.
		 */
		printf("%s: resuming a conversion that was interrupted.\n", d->path);
		r = classify(d, &l, head, &st);
		if (!r && st == HEAD_OTHER && ext_size(head, &fs_bytes)) {
			bool used;

			/*
			 * The label block damaged, and nothing else: the label's
			 * magic still there, the rest of the 1 MiB zeros as the
			 * label area's, no other signature, and a log that was
			 * opened (the conversion finished: its head copy is
			 * durable before the intent).  Write the label again.
			 * Anything else (another volume's header over a device
			 * that was converted once, a conversion interrupted and
			 * then a raw mount that broke the file system) is left
			 * alone.
			 */
			r = log_ever_opened(d, &l, &used);
			if (!r && used && label_only_damaged(&l, head)) {
				snprintf(warning, sizeof(warning),
					 "The label of %s is damaged. This will write it again from\n"
					 "the intent block at the partition's end.", path);
				if (!batch && !confirm(warning)) {
					errmsg("convert: not confirmed: nothing was written");
					r = EXIT_PARAM;
					goto out;
				}
				printf("%s: its label was damaged: writing it again from the intent "
				       "block.\n", path);
				st = HEAD_TORN;
			}
		}
		if (!r && st == HEAD_FS) {
			bool used;

			/*
			 * A conversion stops before its label, so its log was
			 * never opened.  One that was opened is a conversion
			 * that finished and was used: the file system over its
			 * label is another one (a new image written over the
			 * raw partition, or a repair of it by e2fsck), whose
			 * first 1 MiB must not take the head copy's place
			 * under the log's blocks.
			 */
			r = log_ever_opened(d, &l, &used);
			if (!r && used) {
				errmsg("%s: its first 1 MiB holds a file system other than the one "
				       "converted (its head copy is at sector %" PRIu64 "), and its "
				       "log was opened: nothing was changed. Something wrote over the "
				       "converted device's label; ressdsetup.rst, \"Converting a "
				       "partition in place\", says how to go on", path, l.head_offset);
				r = EXIT_DEVICE;
			}
			if (!r)
				r = write_sync(d, l.head_offset * SECTOR_SIZE, head, AREA,
					       "writing the head copy");
		}
		if (r)
			goto out;
		if (st == HEAD_OTHER) {
			errmsg("%s: its first 1 MiB holds neither the file system, its copy nor the "
			       "label: nothing was changed", path);
			r = EXIT_DEVICE;
			goto out;
		}
		if (st != HEAD_GROWN) {
			r = finish_convert(d, &l);
			goto out;
		}
		printf("%s: the file system grew since: converting it again.\n", path);
		memset(head, 0, RESSD_BLOCK_SIZE);
		r = write_sync(d, intent_offset(d), head, RESSD_BLOCK_SIZE, "zeroing the intent block");
		if (!r)
			r = io(rdev_read(d, 0, head, AREA), d, "reading its first 1 MiB");
		if (r)
			goto out;
	}
	if (ext_size(head, &fs_bytes)) {
		errmsg("%s holds no ext2/ext3/ext4 file system: convert takes only those "
		       "(for an empty device: ressdsetup format)", d->path);
		r = EXIT_PARAM;
		goto out;
	}
	l = *tmpl;
	r = plan(d, reserved, &l);
	if (r)
		goto out;
	snprintf(warning, sizeof(warning),
		 "This will make the file system on %s a dm-ressd device: it is shrunk\n"
		 "to %s (it uses %s now), its first 1 MiB is moved to its end, and the\n"
		 "last %s of the partition become the log.  Afterwards it is mounted\n"
		 "through /dev/mapper/<name> only (ressdsetup open); 'ressdsetup\n"
		 "decommission' undoes it.  Have a backup all the same.", d->path,
		 human_bytes(l.origin_sectors * SECTOR_SIZE, h1), human_bytes(fs_bytes, h2),
		 human_bytes(d->size - l.origin_sectors * SECTOR_SIZE, h3));
	if (!batch && !confirm(warning)) {
		errmsg("convert: not confirmed: nothing was written");
		r = EXIT_PARAM;
		goto out;
	}
	/* (e2fsck and resize2fs open the device exclusively) */
	size = d->size;
	blk = d->blk;
	rdev_close(d);
	r = run_fsck(path, how);
	if (!r && fs_bytes > l.origin_sectors * SECTOR_SIZE)
		r = run_resize(path, l.origin_sectors * SECTOR_SIZE);
	/* resize2fs shrinks an image file with its file system */
	if (!r && !blk && truncate(path, (off_t)size)) {
		errmsg("%s: cannot restore its size: %s", path, strerror(errno));
		r = EXIT_DEVICE;
	}
	if (!r)
		r = rdev_open_unused(d, path, "convert");
	if (r) {
		free(head);
		return r;
	}
	stop_after("resize");
	/* what resize2fs left in the first 1 MiB, and the size it made */
	r = io(rdev_read(d, 0, head, AREA), d, "reading its first 1 MiB");
	if (r)
		goto out;
	if (ext_size(head, &fs_bytes) || fs_bytes > l.origin_sectors * SECTOR_SIZE) {
		errmsg("%s: the file system is not %s or smaller after resize2fs", d->path,
		       human_bytes(l.origin_sectors * SECTOR_SIZE, h1));
		r = EXIT_DEVICE;
		goto out;
	}
	r = write_sync(d, l.head_offset * SECTOR_SIZE, head, AREA, "writing the head copy");
	if (r)
		goto out;
	stop_after("copy");
	/* the log's superblocks zero: the target formats it on first open */
	memset(head, 0, 2 * RESSD_BLOCK_SIZE);
	r = write_sync(d, l.log_offset * SECTOR_SIZE, head, 2 * RESSD_BLOCK_SIZE,
		       "zeroing the log's start");
	if (!r) {
		label_encode(head, &l);
		r = write_sync(d, intent_offset(d), head, RESSD_BLOCK_SIZE, "writing the intent block");
	}
	if (r)
		goto out;
	stop_after("intent");
	r = finish_convert(d, &l);
out:
	free(head);
	rdev_close(d);
	return r;
}

/*
 * decommission_device() on the open @d, which it closes; without @copy the
 * first 1 MiB holds the file system already (a conversion that stopped
 * before its last step).
 */
static int decommission(struct rdev *d, const struct ressd_label *lab, bool copy,
			unsigned int how)
{
	struct ressd_label l = *lab;
	u8 *head = xmalloc_aligned(AREA);
	u64 fs_bytes;
	int r = EXIT_OK;

	if (!copy)
		goto unintent;
	/*
	 * The intent, marked: a torn first 1 MiB must still say where the
	 * head is, and that it is being put back (convert must not take it
	 * for a file system to copy).
	 */
	l.flags |= RESSD_LABEL_RESTORING;
	label_encode(head, &l);
	r = write_sync(d, intent_offset(d), head, RESSD_BLOCK_SIZE, "writing the intent block");
	if (r)
		goto out;
	r = io(rdev_read(d, l.head_offset * SECTOR_SIZE, head, AREA), d, "reading the head copy");
	if (r)
		goto out;
	if (ext_size(head, &fs_bytes) || fs_bytes > l.origin_sectors * SECTOR_SIZE) {
		errmsg("%s: the head copy holds no file system of the normal area's size: "
		       "refusing to write it back", d->path);
		r = EXIT_DEVICE;
		goto out;
	}
	r = write_sync(d, 0, head, AREA, "writing the head back");
	if (r)
		goto out;
	stop_after("restore");
unintent:
	memset(head, 0, RESSD_BLOCK_SIZE);
	r = write_sync(d, intent_offset(d), head, RESSD_BLOCK_SIZE, "zeroing the intent block");
	if (r)
		goto out;
	stop_after("unintent");
	free(head);
	rdev_close(d);
	r = run_fsck(d->path, how);
	if (!r)
		r = run_resize(d->path, 0);
	if (!r)
		printf("Decommissioned %s: a plain ext file system again, over the whole partition.\n",
		       d->path);
	return r;
out:
	free(head);
	rdev_close(d);
	return r;
}

int decommission_device(const char *path, const struct ressd_label *l, unsigned int how,
			const u8 *sbs)
{
	u8 *now = xmalloc_aligned(2 * RESSD_BLOCK_SIZE);
	struct rdev d;
	int r = rdev_open_unused(&d, path, "decommission");

	if (r) {
		free(now);
		return r;
	}
	/* Held now: a log opened since it was found empty may hold data. */
	r = log_superblocks(&d, l, now);
	if (!r && memcmp(now, sbs, 2 * RESSD_BLOCK_SIZE)) {
		errmsg("%s: its log changed since it was found empty (the device was opened "
		       "meanwhile): nothing was written; run 'ressdsetup decommission %s' again",
		       path, path);
		r = EXIT_DEVICE;
	}
	free(now);
	if (r) {
		rdev_close(&d);
		return r;
	}
	return decommission(&d, l, true, how);
}

int decommission_resume(const char *path, unsigned int how)
{
	bool batch = how & RESSD_CONV_BATCH;
	struct ressd_label l;
	struct rdev d;
	enum head_state st = HEAD_OTHER;
	u64 fs_bytes, size;
	bool copy, logged;
	u8 *head;
	int r = rdev_open_unused(&d, path, "decommission");

	if (r)
		return r;
	head = xmalloc_aligned(AREA);
	r = io(rdev_read(&d, 0, head, AREA), &d, "reading its first 1 MiB");
	if (r)
		goto out;
	r = read_intent(&d, &l);
	if (r == 1) {
		/*
		 * No label, no intent: a plain file system already, or nothing
		 * ressdsetup knows.  A decommission stopped after putting the
		 * head back leaves the file system short of the partition.
		 */
		r = EXIT_OK;
		if (ext_size(head, &fs_bytes)) {
			errmsg("%s: no ressd label and no file system (nothing to decommission)", path);
			r = EXIT_DEVICE;
			goto out;
		}
		size = d.size;
		free(head);
		rdev_close(&d);
		if (fs_bytes + AREA > size) {
			printf("%s is a plain file system already.\n", path);
			return EXIT_OK;
		}
		if (!batch && !confirm("This file system is smaller than its partition, as a\n"
				       "decommission stopped before growing it leaves it: grow it?")) {
			errmsg("decommission: not confirmed: nothing was written");
			return EXIT_PARAM;
		}
		r = run_fsck(path, how);
		return r ? r : run_resize(path, 0);
	}
	if (r)
		goto out;
	r = classify(&d, &l, head, &st);
	if (r)
		goto out;
	/* the log of a conversion that finished: only decommission's own path drains it */
	if (!(l.flags & RESSD_LABEL_RESTORING)) {
		r = log_ever_opened(&d, &l, &logged);
		if (!r && logged) {
			errmsg("%s: its label is damaged and its log holds data: nothing was changed "
			       "(the label is in the intent block at the partition's end; 'ressdsetup "
			       "convert' writes it again, then decommission drains the log)", path);
			r = EXIT_DEVICE;
		}
		if (r)
			goto out;
	}
	if (st == HEAD_OTHER) {
		errmsg("%s: its first 1 MiB holds neither the file system, its copy nor the label: "
		       "nothing was changed", path);
		r = EXIT_DEVICE;
		goto out;
	}
	/* a torn write of the label or of the head: the head copy is the file system's */
	copy = st == HEAD_TORN;
	if (!batch && !confirm(copy ?
			       "An interrupted conversion or decommission: put the file system's\n"
			       "first 1 MiB back from its copy and grow it over the partition?" :
			       "An interrupted conversion, its file system changed since: keep it,\n"
			       "forget the conversion and grow it over the partition?")) {
		errmsg("decommission: not confirmed: nothing was written");
		r = EXIT_PARAM;
		goto out;
	}
	free(head);
	l.flags &= ~RESSD_LABEL_RESTORING;
	printf("%s: finishing an interrupted %s.\n", path,
	       copy ? "conversion or decommission: putting the head back" :
		      "conversion: the file system in place is the newest");
	return decommission(&d, &l, copy, how);
out:
	free(head);
	rdev_close(&d);
	return r;
}
