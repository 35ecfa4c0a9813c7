// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_ressd_rbtree: the remap index (dm-ressd-rbtree.c).
 *
 * The directed cases build small extent layouts and check every public
 * operation against values worked out by hand: mapping and overwriting,
 * merging with either neighbour and the length cap, splitting, range and
 * slot removal, the reverse map and lookup runs.  The randomized case
 * drives the index the way the target does -- slots are handed out by a
 * log cursor that skips live slots, runs of writes land in consecutive
 * slots, a "mover" frees slots -- and after every operation compares all
 * of it with a plain array model (block -> slot and slot -> block): every
 * lookup run, both counters, the reverse map and the trees themselves,
 * with one bucket and with many (small buckets, and blocks past the span
 * that all fall in the last one).  The
 * generator is a seeded xorshift, so a failure names its seed and
 * operation and replays exactly.
 *
 * The index functions whose names start with "__" expect idx->lock; the
 * ressd_t_*() wrappers take it around each call.  Assertions are never
 * made with the lock held, since a failed assertion ends the test thread.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "dm-ressd.h"
#include "ressd-kunit.h"

/* The longest extent the index builds (len is a 14-bit field). */
#define RESSD_T_EXTENT_MAX	((1U << 14) - 1)
#define RESSD_T_NONE		U64_MAX	/* model: slot holds nothing */

/* ---- locked wrappers and helpers ---- */

static struct ressd_index *ressd_t_index_span(struct kunit *test,
					      u32 nr_slots, u64 span)
{
	struct ressd_index *idx = test->priv;

	KUNIT_ASSERT_EQ(test, ressd_index_init(idx, nr_slots, span), 0);
	return idx;
}

/* One bucket: the directed cases below see a single tree. */
static struct ressd_index *ressd_t_index(struct kunit *test, u32 nr_slots)
{
	return ressd_t_index_span(test, nr_slots, 0);
}

static u32 ressd_t_insert(struct ressd_index *idx, u64 block, u32 slot)
{
	u32 old;

	spin_lock(&idx->lock);
	old = __ressd_index_insert(idx, block, slot);
	spin_unlock(&idx->lock);
	return old;
}

static u64 ressd_t_remove_range(struct ressd_index *idx, u64 block, u64 nr)
{
	u64 done;

	spin_lock(&idx->lock);
	done = __ressd_index_remove_range(idx, block, nr);
	spin_unlock(&idx->lock);
	return done;
}

static bool ressd_t_remove_slot(struct ressd_index *idx, u32 slot)
{
	bool live;

	spin_lock(&idx->lock);
	live = __ressd_index_remove_slot(idx, slot);
	spin_unlock(&idx->lock);
	return live;
}

/* Block held by @slot, or RESSD_T_NONE when the slot is free. */
static u64 ressd_t_slot_block(struct ressd_index *idx, u32 slot)
{
	u64 block = RESSD_T_NONE;
	bool live;

	spin_lock(&idx->lock);
	live = __ressd_index_slot_block(idx, slot, &block);
	spin_unlock(&idx->lock);
	return live ? block : RESSD_T_NONE;
}

static struct ressd_map ressd_t_lookup(struct ressd_index *idx, u64 block,
				       u32 max)
{
	struct ressd_map m;

	spin_lock(&idx->lock);
	__ressd_index_lookup(idx, block, max, &m);
	spin_unlock(&idx->lock);
	return m;
}

/* Expect lookup(@block, @max) to return a mapped run of @len at @slot. */
static void ressd_t_expect_mapped(struct kunit *test, struct ressd_index *idx,
				  u64 block, u32 max, u32 slot, u32 len)
{
	struct ressd_map m = ressd_t_lookup(idx, block, max);

	KUNIT_EXPECT_TRUE_MSG(test, m.mapped, "lookup(%llu, %u)", block, max);
	KUNIT_EXPECT_EQ_MSG(test, m.slot, slot, "lookup(%llu, %u)", block, max);
	KUNIT_EXPECT_EQ_MSG(test, m.len, len, "lookup(%llu, %u)", block, max);
}

/* Expect lookup(@block, @max) to return an unmapped run of @len. */
static void ressd_t_expect_unmapped(struct kunit *test,
				    struct ressd_index *idx, u64 block,
				    u32 max, u32 len)
{
	struct ressd_map m = ressd_t_lookup(idx, block, max);

	KUNIT_EXPECT_FALSE_MSG(test, m.mapped, "lookup(%llu, %u)", block, max);
	KUNIT_EXPECT_EQ_MSG(test, m.len, len, "lookup(%llu, %u)", block, max);
}

static void ressd_t_expect_counts(struct kunit *test, struct ressd_index *idx,
				  u64 mapped, u64 extents)
{
	KUNIT_EXPECT_EQ(test, idx->mapped, mapped);
	KUNIT_EXPECT_EQ(test, idx->extents, extents);
}

/* Map blocks @block.. to slots @slot.. one by one, all previously unmapped. */
static void ressd_t_map_run(struct kunit *test, struct ressd_index *idx,
			    u64 block, u32 slot, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		KUNIT_ASSERT_EQ(test, ressd_t_insert(idx, block + i, slot + i),
				RESSD_NO_SLOT);
}

/* ---- directed cases ---- */

