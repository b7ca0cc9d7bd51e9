/* SPDX-License-Identifier: MIT */
/*
 * Background mode and the asynchronous handle on ext4 and xfs (root; skip
 * otherwise): the promises of DESIGN.md section 2 (written per FIEMAP, data
 * kept, zeros elsewhere, size, all or nothing on cancel), the handle's
 * descriptor turning readable, backing off beside another writer, and the
 * rate cap, the one timing check: bytes over a monotonic clock must not beat
 * max_rate by more than 10%.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tassert.h"
#include "tcheck.h"
#include "tfs.h"

#define KiB ((uint64_t)1 << 10)
#define MiB ((uint64_t)1 << 20)
#define BG_KNOWN (PREALLOC_BG_PACED | PREALLOC_BG_IDLE_PRIO | PREALLOC_BG_ADAPTED)

static struct tfs *fs;		/* the group's filesystem */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A file of @span bytes of model with data at unaligned offsets, a hole and
 * an unwritten extent; @shadow mirrors it (zeros where there is no data). */
static int make_file(const char *name, uint8_t *shadow, uint64_t span)
{
	char path[128];
	int fd = open(tfs_path(fs, name, path, sizeof(path)),
		      O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	memset(shadow, 0, span);
	assert_int_equal(tc_write_pattern(fd, shadow, 1, 1000, 20000), 0);
	assert_int_equal(fallocate(fd, 0, 1 * MiB, 2 * MiB), 0);
	assert_int_equal(tc_write_pattern(fd, shadow, 2, 1 * MiB + 4097, 5000), 0);
	assert_int_equal(tc_write_pattern(fd, shadow, 3, span / 2 - 3, 7000), 0);
	assert_int_equal(fsync(fd), 0);
	return fd;
}

/* Promises 1, 2, 4 after success over [off, off + len) of a file whose
 * old contents are @shadow. */
static void check_done(int fd, const uint8_t *shadow, uint64_t off, uint64_t len,
		       const struct prealloc_report *r)
{
	struct prealloc_census c = { .size = sizeof(c) };
	struct stat st;

	assert_int_equal(tc_compare(fd, shadow, off + len), -1);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, off + len);
	assert_int_equal(prealloc_verify(fd, off, len, &c), 0);
	assert_int_equal(c.written_bytes, len);
	assert_int_equal(c.hole_bytes + c.unwritten_bytes, 0);
	assert_true(r->written);
	assert_int_equal(r->bytes_zeroed + r->bytes_kept, len);
	assert_int_equal(r->background & ~BG_KNOWN, 0);
	assert_true(r->bytes_per_sec > 0);
}

static void sync_background(void **state)
{
	const uint64_t span = 24 * MiB + 333;
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_BACKGROUND };
	struct prealloc_report r = { .size = sizeof(r) };
	uint8_t *shadow = malloc(span);
	int fd = make_file("sync", shadow, span);

	(void)state;
	assert_int_equal(prealloc_file_ex(fd, 0, span, &o, &r), 0);
	check_done(fd, shadow, 0, span, &r);
	close(fd);
	free(shadow);
}

static FILE *open_scheduler(const char *dev, const char *mode)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/block/%s/queue/scheduler", strrchr(dev, '/') + 1);
	return fopen(path, mode);
}

/* The scheduler of @dev in force ("[x]" in the list) into @cur, or false. */
static bool get_scheduler(const char *dev, char *cur, size_t n)
{
	char buf[128], *l, *r;
	FILE *f = open_scheduler(dev, "re");

	if (!f)
		return false;
	l = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!l || !(l = strchr(buf, '[')) || !(r = strchr(l, ']')))
		return false;
	snprintf(cur, n, "%.*s", (int)(r - l - 1), l + 1);
	return true;
}

static bool set_scheduler(const char *dev, const char *sched)
{
	FILE *f = open_scheduler(dev, "w");
	char cur[32];
	bool ok;

	if (!f)
		return false;
	ok = fputs(sched, f) >= 0;
	/* An unknown name is refused at fclose(); a module may be missing. */
	return fclose(f) == 0 && ok && get_scheduler(dev, cur, sizeof(cur)) && !strcmp(cur, sched);
}

