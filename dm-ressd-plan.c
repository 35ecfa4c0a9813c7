// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device cost model (dm-ressd-plan.h): its checks and the costs it
 * gives.  Pure; compiled unchanged by the module, KUnit and user space.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "compat.h"
#include "dm-ressd-plan.h"

int ressd_devmodel_parse(const char *s, struct ressd_devmodel *m)
{
	u32 v[RESSD_DM_FIELDS];
	unsigned int i, digits;
	u64 x;

	if (!s)
		return -1;
	if (!strcasecmp(s, "none")) {
		memset(m, 0, sizeof(*m));
		return 0;
	}
	for (i = 0; i < RESSD_DM_FIELDS; i++) {
		if (i && *s++ != ':')
			return -1;
		for (x = 0, digits = 0; *s >= '0' && *s <= '9'; s++, digits++) {
			x = x * 10 + (u64)(*s - '0');
			if (digits == 10 || x > U32_MAX)
				return -1;
		}
		if (!digits)
			return -1;
		v[i] = (u32)x;
	}
	if (*s)
		return -1;
	ressd_devmodel_from_array(m, v);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_devmodel_parse);

void ressd_devmodel_format(const struct ressd_devmodel *m, char *buf, size_t len)
{
	u32 v[RESSD_DM_FIELDS];
	unsigned int i;
	size_t n = 0;
	int r;

	if (!len)
		return;
	buf[0] = 0;
	if (!ressd_devmodel_set(m)) {
		snprintf(buf, len, "none");
		return;
	}
	ressd_devmodel_to_array(m, v);
	for (i = 0; i < RESSD_DM_FIELDS && n < len; i++) {
		r = snprintf(buf + n, len - n, "%s%u", i ? ":" : "", v[i]);
		if (r < 0)
			return;
		n += r;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ressd_devmodel_format);

bool ressd_devmodel_set(const struct ressd_devmodel *m)
{
	u32 v[RESSD_DM_FIELDS];
	unsigned int i;

	ressd_devmodel_to_array(m, v);
	for (i = 0; i < RESSD_DM_FIELDS; i++)
		if (v[i])
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_devmodel_set);

const char *ressd_devmodel_check(const struct ressd_devmodel *m)
{
	u32 v[RESSD_DM_FIELDS];
	unsigned int i;

	if (m->unit_sectors &&
	    (m->unit_sectors % 8 || m->unit_sectors < RESSD_DM_MIN_UNIT ||
	     m->unit_sectors > RESSD_DM_MAX_UNIT))
		return "dev_model unit must be 0 or a multiple of 8 sectors from 16 to 131072";
	if (m->unit_offset % 8 || (m->unit_offset && m->unit_offset >= m->unit_sectors))
		return "dev_model unit offset must be a multiple of 8 sectors below the unit";
	if (m->open_units > RESSD_DM_MAX_OPEN)
		return "dev_model open units must be at most 256";
	ressd_devmodel_to_array(m, v);
	for (i = 3; i < RESSD_DM_FIELDS; i++)
		if (v[i] > RESSD_DM_MAX_NS)
			return "dev_model costs must be at most 1000000000 ns";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_devmodel_check);

void ressd_devmodel_to_array(const struct ressd_devmodel *m, u32 *v)
{
	v[0] = m->unit_sectors;
	v[1] = m->unit_offset;
	v[2] = m->open_units;
	v[3] = m->w_req_ns;
	v[4] = m->w_page_ns;
	v[5] = m->copy_ns;
	v[6] = m->erase_ns;
	v[7] = m->r_req_ns;
	v[8] = m->r_page_ns;
	v[9] = m->rw4k_ns;
	v[10] = m->ow4k_ns;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_devmodel_to_array);

void ressd_devmodel_from_array(struct ressd_devmodel *m, const u32 *v)
{
	m->unit_sectors = v[0];
	m->unit_offset = v[1];
	m->open_units = v[2];
	m->w_req_ns = v[3];
	m->w_page_ns = v[4];
	m->copy_ns = v[5];
	m->erase_ns = v[6];
	m->r_req_ns = v[7];
	m->r_page_ns = v[8];
	m->rw4k_ns = v[9];
	m->ow4k_ns = v[10];
}
EXPORT_SYMBOL_IF_KUNIT(ressd_devmodel_from_array);

u32 ressd_cost_unit_pages(const struct ressd_devmodel *m)
{
	return m->unit_sectors / 8;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_cost_unit_pages);

u64 ressd_cost_write(const struct ressd_devmodel *m, u32 pages)
{
	return m->w_req_ns + (u64)pages * m->w_page_ns;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_cost_write);

u64 ressd_cost_read(const struct ressd_devmodel *m, u32 pages)
{
	return m->r_req_ns + (u64)pages * m->r_page_ns;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_cost_read);

u64 ressd_cost_full_merge(const struct ressd_devmodel *m)
{
	if (!m->unit_sectors)
		return 0;
	return (u64)ressd_cost_unit_pages(m) * m->copy_ns + 2ULL * m->erase_ns;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_cost_full_merge);

u64 ressd_cost_switch_merge(const struct ressd_devmodel *m)
{
	return m->unit_sectors ? m->erase_ns : 0;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_cost_switch_merge);

u64 ressd_cost_partial_merge(const struct ressd_devmodel *m, u32 used)
{
	u32 p = ressd_cost_unit_pages(m);

	if (!p || !used)
		return 0;
	if (used >= p)
		return m->erase_ns;
	return (u64)(p - used) * m->copy_ns + m->erase_ns;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_cost_partial_merge);

u64 ressd_cost_rw4k(const struct ressd_devmodel *m)
{
	if (m->rw4k_ns)
		return m->rw4k_ns;
	return ressd_cost_write(m, 1) + ressd_cost_full_merge(m);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_cost_rw4k);

/* Requests a sequential transfer of @pages takes. */
static u32 ressd_reqs(u32 pages)
{
	return (pages + RESSD_REQ_PAGES - 1) / RESSD_REQ_PAGES;
}

/* Read @pages from home, unless the logged blocks cover them all. */
static u64 ressd_fill_read(const struct ressd_devmodel *m, u32 pages, u32 dirty)
{
	if (dirty >= pages)
		return 0;
	return (u64)ressd_reqs(pages) * m->r_req_ns + (u64)pages * m->r_page_ns;
}

static u64 ressd_seq_write(const struct ressd_devmodel *m, u32 pages)
{
	return (u64)ressd_reqs(pages) * m->w_req_ns + (u64)pages * m->w_page_ns;
}

u64 ressd_unit_cost(const struct ressd_devmodel *m, const struct ressd_unit_shape *u,
		    enum ressd_unit_op op)
{
	u32 p = ressd_cost_unit_pages(m), len;
	u64 merge;

	if (!u->dirty)
		return 0;
	switch (op) {
	case RESSD_UNIT_PREFIX:
		len = u->last_off + 1;
		return ressd_fill_read(m, len, u->dirty) + ressd_seq_write(m, len) +
		       ressd_cost_partial_merge(m, len);
	case RESSD_UNIT_WHOLE:
		return ressd_fill_read(m, p, u->dirty) + ressd_seq_write(m, p) +
		       ressd_cost_switch_merge(m);
	default:
		/* Pages 0 to k - 1 in one run are in order: a partial merge. */
		if (u->runs == 1 && !u->first_off)
			merge = ressd_cost_partial_merge(m, u->dirty);
		else
			merge = ressd_cost_full_merge(m);
		return (u64)u->runs * m->w_req_ns + (u64)u->dirty * m->w_page_ns + merge;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ressd_unit_cost);

enum ressd_unit_op ressd_unit_choose(const struct ressd_devmodel *m,
				     const struct ressd_unit_shape *u, u64 *cost_ns)
{
	enum ressd_unit_op best = RESSD_UNIT_SPARSE;
	u64 cost = ressd_unit_cost(m, u, RESSD_UNIT_SPARSE), c;
	u32 p = ressd_cost_unit_pages(m);

	if (p && p <= RESSD_FILL_MAX_PAGES && u->inside && u->dirty) {
		/* A prefix of the whole unit is the whole unit. */
		c = ressd_unit_cost(m, u, RESSD_UNIT_WHOLE);
		if (c < cost) {
			best = RESSD_UNIT_WHOLE;
			cost = c;
		}
		c = ressd_unit_cost(m, u, RESSD_UNIT_PREFIX);
		if (c < cost) {
			best = RESSD_UNIT_PREFIX;
			cost = c;
		}
	}
	if (cost_ns)
		*cost_ns = cost;
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_unit_choose);

u64 ressd_unit_of(const struct ressd_devmodel *m, u64 origin_offset, u64 b, s64 *lo)
{
	u64 s = origin_offset + (b << 3) + m->unit_sectors - m->unit_offset;
	u64 u = div_u64(s, m->unit_sectors);

	/* Whole blocks: origin_offset and unit_offset are multiples of 8. */
	*lo = ((s64)((u - 1) * m->unit_sectors + m->unit_offset) - (s64)origin_offset) / 8;
	return u;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_unit_of);

/*
 * The unit of move @i: where its moves end (*@end), its first block and
 * how to write it.
 */
static enum ressd_unit_op ressd_plan_unit(const struct ressd_devmodel *m,
					  const struct ressd_step_geo *g,
					  const struct ressd_move *mv, u32 n, u32 i,
					  u32 *end, s64 *lo, u32 *len)
{
	struct ressd_unit_shape u = { .runs = 1 };
	u32 p = ressd_cost_unit_pages(m), j;
	enum ressd_unit_op op;

	ressd_unit_of(m, g->origin_offset, mv[i].block, lo);
	/* Sorted moves: the unit's are those below its end. */
	for (j = i + 1; j < n && mv[j].block < (u64)(*lo + p); j++)
		u.runs += mv[j].block != mv[j - 1].block + 1;
	*end = j;
	u.dirty = j - i;
	u.first_off = mv[i].block - *lo;
	u.last_off = mv[j - 1].block - *lo;
	/* Only a unit all of whose blocks are the target's own is filled. */
	u.inside = g->fill_ok && *lo >= 0 && (u64)*lo + p <= g->origin_blocks;
	op = ressd_unit_choose(m, &u, NULL);
	*len = op == RESSD_UNIT_WHOLE ? p : u.last_off + 1;
	return op;
}

void ressd_plan_step(const struct ressd_devmodel *m, const struct ressd_step_geo *g,
		     const struct ressd_move *mv, u32 n, u32 i, struct ressd_step *st)
{
	u32 max = min_t(u32, g->batch, n - i), end = i, next;
	enum ressd_unit_op op;
	s64 lo;
	u32 len;

	memset(st, 0, sizeof(*st));
	st->op = RESSD_UNIT_SPARSE;
	st->n = max;
	if (!m->unit_sectors)
		return;
	ressd_unit_of(m, g->origin_offset, mv[i].block, &lo);
	if (i && (s64)mv[i - 1].block >= lo) {
		/* The rest of a unit begun sparse: up to its end. */
		ressd_plan_unit(m, g, mv, n, i, &next, &lo, &len);
		st->n = min_t(u32, max, next - i);
		return;
	}
	while (end < i + max) {
		op = ressd_plan_unit(m, g, mv, n, end, &next, &lo, &len);
		if (end > i && (op != RESSD_UNIT_SPARSE || next > i + max))
			break;		/* the batch so far first */
		if (op != RESSD_UNIT_SPARSE) {
			st->op = op;
			st->n = next - i;
			st->lo = lo;
			st->len = len;
			return;
		}
		st->sparse_units++;
		end = next;
	}
	st->n = min_t(u32, max, end - i);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_plan_step);

/* Moves copied forward when units of at least @d dirty blocks go home. */
static u32 ressd_density_fwd(const struct ressd_unit_tally *t, u32 nt, u32 d)
{
	u32 i, fwd = 0;

	for (i = 0; i < nt; i++)
		if (t[i].dirty < d)
			fwd += t[i].nr;
	return fwd;
}

u32 ressd_density_decide(struct ressd_unit_tally *t, u32 nt, u32 max_fwd, u32 *d)
{
	u32 i, lo = 0, hi = 0, fwd;

	/* fwd(0) = 0, and every move is copied at one more than the densest. */
	for (i = 0; i < nt; i++)
		hi = max(hi, t[i].dirty);
	hi = hi == U32_MAX ? U32_MAX : hi + 1;
	if (ressd_density_fwd(t, nt, hi) > max_fwd) {
		/* The largest d in [0, hi) within max_fwd. */
		while (hi - lo > 1) {
			u32 mid = lo + (hi - lo) / 2;

			if (ressd_density_fwd(t, nt, mid) <= max_fwd)
				lo = mid;
			else
				hi = mid;
		}
		hi = lo;
	}
	*d = hi;
	fwd = 0;
	for (i = 0; i < nt; i++) {
		t[i].home = t[i].dirty >= hi;
		if (!t[i].home)
			fwd += t[i].nr;
	}
	return fwd;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_density_decide);

u32 ressd_read_run(const struct ressd_slot_ref *ref, u32 n, u32 i, u32 gap, u32 max,
		   u32 *slots)
{
	u32 k = i + 1, span = 1;

	while (k < n && ref[k].slot > ref[k - 1].slot &&
	       ref[k].slot - ref[k - 1].slot - 1 <= gap &&
	       span + (ref[k].slot - ref[k - 1].slot) <= max) {
		span += ref[k].slot - ref[k - 1].slot;
		k++;
	}
	*slots = span;
	return k - i;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_read_run);

/* At most this many slots are read through at once. */
#define RESSD_READ_GAP_MAX	64

u32 ressd_read_gap(const struct ressd_devmodel *m)
{
	u32 g;

	if (!m->r_page_ns)
		return 0;
	g = m->r_req_ns / m->r_page_ns;
	return g < RESSD_READ_GAP_MAX ? g : RESSD_READ_GAP_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_read_gap);

int ressd_ghost_note(struct ressd_ghost *g, u64 block)
{
	u64 h = block * 0xC2B2AE3D27D4EB4FULL;
	u32 i = (u32)((block * 0x9E3779B97F4A7C15ULL) >> 32) % g->size;
	u32 tag = (u32)(h >> 56) | 1;	/* never 0 */
	u32 now = g->clock++ & RESSD_GHOST_WINDOW_MAX, e;
	bool hit;

	if ((h >> 32) & (RESSD_GHOST_SAMPLE - 1))
		return -1;
	e = g->tab[i];
	hit = (e >> 24) == tag &&
	      ((now - (e & RESSD_GHOST_WINDOW_MAX)) & RESSD_GHOST_WINDOW_MAX) < g->window;
	g->tab[i] = tag << 24 | now;
	return hit;
}
EXPORT_SYMBOL_IF_KUNIT(ressd_ghost_note);

bool ressd_log_pass(const struct ressd_devmodel *m, u32 alpha_pm, bool pass)
{
	u64 raw, back, t;

	if (!ressd_devmodel_set(m) || m->unit_sectors)
		return false;
	/* Page-mapped: a random write pays no merge of its own. */
	raw = m->rw4k_ns ? m->rw4k_ns : ressd_cost_write(m, 1);
	back = ressd_cost_read(m, 1) + (m->ow4k_ns ? m->ow4k_ns : ressd_cost_write(m, 1));
	alpha_pm = alpha_pm > 1000 ? 1000 : alpha_pm;
	t = div_u64(ressd_cost_write(m, 16), 16) + div_u64(back * (1000 - alpha_pm), 1000);
	return t * 100 > raw * (pass ? 95 : 105);
}
EXPORT_SYMBOL_IF_KUNIT(ressd_log_pass);
