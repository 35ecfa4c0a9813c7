// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

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

int run_prog(const char *prog, const char *const *args, char **out)
{
	const char *argv[16];
	int pfd[2] = { -1, -1 }, status, n = 0;
	size_t len = 0, cap = 0;
	char *buf = NULL;
	pid_t pid;

	argv[n++] = prog;
	while (*args && n < (int)ARRAY_SIZE(argv) - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	if (out && pipe(pfd))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (out) {
			dup2(pfd[1], STDOUT_FILENO);
			close(pfd[0]);
			close(pfd[1]);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", progname, argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		close(pfd[1]);
		for (;;) {
			ssize_t r;

			if (len + 4096 + 1 > cap) {
				char *nb;

				cap = cap ? 2 * cap : 8192;
				nb = realloc(buf, cap);
				if (!nb) {
					errmsg("out of memory");
					exit(8);
				}
				buf = nb;
			}
			r = read(pfd[0], buf + len, 4096);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			len += (size_t)r;
		}
		close(pfd[0]);
		if (!buf)
			buf = xcalloc(1, 1);
		buf[len] = 0;
		*out = buf;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}
