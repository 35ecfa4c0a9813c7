// SPDX-License-Identifier: GPL-2.0-only
/*
 * The remap index of dm-ressd: which log slot holds the newest copy of an
 * original 4 KiB block.
 *
 * What it owns
 * ------------
 * struct ressd_index and its slot array.  The array has one struct
 * ressd_slot (32 bytes) per log slot and is allocated once, when the target
 * is constructed; lookups, inserts and removals only relink nodes that are
 * already there, so the I/O path never allocates and the memory is bounded
 * by the size of the log, not by the size of the origin device.
 *
 * Extents
 * -------
 * An extent is a run of slots s..s+len-1 holding the consecutive original
 * blocks b..b+len-1.  Slot s is its HEAD: its rb_node is in the tree of
 * b's bucket, keyed by b.  The other slots of the run are CONT slots; their
 * nodes are unused.  Slots that hold no live data are FREE.  Each slot's
 * info word packs
 *
 *   bits 63..16  block  original block held by the slot (HEAD and CONT)
 *   bits 15..2   len    extent length in slots (HEAD only, else 0)
 *   bits  1..0   state  FREE, HEAD or CONT
 *
 * Because CONT slots keep their own block, the reverse map slot -> block is
 * a single array read, and finding the extent of a live slot is a tree
 * search for its block.  Because every slot owns its node, splitting an
 * extent only promotes the first slot of the right-hand piece to HEAD.
 *
 * Buckets
 * -------
 * One rb-tree of all extents costs a read with a full log a descent of
 * some 15-20 nodes scattered over the slot array (a cache miss each on a
 * large log).  The origin is therefore cut into buckets of 2^shift blocks
 * (block >> shift; the blocks past the span given at init all fall in the
 * last bucket), each with its own tree, about one bucket per
 * RESSD_SLOTS_PER_BUCKET slots: with writes spread over the origin, a
 * lookup descends a tree of a few extents.  A bitmap marks the buckets
 * whose tree is not empty, so that a walk in block order steps from one
 * to the next.  Memory: a root (8 bytes) and a bit per bucket.
 *
 * Invariants (all under idx->lock)
 * --------------------------------
 * - Extents never overlap in blocks, so each tree is an interval tree with
 *   disjoint intervals and a plain descent finds the extent of a block.
 * - Every block of an extent is in the bucket of its head: extents never
 *   cross a bucket boundary.  A bucket's bit in idx->busy is set exactly
 *   when its tree is not empty.
 * - Every slot of an extent is inside the array: extents never wrap.
 * - 1 <= len <= RESSD_EXTENT_MAX_LEN.
 * - Every new mapping is merged with the extents that continue it in both
 *   blocks and slots, unless the result would exceed RESSD_EXTENT_MAX_LEN
 *   or cross a bucket boundary.  Two extents that continue each other
 *   therefore exist only where such a merge was refused (a later trim does
 *   not merge them again).  Lookups follow them, so a run is never cut at
 *   an extent boundary.
 * - idx->mapped counts live slots (mapped blocks), idx->extents the HEADs.
 *
 * Crash semantics: none.  The index lives only in memory and is rebuilt
 * from the log by recovery; the code that writes the log decides when a
 * mapping may be inserted or a slot removed.
 *
 * Locking: every __ function expects idx->lock held (asserted with lockdep)
 * and never sleeps.  ressd_index_init() and ressd_index_exit() may sleep and
 * run while nothing else uses the index.
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/slab.h>

#include "compat.h"
#include "dm-ressd-index.h"

/* Layout of struct ressd_slot.info. */
#define RESSD_SLOT_STATE	GENMASK_ULL(1, 0)
#define RESSD_SLOT_LEN		GENMASK_ULL(15, 2)
#define RESSD_SLOT_BLOCK	GENMASK_ULL(63, 16)

enum ressd_slot_state {
	RESSD_SLOT_FREE = 0,	/* zero: kvcalloc() hands out free slots */
	RESSD_SLOT_HEAD = 1,	/* heads an extent, node in its bucket's tree */
	RESSD_SLOT_CONT = 2,	/* inside an extent, not its first slot */
};

/* Longest extent: the largest len the info word can hold. */
#define RESSD_EXTENT_MAX_LEN	((u32)FIELD_MAX(RESSD_SLOT_LEN))

static inline enum ressd_slot_state ressd_slot_state(const struct ressd_slot *s)
{
	return (enum ressd_slot_state)FIELD_GET(RESSD_SLOT_STATE, s->info);
}

static inline u64 ressd_slot_block(const struct ressd_slot *s)
{
	return FIELD_GET(RESSD_SLOT_BLOCK, s->info);
}

