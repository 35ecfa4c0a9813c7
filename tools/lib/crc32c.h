/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one crc32c of dm-ressd's user-space code: ressdsetup, the fuzz
 * shim's stand-in for the kernel's, and the test tools.  No dependency but
 * the C library.
 */
#ifndef RESSD_LIB_CRC32C_H
#define RESSD_LIB_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * crc32c (Castagnoli) with the semantics of the kernel's crc32c(crc, p, len):
 * @crc is the running value, taken as is (no inversion in or out), so that
 * ressd_crc32c(ressd_crc32c(s, a, n), b, m) == ressd_crc32c(s, a || b, n + m).
 * The standard CRC-32C of a message is ~ressd_crc32c(~0, msg, len).
 */
uint32_t ressd_crc32c(uint32_t crc, const void *p, size_t len);

#endif
