// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost model of dm-ftlsim: what a cheap flash translation layer spends
 * on each request.  Pure code: no bio, no lock, no clock; the target
 * (dm-ftlsim.c) serialises the calls and supplies arrival times, and the
 * KUnit suite dm_ftlsim_model drives it directly.
 *
 * Units.  The device is a sequence of 4 KiB pages.  A request covers the
 * pages its sector range touches, so an unaligned 512-byte write costs one
 * whole page.  Times are nanoseconds in u32 parameters and u64 sums.
 *
 * Queueing.  One command at a time: a request that arrives at time a starts
 * at max(a, device_free), keeps the device busy for its service time s and
 * completes at device_free = start + s.  busy_ns sums s, wait_ns sums
 * start - a.
 *
 * Reads cost beta_r + alpha_r * pages whatever the FTL state: neither FTL
 * below moves data on a read.
 *
 * Hybrid log-block FTL (ssd-a, ssd-b, sd-card, sd-worst).  The device is
 * cut into logical blocks of U bytes (P = U / 4 KiB pages).  Up to N log
 * blocks are open, each bound to one logical block, with `used` pages and a
 * flag `in_order` (page k of the logical block sits in slot k, from 0).  A
 * write costs beta_w, plus, for each logical block it touches, alpha_w per
 * page appended to that block's log; a block without a log gets one, and
 * when N are open the least recently used log is merged first.  A log that
 * fills is merged at once and closed (its remaining pages, if any, go to a
 * fresh log that is then out of order).  A merge costs:
 *
 *   nothing			used == 0
 *   e				switch:  in order and full
 *   (P - used) * c + e		partial: in order, not full
 *   P * c + 2e			full:    otherwise
 *
 * This is the rule of the reference sketch shared/tools/hlb_model.py, and
 * gives its figures for the same request stream.  Only the open logs are
 * state: a data block costs the same to merge whatever it holds, so memory
 * is O(N) whatever the device size.  Logs are few (N <= 256): they live in
 * an array, found by a linear search, and the LRU order is kept as a stamp
 * per log.
 *
 * Page-mapped FTL (ssd-c).  A logical page may live in any physical page.
 * Physical space is the logical capacity rounded up to erase blocks of U
 * bytes, plus spare_pct percent of that (at least FTLSIM_PMAP_MIN_SPARE
 * blocks).  Host pages are appended to a host frontier block, the copies
 * of garbage collection to a GC frontier of their own, as real FTLs do to
 * keep the cold data that collection moves apart from new writes.  When
 * the host frontier is full it takes an erased block, and while fewer than
 * FTLSIM_PMAP_RESERVE erased blocks are left (the next host frontier, one
 * for the GC frontier) greedy collection picks the closed block with the
 * fewest valid pages, copies them (c each) and erases it (e); the host
 * write that needed the space pays for it.  A block whose last valid page
 * is overwritten or discarded is erased in the background at no cost to
 * the host: its erase can start at once and overlaps the programs of the
 * following pages on other planes (P * alpha_w = 1984 us > e = 1.5 ms for
 * ssd-c), whereas a collected block is needed the moment it is erased.  So
 * sequential writes cost alpha_w per page (write amplification 1), and
 * random writes pay c per copied page plus e per collection, with the
 * write amplification that greedy collection reaches on its own (about 7
 * with 7 % spare).  After random writes, one sequential pass over the
 * device restores write amplification 1.
 *
 * Invariant of the page-mapped FTL: every closed block with valid pages
 * sits in bucket[valid]; closed blocks without valid pages are erased at
 * once.  Collection runs with at most one erased block left, so at least
 * (blocks - 3) are closed; with FTLSIM_PMAP_MIN_SPARE = 4 blocks more than
 * the logical capacity, one of them holds fewer than P valid pages, so
 * each collection frees a block and uses at most one for its copies.
 * Memory: 4 bytes per logical page and per physical page, 16 bytes per
 * erase block.
 *
 * Discard, in mode "invalidate": the log-block FTL closes the open log of
 * each logical block the range covers entirely, without merging; the
 * page-mapped FTL unmaps each page it covers entirely.  In mode "noop" (the
 * default, as on many cheap devices) discards change nothing.  Discards
 * cost no device time.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../compat.h"
