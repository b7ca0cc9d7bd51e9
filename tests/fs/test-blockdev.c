/* SPDX-License-Identifier: MIT */
/*
 * Block-device targets on real loop devices (root; skip otherwise): the
 * zero-data flag, range checks, signature and mount refusals, methods and
 * their fallback, cancel, and the stale-page-cache guarantee.  Every refusal
 * is checked to leave the device byte-for-byte as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/blkpg.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "probes/blkid.h"
#include "config.h"
#include "prealloc.h"
#include "tfs.h"

#define MiB (1ull << 20)
#define IOBUF MiB

/* Without libblkid no device can be shown to be blank: all zeroing needs
 * force, so the tests not about signatures add it. */
#define BLANK_FORCE (HAVE_BLKID ? 0u : (uint32_t)PREALLOC_FORCE)

struct dev {
	struct tfs t;
	int fd;			/* O_RDWR, buffered: the caller's descriptor */
	uint64_t size;
};

static void dev_open(struct dev *d, uint64_t mb)
{
	assert_int_equal(tfs_loop(&d->t, mb, true), 0);
	d->fd = open(d->t.dev, O_RDWR | O_CLOEXEC);
	assert_true(d->fd >= 0);
	d->size = mb * MiB;
}

static void dev_close(struct dev *d)
{
	close(d->fd);
	tfs_destroy(&d->t);
}

static void *iobuf(void)
{
	void *p = NULL;

	assert_int_equal(posix_memalign(&p, 4096, IOBUF), 0);
	return p;
}

/* Non-zero everywhere, different for every 8-byte word of the device. */
static void pattern(uint8_t *buf, uint64_t off, size_t len)
{
	uint64_t *w = (uint64_t *)buf;

	for (size_t i = 0; i < len / 8; i++)
		w[i] = ((off + i * 8) * 0x9e3779b97f4a7c15ull) | 1;
}

/* Write the pattern to [off, off + len) with O_DIRECT, then read the whole
 * range through the buffered descriptor so the page cache holds it: a
 * method that left the cache stale would then be caught. */
