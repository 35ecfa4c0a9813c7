/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ressd label: one 4 KiB block at offset 0 of a device formatted by
 * ressdsetup, describing where its normal area and reserved area (the log)
 * are and the tunables to create the target with.  Only ressdsetup reads it;
 * the kernel target is given the geometry by the table line and keeps its
 * own superblocks in the log range (dm-ressd-format.h).
 *
 * All fields little-endian; the rest of the 4 KiB block is zero and covered
 * by the checksum.
 */
#ifndef RESSD_LABEL_H
#define RESSD_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#include "ressd-types.h"
#include "../../dm-ressd-plan.h"	/* the device cost model (dev_model) */

#define RESSD_LABEL_MAGIC	0x626c2d4453536552ULL	/* "ReSSD-lb" */
#define RESSD_LABEL_VERSION	1
#define RESSD_LABEL_SAME_DEV	0x1U	/* the log range is on this device */
#define RESSD_LABEL_DEVMODEL	0x2U	/* dev_model holds a device cost model */
#define RESSD_LABEL_DENSITY	0x4U	/* mover_policy density (needs a model's unit) */
#define RESSD_LABEL_LOG_NEVER	0x8U	/* log_mode never */
#define RESSD_LABEL_LOG_AUTO	0x10U	/* log_mode auto (needs a model) */
/*
 * Converted in place (ressdsetup convert): the normal area starts at sector
 * 0 of the device, but its first RESSD_LABEL_AREA_SECTORS sectors (where
 * the label now is) live at head_offset, past the normal area; the rest is
 * where it always was.  open maps them with a dm-linear device
 * <name>-origin under the target.
 */
#define RESSD_LABEL_HEAD	0x20U
/* Only in convert.c's intent block: a decommission is putting the head back. */
#define RESSD_LABEL_RESTORING	0x40U
#define RESSD_LABEL_NO_DATA_CSUM 0x80U	/* data_csum 0 */
#define RESSD_LABEL_FLAGS	(RESSD_LABEL_SAME_DEV | RESSD_LABEL_DEVMODEL | RESSD_LABEL_DENSITY | \
				 RESSD_LABEL_LOG_NEVER | RESSD_LABEL_LOG_AUTO | RESSD_LABEL_HEAD | \
				 RESSD_LABEL_RESTORING | RESSD_LABEL_NO_DATA_CSUM)
/* The normal area starts at this boundary (1 MiB), after the label. */
#define RESSD_LABEL_AREA_SECTORS	2048ULL
#define RESSD_LABEL_PATH_MAX	256

struct ressd_disk_label {
	__le64 magic;		/*   0: RESSD_LABEL_MAGIC */
	__le32 csum;		/*   8: crc32c of the block, this field zero, seeded with nonce */
	__le32 version;		/*  12: RESSD_LABEL_VERSION */
	__le64 nonce;		/*  16: random */
	__u8 uuid[16];		/*  24: random (RFC 4122 version 4) */
	__le32 flags;		/*  40: RESSD_LABEL_FLAGS */
	__le32 block_size;	/*  44: 4096 */
	__le64 created;		/*  48: seconds since 1970 */
	__le64 device_sectors;	/*  56: size of this device when formatted */
	__le64 origin_offset;	/*  64: sectors: start of the normal area */
	__le64 origin_sectors;	/*  72: sectors: its length (the mapped device's) */
	__le64 log_offset;	/*  80: sectors: start of the log range on the log device */
	__le64 log_sectors;	/*  88: sectors: its length */
	__le64 log_device_sectors; /* 96: size of the log device when formatted */
	__le32 small_write_max;	/* 104: tunables of the table line */
	__le32 high_watermark;	/* 108 */
	__le32 low_watermark;	/* 112 */
	__le32 mover_batch;	/* 116 */
	char log_device[RESSD_LABEL_PATH_MAX];	/* 120: a separate log device's path, NUL-terminated */
	__le32 dev_model[RESSD_DM_FIELDS]; /* 376: with RESSD_LABEL_DEVMODEL, the
				 * table's dev_model, its fields in order */
	__le64 head_offset;	/* 420: sectors: with RESSD_LABEL_HEAD, where the normal
				 * area's first 1 MiB lives */
	__u8 reserved[84];	/* 428: zero */
} __packed;			/* 512 */

_Static_assert(sizeof(struct ressd_disk_label) == 512, "label size");

struct ressd_tun {
	u32 small_write_max;
	u32 high_watermark;
	u32 low_watermark;
	u32 mover_batch;
};

/* The decoded label. */
struct ressd_label {
	u64 nonce;
	u8 uuid[16];
	u32 flags;
	u64 created;
	u64 device_sectors;
	u64 origin_offset, origin_sectors;
	u64 log_offset, log_sectors;
	u64 log_device_sectors;
	u64 head_offset;		/* RESSD_LABEL_HEAD */
	struct ressd_tun t;
	struct ressd_devmodel dm;	/* all zero: none (no RESSD_LABEL_DEVMODEL) */
	char log_device[RESSD_LABEL_PATH_MAX];
};

void tun_defaults(struct ressd_tun *t);
/*
 * Check the tunables as the kernel does (dm-ressd.c: ressd_parse_tunable and
 * ressd_check_tunables): NULL, or the kernel's message.
 */
const char *tun_check(const struct ressd_tun *t);

/* Encode @l into the 4 KiB block @blk (checksum included). */
void label_encode(void *blk, const struct ressd_label *l);
/*
 * Decode and check the 4 KiB block @blk: NULL when it is a valid label,
 * else why not (the first failed check, in the order: magic, checksum,
 * version, block size, flags, geometry, tunables).  @l is filled whenever
 * the checksum is good.
 */
const char *label_decode(const void *blk, struct ressd_label *l);
/* Does the block start with the label magic? */
bool label_has_magic(const void *blk);
/* "xxxxxxxx-xxxx-..." into @buf (37 bytes). */
void uuid_format(const u8 *uuid, char *buf);
/* Are the log range and the normal area on one device, per the label? */
static inline bool label_same_dev(const struct ressd_label *l)
{
	return l->flags & RESSD_LABEL_SAME_DEV;
}
/* The label's log_mode: "always", "never" or "auto". */
static inline const char *label_log_mode(const struct ressd_label *l)
{
	return l->flags & RESSD_LABEL_LOG_AUTO ? "auto" :
	       l->flags & RESSD_LABEL_LOG_NEVER ? "never" : "always";
}

#endif
