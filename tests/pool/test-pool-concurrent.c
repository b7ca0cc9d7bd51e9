/* SPDX-License-Identifier: MIT */
/*
 * Several threads take, and take and prepare, from one pool at full speed
 * (root; skip otherwise): every segment complete, its own, under its name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <pthread.h>

#include "pool-fixture.h"
#include "tfs.h"

#define NTHREADS 6

#define TAKES 4

struct taker {
	struct prealloc_pool *p;
	int dfd;
	unsigned int id;
	bool prepare;		/* a WAL: prepare the next segment, take this one */
	pthread_barrier_t *go;
	int fd[TAKES];
	int prep[TAKES];
};

static void taker_prepare(struct taker *t, int i)
{
	char name[32];

	snprintf(name, sizeof(name), "t%u-%d", t->id, i);
	t->prep[i] = prealloc_pool_prepare(t->p, t->dfd, name, 0);
}

static void *taker(void *arg)
{
	struct taker *t = arg;
	char name[32];

	pthread_barrier_wait(t->go);
	if (t->prepare)
		taker_prepare(t, 0);
	for (int i = 0; i < TAKES; i++) {
		if (t->prepare && i + 1 < TAKES)
			taker_prepare(t, i + 1);
		snprintf(name, sizeof(name), "t%u-%d", t->id, i);
		t->fd[i] = prealloc_pool_take(t->p, t->dfd, name, 0);
	}
	return NULL;
}

/* Several threads take (and prepare) at once from a pool of @target at full
 * speed (the refills race the takes as hard as they can): every segment
 * complete, its own, under its name. */
static struct prealloc_pool_stats concurrent(uint32_t target, bool prepare)
{
	struct taker t[NTHREADS];
	pthread_t th[NTHREADS];
	pthread_barrier_t go;
	ino_t ino[NTHREADS * TAKES];
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128], name[32];
	int dfd;

	p = open_pool_flags(new_dir(dir, sizeof(dir)), SEG, target, 1, PREALLOC_POOL_FULL_SPEED);
	assert_int_equal(prealloc_pool_wait_ready(p, target, -1), 0);
	dfd = open_dir(dir);
	pthread_barrier_init(&go, NULL, NTHREADS);
	for (unsigned int i = 0; i < NTHREADS; i++) {
		t[i] = (struct taker){ .p = p, .dfd = dfd, .id = i, .prepare = prepare, .go = &go };
		assert_int_equal(pthread_create(&th[i], NULL, taker, &t[i]), 0);
	}
	for (unsigned int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	for (unsigned int i = 0; i < NTHREADS; i++)
		for (int k = 0; k < TAKES; k++) {
			unsigned int n = i * TAKES + (unsigned int)k;

			assert_int_equal(t[i].prep[k], 0);
			snprintf(name, sizeof(name), "t%u-%d", i, k);
			check_taken(t[i].fd[k], dfd, name, SEG);
			ino[n] = inode_of(dfd, name);
			for (unsigned int j = 0; j < n; j++)
				assert_true(ino[j] != ino[n]);	/* distinct segments */
			close(t[i].fd[k]);
		}
	s = stats(p);
	assert_int_equal(s.hits + s.misses, NTHREADS * TAKES);
	prealloc_pool_close(p);
	/* Every name taken, nothing prepared left over. */
	assert_int_equal(list(dir, "t", NULL, 0), NTHREADS * TAKES);
	assert_int_equal(tfs_rmtree(dir), 0);	/* space for the tests after */
	close(dfd);
	return s;
}

static void concurrent_takes(void **state)
{
	(void)state;
	assert_true(concurrent(8, false).hits >= 8);
}

static void concurrent_prepares(void **state)
{
	struct prealloc_pool_stats s;

	(void)state;
	s = concurrent(4, true);
	/* Some installs served takes (each prepare runs a whole take ahead of
	 * its own), and every install was taken: a hit. */
	assert_true(s.prepared > 0);
	assert_true(s.prepared <= s.hits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_takes),
		cmocka_unit_test(concurrent_prepares),
	};

	return POOL_RUN(tests);
}
