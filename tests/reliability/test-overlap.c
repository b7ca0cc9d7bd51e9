/* SPDX-License-Identifier: MIT */
/*
 * Concurrent calls on one file (root; skip otherwise), as seeded random
 * streams, on ext4 and xfs; also run under ThreadSanitizer by .ci/checks.sh.
 *
 *  disjoint  worker threads preallocate their own slots of one file: calls
 *            that start inside and beyond end of file, keep-size and
 *            zero-data calls, some cancelled part-way, some failing with an
 *            injected I/O error.  A call that failed must not undo anything
 *            of a neighbour's: its range, the size it set, its written state.
 *  overlap   the same, with ranges (and pages) that overlap at random, from
 *            threads and from async handles started in batches and cancelled
 *            at random.  No call may fail by meeting another one (-EIO from
 *            the page cache), and the application's own fsync() afterwards
 *            must not inherit an error.
 *
 * Everything is checked after the workers are joined, against what the
 * calls returned: every call that succeeded has its whole range written
 * (or, keep-size, allocated) by FIEMAP; data reads as it was unless a
 * zero-data call covered it; everything else reads zero; the size is the
 * largest a successful call promised.  Nothing waits on time.
 *
 * PREALLOC_OVERLAP_SEED repeats a run; PREALLOC_OVERLAP_CALLS sets the calls
 * of each worker.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "prealloc.h"
#include "base/util.h"
#include "src/exec/method_uring.h"	/* pa_uring_set_cqe_hook() of test builds */
#include "tcheck.h"
#include "tfs.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define SPAN (56 * MiB)		/* ranges fall in [0, SPAN) */
#define THREADS 8
#define ASYNC_BATCH 64
#define DEFAULT_CALLS 200	/* per worker */

enum { ZD_ANY = 1, ZD_DONE = 2 };	/* per-byte marks of zero-data calls */

struct call {
	uint64_t off, len;
	unsigned int flags;
	int ret;
	bool injected;		/* an I/O error was injected into it */
	unsigned int method;
	uint64_t t0, t1;	/* started and returned, ns (sync calls; for the log) */
	struct prealloc_report rep;
};

struct stream {
	int fd;
	bool overlap;
	uint64_t size0;		/* size before each round */
	unsigned int rounds;
	unsigned int calls;	/* per worker and round */
	uint64_t t_round;	/* when the round began */
	bool stop;		/* no more rounds: the workers return */
	pthread_barrier_t start, end;	/* the workers and the checker */
};

struct worker {
	struct stream *s;
	unsigned int id;	/* THREADS: the async driver */
	struct tc_rng r;
	struct call *v;
	unsigned int n;
};

static unsigned int calls_per_worker = DEFAULT_CALLS;
static uint64_t seed;

/* --- injected failures: the Nth io_uring completion of this thread -------- */

static __thread unsigned int inject_at;	/* 0: none */
static __thread bool injected;

static int inject_eio(int res)
{
	if (inject_at && --inject_at == 0) {
		injected = true;
		return -EIO;
	}
	return res;
}

/* --- picking calls ------------------------------------------------------- */

/* Disjoint: worker w owns slots w, w + W, ... of SPAN cut in 2 W slots. */
static void pick_disjoint(struct worker *w, uint64_t *off, uint64_t *len)
{
	const uint64_t nw = THREADS + 1, slot = SPAN / (2 * nw);
	uint64_t k = w->id + nw * tc_below(&w->r, 2), start = k * slot;

	*off = start + tc_below(&w->r, slot);
	*len = 1 + tc_below(&w->r, start + slot - *off);
}

/* Overlap: anywhere, often a few bytes, so calls share pages. */
static void pick_overlap(struct worker *w, uint64_t *off, uint64_t *len)
{
	uint64_t most = tc_below(&w->r, 3) ? 2 * MiB : 8 * KiB;

	*off = tc_below(&w->r, SPAN);
	*len = 1 + tc_below(&w->r, PA_MIN(most, SPAN - *off));
}

