/* SPDX-License-Identifier: GPL-2.0-only */
/* Stand-in for <linux/bitmap.h>: see ../ressd-shim.h. */
#include "../ressd-shim.h"
