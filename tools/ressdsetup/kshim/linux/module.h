/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kshim (see types.h): <linux/module.h>, for ../../compat.h: no module, so
 * nothing is exported for KUnit.
 */
#ifndef RESSD_KSHIM_MODULE_H
#define RESSD_KSHIM_MODULE_H

#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#define VISIBLE_IF_KUNIT	static

#endif
