/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel types dm-ressd-format.h uses, for user space (the uapi's
 * <linux/types.h> has the fixed-width little-endian ones; __packed and
 * U64_MAX are added here), and the format header itself: the on-disk format
 * is defined in one place, the module's.
 */
#ifndef RESSD_TYPES_H
#define RESSD_TYPES_H

#include <endian.h>
#include <linux/types.h>	/* __u8, __le16, __le32, __le64 (the uapi's) */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define __packed	__attribute__((__packed__))
#ifndef U64_MAX
#define U64_MAX		UINT64_MAX
#endif

#include "../../dm-ressd-format.h"
#include "../../dm-ressd-limits.h"

/* The byte offsets of Documentation/dm-ressd-design.rst's tables. */
_Static_assert(sizeof(struct ressd_disk_sb) == 256, "superblock size");
_Static_assert(offsetof(struct ressd_disk_sb, nonce) == 32, "sb nonce");
_Static_assert(offsetof(struct ressd_disk_sb, tail_slot) == 108, "sb tail_slot");
_Static_assert(offsetof(struct ressd_disk_sb, epoch) == 120, "sb epoch");
_Static_assert(sizeof(struct ressd_disk_rec) == RESSD_REC_HDR_SIZE, "record header");
_Static_assert(offsetof(struct ressd_disk_rec, epoch) == 56, "rec epoch");
_Static_assert(sizeof(struct ressd_disk_entry) == 12, "entry");
_Static_assert(sizeof(struct ressd_disk_inval) == 12, "inval");
_Static_assert(RESSD_REC_MAX_ITEMS == 336, "items per record");

/* Little-endian loads and stores of the on-disk fields. */
#define le16_get(x)	le16toh(x)
#define le32_get(x)	le32toh(x)
#define le64_get(x)	le64toh(x)
#define le16_put(x)	htole16(x)
#define le32_put(x)	htole32(x)
#define le64_put(x)	htole64(x)

#endif /* RESSD_TYPES_H */
