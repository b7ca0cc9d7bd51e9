/* SPDX-License-Identifier: MIT */
/*
 * The cost of `prealloc exec` on the fallocate() calls it lets through:
 * CALLS (100000) calls of fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) on
 * a regular file FILE, made through the C library (so the interposer sees
 * them), timed with CLOCK_MONOTONIC.  Run it bare, under `prealloc exec
 * --mode preload` and under `prealloc exec --mode seccomp`; it does not
 * need libprealloc.  Prints one JSON line: the calls, the seconds, the
 * microseconds per call, and whether libprealloc-exec.so is mapped and a
 * seccomp filter is installed (so a run that was not what it claims shows).
 *
 *   cc -O2 -Wall -o exec-passthrough tests/bench/exec-passthrough.c
 *   exec-passthrough FILE [CALLS]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "yes" when a line of /proc/self/FILE contains NEEDLE (and, for status,
 * the value after it is not 0). */
static const char *proc_has(const char *file, const char *needle, int nonzero)
{
	char path[64], line[512];
	const char *r = "no";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	f = fopen(path, "re");
	if (!f)
		return "unknown";
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, needle);

		if (p && (!nonzero || atoi(p + strlen(needle)) != 0)) {
			r = "yes";
			break;
		}
	}
	fclose(f);
	return r;
}

int main(int argc, char **argv)
{
	long calls = argc > 2 ? atol(argv[2]) : 100000;
	double t0, t1;
	int fd;

	if (argc < 2 || calls <= 0) {
		fprintf(stderr, "usage: %s FILE [CALLS]\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	/* The first call allocates the block; the timed ones find it there. */
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) < 0) {
		perror("fallocate");
		return 1;
	}
	t0 = now();
	for (long i = 0; i < calls; i++)
		if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) < 0) {
			perror("fallocate");
			return 1;
		}
	t1 = now();
	close(fd);
	printf("{\"calls\":%ld,\"seconds\":%.6f,\"us_per_call\":%.4f,"
	       "\"interposer\":\"%s\",\"seccomp\":\"%s\"}\n",
	       calls, t1 - t0, (t1 - t0) * 1e6 / (double)calls,
	       proc_has("maps", "libprealloc-exec", 0), proc_has("status", "Seccomp:", 1));
	return 0;
}
