/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Limits and defaults of the dm-ressd target that its user-space tools need
 * too: the defaults of the tunables, their ranges, and the smallest log.
 * Plain constants, no kernel types: the module (dm-ressd.h) and ressdsetup
 * include this one file, so that both always agree.  The on-disk format is
 * in dm-ressd-format.h.
 */
#ifndef DM_RESSD_LIMITS_H
#define DM_RESSD_LIMITS_H

/* Tunables, in 512-byte sectors or percent of the log. */
#define RESSD_DEF_SMALL_WRITE_MAX	16	/* 8 KiB */
#define RESSD_DEF_HIGH_WATERMARK	50
#define RESSD_DEF_LOW_WATERMARK		0
#define RESSD_DEF_MOVER_BATCH		1024	/* 512 KiB */
#define RESSD_MIN_MOVER_BATCH		16	/* 8 KiB: a trailer and one block */
#define RESSD_MAX_MOVER_BATCH		8192	/* 4 MiB */

/* Slots kept free so that invalidation-only records can always be written. */
#define RESSD_INVAL_RESERVE	8

/*
 * Fewest log blocks: the two superblocks and 16 slots, RESSD_INVAL_RESERVE
 * (8) kept for records that carry only invalidations and as many for small
 * writes.  With fewer, the writer's room (slots minus that reserve) is too
 * small to hold a record, or wraps below zero and laps the tail.
 * (RESSD_SB_BLOCKS, 2, is in dm-ressd-format.h.)
 */
#define RESSD_MIN_LOG_BLOCKS	(RESSD_SB_BLOCKS + 16)

#endif /* DM_RESSD_LIMITS_H */
