/* SPDX-License-Identifier: GPL-2.0-only */
/* kshim (see types.h): <linux/slab.h>, the allocators the model uses. */
#ifndef RESSD_KSHIM_SLAB_H
#define RESSD_KSHIM_SLAB_H

#include <stdlib.h>

#define GFP_KERNEL		0
#define kvcalloc(n, size, gfp)	calloc(n, size)
#define kvfree(p)		free(p)

#endif
