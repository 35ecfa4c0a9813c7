/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place where dm-ressd meets differences between kernel
 * versions.  Nothing else in the module tests LINUX_VERSION_CODE.
 *
 * The module is written against the 6.1 block layer (Debian 12); this file
 * keeps the KUnit export helpers available on kernels that lack them.
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

#endif /* DM_RESSD_COMPAT_H */
