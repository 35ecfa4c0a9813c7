// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "status.h"
#include "util.h"

#define MAX_TOKENS	64
#define BAR_WIDTH	40

static const char *const field_name[] = {
	"used/total", "mapped_blocks", "index_bytes", "redirected_writes",
	"direct_writes", "split_reads", "moved_blocks", "mover_writes",
	"metadata_commits", "mode", "full_writes", "mover_yields",
	"user_write_bytes", "dev_write_bytes", "fill_read_bytes", "units_sparse",
	"units_prefix", "units_whole", "copy_forwards", "far_moves", "far_dropped",
	"passed_writes", "log_pass", "alpha_permille", "inline_log_writes",
	"submitter_log_writes", "density_d", "worker_log_writes",
};

/* Split @line (copied into @buf) at white space. */
static int tokenize(const char *line, char *buf, size_t buflen, char **tok)
{
	int n = 0;
	char *p, *save = NULL;

	snprintf(buf, buflen, "%s", line);
	for (p = strtok_r(buf, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == MAX_TOKENS)
			return -1;
		tok[n++] = p;
	}
	return n;
}

/* Skip "<start> <len> ressd"; -1 when the line is another target's. */
static int skip_range(char **tok, int n, bool *has_range, u64 *start, u64 *len,
		      char *err, size_t errlen)
{
	*has_range = false;
	if (n >= 3 && !parse_u64(tok[0], start) && !parse_u64(tok[1], len) &&
	    !strchr(tok[2], '/')) {
		if (strcmp(tok[2], "ressd")) {
			snprintf(err, errlen, "not a ressd target (target type %s)", tok[2]);
			return -1;
		}
		*has_range = true;
		return 3;
	}
	return 0;
}

int status_parse(const char *line, struct ressd_status *st, char *err, size_t errlen)
{
	char buf[4096], *tok[MAX_TOKENS], *slash;
	u64 *num[] = {
		NULL, &st->mapped, &st->index_bytes, &st->redirected, &st->direct,
		&st->split_reads, &st->moved_blocks, &st->mover_writes,
		&st->metadata_commits, NULL, &st->full_writes, &st->mover_yields,
		&st->user_write_bytes, &st->dev_write_bytes, &st->fill_read_bytes,
		&st->units_sparse, &st->units_prefix, &st->units_whole,
		&st->copy_forwards, &st->far_moves, &st->far_dropped,
		&st->passed_writes, &st->log_pass, &st->alpha_permille,
		&st->inline_log_writes, &st->submitter_log_writes, &st->density_d,
		&st->worker_log_writes,
	};
	int n, i, f;

	memset(st, 0, sizeof(*st));
	n = tokenize(line, buf, sizeof(buf), tok);
	if (n < 0) {
		snprintf(err, errlen, "too many fields");
		return -1;
	}
	i = skip_range(tok, n, &st->has_range, &st->start, &st->len, err, errlen);
	if (i < 0)
		return -1;
	if (n - i < 10) {
		snprintf(err, errlen, "%d fields, expected at least 10 (%s ... mode)",
			 n - i, field_name[0]);
		return -1;
	}
	for (f = 0; i < n && f < (int)ARRAY_SIZE(field_name); f++, i++) {
		const char *v = tok[i];

		if (f == 0) {
			slash = strchr(tok[i], '/');
			if (slash)
				*slash = 0;
			if (!slash || parse_u64(tok[i], &st->used) ||
			    parse_u64(slash + 1, &st->total)) {
				if (slash)
					*slash = '/';
				snprintf(err, errlen, "field 1 (%s) is '%s', expected <used>/<total>",
					 field_name[0], tok[i]);
				return -1;
			}
			if (st->used > st->total) {
				snprintf(err, errlen, "field 1 (%s): %" PRIu64 " used of %" PRIu64,
					 field_name[0], st->used, st->total);
				return -1;
			}
		} else if (f == 9) {
			if (strcmp(v, "rw") && strcmp(v, "ro") && strcmp(v, "fail")) {
				snprintf(err, errlen, "field 10 (mode) is '%s', expected rw, ro or fail", v);
				return -1;
			}
			snprintf(st->mode, sizeof(st->mode), "%s", v);
		} else if (parse_u64(v, num[f])) {
			snprintf(err, errlen, "field %d (%s) is '%s', not a number", f + 1,
				 field_name[f], v);
			return -1;
		}
	}
	st->has_full_writes = f > 10;
	st->has_mover_yields = f > 11;
	st->has_write_bytes = f > 13;
	st->has_units = f > 17;
	st->has_density = f > 20;
	st->has_log_mode = f > 23;
	st->has_inline = f > 24;
	st->has_submitter = f > 25;
	st->has_density_d = f > 26;
	st->has_worker = f > 27;
	st->unknown_fields = (unsigned int)(n - i);
	return 0;
}