static void pick(struct worker *w, struct call *c, struct prealloc_options *o)
{
	unsigned int k = (unsigned int)tc_below(&w->r, 10);

	(w->s->overlap ? pick_overlap : pick_disjoint)(w, &c->off, &c->len);
	c->flags = (k < 3 ? PREALLOC_KEEP_SIZE : 0) | (k == 3 ? PREALLOC_ZERO_DATA : 0);
	*o = (struct prealloc_options){ .size = sizeof(*o), .flags = c->flags,
					.request_bytes = 64 * KiB << tc_below(&w->r, 4) };
	k = (unsigned int)tc_below(&w->r, 10);
	o->method = k == 0 ? PREALLOC_METHOD_URING : k == 1 ? PREALLOC_METHOD_BUFFERED :
		    PREALLOC_METHOD_AUTO;
	c->method = o->method;
}

/* --- the workers ----------------------------------------------------------- */

/* Cancel once @data permille of the work is done (0: at once, while the
 * call may still wait for another). */
static int cancel_at(uint64_t done, uint64_t total, void *data)
{
	return done * 1000 >= total * *(const uint64_t *)data;
}

static void sync_calls(struct worker *w)
{
	for (w->n = 0; w->n < w->s->calls; w->n++) {
		struct call *c = &w->v[w->n];
		struct prealloc_options o;
		uint64_t stop = UINT64_MAX;

		pick(w, c, &o);
		if (tc_below(&w->r, 4) == 0) {
			stop = tc_below(&w->r, 1001);
			o.progress = cancel_at;
			o.progress_data = &stop;
		}
		inject_at = tc_below(&w->r, 8) == 0 ? 1 + (unsigned int)tc_below(&w->r, 4) : 0;
		injected = false;
		c->rep.size = sizeof(c->rep);
		c->t0 = pa_now_ns();
		c->ret = prealloc_file_ex(w->s->fd, c->off, c->len, &o, &c->rep);
		c->t1 = pa_now_ns();
		c->injected = injected;
		inject_at = 0;
	}
}

/* Async handles in batches, a quarter cancelled as soon as started. */
static void async_calls(struct worker *w)
{
	struct prealloc_async *h[ASYNC_BATCH];

	for (w->n = 0; w->n < w->s->calls;) {
		unsigned int b = PA_MIN(ASYNC_BATCH, w->s->calls - w->n), started = 0;

		for (unsigned int i = 0; i < b; i++) {
			struct call *c = &w->v[w->n + i];
			struct prealloc_options o;

			pick(w, c, &o);
			c->ret = prealloc_async_start(w->s->fd, c->off, c->len, &o, &h[i]);
			if (c->ret)
				break;
			started++;
			if (tc_below(&w->r, 4) == 0)
				prealloc_async_cancel(h[i]);
		}
		for (unsigned int i = 0; i < started; i++) {
			struct pollfd p = { .fd = prealloc_async_fd(h[i]), .events = POLLIN };

			while (poll(&p, 1, -1) < 0 && errno == EINTR)
				;
			w->v[w->n + i].ret = prealloc_async_poll(h[i]);
			prealloc_async_free(h[i]);
		}
		w->n += started;
		if (started < b) {
			w->n++;		/* the one that failed to start */
			break;
		}
	}
}

static void *worker(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		pthread_barrier_wait(&w->s->start);
		if (w->s->stop)
			return NULL;
		(w->id < THREADS ? sync_calls : async_calls)(w);
		pthread_barrier_wait(&w->s->end);
	}
}

/* --- the checks ------------------------------------------------------------- */

static bool result_ok(const struct call *c)
{
	return c->ret == 0 || c->ret == -ECANCELED || (c->ret == -EIO && c->injected);
}

static int check_call(int fd, const struct call *c)
{
	struct prealloc_census cs = { .size = sizeof(cs) };

	if (!result_ok(c)) {
		fprintf(stderr, "[%" PRIu64 ", +%" PRIu64 ") flags %#x: %s%s\n", c->off, c->len,
			c->flags, strerror(-c->ret), c->injected ? " (injected)" : "");
		return -1;
	}
	if (c->ret)
		return 0;
	if (prealloc_verify(fd, c->off, c->len, &cs) < 0)
		return -1;
	/* Keep-size space beyond EOF is reserved, not written. */
	if ((c->flags & PREALLOC_KEEP_SIZE) ? cs.hole_bytes == 0 : cs.written_bytes == c->len)
		return 0;
	fprintf(stderr, "[%" PRIu64 ", +%" PRIu64 ") flags %#x returned 0, now written %" PRIu64
		" unwritten %" PRIu64 " holes %" PRIu64 "\n", c->off, c->len, c->flags,
		cs.written_bytes, cs.unwritten_bytes, cs.hole_bytes);
	return -1;
}