#include "ftlsim-model.h"

/*
 * The presets of ftlsim.md, times in ns: beta_w = 50 us for all.
 * ssd-c's copy cost is the one value tuned here rather than taken from the
 * table (~55 us): with 7 % spare, greedy collection settles at a write
 * amplification of about 7.0 to 7.5 (larger devices lower), and c = 62 us
 * puts 4 KiB random writes at 6.2 to 6.6 MB/s for 128 MiB to 1 GiB (see
 * README.md, "Calibration").
 */
static const struct ftlsim_preset ftlsim_presets[] = {
	{ "ssd-a", "ReSSD paper SSD-A (Samsung)", {
		.ftl = FTLSIM_FTL_LOG_BLOCK, .unit_kib = 512, .open_logs = 8,
		.erase_ns = 1500000, .write_ns = 36500, .copy_ns = 52100,
		.write_base_ns = 50000, .read_base_ns = 210000,
		.read_ns = 41000 } },
	{ "ssd-b", "ReSSD paper SSD-B (Super Talent)", {
		.ftl = FTLSIM_FTL_LOG_BLOCK, .unit_kib = 2048, .open_logs = 4,
		.erase_ns = 2000000, .write_ns = 47900, .copy_ns = 436600,
		.write_base_ns = 50000, .read_base_ns = 441000,
		.read_ns = 41000 } },
	{ "ssd-c", "ReSSD paper SSD-C (OCZ Vertex)", {
		.ftl = FTLSIM_FTL_PAGE_MAP, .unit_kib = 256, .spare_pct = 7,
		.erase_ns = 1500000, .write_ns = 31000, .copy_ns = 62000,
		.write_base_ns = 50000, .read_base_ns = 176000,
		.read_ns = 27000 } },
	{ "sd-card", "Class 10 microSD", {
		.ftl = FTLSIM_FTL_LOG_BLOCK, .unit_kib = 64, .open_logs = 4,
		.erase_ns = 1000000, .write_ns = 187300, .copy_ns = 279900,
		.write_base_ns = 50000, .read_base_ns = 830000,
		.read_ns = 43000 } },
	{ "sd-worst", "card with 4 MiB allocation units, 2 open", {
		.ftl = FTLSIM_FTL_LOG_BLOCK, .unit_kib = 4096, .open_logs = 2,
		.erase_ns = 2000000, .write_ns = 407600, .copy_ns = 407600,
		.write_base_ns = 50000, .read_base_ns = 600000,
		.read_ns = 60000 } },
};

const struct ftlsim_preset *ftlsim_preset_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ftlsim_presets); i++)
		if (!strcasecmp(name, ftlsim_presets[i].name))
			return &ftlsim_presets[i];
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_preset_find);

const struct ftlsim_preset *ftlsim_preset_get(unsigned int i)
{
	return i < ARRAY_SIZE(ftlsim_presets) ? &ftlsim_presets[i] : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_preset_get);

/* ---- the optional parameters of the table line ---- */

enum ftlsim_key_kind {
	FTLSIM_KEY_UINT,	/* decimal integer, min..max, multiple of align */
	FTLSIM_KEY_US,		/* microseconds, up to 3 decimals, stored in ns */
	FTLSIM_KEY_DISCARD,	/* "invalidate" or "noop" */
};

#define FTLS_LOG	BIT(FTLSIM_FTL_LOG_BLOCK)
#define FTLS_PMAP	BIT(FTLSIM_FTL_PAGE_MAP)
#define FTLS_ANY	(FTLS_LOG | FTLS_PMAP)

