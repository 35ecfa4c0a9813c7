// SPDX-License-Identifier: GPL-2.0-only
/*
 * run-inputs: a main() for the coverage build of a fuzz target.  Runs
 * LLVMFuzzerTestOneInput() once on every file named, or found in the
 * directories named (the corpus), so that llvm-cov can show which lines of
 * the code under test the corpus reaches.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long runs;

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	runs++;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *e;
		DIR *d;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			run_file(argv[i]);
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			run_file(path);
		}
		if (d)
			closedir(d);
	}
	printf("%s: %lu inputs\n", argv[0], runs);
	return 0;
}
