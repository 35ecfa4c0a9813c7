// SPDX-License-Identifier: GPL-2.0-only
/*
 * Moving logged blocks back to their home locations.
 *
 * This file will own the mover kthread: woken when the log passes the high
 * watermark, it takes the oldest log region, writes its still-valid blocks
 * home in ascending LBA order in mover_batch bios, flushes the origin and
 * only then commits the freed region.
 *
 * Nothing is redirected to the log yet, so there is nothing to move: this
 * file holds no code so far.
 */
#include "dm-ressd.h"