static void fill(struct dev *d, uint64_t off, uint64_t len)
{
	int dfd = open(d->t.dev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	uint8_t *buf = iobuf();

	assert_true(dfd >= 0);
	for (uint64_t p = off; p < off + len; p += IOBUF) {
		size_t n = (size_t)(off + len - p < IOBUF ? off + len - p : IOBUF);

		pattern(buf, p, n);
		assert_int_equal(pwrite(dfd, buf, n, (off_t)p), (ssize_t)n);
	}
	close(dfd);
	for (uint64_t p = off; p < off + len; p += IOBUF) {
		size_t n = (size_t)(off + len - p < IOBUF ? off + len - p : IOBUF);

		assert_int_equal(pread(d->fd, buf, n, (off_t)p), (ssize_t)n);
	}
	free(buf);
}

/* Does [off, off + len) read as zeros (@zero) or as the pattern, through
 * the buffered descriptor and through O_DIRECT? */
static bool holds(const struct dev *d, uint64_t off, uint64_t len, bool zero)
{
	int fds[2] = { d->fd, open(d->t.dev, O_RDONLY | O_DIRECT | O_CLOEXEC) };
	uint8_t *buf = iobuf(), *want = iobuf();
	bool ok = fds[1] >= 0;

	for (int i = 0; i < 2 && ok; i++) {
		for (uint64_t p = off; p < off + len && ok; p += IOBUF) {
			size_t n = (size_t)(off + len - p < IOBUF ? off + len - p : IOBUF);

			if (zero)
				memset(want, 0, n);
			else
				pattern(want, p, n);
			ok = pread(fds[i], buf, n, (off_t)p) == (ssize_t)n && !memcmp(buf, want, n);
		}
	}
	close(fds[1]);
	free(buf);
	free(want);
	return ok;
}

/* Only [zoff, zoff + zlen) reads zero; the rest holds the pattern. */
static void assert_zeroed_only(const struct dev *d, uint64_t zoff, uint64_t zlen)
{
	assert_true(holds(d, 0, zoff, false));
	assert_true(holds(d, zoff, zlen, true));
	assert_true(holds(d, zoff + zlen, d->size - zoff - zlen, false));
}

/* FNV-1a of a whole device read with O_DIRECT (what is on the medium). */
static uint64_t dev_hash(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	uint64_t h = 0xcbf29ce484222325ull;
	uint8_t *buf = iobuf();
	ssize_t n;
	off_t p = 0;

	assert_true(fd >= 0);
	while ((n = pread(fd, buf, IOBUF, p)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
		p += n;
	}
	assert_int_equal(n, 0);
	close(fd);
	free(buf);
	return h;
}

static int zero_fd(int fd, uint64_t off, uint64_t len, uint32_t flags, uint32_t method,
		   struct prealloc_report *rep)
{
	struct prealloc_options o = {
		.size = sizeof(o), .flags = flags | BLANK_FORCE, .method = method,
	};
	struct prealloc_report r;

	if (!rep)
		rep = &r;
	memset(rep, 0, sizeof(*rep));
	rep->size = sizeof(*rep);
	return prealloc_file_ex(fd, off, len, &o, rep);
}

static int zero(struct dev *d, uint64_t off, uint64_t len, uint32_t flags, uint32_t method,
		struct prealloc_report *rep)
{
	return zero_fd(d->fd, off, len, flags, method, rep);
}

static bool have_mkfs_ext4(void)
{
	return system("command -v mkfs.ext4 >/dev/null 2>&1") == 0;
}

static void mkfs_ext4(const char *dev)
{
	char cmd[160];

	/* No lazy init: nothing writes to the device behind the test's back. */
	snprintf(cmd, sizeof(cmd),
		 "mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 %s >/dev/null 2>&1", dev);
	assert_int_equal(system(cmd), 0);
}

/* sysfs queue attribute of the loop device, or -1 when absent. */
static void test_needs_zero_data(void **state)
{
	struct dev d;

	(void)state;
	dev_open(&d, 16);
	fill(&d, 0, d.size);
	assert_int_equal(prealloc_file(d.fd, 0, MiB, 0), -EINVAL);
	assert_int_equal(prealloc_file(d.fd, 0, MiB, PREALLOC_FORCE), -EINVAL);
	assert_int_equal(zero(&d, 0, MiB, PREALLOC_FORCE, PREALLOC_METHOD_ZEROOUT, NULL), -EINVAL);
	assert_true(holds(&d, 0, d.size, false));
	dev_close(&d);
}

static void test_bad_ranges(void **state)
{
	static const struct { uint64_t off, len; } bad512[] = {
		{ 100, 4096 }, { 0, 1000 }, { 512, 513 },
		{ 16 * MiB - 4096, 8192 }, { 16 * MiB, 512 }, { 0, 16 * MiB + 512 },
	}, bad4k[] = {
		{ 512, 4096 }, { 0, 512 }, { 4096, 4096 + 512 }, { 16 * MiB - 4096, 8192 },
	};
	const uint32_t f = PREALLOC_ZERO_DATA | PREALLOC_FORCE;
	struct dev d;

	(void)state;
	dev_open(&d, 16);
	fill(&d, 0, d.size);
	for (size_t i = 0; i < sizeof(bad512) / sizeof(bad512[0]); i++)
		assert_int_equal(zero(&d, bad512[i].off, bad512[i].len, f, 0, NULL), -EINVAL);
	assert_true(holds(&d, 0, d.size, false));

	/* A 4 KiB logical block size: 512-byte alignment is not enough. */
	assert_int_equal(ioctl(d.t.loop_fd, LOOP_SET_BLOCK_SIZE, 4096ul), 0);
	for (size_t i = 0; i < sizeof(bad4k) / sizeof(bad4k[0]); i++)
		for (uint32_t m = PREALLOC_METHOD_AUTO; m <= PREALLOC_METHOD_BUFFERED; m++)
			assert_int_equal(zero(&d, bad4k[i].off, bad4k[i].len, f, m, NULL), -EINVAL);
	assert_true(holds(&d, 0, d.size, false));
	assert_int_equal(zero(&d, 8192, 3 * 4096, f, 0, NULL), 0);
	assert_zeroed_only(&d, 8192, 3 * 4096);
	dev_close(&d);
}

static void test_auto(void **state)
{
	const uint64_t off = 3 * MiB, len = 8 * MiB + 512;
	struct prealloc_report rep;
	uint64_t sum = 0;
	struct dev d;

	(void)state;
	dev_open(&d, 32);
	fill(&d, 0, d.size);
	assert_int_equal(zero(&d, off, len, PREALLOC_ZERO_DATA | PREALLOC_KEEP_SIZE, 0, &rep), 0);
	assert_zeroed_only(&d, off, len);
	assert_int_equal(rep.written, 1);
	assert_int_equal(rep.bytes_zeroed, len);
	for (int m = 0; m < PREALLOC_METHOD_SLOTS; m++)
		sum += rep.bytes_by_method[m];
	assert_int_equal(sum, len);
	assert_string_equal(prealloc_write_zeroes_name(rep.write_zeroes),
			    prealloc_write_zeroes_name(tfs_wz_verdict(&d.t)));
	/* loop cannot zero by unmapping: auto must have fallen back to BLKZEROOUT. */
	if (tfs_queue_attr(&d.t, "write_zeroes_unmap_max_bytes") <= 0) {
		assert_int_equal(rep.bytes_by_method[PREALLOC_METHOD_ZEROOUT], len);
		assert_int_equal(rep.method, PREALLOC_METHOD_ZEROOUT);
	}
	/* Idempotent: again over the zeroed range and the whole device. */
	assert_int_equal(zero(&d, off, len, PREALLOC_ZERO_DATA, 0, NULL), 0);
	assert_zeroed_only(&d, off, len);
	assert_int_equal(zero(&d, 0, d.size, PREALLOC_ZERO_DATA | PREALLOC_NO_SYNC, 0, NULL), 0);
	assert_true(holds(&d, 0, d.size, true));
	dev_close(&d);
}

static void test_forced_methods(void **state)
{
	static const uint32_t methods[] = {
		PREALLOC_METHOD_ZEROOUT, PREALLOC_METHOD_URING, PREALLOC_METHOD_BUFFERED,
	};
	struct prealloc_report rep;
	struct dev d;

	(void)state;
	dev_open(&d, 32);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		uint64_t off = (i + 1) * MiB + 4096, len = 5 * MiB + 1024;

		fill(&d, 0, d.size);
		assert_int_equal(zero(&d, off, len, PREALLOC_ZERO_DATA, methods[i], &rep), 0);
		assert_zeroed_only(&d, off, len);
		assert_int_equal(rep.bytes_by_method[methods[i]], len);
		assert_int_equal(rep.bytes_zeroed, len);
		assert_int_equal(rep.write_zeroes, PREALLOC_WZ_NOT_WEIGHED);	/* forced */
	}
	/* Not a method for a device. */
	fill(&d, 0, d.size);
	assert_int_equal(zero(&d, 0, MiB, PREALLOC_ZERO_DATA, PREALLOC_METHOD_ALLOCATE, NULL),
			 -EOPNOTSUPP);
	assert_true(holds(&d, 0, d.size, false));
	dev_close(&d);
}

static void test_forced_write_zeroes(void **state)
{
	struct prealloc_report rep;
	struct dev d;

	(void)state;
	dev_open(&d, 16);
	if (tfs_queue_attr(&d.t, "write_zeroes_unmap_max_bytes") > 0) {
		dev_close(&d);
		skip();		/* this loop device can: nothing refuses */
	}
	fill(&d, 0, d.size);
	/* Twice: the verdict the first refusal cached must not change the
	 * answer; the report says who refused, the kernel or the device. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(zero(&d, 0, MiB, PREALLOC_ZERO_DATA, PREALLOC_METHOD_WRITE_ZEROES,
				      &rep), -EOPNOTSUPP);
		assert_int_equal(rep.write_zeroes, tfs_wz_verdict(&d.t));
	}
	assert_true(holds(&d, 0, d.size, false));
	dev_close(&d);
}

static void test_signature(void **state)
{
	char sigs[64];
	uint64_t h;
	struct dev d;

	(void)state;
	if (!HAVE_BLKID) {	/* then even a blank device counts as signed */
		dev_open(&d, 16);
		fill(&d, 0, d.size);
		assert_int_equal(prealloc_file(d.fd, 0, MiB, PREALLOC_ZERO_DATA), -EEXIST);
		assert_true(holds(&d, 0, d.size, false));
		dev_close(&d);
		return;
	}
	if (!have_mkfs_ext4())
		skip();
	dev_open(&d, 64);
	mkfs_ext4(d.t.dev);
	assert_int_equal(pa_blkid_signatures(d.t.dev, sigs, sizeof(sigs)), 1);
	assert_string_equal(sigs, "ext4");
	h = dev_hash(d.t.dev);
	for (uint32_t m = PREALLOC_METHOD_AUTO; m <= PREALLOC_METHOD_BUFFERED; m++)
		assert_int_equal(zero(&d, 0, 4 * MiB, PREALLOC_ZERO_DATA, m, NULL), -EEXIST);
	assert_int_equal(dev_hash(d.t.dev), h);

	assert_int_equal(zero(&d, 0, 4 * MiB, PREALLOC_ZERO_DATA | PREALLOC_FORCE, 0, NULL), 0);
	assert_true(holds(&d, 0, 4 * MiB, true));
	assert_int_equal(pa_blkid_signatures(d.t.dev, sigs, sizeof(sigs)), 0);
	assert_int_not_equal(dev_hash(d.t.dev), h);
	dev_close(&d);
}

