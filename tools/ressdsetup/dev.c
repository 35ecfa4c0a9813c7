// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev.h"
#include "util.h"

int rdev_open(struct rdev *d, const char *path, enum rdev_mode mode,
	      char *err, size_t errlen)
{
	int flags = O_CLOEXEC, fd, e;
	struct stat st;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->path = path;
	if (stat(path, &st)) {
		e = errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is neither a block device nor a regular file", path);
		return -EINVAL;
	}
	d->blk = S_ISBLK(st.st_mode);
	flags |= mode == RDEV_READ ? O_RDONLY : O_RDWR;
	if (d->blk) {
		flags |= O_DIRECT;
		if (mode == RDEV_WRITE_EXCL)
			flags |= O_EXCL;
	}
	fd = open(path, flags);
	if (fd < 0) {
		e = errno;
		if (e == EBUSY)
			snprintf(err, errlen,
				 "%s is in use (mounted, swap, or held by device-mapper, md or another program)",
				 path);
		else
			snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &d->st)) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "cannot stat %s: %s", path, strerror(e));
		return -e;
	}
	if (d->blk) {
		unsigned long long sz;

		if (ioctl(fd, BLKGETSIZE64, &sz)) {
			e = errno;
			close(fd);
			snprintf(err, errlen, "cannot get the size of %s: %s", path, strerror(e));
			return -e;
		}
		d->size = sz;
	} else {
		d->size = (u64)d->st.st_size;
	}
	d->fd = fd;
	d->writable = mode != RDEV_READ;
	return 0;
}

void rdev_close(struct rdev *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

bool rdev_busy(const struct rdev *d)
{
	int fd;

	if (!d->blk)
		return false;
	fd = open(d->path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return errno == EBUSY;
	close(fd);
	return false;
}

int rdev_read(const struct rdev *d, u64 off, void *buf, size_t len)
{
	u8 *p = buf;

	while (len) {
		ssize_t n = pread(d->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;	/* beyond the end */
		p += n;
		off += (u64)n;
		len -= (size_t)n;
	}
	return 0;
}

int rdev_write(const struct rdev *d, u64 off, const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len) {
		ssize_t n = pwrite(d->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		off += (u64)n;
		len -= (size_t)n;
	}
	return 0;
}

int rdev_sync(const struct rdev *d)
{
	return fsync(d->fd) ? -errno : 0;
}

bool rdev_same(const struct rdev *a, const struct rdev *b)
{
	if (a->blk != b->blk)
		return false;
	if (a->blk)
		return a->st.st_rdev == b->st.st_rdev;
	return a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino;
}

/* Undo the octal escapes of /proc/mounts (\040 for a space, ...). */
static void unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = 0;
}

static bool is_this_dev(const struct rdev *d, const char *path)
{
	struct stat st;

	return path[0] == '/' && !stat(path, &st) && S_ISBLK(st.st_mode) &&
	       st.st_rdev == d->st.st_rdev;
}

bool rdev_mounted(const struct rdev *d, char *where, size_t n)
{
	char line[4096], src[1024], dir[1024];
	bool found = false;
	FILE *f;

	if (!d->blk)
		return false;
	f = fopen("/proc/mounts", "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%1023s %1023s", src, dir) != 2)
			continue;
		unescape(src);
		unescape(dir);
		if (is_this_dev(d, src)) {
			snprintf(where, n, "%s", dir);
			found = true;
		}
	}
	if (f)
		fclose(f);
	/* mountinfo names the device by number, whatever the source says. */
	f = fopen("/proc/self/mountinfo", "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;

		if (sscanf(line, "%*u %*u %u:%u %*s %1023s", &maj, &min, dir) != 3)
			continue;
		if (makedev(maj, min) == d->st.st_rdev) {
			unescape(dir);
			snprintf(where, n, "%s", dir);
			found = true;
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/swaps", "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%1023s", src) != 1)
			continue;
		unescape(src);
		if (is_this_dev(d, src)) {
			snprintf(where, n, "swap");
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static bool path_is_mounted(const char *path, char *where, size_t n)
{
	struct rdev d;

	memset(&d, 0, sizeof(d));
	d.fd = -1;
	if (stat(path, &d.st) || !S_ISBLK(d.st.st_mode))
		return false;
	d.blk = true;
	return rdev_mounted(&d, where, n);
}

int rdev_open_unused(struct rdev *d, const char *path, const char *verb)
{
	char err[512], where[1024];
	int r;

	if (path_is_mounted(path, where, sizeof(where))) {
		if (!strcmp(where, "swap"))
			errmsg("%s is in use as swap: refusing to %s it", path, verb);
		else
			errmsg("%s is mounted on %s: refusing to %s it", path, where, verb);
		return EXIT_BUSY;
	}
	r = rdev_open(d, path, RDEV_WRITE_EXCL, err, sizeof(err));
	if (r == -EBUSY) {
		errmsg("%s: refusing to %s it", err, verb);
		return EXIT_BUSY;
	}
	if (r < 0) {
		errmsg("%s", err);
		return EXIT_DEVICE;
	}
	return 0;
}
