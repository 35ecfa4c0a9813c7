/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pure side of dm-ressd's on-disk format (dm-ressd-format.c): the
 * in-memory form of superblocks, tunables, geometry and record trailers,
 * their encoding, decoding and checks, the search for a record's trailer,
 * and replay of a log into an index.  Nothing here knows of bios or of the
 * target, and only replay takes a lock (the index's) or sleeps (when its
 * read callback does): the module, KUnit and the fuzzers compile
 * dm-ressd-format.c unchanged.  The bytes on
 * disk are in dm-ressd-format.h, shared with the user-space tools.
 */
#ifndef DM_RESSD_CODEC_H
#define DM_RESSD_CODEC_H

#include <linux/types.h>
#include <linux/blk_types.h>

#include "dm-ressd-format.h"
#include "dm-ressd-limits.h"
#include "dm-ressd-plan.h"

struct ressd_index;

/*
 * 4 KiB blocks and 512-byte sectors: the block that holds sector @s, the
 * first sector of block @b, and where in its block sector @s lies.
 */
#define RESSD_SECTOR_SHIFT	(RESSD_BLOCK_SHIFT - SECTOR_SHIFT)

static inline u64 ressd_block_of(sector_t s)
{
	return s >> RESSD_SECTOR_SHIFT;
}

static inline sector_t ressd_block_sector(u64 b)
{
	return (sector_t)b << RESSD_SECTOR_SHIFT;
}

static inline unsigned int ressd_sector_in_block(sector_t s)
{
	return s & (RESSD_SECTORS_PER_BLOCK - 1);
}

/*
 * Tunables: set by the table line and by "set <key> <value>".
 * Protected by ressd_c->lock where they are read on the I/O path.
 */
struct ressd_tunables {
	unsigned int small_write_max;	/* sectors; larger writes go home */
	unsigned int high_watermark;	/* percent of the log: mover starts */
	unsigned int low_watermark;	/* percent of the log: mover stops */
	unsigned int mover_batch;	/* sectors per mover write */
	struct ressd_devmodel dev_model;	/* what the device charges */
	unsigned int mover_policy;	/* enum ressd_mover_policy */
	unsigned int log_mode;		/* enum ressd_log_mode */
	unsigned int data_csum;		/* 0: ordered entries need no crc32c */
};

/* Whether small writes go to the log (log_mode). */
enum ressd_log_mode {
	RESSD_LOG_ALWAYS,	/* every small write is logged */
	RESSD_LOG_NEVER,	/* small writes pass through, home */
	RESSD_LOG_AUTO,		/* the model decides, from the writes seen */
};

/* What a mover round takes (mover_policy). */
enum ressd_mover_policy {
	RESSD_POLICY_FIFO,	/* the log from the tail, all of it home */
	RESSD_POLICY_DENSITY,	/* dense units home, the rest copied forward */
};

/* Their defaults and ranges are in dm-ressd-limits.h. */

/* Geometry of a table line, in 512-byte sectors. */
struct ressd_geometry {
	sector_t origin_offset;
	sector_t origin_sectors;	/* ti->len */
	sector_t origin_dev_sectors;	/* size of the origin device */
	sector_t log_offset;
	sector_t log_sectors;
	sector_t log_dev_sectors;	/* size of the log device */
	bool same_dev;			/* log and origin on one device */
};

/* In-memory copy of what the newest valid superblock says. */
struct ressd_sb_info {
	u64 nonce;
	u64 generation;		/* of the newest copy on disk */
	u32 nr_slots;
	u32 tail_slot;		/* checkpoint */
	u64 tail_seq;
	u64 tail_epoch;		/* the record at the checkpoint: no older */
	u64 epoch;		/* records must not be newer than this */
	u32 compat;
	u32 ro_compat;
	u32 incompat;
};

/* What a record is checked against. */
struct ressd_log_geo {
	u64 nonce;
	u32 nr_slots;		/* slots in the circular log */
	u64 origin_blocks;	/* 4 KiB blocks in the normal area */
};

/*
 * crc32c(@crc, @data, @len), the kernel's crc32c() semantics, by the driver
 * the module chose (dm-ressd-csum.c; in the fuzzers' shim, tests/fuzz/shim,
 * tools/lib/crc32c.c).
 */
u32 ressd_crc32c_update(u32 crc, const void *data, unsigned int len);
/* crc32c of @len bytes seeded with the volume @nonce (pure). */
u32 ressd_csum(u64 nonce, const void *data, size_t len);
/* Checksum of a 4 KiB metadata block, its csum field taken as zero (pure). */
u32 ressd_block_csum(const void *blk, u64 nonce);
/*
 * Check a superblock read from block @location of the log range against the
 * table's geometry (pure).  Returns NULL when it is valid, else a ti->error
 * message; the details (found and expected values) go to the kernel log.
 */
const char *ressd_sb_check(const struct ressd_disk_sb *sb, u64 location,
			   const struct ressd_geometry *g);
/* Encode @info, @g and @t into the 4 KiB block @sb for @location (pure). */
void ressd_sb_encode(struct ressd_disk_sb *sb, u64 location,
		     const struct ressd_sb_info *info,
		     const struct ressd_geometry *g,
		     const struct ressd_tunables *t);
/* Is this 4 KiB block all zero? (pure) */
bool ressd_block_is_zero(const void *block);
/* Number of log slots a log range of @log_sectors holds (pure). */
u32 ressd_nr_slots(sector_t log_sectors);
/* Decode a superblock that ressd_sb_check() accepted (pure). */
void ressd_sb_decode(const struct ressd_disk_sb *sb, struct ressd_sb_info *info);

