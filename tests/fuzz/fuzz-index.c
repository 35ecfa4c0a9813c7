// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz-index: the remap index (dm-ressd-rbtree.c) on its own, driven by
 * operation sequences and compared after each one with a plain model: a
 * slot -> block array and a block -> slot hash.
 *
 * Input: le16 v, le64 base block, then 9-byte operations (op, le16 a,
 * le16 b, le32 c).  The log has 1 + v % 512 slots, or with bit 15 of v set
 * 16384 + (v & 0x7fff) % 4096: enough for an extent to reach its length cap
 * (2^14 - 1) through the "fill" operation.  Blocks are base + a (mod 2^48),
 * so that they collide.  The top byte k of the base word chooses the
 * index's buckets: 0, one bucket; else the span is 1 + (k * 521) % 2^17
 * blocks (buckets of 1 to 1024 blocks) and, for an even k, the base is
 * taken mod 2^16 (blocks across many buckets and past the span), for an odd
 * one kept (blocks up to 2^48 - 1, all in the last bucket).  Every
 * call respects the index's contract (a free slot for insert, blocks below
 * 2^48), so any kernel warning it reaches is a bug.
 *
 * What it checks (the header comment of dm-ressd-rbtree.c):
 *  - insert returns the old slot of the block, remove_range the number of
 *    blocks it unmapped, remove_slot and slot_block what the model says;
 *  - lookup returns the longest run from the block, up to max, that is
 *    either unmapped or mapped to consecutive slots, across extent
 *    boundaries ("a run is never cut at an extent boundary");
 *  - at the end: mapped == live slots, the trees bucket by bucket in block
 *    order with exactly idx->extents heads, every head a live slot in its
 *    bucket's tree, no extent across a bucket boundary, a bucket's busy
 *    bit set exactly when its tree is not empty.
 */
#include "fuzz-common.h"

#define FX_FREE		U64_MAX
#define FX_NONE		U32_MAX
#define FX_MAX_LOOKUP	(1u << 15)

struct fx_model {
	u32 nr_slots;
	u32 cap;		/* hash buckets, a power of two */
	u64 live;
	u64 *block;		/* per slot, FX_FREE when free */
	u32 *next;		/* hash chain, per slot */
	u32 *bucket;
};

static u32 fx_hash(const struct fx_model *m, u64 b)
{
	return (u32)((b * 0x9e3779b97f4a7c15ULL) >> 32) & (m->cap - 1);
}

static u32 fx_find(const struct fx_model *m, u64 b)
{
	u32 s;

	for (s = m->bucket[fx_hash(m, b)]; s != FX_NONE; s = m->next[s])
		if (m->block[s] == b)
			return s;
	return FX_NONE;
}

static void fx_unmap_slot(struct fx_model *m, u32 s)
{
	u32 *p = &m->bucket[fx_hash(m, m->block[s])];

	while (*p != s)
		p = &m->next[*p];
	*p = m->next[s];
	m->block[s] = FX_FREE;
	m->live--;
}

static void fx_map(struct fx_model *m, u64 b, u32 s)
{
	u32 h = fx_hash(m, b);

	m->block[s] = b;
	m->next[s] = m->bucket[h];
	m->bucket[h] = s;
	m->live++;
}

static void fx_lookup(struct fx_model *m, struct ressd_index *idx, u64 b, u32 max)
{
	struct ressd_map rm;
	u32 s = fx_find(m, b), run = 1;

	__ressd_index_lookup(idx, b, max, &rm);
	if (s != FX_NONE) {
		while (run < max && b + run <= RESSD_MAX_BLOCK && s + run < m->nr_slots &&
		       m->block[s + run] == b + run)
			run++;
	} else if (max <= m->nr_slots) {
		while (run < max && (b + run > RESSD_MAX_BLOCK || fx_find(m, b + run) == FX_NONE))
			run++;
	} else {
		u64 next = U64_MAX;	/* the first mapped block after b */

		for (s = 0; s < m->nr_slots; s++)
			if (m->block[s] != FX_FREE && m->block[s] > b && m->block[s] < next)
				next = m->block[s];
		run = (u32)min_t(u64, max, next - b);
		s = FX_NONE;
	}
	fz_assert(rm.mapped == (s != FX_NONE) && (s == FX_NONE || rm.slot == s) && rm.len == run,
		  "lookup(%llu, %u): mapped %d slot %u len %u; model: mapped %d slot %u len %u",
		  b, max, rm.mapped, rm.slot, rm.len, s != FX_NONE, s, run);
}

