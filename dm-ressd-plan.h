/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device cost model dm-ressd's mover prices its work with
 * (Documentation/mover-pricing.md): the erase unit of a cheap flash device
 * and what its flash translation layer charges for writes, reads and
 * merges.  Pure: no locks, no allocation, no kernel objects, so that the
 * module, KUnit and user-space tools compile dm-ressd-plan.c unchanged.
 *
 * The model is the hybrid log-block FTL of dm-ftlsim (ftlsim.md): a write
 * request costs w_req_ns plus w_page_ns per 4 KiB page; an erase unit of P
 * pages written in order from its first page is a switch merge (erase_ns),
 * one written in order up to page L a partial merge ((P - L) copies and an
 * erase), and any other a full merge (P copies and two erases).  Without a
 * unit size (page-mapped devices, or no model at all) only the request and
 * page costs mean anything.
 */
#ifndef DM_RESSD_PLAN_H
#define DM_RESSD_PLAN_H

#include <linux/types.h>

/* Limits of a dev_model (checked by ressd_devmodel_check()). */
#define RESSD_DM_MIN_UNIT	16		/* sectors: 8 KiB */
#define RESSD_DM_MAX_UNIT	131072		/* sectors: 64 MiB */
#define RESSD_DM_MAX_OPEN	256
#define RESSD_DM_MAX_NS		1000000000	/* no single cost above 1 s */
#define RESSD_DM_FIELDS		11

/**
 * struct ressd_devmodel - what the device charges; all zero: no model
 * @unit_sectors: erase unit (logical block of the FTL) in sectors; 0: none
 * @unit_offset: where a unit starts on the origin device, modulo the unit,
 *	in sectors
 * @open_units: units the FTL keeps open for writes at once; 0: unknown
 * @w_req_ns: fixed cost of a write request
 * @w_page_ns: cost of writing one 4 KiB page
 * @copy_ns: cost of copying one page inside the device (merges)
 * @erase_ns: cost of erasing one unit
 * @r_req_ns: fixed cost of a read request
 * @r_page_ns: cost of reading one 4 KiB page
 * @rw4k_ns: measured 4 KiB random write; 0: derived from the above
 * @ow4k_ns: measured 4 KiB write to a logged page in order; 0: derived
 *
 * The table line and status give the fields in this order, separated by
 * colons (the dev_model key); "none" is the model of all zeros.
 */
struct ressd_devmodel {
	u32 unit_sectors;
	u32 unit_offset;
	u32 open_units;
	u32 w_req_ns;
	u32 w_page_ns;
	u32 copy_ns;
	u32 erase_ns;
	u32 r_req_ns;
	u32 r_page_ns;
	u32 rw4k_ns;
	u32 ow4k_ns;
};

/* Is there a model at all? */
bool ressd_devmodel_set(const struct ressd_devmodel *m);
/* NULL when the values are consistent, else why not (a ti->error). */
const char *ressd_devmodel_check(const struct ressd_devmodel *m);
/* The model's fields as an array, in table order (for parsing and printing). */
void ressd_devmodel_to_array(const struct ressd_devmodel *m, u32 *v);
void ressd_devmodel_from_array(struct ressd_devmodel *m, const u32 *v);

/* Pages (4 KiB) per unit: P; 0 without a unit size. */
u32 ressd_cost_unit_pages(const struct ressd_devmodel *m);
/* One write request of @pages in order: w_req + pages * w_page. */
u64 ressd_cost_write(const struct ressd_devmodel *m, u32 pages);
/* One read request of @pages: r_req + pages * r_page. */
u64 ressd_cost_read(const struct ressd_devmodel *m, u32 pages);
/*
 * Merges of a unit: full (P * copy + 2 * erase), switch (erase) and
 * partial after @used pages in order ((P - used) * copy + erase).
 */
u64 ressd_cost_full_merge(const struct ressd_devmodel *m);
u64 ressd_cost_switch_merge(const struct ressd_devmodel *m);
u64 ressd_cost_partial_merge(const struct ressd_devmodel *m, u32 used);
/* A 4 KiB random write: rw4k, else one page and a full merge. */
u64 ressd_cost_rw4k(const struct ressd_devmodel *m);

#endif /* DM_RESSD_PLAN_H */