/* Data as it was, unless a zero-data call covered it; zero elsewhere. */
static int64_t check_bytes(const uint8_t *img, const uint8_t *zd, const uint8_t *got,
			   uint64_t size)
{
	for (uint64_t i = 0; i < size; i++) {
		uint8_t want = i < SPAN ? img[i] : 0, z = i < SPAN ? zd[i] : 0;

		if (got[i] == want && !(want && (z & ZD_DONE)))
			continue;
		if (got[i] == 0 && (z & ZD_ANY))
			continue;
		return (int64_t)i;
	}
	return -1;
}

/* Every call of a round that failed a check, worker by worker (the times
 * say the order). */
static void log_round(const struct stream *s, const struct worker *w)
{
	for (unsigned int k = 0; k <= THREADS; k++)
		for (unsigned int i = 0; i < w[k].n; i++) {
			const struct call *c = &w[k].v[i];
			const struct prealloc_report *r = &c->rep;

			fprintf(stderr, "  worker %u: [%" PRIu64 ", %" PRIu64 ") flags %#x method %s: %d%s",
				k, c->off, c->off + c->len, c->flags, prealloc_method_name(c->method),
				c->ret, c->injected ? " (injected)" : "");
			if (c->t0)	/* a sync call: its times and report */
				fprintf(stderr, ", %" PRIu64 "-%" PRIu64 " us, zeroed %" PRIu64
					" kept %" PRIu64 " reserved %" PRIu64,
					(c->t0 - s->t_round) / 1000, (c->t1 - s->t_round) / 1000,
					r->bytes_zeroed, r->bytes_kept, r->bytes_reserved);
			fputc('\n', stderr);
		}
}

/* The size and bytes after a round; 0 or -1. */
static int check_contents(const struct stream *s, const uint8_t *img, const uint8_t *zd,
			  uint64_t size)
{
	uint8_t *got = malloc(size);
	struct stat st;
	int64_t at;

	assert_non_null(got);
	assert_int_equal(fstat(s->fd, &st), 0);
	if ((uint64_t)st.st_size != size) {
		fprintf(stderr, "size %" PRIu64 ", the calls promised %" PRIu64 "\n",
			(uint64_t)st.st_size, size);
		free(got);
		return -1;
	}
	assert_int_equal(tc_read(s->fd, got, size), (int64_t)size);
	at = check_bytes(img, zd, got, size);
	if (at >= 0)
		fprintf(stderr, "byte %" PRId64 " is %#x, was %#x\n", at, got[at],
			(uint64_t)at < SPAN ? img[at] : 0);
	free(got);
	return at >= 0 ? -1 : 0;
}

/* After a round: the calls that failed (as injected or cancelled), or -1
 * when a check failed (with the round's log). */
static int check_round(const struct stream *s, const struct worker *w, const uint8_t *img)
{
	uint8_t *zd = calloc(1, SPAN);
	uint64_t size = s->size0;
	unsigned int bad = 0;
	int failed = 0;

	assert_non_null(zd);
	for (unsigned int k = 0; k <= THREADS; k++)
		for (unsigned int i = 0; i < w[k].n; i++) {
			const struct call *c = &w[k].v[i];

			failed += c->ret != 0;
			bad += check_call(s->fd, c) != 0;
			if (c->ret == 0 && !(c->flags & PREALLOC_KEEP_SIZE))
				size = PA_MAX(size, c->off + c->len);
			if (c->flags & PREALLOC_ZERO_DATA)
				for (uint64_t b = c->off; b < c->off + c->len; b++)
					zd[b] |= ZD_ANY | (c->ret == 0 ? ZD_DONE : 0);
		}
	if (bad || check_contents(s, img, zd, size) < 0) {
		log_round(s, w);
		failed = -1;
	}
	free(zd);
	return failed;
}

/* --- the streams ------------------------------------------------------------ */

/* A new file: pattern in 48 of every 64 KiB of [0, @size), holes between.
 * The descriptor is the application's, open across the round: its fsync()
 * reports any writeback error raised meanwhile. */
