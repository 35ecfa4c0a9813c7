// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

const char *progname = "ressdsetup";

void errmsg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p) {
		errmsg("out of memory");
		exit(8);
	}
	return p;
}

void *xmalloc_aligned(size_t size)
{
	void *p;

	if (posix_memalign(&p, RESSD_BLOCK_SIZE, size ? size : 1)) {
		errmsg("out of memory");
		exit(8);
	}
	memset(p, 0, size);
	return p;
}

int parse_u64(const char *s, u64 *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_u32(const char *s, u32 *out)
{
	u64 v;

	if (parse_u64(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (u32)v;
	return 0;
}

int parse_size(const char *s, u64 *bytes)
{
	static const struct {
		const char *unit;
		unsigned int shift;
	} units[] = {
		{ "", 0 }, { "b", 0 }, { "s", 9 },
		{ "k", 10 }, { "kib", 10 }, { "m", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gib", 30 }, { "t", 40 }, { "tib", 40 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].unit))
			continue;
		if (units[i].shift && v > (ULLONG_MAX >> units[i].shift))
			return -1;
		*bytes = v << units[i].shift;
		return 0;
	}
	return -1;
}

char *human_bytes(u64 bytes, char *buf)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int i = -1;

	if (bytes < 1024) {
		snprintf(buf, 32, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	while (v >= 1024 && i < (int)ARRAY_SIZE(unit) - 1) {
		v /= 1024;
		i++;
	}
	snprintf(buf, 32, "%.1f %s", v, unit[i]);
	return buf;
}

bool confirm(const char *warning)
{
	char line[64];
	size_t n;

	printf("\nWARNING!\n========\n%s\n\nAre you sure? (Type uppercase yes): ", warning);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin)) {
		printf("\n");
		return false;
	}
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = 0;
	return !strcmp(line, "YES");
}

char *absolute_path(const char *path)
{
	char *p;

	if (path[0] == '/')
		p = strdup(path);
	else
		p = realpath(path, NULL);
	if (!p)
		p = strdup(path);
	if (!p) {
		errmsg("out of memory");
		exit(8);
	}
	return p;
}