static inline u32 ressd_slot_len(const struct ressd_slot *s)
{
	return (u32)FIELD_GET(RESSD_SLOT_LEN, s->info);
}

static inline void ressd_slot_set(struct ressd_slot *s, u64 block, u32 len,
				  enum ressd_slot_state state)
{
	s->info = FIELD_PREP(RESSD_SLOT_BLOCK, block) |
		  FIELD_PREP(RESSD_SLOT_LEN, len) |
		  FIELD_PREP(RESSD_SLOT_STATE, state);
}

static inline void ressd_slot_set_len(struct ressd_slot *s, u32 len)
{
	ressd_slot_set(s, ressd_slot_block(s), len, RESSD_SLOT_HEAD);
}

static inline u32 ressd_slot_nr(const struct ressd_index *idx,
				const struct ressd_slot *s)
{
	return (u32)(s - idx->slots);
}

static inline struct ressd_slot *ressd_node_slot(struct rb_node *n)
{
	return n ? rb_entry(n, struct ressd_slot, node) : NULL;
}

static inline struct rb_root *ressd_root(struct ressd_index *idx, u64 block)
{
	return &idx->roots[ressd_index_bucket(idx, block)];
}

/*
 * The first extent of the first bucket from @b on that has one, or NULL;
 * also NULL when that extent starts at or after block @end, where the
 * caller stops: the bitmap is searched up to @end's bucket only, so that a
 * walk costs no more than the blocks it covers.
 */
static struct ressd_slot *__ressd_index_first_from(struct ressd_index *idx,
						   u32 b, u64 end)
{
	u32 last = ressd_index_bucket(idx, end - 1) + 1;
	struct ressd_slot *h;

	b = (u32)find_next_bit(idx->busy, last, b);
	if (b >= last)
		return NULL;
	h = ressd_node_slot(rb_first(&idx->roots[b]));
	/* A busy bit is set exactly while the bucket's tree is not empty. */
	if (WARN_ON_ONCE(!h) || ressd_slot_block(h) >= end)
		return NULL;
	return h;
}

/*
 * The extent after the one headed by @h in block order, or NULL when there
 * is none before block @end.
 */
static struct ressd_slot *__ressd_index_next(struct ressd_index *idx,
					     struct ressd_slot *h, u64 end)
{
	struct rb_node *n = rb_next(&h->node);

	if (n)
		return ressd_node_slot(n);
	return __ressd_index_first_from(idx,
					ressd_index_bucket(idx, ressd_slot_block(h)) + 1,
					end);
}

/*
 * Return the HEAD of the extent that holds @block, or NULL.  When @block
 * is unmapped and @next is given, *@next is set to the first extent after
 * @block, or to NULL if there is none that starts before block @end
 * (which is past @block).
 */
static struct ressd_slot *__ressd_index_find(struct ressd_index *idx,
					     u64 block,
					     struct ressd_slot **next, u64 end)
{
	struct rb_node *n = ressd_root(idx, block)->rb_node;
	struct ressd_slot *after = NULL;

	lockdep_assert_held(&idx->lock);

	while (n) {
		struct ressd_slot *h = ressd_node_slot(n);
		u64 first = ressd_slot_block(h);

		if (block < first) {
			after = h;
			n = n->rb_left;
			continue;
		}
		if (block - first < ressd_slot_len(h))
			return h;
		n = n->rb_right;
	}
	/* No extent crosses a bucket boundary: the next may be in a later one. */
	if (next)
		*next = after ? after :
			__ressd_index_first_from(idx, ressd_index_bucket(idx, block) + 1, end);
	return NULL;
}

/* Add the HEAD @h, whose block is not in any extent, to its bucket's tree. */
static void __ressd_index_link(struct ressd_index *idx, struct ressd_slot *h)
{
	u64 block = ressd_slot_block(h);
	u32 b = ressd_index_bucket(idx, block);
	struct rb_node **p = &idx->roots[b].rb_node, *parent = NULL;

	lockdep_assert_held(&idx->lock);

	while (*p) {
		parent = *p;
		if (block < ressd_slot_block(ressd_node_slot(parent)))
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&h->node, parent, p);
	rb_insert_color(&h->node, &idx->roots[b]);
	__set_bit(b, idx->busy);
}

/* Take the HEAD @h out of its bucket's tree. */
static void __ressd_index_erase(struct ressd_index *idx, struct ressd_slot *h)
{
	u32 b = ressd_index_bucket(idx, ressd_slot_block(h));

	rb_erase(&h->node, &idx->roots[b]);
	if (RB_EMPTY_ROOT(&idx->roots[b]))
		__clear_bit(b, idx->busy);
}