/* A new index: nothing mapped, every lookup one unmapped run of max. */
static void ressd_rbtree_test_empty(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 16);
	u32 s;

	KUNIT_EXPECT_EQ(test, idx->nr_buckets, 1);
	KUNIT_EXPECT_EQ(test, ressd_index_bytes(idx),
			sizeof(*idx) + 16 * sizeof(struct ressd_slot) +
			sizeof(struct rb_root) + sizeof(long));
	KUNIT_EXPECT_EQ(test, sizeof(struct ressd_slot), 32);
	ressd_t_expect_counts(test, idx, 0, 0);
	ressd_t_expect_unmapped(test, idx, 0, 8, 8);
	ressd_t_expect_unmapped(test, idx, RESSD_INDEX_MAX_BLOCK, 1, 1);
	ressd_t_expect_unmapped(test, idx, 12345, U32_MAX, U32_MAX);
	for (s = 0; s < 16; s++) {
		KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, s), RESSD_T_NONE);
		KUNIT_EXPECT_FALSE(test, ressd_t_remove_slot(idx, s));
	}
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 0, U64_MAX), 0);
}

/* Reset empties the index, which then works as a new one. */
static void ressd_rbtree_test_reset(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 32);
	u32 s;

	ressd_t_map_run(test, idx, 10, 3, 5);
	ressd_t_insert(idx, 1000, 20);
	ressd_t_expect_counts(test, idx, 6, 2);
	ressd_index_reset(idx);
	ressd_t_expect_counts(test, idx, 0, 0);
	ressd_t_expect_unmapped(test, idx, 0, 2000, 2000);
	for (s = 0; s < 32; s++)
		KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, s), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 10, 4), RESSD_NO_SLOT);
	ressd_t_expect_mapped(test, idx, 10, 5, 4, 1);
	ressd_t_expect_counts(test, idx, 1, 1);
}

/* Single mappings, including the first and last block the index holds. */
static void ressd_rbtree_test_insert_lookup(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 16);

	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 10, 3), RESSD_NO_SLOT);
	ressd_t_expect_counts(test, idx, 1, 1);
	ressd_t_expect_mapped(test, idx, 10, 5, 3, 1);
	ressd_t_expect_unmapped(test, idx, 8, 5, 2);
	ressd_t_expect_unmapped(test, idx, 0, 100, 10);
	ressd_t_expect_unmapped(test, idx, 11, 5, 5);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 3), 10);

	/* The first and the last block the index can hold. */
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 0, 0), RESSD_NO_SLOT);
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, RESSD_INDEX_MAX_BLOCK, 15),
			RESSD_NO_SLOT);
	ressd_t_expect_counts(test, idx, 3, 3);
	ressd_t_expect_mapped(test, idx, 0, 10, 0, 1);
	ressd_t_expect_unmapped(test, idx, 1, 100, 9);
	ressd_t_expect_unmapped(test, idx, RESSD_INDEX_MAX_BLOCK - 2, 10, 2);
	ressd_t_expect_mapped(test, idx, RESSD_INDEX_MAX_BLOCK, 10, 15, 1);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 15),
			RESSD_INDEX_MAX_BLOCK);
}

/* Rewriting a block returns its old slot, which becomes free. */
static void ressd_rbtree_test_overwrite(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 16);

	ressd_t_insert(idx, 10, 3);
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 10, 5), 3);
	ressd_t_expect_counts(test, idx, 1, 1);
	ressd_t_expect_mapped(test, idx, 10, 5, 5, 1);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 3), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 5), 10);

	/* The freed slot can be used again, even for the same block. */
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 10, 3), 5);
	ressd_t_expect_mapped(test, idx, 10, 1, 3, 1);
	ressd_t_expect_counts(test, idx, 1, 1);
}

/*
 * A mapping joins the extent before it only when block - 1 sits in slot - 1
 * (the left slot may be a HEAD or a CONT).
 */
static void ressd_rbtree_test_merge_left(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 32);

	ressd_t_map_run(test, idx, 10, 3, 3);
	ressd_t_expect_counts(test, idx, 3, 1);
	ressd_t_expect_mapped(test, idx, 10, 8, 3, 3);
	ressd_t_expect_mapped(test, idx, 11, 8, 4, 2);

	/* Next block in a far slot; a distant block in the slot after. */
	ressd_t_insert(idx, 13, 7);
	ressd_t_insert(idx, 20, 9);
	ressd_t_expect_counts(test, idx, 5, 3);
	ressd_t_expect_mapped(test, idx, 10, 8, 3, 3);
	ressd_t_expect_mapped(test, idx, 13, 8, 7, 1);

	/* Merge with one-block extents, whose head is the left slot. */
	ressd_t_insert(idx, 14, 8);
	ressd_t_expect_counts(test, idx, 6, 3);
	ressd_t_expect_mapped(test, idx, 13, 8, 7, 2);
	ressd_t_insert(idx, 21, 10);
	ressd_t_expect_counts(test, idx, 7, 3);
	ressd_t_expect_mapped(test, idx, 20, 8, 9, 2);

	/* Block 0 in slot 0 has no left neighbour to look at. */
	ressd_t_insert(idx, 0, 0);
	ressd_t_insert(idx, 1, 1);
	ressd_t_expect_counts(test, idx, 9, 4);
	ressd_t_expect_mapped(test, idx, 0, 8, 0, 2);
}

