/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal interfaces of the dm-ressd target.
 *
 * One section per source file.  Functions whose names start with "__" expect
 * the caller to hold the lock named in their comment, and assert it with
 * lockdep_assert_held().  Each section says whether its functions may sleep.
 */
#ifndef DM_RESSD_H
#define DM_RESSD_H

#include <linux/types.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/atomic.h>
#include <linux/device-mapper.h>

#include "compat.h"
#include "dm-ressd-format.h"

/* Largest origin block the index can hold (see struct ressd_slot). */
#define RESSD_INDEX_MAX_BLOCK	RESSD_MAX_BLOCK

/*
 * Tunables: set by the table line and by "set <key> <value>".
 * Protected by ressd_c->lock where they are read on the I/O path.
 */
struct ressd_tunables {
	unsigned int small_write_max;	/* sectors; larger writes go home */
	unsigned int high_watermark;	/* percent of the log: mover starts */
	unsigned int low_watermark;	/* percent of the log: mover stops */
	unsigned int mover_batch;	/* sectors per mover write */
};

#define RESSD_DEF_SMALL_WRITE_MAX	16	/* 8 KiB */
#define RESSD_DEF_HIGH_WATERMARK	50
#define RESSD_DEF_LOW_WATERMARK		25
#define RESSD_DEF_MOVER_BATCH		1024	/* 512 KiB */
#define RESSD_MIN_MOVER_BATCH		16	/* 8 KiB: a header and one block */
#define RESSD_MAX_MOVER_BATCH		8192	/* 4 MiB */

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

/* Fewest log blocks: two superblocks, one record of a header and a block. */
#define RESSD_MIN_LOG_BLOCKS	(RESSD_SB_BLOCKS + 2)

enum ressd_mode {
	RESSD_MODE_RW,		/* normal operation */
	RESSD_MODE_RO,		/* metadata may no longer change */
	RESSD_MODE_FAIL,	/* all I/O fails */
};

/* ---- functions in dm-ressd.c (pure, never sleep) ---- */

/* The two longest ti->error messages, shared with the KUnit suites. */
#define RESSD_E_SMALL_WRITE_MAX \
	"small_write_max must be a multiple of 8 sectors below 4 MiB"
#define RESSD_E_MOVER_BATCH \
	"mover_batch must be a multiple of 8 sectors from 16 to 8192"

/*
 * Parse one tunable "key value" into @t, checking its range against the
 * other tunables.  Returns 0, or -EINVAL with a ti->error style message in
 * *@error.
 */
int ressd_parse_tunable(struct ressd_tunables *t, const char *key,
			const char *value, const char **error);
/* Defaults of all tunables. */
void ressd_default_tunables(struct ressd_tunables *t);
/* Check a geometry; returns NULL when valid, else the ti->error message. */
const char *ressd_check_geometry(const struct ressd_geometry *g);
/* Parse a sector count or offset; 0 or -EINVAL. */
int ressd_parse_sector(const char *s, sector_t *out);

/* ---- functions in dm-ressd-rbtree.c: the remap index ---- */

/*
 * The index maps original 4 KiB blocks of the normal area to log slots.
 *
 * It holds one struct ressd_slot per log slot, allocated once at
 * construction, so that its memory is bounded by the reserved area and the
 * I/O path never allocates.  Slot s's node is in the rb-tree (keyed by
 * original block) while slot s heads an extent: a run of consecutive slots
 * s..s+len-1 that hold consecutive original blocks b..b+len-1.  Slots inside
 * an extent but not heading it are "continuation" slots; free slots are in
 * neither state.  The reverse map slot -> block is therefore the array itself.
 *
 * All __ressd_index_* functions expect idx->lock held and never sleep.
 */
struct ressd_slot {
	struct rb_node node;	/* in idx->tree while this slot heads an extent */
	u64 info;		/* block:48 | len:14 | state:2, see rbtree.c */
};

struct ressd_index {
	spinlock_t lock;	/* protects everything below */
	struct rb_root tree;	/* extent heads keyed by original block */
	struct ressd_slot *slots;	/* nr_slots nodes */
	u32 nr_slots;
	u64 mapped;		/* mapped original blocks */
	u64 extents;		/* extents in the tree */
};

/* Result of a lookup: a run of blocks that is either mapped or not. */
struct ressd_map {
	bool mapped;
	u32 slot;		/* if mapped: slot of the run's first block */
	u32 len;		/* blocks in the run, 1 <= len <= max */
};

/*
 * Allocate the slot array for @nr_slots slots (may sleep): 0, -ENOMEM, or
 * -EINVAL for 0 or more than RESSD_MAX_SLOTS slots.
 */
int ressd_index_init(struct ressd_index *idx, u32 nr_slots);
void ressd_index_exit(struct ressd_index *idx);
/* Bytes of memory the index holds (reported in status). */
size_t ressd_index_bytes(const struct ressd_index *idx);

/*
 * Look up @block: the longest run starting at @block, at most @max blocks,
 * that is either mapped to consecutive slots or wholly unmapped.
 */
