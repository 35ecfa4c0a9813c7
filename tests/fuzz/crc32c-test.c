// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32c-test: the shim's crc32c against known vectors.
 *
 *  - the CRC-32C check value: ~crc32c(~0, "123456789", 9) == 0xe3069283
 *    (RFC 3720's CRC, as iSCSI, ext4 and btrfs use it);
 *  - the 100 crc32c_le vectors of the kernel's own lib/crc32test.c (seed,
 *    offset and length into its 4 KiB test buffer), extracted at build time
 *    from Debian's linux-source-6.1 into crc32c-vectors.h;
 *  - a bit-at-a-time reference on random lengths and alignments, and
 *    chaining: crc32c(crc32c(s, a), b) == crc32c(s, a || b).
 */
#include "ressd-shim.h"
#include "crc32c-vectors.h"

static u32 crc32c_bitwise(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return crc;
}

int main(void)
{
	static u8 buf[8192];
	unsigned int i, bad = 0, n = 0;
	u64 x = 88172645463325252ULL;
	u32 c;

	c = ~crc32c(~0u, "123456789", 9);
	n++;
	if (c != 0xe3069283u) {
		fprintf(stderr, "crc32c-test: check value %08x, expected e3069283\n", c);
		bad++;
	}
	for (i = 0; i < ARRAY_SIZE(test); i++, n++) {
		c = crc32c(test[i].crc, test_buf + test[i].start, test[i].length);
		if (c != test[i].crc32c_le) {
			fprintf(stderr, "crc32c-test: kernel vector %u: %08x, expected %08x\n",
				i, c, test[i].crc32c_le);
			bad++;
		}
	}
	for (i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (u8)x;
	}
	for (i = 0; i < 2000; i++, n++) {
		size_t off, len, cut;
		u32 seed;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		off = x % 64;
		len = (x >> 8) % (sizeof(buf) - 64);
		cut = len ? (x >> 24) % len : 0;
		seed = (u32)(x >> 32);
		c = crc32c(seed, buf + off, len);
		if (c != crc32c_bitwise(seed, buf + off, len) ||
		    c != crc32c(crc32c(seed, buf + off, cut), buf + off + cut, len - cut)) {
			fprintf(stderr, "crc32c-test: random case %u (off %zu len %zu) differs\n",
				i, off, len);
			bad++;
		}
	}
	printf("crc32c-test: %u passed, %u failed (%zu kernel vectors)\n", n - bad, bad,
	       ARRAY_SIZE(test));
	return bad ? 1 : 0;
}
