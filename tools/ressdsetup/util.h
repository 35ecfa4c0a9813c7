/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef RESSD_UTIL_H
#define RESSD_UTIL_H

#include <stdbool.h>
#include <stdio.h>

#include "ressd-types.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SECTOR_SIZE	((u64)512)
#define MiB		((u64)1 << 20)

/* Exit codes of format, table, open, close, status, convert (as cryptsetup's). */
#define EXIT_OK		0
#define EXIT_PARAM	1	/* wrong parameters, refused, not confirmed, dmsetup failed */
#define EXIT_NOMEM	3
#define EXIT_DEVICE	4	/* wrong device: missing, too small, no label, I/O error */
#define EXIT_BUSY	5	/* device mounted or in use */

extern const char *progname;

/* "ressdsetup: <message>" on stderr. */
void errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Allocate or exit with "out of memory" (status 8 would be wrong for some
 * commands; callers that care use the plain allocators). */
void *xcalloc(size_t n, size_t size);
void *xmalloc_aligned(size_t size);	/* 4 KiB aligned, zeroed */

/* A decimal number with no sign, no spaces, no trailing garbage. */
int parse_u64(const char *s, u64 *out);
int parse_u32(const char *s, u32 *out);
/*
 * A size in bytes: a number with an optional binary unit, K/KiB, M/MiB,
 * G/GiB, T/TiB (case-insensitive, "B" alone allowed), or "s" for 512-byte
 * sectors.  -1 for anything else or an overflow.
 */
int parse_size(const char *s, u64 *bytes);
/* "64.0 MiB" style, into @buf (at least 32 bytes); returns @buf. */
char *human_bytes(u64 bytes, char *buf);

/*
 * Ask "Are you sure? (Type uppercase yes): " on stdout and read the answer
 * from stdin: true only for "YES".
 */
bool confirm(const char *warning);

/* An absolute form of @path: as given when absolute, else realpath(). */
char *absolute_path(const char *path);
/*
 * Run @prog (looked up in PATH) with @args (NULL-terminated, without
 * argv[0], at most 14); with @out, its standard output is returned there
 * (malloc'ed).  Returns its exit status, 128 + the signal's number when a
 * signal ended it (as the shell says), or -1 when it could not be run.
 */
int run_prog(const char *prog, const char *const *args, char **out);

#endif
