/* SPDX-License-Identifier: MIT */
/*
 * One process's calls, timed from outside the library: built against any
 * version's installed API (prealloc_file() and prealloc_verify() only), so
 * that run-call-bench.py can alternate two versions on the same files.
 *
 *   call-bench zero PATH BYTES
 *       a new file made written: wall time and CPU (every thread of the
 *       process), and what it left (written bytes, xfs's preallocation mark)
 *   call-bench calls PATH KIND COUNT FDNUM
 *       COUNT calls with the file at descriptor FDNUM (RLIMIT_NOFILE raised
 *       to its hard limit), each timed: KIND noop (a range already
 *       written), append1m or append4m (the next MiB(s) past end of file),
 *       or fallocate1m (the fallocate() system call itself, for a program
 *       run under `prealloc exec`)
 *
 * One JSON object on standard output; exit 1 on any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <prealloc.h>

#define MiB (1024ull * 1024)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "call-bench: %s: %s\n", what, strerror(err));
	return 1;
}

static int zero(const char *path, uint64_t bytes)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	struct fsxattr fa = { 0 };
	uint64_t t0, c0, t, c;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644), ret;

	if (fd < 0)
		return fail(path, errno);
	t0 = now_ns();
	c0 = cpu_ns();
	ret = prealloc_file(fd, 0, bytes, 0);
	t = now_ns() - t0;
	c = cpu_ns() - c0;
	if (ret)
		return fail("prealloc_file", -ret);
	ret = prealloc_verify(fd, 0, bytes, &cs);
	if (ret)
		return fail("prealloc_verify", -ret);
	(void)ioctl(fd, FS_IOC_FSGETXATTR, &fa);
	printf("{\"ns\": %" PRIu64 ", \"cpu_ns\": %" PRIu64 ", \"written\": %" PRIu64
	       ", \"xflags\": %u}\n", t, c, (uint64_t)cs.written_bytes, fa.fsx_xflags);
	close(fd);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The file at descriptor @fdnum, as a database with that many open files
 * would hold it. */
static int at_number(int fd, int fdnum)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (fdnum == fd)
		return fd;
	if (dup3(fd, fdnum, O_CLOEXEC) < 0)
		return -errno;
	close(fd);
	return fdnum;
}

static int one_call(int fd, const char *kind, uint64_t *size)
{
	uint64_t len = !strcmp(kind, "append4m") ? 4 * MiB : MiB;

	if (!strcmp(kind, "noop"))
		return prealloc_file(fd, 0, MiB, 0);
	if (!strcmp(kind, "fallocate1m")) {
		*size += len;
		return fallocate(fd, 0, (off_t)(*size - len), (off_t)len) < 0 ? -errno : 0;
	}
	*size += len;
	return prealloc_file(fd, *size - len, len, 0);
}

static int calls(const char *path, const char *kind, int count, int fdnum)
{
	uint64_t *ns = calloc((size_t)count, sizeof(*ns)), size = 0, c0, c;
	static char mib[MiB];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), ret = 0;

	if (!ns || fd < 0)
		return fail(path, errno);
	/* The no-op's range is written (and durable) before the first call. */
	if (!strcmp(kind, "noop") && (pwrite(fd, mib, MiB, 0) != (ssize_t)MiB || fsync(fd) < 0))
		return fail("pwrite", errno);
	fd = at_number(fd, fdnum);
	if (fd < 0)
		return fail("dup3", -fd);
	c0 = cpu_ns();
	for (int i = 0; i < count && !ret; i++) {
		uint64_t t0 = now_ns();

		ret = one_call(fd, kind, &size);
		ns[i] = now_ns() - t0;
	}
	c = cpu_ns() - c0;
	if (ret)
		return fail(kind, -ret);
	qsort(ns, (size_t)count, sizeof(*ns), cmp_u64);
	printf("{\"fd\": %d, \"calls\": %d, \"p50_ns\": %" PRIu64 ", \"p99_ns\": %" PRIu64
	       ", \"max_ns\": %" PRIu64 ", \"cpu_ns\": %" PRIu64 "}\n", fd, count,
	       ns[count / 2], ns[(count * 99) / 100], ns[count - 1], c);
	close(fd);
	free(ns);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "zero"))
		return zero(argv[2], strtoull(argv[3], NULL, 0));
	if (argc == 6 && !strcmp(argv[1], "calls"))
		return calls(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	fputs("usage: call-bench zero PATH BYTES | calls PATH KIND COUNT FDNUM\n", stderr);
	return 2;
}