int table_parse(const char *line, struct ressd_table *t, char *err, size_t errlen)
{
	static const char *const key[] = {
		"small_write_max", "high_watermark", "low_watermark", "mover_batch"
	};
	u32 *val[] = { &t->t.small_write_max, &t->t.high_watermark,
		       &t->t.low_watermark, &t->t.mover_batch };
	char buf[4096], *tok[MAX_TOKENS];
	u32 nopt, k;
	int n, i;

	memset(t, 0, sizeof(*t));
	tun_defaults(&t->t);
	snprintf(t->log_mode, sizeof(t->log_mode), "always");
	n = tokenize(line, buf, sizeof(buf), tok);
	if (n < 0) {
		snprintf(err, errlen, "too many fields");
		return -1;
	}
	i = skip_range(tok, n, &t->has_range, &t->start, &t->len, err, errlen);
	if (i < 0)
		return -1;
	if (n - i < 5) {
		snprintf(err, errlen, "%d table arguments, expected at least 5", n - i);
		return -1;
	}
	snprintf(t->origin, sizeof(t->origin), "%s", tok[i]);
	snprintf(t->log, sizeof(t->log), "%s", tok[i + 2]);
	if (parse_u64(tok[i + 1], &t->origin_offset) || parse_u64(tok[i + 3], &t->log_offset) ||
	    parse_u64(tok[i + 4], &t->log_sectors)) {
		snprintf(err, errlen, "bad offset or size in the table line");
		return -1;
	}
	i += 5;
	if (i == n)
		return 0;
	if (parse_u32(tok[i], &nopt) || nopt % 2 || nopt > (u32)(n - i - 1)) {
		snprintf(err, errlen, "bad number of optional arguments '%s'", tok[i]);
		return -1;
	}
	for (i++; nopt; nopt -= 2, i += 2) {
		if (!strcasecmp(tok[i], "dev_model")) {
			/* The kernel checked it; kept as the word it is. */
			if (strlen(tok[i + 1]) >= sizeof(t->dev_model) || strchr(tok[i + 1], '"')) {
				snprintf(err, errlen, "bad dev_model '%s'", tok[i + 1]);
				return -1;
			}
			snprintf(t->dev_model, sizeof(t->dev_model), "%s", tok[i + 1]);
			continue;
		}
		if (!strcasecmp(tok[i], "log_mode")) {
			if (strcasecmp(tok[i + 1], "always") && strcasecmp(tok[i + 1], "never") &&
			    strcasecmp(tok[i + 1], "auto")) {
				snprintf(err, errlen, "bad log_mode '%s'", tok[i + 1]);
				return -1;
			}
			snprintf(t->log_mode, sizeof(t->log_mode), "%s", tok[i + 1]);
			continue;
		}
		if (!strcasecmp(tok[i], "data_csum")) {
			if (strcmp(tok[i + 1], "0") && strcmp(tok[i + 1], "1")) {
				snprintf(err, errlen, "bad data_csum '%s'", tok[i + 1]);
				return -1;
			}
			t->no_data_csum = !strcmp(tok[i + 1], "0");
			continue;
		}
		if (!strcasecmp(tok[i], "mover_policy")) {
			if (strcasecmp(tok[i + 1], "fifo") && strcasecmp(tok[i + 1], "density")) {
				snprintf(err, errlen, "bad mover_policy '%s'", tok[i + 1]);
				return -1;
			}
			t->density = !strcasecmp(tok[i + 1], "density");
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(key); k++)
			if (!strcasecmp(tok[i], key[k]))
				break;
		if (k == ARRAY_SIZE(key) || parse_u32(tok[i + 1], val[k])) {
			snprintf(err, errlen, "bad optional argument '%s %s'", tok[i], tok[i + 1]);
			return -1;
		}
		t->has_tun[k] = true;
	}
	if (i != n) {
		snprintf(err, errlen, "extra words after the optional arguments");
		return -1;
	}
	return 0;
}

