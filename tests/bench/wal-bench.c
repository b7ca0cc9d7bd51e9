/* SPDX-License-Identifier: MIT */
/*
 * wal-bench: a write-ahead log's commit latency with each way of getting the
 * next segment, for tests/bench/run-wal-bench.py.
 *
 *   wal-bench MODE DIR [--segments N] [--segment-size N] [--record N]
 *             [--window N] [--raw FILE]
 *
 * Commits append one record with pwrite() and fdatasync() it; every
 * --segment-size bytes the log switches to a new segment, and the commit that
 * needs it pays for the switch.  MODE says how the segment is had:
 *   pool       prealloc_pool_take() from a pool in DIR (target 2, warm first);
 *              the worker paces itself (PREALLOC_BACKGROUND)
 *   pool-full-speed  the same with PREALLOC_POOL_FULL_SPEED: one burst per
 *              segment
 *   pool-prepare  the same, but when the current segment is three quarters
 *              full the log calls prealloc_pool_prepare() for the next one:
 *              the pool's worker installs it under its name, and the switch's
 *              prealloc_pool_take() only opens it (no rename, no fsync)
 *   pg-zeros   created under a temporary name, zero-filled like PostgreSQL's
 *              pg_pwrite_zeros (32 x 8 KiB iovecs per pwritev), fsync, rename,
 *              directory fsync: all in the committing thread
 *   fallocate  created and fallocate(0)d (etcd), directory fsync
 *   keep-size  created and fallocate(KEEP_SIZE)d (RocksDB), directory fsync
 *   append     created empty; the commits extend it
 *   dd         all segments zero-written with 2 MiB O_DIRECT writes + fsync
 *              before the clock starts (the reference for steady state)
 * Segments two behind are deleted outside the clock.  Prints one JSON object:
 * latency percentiles overall, in steady state (commits past the first
 * --window of a segment) and around switches (the first --window commits of
 * every segment but the first), steady-state commits per second, and the
 * pool's counters.  --raw writes "latency_ns window" per commit.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "prealloc.h"
#include "record.h"

struct bench {
	const char *mode;
	int dirfd;
	uint64_t seg, rec;
	unsigned int segments, window;
	struct prealloc_pool *pool;
	bool prepare;		/* pool-prepare */
	void *zeros;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void name_of(char *buf, size_t len, unsigned int segno)
{
	snprintf(buf, len, "wal-%06u", segno);
}

static int fail(int err)
{
	return -(err ? err : EIO);
}

/* PostgreSQL's pg_pwrite_zeros: 8 KiB zero blocks, 32 per pwritev. */
static int pg_zeros(struct bench *b, int fd)
{
	struct iovec iov[32];
	uint64_t off = 0;

	for (int i = 0; i < 32; i++)
		iov[i] = (struct iovec){ .iov_base = b->zeros, .iov_len = 8192 };
	while (off < b->seg) {
		int n = (int)((b->seg - off) / 8192 < 32 ? (b->seg - off) / 8192 : 32);
		ssize_t w = pwritev(fd, iov, n, (off_t)off);

		if (w <= 0)
			return fail(errno);
		off += (uint64_t)w;
	}
	return fsync(fd) < 0 ? fail(errno) : 0;
}

static int dd_zeros(struct bench *b, const char *name)
{
	int fd = openat(b->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_DIRECT | O_CLOEXEC, 0600);

	if (fd < 0)
		return fail(errno);
	for (uint64_t off = 0; off < b->seg; off += 2u << 20)
		if (pwrite(fd, b->zeros, 2u << 20, (off_t)off) != 2 << 20)
			return fail(errno);
	if (fsync(fd) < 0)
		return fail(errno);
	close(fd);
	return 0;
}

