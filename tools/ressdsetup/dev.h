/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RESSD_DEV_H
#define RESSD_DEV_H

#include <stdbool.h>
#include <sys/stat.h>

#include "ressd-types.h"

/*
 * A device or an image file.  Block devices are read and written with
 * O_DIRECT: an active dm-ressd target writes its log with bios that bypass
 * the page cache of the underlying device, so buffered reads could return
 * stale blocks.  All I/O is in whole, 4 KiB aligned blocks.
 */
struct rdev {
	const char *path;
	int fd;
	bool blk;		/* a block device (else a regular file) */
	bool writable;
	u64 size;		/* bytes */
	struct stat st;
};

enum rdev_mode {
	RDEV_READ,		/* read only */
	RDEV_WRITE_EXCL,	/* read-write; block devices with O_EXCL */
};

/*
 * Open @path: 0, or -errno with the reason in @err.  Only block devices and
 * regular files are accepted.  For RDEV_WRITE_EXCL, EBUSY means the block
 * device is in use (mounted, swap, held by dm, md, or another O_EXCL user).
 */
int rdev_open(struct rdev *d, const char *path, enum rdev_mode mode,
	      char *err, size_t errlen);
void rdev_close(struct rdev *d);
/* Is the block device in use by someone who holds it exclusively? */
bool rdev_busy(const struct rdev *d);
/* Read/write @len bytes at @off (both multiples of 4 KiB): 0 or -errno. */
int rdev_read(const struct rdev *d, u64 off, void *buf, size_t len);
int rdev_write(const struct rdev *d, u64 off, const void *buf, size_t len);
int rdev_sync(const struct rdev *d);
/* Do @a and @b name the same device or file? */
bool rdev_same(const struct rdev *a, const struct rdev *b);
/*
 * Is the block device mounted or used as swap (per /proc/mounts,
 * /proc/self/mountinfo and /proc/swaps)?  Fills @where with the mount
 * point or "swap".
 */
bool rdev_mounted(const struct rdev *d, char *where, size_t n);
/*
 * Open @path read-write to @verb it (format, convert, ...), refusing a
 * device that is mounted, swap or otherwise in use: EXIT_OK, or EXIT_BUSY
 * or EXIT_DEVICE after a message.
 */
int rdev_open_unused(struct rdev *d, const char *path, const char *verb);

#endif