/* Erase units the mover wrote to (with a model that has a unit size). */
static u64 status_units(const struct ressd_status *st)
{
	return st->units_sparse + st->units_prefix + st->units_whole;
}

/*
 * Merges of an erase unit the mover's home writes spared the device, against
 * writing each block home on its own: a merge a unit instead of one a block.
 */
static u64 status_merges_avoided(const struct ressd_status *st)
{
	u64 units = status_units(st);

	return st->moved_blocks > units ? st->moved_blocks - units : 0;
}

static const char *mode_words(const char *mode)
{
	if (!strcmp(mode, "rw"))
		return "normal operation";
	if (!strcmp(mode, "ro"))
		return "read-only: the mover failed or the table is read-only; writes fail";
	return "failed: a log write or read failed; all I/O fails";
}

static void bar(FILE *f, u64 used, u64 total, const struct ressd_table *t)
{
	char b[BAR_WIDTH + 1];
	u64 fill = total ? used * BAR_WIDTH / total : 0;
	int i;

	for (i = 0; i < BAR_WIDTH; i++)
		b[i] = (u64)i < fill ? '#' : '.';
	b[BAR_WIDTH] = 0;
	if (t && t->t.high_watermark >= 1 && t->t.high_watermark < 100)
		b[t->t.high_watermark * BAR_WIDTH / 100] = '|';
	fprintf(f, "[%s]", b);
}

