/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RESSD_CRC32C_H
#define RESSD_CRC32C_H

#include "ressd-types.h"
#include "../lib/crc32c.h"

/* The kernel's crc32c(crc, p, len), from the one user-space crc32c. */
static inline u32 crc32c(u32 crc, const void *p, size_t len)
{
	return ressd_crc32c(crc, p, len);
}

/* dm-ressd's seeds and checksums (dm-ressd-format.c: ressd_csum, ressd_block_csum). */
static inline u32 ressd_seed(u64 nonce)
{
	return (u32)nonce ^ (u32)(nonce >> 32);
}

/* crc32c of @len bytes seeded with the volume's @nonce: a data block's. */
static inline u32 ressd_csum(u64 nonce, const void *p, size_t len)
{
	return crc32c(ressd_seed(nonce), p, len);
}

/* A 4 KiB metadata block's: bytes 8..11 (its csum field) taken as zero. */
u32 ressd_block_csum(const void *blk, u64 nonce);

#endif
