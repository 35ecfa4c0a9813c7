/* SPDX-License-Identifier: GPL-2.0-only */
/* kshim (see types.h): <linux/version.h>, which ../../compat.h includes: empty. */