static void test_mounted(void **state)
{
	char dir[] = "/tmp/prealloc-bdev-XXXXXX";
	const uint32_t f = PREALLOC_ZERO_DATA | PREALLOC_FORCE;
	uint64_t h;
	struct dev d;

	(void)state;
	if (!have_mkfs_ext4())
		skip();
	dev_open(&d, 64);
	mkfs_ext4(d.t.dev);
	assert_non_null(mkdtemp(dir));
	/* Read-only: the mount holds the device exactly as a rw mount does,
	 * and writes nothing that would blur the before/after comparison. */
	assert_int_equal(mount(d.t.dev, dir, "ext4", MS_RDONLY, NULL), 0);
	h = dev_hash(d.t.dev);
	for (uint32_t m = PREALLOC_METHOD_AUTO; m <= PREALLOC_METHOD_BUFFERED; m++)
		assert_int_equal(zero(&d, 0, 4 * MiB, f, m, NULL), -EBUSY);
	assert_int_equal(dev_hash(d.t.dev), h);
	assert_int_equal(mount(NULL, dir, NULL, MS_REMOUNT, NULL), 0);
	assert_int_equal(zero(&d, 32 * MiB, MiB, f, 0, NULL), -EBUSY);
	assert_int_equal(umount(dir), 0);
	rmdir(dir);
	/* Unmounted, the same request works. */
	assert_int_equal(zero(&d, 0, 4 * MiB, f, 0, NULL), 0);
	dev_close(&d);
}

