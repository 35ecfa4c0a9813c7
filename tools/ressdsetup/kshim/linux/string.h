/* SPDX-License-Identifier: GPL-2.0-only */
/* kshim (see types.h): <linux/string.h>. */
#include <string.h>
#include <strings.h>	/* strcasecmp */