struct ftlsim_key {
	const char *name;
	enum ftlsim_key_kind kind;
	unsigned int ftls;	/* FTLs it applies to */
	size_t offset;		/* of a u32 in struct ftlsim_params */
	u32 min, max, align;	/* FTLSIM_KEY_UINT */
	const char *invalid;	/* value is not a number (or keyword) */
	const char *range;	/* value out of range */
	const char *wrong_ftl;	/* key does not apply to this FTL */
};

#define TIME_KEY(key, field, invalid_msg, range_msg) { \
	.name = key, .kind = FTLSIM_KEY_US, .ftls = FTLS_ANY, \
	.offset = offsetof(struct ftlsim_params, field), \
	.invalid = invalid_msg, .range = range_msg }

/* In the order TABLE status prints them. */
static const struct ftlsim_key ftlsim_keys[] = {
	{ .name = "unit_kib", .kind = FTLSIM_KEY_UINT, .ftls = FTLS_ANY,
	  .offset = offsetof(struct ftlsim_params, unit_kib),
	  .min = FTLSIM_MIN_UNIT_KIB, .max = FTLSIM_MAX_UNIT_KIB, .align = 4,
	  .invalid = "Invalid unit_kib",
	  .range = "unit_kib must be a multiple of 4 from 8 to 65536" },
	{ .name = "open_logs", .kind = FTLSIM_KEY_UINT, .ftls = FTLS_LOG,
	  .offset = offsetof(struct ftlsim_params, open_logs),
	  .min = 1, .max = FTLSIM_MAX_OPEN_LOGS, .align = 1,
	  .invalid = "Invalid open_logs",
	  .range = "open_logs must be 1 to 256",
	  .wrong_ftl = "open_logs needs a log-block preset" },
	{ .name = "spare_pct", .kind = FTLSIM_KEY_UINT, .ftls = FTLS_PMAP,
	  .offset = offsetof(struct ftlsim_params, spare_pct),
	  .min = 1, .max = FTLSIM_MAX_SPARE_PCT, .align = 1,
	  .invalid = "Invalid spare_pct",
	  .range = "spare_pct must be 1 to 100",
	  .wrong_ftl = "spare_pct needs a page-mapped preset" },
	TIME_KEY("write_base_us", write_base_ns,
		 "Invalid write_base_us", "write_base_us must be at most 1000000"),
	TIME_KEY("write_us", write_ns,
		 "Invalid write_us", "write_us must be at most 1000000"),
	TIME_KEY("copy_us", copy_ns,
		 "Invalid copy_us", "copy_us must be at most 1000000"),
	TIME_KEY("erase_us", erase_ns,
		 "Invalid erase_us", "erase_us must be at most 1000000"),
	TIME_KEY("read_base_us", read_base_ns,
		 "Invalid read_base_us", "read_base_us must be at most 1000000"),
	TIME_KEY("read_us", read_ns,
		 "Invalid read_us", "read_us must be at most 1000000"),
	TIME_KEY("flush_us", flush_ns,
		 "Invalid flush_us", "flush_us must be at most 1000000"),
	{ .name = "discard", .kind = FTLSIM_KEY_DISCARD, .ftls = FTLS_ANY,
	  .invalid = "Invalid discard mode" },
};

unsigned int ftlsim_param_count(void)
{
	return ARRAY_SIZE(ftlsim_keys);
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_param_count);

const char *ftlsim_param_name(unsigned int i)
{
	return i < ARRAY_SIZE(ftlsim_keys) ? ftlsim_keys[i].name : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_param_name);

/*
 * A decimal number with up to @decimals digits after a point, scaled by
 * 10^@decimals: "36.5" with 3 decimals is 36500.  No sign, no spaces, no
 * base prefix.  -EINVAL when it is not such a number, -ERANGE when it is
 * above @max (after scaling).
 */