static int blkpg(int fd, int op, int pno, uint64_t start, uint64_t len)
{
	struct blkpg_partition p = { .start = (long long)start, .length = (long long)len,
				     .pno = pno };
	struct blkpg_ioctl_arg a = { .op = op, .datalen = sizeof(p), .data = &p };

	return ioctl(fd, BLKPG, &a);
}

/* With partscan set, detaching the loop device drops its partitions, so a
 * test that dies half-way leaves none behind for the next user of the loop. */
static void enable_partscan(const struct dev *d)
{
	struct loop_info64 li;

	assert_int_equal(ioctl(d->t.loop_fd, LOOP_GET_STATUS64, &li), 0);
	li.lo_flags |= LO_FLAGS_PARTSCAN;
	assert_int_equal(ioctl(d->t.loop_fd, LOOP_SET_STATUS64, &li), 0);
}

/* A whole disk whose partition is mounted is claimed too; its other,
 * blank partition is not. */
static void test_partitions(void **state)
{
	const uint64_t p1 = MiB, p2 = 17 * MiB, plen = 16 * MiB;
	const uint32_t f = PREALLOC_ZERO_DATA | PREALLOC_FORCE;
	char dir[] = "/tmp/prealloc-bdev-XXXXXX", part[2][48];
	struct prealloc_report rep;
	int pfd[2];
	struct dev d;

	(void)state;
	if (!have_mkfs_ext4())
		skip();
	dev_open(&d, 64);
	enable_partscan(&d);
	fill(&d, 0, d.size);
	assert_int_equal(blkpg(d.fd, BLKPG_ADD_PARTITION, 1, p1, plen), 0);
	assert_int_equal(blkpg(d.fd, BLKPG_ADD_PARTITION, 2, p2, plen), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(part[i], sizeof(part[i]), "%sp%d", d.t.dev, i + 1);
		pfd[i] = open(part[i], O_RDWR | O_CLOEXEC);
		assert_true(pfd[i] >= 0);
	}
	mkfs_ext4(part[0]);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(mount(part[0], dir, "ext4", MS_RDONLY, NULL), 0);
	/* The ext4 lives inside p1: the disk itself carries no signature. */
	if (HAVE_BLKID)
		assert_int_equal(pa_blkid_signatures(d.t.dev, NULL, 0), 0);

	assert_int_equal(zero(&d, 0, d.size, f, 0, NULL), -EBUSY);
	assert_int_equal(zero(&d, 0, MiB, f, 0, NULL), -EBUSY);
	assert_int_equal(zero_fd(pfd[0], 0, plen, f, 0, NULL), -EBUSY);
	assert_true(holds(&d, 0, p1, false));
	assert_true(holds(&d, p2, d.size - p2, false));

	/* p2 is blank and not held: zeroed without force, offsets relative to it.
	 * The disk and its partitions have separate page caches, as for any
	 * write through a partition: drop the disk's before reading it back. */
	assert_int_equal(zero_fd(pfd[1], MiB, 2 * MiB, PREALLOC_ZERO_DATA, 0, &rep), 0);
	assert_int_equal(rep.bytes_zeroed, 2 * MiB);
	assert_int_equal(ioctl(d.fd, BLKFLSBUF, 0), 0);
	assert_true(holds(&d, p2, MiB, false));
	assert_true(holds(&d, p2 + MiB, 2 * MiB, true));
	assert_true(holds(&d, p2 + 3 * MiB, d.size - p2 - 3 * MiB, false));
	assert_int_equal(zero_fd(pfd[1], 0, plen + 512, PREALLOC_ZERO_DATA, 0, NULL), -EINVAL);

	assert_int_equal(umount(dir), 0);
	rmdir(dir);
	/* Unmounted, p1's ext4 is a signature like any other. */
	if (HAVE_BLKID)
		assert_int_equal(zero_fd(pfd[0], 0, MiB, PREALLOC_ZERO_DATA, 0, NULL), -EEXIST);
	for (int i = 0; i < 2; i++) {
		close(pfd[i]);
		assert_int_equal(blkpg(d.fd, BLKPG_DEL_PARTITION, i + 1, 0, 0), 0);
	}
	dev_close(&d);
}

