// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>

#include "crc32c.h"
#include "label.h"

void tun_defaults(struct ressd_tun *t)
{
	t->small_write_max = RESSD_DEF_SMALL_WRITE_MAX;
	t->high_watermark = RESSD_DEF_HIGH_WATERMARK;
	t->low_watermark = RESSD_DEF_LOW_WATERMARK;
	t->mover_batch = RESSD_DEF_MOVER_BATCH;
}

const char *tun_check(const struct ressd_tun *t)
{
	if (!t->small_write_max || t->small_write_max % RESSD_SECTORS_PER_BLOCK ||
	    t->small_write_max > RESSD_MAX_MOVER_BATCH - RESSD_SECTORS_PER_BLOCK)
		return "small_write_max must be a multiple of 8 sectors below 4 MiB";
	if (t->high_watermark < 1 || t->high_watermark > 100)
		return "high_watermark must be 1 to 100";
	if (t->low_watermark > 99)
		return "low_watermark must be 0 to 99";
	if (t->mover_batch < RESSD_MIN_MOVER_BATCH || t->mover_batch > RESSD_MAX_MOVER_BATCH ||
	    t->mover_batch % RESSD_SECTORS_PER_BLOCK)
		return "mover_batch must be a multiple of 8 sectors from 16 to 8192";
	if (t->low_watermark >= t->high_watermark)
		return "low_watermark must be below high_watermark";
	if (t->small_write_max + RESSD_SECTORS_PER_BLOCK > t->mover_batch)
		return "small_write_max must be smaller than mover_batch";
	return NULL;
}

void label_encode(void *blk, const struct ressd_label *l)
{
	struct ressd_disk_label *d = blk;
	u32 v[RESSD_DM_FIELDS];
	unsigned int i;

	memset(blk, 0, RESSD_BLOCK_SIZE);
	d->magic = le64_put(RESSD_LABEL_MAGIC);
	d->version = le32_put(RESSD_LABEL_VERSION);
	d->nonce = le64_put(l->nonce);
	memcpy(d->uuid, l->uuid, sizeof(d->uuid));
	d->flags = le32_put((l->flags & ~RESSD_LABEL_DEVMODEL) |
			    (ressd_devmodel_set(&l->dm) ? RESSD_LABEL_DEVMODEL : 0));
	ressd_devmodel_to_array(&l->dm, v);
	for (i = 0; i < RESSD_DM_FIELDS; i++)
		d->dev_model[i] = le32_put(v[i]);
	d->block_size = le32_put(RESSD_BLOCK_SIZE);
	d->created = le64_put(l->created);
	d->device_sectors = le64_put(l->device_sectors);
	d->origin_offset = le64_put(l->origin_offset);
	d->origin_sectors = le64_put(l->origin_sectors);
	d->log_offset = le64_put(l->log_offset);
	d->log_sectors = le64_put(l->log_sectors);
	d->log_device_sectors = le64_put(l->log_device_sectors);
	d->head_offset = le64_put(l->head_offset);
	d->small_write_max = le32_put(l->t.small_write_max);
	d->high_watermark = le32_put(l->t.high_watermark);
	d->low_watermark = le32_put(l->t.low_watermark);
	d->mover_batch = le32_put(l->t.mover_batch);
	if (!label_same_dev(l))
		snprintf(d->log_device, sizeof(d->log_device), "%s", l->log_device);
	d->csum = le32_put(ressd_block_csum(blk, l->nonce));
}

bool label_has_magic(const void *blk)
{
	const struct ressd_disk_label *d = blk;

	return le64_get(d->magic) == RESSD_LABEL_MAGIC;
}

