/* SPDX-License-Identifier: MIT */
/*
 * Replay main() for the fuzz targets when not built with -fsanitize=fuzzer:
 * runs LLVMFuzzerTestOneInput over every file named (directories: their
 * files), so the corpus runs as an ordinary test.  Also feeds every prefix
 * of each file, which covers the truncated cases.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	uint8_t *buf;
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	for (long i = 0; i <= n; i++) {
		/* An exact-size copy so ASan-less builds still trip on overreads
		 * under valgrind; prefixes exercise every truncation. */
		uint8_t *p = malloc(i ? (size_t)i : 1);

		memcpy(p, buf, (size_t)i);
		LLVMFuzzerTestOneInput(p, (size_t)i);
		free(p);
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *e;
		DIR *d;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: missing\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			files += run_file(argv[i]) == 0;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char p[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
			files += run_file(p) == 0;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %d inputs\n", files);
	return files > 0 ? 0 : 1;
}
