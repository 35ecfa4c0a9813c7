/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place where dm-ressd meets differences between kernel
 * versions.  Nothing else in the module tests LINUX_VERSION_CODE.
 *
 * The module is written against the 6.1 block layer (Debian 12) and built
 * for 6.12 as well.  Each difference is tested here by a feature macro of
 * the kernel that has it (never by LINUX_VERSION_CODE), with the change
 * that made it.  User space (tools/ressdsetup compiles ftlsim-model.c) sees
 * only the KUnit export helpers.
 */
#ifndef DM_RESSD_COMPAT_H
#define DM_RESSD_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>

/*
 * <kunit/visibility.h> came with 6.2 and was backported to some 6.1.y
 * releases only; define its two macros the same way where they are missing.
 */
#ifndef EXPORT_SYMBOL_IF_KUNIT
#if IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(symbol) \
	EXPORT_SYMBOL_NS(symbol, EXPORTED_FOR_KUNIT_TESTING)
#else
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif
#endif

#ifndef VISIBLE_IF_KUNIT
#if IS_ENABLED(CONFIG_KUNIT)
#define VISIBLE_IF_KUNIT
#else
#define VISIBLE_IF_KUNIT static
#endif
#endif

#ifdef __KERNEL__
#include <linux/blkdev.h>
#include <linux/device-mapper.h>

/*
 * Is the table read-write?  6.5 ("block: replace fmode_t with a
 * block-specific type for block open flags") made dm_table_get_mode()
 * return a blk_mode_t, whose write flag is BLK_OPEN_WRITE.
 */
static inline bool ressd_table_writable(struct dm_table *t)
{
#ifdef BLK_OPEN_WRITE
	return dm_table_get_mode(t) & BLK_OPEN_WRITE;
#else
	return dm_table_get_mode(t) & FMODE_WRITE;
#endif
}

/*
 * Stable pages while they are written.  6.11 ("block: move the
 * stable_writes flag to queue_limits") made it the queue limit feature
 * BLK_FEAT_STABLE_WRITES, which the target sets in io_hints.  Before, a
 * target asks with ti->needs_stable_writes in its constructor, which the
 * 6.1 series has only from 6.1.191 (Kbuild defines RESSD_TI_STABLE_WRITES
 * when the header has it).  Older kernels give a target no way to ask: the
 * pages are then stable only where a device below asks for it.
 */
#ifdef BLK_FEAT_STABLE_WRITES
static inline void ressd_ti_stable_writes(struct dm_target *ti)
{
}

static inline void ressd_limits_stable_writes(struct queue_limits *limits)
{
	limits->features |= BLK_FEAT_STABLE_WRITES;
}
#else
static inline void ressd_ti_stable_writes(struct dm_target *ti)
{
#ifdef RESSD_TI_STABLE_WRITES
	ti->needs_stable_writes = true;
#endif
}

static inline void ressd_limits_stable_writes(struct queue_limits *limits)
{
}
#endif
#endif /* __KERNEL__ */

#endif /* DM_RESSD_COMPAT_H */
