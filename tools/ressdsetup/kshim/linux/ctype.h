/* SPDX-License-Identifier: GPL-2.0-only */
/* kshim (see types.h): <linux/ctype.h>, as the kernel has it: any char. */
#ifndef RESSD_KSHIM_CTYPE_H
#define RESSD_KSHIM_CTYPE_H

#define isdigit(c)	((unsigned int)((c) - '0') < 10)

#endif