static void fx_insert(struct fx_model *m, struct ressd_index *idx, u64 b, u32 s)
{
	u32 old, want;

	if (m->block[s] != FX_FREE)
		return;		/* the contract: only free slots */
	want = fx_find(m, b);
	old = __ressd_index_insert(idx, b, s);
	fz_assert(old == (want == FX_NONE ? RESSD_NO_SLOT : want),
		  "insert(%llu, %u) returned old slot %u, model %u", b, s, old, want);
	if (want != FX_NONE)
		fx_unmap_slot(m, want);
	fx_map(m, b, s);
}

static void fx_check_all(struct fx_model *m, struct ressd_index *idx)
{
	struct rb_node *node;
	u64 heads = 0, prev = 0, live = 0;
	u32 s, k;
	bool *head = calloc(m->nr_slots, sizeof(*head));

	fz_assert(idx->mapped == m->live, "index says %llu mapped, model %llu", idx->mapped, m->live);
	for (s = 0; s < m->nr_slots; s++) {
		u64 b = 0;
		bool l = __ressd_index_slot_block(idx, s, &b);

		fz_assert(l == (m->block[s] != FX_FREE) && (!l || b == m->block[s]),
			  "slot %u: live %d block %llu, model %llu", s, l, b, m->block[s]);
		live += l;
	}
	fz_assert(live == idx->mapped, "%llu live slots, %llu mapped", live, idx->mapped);
	if (!head)
		abort();
	for (k = 0; k < idx->nr_buckets; k++) {
		fz_assert(test_bit(k, idx->busy) == !RB_EMPTY_ROOT(&idx->roots[k]),
			  "bucket %u: busy bit %d, tree empty %d", k, test_bit(k, idx->busy),
			  RB_EMPTY_ROOT(&idx->roots[k]));
		for (node = rb_first(&idx->roots[k]); node; node = rb_next(node)) {
			struct ressd_slot *h = rb_entry(node, struct ressd_slot, node);
			u32 hs = (u32)(h - idx->slots);
			u64 b;

			fz_assert(h >= idx->slots && h < idx->slots + m->nr_slots,
				  "tree node outside");
			fz_assert(__ressd_index_slot_block(idx, hs, &b), "free slot in the tree");
			fz_assert(!heads || b > prev, "heads out of order: %llu after %llu",
				  b, prev);
			fz_assert(ressd_index_bucket(idx, b) == k, "head %llu in bucket %u's tree", b, k);
			head[hs] = true;
			prev = b;
			heads++;
		}
	}
	fz_assert(heads == idx->extents, "%llu heads in the tree, index says %llu extents",
		  heads, idx->extents);
	/*
	 * Extents stay in their bucket: a live slot that is not a head holds
	 * the block after its slot's predecessor's, in the same bucket (so a
	 * slot whose predecessor holds the block before, in another bucket,
	 * heads an extent).
	 */
	for (s = 0; s < m->nr_slots; s++) {
		u64 b = m->block[s];
		bool follows = s && b != FX_FREE && b && m->block[s - 1] == b - 1;

		if (b == FX_FREE)
			continue;
		fz_assert(head[s] || (follows && ressd_index_bucket(idx, b - 1) == ressd_index_bucket(idx, b)),
			  "slot %u (block %llu) neither heads an extent nor continues one", s, b);
	}
	free(head);
	fz_assert(idx->extents <= idx->mapped, "more extents than blocks");
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct ressd_index idx;
	struct fx_model m;
	size_t pos = 10;
	u64 base, span;
	u32 i;
	int r;

	if (size < 10)
		return 0;
	memset(&m, 0, sizeof(m));
	/* Small logs mostly (fast); with the top bit, past the extent cap. */
	m.nr_slots = fz_get16(data, 0);
	m.nr_slots = (m.nr_slots & 0x8000) ? 16384 + (m.nr_slots & 0x7fff) % 4096 :
					     1 + m.nr_slots % 512;
	base = fz_get64(data, 2) % (RESSD_MAX_BLOCK + 1);
	span = data[9];
	if (span) {
		if (!(span & 1))
			base %= 1u << 16;
		span = 1 + (span * 521) % (1u << 17);
	}
	for (m.cap = 1; m.cap < m.nr_slots; m.cap <<= 1)
		;
	m.block = malloc(sizeof(*m.block) * m.nr_slots);
	m.next = malloc(sizeof(*m.next) * m.nr_slots);
	m.bucket = malloc(sizeof(*m.bucket) * m.cap);
	if (!m.block || !m.next || !m.bucket)
		abort();
	for (i = 0; i < m.nr_slots; i++)
		m.block[i] = FX_FREE;
	for (i = 0; i < m.cap; i++)
		m.bucket[i] = FX_NONE;
	r = ressd_index_init(&idx, m.nr_slots, span);
	fz_assert(r == 0, "ressd_index_init(%u, %llu) = %d", m.nr_slots, span, r);

	spin_lock(&idx.lock);
	while (pos + 9 <= size) {
		u8 op = data[pos];
		u16 a = fz_get16(data, pos + 1), bb = fz_get16(data, pos + 3);
		u32 c = fz_get32(data, pos + 5);
		u64 b = (base + a) % (RESSD_MAX_BLOCK + 1), got, want;
		u32 s = bb % m.nr_slots, n;

		pos += 9;
		switch ((op & 0x7f) % 6) {
		case 0:
			fx_insert(&m, &idx, b, s);
			break;
		case 1:	/* a run of blocks into a run of slots, as a record does */
			n = 1 + c % (1u << 15);
			for (i = 0; i < n && s + i < m.nr_slots && b + i <= RESSD_MAX_BLOCK; i++)
				fx_insert(&m, &idx, b + i, s + i);
			break;
		case 2: {
			u64 nr = (op & 0x80) ? (u64)c << 20 | bb : c % 1024;

			want = 0;
			if (nr <= m.nr_slots) {
				for (got = 0; got < nr && b + got <= RESSD_MAX_BLOCK; got++) {
					u32 hs = fx_find(&m, b + got);

					if (hs != FX_NONE) {
						fx_unmap_slot(&m, hs);
						want++;
					}
				}
			} else {
				for (i = 0; i < m.nr_slots; i++)
					if (m.block[i] != FX_FREE && m.block[i] >= b &&
					    m.block[i] - b < nr) {
						fx_unmap_slot(&m, i);
						want++;
					}
			}
			got = __ressd_index_remove_range(&idx, b, nr);
			fz_assert(got == want, "remove_range(%llu, %llu) = %llu, model %llu",
				  b, nr, got, want);
			break;
		}
		case 3: {
			bool had = m.block[s] != FX_FREE, res;

			res = __ressd_index_remove_slot(&idx, s);
			fz_assert(res == had, "remove_slot(%u) = %d, model %d", s, res, had);
			if (had)
				fx_unmap_slot(&m, s);
			break;
		}
		case 4:
			fx_lookup(&m, &idx, b, 1 + c % FX_MAX_LOOKUP);
			break;
		default: {
			u64 got_b = 0;
			bool l = __ressd_index_slot_block(&idx, s, &got_b);

			fz_assert(l == (m.block[s] != FX_FREE) && (!l || got_b == m.block[s]),
				  "slot_block(%u): %d %llu, model %llu", s, l, got_b, m.block[s]);
			break;
		}
		}
		fz_assert(idx.mapped == m.live, "after op %u: %llu mapped, model %llu",
			  op, idx.mapped, m.live);
	}
	fx_check_all(&m, &idx);
	fz_log("index: %u slots, %llu mapped in %llu extents, %u buckets", m.nr_slots, idx.mapped,
	       idx.extents, idx.nr_buckets);
	spin_unlock(&idx.lock);
	ressd_index_exit(&idx);
	free(m.block);
	free(m.next);
	free(m.bucket);
	return 0;
}