/*
 * Unmap the blocks [@from, @to) of the extent headed by @h and free their
 * slots.  The range must be non-empty and inside the extent.  What is left
 * of the extent is up to two pieces; a right-hand piece is headed by its
 * own first slot, which needs no allocation.  Returns to - from.
 */
static u64 __ressd_index_unmap(struct ressd_index *idx, struct ressd_slot *h,
			       u64 from, u64 to)
{
	u64 first = ressd_slot_block(h);
	u32 len = ressd_slot_len(h);
	u32 left = (u32)(from - first);		/* blocks kept before */
	u32 right = (u32)(first + len - to);	/* blocks kept after */
	struct ressd_slot *rh = h + (len - right); /* head of the right piece */
	u32 i;

	lockdep_assert_held(&idx->lock);

	if (!left && !right) {
		/* The whole extent goes. */
		__ressd_index_erase(idx, h);
		idx->extents--;
	} else if (!left) {
		/*
		 * Trim the front: the right piece keeps the tree position,
		 * since its key stays between the same neighbours.
		 */
		ressd_slot_set(rh, ressd_slot_block(rh), right,
			       RESSD_SLOT_HEAD);
		rb_replace_node(&h->node, &rh->node, ressd_root(idx, first));
	} else if (!right) {
		/* Trim the back. */
		ressd_slot_set_len(h, left);
	} else {
		/* Punch a hole: the extent splits in two. */
		ressd_slot_set_len(h, left);
		ressd_slot_set(rh, ressd_slot_block(rh), right,
			       RESSD_SLOT_HEAD);
		__ressd_index_link(idx, rh);
		idx->extents++;
	}

	for (i = left; i < len - right; i++)
		h[i].info = 0;
	idx->mapped -= to - from;
	return to - from;
}

/*
 * Map @block to slot @s: @block is unmapped and @s is free.  Merge with the
 * extent that ends in (block - 1, slot - 1) and with the one that starts at
 * (block + 1, slot + 1), as long as the result fits RESSD_EXTENT_MAX_LEN
 * and one bucket.
 * Both neighbours are found through the slot array: if slot - 1 holds
 * block - 1, its extent must end there, because slot s is free.
 */
static void __ressd_index_map(struct ressd_index *idx, struct ressd_slot *s,
			      u64 block)
{
	u32 slot = ressd_slot_nr(idx, s);
	struct ressd_slot *head = s, *l = NULL, *r = NULL;
	u32 len = 1;

	lockdep_assert_held(&idx->lock);

	ressd_slot_set(s, block, 1, RESSD_SLOT_HEAD);
	if (slot > 0 && block > 0 &&
	    ressd_index_bucket(idx, block - 1) == ressd_index_bucket(idx, block) &&
	    ressd_slot_state(s - 1) != RESSD_SLOT_FREE &&
	    ressd_slot_block(s - 1) == block - 1) {
		if (ressd_slot_state(s - 1) == RESSD_SLOT_HEAD)
			l = s - 1;
		else
			l = __ressd_index_find(idx, block - 1, NULL, 0);
		if (WARN_ON_ONCE(!l) ||
		    ressd_slot_len(l) >= RESSD_EXTENT_MAX_LEN)
			l = NULL;
	}
	if (l) {
		head = l;
		len = ressd_slot_len(l) + 1;
		ressd_slot_set(s, block, 0, RESSD_SLOT_CONT);
	}

	if (slot + 1 < idx->nr_slots &&
	    ressd_index_bucket(idx, block + 1) == ressd_index_bucket(idx, block) &&
	    ressd_slot_state(s + 1) == RESSD_SLOT_HEAD &&
	    ressd_slot_block(s + 1) == block + 1 &&
	    len + ressd_slot_len(s + 1) <= RESSD_EXTENT_MAX_LEN)
		r = s + 1;

	if (r) {
		len += ressd_slot_len(r);
		if (l) {
			/* Left and right become one extent. */
			__ressd_index_erase(idx, r);
			idx->extents--;
		} else {
			/* @s takes over the right extent's tree position. */
			rb_replace_node(&r->node, &s->node, ressd_root(idx, block));
		}
		ressd_slot_set(r, block + 1, 0, RESSD_SLOT_CONT);
	}

	ressd_slot_set(head, ressd_slot_block(head), len, RESSD_SLOT_HEAD);
	if (!l && !r) {
		__ressd_index_link(idx, s);
		idx->extents++;
	}
	idx->mapped++;
}