/*
 * The report's mechanism bits follow the device's scheduler and the method,
 * never the clock: with a cap far below the device's speed the pacer holds
 * requests back on every scheduler and with either method (PACED); the
 * writes go as IOPRIO_CLASS_IDLE only through io_uring, and only where the
 * scheduler honours priorities, mq-deadline and BFQ (IDLE_PRIO), not none
 * or kyber.  A scheduler this kernel lacks is left out.
 */
static void mechanism_bits(void **state)
{
	static const char *const scheds[] = { "none", "mq-deadline", "bfq", "kyber" };
	static const uint32_t methods[] = { PREALLOC_METHOD_URING, PREALLOC_METHOD_BUFFERED };
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_BACKGROUND,
				      .max_rate = 1 * MiB };
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_census c = { .size = sizeof(c) };
	char was[32], path[128];
	int fd, tried = 0, bad = 0;

	(void)state;
	if (!get_scheduler(fs->dev, was, sizeof(was)))
		skip();
	tfs_path(fs, "bits", path, sizeof(path));
	for (size_t i = 0; i < sizeof(scheds) / sizeof(scheds[0]); i++) {
		if (!set_scheduler(fs->dev, scheds[i])) {
			print_message("scheduler %s: not available, left out\n", scheds[i]);
			continue;
		}
		tried++;
		for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
			bool idle = methods[m] == PREALLOC_METHOD_URING &&
				    (!strcmp(scheds[i], "mq-deadline") || !strcmp(scheds[i], "bfq"));
			int ret;

			fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			o.method = methods[m];
			ret = fd < 0 ? -errno : prealloc_file_ex(fd, 0, 512 * KiB, &o, &r);
			if (!ret)
				ret = prealloc_verify(fd, 0, 512 * KiB, &c);
			/* Checked after the scheduler is back: an assert would leave it. */
			bad += !expect_msg(!ret && r.method == methods[m] &&
					   c.written_bytes == 512 * KiB &&
					   (r.background & PREALLOC_BG_PACED) &&
					   !!(r.background & PREALLOC_BG_IDLE_PRIO) == idle,
					   "%s/%s: ret %d method %u written %" PRIu64 " bits %#x",
					   scheds[i], prealloc_method_name(methods[m]), ret, r.method,
					   c.written_bytes, r.background);
			if (fd >= 0)
				close(fd);
		}
	}
	unlink(path);
	assert_true(set_scheduler(fs->dev, was));
	assert_int_equal(bad, 0);
	assert_true(tried > 0);
}

/* The handle's descriptor turns readable; the caller's fd may be closed at
 * once (the library works on its own duplicate). */
