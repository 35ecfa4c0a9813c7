// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32c, Castagnoli polynomial 0x1EDC6F41 (reflected 0x82F63B78), slicing by
 * 8 bytes from tables computed once, with the kernel's semantics (see
 * crc32c.h).  tests/fuzz checks it against the kernel's own test vectors
 * (lib/crc32test.c) and a bitwise reference.
 */
#include <endian.h>
#include <string.h>

#include "crc32c.h"

#define CRC32C_POLY_LE	0x82F63B78u

static uint32_t tab[8][256];
static int ready;

static void crc32c_init(void)
{
	uint32_t i, t, c;
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

uint32_t ressd_crc32c(uint32_t crc, const void *address, size_t length)
{
	const uint8_t *p = address;

	if (!ready)
		crc32c_init();
	while (length && ((uintptr_t)p & 7)) {
		crc = tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		length--;
	}
	while (length >= 8) {
		uint64_t w;

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
