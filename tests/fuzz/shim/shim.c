// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run-time half of the user-space shim (see ressd-shim.h): crc32c,
 * memchr_inv, and what happens when kernel-only code or a kernel warning is
 * reached.
 */
#include "ressd-shim.h"

int shim_verbose;

__attribute__((constructor)) static void shim_init(void)
{
	const char *v = getenv("RESSD_FUZZ_VERBOSE");

	shim_verbose = v && *v && *v != '0';
}

void shim_bug(const char *what, const char *file, int line, const char *cond)
{
	fprintf(stderr, "ressd-shim: kernel %s at %s:%d: %s\n", what, file, line, cond);
	abort();
}

void shim_unreachable(const char *fn)
{
	fprintf(stderr, "ressd-shim: kernel-only function %s() called in user space\n", fn);
	abort();
}

void *memchr_inv(const void *s, int c, size_t n)
{
	const u8 *p = s;
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (u8)c)
			return (void *)(p + i);
	return NULL;
}

size_t strscpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size);

	if (!size)
		return (size_t)-E2BIG;
	if (n == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = 0;
		return (size_t)-E2BIG;
	}
	memcpy(dst, src, n + 1);
	return n;
}

/*
 * crc32c, Castagnoli polynomial 0x1EDC6F41 (reflected: 0x82F63B78), with the
 * semantics of the kernel's crc32c(crc, data, len): @crc is the running
 * value, taken as is (no inversion on the way in or out), so that
 * crc32c(crc32c(s, a, n), b, m) == crc32c(s, a || b, n + m).  The standard
 * CRC-32C of a message is ~crc32c(~0, msg, len).  Slicing by 8 bytes, from
 * tables computed once.
 */
#define CRC32C_POLY_LE	0x82F63B78u

static u32 crc32c_tab[8][256];
static int crc32c_ready;

static void crc32c_init(void)
{
	u32 i, t, c;
	int k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ CRC32C_POLY_LE : c >> 1;
		crc32c_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (t = 1; t < 8; t++)
			crc32c_tab[t][i] = (crc32c_tab[t - 1][i] >> 8) ^
					   crc32c_tab[0][crc32c_tab[t - 1][i] & 0xff];
	crc32c_ready = 1;
}

u32 crc32c(u32 crc, const void *address, unsigned int length)
{
	const u8 *p = address;

	if (!crc32c_ready)
		crc32c_init();
	while (length && ((uintptr_t)p & 7)) {
		crc = crc32c_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		length--;
	}
	while (length >= 8) {
		u64 w;

		memcpy(&w, p, 8);
		w = le64toh(w) ^ crc;
		crc = crc32c_tab[7][w & 0xff] ^ crc32c_tab[6][(w >> 8) & 0xff] ^
		      crc32c_tab[5][(w >> 16) & 0xff] ^ crc32c_tab[4][(w >> 24) & 0xff] ^
		      crc32c_tab[3][(w >> 32) & 0xff] ^ crc32c_tab[2][(w >> 40) & 0xff] ^
		      crc32c_tab[1][(w >> 48) & 0xff] ^ crc32c_tab[0][w >> 56];
		p += 8;
		length -= 8;
	}
	while (length--)
		crc = crc32c_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}