/* A mapping joins the extent after it when block + 1 sits in slot + 1. */
static void ressd_rbtree_test_merge_right(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 32);

	ressd_t_insert(idx, 12, 5);
	ressd_t_insert(idx, 11, 4);
	ressd_t_expect_counts(test, idx, 2, 1);
	ressd_t_insert(idx, 10, 3);
	ressd_t_expect_counts(test, idx, 3, 1);
	ressd_t_expect_mapped(test, idx, 10, 8, 3, 3);
	ressd_t_expect_unmapped(test, idx, 9, 8, 1);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 5), 12);

	/* Block adjacent but slot not, and the other way round. */
	ressd_t_insert(idx, 9, 1);
	ressd_t_insert(idx, 8, 2);
	ressd_t_expect_counts(test, idx, 5, 3);
	ressd_t_expect_mapped(test, idx, 8, 8, 2, 1);
	ressd_t_expect_mapped(test, idx, 9, 8, 1, 1);
	ressd_t_expect_mapped(test, idx, 10, 8, 3, 3);

	/* The merged-away heads are plain CONT slots now. */
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 4));
	ressd_t_expect_counts(test, idx, 4, 4);
	ressd_t_expect_mapped(test, idx, 10, 8, 3, 1);
	ressd_t_expect_mapped(test, idx, 12, 8, 5, 1);
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 5));
	ressd_t_expect_counts(test, idx, 3, 3);
	ressd_t_expect_unmapped(test, idx, 11, 8, 8);
}

/* Filling the gap between two extents makes one. */
static void ressd_rbtree_test_merge_both(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 32);

	ressd_t_map_run(test, idx, 10, 3, 2);
	ressd_t_map_run(test, idx, 13, 6, 3);
	ressd_t_expect_counts(test, idx, 5, 2);
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 12, 5), RESSD_NO_SLOT);
	ressd_t_expect_counts(test, idx, 6, 1);
	ressd_t_expect_mapped(test, idx, 10, 100, 3, 6);
	ressd_t_expect_mapped(test, idx, 12, 100, 5, 4);
	ressd_t_expect_unmapped(test, idx, 16, 4, 4);

	/* The merged extent splits and heals again. */
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 5));
	ressd_t_expect_counts(test, idx, 5, 2);
	ressd_t_insert(idx, 12, 5);
	ressd_t_expect_counts(test, idx, 6, 1);
	ressd_t_expect_mapped(test, idx, 10, 100, 3, 6);
}

/*
 * Extents stop growing at RESSD_T_EXTENT_MAX slots, on either side; the
 * lookup still reports a run across the boundary.
 */
static void ressd_rbtree_test_merge_cap(struct kunit *test)
{
	const u32 cap = RESSD_T_EXTENT_MAX;
	struct ressd_index *idx = ressd_t_index(test, cap + 8);

	/* cap + 1 blocks in a row: the last one starts a second extent. */
	ressd_t_map_run(test, idx, 0, 0, cap + 1);
	ressd_t_expect_counts(test, idx, cap + 1, 2);
	/* A run is not cut where the extents meet. */
	ressd_t_expect_mapped(test, idx, 0, U32_MAX, 0, cap + 1);
	ressd_t_expect_mapped(test, idx, 5, 100, 5, 100);
	ressd_t_expect_mapped(test, idx, cap - 1, U32_MAX, cap - 1, 2);
	ressd_t_expect_mapped(test, idx, cap, U32_MAX, cap, 1);
	ressd_t_expect_unmapped(test, idx, cap + 1, 7, 7);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 0, U64_MAX), cap + 1);
	ressd_t_expect_counts(test, idx, 0, 0);

	/* Both sides mergeable, one block too many: only the left merges. */
	ressd_t_map_run(test, idx, 0, 0, cap - 1);
	ressd_t_map_run(test, idx, cap, cap, 1);
	ressd_t_expect_counts(test, idx, cap, 2);
	ressd_t_insert(idx, cap - 1, cap - 1);
	ressd_t_expect_counts(test, idx, cap + 1, 2);
	ressd_t_expect_mapped(test, idx, 0, U32_MAX, 0, cap + 1);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 0, U64_MAX), cap + 1);

	/* A full left extent: only the right one is merged. */
	ressd_t_map_run(test, idx, 0, 0, cap);
	ressd_t_map_run(test, idx, cap + 1, cap + 1, 2);
	ressd_t_insert(idx, cap, cap);
	ressd_t_expect_counts(test, idx, cap + 3, 2);
	ressd_t_expect_mapped(test, idx, cap, U32_MAX, cap, 3);
	/* Cutting the full extent makes room: the next insert merges all. */
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 0));
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 1));
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 2));
	ressd_t_expect_counts(test, idx, cap, 2);
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, cap));
	ressd_t_expect_counts(test, idx, cap - 1, 2);
	ressd_t_insert(idx, cap, cap);
	ressd_t_expect_counts(test, idx, cap, 1);
	ressd_t_expect_mapped(test, idx, 3, U32_MAX, 3, cap);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 0, U64_MAX), cap);

	/* A full right extent: one more block in front does not fit. */
	ressd_t_map_run(test, idx, 1, 1, cap);
	ressd_t_insert(idx, 0, 0);
	ressd_t_expect_counts(test, idx, cap + 1, 2);
	ressd_t_expect_mapped(test, idx, 0, U32_MAX, 0, cap + 1);
	/*
	 * Filling a hole merges both sides up to exactly the cap.  [0]@0
	 * stays on its own although it would fit now: trims never merge.
	 */
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 5));
	ressd_t_expect_counts(test, idx, cap, 3);
	ressd_t_insert(idx, 5, 5);
	ressd_t_expect_counts(test, idx, cap + 1, 2);
	ressd_t_expect_mapped(test, idx, 5, U32_MAX, 5, cap - 4);
	ressd_t_expect_mapped(test, idx, 0, U32_MAX, 0, cap + 1);
}

