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

/*
 * Convert the file system on @path (refused when it is in use) into the
 * layout of label.h's RESSD_LABEL_HEAD with a log of at least @reserved
 * bytes, the tunables and flags of @tmpl; or finish a conversion that was
 * interrupted.  Asks first unless @batch.  Returns an EXIT_* code.
 */
int convert_device(const char *path, const struct ressd_label *tmpl, u64 reserved, bool batch);
/*
 * Has the log of @l on @d ever been opened (its superblocks not zero, as
 * format and convert leave them)?  Into @opened; returns an EXIT_* code.
 */
int log_ever_opened(const struct rdev *d, const struct ressd_label *l, bool *opened);
/*
 * Put the file system of the converted device @path (label @l, its log
 * drained: the normal area holds all the data) back where it was, over the
 * whole partition.  A file system that e2fsck -p leaves with problems is
 * repaired with e2fsck -y when it carries the error flag an interrupted
 * resize2fs leaves (asked first unless @batch).  Returns an EXIT_* code.
 */
int decommission_device(const char *path, const struct ressd_label *l, bool batch);
/*
 * @path has no valid label: finish a conversion or decommission that was
 * interrupted after the first 1 MiB began to change, from the intent
 * block (putting the file system back); asks first unless @batch.
 * Returns an EXIT_* code.
 */
int decommission_resume(const char *path, bool batch);

#endif