void status_print(FILE *f, const char *name, const struct ressd_status *st,
		  const struct ressd_table *t)
{
	u64 slot_bytes = RESSD_BLOCK_SIZE, writes = st->redirected + st->direct;
	char h1[32], h2[32];

	if (name)
		fprintf(f, "name:             %s\n", name);
	if (st->has_range || (t && t->has_range)) {
		u64 len = st->has_range ? st->len : t->len;

		fprintf(f, "size:             %s (%" PRIu64 " sectors)\n",
			human_bytes(len * SECTOR_SIZE, h1), len);
	}
	if (t) {
		fprintf(f, "normal area:      %s from sector %" PRIu64 "\n", t->origin,
			t->origin_offset);
		fprintf(f, "reserved area:    %s from sector %" PRIu64 ", %s\n", t->log,
			t->log_offset, human_bytes(t->log_sectors * SECTOR_SIZE, h1));
	}
	fprintf(f, "log use:          ");
	bar(f, st->used, st->total, t);
	fprintf(f, " %.1f%%\n", st->total ? 100.0 * (double)st->used / (double)st->total : 0.0);
	fprintf(f, "                  %" PRIu64 " of %" PRIu64 " slots, %s of %s\n",
		st->used, st->total, human_bytes(st->used * slot_bytes, h1),
		human_bytes(st->total * slot_bytes, h2));
	if (t)
		fprintf(f, "                  the mover starts at %u%% ('|') and empties the log down to %u%%\n",
			t->t.high_watermark, t->t.low_watermark);
	fprintf(f, "mapped blocks:    %" PRIu64 " (%s whose newest data is in the log)\n",
		st->mapped, human_bytes(st->mapped * RESSD_BLOCK_SIZE, h1));
	fprintf(f, "index memory:     %s\n", human_bytes(st->index_bytes, h1));
	if (writes)
		fprintf(f, "writes:           %" PRIu64 " redirected to the log (%.1f%%), %" PRIu64
			" direct to the normal area\n", st->redirected,
			100.0 * (double)st->redirected / (double)writes, st->direct);
	else
		fprintf(f, "writes:           none yet\n");
	if (st->has_inline && st->redirected)
		fprintf(f, "                  %" PRIu64 " of those logged went to the log at once (idle log)\n",
			st->inline_log_writes);
	if (st->has_submitter && st->submitter_log_writes)
		fprintf(f, "                  %" PRIu64 " log writes issued by the writers' tasks (end of a plug, a flush)\n",
			st->submitter_log_writes);
	if (st->has_worker && st->worker_log_writes)
		fprintf(f, "                  %" PRIu64 " log writes issued by the worker\n",
			st->worker_log_writes);
	fprintf(f, "split reads:      %" PRIu64 "\n", st->split_reads);
	fprintf(f, "moved home:       %" PRIu64 " blocks in %" PRIu64 " writes\n",
		st->moved_blocks, st->mover_writes);
	fprintf(f, "metadata commits: %" PRIu64 "\n", st->metadata_commits);
	fprintf(f, "mode:             %s (%s)\n", st->mode, mode_words(st->mode));
	if (st->has_full_writes)
		fprintf(f, "full writes:      %" PRIu64 " (small writes sent home because the log was full)\n",
			st->full_writes);
	if (st->has_mover_yields)
		fprintf(f, "mover yields:     %" PRIu64 " (pauses for foreground I/O)\n",
			st->mover_yields);
	if (st->has_write_bytes) {
		fprintf(f, "bytes written:    %s by the users, %s to the devices",
			human_bytes(st->user_write_bytes, h1), human_bytes(st->dev_write_bytes, h2));
		if (st->user_write_bytes)
			fprintf(f, " (write amplification %.2f)",
				(double)st->dev_write_bytes / (double)st->user_write_bytes);
		fprintf(f, "\n");
	}
	if (st->has_units && st->units_sparse + st->units_prefix + st->units_whole) {
		fprintf(f, "erase units:      %" PRIu64 " written whole, %" PRIu64 " up to their last block, %"
			PRIu64 " sparse; %s read home to fill them\n", st->units_whole,
			st->units_prefix, st->units_sparse, human_bytes(st->fill_read_bytes, h1));
		fprintf(f, "home merges:      %" PRIu64 " for %" PRIu64 " blocks moved home (%" PRIu64
			" avoided, against a merge a block)\n", status_units(st), st->moved_blocks,
			status_merges_avoided(st));
	}
	if (t)
		fprintf(f, "tunables:         small_write_max %u, high_watermark %u, low_watermark %u, mover_batch %u\n",
			t->t.small_write_max, t->t.high_watermark, t->t.low_watermark,
			t->t.mover_batch);
	if (st->has_density && st->copy_forwards + st->far_moves)
		fprintf(f, "density cleaning: %" PRIu64 " blocks copied forward, %" PRIu64
			" moved home from beyond the region (%" PRIu64 " of them unmapped at once)\n",
			st->copy_forwards, st->far_moves, st->far_dropped);
	if (st->has_density_d && st->density_d && (!t || t->density))
		fprintf(f, "density threshold: %" PRIu64 " logged blocks (the last round chose the units"
			" with as many for home)\n", st->density_d);
	if (t && t->dev_model[0])
		fprintf(f, "device model:     %s\n", t->dev_model);
	if (t && t->density)
		fprintf(f, "mover policy:     density\n");
	if (t && t->no_data_csum)
		fprintf(f, "data checksums:   none for data written before its trailer (data_csum 0)\n");
	if (st->has_log_mode && (st->passed_writes || (t && strcasecmp(t->log_mode, "always"))))
		fprintf(f, "log mode:         %s%s; %" PRIu64 " small writes passed through, %"
			PRIu64 " per mille of them a log would absorb\n",
			st->log_pass ? "passing small writes through" : "logging small writes",
			t ? (strcasecmp(t->log_mode, "auto") ? " (set)" : " (auto)") : "",
			st->passed_writes, st->alpha_permille);
	if (st->unknown_fields)
		fprintf(f, "(%u more status fields that this ressdsetup does not know)\n",
			st->unknown_fields);
}

/* @v under @key when the kernel reported it (@has), else null. */
static void json_opt_u64(struct json *j, const char *key, bool has, u64 v)
{
	if (has)
		json_u64(j, key, v);
	else
		json_null(j, key);
}