/* Overwrites inside, at the head and at the tail of an extent. */
static void ressd_rbtree_test_split(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 32);

	ressd_t_map_run(test, idx, 10, 0, 5);
	ressd_t_expect_counts(test, idx, 5, 1);

	/* Overwrite the middle: [10,11]@0 [12]@9 [13,14]@3. */
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 12, 9), 2);
	ressd_t_expect_counts(test, idx, 5, 3);
	ressd_t_expect_mapped(test, idx, 10, 8, 0, 2);
	ressd_t_expect_mapped(test, idx, 12, 8, 9, 1);
	ressd_t_expect_mapped(test, idx, 13, 8, 3, 2);
	ressd_t_expect_unmapped(test, idx, 15, 8, 8);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 2), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 3), 13);

	/* Overwrite a head and a tail. */
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 10, 20), 0);
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 14, 21), 4);
	ressd_t_expect_counts(test, idx, 5, 5);
	ressd_t_expect_mapped(test, idx, 10, 8, 20, 1);
	ressd_t_expect_mapped(test, idx, 11, 8, 1, 1);
	ressd_t_expect_mapped(test, idx, 13, 8, 3, 1);
	ressd_t_expect_mapped(test, idx, 14, 8, 21, 1);

	/* Block 12 back to slot 2 joins [11]@1 and [13]@3. */
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 12, 2), 9);
	ressd_t_expect_counts(test, idx, 5, 3);
	ressd_t_expect_mapped(test, idx, 11, 8, 1, 3);
	/* A head overwritten by the slot after the extent: no merge. */
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 11, 4), 1);
	ressd_t_expect_counts(test, idx, 5, 4);
	ressd_t_expect_mapped(test, idx, 11, 8, 4, 1);
	ressd_t_expect_mapped(test, idx, 12, 8, 2, 2);
}

/* Ranges over several extents, inside one, over nothing, to the end. */
static void ressd_rbtree_test_remove_range(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 64);

	ressd_t_map_run(test, idx, 0, 0, 5);
	ressd_t_map_run(test, idx, 10, 10, 5);
	ressd_t_map_run(test, idx, 20, 20, 5);
	ressd_t_map_run(test, idx, 30, 40, 10);
	ressd_t_expect_counts(test, idx, 25, 4);

	/* Tail of one extent, all of the next, head of the third. */
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 2, 20), 10);
	ressd_t_expect_counts(test, idx, 15, 3);
	ressd_t_expect_mapped(test, idx, 0, 8, 0, 2);
	ressd_t_expect_unmapped(test, idx, 2, 100, 20);
	ressd_t_expect_mapped(test, idx, 22, 8, 22, 3);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 2), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 12), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 21), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 22), 22);

	/* A hole inside one extent splits it. */
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 33, 3), 3);
	ressd_t_expect_counts(test, idx, 12, 4);
	ressd_t_expect_mapped(test, idx, 30, 8, 40, 3);
	ressd_t_expect_unmapped(test, idx, 33, 8, 3);
	ressd_t_expect_mapped(test, idx, 36, 8, 46, 4);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 45), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 46), 36);

	/* Unmapped ranges, empty ranges, exact ends. */
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 5, 5), 0);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 100, U64_MAX), 0);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 39, 1), 1);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 22, 1), 1);
	ressd_t_expect_counts(test, idx, 10, 4);
	ressd_t_expect_mapped(test, idx, 23, 8, 23, 2);
	ressd_t_expect_mapped(test, idx, 36, 8, 46, 3);

	/* Everything, with a length that overflows block + nr. */
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 1, U64_MAX), 9);
	ressd_t_expect_counts(test, idx, 1, 1);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 0, U64_MAX), 1);
	ressd_t_expect_counts(test, idx, 0, 0);
	ressd_t_expect_unmapped(test, idx, 0, 50, 50);
}

/* The mover frees single slots: CONT in the middle, HEAD, tail, free. */
static void ressd_rbtree_test_remove_slot(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 16);

	ressd_t_map_run(test, idx, 10, 0, 5);

	/* A CONT slot in the middle: the extent splits. */
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 2));
	ressd_t_expect_counts(test, idx, 4, 2);
	ressd_t_expect_unmapped(test, idx, 12, 8, 1);
	KUNIT_EXPECT_FALSE(test, ressd_t_remove_slot(idx, 2));
	ressd_t_expect_counts(test, idx, 4, 2);

	/* A HEAD, then a tail, then single-slot extents. */
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 0));
	ressd_t_expect_mapped(test, idx, 11, 8, 1, 1);
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 4));
	ressd_t_expect_mapped(test, idx, 13, 8, 3, 1);
	ressd_t_expect_counts(test, idx, 2, 2);
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 1));
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 3));
	KUNIT_EXPECT_FALSE(test, ressd_t_remove_slot(idx, 5));
	ressd_t_expect_counts(test, idx, 0, 0);
	ressd_t_expect_unmapped(test, idx, 0, 30, 30);
}

/* The reverse map of HEAD, CONT and FREE slots. */
static void ressd_rbtree_test_slot_block(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 16);

	ressd_t_map_run(test, idx, 10, 4, 3);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 4), 10);	/* HEAD */
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 5), 11);	/* CONT */
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 6), 12);	/* CONT */
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 3), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 7), RESSD_T_NONE);

	/* The old slot of an overwritten block is free. */
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 11, 9), 5);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 5), RESSD_T_NONE);
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 6), 12);	/* now HEAD */
	KUNIT_EXPECT_EQ(test, ressd_t_slot_block(idx, 9), 11);
}

