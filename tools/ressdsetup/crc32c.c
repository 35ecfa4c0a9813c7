// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-ressd's metadata block checksum (dm-ressd-format.c: ressd_block_csum),
 * over the one user-space crc32c (tools/lib/crc32c.c).
 */

#include "crc32c.h"

#define CSUM_OFFSET	8

u32 ressd_block_csum(const void *blk, u64 nonce)
{
	const u8 *p = blk;
	u32 zero = 0, crc;

	crc = crc32c(ressd_seed(nonce), p, CSUM_OFFSET);
	crc = crc32c(crc, &zero, sizeof(zero));
	return crc32c(crc, p + CSUM_OFFSET + sizeof(zero),
		      RESSD_BLOCK_SIZE - CSUM_OFFSET - sizeof(zero));
}
