/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmsetup status and table lines of a ressd target: parsing and printing in
 * words (Documentation/dm-ressd.rst, "Status").
 */
#ifndef RESSD_STATUS_H
#define RESSD_STATUS_H

#include <stdbool.h>
#include <stdio.h>

#include "label.h"

struct ressd_status {
	bool has_range;		/* the line started with "<start> <len> ressd" */
	u64 start, len;
	u64 used, total;	/* log slots */
	u64 mapped;
	u64 index_bytes;
	u64 redirected, direct, split_reads;
	u64 moved_blocks, mover_writes, metadata_commits;
	char mode[8];		/* rw, ro, fail */
	bool has_full_writes, has_mover_yields;
	u64 full_writes, mover_yields;
	bool has_write_bytes;
	u64 user_write_bytes, dev_write_bytes;
	bool has_units;
	u64 fill_read_bytes, units_sparse, units_prefix, units_whole;
	bool has_density;
	u64 copy_forwards, far_moves, far_dropped;
	bool has_log_mode;
	u64 passed_writes, log_pass, alpha_permille;
	bool has_inline;
	u64 inline_log_writes;
	bool has_submitter;
	u64 submitter_log_writes;
	bool has_density_d;
	u64 density_d;		/* the last density round's threshold */
	bool has_worker;
	u64 worker_log_writes;
	unsigned int unknown_fields;	/* fields after the known ones (newer kernel) */
};

struct ressd_table {
	bool has_range;
	u64 start, len;
	char origin[256], log[256];
	u64 origin_offset, log_offset, log_sectors;
	bool has_tun[4];	/* small_write_max, high_watermark, low_watermark, mover_batch */
	struct ressd_tun t;
	char dev_model[128];	/* the dev_model key's value; "" without one */
	bool density;		/* mover_policy density */
	char log_mode[8];	/* always, never, auto */
	bool no_data_csum;	/* data_csum 0: ordered entries */
};

/*
 * Parse one status line: "<start> <len> ressd <fields>" as dmsetup prints it,
 * or the target's fields alone.  0, or -1 with the reason in @err.
 */
int status_parse(const char *line, struct ressd_status *st, char *err, size_t errlen);
/* Parse one table line the same way. */
int table_parse(const char *line, struct ressd_table *t, char *err, size_t errlen);
/* Print in words (@t may be NULL), or as JSON. */
void status_print(FILE *f, const char *name, const struct ressd_status *st,
		  const struct ressd_table *t);
void status_print_json(FILE *f, const char *name, const struct ressd_status *st,
		       const struct ressd_table *t);

#endif