/* Runs are capped by max, by the extent's end and by the next extent. */
static void ressd_rbtree_test_lookup_runs(struct kunit *test)
{
	struct ressd_index *idx = ressd_t_index(test, 32);

	ressd_t_map_run(test, idx, 100, 0, 10);
	ressd_t_expect_mapped(test, idx, 100, 3, 0, 3);
	ressd_t_expect_mapped(test, idx, 100, 10, 0, 10);
	ressd_t_expect_mapped(test, idx, 105, 100, 5, 5);
	ressd_t_expect_mapped(test, idx, 109, 1, 9, 1);
	ressd_t_expect_unmapped(test, idx, 90, 5, 5);
	ressd_t_expect_unmapped(test, idx, 90, 100, 10);
	ressd_t_expect_unmapped(test, idx, 99, 1, 1);
	ressd_t_expect_unmapped(test, idx, 110, 7, 7);

	/* Next block in a far slot: the run stops at the extent's end. */
	ressd_t_insert(idx, 110, 20);
	ressd_t_expect_mapped(test, idx, 100, 100, 0, 10);
	ressd_t_expect_mapped(test, idx, 110, 100, 20, 1);
	/* Unmapped runs stop at the next extent, wherever it is. */
	ressd_t_insert(idx, 1000000, 30);
	ressd_t_expect_unmapped(test, idx, 111, U32_MAX, 1000000 - 111);
	ressd_t_expect_unmapped(test, idx, 1000001, U32_MAX, U32_MAX);
	ressd_t_expect_unmapped(test, idx, 0, 50, 50);
}

/*
 * Buckets: the geometry init chooses, extents cut at bucket boundaries,
 * runs and removals that cross them, blocks past the span.
 */
static void ressd_rbtree_test_buckets(struct kunit *test)
{
	struct ressd_index *idx;

	/* 16 slots: 4 buckets at most; a span of 64 gives 4 of 16 blocks. */
	idx = ressd_t_index_span(test, 16, 64);
	KUNIT_EXPECT_EQ(test, idx->shift, 4);
	KUNIT_EXPECT_EQ(test, idx->nr_buckets, 4);
	KUNIT_EXPECT_EQ(test, ressd_index_bytes(idx),
			sizeof(*idx) + 16 * sizeof(struct ressd_slot) +
			4 * sizeof(struct rb_root) + sizeof(long));

	/* Blocks 14..17 in slots 0..3: two extents, one a bucket. */
	ressd_t_map_run(test, idx, 14, 0, 4);
	ressd_t_expect_counts(test, idx, 4, 2);
	/* A run follows the extents across the boundary. */
	ressd_t_expect_mapped(test, idx, 14, 10, 0, 4);
	ressd_t_expect_mapped(test, idx, 15, 2, 1, 2);
	ressd_t_expect_mapped(test, idx, 16, 10, 2, 2);
	/* Unmapped runs end at the next extent, buckets away. */
	ressd_t_expect_unmapped(test, idx, 0, 100, 14);
	ressd_t_expect_unmapped(test, idx, 18, 1000, 1000);
	ressd_t_insert(idx, 60, 8);
	ressd_t_expect_unmapped(test, idx, 18, 1000, 42);
	ressd_t_expect_unmapped(test, idx, 18, 20, 20);
	/* Past the span: the last bucket holds every block. */
	ressd_t_insert(idx, 1000, 9);
	ressd_t_insert(idx, 1001, 10);
	ressd_t_insert(idx, 70000, 11);
	ressd_t_expect_counts(test, idx, 8, 5);
	ressd_t_expect_mapped(test, idx, 1000, 5, 9, 2);
	ressd_t_expect_unmapped(test, idx, 61, U32_MAX, 1000 - 61);
	ressd_t_expect_unmapped(test, idx, 1002, U32_MAX, 70000 - 1002);
	KUNIT_EXPECT_EQ(test, ressd_index_bucket(idx, 70000), 3);
	/* Removing from the middle of a bucket to past the span. */
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 15, 986), 5);
	ressd_t_expect_counts(test, idx, 3, 3);
	ressd_t_expect_mapped(test, idx, 14, 10, 0, 1);
	ressd_t_expect_mapped(test, idx, 1001, 10, 10, 1);
	ressd_t_expect_unmapped(test, idx, 15, U32_MAX, 1001 - 15);
	/* A bucket emptied and filled again. */
	KUNIT_EXPECT_TRUE(test, ressd_t_remove_slot(idx, 0));
	ressd_t_expect_unmapped(test, idx, 0, U32_MAX, 1001);
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, 3, 0), RESSD_NO_SLOT);
	ressd_t_expect_mapped(test, idx, 3, 1, 0, 1);
	KUNIT_EXPECT_EQ(test, ressd_t_remove_range(idx, 0, U64_MAX), 3);
	ressd_t_expect_counts(test, idx, 0, 0);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(idx->busy, idx->nr_buckets));
	/* Reset empties every bucket. */
	ressd_t_map_run(test, idx, 10, 0, 10);
	ressd_t_insert(idx, 500, 12);
	ressd_t_expect_counts(test, idx, 11, 3);
	ressd_index_reset(idx);
	ressd_t_expect_counts(test, idx, 0, 0);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(idx->busy, idx->nr_buckets));
	ressd_t_expect_unmapped(test, idx, 0, U32_MAX, U32_MAX);
	ressd_t_map_run(test, idx, 15, 0, 2);
	ressd_t_expect_counts(test, idx, 2, 2);
	ressd_t_expect_mapped(test, idx, 15, 5, 0, 2);
	ressd_index_exit(idx);

	/* A span below a bucket a slot: at least one block a bucket. */
	idx = ressd_t_index_span(test, 1024, 10);
	KUNIT_EXPECT_EQ(test, idx->shift, 0);
	KUNIT_EXPECT_EQ(test, idx->nr_buckets, 10);
	ressd_index_exit(idx);
	/* A huge span: buckets of a power of two, at most one for 4 slots. */
	idx = ressd_t_index_span(test, 1000, RESSD_INDEX_MAX_BLOCK + 1);
	KUNIT_EXPECT_EQ(test, idx->shift, 48 - 7);
	KUNIT_EXPECT_EQ(test, idx->nr_buckets, 128);
	KUNIT_EXPECT_EQ(test, ressd_t_insert(idx, RESSD_INDEX_MAX_BLOCK, 999), RESSD_NO_SLOT);
	ressd_t_expect_mapped(test, idx, RESSD_INDEX_MAX_BLOCK, 1, 999, 1);
}