void __ressd_index_lookup(struct ressd_index *idx, u64 block, u32 max,
			  struct ressd_map *m);
/*
 * Map @block to @slot, replacing and returning any older mapping of @block
 * (RESSD_NO_SLOT when there was none).  @slot must be free.  Merges with
 * the neighbouring extents when both block and slot are contiguous.
 */
#define RESSD_NO_SLOT	U32_MAX
u32 __ressd_index_insert(struct ressd_index *idx, u64 block, u32 slot);
/* Unmap every block in [@block, @block + @nr); returns how many were. */
u64 __ressd_index_remove_range(struct ressd_index *idx, u64 block, u64 nr);
/*
 * If @slot currently holds live data, set *@block to its original block and
 * return true.
 */
bool __ressd_index_slot_block(struct ressd_index *idx, u32 slot, u64 *block);
/* Unmap @slot if it is live (after the mover has moved it home). */
bool __ressd_index_remove_slot(struct ressd_index *idx, u32 slot);

/* In-memory copy of what the newest valid superblock says. */
struct ressd_sb_info {
	u64 nonce;
	u64 generation;		/* of the newest copy on disk */
	u32 nr_slots;
	u32 tail_slot;		/* checkpoint */
	u64 tail_seq;
	u64 epoch;		/* records must not be newer than this */
	u32 compat;
	u32 ro_compat;
	u32 incompat;
};

/*
 * The target.  Fields set by the constructor and never changed afterwards
 * need no lock; the others name theirs.
 */
struct ressd_c {
	struct dm_target *ti;
	struct dm_dev *origin;
	struct dm_dev *log;
	struct ressd_geometry geo;

	spinlock_t lock;		/* protects tunables and mode */
	struct ressd_tunables tunables;
	enum ressd_mode mode;

	struct mutex meta_lock;		/* serialises superblock writes */
	struct ressd_sb_info sb;	/* under meta_lock */
	bool formatted;			/* this constructor formatted the log */

	struct ressd_index index;

	/* Statistics for "dmsetup status"; atomic, no lock. */
	atomic64_t redirected_writes;
	atomic64_t direct_writes;
	atomic64_t split_reads;
	atomic64_t moved_blocks;
	atomic64_t mover_writes;
	atomic64_t metadata_commits;
};

/* ---- functions in dm-ressd-meta.c ---- */

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
/*
 * Read the superblocks: format an all-zero log, load a valid one, refuse
 * anything else with a message in *@error.  May sleep.
 */
int ressd_meta_load(struct ressd_c *rc, const char **error);
/* Write the next superblock copy with FUA (takes meta_lock; may sleep). */
int ressd_meta_write_sb(struct ressd_c *rc);

/* ---- log records (dm-ressd-meta.c; pure unless noted) ---- */

/* What a record is checked against. */
struct ressd_log_geo {
	u64 nonce;
	u32 nr_slots;		/* slots in the circular log */
	u64 origin_blocks;	/* 4 KiB blocks in the normal area */
};

/* A decoded record header (entries stay in the block). */
struct ressd_rec {
	u64 seq;
	u64 epoch;
	u64 tail_seq;
	u32 slot;
	u32 tail_slot;
	u32 nr_data;
	u32 nr_inval;
};

/* The slot that follows a record of @nr_data blocks at @slot. */
static inline u32 ressd_rec_next_slot(const struct ressd_log_geo *lg, u32 slot,
				      u32 nr_data)
{
	u32 next = slot + 1 + nr_data;

	return next >= lg->nr_slots ? 0 : next;
}

/*
 * Encode the header of @r into the 4 KiB block @blk: r->nr_data entries
 * from @e, then r->nr_inval ranges from @inv.
 */
void ressd_rec_encode(void *blk, const struct ressd_log_geo *lg,
		      const struct ressd_rec *r,
		      const struct ressd_disk_entry *e,
		      const struct ressd_disk_inval *inv);
/*
 * Decode and check the header in @blk, read from @slot: NULL when it is a
 * well-formed record of this volume at this place, else why not.  The chain
 * (seq and epoch) is the caller's to check.
 */
const char *ressd_rec_decode(const void *blk, const struct ressd_log_geo *lg,
			     u32 slot, struct ressd_rec *r);

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
	u64 epoch;		/* the superblock's epoch */
	int (*read)(void *ctx, u32 slot, void *buf);
	void *ctx;
	void *hdr;		/* two 4 KiB scratch buffers */
	void *data;
	struct ressd_index *idx;
	/* out */
	u32 head;		/* where the next record goes */
	u64 next_seq;
	u64 last_epoch;		/* epoch of the last valid record */
	u32 new_tail_slot;	/* the newest checkpoint any record carried */
	u64 new_tail_seq;
	u32 used;		/* slots from the new tail to head */
	u32 records;		/* records applied */
	u64 entries;		/* entries applied */
	u64 bad_data;		/* entries whose data checksum failed */
	u64 invalidated;	/* blocks unmapped by invalidations */
	const char *stop;	/* why the scan stopped */
};

int ressd_replay(struct ressd_replay *rp, const char **error);

#endif /* DM_RESSD_H */