static int ftlsim_parse_fixed(const char *s, unsigned int decimals, u64 max,
			      u64 *out)
{
	unsigned int frac = 0;
	bool big = false;
	u64 v = 0;

	if (!s || !isdigit(*s))
		return -EINVAL;
	for (; isdigit(*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > max) {	/* keep scanning for syntax errors */
			big = true;
			v = max + 1;
		}
	}
	if (*s == '.') {
		s++;
		if (!isdigit(*s))
			return -EINVAL;
		for (; isdigit(*s); s++, frac++) {
			if (frac >= decimals)
				return -EINVAL;
			v = v * 10 + (*s - '0');
		}
	}
	if (*s)
		return -EINVAL;
	for (; frac < decimals; frac++)
		v *= 10;
	/* v <= (max + 1) * 10^decimals: no overflow for our small maxima. */
	if (big || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static u32 *ftlsim_key_field(struct ftlsim_params *p, const struct ftlsim_key *k)
{
	return (u32 *)((char *)p + k->offset);
}

static u32 ftlsim_key_value(const struct ftlsim_params *p,
			    const struct ftlsim_key *k)
{
	return *(const u32 *)((const char *)p + k->offset);
}

int ftlsim_param_set(struct ftlsim_params *p, const char *key,
		     const char *value, const char **error)
{
	const struct ftlsim_key *k = NULL;
	unsigned int i;
	u64 v;
	int r;

	for (i = 0; i < ARRAY_SIZE(ftlsim_keys); i++) {
		if (!strcasecmp(key, ftlsim_keys[i].name)) {
			k = &ftlsim_keys[i];
			break;
		}
	}
	if (!k) {
		*error = "Unknown optional argument";
		return -ENOENT;
	}
	if (!(k->ftls & BIT(p->ftl))) {
		*error = k->wrong_ftl;
		return -EINVAL;
	}

	switch (k->kind) {
	case FTLSIM_KEY_UINT:
		r = ftlsim_parse_fixed(value, 0, k->max, &v);
		if (r == -EINVAL) {
			*error = k->invalid;
			return r;
		}
		/* v <= k->max, a u32: no u64 '%' for a 32-bit kernel */
		if (r || v < k->min || (u32)v % k->align) {
			*error = k->range;
			return -EINVAL;
		}
		*ftlsim_key_field(p, k) = v;
		break;
	case FTLSIM_KEY_US:
		r = ftlsim_parse_fixed(value, 3, (u64)FTLSIM_MAX_TIME_US * 1000, &v);
		if (r) {
			*error = r == -EINVAL ? k->invalid : k->range;
			return -EINVAL;
		}
		*ftlsim_key_field(p, k) = v;
		break;
	case FTLSIM_KEY_DISCARD:
		if (value && !strcasecmp(value, "invalidate")) {
			p->discard_invalidate = true;
		} else if (value && !strcasecmp(value, "noop")) {
			p->discard_invalidate = false;
		} else {
			*error = k->invalid;
			return -EINVAL;
		}
		break;
	}
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_param_set);

bool ftlsim_param_format(const struct ftlsim_params *p, unsigned int i,
			 char *buf, size_t len)
{
	const struct ftlsim_key *k;
	u32 v, frac;

	if (i >= ARRAY_SIZE(ftlsim_keys))
		return false;
	k = &ftlsim_keys[i];
	if (!(k->ftls & BIT(p->ftl)))
		return false;
	if (k->kind == FTLSIM_KEY_DISCARD) {
		snprintf(buf, len, "%s", p->discard_invalidate ? "invalidate" : "noop");
		return true;
	}
	v = ftlsim_key_value(p, k);
	if (k->kind == FTLSIM_KEY_UINT) {
		snprintf(buf, len, "%u", v);
		return true;
	}
	/* Microseconds with the fewest decimals that say it exactly. */
	frac = v % 1000;
	if (!frac)
		snprintf(buf, len, "%u", v / 1000);
	else if (!(frac % 100))
		snprintf(buf, len, "%u.%u", v / 1000, frac / 100);
	else if (!(frac % 10))
		snprintf(buf, len, "%u.%02u", v / 1000, frac / 10);
	else
		snprintf(buf, len, "%u.%03u", v / 1000, frac);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_param_format);

/* Physical erase blocks of a page-mapped FTL: logical ones plus the spare. */
static u64 ftlsim_pmap_blocks(const struct ftlsim_params *p, u64 nr_pages)
{
	u32 ppb = p->unit_kib / 4;
	u64 lblocks = DIV_ROUND_UP_ULL(nr_pages, ppb);

	return lblocks + max_t(u64, FTLSIM_PMAP_MIN_SPARE,
			       DIV_ROUND_UP_ULL(lblocks * p->spare_pct, 100));
}

const char *ftlsim_params_check(const struct ftlsim_params *p, u64 nr_sectors)
{
	u64 nr_pages = DIV_ROUND_UP_ULL(nr_sectors, FTLSIM_PAGE_SECTORS);

	if (!nr_pages)
		return "Zero-length device";
	if (p->ftl == FTLSIM_FTL_PAGE_MAP &&
	    ftlsim_pmap_blocks(p, nr_pages) * (p->unit_kib / 4) >= FTLSIM_NONE)
		return "Device too large for the page-mapped model";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_params_check);

/* ---- model state ---- */

int ftlsim_model_init(struct ftlsim_model *m, const struct ftlsim_params *p,
		      u64 nr_sectors)
{
	memset(m, 0, sizeof(*m));
	m->p = *p;
	m->nr_pages = DIV_ROUND_UP_ULL(nr_sectors, FTLSIM_PAGE_SECTORS);
	m->ppb = p->unit_kib / 4;

	if (p->ftl == FTLSIM_FTL_LOG_BLOCK) {
		m->logs = kvcalloc(p->open_logs, sizeof(*m->logs), GFP_KERNEL);
		if (!m->logs)
			return -ENOMEM;
	} else {
		u32 nb = ftlsim_pmap_blocks(p, m->nr_pages);

		m->nr_blocks = nb;
		m->l2p = kvcalloc(m->nr_pages, sizeof(u32), GFP_KERNEL);
		m->p2l = kvcalloc((size_t)nb * m->ppb, sizeof(u32), GFP_KERNEL);
		m->valid = kvcalloc(nb, sizeof(u32), GFP_KERNEL);
		m->prev = kvcalloc(nb, sizeof(u32), GFP_KERNEL);
		m->next = kvcalloc(nb, sizeof(u32), GFP_KERNEL);
		m->free = kvcalloc(nb, sizeof(u32), GFP_KERNEL);
		m->bucket = kvcalloc(m->ppb + 1, sizeof(u32), GFP_KERNEL);
		if (!m->l2p || !m->p2l || !m->valid || !m->prev || !m->next ||
		    !m->free || !m->bucket) {
			ftlsim_model_exit(m);
			return -ENOMEM;
		}
	}
	ftlsim_model_reset_state(m);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_model_init);

void ftlsim_model_exit(struct ftlsim_model *m)
{
	kvfree(m->logs);
	kvfree(m->l2p);
	kvfree(m->p2l);
	kvfree(m->valid);
	kvfree(m->prev);
	kvfree(m->next);
	kvfree(m->free);
	kvfree(m->bucket);
	memset(m, 0, sizeof(*m));
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_model_exit);

void ftlsim_model_reset_state(struct ftlsim_model *m)
{
	u32 i;

	if (m->p.ftl == FTLSIM_FTL_LOG_BLOCK) {
		m->nr_open = 0;
		m->lru_clock = 0;
		return;
	}
	/* All pages unmapped, all blocks erased; block 0 is written first. */
	memset(m->l2p, 0xff, m->nr_pages * sizeof(u32));
	memset(m->p2l, 0xff, (size_t)m->nr_blocks * m->ppb * sizeof(u32));
	memset(m->valid, 0, m->nr_blocks * sizeof(u32));
	memset(m->prev, 0xff, m->nr_blocks * sizeof(u32));
	memset(m->next, 0xff, m->nr_blocks * sizeof(u32));
	memset(m->bucket, 0xff, (m->ppb + 1) * sizeof(u32));
	for (i = 0; i < m->nr_blocks; i++)
		m->free[i] = m->nr_blocks - 1 - i;
	m->nr_free = m->nr_blocks;
	m->frontier[FTLSIM_HOST] = m->free[--m->nr_free];
	m->frontier[FTLSIM_GC] = m->free[--m->nr_free];
	m->wp[FTLSIM_HOST] = 0;
	m->wp[FTLSIM_GC] = 0;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_model_reset_state);

void ftlsim_model_reset_stats(struct ftlsim_model *m)
{
	memset(&m->stats, 0, sizeof(m->stats));
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_model_reset_stats);

/* ---- hybrid log-block FTL ---- */

static int hlb_find(struct ftlsim_model *m, u64 lbn)
{
	u32 i;

	for (i = 0; i < m->nr_open; i++)
		if (m->logs[i].lbn == lbn)
			return i;
	return -1;
}

/* The least recently used open log; there is at least one. */
static u32 hlb_lru(struct ftlsim_model *m)
{
	u32 i, lru = 0;

	for (i = 1; i < m->nr_open; i++)
		if (m->logs[i].stamp < m->logs[lru].stamp)
			lru = i;
	return lru;
}

/* Merge log @i into its data block and close it; returns the cost. */
static u64 hlb_merge(struct ftlsim_model *m, u32 i)
{
	struct ftlsim_log *lg = &m->logs[i];
	struct ftlsim_stats *s = &m->stats;
	u32 P = m->ppb, used = lg->used;
	u64 cost;

	if (!used) {
		cost = 0;
	} else if (lg->in_order && used == P) {
		s->switch_merges++;
		s->erases++;
		cost = m->p.erase_ns;
	} else if (lg->in_order) {
		s->partial_merges++;
		s->copied_pages += P - used;
		s->erases++;
		cost = (u64)(P - used) * m->p.copy_ns + m->p.erase_ns;
	} else {
		s->full_merges++;
		s->copied_pages += P;
		s->erases += 2;
		cost = (u64)P * m->p.copy_ns + 2ULL * m->p.erase_ns;
	}
	/* Close: the last open log takes its slot. */
	m->logs[i] = m->logs[--m->nr_open];
	return cost;
}

/* Open a log for @lbn; a slot must be free. */
static u32 hlb_open(struct ftlsim_model *m, u64 lbn)
{
	u32 i = m->nr_open++;

	m->logs[i].lbn = lbn;
	m->logs[i].stamp = ++m->lru_clock;
	m->logs[i].used = 0;
	m->logs[i].in_order = true;
	return i;
}

static u64 hlb_write(struct ftlsim_model *m, u64 page, u64 npages)
{
	u32 P = m->ppb;
	u64 cost = 0;

	while (npages) {
		u32 off, n;
		u64 lbn = div_u64_rem(page, P, &off);
		int i;

		n = min_t(u64, npages, P - off);
		i = hlb_find(m, lbn);
		if (i < 0) {
			if (m->nr_open >= m->p.open_logs)
				cost += hlb_merge(m, hlb_lru(m));
			i = hlb_open(m, lbn);
		} else {
			m->logs[i].stamp = ++m->lru_clock;
		}
		/* In order only while each piece continues at its own slot. */
		if (m->logs[i].used != off)
			m->logs[i].in_order = false;

		while (n) {
			u32 k = min(n, P - m->logs[i].used);

			cost += (u64)k * m->p.write_ns;
			m->stats.host_pages += k;
			m->logs[i].used += k;
			n -= k;
			npages -= k;
			page += k;
			if (m->logs[i].used == P) {
				/* A full log is merged at once. */
				cost += hlb_merge(m, i);
				if (n) {
					/* The rest starts a new log, out of order. */
					i = hlb_open(m, lbn);
					m->logs[i].in_order = false;
				}
			}
		}
	}
	return cost;
}

/* Close, without merging, the logs of logical blocks inside the range. */
static void hlb_discard(struct ftlsim_model *m, u64 sector, u64 nr_sectors)
{
	u64 unit = (u64)m->ppb * FTLSIM_PAGE_SECTORS;
	u64 first = DIV_ROUND_UP_ULL(sector, unit);
	u64 end = div64_u64(sector + nr_sectors, unit);
	u32 i = 0;

	while (i < m->nr_open) {
		if (m->logs[i].lbn >= first && m->logs[i].lbn < end)
			m->logs[i] = m->logs[--m->nr_open];
		else
			i++;
	}
}

/* ---- page-mapped FTL ---- */

static void pm_bucket_insert(struct ftlsim_model *m, u32 b)
{
	u32 head = m->bucket[m->valid[b]];

	m->prev[b] = FTLSIM_NONE;
	m->next[b] = head;
	if (head != FTLSIM_NONE)
		m->prev[head] = b;
	m->bucket[m->valid[b]] = b;
}

/* Call before changing valid[b]: it names the list @b is on. */
static void pm_bucket_remove(struct ftlsim_model *m, u32 b)
{
	u32 p = m->prev[b], n = m->next[b];

	if (p == FTLSIM_NONE)
		m->bucket[m->valid[b]] = n;
	else
		m->next[p] = n;
	if (n != FTLSIM_NONE)
		m->prev[n] = p;
}

/* A block without valid pages is erased (in the background) and freed. */
static void pm_free_block(struct ftlsim_model *m, u32 b)
{
	m->stats.erases++;
	m->free[m->nr_free++] = b;
}

static bool pm_is_frontier(struct ftlsim_model *m, u32 b)
{
	return b == m->frontier[FTLSIM_HOST] || b == m->frontier[FTLSIM_GC];
}

static void pm_invalidate(struct ftlsim_model *m, u64 lpn)
{
	u32 ppn = m->l2p[lpn], b;

	if (ppn == FTLSIM_NONE)
		return;
	m->l2p[lpn] = FTLSIM_NONE;
	m->p2l[ppn] = FTLSIM_NONE;
	b = ppn / m->ppb;
	if (pm_is_frontier(m, b)) {
		m->valid[b]--;
		return;
	}
	pm_bucket_remove(m, b);
	if (--m->valid[b])
		pm_bucket_insert(m, b);
	else
		pm_free_block(m, b);
}

/*
 * Close frontier @f (it is full) and take an erased block for it.  False
 * when there is none, which the reserve of pm_write() rules out.
 */
static bool pm_next_frontier(struct ftlsim_model *m, int f)
{
	u32 old = m->frontier[f];

	if (!m->nr_free)
		return false;
	m->frontier[f] = m->free[--m->nr_free];
	m->wp[f] = 0;
	if (m->valid[old])
		pm_bucket_insert(m, old);
	else
		pm_free_block(m, old);
	return true;
}

/* Write @lpn at frontier @f's write pointer; the frontier has room. */
static void pm_place(struct ftlsim_model *m, int f, u64 lpn)
{
	u32 ppn = m->frontier[f] * m->ppb + m->wp[f]++;

	m->p2l[ppn] = lpn;
	m->l2p[lpn] = ppn;
	m->valid[m->frontier[f]]++;
}

/*
 * Greedy collection of one block: copy the valid pages of the closed block
 * with the fewest of them to the GC frontier, erase it.  Adds the cost to
 * *@cost; false when no block can be collected (see the invariant above).
 */
static bool pm_gc(struct ftlsim_model *m, u64 *cost)
{
	u32 v, i, victim;

	for (v = 1; v < m->ppb; v++)
		if (m->bucket[v] != FTLSIM_NONE)
			break;
	if (v >= m->ppb)
		return false;
	victim = m->bucket[v];
	pm_bucket_remove(m, victim);
	for (i = 0; i < m->ppb; i++) {
		u32 ppn = victim * m->ppb + i;
		u32 lpn = m->p2l[ppn];

		if (lpn == FTLSIM_NONE)
			continue;
		if (m->wp[FTLSIM_GC] == m->ppb &&
		    !pm_next_frontier(m, FTLSIM_GC))
			break;	/* cannot happen: the reserve is kept for this */
		m->p2l[ppn] = FTLSIM_NONE;
		pm_place(m, FTLSIM_GC, lpn);
		m->stats.copied_pages++;
		*cost += m->p.copy_ns;
	}
	m->valid[victim] = 0;
	m->stats.gc_runs++;
	pm_free_block(m, victim);
	*cost += m->p.erase_ns;
	return true;
}

static u64 pm_write(struct ftlsim_model *m, u64 page, u64 npages)
{
	u64 cost = 0, lpn;

	for (lpn = page; lpn < page + npages; lpn++) {
		pm_invalidate(m, lpn);
		if (m->wp[FTLSIM_HOST] == m->ppb) {
			if (!pm_next_frontier(m, FTLSIM_HOST))
				continue;	/* cannot happen */
			/*
			 * Keep FTLSIM_PMAP_RESERVE erased blocks: the next host
			 * frontier and one for the GC frontier to fill while
			 * collecting.
			 */
			while (m->nr_free < FTLSIM_PMAP_RESERVE && pm_gc(m, &cost))
				;
		}
		pm_place(m, FTLSIM_HOST, lpn);
		cost += m->p.write_ns;
		m->stats.host_pages++;
	}
	return cost;
}

static void pm_discard(struct ftlsim_model *m, u64 sector, u64 nr_sectors)
{
	u64 first = DIV_ROUND_UP_ULL(sector, FTLSIM_PAGE_SECTORS);
	u64 end = min((sector + nr_sectors) >> FTLSIM_PAGE_SHIFT, m->nr_pages);
	u64 lpn;

	for (lpn = first; lpn < end; lpn++)
		pm_invalidate(m, lpn);
}

/* ---- requests ---- */

u64 ftlsim_model_submit(struct ftlsim_model *m, enum ftlsim_op op, u64 sector,
			u64 nr_sectors, unsigned int flags, u64 arrival)
{
	const struct ftlsim_params *p = &m->p;
	struct ftlsim_stats *s = &m->stats;
	u64 first = sector >> FTLSIM_PAGE_SHIFT, npages = 0, cost = 0, start;

	/* The pages the range touches, clipped to the device. */
	if (nr_sectors && first < m->nr_pages) {
		u64 last = (sector + nr_sectors - 1) >> FTLSIM_PAGE_SHIFT;

		npages = min(last, m->nr_pages - 1) - first + 1;
	}

	switch (op) {
	case FTLSIM_OP_READ:
		s->reads++;
		s->read_bytes += nr_sectors << 9;
		cost = p->read_base_ns + npages * p->read_ns;
		break;
	case FTLSIM_OP_WRITE:
		s->writes++;
		s->write_bytes += nr_sectors << 9;
		cost = p->write_base_ns;
		if (p->ftl == FTLSIM_FTL_LOG_BLOCK)
			cost += hlb_write(m, first, npages);
		else
			cost += pm_write(m, first, npages);
		break;
	case FTLSIM_OP_DISCARD:
		s->discards++;
		s->discard_bytes += nr_sectors << 9;
		if (!p->discard_invalidate)
			break;
		if (p->ftl == FTLSIM_FTL_LOG_BLOCK)
			hlb_discard(m, sector, nr_sectors);
		else
			pm_discard(m, sector, nr_sectors);
		break;
	case FTLSIM_OP_FLUSH:
		flags |= FTLSIM_REQ_FLUSH;
		break;
	default:
		break;
	}
	if (flags & FTLSIM_REQ_FLUSH) {
		s->flushes++;
		cost += p->flush_ns;
	}

	/* One command at a time. */
	start = max(arrival, m->device_free);
	s->wait_ns += start - arrival;
	s->busy_ns += cost;
	m->device_free = start + cost;
	return m->device_free;
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_model_submit);

u64 ftlsim_wa_milli(const struct ftlsim_stats *s)
{
	u64 host = s->host_pages;

	if (!host)
		return 0;
	return div64_u64((host + s->copied_pages) * 1000 + host / 2, host);
}
EXPORT_SYMBOL_IF_KUNIT(ftlsim_wa_milli);
