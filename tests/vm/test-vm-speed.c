/* SPDX-License-Identifier: MIT */
/*
 * Zeroing speed in the guest (tests/vm/guest.h): the kernel flag against
 * the io_uring fallback on the unmap-zeroing scsi_debug disk, raw and
 * through ext4, and (given "xfs") the library's choice against forced
 * io_uring on xfs files, "bench=MIB,ROUNDS" long.  Printed as BENCH lines,
 * not asserted.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>

#include "guest.h"

/* ------------------------------------------------------------ speed */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bench_one(const char *what, int fd, uint64_t off, uint64_t len,
		      unsigned int flags, unsigned int method)
{
	struct prealloc_report r;
	double t = now_s();

	assert_int_equal(prealloc_m(fd, off, len, flags, method, &r), 0);
	t = now_s() - t;
	print_message("BENCH %s %s: %llu MiB in %.3f s = %.1f MiB/s\n", what,
		      prealloc_method_name(method), (unsigned long long)(len / MiB), t,
		      (double)len / MiB / t);
	assert_int_equal(r.bytes_by_method[method], len);
}

/*
 * Zeroing speed of the kernel flag against the io_uring fallback on the
 * unmap-capable scsi_debug disk, raw and through ext4.  Printed, not
 * asserted: TCG makes absolute numbers meaningless, the ratio is the point.
 */
static void test_speed(void **state)
{
	const char *devpath = need_dev("sdebug");
	const uint64_t len = 32 * MiB;
	char mnt[64], path[80];
	int fd;

	(void)state;
	if (!kernel_unmap_zeroes(devpath))
		skip();
	fd = open(devpath, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	for (int round = 0; round < 2; round++) {
		bench_one("raw", fd, 0, len, PREALLOC_ZERO_DATA | PREALLOC_FORCE,
			  PREALLOC_METHOD_WRITE_ZEROES);
		bench_one("raw", fd, 0, len, PREALLOC_ZERO_DATA | PREALLOC_FORCE,
			  PREALLOC_METHOD_URING);
	}
	close(fd);

	snprintf(path, sizeof(path), "%s/b", mkfs_mount(devpath, mnt, sizeof(mnt)));
	for (int round = 0; round < 2; round++) {
		static const unsigned int m[] = { PREALLOC_METHOD_WRITE_ZEROES, PREALLOC_METHOD_URING };

		for (int k = 0; k < 2; k++) {
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			assert_true(fd >= 0);
			bench_one("ext4", fd, 0, 16 * MiB, 0, m[k]);
			close(fd);
			assert_int_equal(unlink(path), 0);
		}
	}
	assert_int_equal(umount(mnt), 0);
}

/* "bench=MIB,ROUNDS": the xfs speed comparison's call length and rounds. */
static unsigned int bench_mib = 16, bench_rounds = 1;

#define BENCH_MAX_ROUNDS 15

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median and quartiles of @n values (sorted in place). */
static void quartiles(double *v, unsigned int n, double q[3])
{
	qsort(v, n, sizeof(*v), cmp_double);
	q[0] = v[n / 4];
	q[1] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	q[2] = v[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1];
}

/*
 * The same call on a new xfs file, the library's choice against forced
 * io_uring, alternating, on the unmap-zeroing scsi_debug disk: times, their
 * ratio per round (median and quartiles) and the share of the bytes the
 * flag did.  Printed, not asserted.
 */
static void test_speed_xfs(void **state)
{
	const char *devpath = need_dev("sdebug");
	const uint64_t len = (uint64_t)bench_mib * MiB;
	double t[2][BENCH_MAX_ROUNDS], ratio[BENCH_MAX_ROUNDS], q[3], share = 1;
	static const unsigned int m[] = { PREALLOC_METHOD_AUTO, PREALLOC_METHOD_URING };
	struct prealloc_report r;
	char mnt[64], path[96];

	(void)state;
	need_xfs();
	mkfs_xfs_mount(devpath, mnt, sizeof(mnt));
	snprintf(path, sizeof(path), "%s/b", mnt);
	for (unsigned int i = 0; i < bench_rounds; i++) {
		for (unsigned int k = 0; k < 2; k++) {
			unsigned int kk = (k + i) % 2;	/* alternate which goes first */
			int fd = open_new(mnt, "b");
			double t0 = now_s();

			assert_int_equal(prealloc_m(fd, 0, len, 0, m[kk], &r), 0);
			t[kk][i] = now_s() - t0;
			close(fd);
			assert_int_equal(unlink(path), 0);
			sync();		/* xfs frees an unlinked file's blocks in the background */
			if (kk == 0 && (double)wz_bytes(&r) / (double)len < share)
				share = (double)wz_bytes(&r) / (double)len;
			print_message("BENCH xfs %s: %u MiB in %.3f s (%s %llu bytes)\n",
				      kk ? "forced uring" : "auto", bench_mib, t[kk][i],
				      prealloc_method_name(r.method),
				      (unsigned long long)r.bytes_by_method[r.method]);
		}
		ratio[i] = t[0][i] / t[1][i];
	}
	quartiles(t[0], bench_rounds, q);
	print_message("BENCH xfs %u MiB, %u rounds: auto median %.3f s (IQR %.3f-%.3f)", bench_mib,
		      bench_rounds, q[1], q[0], q[2]);
	quartiles(t[1], bench_rounds, q);
	print_message(", forced uring median %.3f s (IQR %.3f-%.3f)", q[1], q[0], q[2]);
	quartiles(ratio, bench_rounds, q);
	print_message(", time ratio auto/uring median %.4f (IQR %.4f-%.4f), write-zeroes share of "
		      "the auto calls' bytes at least %.4f\n", q[1], q[0], q[2], share);
	assert_int_equal(umount(mnt), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_speed, unmount_all),
		cmocka_unit_test_teardown(test_speed_xfs, unmount_all),
	};

	vm_args(argc, argv);
	for (int i = 1; i < argc; i++) {
		if (sscanf(argv[i], "bench=%u,%u", &bench_mib, &bench_rounds) == 2 &&
		    (!bench_mib || !bench_rounds || bench_rounds > BENCH_MAX_ROUNDS))
			return 2;
	}
	return cmocka_run_group_tests_name("test-vm-speed", tests, NULL, unmount_all);
}
