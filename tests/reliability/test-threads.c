/* SPDX-License-Identifier: MIT */
/*
 * Concurrency (root; skip otherwise), also run under ThreadSanitizer by
 * .ci/checks.sh: many threads preallocating their own files, many threads
 * preallocating disjoint unaligned ranges of one file, and the capability
 * and write-zeroes caches hammered while probes are invalidated under them.
 * The threads' forced Linux AIO calls, more at once than the AIO contexts
 * the library keeps, with different queue depths, take kept contexts, set
 * up their own, keep or destroy them.
 * Results are checked after the threads are joined; nothing waits on time.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "prealloc.h"
#include "probes/caps.h"
#include "src/call/context.h"
#include "tcheck.h"
#include "tfs.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define NTHREADS 8

static struct tfs fs[2];	/* ext4, xfs (or only ext4) */
static unsigned int nfs;

/* All threads start their work together, to collide as much as possible. */
static pthread_barrier_t start;

/* --- one file per thread ------------------------------------------------ */

struct own_job {
	const struct tfs *t;
	unsigned int id;
	int ret[5];
};

static void *own_file(void *arg)
{
	struct own_job *j = arg;
	char name[32], path[128];
	int fd;

	snprintf(name, sizeof(name), "own-%u", j->id);
	fd = open(tfs_path(j->t, name, path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd < 0 || tc_write_pattern(fd, NULL, j->id + 1, 1000 + j->id * 77, 9000 + j->id) < 0) {
		j->ret[0] = -EIO;
		pthread_barrier_wait(&start);
		return NULL;
	}
	pthread_barrier_wait(&start);
	/* Grow, recycle, reserve beyond EOF, force a method: every path. */
	j->ret[0] = prealloc_file(fd, 0, 3 * MiB + j->id * 4097, 0);
	j->ret[1] = prealloc_file(fd, 512 * KiB + j->id, 100 * KiB, PREALLOC_ZERO_DATA);
	j->ret[2] = prealloc_file(fd, 5 * MiB, MiB, PREALLOC_KEEP_SIZE);
	{
		struct prealloc_options o = {
			.size = sizeof(o), .method = PREALLOC_METHOD_URING,
			.queue_depth = 1 + j->id % 4, .request_bytes = 64 * KiB,
		};

		j->ret[3] = prealloc_file_ex(fd, 3 * MiB, 2 * MiB, &o, NULL);
		o.method = PREALLOC_METHOD_AIO;
		o.queue_depth = 1 + j->id % 3;
		j->ret[4] = prealloc_file_ex(fd, 3 * MiB, 2 * MiB, &o, NULL);
	}
	close(fd);
	return NULL;
}

static void check_own(const struct own_job *j)
{
	uint64_t size = 5 * MiB, doff = 1000 + j->id * 77, dlen = 9000 + j->id;
	uint8_t *want = calloc(1, size);
	char name[32], path[128];
	struct prealloc_census cs = { .size = sizeof(cs) };
	struct stat st;
	int fd;

	for (int i = 0; i < 5; i++)
		assert_int_equal(j->ret[i], 0);
	assert_non_null(want);
	tc_pattern(want + doff, j->id + 1, doff, dlen);
	snprintf(name, sizeof(name), "own-%u", j->id);
	fd = open(tfs_path(j->t, name, path, sizeof(path)), O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, size);
	assert_int_equal(tc_compare(fd, want, size), -1);
	assert_int_equal(prealloc_verify(fd, 0, size, &cs), 0);
	assert_int_equal(cs.written_bytes, size);
	close(fd);
	unlink(path);
	free(want);
}

static void test_own_files(void **state)
{
	struct own_job jobs[NTHREADS];
	pthread_t th[NTHREADS];

	(void)state;
	for (unsigned int f = 0; f < nfs; f++) {
		assert_int_equal(pthread_barrier_init(&start, NULL, NTHREADS), 0);
		for (unsigned int i = 0; i < NTHREADS; i++) {
			jobs[i] = (struct own_job){ .t = &fs[f], .id = i };
			assert_int_equal(pthread_create(&th[i], NULL, own_file, &jobs[i]), 0);
		}
		for (unsigned int i = 0; i < NTHREADS; i++)
			assert_int_equal(pthread_join(th[i], NULL), 0);
		pthread_barrier_destroy(&start);
		for (unsigned int i = 0; i < NTHREADS; i++)
			check_own(&jobs[i]);
	}
}

/* --- disjoint ranges of one file ----------------------------------------- */

struct range_job {
	int fd;
	uint64_t off, len;
	unsigned int flags;
	int ret;
};

static void *one_range(void *arg)
{
	struct range_job *j = arg;

	pthread_barrier_wait(&start);
	j->ret = prealloc_file(j->fd, j->off, j->len, j->flags);
	return NULL;
}

static void shared_file_round(const struct tfs *t, unsigned int round)
{
	struct range_job jobs[NTHREADS];
	pthread_t th[NTHREADS];
	uint64_t bounds[NTHREADS + 1], size;
	uint8_t *want;
	char path[128];
	int fd;

	/* Unaligned boundaries, so neighbours share blocks at every edge. */
	bounds[0] = 777 * round;
	for (unsigned int i = 1; i <= NTHREADS; i++)
		bounds[i] = bounds[i - 1] + 300 * KiB + 4093 * i + 511 * round;
	size = bounds[NTHREADS];
	want = calloc(1, size);
	assert_non_null(want);
	fd = open(tfs_path(t, "shared", path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	assert_true(fd >= 0);
	/* Data straddling every boundary but the last, then a hole to EOF. */
	for (unsigned int i = 1; i < NTHREADS; i++)
		assert_int_equal(tc_write_pattern(fd, want, i, bounds[i] - 1000, 2000 + i), 0);
	if (round & 1)
		assert_int_equal(fsync(fd), 0);
	assert_int_equal(pthread_barrier_init(&start, NULL, NTHREADS), 0);
	for (unsigned int i = 0; i < NTHREADS; i++) {
		jobs[i] = (struct range_job){
			.fd = fd, .off = bounds[i], .len = bounds[i + 1] - bounds[i],
			.flags = i % 3 == 2 ? PREALLOC_NO_SYNC : 0,
		};
		assert_int_equal(pthread_create(&th[i], NULL, one_range, &jobs[i]), 0);
	}
	for (unsigned int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&start);
	for (unsigned int i = 0; i < NTHREADS; i++)
		assert_int_equal(jobs[i].ret, 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), (off_t)size);
	assert_int_equal(tc_compare(fd, want, size), -1);
	{
		struct prealloc_census cs = { .size = sizeof(cs) };

		assert_int_equal(prealloc_verify(fd, bounds[0], size - bounds[0], &cs), 0);
		assert_int_equal(cs.written_bytes, size - bounds[0]);
	}
	close(fd);
	unlink(path);
	free(want);
}

static void test_shared_file(void **state)
{
	(void)state;
	for (unsigned int f = 0; f < nfs; f++)
		for (unsigned int round = 0; round < 4; round++)
			shared_file_round(&fs[f], round);
}

/* --- the caches under contention ---------------------------------------- */

struct cache_job {
	dev_t dev;
	unsigned int id;
	uint32_t lbs;		/* what the first probe said */
	int bad;
};

static void *hammer_caches(void *arg)
{
	struct cache_job *j = arg;

	pthread_barrier_wait(&start);
	for (unsigned int i = 0; i < 300; i++) {
		const struct pa_caps *c = NULL;
		int ret = pa_caps_get(j->dev, &c);

		if (ret || !c || c->dev != j->dev || c->logical_block_size != j->lbs)
			j->bad++;
		if (!ret)
			pa_caps_put(c);
		/* Throw the records away under the other threads' feet. */
		if (i % 37 == (unsigned int)j->id)
			pa_caps_invalidate(i % 2 ? j->dev : 0);
		pa_wz_remember(NULL, 1000 + (i + j->id) % 50, 42, i % 3 ? PREALLOC_NO : PREALLOC_YES);
		(void)pa_wz_answer(NULL, 1000 + i % 50, 42);
	}
	return NULL;
}

static void test_caches(void **state)
{
	struct cache_job jobs[NTHREADS];
	pthread_t th[NTHREADS];
	const struct pa_caps *c;
	struct stat st;

	(void)state;
	assert_int_equal(stat(fs[0].dir, &st), 0);
	assert_int_equal(pa_caps_get(st.st_dev, &c), 0);
	assert_int_equal(pthread_barrier_init(&start, NULL, NTHREADS), 0);
	for (unsigned int i = 0; i < NTHREADS; i++) {
		jobs[i] = (struct cache_job){ .dev = st.st_dev, .id = i,
					      .lbs = c->logical_block_size };
		assert_int_equal(pthread_create(&th[i], NULL, hammer_caches, &jobs[i]), 0);
	}
	for (unsigned int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&start);
	/* The record taken before the storm is still valid. */
	assert_int_equal(c->dev, st.st_dev);
	pa_caps_put(c);
	for (unsigned int i = 0; i < NTHREADS; i++)
		assert_int_equal(jobs[i].bad, 0);
	/* 50 devices went through a 32-slot table: some are still there. */
	{
		unsigned int found = 0;

		for (unsigned int d = 0; d < 50; d++)
			found += pa_wz_answer(NULL, 1000 + d, 42) != PREALLOC_UNKNOWN;
		assert_true(found > 0 && found <= 32);
	}
}

static int setup(void **state)
{
	(void)state;
	if (tfs_create(&fs[0], "ext4", 128, NULL))
		return -1;
	nfs = 1;
	if (tfs_supported("xfs") && tfs_create(&fs[1], "xfs", 320, NULL) == 0)
		nfs = 2;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned int f = 0; f < nfs; f++)
		tfs_destroy(&fs[f]);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_files),
		cmocka_unit_test(test_shared_file),
		cmocka_unit_test(test_caches),
	};

	tfs_enter();
	return cmocka_run_group_tests(tests, setup, teardown);
}