/* ---- randomized comparison with an array model ---- */

struct ressd_t_rand_param {
	u64 seed;
	u32 nr_blocks;	/* block space of the model: 0..nr_blocks-1 */
	u32 nr_slots;
	u32 nr_ops;
	u32 span;	/* the index's span (0: one bucket) */
};

static const struct ressd_t_rand_param ressd_t_rand_params[] = {
	{ .seed = 1, .nr_blocks = 384, .nr_slots = 256, .nr_ops = 3000 },
	{ .seed = 2, .nr_blocks = 64, .nr_slots = 256, .nr_ops = 3000 },
	{ .seed = 3, .nr_blocks = 1024, .nr_slots = 256, .nr_ops = 3000 },
	{ .seed = 0xdecafbad, .nr_blocks = 300, .nr_slots = 251,
	  .nr_ops = 4000 },
	{ .seed = 0x5eed5eed5eedULL, .nr_blocks = 200, .nr_slots = 17,
	  .nr_ops = 3000 },
	/*
	 * Buckets: of 8 blocks; of 2; of 1, most blocks past the span; of 4,
	 * 256 of them (a bitmap of several words).
	 */
	{ .seed = 11, .nr_blocks = 384, .nr_slots = 256, .nr_ops = 3000,
	  .span = 384 },
	{ .seed = 12, .nr_blocks = 64, .nr_slots = 256, .nr_ops = 3000,
	  .span = 128 },
	{ .seed = 13, .nr_blocks = 300, .nr_slots = 251, .nr_ops = 3000,
	  .span = 40 },
	{ .seed = 14, .nr_blocks = 1024, .nr_slots = 1024, .nr_ops = 1500,
	  .span = 1024 },
};

static void ressd_t_rand_desc(const struct ressd_t_rand_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "seed %llu, %u blocks, %u slots, span %u",
		 p->seed, p->nr_blocks, p->nr_slots, p->span);
}

KUNIT_ARRAY_PARAM(ressd_t_rand, ressd_t_rand_params, ressd_t_rand_desc);

struct ressd_t_model {
	struct kunit *test;
	struct ressd_index *idx;
	const struct ressd_t_rand_param *p;
	u64 rng;	/* xorshift64 state, never 0 */
	u32 op;		/* operation number, for messages */
	u32 cursor;	/* next slot the "log" tries */
	u32 *b2s;	/* block -> slot or RESSD_NO_SLOT */
	u64 *s2b;	/* slot -> block or RESSD_T_NONE */
};

static u32 ressd_t_rand(struct ressd_t_model *md, u32 n)
{
	return (u32)((ressd_kunit_xorshift(&md->rng) >> 32) % n);
}

static void ressd_t_model_unmap(struct ressd_t_model *md, u64 block)
{
	u32 slot = md->b2s[block];

	if (slot != RESSD_NO_SLOT) {
		md->s2b[slot] = RESSD_T_NONE;
		md->b2s[block] = RESSD_NO_SLOT;
	}
}

/* The run a lookup of (@block, @max) must return, from the model. */
static struct ressd_map ressd_t_model_lookup(struct ressd_t_model *md,
					     u64 block, u32 max)
{
	u32 nb = md->p->nr_blocks;
	struct ressd_map m = { .mapped = false, .slot = RESSD_NO_SLOT };
	u64 len = 1;

	if (block < nb && md->b2s[block] != RESSD_NO_SLOT) {
		m.mapped = true;
		m.slot = md->b2s[block];
		while (len < max && block + len < nb &&
		       md->b2s[block + len] == m.slot + len)
			len++;
	} else {
		while (len < max && block + len < nb &&
		       md->b2s[block + len] == RESSD_NO_SLOT)
			len++;
		if (block + len >= nb)
			len = max;
	}
	m.len = (u32)len;
	return m;
}

static void ressd_t_check_lookup(struct ressd_t_model *md, u64 block,
				 u32 max)
{
	struct ressd_map want = ressd_t_model_lookup(md, block, max);
	struct ressd_map got = ressd_t_lookup(md->idx, block, max);

	KUNIT_ASSERT_TRUE_MSG(md->test,
			      got.mapped == want.mapped &&
			      got.len == want.len &&
			      (!want.mapped || got.slot == want.slot),
			      "op %u: lookup(%llu, %u) gave %d/%u/%u, want %d/%u/%u",
			      md->op, block, max, got.mapped, got.slot, got.len,
			      want.mapped, want.slot, want.len);
}

/* Does a maximal run of the model start at @b (mapped)? */
static bool ressd_t_run_starts(struct ressd_t_model *md, u64 b)
{
	u32 s = md->b2s[b];

	return !b || !s || md->b2s[b - 1] != s - 1 ||
	       ressd_index_bucket(md->idx, b - 1) != ressd_index_bucket(md->idx, b);
}