/* The device's first @len bytes, through @fd, equal @want? */
static bool reads_as(int fd, const uint8_t *want, size_t len)
{
	uint8_t *buf = iobuf();
	bool ok = true;

	for (size_t p = 0; p < len && ok; p += IOBUF)
		ok = pread(fd, buf, IOBUF, (off_t)p) == (ssize_t)IOBUF &&
		     !memcmp(buf, want + p, IOBUF);
	free(buf);
	return ok;
}

/*
 * Dirty page-cache pages in and around the range: the kernel must not write
 * the old ones back over the zeros, must keep the ones outside the range
 * (the partial page at a sub-page start included), and must not refuse the
 * zeroing because of them (it would with our claim held and a non-exclusive
 * descriptor).  Checked against a model of the whole device.
 */
static void test_dirty_cache(void **state)
{
	static const uint64_t dirty[] = { MiB, MiB + 8192, 3 * MiB + 512 + 4096 };
	const uint64_t off = MiB + 512, len = 2 * MiB + 4096;
	uint8_t *model, x[4096];
	struct dev d;

	(void)state;
	memset(x, 'x', sizeof(x));
	dev_open(&d, 8);
	model = malloc(d.size);
	assert_non_null(model);
	for (uint32_t m = PREALLOC_METHOD_AUTO; m <= PREALLOC_METHOD_BUFFERED; m++) {
		int dfd;

		if (m == PREALLOC_METHOD_WRITE_ZEROES)
			continue;
		fill(&d, 0, d.size);
		pattern(model, 0, d.size);
		for (size_t i = 0; i < sizeof(dirty) / sizeof(dirty[0]); i++) {
			assert_int_equal(pwrite(d.fd, x, sizeof(x), (off_t)dirty[i]), sizeof(x));
			memcpy(model + dirty[i], x, sizeof(x));
		}
		memset(model + off, 0, len);
		assert_int_equal(zero(&d, off, len, PREALLOC_ZERO_DATA, m, NULL), 0);
		assert_true(reads_as(d.fd, model, d.size));
		assert_int_equal(fdatasync(d.fd), 0);
		dfd = open(d.t.dev, O_RDONLY | O_DIRECT | O_CLOEXEC);
		assert_true(dfd >= 0);
		assert_true(reads_as(dfd, model, d.size));
		close(dfd);
	}
	free(model);
	dev_close(&d);
}

