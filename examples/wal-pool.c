/* SPDX-License-Identifier: MIT */
/*
 * A minimal write-ahead log on a ready-segment pool.  Commits append 8 KiB
 * records and fdatasync(); every 16 MiB the log switches to a new segment,
 * which the pool has ready (allocated, written, durable), and every commit is
 * a pure overwrite with no metadata to journal.  Three quarters into a
 * segment the log asks the pool to prepare the next one: the pool's thread
 * renames a segment under the next name ahead, so the switch itself only
 * opens it (without that, the switch pays a rename and a directory fsync).
 * Segments two behind the current one are recycled (not zeroed: each record
 * carries its LSN, so the reader stops at the first stale one, as PostgreSQL
 * does).  A new run continues after the newest segment, or in it if no
 * record was written to it (prepared ahead and never switched to).
 *
 *   cc wal-pool.c $(pkg-config --cflags --libs libprealloc) -o wal-pool
 *   ./wal-pool /path/to/wal-dir 256      # write 256 MiB of records
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <prealloc-pool.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEGMENT_SIZE (16u << 20)
#define RECORD_SIZE 8192u
#define KEEP_SEGMENTS 2

struct record {
	uint64_t lsn;		/* byte position in the log; 0 never valid */
	uint32_t len;
	uint32_t crc;		/* a real log checksums the payload */
	char payload[RECORD_SIZE - 16];
};

struct wal {
	struct prealloc_pool *pool;
	int dirfd;
	int fd;			/* current segment */
	bool unused;		/* no record in it yet: the first commit stays in it */
	uint64_t segno, lsn;	/* segment segno holds lsn (segno - 1) * SEGMENT_SIZE on */
};

static void segment_name(char *buf, size_t len, uint64_t segno)
{
	snprintf(buf, len, "%016" PRIx64, segno);
}

/* The newest segment an earlier run left (a real log would replay it
 * first). */
static uint64_t last_segment(const char *dir)
{
	uint64_t last = 0, n;
	struct dirent *de;
	DIR *d = opendir(dir);
	char *end;

	while (d && (de = readdir(d))) {
		n = strtoull(de->d_name, &end, 16);
		if (strlen(de->d_name) == 16 && !*end && n > last)
			last = n;
	}
	if (d)
		closedir(d);
	return last;
}

/*
 * Start after the newest segment, or in it when its first record is not
 * valid: a segment prepared ahead that the last run never switched to (it
 * holds zeros or, recycled, an older segment's records; the LSN tells).
 * Continuing after it would leave a record-less segment inside the log.
 */
static int resume(struct wal *w, const char *dir)
{
	struct record r;
	char name[32];
	ssize_t n;
	int fd;

	w->segno = last_segment(dir);
	w->lsn = w->segno * SEGMENT_SIZE;
	if (!w->segno)
		return 0;
	segment_name(name, sizeof(name), w->segno);
	fd = openat(w->dirfd, name, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, &r, sizeof(r), 0);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	if (n == (ssize_t)sizeof(r) && r.lsn == w->lsn - SEGMENT_SIZE + 1) {
		close(fd);
		return 0;
	}
	w->fd = fd;
	w->unused = true;
	w->lsn -= SEGMENT_SIZE;
	return 0;
}

/* Switch to the next segment: the pool hands one out under its final name. */
static int next_segment(struct wal *w)
{
	char name[32];
	int fd, ret;

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->segno++;
	segment_name(name, sizeof(name), w->segno);
	fd = prealloc_pool_take(w->pool, w->dirfd, name, 0);
	if (fd < 0)
		return fd;
	w->fd = fd;
	if (w->segno > KEEP_SEGMENTS) {		/* after a checkpoint, say */
		segment_name(name, sizeof(name), w->segno - KEEP_SEGMENTS);
		ret = prealloc_pool_recycle(w->pool, w->dirfd, name, 0);
		if (ret < 0 && ret != -ENOENT)
			return ret;
	}
	return 0;
}

static int commit(struct wal *w, const struct record *r)
{
	uint64_t off = w->lsn % SEGMENT_SIZE;
	char name[32];
	ssize_t n;

	if (off == 0 && !w->unused) {
		int ret = next_segment(w);

		if (ret < 0)
			return ret;
	}
	/* Prepare the next segment early.  Failing is harmless: the switch's
	 * take then renames one itself. */
	if (off == SEGMENT_SIZE / 4 * 3) {
		segment_name(name, sizeof(name), w->segno + 1);
		(void)prealloc_pool_prepare(w->pool, w->dirfd, name, 0);
	}
	n = pwrite(w->fd, r, sizeof(*r), (off_t)off);
	if (n != (ssize_t)sizeof(*r))
		return n < 0 ? -errno : -EIO;
	if (fdatasync(w->fd) < 0)	/* the commit */
		return -errno;
	w->unused = false;
	w->lsn += sizeof(*r);
	return 0;
}

int main(int argc, char **argv)
{
	struct prealloc_pool_config cfg = {
		.size = sizeof(cfg),
		.segment_size = SEGMENT_SIZE,
		.target = 2,			/* two segments ahead */
	};
	struct prealloc_pool_stats st = { .size = sizeof(st) };
	struct wal w = { .fd = -1 };
	static struct record r;
	uint64_t total, start, done;
	int ret;

	if (argc != 3 || (total = strtoull(argv[2], NULL, 0) << 20) == 0) {
		fprintf(stderr, "usage: %s WAL-DIR MIB\n", argv[0]);
		return 2;
	}
	w.dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.dirfd < 0) {
		perror(argv[1]);
		return 1;
	}
	ret = resume(&w, argv[1]);
	start = w.lsn;
	/* The pool lives in the WAL directory itself: taking is one rename. */
	if (!ret)
		ret = prealloc_pool_open(argv[1], &cfg, &w.pool);
	if (!ret)
		ret = prealloc_pool_wait_ready(w.pool, cfg.target, -1);
	while (!ret && w.lsn - start < total) {
		r.lsn = w.lsn + 1;
		r.len = sizeof(r.payload);
		memset(r.payload, (int)(r.lsn >> 13), sizeof(r.payload));
		ret = commit(&w, &r);
	}
	done = w.lsn - start;
	if (w.pool && prealloc_pool_get_stats(w.pool, &st) == 0)
		printf("%" PRIu64 " commits, %" PRIu64 " segments: %" PRIu64 " ready when needed (%"
		       PRIu64 " prepared ahead), %" PRIu64 " made while commits waited, %" PRIu64
		       " recycled\n", done / RECORD_SIZE, done / SEGMENT_SIZE, st.hits,
		       st.prepared, st.misses, st.recycled);
	if (w.fd >= 0)
		close(w.fd);
	prealloc_pool_close(w.pool);
	close(w.dirfd);
	if (ret) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	return 0;
}