int ressd_index_init(struct ressd_index *idx, u32 nr_slots, u64 span_blocks)
{
	u64 want = max_t(u64, nr_slots / RESSD_SLOTS_PER_BUCKET, 1);
	u32 shift = 0;

	/* The packing above and the 32 bytes per slot the design promises. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_64BIT) &&
		     sizeof(struct ressd_slot) != 32);
	BUILD_BUG_ON(FIELD_MAX(RESSD_SLOT_BLOCK) != RESSD_INDEX_MAX_BLOCK);
	BUILD_BUG_ON(RESSD_SLOT_FREE != 0);
	BUILD_BUG_ON(RESSD_MAX_SLOTS >= RESSD_NO_SLOT);

	spin_lock_init(&idx->lock);
	idx->roots = NULL;
	idx->busy = NULL;
	idx->nr_buckets = 0;
	idx->shift = 0;
	idx->slots = NULL;
	idx->nr_slots = 0;
	idx->mapped = 0;
	idx->extents = 0;

	if (!nr_slots || nr_slots > RESSD_MAX_SLOTS)
		return -EINVAL;

	/*
	 * The smallest power-of-two bucket that covers the span in at most
	 * about @want buckets; without a span, one bucket for every block.
	 */
	if (span_blocks) {
		while ((span_blocks >> shift) > want)
			shift++;
		idx->nr_buckets = (u32)((span_blocks >> shift) +
					!!(span_blocks & ((1ULL << shift) - 1)));
	} else {
		shift = 63;
		idx->nr_buckets = 1;
	}
	idx->shift = shift;

	/*
	 * Zeroed memory is all FREE slots and empty trees.  No warning: a
	 * huge log is a table error reported by the caller, not a kernel bug.
	 */
	idx->slots = kvcalloc(nr_slots, sizeof(*idx->slots),
			      GFP_KERNEL | __GFP_NOWARN);
	idx->roots = kvcalloc(idx->nr_buckets, sizeof(*idx->roots),
			      GFP_KERNEL | __GFP_NOWARN);
	idx->busy = kvcalloc(BITS_TO_LONGS(idx->nr_buckets), sizeof(long),
			     GFP_KERNEL | __GFP_NOWARN);
	if (!idx->slots || !idx->roots || !idx->busy) {
		ressd_index_exit(idx);
		return -ENOMEM;
	}
	idx->nr_slots = nr_slots;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_index_init);

void ressd_index_exit(struct ressd_index *idx)
{
	kvfree(idx->slots);
	kvfree(idx->roots);
	kvfree(idx->busy);
	idx->slots = NULL;
	idx->roots = NULL;
	idx->busy = NULL;
	idx->nr_slots = 0;
	idx->nr_buckets = 0;
	idx->mapped = 0;
	idx->extents = 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_index_exit);

/*
 * Empty the index in O(slots), for a recovery retried after a failed one.
 * The extents live in the slot array, so nothing is freed; no lock is
 * taken: nobody else may use the index meanwhile (the target is suspended
 * and its mover stopped).  May sleep.
 */
void ressd_index_reset(struct ressd_index *idx)
{
	u32 i, step = 1U << 16;

	for (i = 0; i < idx->nr_slots; i += step) {
		memset(&idx->slots[i], 0,
		       min(step, idx->nr_slots - i) * sizeof(*idx->slots));
		cond_resched();
	}
	memset(idx->roots, 0, idx->nr_buckets * sizeof(*idx->roots));
	bitmap_zero(idx->busy, idx->nr_buckets);
	idx->mapped = 0;
	idx->extents = 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_index_reset);

size_t ressd_index_bytes(const struct ressd_index *idx)
{
	return sizeof(*idx) + (size_t)idx->nr_slots * sizeof(*idx->slots) +
	       (size_t)idx->nr_buckets * sizeof(*idx->roots) +
	       BITS_TO_LONGS(idx->nr_buckets) * sizeof(long);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_index_bytes);

void __ressd_index_lookup(struct ressd_index *idx, u64 block, u32 max,
			  struct ressd_map *m)
{
	struct ressd_slot *h, *next;
	u64 run;

	lockdep_assert_held(&idx->lock);

	if (WARN_ON_ONCE(!max))
		max = 1;
	m->mapped = false;
	m->slot = RESSD_NO_SLOT;
	m->len = max;

	/* Fast path for reads while nothing is logged. */
	if (!idx->extents)
		return;
	/* Nothing can be mapped there: report an unmapped run. */
	if (WARN_ON_ONCE(block > RESSD_INDEX_MAX_BLOCK))
		return;

