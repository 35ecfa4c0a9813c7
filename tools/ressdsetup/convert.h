/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ressdsetup convert and decommission (convert.c): an ext2/3/4 partition
 * made into a dm-ressd device in place, and back.
 */
#ifndef RESSD_CONVERT_H
#define RESSD_CONVERT_H

#include <stdbool.h>

#include "dev.h"
#include "label.h"

/* How convert and decommission go (the @how of the calls below). */
#define RESSD_CONV_BATCH	0x1	/* no questions (--batch) */
/*
 * Where e2fsck -f -p stops (exit 4) on a file system marked as having
 * errors before it ran, as an interrupted resize2fs leaves one, repair it
 * with e2fsck -f -y without asking (--repair); without it the command asks,
 * or with RESSD_CONV_BATCH refuses.
 */
#define RESSD_CONV_REPAIR	0x2

/*
 * Convert the file system on @path (refused when it is in use) into the
 * layout of label.h's RESSD_LABEL_HEAD with a log of at least @reserved
 * bytes, the tunables and flags of @tmpl; or finish a conversion that was
 * interrupted.  Asks first unless @how has RESSD_CONV_BATCH.  Returns an
 * EXIT_* code.
 */
int convert_device(const char *path, const struct ressd_label *tmpl, u64 reserved,
		   unsigned int how);
/*
 * Has the log of @l on @d ever been opened (its superblocks not zero, as
 * format and convert leave them)?  Into @opened; returns an EXIT_* code.
 */
int log_ever_opened(const struct rdev *d, const struct ressd_label *l, bool *opened);
/*
 * Read the two superblock copies of the log of @l on @d (2 x 4 KiB) into
 * @sbs; returns an EXIT_* code.
 */
int log_superblocks(const struct rdev *d, const struct ressd_label *l, u8 *sbs);
/* Were the log superblocks @sbs (2 x 4 KiB) ever written (not all zero)? */
bool log_sbs_opened(const u8 *sbs);
/*
 * Put the file system of the converted device @path (label @l, its log
 * drained: the normal area holds all the data) back where it was, over the
 * whole partition, @how as for convert_device().  @sbs: the log's
 * superblocks as read when the log was found empty (zero: never opened);
 * refused if they changed by the time @path is held exclusively (opened
 * meanwhile).  Returns an EXIT_* code.
 */
int decommission_device(const char *path, const struct ressd_label *l, unsigned int how,
			const u8 *sbs);
/*
 * @path has no valid label: finish a conversion or decommission that was
 * interrupted after the first 1 MiB began to change, from the intent
 * block (putting the file system back), @how as for convert_device().
 * Returns an EXIT_* code.
 */
int decommission_resume(const char *path, unsigned int how);

#endif
