/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RESSD_PROBE_H
#define RESSD_PROBE_H

#include "dev.h"

/* Bytes from the start of a device that probe_signature() looks at. */
#define PROBE_BYTES	(72 * 1024)

/*
 * Look for a few common signatures at the start of a device (@buf holds its
 * first @len bytes, zero beyond): a ressd label or log superblock, ext2/3/4,
 * XFS, Btrfs, F2FS, LUKS, swap, LVM2, MD RAID, dm-integrity, FAT, NTFS,
 * ISO 9660, GPT and DOS partition tables.  Returns a description, or NULL.
 */
const char *probe_signature(const u8 *buf, size_t len);

/*
 * Read the start of @d at byte @off and probe it: NULL when nothing was
 * found, else the description; *@err is set on a read error.
 */
const char *probe_device(const struct rdev *d, u64 off, int *err);

#endif