static void async_completes(void **state)
{
	const uint64_t span = 20 * MiB + 4097;
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_async *h = NULL;
	uint8_t *shadow = malloc(span);
	char path[128];
	int fd = make_file("async", shadow, span);
	struct pollfd p = { .events = POLLIN };

	(void)state;
	assert_int_equal(prealloc_async_start(fd, 0, span, NULL, &h), 0);
	close(fd);
	p.fd = prealloc_async_fd(h);
	assert_true(p.fd >= 0);
	/* The file is what we wait for; the timeout only stops a hung test. */
	assert_int_equal(poll(&p, 1, 600 * 1000), 1);
	assert_true(p.revents & POLLIN);
	assert_int_equal(prealloc_async_poll(h), 0);
	assert_int_equal(prealloc_async_wait(h), 0);
	assert_int_equal(prealloc_async_report(h, &r), 0);
	assert_int_equal(r.size, sizeof(r));
	prealloc_async_free(h);
	fd = open(tfs_path(fs, "async", path, sizeof(path)), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	check_done(fd, shadow, 0, span, &r);
	close(fd);
	free(shadow);
}

/* Cancel while the work is under way: -ECANCELED and the file as it was. */
struct gate {
	sem_t reached, go;
	pthread_t caller;
	int calls;
	bool other_thread;
};

static int hold_first_call(uint64_t done, uint64_t total, void *data)
{
	struct gate *g = data;

	(void)done;
	(void)total;
	if (g->calls++ == 0) {
		g->other_thread = !pthread_equal(pthread_self(), g->caller);
		sem_post(&g->reached);
		sem_wait(&g->go);
	}
	return 0;
}

static void async_cancel_undoes(void **state)
{
	const uint64_t span = 16 * MiB + 100;
	struct gate g = { .caller = pthread_self() };
	struct prealloc_options o = {
		.size = sizeof(o), .progress = hold_first_call, .progress_data = &g,
	};
	struct prealloc_report r = { .size = sizeof(r) };
	struct prealloc_async *h = NULL;
	struct tc_before before;
	uint8_t *shadow = malloc(span);
	int fd = make_file("cancel", shadow, span / 2);
	struct pollfd p = { .events = POLLIN };

	(void)state;
	sem_init(&g.reached, 0, 0);
	sem_init(&g.go, 0, 0);
	assert_int_equal(tc_before_take(&before, fd, fs->dir), 0);
	assert_int_equal(prealloc_async_start(fd, 0, span, &o, &h), 0);
	sem_wait(&g.reached);		/* the work has zeroed its first piece */
	assert_int_equal(prealloc_async_poll(h), -EINPROGRESS);
	assert_int_equal(prealloc_async_report(h, &r), -EINPROGRESS);
	assert_int_equal(prealloc_async_cancel(h), 0);
	assert_int_equal(prealloc_async_cancel(h), 0);
	sem_post(&g.go);
	p.fd = prealloc_async_fd(h);
	assert_int_equal(poll(&p, 1, 600 * 1000), 1);
	assert_int_equal(prealloc_async_wait(h), -ECANCELED);
	assert_int_equal(prealloc_async_report(h, &r), 0);
	assert_false(r.written);
	prealloc_async_free(h);
	assert_true(g.other_thread);
	assert_int_equal(tc_snap_diff(fd, &before.snap), 0);
	(void)syncfs(fd);
	/* Space the call allocated is free again (ext4 may keep an extent block). */
	assert_true(tc_free_bytes(fs->dir) + 64 * KiB >= before.free);
	tc_snap_free(&before.snap);
	close(fd);
	free(shadow);
	sem_destroy(&g.reached);
	sem_destroy(&g.go);
}

struct wal {
	int fd;
	uint64_t next;		/* write again once this much is done */
};

/* Another writer on the same device, as a database's WAL would be: 64 4 KiB
 * writes, each fdatasync()ed, every 16 MiB of our progress.  The progress
 * callback runs them, so they surely fall inside the call.  The pacer
 * counts others' requests per second, though, so the one assumption is that
 * a write and its fdatasync() take under ~15 ms: a burst's 128 requests over
 * its own time and one 50 ms window must exceed 100 a second.  Returning
 * nonzero on an error stops the call, which the test sees. */
static int other_writer(uint64_t done, uint64_t total, void *data)
{
	struct wal *w = data;
	char page[4096];

	(void)total;
	if (done < w->next)
		return 0;
	w->next = done + 16 * MiB;
	memset(page, (int)(done >> 20), sizeof(page));
	for (int i = 0; i < 64; i++)
		if (pwrite(w->fd, page, sizeof(page), (off_t)(i % 16) * 4096) != sizeof(page) ||
		    fdatasync(w->fd))
			return 1;	/* the call fails with -ECANCELED */
	return 0;
}

/* Beside another writer, background mode backs off and says so; the data
 * promises hold all the same. */
static void adapts_to_others(void **state)
{
	const uint64_t span = 128 * MiB;
	char path[128];
	struct wal wal = {
		.fd = open(tfs_path(fs, "wal", path, sizeof(path)),
			   O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644),
	};
	struct prealloc_options o = {
		.size = sizeof(o), .flags = PREALLOC_BACKGROUND,
		.progress = other_writer, .progress_data = &wal,
	};
	struct prealloc_report r = { .size = sizeof(r) };
	uint8_t *shadow = malloc(span);
	int fd = make_file("adapt", shadow, span);

	(void)state;
	assert_true(wal.fd >= 0);
	assert_int_equal(prealloc_file_ex(fd, 0, span, &o, &r), 0);
	check_done(fd, shadow, 0, span, &r);
	assert_true(r.background & PREALLOC_BG_ADAPTED);
	close(wal.fd);
	unlink(path);
	close(fd);
	tfs_path(fs, "adapt", path, sizeof(path));
	unlink(path);
	free(shadow);
}

/* Freeing a running handle cancels it and waits: the file is as it was. */
static void async_free_running(void **state)
{
	struct prealloc_options o = { .size = sizeof(o), .max_rate = 4 * MiB };
	struct prealloc_async *h = NULL;
	struct tc_before before;
	uint8_t *shadow = malloc(8 * MiB);
	int fd = make_file("free", shadow, 8 * MiB);

	(void)state;
	assert_int_equal(tc_before_take(&before, fd, fs->dir), 0);
	assert_int_equal(prealloc_async_start(fd, 0, 64 * MiB, &o, &h), 0);
	prealloc_async_free(h);		/* 16 s of work at this rate: still running */
	assert_int_equal(tc_snap_diff(fd, &before.snap), 0);
	tc_snap_free(&before.snap);
	close(fd);
	free(shadow);
}

/* max_rate = 64 MiB/s over 256 MiB: at least 0.9 x 4 s. */
static void rate_cap(void **state)
{
	const uint64_t len = 256 * MiB, rate = 64 * MiB;
	struct prealloc_options o = { .size = sizeof(o), .max_rate = rate };
	struct prealloc_report r = { .size = sizeof(r) };
	char path[128];
	double t0, el;
	int fd = open(tfs_path(fs, "rate", path, sizeof(path)),
		      O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	(void)state;
	assert_true(fd >= 0);
	t0 = now_s();
	assert_int_equal(prealloc_file_ex(fd, 0, len, &o, &r), 0);
	el = now_s() - t0;
	print_message("%s: %" PRIu64 " MiB at cap %" PRIu64 " MiB/s: %.2f s (%.1f MiB/s)\n",
		      fs->type, len / MiB, rate / MiB, el, (double)len / MiB / el);
	assert_true(el >= 0.9 * (double)len / (double)rate);
	assert_true(el <= 60);
	assert_true(r.background & PREALLOC_BG_PACED);
	assert_true(r.bytes_per_sec <= rate + rate / 10);
	close(fd);
	unlink(path);
}

/* A raw device: BLKZEROOUT in chunks, under the same cap. */
static void blockdev_rate_cap(void **state)
{
	const uint64_t len = 64 * MiB, rate = 32 * MiB;
	struct prealloc_options o = {
		.size = sizeof(o), .max_rate = rate,
		.flags = PREALLOC_ZERO_DATA | PREALLOC_FORCE | PREALLOC_BACKGROUND,
	};
	struct prealloc_report r = { .size = sizeof(r) };
	struct tfs t = { 0 };
	uint8_t *buf = malloc(len), *zero = calloc(1, len);
	double t0, el;
	int fd;

	(void)state;
	assert_int_equal(tfs_loop(&t, 64, true), 0);
	fd = open(t.dev, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(tc_write_pattern(fd, NULL, 5, 0, len), 0);
	assert_int_equal(fsync(fd), 0);
	t0 = now_s();
	assert_int_equal(prealloc_file_ex(fd, 0, len, &o, &r), 0);
	el = now_s() - t0;
	print_message("blockdev: %" PRIu64 " MiB by %s at cap %" PRIu64 " MiB/s: %.2f s\n",
		      len / MiB, prealloc_method_name(r.method), rate / MiB, el);
	assert_true(el >= 0.9 * (double)len / (double)rate);
	assert_true(el <= 60);
	assert_int_equal(pread(fd, buf, len, 0), (ssize_t)len);
	assert_memory_equal(buf, zero, len);
	assert_true(r.background & PREALLOC_BG_PACED);
	close(fd);
	tfs_destroy(&t);
	free(buf);
	free(zero);
}

static void bad_input(void **state)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = 1u << 30 };
	struct prealloc_report r = { .size = 4 };
	struct prealloc_async *h = (struct prealloc_async *)&o;
	char path[128];
	int fd = open(tfs_path(fs, "bad", path, sizeof(path)),
		      O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rd = open(path, O_RDONLY | O_CLOEXEC);

	(void)state;
	assert_int_equal(prealloc_async_start(fd, 0, MiB, NULL, NULL), -EINVAL);
	assert_int_equal(prealloc_async_start(fd, 0, MiB, &o, &h), -EINVAL);
	assert_int_equal(prealloc_async_start(fd, 0, 0, NULL, &h), -EINVAL);
	assert_int_equal(prealloc_async_start(fd, UINT64_MAX, 2, NULL, &h), -EFBIG);
	assert_int_equal(prealloc_async_start(rd, 0, MiB, NULL, &h), -EBADF);
	assert_int_equal(prealloc_async_start(-1, 0, MiB, NULL, &h), -EBADF);
	assert_ptr_equal(h, (struct prealloc_async *)&o);	/* untouched on failure */
	assert_int_equal(prealloc_async_fd(NULL), -EINVAL);
	assert_int_equal(prealloc_async_poll(NULL), -EINVAL);
	assert_int_equal(prealloc_async_wait(NULL), -EINVAL);
	assert_int_equal(prealloc_async_cancel(NULL), -EINVAL);
	assert_int_equal(prealloc_async_report(NULL, &r), -EINVAL);
	prealloc_async_free(NULL);
	/* A report too small for the handle's copy. */
	assert_int_equal(prealloc_async_start(fd, 0, MiB, NULL, &h), 0);
	assert_int_equal(prealloc_async_wait(h), 0);
	assert_int_equal(prealloc_async_report(h, &r), -EINVAL);
	assert_int_equal(prealloc_async_report(h, NULL), -EINVAL);
	prealloc_async_free(h);
	close(rd);
	close(fd);
}

static int group_setup(void **state)
{
	const char *type = *state;
	int ret;

	fs = calloc(1, sizeof(*fs));
	ret = tfs_create(fs, type, 512, NULL);
	*state = fs;
	if (ret)
		print_error("cannot create %s: %s\n", type, strerror(-ret));
	return ret;
}

static int group_teardown(void **state)
{
	(void)state;
	tfs_destroy(fs);
	free(fs);
	fs = NULL;
	return 0;
}

int main(void)
{
	static const char *const types[] = { "ext4", "xfs" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_input),
		cmocka_unit_test(sync_background),
		cmocka_unit_test(adapts_to_others),
		cmocka_unit_test(mechanism_bits),
		cmocka_unit_test(async_completes),
		cmocka_unit_test(async_cancel_undoes),
		cmocka_unit_test(async_free_running),
		cmocka_unit_test(rate_cap),
	};
	const struct CMUnitTest dev_tests[] = {
		cmocka_unit_test(blockdev_rate_cap),
	};
	int failed = 0;

	tfs_enter();
	failed += cmocka_run_group_tests_name("blockdev", dev_tests, NULL, NULL);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		void *st = (void *)types[i];

		if (!tfs_supported(types[i])) {
			print_message("skip %s: not available here\n", types[i]);
			continue;
		}
		if (group_setup(&st)) {
			failed++;
			continue;
		}
		failed += _cmocka_run_group_tests(types[i], tests, sizeof(tests) / sizeof(tests[0]),
						  NULL, NULL);
		group_teardown(&st);
	}
	return failed ? 1 : 0;
}
