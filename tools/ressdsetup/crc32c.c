// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32c, Castagnoli polynomial 0x1EDC6F41 (reflected 0x82F63B78), slicing by
 * 8 bytes, with the kernel's semantics (the approach of tests/fuzz/shim).
 */
#include <string.h>

#include "crc32c.h"

#define CRC32C_POLY_LE	0x82F63B78u

static u32 tab[8][256];
static int ready;

static void crc32c_init(void)
{
	u32 i, t, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY_LE : c >> 1;
		tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (t = 1; t < 8; t++)
			tab[t][i] = (tab[t - 1][i] >> 8) ^ tab[0][tab[t - 1][i] & 0xff];
	ready = 1;
}

u32 crc32c(u32 crc, const void *address, size_t length)
{
	const u8 *p = address;

	if (!ready)
		crc32c_init();
	while (length && ((uintptr_t)p & 7)) {
		crc = tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		length--;
	}
	while (length >= 8) {
		u64 w;

		memcpy(&w, p, 8);
		w = le64toh(w) ^ crc;
		crc = tab[7][w & 0xff] ^ tab[6][(w >> 8) & 0xff] ^
		      tab[5][(w >> 16) & 0xff] ^ tab[4][(w >> 24) & 0xff] ^
		      tab[3][(w >> 32) & 0xff] ^ tab[2][(w >> 40) & 0xff] ^
		      tab[1][(w >> 48) & 0xff] ^ tab[0][w >> 56];
		p += 8;
		length -= 8;
	}
	while (length--)
		crc = tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

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
