// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "label.h"
#include "probe.h"
#include "util.h"

static bool at(const u8 *buf, size_t len, size_t off, const void *magic, size_t n)
{
	return off + n <= len && !memcmp(buf + off, magic, n);
}

static u32 get32(const u8 *buf, size_t off)
{
	u32 v;

	memcpy(&v, buf + off, 4);
	return le32toh(v);
}

static const char *probe_ext(const u8 *buf, size_t len)
{
	const size_t sb = 1024;
	u32 compat, incompat;

	if (!at(buf, len, sb + 0x38, "\x53\xef", 2))
		return NULL;
	compat = get32(buf, sb + 0x5c);
	incompat = get32(buf, sb + 0x60);
	/* extents, 64bit, flex_bg: ext4; a journal: ext3 */
	if (incompat & 0x2c0)
		return "an ext4 file system";
	if (compat & 0x4)
		return "an ext3 file system";
	return "an ext2 file system";
}

static bool dos_partitions(const u8 *buf, size_t len)
{
	int i;

	if (!at(buf, len, 510, "\x55\xaa", 2))
		return false;
	for (i = 0; i < 4; i++) {
		const u8 *e = buf + 446 + 16 * i;

		if (e[0] != 0 && e[0] != 0x80)
			return false;	/* not a boot indicator: not an MBR */
	}
	for (i = 0; i < 4; i++)
		if (buf[446 + 16 * i + 4])
			return true;
	return false;
}

const char *probe_signature(const u8 *buf, size_t len)
{
	u64 magic;
	const char *s;

	if (len >= 8) {
		memcpy(&magic, buf, 8);
		magic = le64toh(magic);
		if (magic == RESSD_LABEL_MAGIC)
			return "a ressd label";
		if (magic == RESSD_SB_MAGIC)
			return "a dm-ressd log (superblock)";
	}
	s = probe_ext(buf, len);
	if (s)
		return s;
	if (at(buf, len, 0, "XFSB", 4))
		return "an XFS file system";
	if (at(buf, len, 65536 + 64, "_BHRfS_M", 8))
		return "a Btrfs file system";
	if (at(buf, len, 1024, "\x10\x20\xf5\xf2", 4))
		return "an F2FS file system";
	if (at(buf, len, 0, "LUKS\xba\xbe", 6) || at(buf, len, 0, "SKUL\xba\xbe", 6))
		return "a LUKS volume";
	if (at(buf, len, 4096 - 10, "SWAPSPACE2", 10) || at(buf, len, 4096 - 10, "SWAP-SPACE", 10))
		return "a swap area";
	if (at(buf, len, 512, "LABELONE", 8) && at(buf, len, 512 + 24, "LVM2 001", 8))
		return "an LVM2 physical volume";
	if (at(buf, len, 0, "\xfc\x4e\x2b\xa9", 4) || at(buf, len, 4096, "\xfc\x4e\x2b\xa9", 4))
		return "an MD RAID member";
	if (at(buf, len, 0, "integrt", 8))
		return "a dm-integrity device";
	if (at(buf, len, 3, "NTFS    ", 8))
		return "an NTFS file system";
	if (at(buf, len, 510, "\x55\xaa", 2) &&
	    (at(buf, len, 54, "FAT1", 4) || at(buf, len, 82, "FAT32   ", 8)))
		return "a FAT file system";
	if (at(buf, len, 32769, "CD001", 5))
		return "an ISO 9660 file system";
	if (at(buf, len, 512, "EFI PART", 8))
		return "a GPT partition table";
	if (dos_partitions(buf, len))
		return "a DOS partition table";
	return NULL;
}

const char *probe_device(const struct rdev *d, u64 off, int *err)
{
	size_t len = PROBE_BYTES;
	const char *s;
	u8 *buf;

	*err = 0;
	if (off >= d->size)
		return NULL;
	if (d->size - off < len)
		len = (size_t)((d->size - off) & ~(u64)(RESSD_BLOCK_SIZE - 1));
	buf = xmalloc_aligned(PROBE_BYTES);
	if (len) {
		*err = rdev_read(d, off, buf, len);
		if (*err) {
			free(buf);
			return NULL;
		}
	}
	s = probe_signature(buf, len);
	free(buf);
	return s;
}