static int make_file(const struct tfs *t, uint8_t *img, uint64_t size)
{
	char path[128];
	int fd = open(tfs_path(t, "f", path, sizeof(path)), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0644);

	assert_true(fd >= 0);
	memset(img, 0, SPAN);
	for (uint64_t off = 0; off < size; off += 64 * KiB)
		assert_int_equal(tc_write_pattern(fd, img, 7, off, PA_MIN(48 * KiB, size - off)), 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(fsync(fd), 0);
	return fd;
}

/*
 * Disjoint: many short rounds on a new file, one call per worker, so every
 * round's calls start together at end of file.  Overlap: one long round.
 */
static void run_stream(const struct tfs *t, bool overlap, uint64_t sd)
{
	struct stream s = { .overlap = overlap, .size0 = overlap ? 48 * MiB : 6 * MiB,
			    .rounds = overlap ? 1 : calls_per_worker,
			    .calls = overlap ? calls_per_worker : 1 };
	struct worker w[THREADS + 1];
	pthread_t th[THREADS + 1];
	uint8_t *img = malloc(SPAN);
	int failed = 0;

	assert_non_null(img);
	assert_int_equal(pthread_barrier_init(&s.start, NULL, THREADS + 2), 0);
	assert_int_equal(pthread_barrier_init(&s.end, NULL, THREADS + 2), 0);
	for (unsigned int k = 0; k <= THREADS; k++) {
		w[k] = (struct worker){ .s = &s, .id = k, .r = { tc_mix(sd + k) } };
		w[k].v = calloc(s.calls, sizeof(*w[k].v));
		assert_non_null(w[k].v);
		assert_int_equal(pthread_create(&th[k], NULL, worker, &w[k]), 0);
	}
	for (unsigned int r = 0; r < s.rounds && failed >= 0; r++) {
		int f;

		s.fd = make_file(t, img, s.size0);
		s.t_round = pa_now_ns();
		pthread_barrier_wait(&s.start);
		pthread_barrier_wait(&s.end);
		assert_int_equal(fsync(s.fd), 0);
		f = check_round(&s, w, img);
		failed = f < 0 ? f : failed + f;
		close(s.fd);
	}
	/* The workers return before anything can fail the test. */
	s.stop = true;
	pthread_barrier_wait(&s.start);
	for (unsigned int k = 0; k <= THREADS; k++) {
		assert_int_equal(pthread_join(th[k], NULL), 0);
		free(w[k].v);
	}
	if (failed < 0)
		fail_msg("a round broke a promise (its calls are listed above)");
	printf("%s: %u calls in %u rounds, %d failed as injected or cancelled\n",
	       overlap ? "overlap" : "disjoint", s.rounds * s.calls * (THREADS + 1), s.rounds,
	       failed);
	pthread_barrier_destroy(&s.start);
	pthread_barrier_destroy(&s.end);
	free(img);
}

static void run_on(const char *type, bool overlap)
{
	struct tfs t;

	if (!tfs_supported(type)) {
		printf("%s: not supported here\n", type);
		return;
	}
	assert_int_equal(tfs_create(&t, type, 512, NULL), 0);
	printf("%s ", type);
	run_stream(&t, overlap, seed + overlap);
	tfs_destroy(&t);
}

static void disjoint_ext4(void **state) { (void)state; run_on("ext4", false); }
static void disjoint_xfs(void **state) { (void)state; run_on("xfs", false); }
static void overlap_ext4(void **state) { (void)state; run_on("ext4", true); }
static void overlap_xfs(void **state) { (void)state; run_on("xfs", true); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(disjoint_ext4),
		cmocka_unit_test(disjoint_xfs),
		cmocka_unit_test(overlap_ext4),
		cmocka_unit_test(overlap_xfs),
	};
	const char *env_seed = getenv("PREALLOC_OVERLAP_SEED");
	const char *env_calls = getenv("PREALLOC_OVERLAP_CALLS");

	if (env_calls)
		calls_per_worker = (unsigned int)strtoul(env_calls, NULL, 0);
	if (env_seed)
		seed = strtoull(env_seed, NULL, 0);
	else if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = 1;
	printf("seed %" PRIu64 " (PREALLOC_OVERLAP_SEED=%" PRIu64 " repeats this run)\n", seed,
	       seed);
	fflush(stdout);
	tfs_enter();
	pa_uring_set_cqe_hook(inject_eio);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