static int cancel_at(uint64_t done, uint64_t total, void *data)
{
	uint64_t *calls = data;

	(void)total;
	assert_true(done > 0);
	return ++*calls >= 1;
}

static void test_cancel_uring(void **state)
{
	const uint64_t off = MiB, len = 32 * MiB;
	struct prealloc_report rep = { .size = sizeof(rep) };
	uint64_t calls = 0;
	struct prealloc_options o = {
		.size = sizeof(o), .flags = PREALLOC_ZERO_DATA | BLANK_FORCE,
		.method = PREALLOC_METHOD_URING, .queue_depth = 1, .request_bytes = MiB,
		.progress = cancel_at, .progress_data = &calls,
	};
	struct dev d;

	(void)state;
	dev_open(&d, 48);
	fill(&d, 0, d.size);
	assert_int_equal(prealloc_file_ex(d.fd, off, len, &o, &rep), -ECANCELED);
	assert_int_equal(calls, 1);
	assert_int_equal(rep.written, 0);
	assert_true(rep.bytes_zeroed >= MiB && rep.bytes_zeroed < len);
	assert_true(holds(&d, off, MiB, true));
	/* Stopped early: the end of the range and what follows are untouched. */
	assert_true(holds(&d, off + len - MiB, d.size - off - len + MiB, false));
	dev_close(&d);
}

/* BLKZEROOUT goes in chunks of at most 1 GiB: a longer range is cancelled
 * after the first chunk, before the last one. */
static void test_cancel_zeroout(void **state)
{
	const uint64_t len = 2048 * MiB + MiB;
	struct prealloc_report rep = { .size = sizeof(rep) };
	uint64_t calls = 0;
	struct prealloc_options o = {
		.size = sizeof(o), .flags = PREALLOC_ZERO_DATA | BLANK_FORCE,
		.method = PREALLOC_METHOD_ZEROOUT, .progress = cancel_at, .progress_data = &calls,
	};
	struct dev d;

	(void)state;
	dev_open(&d, 2048 + 2);
	fill(&d, len - MiB, MiB);
	assert_int_equal(prealloc_file_ex(d.fd, 0, len, &o, &rep), -ECANCELED);
	assert_int_equal(calls, 1);
	assert_true(rep.bytes_by_method[PREALLOC_METHOD_ZEROOUT] > 0);
	assert_true(rep.bytes_by_method[PREALLOC_METHOD_ZEROOUT] < len);
	assert_true(holds(&d, len - MiB, MiB, false));
	dev_close(&d);
}

/* Run the tool; its exit status, stdout+stderr in @out. */
static int tool(const char *args, char *out, size_t len)
{
	const char *bin = getenv("PREALLOC_TOOL");
	char cmd[512];
	size_t n;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", bin, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_tool(void **state)
{
	const char *bin = getenv("PREALLOC_TOOL");
	char args[160], out[1024];
	struct dev d;

	(void)state;
	if (!bin || access(bin, X_OK) < 0)
		skip();
	dev_open(&d, 16);
	fill(&d, 0, d.size);
	snprintf(args, sizeof(args), "run --length 1M %s", d.t.dev);
	assert_int_equal(tool(args, out, sizeof(out)), 1);
	assert_non_null(strstr(out, "zero-data"));
	assert_true(holds(&d, 0, d.size, false));
	snprintf(args, sizeof(args), "run --zero-data%s --offset 1M --length 2M %s",
		 HAVE_BLKID ? "" : " --force", d.t.dev);
	assert_int_equal(tool(args, out, sizeof(out)), 0);
	assert_zeroed_only(&d, MiB, 2 * MiB);
	dev_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_needs_zero_data),
		cmocka_unit_test(test_bad_ranges),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_forced_methods),
		cmocka_unit_test(test_forced_write_zeroes),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_mounted),
		cmocka_unit_test(test_partitions),
		cmocka_unit_test(test_dirty_cache),
		cmocka_unit_test(test_cancel_uring),
		cmocka_unit_test(test_cancel_zeroout),
		cmocka_unit_test(test_tool),
	};

	tfs_enter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
