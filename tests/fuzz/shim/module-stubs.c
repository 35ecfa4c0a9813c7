// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions of dm-ressd.c and dm-ressd-mover.c that the kernel-only parts of
 * dm-ressd-meta.c call.  Those parts never run in user space: reaching one
 * of these is a harness bug, and aborts.
 */
#include "dm-ressd.h"

void ressd_set_mode(struct ressd_c *rc, enum ressd_mode mode, const char *why)
{
	(void)rc; (void)mode; (void)why;
	shim_unreachable(__func__);
}

int ressd_map_bio(struct ressd_c *rc, struct bio *bio)
{
	(void)rc; (void)bio;
	shim_unreachable(__func__);
}

void ressd_mover_kick(struct ressd_c *rc)
{
	(void)rc;
	shim_unreachable(__func__);
}