void status_print_json(FILE *f, const char *name, const struct ressd_status *st,
		       const struct ressd_table *t)
{
	u64 writes = st->redirected + st->direct;
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j, NULL);
	json_str(&j, "name", name);
	if (st->has_range) {
		json_u64(&j, "start", st->start);
		json_u64(&j, "length", st->len);
	}
	json_u64(&j, "used_slots", st->used);
	json_u64(&j, "total_slots", st->total);
	json_double(&j, "log_use", st->total ? (double)st->used / (double)st->total : 0.0);
	json_u64(&j, "mapped_blocks", st->mapped);
	json_u64(&j, "index_bytes", st->index_bytes);
	json_u64(&j, "redirected_writes", st->redirected);
	json_u64(&j, "direct_writes", st->direct);
	if (writes)
		json_double(&j, "redirected_share", (double)st->redirected / (double)writes);
	else
		json_null(&j, "redirected_share");
	json_u64(&j, "split_reads", st->split_reads);
	json_u64(&j, "moved_blocks", st->moved_blocks);
	json_u64(&j, "mover_writes", st->mover_writes);
	json_u64(&j, "metadata_commits", st->metadata_commits);
	json_str(&j, "mode", st->mode);
	if (st->has_full_writes)
		json_u64(&j, "full_writes", st->full_writes);
	else
		json_null(&j, "full_writes");
	if (st->has_mover_yields)
		json_u64(&j, "mover_yields", st->mover_yields);
	else
		json_null(&j, "mover_yields");
	if (st->has_write_bytes) {
		json_u64(&j, "user_write_bytes", st->user_write_bytes);
		json_u64(&j, "dev_write_bytes", st->dev_write_bytes);
	} else {
		json_null(&j, "user_write_bytes");
		json_null(&j, "dev_write_bytes");
	}
	json_opt_u64(&j, "fill_read_bytes", st->has_units, st->fill_read_bytes);
	json_opt_u64(&j, "units_sparse", st->has_units, st->units_sparse);
	json_opt_u64(&j, "units_prefix", st->has_units, st->units_prefix);
	json_opt_u64(&j, "units_whole", st->has_units, st->units_whole);
	json_opt_u64(&j, "merges_avoided", st->has_units && status_units(st),
		     status_merges_avoided(st));
	json_opt_u64(&j, "copy_forwards", st->has_density, st->copy_forwards);
	json_opt_u64(&j, "far_moves", st->has_density, st->far_moves);
	json_opt_u64(&j, "far_dropped", st->has_density, st->far_dropped);
	json_opt_u64(&j, "passed_writes", st->has_log_mode, st->passed_writes);
	if (st->has_log_mode)
		json_bool(&j, "log_pass", st->log_pass);
	else
		json_null(&j, "log_pass");
	json_opt_u64(&j, "alpha_permille", st->has_log_mode, st->alpha_permille);
	json_opt_u64(&j, "inline_log_writes", st->has_inline, st->inline_log_writes);
	json_opt_u64(&j, "submitter_log_writes", st->has_submitter, st->submitter_log_writes);
	json_opt_u64(&j, "density_d", st->has_density_d, st->density_d);
	json_opt_u64(&j, "worker_log_writes", st->has_worker, st->worker_log_writes);
	if (st->has_write_bytes && st->user_write_bytes)
		json_double(&j, "write_amplification",
			    (double)st->dev_write_bytes / (double)st->user_write_bytes);
	else
		json_null(&j, "write_amplification");
	if (t) {
		json_obj_begin(&j, "table");
		json_str(&j, "origin", t->origin);
		json_u64(&j, "origin_offset", t->origin_offset);
		json_str(&j, "log", t->log);
		json_u64(&j, "log_offset", t->log_offset);
		json_u64(&j, "log_sectors", t->log_sectors);
		json_u64(&j, "small_write_max", t->t.small_write_max);
		json_u64(&j, "high_watermark", t->t.high_watermark);
		json_u64(&j, "low_watermark", t->t.low_watermark);
		json_u64(&j, "mover_batch", t->t.mover_batch);
		if (t->dev_model[0])
			json_str(&j, "dev_model", t->dev_model);
		else
			json_null(&j, "dev_model");
		json_str(&j, "mover_policy", t->density ? "density" : "fifo");
		json_str(&j, "log_mode", t->log_mode);
		json_u64(&j, "data_csum", !t->no_data_csum);
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_done(&j);
}