/* The next segment, open for writing at offset 0; in the committing thread. */
static int next_segment(struct bench *b, unsigned int segno)
{
	char name[32], tmp[40];
	int fd, ret = 0;

	name_of(name, sizeof(name), segno);
	if (b->pool)
		return prealloc_pool_take(b->pool, b->dirfd, name, 0);
	if (strcmp(b->mode, "dd") == 0) {
		fd = openat(b->dirfd, name, O_WRONLY | O_CLOEXEC);
		return fd < 0 ? fail(errno) : fd;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	fd = openat(b->dirfd, strcmp(b->mode, "pg-zeros") == 0 ? tmp : name,
		    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(errno);
	if (strcmp(b->mode, "pg-zeros") == 0) {
		ret = pg_zeros(b, fd);
		if (!ret && renameat(b->dirfd, tmp, b->dirfd, name) < 0)
			ret = fail(errno);
	} else if (strcmp(b->mode, "fallocate") == 0) {
		ret = fallocate(fd, 0, 0, (off_t)b->seg) < 0 ? fail(errno) : 0;
	} else if (strcmp(b->mode, "keep-size") == 0) {
		ret = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)b->seg) < 0 ? fail(errno) : 0;
	}
	if (!ret && fsync(b->dirfd) < 0)
		ret = fail(errno);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void put_pct(struct json_object *parent, const char *key, uint64_t *v, size_t n)
{
	struct json_object *j = json_object_new_object();

	qsort(v, n, sizeof(*v), cmp_u64);
	json_object_object_add(parent, key, j);
#define PCT(p) (n ? (double)v[(size_t)((double)(n - 1) * (p))] / 1e3 : 0.0)
	record_u64(j, "n", n);
	record_double(j, "p50_us", PCT(0.5));
	record_double(j, "p99_us", PCT(0.99));
	record_double(j, "p999_us", PCT(0.999));
	record_double(j, "max_us", n ? (double)v[n - 1] / 1e3 : 0.0);
#undef PCT
}

static int run(struct bench *b, FILE *raw)
{
	uint64_t per = b->seg / b->rec, total = per * b->segments, steady_ns = 0;
	uint64_t *all = calloc(total, 8), *st = calloc(total, 8), *sw = calloc(total, 8);
	size_t nst = 0, nsw = 0;
	uint64_t t_start, t_end;
	void *rec = aligned_alloc(4096, b->rec);
	int fd = -1, ret = 0;
	struct json_object *j, *p;
	char name[32];

	if (!all || !st || !sw || !rec)
		return -ENOMEM;
	memset(rec, 0x5a, b->rec);
	if (strcmp(b->mode, "dd") == 0)
		for (unsigned int s = 0; s < b->segments && !ret; s++) {
			name_of(name, sizeof(name), s);
			ret = dd_zeros(b, name);
		}
	if (!ret) {
		fd = next_segment(b, 0);	/* the first segment is not timed */
		ret = fd < 0 ? fd : 0;
	}
	t_start = now_ns();
	for (uint64_t i = 0; i < total && !ret; i++) {
		uint64_t k = i % per, t0 = now_ns(), dt;
		bool window = i >= per && k < b->window;

		if (k == 0 && i) {
			close(fd);
			fd = next_segment(b, (unsigned int)(i / per));
			if (fd < 0) {
				ret = fd;
				break;
			}
		}
		if (pwrite(fd, rec, b->rec, (off_t)(k * b->rec)) != (ssize_t)b->rec ||
		    fdatasync(fd) < 0) {
			ret = fail(errno);
			break;
		}
		dt = now_ns() - t0;
		all[i] = dt;
		if (window)
			sw[nsw++] = dt;
		else if (k >= b->window) {
			st[nst++] = dt;
			steady_ns += dt;
		}
		if (raw)
			fprintf(raw, "%" PRIu64 " %d\n", dt, window);
		/* Three quarters into a segment, prepare the next one (off the
		 * clock like the deletes; a failure only means the switch's
		 * take does the work). */
		if (b->prepare && k == per * 3 / 4 && i / per + 1 < b->segments) {
			name_of(name, sizeof(name), (unsigned int)(i / per + 1));
			(void)prealloc_pool_prepare(b->pool, b->dirfd, name, 0);
		}
		/* Deleting old segments is not the commit's business: off the clock. */
		if (k == 0 && i / per >= 2) {
			uint64_t t1 = now_ns();

			name_of(name, sizeof(name), (unsigned int)(i / per - 2));
			unlinkat(b->dirfd, name, 0);
			t_start += now_ns() - t1;
		}
	}
	t_end = now_ns();
	if (fd >= 0)
		close(fd);
	j = json_object_new_object();
	record_str(j, "mode", b->mode);
	record_i64(j, "error", -ret);
	record_u64(j, "commits", total);
	record_double(j, "seconds", (double)(t_end - t_start) / 1e9);
	record_double(j, "steady_cps", steady_ns ? (double)nst * 1e9 / (double)steady_ns : 0.0);
	put_pct(j, "all", all, ret ? 0 : total);
	put_pct(j, "steady", st, nst);
	put_pct(j, "switch", sw, nsw);
	if (b->pool) {
		struct prealloc_pool_stats s = { .size = sizeof(s) };

		if (prealloc_pool_get_stats(b->pool, &s))
			s = (struct prealloc_pool_stats){ .size = sizeof(s) };
		json_object_object_add(j, "pool", p = json_object_new_object());
		record_u64(p, "hits", s.hits);
		record_u64(p, "misses", s.misses);
		record_u64(p, "created", s.created);
		record_u64(p, "prepared", s.prepared);
		record_double(p, "foreground_wait_ms", (double)s.foreground_wait_ns / 1e6);
		record_double(p, "worker_ms_per_segment",
			      s.created ? (double)s.worker_ns / 1e6 / (double)s.created : 0.0);
	}
	record_print(j);
	free(all);
	free(st);
	free(sw);
	free(rec);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "segments", required_argument, NULL, 'n' },
		{ "segment-size", required_argument, NULL, 's' },
		{ "record", required_argument, NULL, 'r' },
		{ "window", required_argument, NULL, 'w' },
		{ "raw", required_argument, NULL, 'R' },
		{ 0 }
	};
	struct bench b = { .seg = 16u << 20, .rec = 8192, .segments = 4, .window = 16 };
	FILE *raw = NULL;
	int c, ret;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'n': b.segments = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 's': b.seg = strtoull(optarg, NULL, 0); break;
		case 'r': b.rec = strtoull(optarg, NULL, 0); break;
		case 'w': b.window = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'R': raw = fopen(optarg, "w"); break;
		default: return 2;
		}
	}
	if (optind != argc - 2 || b.segments < 2 || !b.rec || b.seg % b.rec || b.seg % (2u << 20))
		return 2;
	b.mode = argv[optind];
	b.dirfd = open(argv[optind + 1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	b.zeros = aligned_alloc(4096, 2u << 20);
	if (b.dirfd < 0 || !b.zeros)
		return 1;
	memset(b.zeros, 0, 2u << 20);
	if (strncmp(b.mode, "pool", 4) == 0) {
		struct prealloc_pool_config cfg = { .size = sizeof(cfg), .segment_size = b.seg,
						    .target = 2 };

		if (strcmp(b.mode, "pool-full-speed") == 0)
			cfg.flags = PREALLOC_POOL_FULL_SPEED;
		else if (strcmp(b.mode, "pool-prepare") == 0)
			b.prepare = true;
		else if (strcmp(b.mode, "pool") != 0)
			return 2;

		ret = prealloc_pool_open(argv[optind + 1], &cfg, &b.pool);
		if (!ret)
			ret = prealloc_pool_wait_ready(b.pool, cfg.target, -1);	/* warm */
		if (ret) {
			fprintf(stderr, "pool: %s\n", strerror(-ret));
			return 1;
		}
	} else {
		static const char *const modes[] = { "pg-zeros", "fallocate", "keep-size", "append", "dd" };
		bool known = false;

		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			known |= strcmp(b.mode, modes[i]) == 0;
		if (!known)
			return 2;
	}
	ret = run(&b, raw);
	prealloc_pool_close(b.pool);
	free(b.zeros);
	if (raw)
		fclose(raw);
	return ret ? 1 : 0;
}