/* A decoded record trailer (entries stay in the block). */
struct ressd_trailer {
	u64 seq;
	u64 epoch;
	u64 tail_seq;
	u32 slot;		/* the trailer's slot; data in slot - nr_data .. */
	u32 tail_slot;
	u32 nr_data;
	u32 nr_inval;
};

/* First slot of a record: its first data block, or its trailer. */
static inline u32 ressd_rec_start(const struct ressd_trailer *r)
{
	return r->slot - r->nr_data;
}

/* Where the record after the one whose trailer is at @slot starts. */
static inline u32 ressd_rec_next_slot(const struct ressd_log_geo *lg, u32 slot)
{
	return slot + 1 >= lg->nr_slots ? 0 : slot + 1;
}

/*
 * Encode the trailer of @r into the 4 KiB block @blk: r->nr_data entries
 * from @e, then r->nr_inval ranges from @inv.
 */
void ressd_rec_encode(void *blk, const struct ressd_log_geo *lg,
		      const struct ressd_trailer *r,
		      const struct ressd_disk_entry *e,
		      const struct ressd_disk_inval *inv);
/*
 * Mark the entries of the trailer in @blk (encoded by ressd_rec_encode())
 * whose bits are set in @ordered as ordered (RESSD_ENTRY_ORDERED; dead ones
 * stay dead) and seal the block again.  Returns how many it marked.
 */
u32 ressd_rec_mark_ordered(void *blk, const struct ressd_log_geo *lg,
			   const unsigned long *ordered);
/*
 * Decode and check the trailer in @blk, read from @slot: NULL when it is a
 * well-formed record of this volume at this place, else why not.  The chain
 * (seq and epoch) is the caller's to check.
 */
const char *ressd_rec_decode(const void *blk, const struct ressd_log_geo *lg,
			     u32 slot, struct ressd_trailer *r);

/*
 * Is the trailer in @buf, read from @slot, the one of the record that starts
 * at @start with @seq and an epoch in [@min_epoch, @max_epoch]?  NULL when
 * it is (*@r filled), else why not.
 */
const char *ressd_rec_check(const void *buf, const struct ressd_log_geo *lg, u32 slot,
			    u32 start, u64 seq, u64 min_epoch, u64 max_epoch,
			    struct ressd_trailer *r);

/*
 * Find the trailer of the record that starts at @start with @seq and an
 * epoch in [@min_epoch, @max_epoch]: the first slot from @start on (at most
 * RESSD_REC_MAX_ITEMS further, before the end of the log) that holds one.
 * Reads go through @read into the 4 KiB buffer @buf, which holds the
 * trailer on success.  Returns 0 when found (*@r filled), 1 when there is
 * none (*@why says why: the first near miss, or that no block qualified),
 * or a read error.  May sleep when @read does.
 */
int ressd_rec_find(int (*read)(void *ctx, u32 slot, void *buf), void *ctx,
		   const struct ressd_log_geo *lg, u32 start, u64 seq,
		   u64 min_epoch, u64 max_epoch, void *buf, struct ressd_trailer *r,
		   const char **why);

/*
 * Look through every slot of the log for a valid record trailer that only a
 * superblock newer than the one loaded lets exist: an epoch above @epoch (a
 * record is written in the epoch of a superblock already durable) or a
 * checkpoint above @tail_seq (a record carries the checkpoint of the newest
 * superblock written before it, and checkpoints only grow).  Returns 1 with
 * *@r the first such trailer (@buf holds it), 0 when there is none, or a
 * read error.  May sleep when @read does.
 */
int ressd_log_find_newer(int (*read)(void *ctx, u32 slot, void *buf), void *ctx,
			 const struct ressd_log_geo *lg, u64 epoch, u64 tail_seq,
			 void *buf, struct ressd_trailer *r);

/*
 * Replay the log from the checkpoint into an empty index.  Reads go through
 * @read, so that KUnit can replay generated logs; in the kernel they are
 * synchronous bios (may sleep).
 */
struct ressd_replay {
	/* in */
	const struct ressd_log_geo *lg;
	u32 tail_slot;		/* the superblock's checkpoint */
	u64 tail_seq;
	u64 tail_epoch;		/* lowest epoch of the record at the checkpoint */
	u64 epoch;		/* the superblock's epoch */
	int (*read)(void *ctx, u32 slot, void *buf);
	void *ctx;
	void *trailer;		/* two 4 KiB scratch buffers (trailer, data) */
	void *data;
	struct ressd_index *idx;
	unsigned long *trailers;	/* or NULL: the trailer slot of each */
					/*   record applied is set in it */
	/* out */
	u32 head;		/* where the next record goes */
	u64 next_seq;
	u64 last_epoch;		/* the chain's epoch at its end (tail_epoch: none) */
	u32 new_tail_slot;	/* the newest checkpoint any record carried */
	u64 new_tail_seq;
	u64 new_tail_epoch;	/* the chain's epoch at the new checkpoint */
	u32 used;		/* slots from the new tail to head */
	u32 records;		/* records applied */
	u64 entries;		/* entries applied */
	u64 bad_data;		/* entries whose data checksum failed */
	u64 ordered;		/* entries applied without a checksum */
	u64 invalidated;	/* blocks unmapped by invalidations */
	const char *stop;	/* why the scan stopped */
};

int ressd_replay(struct ressd_replay *rp, const char **error);

/*
 * The epoch a checkpoint at the record @seq carries (its tail_epoch): the
 * current @epoch when that record is one of this activation (@seq at or
 * after @first_seq, the first seq written in @epoch; written or not yet),
 * else @chain_epoch, the epoch of the chain there.  Replay then never takes
 * a stale record of an older activation at the checkpoint (I2, I6).
 */
u64 ressd_checkpoint_epoch(u64 seq, u64 first_seq, u64 epoch, u64 chain_epoch);

#endif /* DM_RESSD_CODEC_H */