	/* A one-block lookup (a 4 KiB read) needs no next extent. */
	next = NULL;
	h = __ressd_index_find(idx, block, max > 1 ? &next : NULL, block + max);
	if (!h) {
		/* Unmapped up to the next extent, if there is one. */
		if (next)
			m->len = (u32)min_t(u64, max,
					    ressd_slot_block(next) - block);
		return;
	}

	m->mapped = true;
	m->slot = ressd_slot_nr(idx, h) + (u32)(block - ressd_slot_block(h));
	run = ressd_slot_len(h) - (block - ressd_slot_block(h));

	/*
	 * Follow extents that continue the run in both blocks and slots:
	 * they exist only where a merge was refused by the length cap or at a
	 * bucket boundary.
	 */
	while (run < max) {
		next = __ressd_index_next(idx, h, block + max);
		if (!next || ressd_slot_block(next) != block + run ||
		    ressd_slot_nr(idx, next) != m->slot + run)
			break;
		run += ressd_slot_len(next);
		h = next;
	}
	m->len = (u32)min_t(u64, max, run);
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_index_lookup);

u32 __ressd_index_insert(struct ressd_index *idx, u64 block, u32 slot)
{
	struct ressd_slot *s, *h;
	u32 old = RESSD_NO_SLOT;

	lockdep_assert_held(&idx->lock);

	if (WARN_ON_ONCE(block > RESSD_INDEX_MAX_BLOCK) ||
	    WARN_ON_ONCE(slot >= idx->nr_slots))
		return RESSD_NO_SLOT;
	s = &idx->slots[slot];
	/* Reusing a live slot would corrupt another block's mapping. */
	if (WARN_ON_ONCE(ressd_slot_state(s) != RESSD_SLOT_FREE))
		return RESSD_NO_SLOT;

	h = __ressd_index_find(idx, block, NULL, 0);
	if (h) {
		old = ressd_slot_nr(idx, h) +
		      (u32)(block - ressd_slot_block(h));
		__ressd_index_unmap(idx, h, block, block + 1);
	}
	__ressd_index_map(idx, s, block);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_index_insert);

u64 __ressd_index_remove_range(struct ressd_index *idx, u64 block, u64 nr)
{
	struct ressd_slot *h, *next;
	u64 end, done = 0;

	lockdep_assert_held(&idx->lock);

	if (!nr || !idx->extents)
		return 0;
	if (WARN_ON_ONCE(block > RESSD_INDEX_MAX_BLOCK))
		return 0;
	/* Clamp the end: nothing is mapped above RESSD_INDEX_MAX_BLOCK. */
	end = block + min_t(u64, nr, RESSD_INDEX_MAX_BLOCK + 1 - block);

	h = __ressd_index_find(idx, block, &next, end);
	if (!h)
		h = next;
	while (h && ressd_slot_block(h) < end) {
		u64 first = ressd_slot_block(h);
		u64 last = first + ressd_slot_len(h);

		/*
		 * Take the successor first: unmapping may erase or replace
		 * @h.  A split only happens when the range ends inside @h,
		 * and then the loop stops at the successor anyway.
		 */
		next = __ressd_index_next(idx, h, end);
		done += __ressd_index_unmap(idx, h, max(first, block),
					    min(last, end));
		h = next;
	}
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_index_remove_range);

bool __ressd_index_slot_block(struct ressd_index *idx, u32 slot, u64 *block)
{
	struct ressd_slot *s;

	lockdep_assert_held(&idx->lock);

	if (WARN_ON_ONCE(slot >= idx->nr_slots))
		return false;
	s = &idx->slots[slot];
	if (ressd_slot_state(s) == RESSD_SLOT_FREE)
		return false;
	*block = ressd_slot_block(s);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_index_slot_block);

bool __ressd_index_remove_slot(struct ressd_index *idx, u32 slot)
{
	struct ressd_slot *s, *h;
	u64 block;

	lockdep_assert_held(&idx->lock);

	if (WARN_ON_ONCE(slot >= idx->nr_slots))
		return false;
	s = &idx->slots[slot];
	switch (ressd_slot_state(s)) {
	case RESSD_SLOT_HEAD:
		h = s;
		break;
	case RESSD_SLOT_CONT:
		/* Live slots keep their block: search for its extent. */
		h = __ressd_index_find(idx, ressd_slot_block(s), NULL, 0);
		break;
	default:
		return false;
	}

	block = ressd_slot_block(s);
	/* The extent of a live slot's block must contain that very slot. */
	if (WARN_ON_ONCE(!h || h + (block - ressd_slot_block(h)) != s))
		return false;
	__ressd_index_unmap(idx, h, block, block + 1);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(__ressd_index_remove_slot);
