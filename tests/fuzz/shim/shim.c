// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run-time half of the user-space shim (see ressd-shim.h): crc32c,
 * memchr_inv, and what happens when a kernel warning is reached.
 */
#include "ressd-shim.h"
#include "../../../tools/lib/crc32c.h"

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
 * crc32c with the semantics of the kernel's crc32c(crc, data, len): the one
 * user-space crc32c of the project (tools/lib/crc32c.c), which
 * crc32c-test checks against the kernel's own test vectors.
 */
u32 crc32c(u32 crc, const void *address, unsigned int length)
{
	return ressd_crc32c(crc, address, length);
}

/* The module's crc32c (dm-ressd-csum.c chooses the driver): the same. */
u32 ressd_crc32c_update(u32 crc, const void *data, unsigned int len)
{
	return ressd_crc32c(crc, data, len);
}