/*
 * Walk the trees under the lock, bucket by bucket: heads in ascending block
 * order, each in its bucket's tree, each the start of a maximal run of the
 * model cut at bucket boundaries, as many as idx->extents (so an extent
 * across a boundary, one head short, fails the count); a bucket's busy bit
 * set exactly when its tree is not empty.
 * Returns the first bad slot, or RESSD_NO_SLOT (U32_MAX - 1: a busy bit).
 */
static u32 ressd_t_check_tree(struct ressd_t_model *md, u64 *nr_heads)
{
	struct ressd_index *idx = md->idx;
	u32 bad = RESSD_NO_SLOT, b;
	struct rb_node *n;
	u64 prev = 0;

	*nr_heads = 0;
	spin_lock(&idx->lock);
	for (b = 0; b < idx->nr_buckets && bad == RESSD_NO_SLOT; b++) {
		if (test_bit(b, idx->busy) == RB_EMPTY_ROOT(&idx->roots[b])) {
			bad = U32_MAX - 1;
			break;
		}
		for (n = rb_first(&idx->roots[b]); n; n = rb_next(n)) {
			struct ressd_slot *h = rb_entry(n, struct ressd_slot, node);
			u32 slot = (u32)(h - idx->slots);
			u64 block;

			if (!__ressd_index_slot_block(idx, slot, &block) ||
			    block >= md->p->nr_blocks || md->b2s[block] != slot ||
			    (*nr_heads && block <= prev) ||
			    ressd_index_bucket(idx, block) != b ||
			    !ressd_t_run_starts(md, block)) {
				bad = slot;
				break;
			}
			prev = block;
			(*nr_heads)++;
		}
	}
	spin_unlock(&idx->lock);
	return bad;
}

/* Compare everything the index exposes with the model. */
static void ressd_t_check_all(struct ressd_t_model *md)
{
	struct kunit *test = md->test;
	u32 nb = md->p->nr_blocks;
	u64 mapped = 0, extents = 0, heads;
	u32 b, s, bad;

	/*
	 * With fewer slots than the extent cap every maximal run of the
	 * model is exactly one extent.
	 */

	for (b = 0; b < nb; b++) {
		if (md->b2s[b] == RESSD_NO_SLOT)
			continue;
		mapped++;
		/*
		 * A run starts unless block - 1 sits in the slot before, in
		 * the same bucket.
		 */
		if (ressd_t_run_starts(md, b))
			extents++;
	}
	KUNIT_ASSERT_EQ_MSG(test, md->idx->mapped, mapped, "op %u", md->op);
	KUNIT_ASSERT_EQ_MSG(test, md->idx->extents, extents, "op %u", md->op);

	for (s = 0; s < md->p->nr_slots; s++)
		KUNIT_ASSERT_EQ_MSG(test, ressd_t_slot_block(md->idx, s),
				    md->s2b[s], "op %u: slot %u", md->op, s);

	bad = ressd_t_check_tree(md, &heads);
	KUNIT_ASSERT_EQ_MSG(test, bad, RESSD_NO_SLOT,
			    "op %u: bad tree node", md->op);
	KUNIT_ASSERT_EQ_MSG(test, heads, extents, "op %u", md->op);

	/* Every block, with a random cap, and the whole block space. */
	for (b = 0; b < nb; b++)
		ressd_t_check_lookup(md, b, 1 + ressd_t_rand(md, nb));
	for (b = 0; b < nb + 8; b += ressd_t_lookup(md->idx, b, nb + 8 - b).len)
		ressd_t_check_lookup(md, b, nb + 8 - b);
}

/* A free slot, found like a log does: onward from the cursor. */
static u32 ressd_t_next_slot(struct ressd_t_model *md)
{
	u32 nr = md->p->nr_slots, i, slot;

	for (i = 0; i < nr; i++) {
		slot = (md->cursor + i) % nr;
		if (md->s2b[slot] == RESSD_T_NONE)
			goto found;
	}
	/* The log is full: the "mover" frees the slot at the cursor. */
	slot = md->cursor;
	KUNIT_ASSERT_TRUE(md->test, ressd_t_remove_slot(md->idx, slot));
	ressd_t_model_unmap(md, md->s2b[slot]);
found:
	md->cursor = (slot + 1) % nr;
	return slot;
}

/* A run of writes to consecutive blocks. */
static void ressd_t_op_write(struct ressd_t_model *md)
{
	u32 nb = md->p->nr_blocks;
	u32 block = ressd_t_rand(md, nb);
	u32 nr = 1 + ressd_t_rand(md, 8);

	for (; nr && block < nb; nr--, block++) {
		u32 slot = ressd_t_next_slot(md);
		u32 old = md->b2s[block];

		KUNIT_ASSERT_EQ_MSG(md->test,
				    ressd_t_insert(md->idx, block, slot), old,
				    "op %u: insert(%u, %u)", md->op, block,
				    slot);
		ressd_t_model_unmap(md, block);
		md->b2s[block] = slot;
		md->s2b[slot] = block;
	}
}

/*
 * Writes that complete out of order: slots taken in log order, mappings
 * inserted last block first, so merges happen on the right-hand side.
 */
static void ressd_t_op_write_reverse(struct ressd_t_model *md)
{
	u32 nb = md->p->nr_blocks, ns = md->p->nr_slots;
	u32 block = ressd_t_rand(md, nb);
	u32 nr = 1 + ressd_t_rand(md, 8);
	u32 slots[8], n = 0, i;

	for (i = 0; i < ns && n < nr && block + n < nb; i++) {
		u32 slot = (md->cursor + i) % ns;

		if (md->s2b[slot] == RESSD_T_NONE)
			slots[n++] = slot;
	}
	if (n)
		md->cursor = (slots[n - 1] + 1) % ns;

	while (n--) {
		u32 old = md->b2s[block + n];

		KUNIT_ASSERT_EQ_MSG(md->test,
				    ressd_t_insert(md->idx, block + n, slots[n]),
				    old, "op %u: insert(%u, %u)", md->op,
				    block + n, slots[n]);
		ressd_t_model_unmap(md, block + n);
		md->b2s[block + n] = slots[n];
		md->s2b[slots[n]] = block + n;
	}
}

