/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The remap index of dm-ressd (dm-ressd-rbtree.c): original 4 KiB blocks
 * to log slots.  It knows nothing of bios or of the target, so that the
 * fuzzers compile dm-ressd-rbtree.c unchanged.
 */
#ifndef DM_RESSD_INDEX_H
#define DM_RESSD_INDEX_H

#include <linux/minmax.h>
#include <linux/types.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>

#include "dm-ressd-format.h"

/* Largest origin block the index can hold (see struct ressd_slot). */
#define RESSD_INDEX_MAX_BLOCK	RESSD_MAX_BLOCK

/*
 * The index maps original 4 KiB blocks of the normal area to log slots.
 *
 * It holds one struct ressd_slot per log slot, allocated once at
 * construction, so that its memory is bounded by the reserved area and the
 * I/O path never allocates.  Slot s's node is in an rb-tree (keyed by
 * original block) while slot s heads an extent: a run of consecutive slots
 * s..s+len-1 that hold consecutive original blocks b..b+len-1.  Slots inside
 * an extent but not heading it are "continuation" slots; free slots are in
 * neither state.  The reverse map slot -> block is therefore the array itself.
 *
 * The origin's blocks are cut into buckets of 2^shift blocks, one rb-tree
 * each (about one bucket per RESSD_SLOTS_PER_BUCKET slots, spread over the
 * span given at init; blocks past it fall in the last bucket), and no
 * extent crosses a bucket boundary: a lookup descends a tree of a few
 * extents instead of one of all of them.
 *
 * All __ressd_index_* functions expect idx->lock held and never sleep.
 */
struct ressd_slot {
	struct rb_node node;	/* in its bucket's tree while it heads an extent */
	u64 info;		/* block:48 | len:14 | state:2, see rbtree.c */
};

/* Slots per bucket of the index, about (a root of 8 bytes each). */
#define RESSD_SLOTS_PER_BUCKET	4

struct ressd_index {
	spinlock_t lock;	/* protects everything below */
	struct rb_root *roots;	/* nr_buckets trees of extent heads, by block */
	unsigned long *busy;	/* a bit per bucket whose tree is not empty */
	u32 nr_buckets;
	u32 shift;		/* bucket of a block: block >> shift, at most the last */
	struct ressd_slot *slots;	/* nr_slots nodes */
	u32 nr_slots;
	u64 mapped;		/* mapped original blocks */
	u64 extents;		/* extents in the trees */
};

/* The bucket of @block: block >> shift; blocks past the span: the last. */
static inline u32 ressd_index_bucket(const struct ressd_index *idx, u64 block)
{
	return (u32)min_t(u64, block >> idx->shift, idx->nr_buckets - 1);
}

/* Result of a lookup: a run of blocks that is either mapped or not. */
struct ressd_map {
	bool mapped;
	u32 slot;		/* if mapped: slot of the run's first block */
	u32 len;		/* blocks in the run, 1 <= len <= max */
};

/*
 * Allocate the slot array for @nr_slots slots and the buckets for an origin
 * of @span_blocks blocks (0: one bucket) (may sleep): 0, -ENOMEM, or
 * -EINVAL for 0 or more than RESSD_MAX_SLOTS slots.  Any block up to
 * RESSD_INDEX_MAX_BLOCK may be mapped whatever the span.
 */
int ressd_index_init(struct ressd_index *idx, u32 nr_slots, u64 span_blocks);
void ressd_index_exit(struct ressd_index *idx);
void ressd_index_reset(struct ressd_index *idx);
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

#endif /* DM_RESSD_INDEX_H */
