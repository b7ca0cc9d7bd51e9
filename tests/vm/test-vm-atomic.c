/* SPDX-License-Identifier: MIT */
/*
 * Atomic writes in the guest (tests/vm/guest.h), on scsi_debug with
 * atomic_wr=1: the public probe reports the device's and an ext4 file's
 * atomic limits, and RWF_ATOMIC writes succeed over a preallocated range.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/uio.h>

#include "guest.h"

/* ------------------------------------------------------------ atomic writes */

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040	/* <linux/fs.h> 6.11 */
#endif

/* Commits of the journal of ext4 on @devpath (/proc/fs/jbd2/<dev>-8/info). */
static unsigned long long jbd2_commits(const char *devpath)
{
	unsigned long long n = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/fs/jbd2/%s-8/info", strrchr(devpath, '/') + 1);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu transactions", &n), 1);
	fclose(f);
	return n;
}

/*
 * RWF_ATOMIC writes of @unit bytes over [0, @len) of @path, each followed by
 * fdatasync as a database would: returns how many succeeded and sets
 * *@commits to the journal commits they cost.
 */
static unsigned int atomic_over(const char *devpath, const char *path, uint64_t len,
				uint32_t unit, unsigned long long *commits, int *err)
{
	uint8_t *buf = zbuf(unit);
	unsigned long long c0;
	unsigned int ok = 0;
	int fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);

	assert_true(fd >= 0);
	memset(buf, 0x3c, unit);
	*err = 0;
	c0 = jbd2_commits(devpath);
	for (uint64_t off = 0; off < len; off += unit) {
		struct iovec iov = { buf, unit };
		ssize_t w = pwritev2(fd, &iov, 1, (off_t)off, RWF_ATOMIC);

		if (w != (ssize_t)unit) {
			*err = w < 0 ? errno : EIO;
			continue;
		}
		assert_int_equal(fdatasync(fd), 0);
		ok++;
	}
	*commits = jbd2_commits(devpath) - c0;
	close(fd);
	free(buf);
	return ok;
}

/* A number fact of a probe: of the target (@dev < 0) or of device @dev. */
static uint64_t fact(const struct prealloc_probe *pr, int dev, const char *name)
{
	uint64_t v = 0;
	int t = dev < 0 ? prealloc_probe_lookup(pr, name, &v, NULL) :
			  prealloc_probe_device_lookup(pr, (unsigned int)dev, name, &v, NULL);

	if (t != PREALLOC_FACT_BYTES && t != PREALLOC_FACT_NUMBER)
		fail_msg("fact %s of %d: type %d", name, dev, t);
	return v;
}

/*
 * scsi_debug with atomic_wr=1: the public probe reports the device's atomic
 * limits (its queue) and, for a file on ext4 with bigalloc clusters of the
 * atomic unit, the file's (statx); after prealloc_file() RWF_ATOMIC writes
 * of that unit succeed across the range.  The journal commits those writes
 * cost are printed next to the same writes into a fallocated (unwritten)
 * range.
 */
static void test_atomic(void **state)
{
	static const char *const q[] = { "atomic_write_unit_min_bytes", "atomic_write_unit_max_bytes",
					 "atomic_write_max_bytes", "atomic_write_boundary_bytes" };
	const uint64_t len = 2 * MiB;
	const char *devpath = need_dev("sdebug");
	struct prealloc_probe *pr;
	unsigned long long cp, cf;
	char mnt[64], a[96], b[96], name[64];
	unsigned int okp, okf, n = (unsigned int)(len / (64 * KiB));
	uint32_t unit;
	int fd, errp, errf;

	(void)state;
	if (sdebug_param("atomic_wr") != 1)
		skip();
	fd = open(devpath, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_probe_new(fd, 0, 0, NULL, &pr), 0);
	close(fd);
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		snprintf(name, sizeof(name), "queue.%s", q[i]);
		print_message("%s: %s %llu\n", devpath, name, (unsigned long long)fact(pr, 0, name));
		assert_int_equal(fact(pr, 0, name), queue_attr(devpath, q[i]));
	}
	assert_true(fact(pr, 0, "queue.atomic_write_unit_max_bytes") >= 64 * KiB);
	prealloc_probe_free(pr);

	unit = 64 * KiB;	/* the cluster: ext4 allows up to one cluster */
	mkfs_mount_opts(devpath, unit, "48M", mnt, sizeof(mnt));
	snprintf(a, sizeof(a), "%s/prealloc", mnt);
	snprintf(b, sizeof(b), "%s/fallocate", mnt);

	fd = open(a, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(prealloc_probe_new(fd, 0, 0, NULL, &pr), 0);
	print_message("%s: atomic_write.unit_min %llu unit_max %llu segments_max %llu\n", a,
		      (unsigned long long)fact(pr, -1, "atomic_write.unit_min"),
		      (unsigned long long)fact(pr, -1, "atomic_write.unit_max"),
		      (unsigned long long)fact(pr, -1, "atomic_write.segments_max"));
	assert_int_equal(fact(pr, -1, "atomic_write.unit_min"), 4096);
	assert_int_equal(fact(pr, -1, "atomic_write.unit_max"), unit);
	prealloc_probe_free(pr);
	assert_int_equal(prealloc_file(fd, 0, len, 0), 0);
	census_written(fd, 0, len);
	close(fd);
	fd = open(b, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fallocate(fd, 0, 0, (off_t)len), 0);
	assert_int_equal(fsync(fd), 0);
	close(fd);
	sync();

	okp = atomic_over(devpath, a, len, unit, &cp, &errp);
	okf = atomic_over(devpath, b, len, unit, &cf, &errf);
	print_message("ATOMIC %u x %u KiB RWF_ATOMIC+fdatasync: preallocated %u ok (%s), %llu journal commits; "
		      "fallocated %u ok (%s), %llu journal commits\n", n, unit / 1024, okp,
		      errp ? strerror(errp) : "-", cp, okf, errf ? strerror(errf) : "-", cf);
	assert_int_equal(okp, n);
	expect_bytes(a, 0, len, 0x3c, false);
	assert_int_equal(umount(mnt), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_atomic, unmount_all),
	};

	vm_args(argc, argv);
	return cmocka_run_group_tests_name("test-vm-atomic", tests, NULL, unmount_all);
}