static void ressd_t_op_remove_range(struct ressd_t_model *md)
{
	u32 nb = md->p->nr_blocks;
	u64 block = ressd_t_rand(md, nb + 4), nr, want = 0, b;

	/* Sometimes a length that runs past the end of the block space. */
	if (!ressd_t_rand(md, 10))
		nr = U64_MAX - ressd_t_rand(md, 4);
	else
		nr = ressd_t_rand(md, 33);

	for (b = block; b < nb && b - block < nr; b++) {
		if (md->b2s[b] != RESSD_NO_SLOT)
			want++;
		ressd_t_model_unmap(md, b);
	}
	KUNIT_ASSERT_EQ_MSG(md->test, ressd_t_remove_range(md->idx, block, nr),
			    want, "op %u: remove_range(%llu, %llu)", md->op,
			    block, nr);
}

/* The mover: free a few consecutive slots, as if moved home. */
static void ressd_t_op_remove_slots(struct ressd_t_model *md)
{
	u32 slot = ressd_t_rand(md, md->p->nr_slots);
	u32 nr = 1 + ressd_t_rand(md, 16);

	for (; nr && slot < md->p->nr_slots; nr--, slot++) {
		u64 block = md->s2b[slot];

		KUNIT_ASSERT_EQ_MSG(md->test,
				    ressd_t_remove_slot(md->idx, slot),
				    block != RESSD_T_NONE,
				    "op %u: remove_slot(%u)", md->op, slot);
		if (block != RESSD_T_NONE)
			ressd_t_model_unmap(md, block);
	}
}

/*
 * Random writes (runs of up to 8 blocks through the log cursor, in order or
 * completing in reverse), range removals, mover frees and lookups, checked
 * after every operation.
 */
static void ressd_rbtree_test_random(struct kunit *test)
{
	const struct ressd_t_rand_param *p = test->param_value;
	struct ressd_t_model *md;
	u32 i;

	md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, md);
	md->test = test;
	md->p = p;
	md->idx = ressd_t_index_span(test, p->nr_slots, p->span);
	md->rng = p->seed ? p->seed : 1;
	md->b2s = kunit_kmalloc_array(test, p->nr_blocks, sizeof(*md->b2s),
				      GFP_KERNEL);
	md->s2b = kunit_kmalloc_array(test, p->nr_slots, sizeof(*md->s2b),
				      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, md->b2s);
	KUNIT_ASSERT_NOT_NULL(test, md->s2b);
	memset(md->b2s, 0xff, p->nr_blocks * sizeof(*md->b2s));
	memset(md->s2b, 0xff, p->nr_slots * sizeof(*md->s2b));

	for (md->op = 0; md->op < p->nr_ops; md->op++) {
		u32 r = ressd_t_rand(md, 100);

		if (r < 40) {
			ressd_t_op_write(md);
		} else if (r < 50) {
			ressd_t_op_write_reverse(md);
		} else if (r < 65) {
			ressd_t_op_remove_range(md);
		} else if (r < 80) {
			ressd_t_op_remove_slots(md);
		} else {
			for (i = 0; i < 8; i++) {
				u64 block = ressd_t_rand(md, p->nr_blocks + 8);

				ressd_t_check_lookup(md, block,
						     1 + ressd_t_rand(md, 64));
			}
		}
		ressd_t_check_all(md);
	}
}

/* ---- suite ---- */

static int ressd_rbtree_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct ressd_index),
				   GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void ressd_rbtree_test_exit(struct kunit *test)
{
	ressd_index_exit(test->priv);
}

static struct kunit_case ressd_rbtree_test_cases[] = {
	KUNIT_CASE(ressd_rbtree_test_empty),
	KUNIT_CASE(ressd_rbtree_test_reset),
	KUNIT_CASE(ressd_rbtree_test_insert_lookup),
	KUNIT_CASE(ressd_rbtree_test_overwrite),
	KUNIT_CASE(ressd_rbtree_test_merge_left),
	KUNIT_CASE(ressd_rbtree_test_merge_right),
	KUNIT_CASE(ressd_rbtree_test_merge_both),
	KUNIT_CASE(ressd_rbtree_test_merge_cap),
	KUNIT_CASE(ressd_rbtree_test_split),
	KUNIT_CASE(ressd_rbtree_test_remove_range),
	KUNIT_CASE(ressd_rbtree_test_remove_slot),
	KUNIT_CASE(ressd_rbtree_test_slot_block),
	KUNIT_CASE(ressd_rbtree_test_lookup_runs),
	KUNIT_CASE(ressd_rbtree_test_buckets),
	KUNIT_CASE_PARAM(ressd_rbtree_test_random, ressd_t_rand_gen_params),
	{}
};

static struct kunit_suite ressd_rbtree_test_suite = {
	.name = "dm_ressd_rbtree",
	.init = ressd_rbtree_test_init,
	.exit = ressd_rbtree_test_exit,
	.test_cases = ressd_rbtree_test_cases,
};

/* Module license and namespace import: tests/kunit/ressd-kunit.c. */
kunit_test_suite(ressd_rbtree_test_suite);