static const char *label_check_geometry(const struct ressd_label *l)
{
	u64 min_log = (u64)RESSD_MIN_LOG_BLOCKS * RESSD_SECTORS_PER_BLOCK;

	if (l->flags & RESSD_LABEL_HEAD) {
		/* converted: [0, 1 MiB) of the normal area at head_offset */
		if (l->origin_offset)
			return "a converted normal area must start at sector 0";
		if (!label_same_dev(l))
			return "a converted device keeps its log on itself";
		if (l->origin_sectors <= RESSD_LABEL_AREA_SECTORS)
			return "converted normal area too small";
		if (l->head_offset % RESSD_LABEL_AREA_SECTORS ||
		    l->head_offset < l->origin_sectors ||
		    l->head_offset + RESSD_LABEL_AREA_SECTORS > l->log_offset)
			return "head copy not between the normal area and the log";
	} else if (l->head_offset || (l->flags & RESSD_LABEL_RESTORING)) {
		return "head offset without the converted flag";
	} else if (l->origin_offset < RESSD_SECTORS_PER_BLOCK ||
		   l->origin_offset % RESSD_SECTORS_PER_BLOCK) {
		return "normal area offset not a multiple of 4 KiB after the label";
	}
	if (!l->origin_sectors || l->origin_sectors % RESSD_SECTORS_PER_BLOCK)
		return "normal area length not a multiple of 4 KiB";
	if ((l->origin_sectors >> 3) - 1 > RESSD_MAX_BLOCK)
		return "normal area too large";
	if (l->log_offset % RESSD_SECTORS_PER_BLOCK || l->log_sectors % RESSD_SECTORS_PER_BLOCK)
		return "log range not in whole 4 KiB blocks";
	if (l->log_sectors < min_log)
		return "log range below the minimum";
	if ((l->log_sectors >> 3) - RESSD_SB_BLOCKS > RESSD_MAX_SLOTS)
		return "log range above the maximum";
	if (l->origin_offset + l->origin_sectors < l->origin_offset ||
	    l->log_offset + l->log_sectors < l->log_offset)
		return "geometry overflows";
	if (label_same_dev(l)) {
		if (l->log_offset < RESSD_SECTORS_PER_BLOCK)
			return "log range overlaps the label";
		if (l->log_offset < l->origin_offset + l->origin_sectors &&
		    l->origin_offset < l->log_offset + l->log_sectors)
			return "log range overlaps the normal area";
	} else if (!l->log_device[0]) {
		return "no log device recorded";
	}
	return NULL;
}

const char *label_decode(const void *blk, struct ressd_label *l)
{
	const struct ressd_disk_label *d = blk;
	u32 v[RESSD_DM_FIELDS];
	const char *why;
	unsigned int i;

	memset(l, 0, sizeof(*l));
	if (!label_has_magic(blk))
		return "no ressd label";
	l->nonce = le64_get(d->nonce);
	if (le32_get(d->csum) != ressd_block_csum(blk, l->nonce))
		return "bad label checksum";
	memcpy(l->uuid, d->uuid, sizeof(l->uuid));
	l->flags = le32_get(d->flags);
	l->created = le64_get(d->created);
	l->device_sectors = le64_get(d->device_sectors);
	l->origin_offset = le64_get(d->origin_offset);
	l->origin_sectors = le64_get(d->origin_sectors);
	l->log_offset = le64_get(d->log_offset);
	l->log_sectors = le64_get(d->log_sectors);
	l->log_device_sectors = le64_get(d->log_device_sectors);
	l->head_offset = le64_get(d->head_offset);
	l->t.small_write_max = le32_get(d->small_write_max);
	l->t.high_watermark = le32_get(d->high_watermark);
	l->t.low_watermark = le32_get(d->low_watermark);
	l->t.mover_batch = le32_get(d->mover_batch);
	memcpy(l->log_device, d->log_device, sizeof(l->log_device));
	if (l->flags & RESSD_LABEL_DEVMODEL) {
		for (i = 0; i < RESSD_DM_FIELDS; i++)
			v[i] = le32_get(d->dev_model[i]);
		ressd_devmodel_from_array(&l->dm, v);
	}
	if (le32_get(d->version) != RESSD_LABEL_VERSION)
		return "unsupported label version";
	if (le32_get(d->block_size) != RESSD_BLOCK_SIZE)
		return "unsupported label block size";
	if (l->flags & ~RESSD_LABEL_FLAGS)
		return "unknown label flags";
	if (!memchr(l->log_device, 0, sizeof(l->log_device)))
		return "log device path not terminated";
	why = label_check_geometry(l);
	if (!why)
		why = ressd_devmodel_check(&l->dm);
	if (!why && (l->flags & RESSD_LABEL_DENSITY) && !l->dm.unit_sectors)
		why = "mover_policy density needs a dev_model with a unit size";
	if (!why && (l->flags & RESSD_LABEL_LOG_AUTO) && !ressd_devmodel_set(&l->dm))
		why = "log_mode auto needs a dev_model";
	if (!why && (l->flags & RESSD_LABEL_LOG_AUTO) && (l->flags & RESSD_LABEL_LOG_NEVER))
		why = "two log modes";
	if (why)
		return why;
	return tun_check(&l->t);
}

void uuid_format(const u8 *u, char *buf)
{
	snprintf(buf, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
		 u[11], u[12], u[13], u[14], u[15]);
}
