/* SPDX-License-Identifier: MIT */
/*
 * The ready-segment pool on ext4, xfs and btrfs (root; skip otherwise): every
 * segment take hands out is complete (size, FIEMAP fully written, zeros),
 * hits and misses, takes that must not wait, names and directories, concurrent takes, names prepared
 * ahead (prealloc_pool_prepare: installed by the worker, taken while being
 * installed, closed before taken, installs that fail on the caller's name or
 * directory, several threads), recycling with
 * and without zeroing, a SIGKILLed worker mid-segment, the free-space floor,
 * ENOSPC in the worker, copy-on-write segments on btrfs (with and without
 * chattr +C on the directory), and FIFOs, devices, directories, symbolic and hard
 * links under the pool's names (left alone, never blocked on).  Nothing waits on time: prealloc_pool_wait_ready()
 * and inotify are the synchronisation.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "prealloc.h"
#include "tcheck.h"
#include "tfs.h"

#define MiB (1ull << 20)
#define SEG (4 * MiB)
#define TMP_PREFIX ".prealloc-tmp-"
#define READY_PREFIX ".prealloc-ready-"

static struct tfs fs;
static const char *fstype;
static unsigned int dir_nr;

/* A fresh pool directory on the group's filesystem. */
static const char *new_dir(char *buf, size_t len)
{
	char name[32];

	snprintf(name, sizeof(name), "pool-%u", dir_nr++);
	tfs_path(&fs, name, buf, len);
	assert_int_equal(mkdir(buf, 0755), 0);
	return buf;
}

static int open_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(dfd >= 0);
	return dfd;
}

static struct prealloc_pool *open_pool_flags(const char *dir, uint64_t seg, uint32_t target,
					     uint64_t floor, uint32_t flags)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .flags = flags, .segment_size = seg,
					  .target = target, .free_floor = floor };
	struct prealloc_pool *p = NULL;

	assert_int_equal(prealloc_pool_open(dir, &c, &p), 0);
	assert_non_null(p);
	return p;
}

static struct prealloc_pool *open_pool(const char *dir, uint64_t seg, uint32_t target,
				       uint64_t floor)
{
	return open_pool_flags(dir, seg, target, floor, 0);
}

static struct prealloc_pool_stats stats(struct prealloc_pool *p)
{
	struct prealloc_pool_stats s = { .size = sizeof(s) };

	assert_int_equal(prealloc_pool_get_stats(p, &s), 0);
	return s;
}

/* A copy-on-write file: btrfs without nodatacow (chattr +C). */
static bool file_cow(int fd)
{
	struct statfs sf;
	int attr = 0;

	assert_int_equal(fstatfs(fd, &sf), 0);
	if (sf.f_type != BTRFS_SUPER_MAGIC)
		return false;
	assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &attr), 0);
	return !(attr & FS_NOCOW_FL);
}

/* What every segment out of the pool must be: @seg bytes, every block
 * written (copy-on-write: allocated), reading zero (unless @zero is false:
 * a recycled one). */
static void check_segment(int fd, uint64_t seg, bool zero)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	static uint8_t buf[1 << 20];
	struct stat st;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, seg);
	assert_int_equal(prealloc_verify(fd, 0, seg, &cs), 0);
	assert_true(cs.fiemap);
	assert_int_equal(cs.hole_bytes, 0);
	assert_int_equal(cs.written_bytes + (file_cow(fd) ? cs.unwritten_bytes : 0), seg);
	for (uint64_t off = 0; zero && off < seg; off += sizeof(buf)) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)off);

		assert_true(n > 0);
		for (ssize_t i = 0; i < n; i++)
			if (buf[i])
				fail_msg("byte %llu is %u", (unsigned long long)off + (unsigned long long)i,
					 buf[i]);
	}
}

/* Extents of the whole file (FIEMAP): the segment was reserved in one go. */
static unsigned int extents(int fd)
{
	struct fiemap fm = { .fm_length = FIEMAP_MAX_OFFSET, .fm_flags = FIEMAP_FLAG_SYNC };

	assert_int_equal(ioctl(fd, FS_IOC_FIEMAP, &fm), 0);
	return fm.fm_mapped_extents;
}

/* Names in @dir starting with @prefix; their count, the sequence numbers of
 * ready ones in @seqs (ascending by readdir order is not promised: sorted). */
static unsigned int list(const char *dir, const char *prefix, unsigned long *seqs, unsigned int max)
{
	unsigned int n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0) {
			if (seqs && n < max)
				seqs[n] = strtoul(de->d_name + strlen(prefix), NULL, 10);
			n++;
		}
	closedir(d);
	for (unsigned int i = 1; seqs && i < n && i < max; i++)
		for (unsigned int j = i; j > 0 && seqs[j - 1] > seqs[j]; j--) {
			unsigned long t = seqs[j];

			seqs[j] = seqs[j - 1];
			seqs[j - 1] = t;
		}
	return n;
}

static uint64_t avail(const char *dir)
{
	struct statvfs sv;

	sync();
	assert_int_equal(statvfs(dir, &sv), 0);
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

/* --- arguments ------------------------------------------------------------ */

static void bad_arguments(void **state)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = SEG, .target = 1 };
	struct prealloc_pool_stats s = { .size = 8 };
	struct prealloc_pool *p = NULL, *q = NULL;
	struct { struct prealloc_pool_config c; uint64_t extra; } big = { c, 1 };
	char dir[128], file[160];
	int dfd;

	(void)state;
	new_dir(dir, sizeof(dir));
	assert_int_equal(prealloc_pool_open(NULL, &c, &p), -EINVAL);
	assert_int_equal(prealloc_pool_open(dir, NULL, &p), -EINVAL);
	assert_int_equal(prealloc_pool_open(dir, &c, NULL), -EINVAL);
	c.size = 4;
	assert_int_equal(prealloc_pool_open(dir, &c, &p), -EINVAL);
	c.size = sizeof(c);
	big.c.size = sizeof(big);
	assert_int_equal(prealloc_pool_open(dir, &big.c, &p), -E2BIG);
	c.flags = 2;
	assert_int_equal(prealloc_pool_open(dir, &c, &p), -EINVAL);
	c.flags = 0;
	c.segment_size = 0;
	assert_int_equal(prealloc_pool_open(dir, &c, &p), -EINVAL);
	c.segment_size = SEG;
	c.target = PREALLOC_POOL_MAX_TARGET + 1;
	assert_int_equal(prealloc_pool_open(dir, &c, &p), -EINVAL);
	c.target = 1;
	snprintf(file, sizeof(file), "%s/missing", dir);
	assert_int_equal(prealloc_pool_open(file, &c, &p), -ENOENT);
	assert_null(p);

	assert_int_equal(prealloc_pool_open(dir, &c, &p), 0);
	assert_int_equal(prealloc_pool_open(dir, &c, &q), -EBUSY);	/* one pool per directory */
	assert_null(q);
	dfd = open_dir(dir);
	assert_int_equal(prealloc_pool_take(NULL, dfd, "x", 0), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, dfd, "", 0), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, dfd, NULL, 0), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, dfd, "x", 1u << 1), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, dfd, ".prealloc-tmp-999999", 0), -EINVAL);
	assert_int_equal(prealloc_pool_take(p, AT_FDCWD, "/x/.prealloc-ready-1", 0), -EINVAL);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "x", PREALLOC_KEEP_SIZE), -EINVAL);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "missing", 0), -ENOENT);
	/* The 0.2 name of the zero flag is still accepted; other bits are not. */
	assert_int_equal(prealloc_pool_recycle(p, dfd, "missing", PREALLOC_ZERO_DATA), -ENOENT);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "missing", 1u << 0), -EINVAL);
	assert_int_equal(prealloc_pool_recycle(p, AT_FDCWD, dir, 0), -EINVAL);	/* a directory */
	/* A file with another link: its bytes are not only the caller's. */
	assert_int_equal(close(openat(dfd, "linked", O_RDWR | O_CREAT | O_EXCL, 0600)), 0);
	assert_int_equal(linkat(dfd, "linked", dfd, "link", 0), 0);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "link", 0), -EINVAL);
	assert_int_equal(faccessat(dfd, "link", F_OK, 0), 0);
	/* The pool's own segments are not the caller's to give back. */
	assert_int_equal(prealloc_pool_recycle(p, dfd, ".prealloc-tmp-000001", 0), -EINVAL);
	assert_int_equal(prealloc_pool_recycle(p, dfd, ".prealloc-ready-000001", 0), -EINVAL);
	assert_int_equal(prealloc_pool_wait_ready(p, 2, -1), -EINVAL);	/* above target */
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -2), -EINVAL);
	assert_int_equal(prealloc_pool_get_stats(p, &s), -EINVAL);
	assert_int_equal(prealloc_pool_get_stats(p, NULL), -EINVAL);
	assert_int_equal(prealloc_pool_get_stats(NULL, &s), -EINVAL);
	prealloc_pool_close(p);
	prealloc_pool_close(NULL);
	close(dfd);
}

/* --- hits, misses, names ------------------------------------------------- */

static void take_hits_and_names(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128], sub[160], other[64];
	struct tfs tmp = { .loop_fd = -1 };
	int dfd, sfd, fd, ofd;
	struct stat a, b;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 3, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 3, -1), 0);
	s = stats(p);
	assert_true(s.ready >= 3);
	assert_int_equal(s.target, 3);
	assert_true(s.created >= 3);
	/* Copy-on-write segments are reserved, not zeroed. */
	assert_true(s.bytes_zeroed + s.cow_segments * SEG >= 3 * SEG);
	assert_true(s.worker_ns > 0);
	assert_int_equal(s.hits + s.misses, 0);

	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "000001", 0);	/* the pool's own directory */
	check_segment(fd, SEG, true);
	assert_true(extents(fd) <= 2);	/* one reservation on a roomy filesystem */
	assert_int_equal(fstatat(dfd, "000001", &a, 0), 0);
	assert_int_equal(fstat(fd, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	/* An existing name is refused and the segment stays ready. */
	assert_int_equal(prealloc_pool_take(p, dfd, "000001", 0), -EEXIST);
	close(fd);

	/* Another directory of the same filesystem, by path relative to dfd. */
	snprintf(sub, sizeof(sub), "%s/wal", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	fd = prealloc_pool_take(p, dfd, "wal/000002", 0);
	check_segment(fd, SEG, true);
	close(fd);
	sfd = open_dir(sub);
	fd = prealloc_pool_take(p, sfd, "000003", 0);
	check_segment(fd, SEG, true);
	close(fd);
	close(sfd);

	/* Another filesystem: -EXDEV, and the segment is still in the pool. */
	assert_int_equal(prealloc_pool_wait_ready(p, 3, -1), 0);
	if (tfs_create(&tmp, "tmpfs", 16, NULL) == 0) {
		ofd = open(tmp.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		snprintf(other, sizeof(other), "x");
		assert_int_equal(prealloc_pool_take(p, ofd, other, 0), -EXDEV);
		assert_true(stats(p).ready >= 3);
		close(ofd);
		tfs_destroy(&tmp);
	}
	s = stats(p);
	assert_int_equal(s.hits, 3);
	assert_int_equal(s.misses, 0);
	prealloc_pool_close(p);

	/* Ready segments survive a close and are adopted by the next open. */
	p = open_pool(dir, SEG, 0, 1);
	assert_true(stats(p).ready >= 3);
	assert_int_equal(stats(p).ready, list(dir, READY_PREFIX, NULL, 0));
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
}

static void take_miss(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 0, 1);	/* no worker growth */
	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "seg", 0);
	check_segment(fd, SEG, true);
	close(fd);
	s = stats(p);
	assert_int_equal(s.hits, 0);
	assert_int_equal(s.misses, 1);
	assert_true(s.foreground_wait_ns > 0);
	assert_int_equal(s.created, 0);
	assert_int_equal(s.ready, 0);
	/* Nothing but the taken segment is left. */
	assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
}

/* NOWAIT hands out what is ready and, when nothing is, fails without making
 * one, leaving the name absent and the counters alone. */
static void take_nowait(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	prealloc_pool_close(p);
	p = open_pool(dir, SEG, 0, 1);	/* one ready, no refill */
	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "first", PREALLOC_POOL_TAKE_NOWAIT);
	check_segment(fd, SEG, true);
	close(fd);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "second", PREALLOC_POOL_TAKE_NOWAIT, O_DSYNC),
			 -EAGAIN);
	assert_int_equal(faccessat(dfd, "second", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	assert_int_equal(errno, ENOENT);
	s = stats(p);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.misses, 0);
	assert_int_equal(s.foreground_wait_ns, 0);
	assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
}

/* --- concurrent takes ---------------------------------------------------- */

static ino_t inode_of(int dfd, const char *name)
{
	struct stat st;

	assert_int_equal(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	return st.st_ino;
}

/* The segment @fd is the one under @name, and complete. */
static void check_taken(int fd, int dfd, const char *name, uint64_t seg)
{
	struct stat st;

	check_segment(fd, seg, true);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(st.st_ino, inode_of(dfd, name));
}

/* take @name (prepared or not), check it as above, close it. */
static void take_checked(struct prealloc_pool *p, int dfd, const char *name, uint64_t seg)
{
	int fd = prealloc_pool_take(p, dfd, name, 0);

	check_taken(fd, dfd, name, seg);
	close(fd);
}

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

/* --- names prepared ahead ----------------------------------------------- */

/* inotify events of watched directories, kept until waited for: one read
 * may return several. */
struct watch {
	int in;
	unsigned int n;
	struct {
		uint32_t mask;
		char name[64];
	} ev[256];
};

static void watch_start(struct watch *w, const char *dir, uint32_t mask)
{
	w->n = 0;
	w->in = inotify_init1(IN_CLOEXEC);
	assert_true(w->in >= 0);
	assert_true(inotify_add_watch(w->in, dir, mask) >= 0);
}

/* An event seen in @mask on a name starting with the @len bytes of @name,
 * consumed. */
static bool seen(struct watch *w, uint32_t mask, const char *name, size_t len)
{
	for (unsigned int i = 0; i < w->n; i++)
		if ((w->ev[i].mask & mask) && strncmp(w->ev[i].name, name, len) == 0) {
			memmove(&w->ev[i], &w->ev[i + 1], (w->n - i - 1) * sizeof(w->ev[0]));
			w->n--;
			return true;
		}
	return false;
}

/* Wait for such an event.  No timing: a minute without any event fails the
 * test rather than hanging it. */
static void wait_event(struct watch *w, uint32_t mask, const char *name, size_t len)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd pfd = { .fd = w->in, .events = POLLIN };

	while (!seen(w, mask, name, len)) {
		ssize_t n;

		assert_int_equal(poll(&pfd, 1, 60000), 1);
		n = read(w->in, buf, sizeof(buf));
		assert_true(n > 0);
		for (char *q = buf; q < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)q;

			if (ev->len) {
				assert_true(w->n < sizeof(w->ev) / sizeof(w->ev[0]));
				w->ev[w->n].mask = ev->mask;
				snprintf(w->ev[w->n].name, sizeof(w->ev[0].name), "%s", ev->name);
				w->n++;
			}
			q += sizeof(*ev) + ev->len;
		}
	}
}

/* Something renamed to @name: the worker's install of a prepared name. */
static void wait_moved_to(struct watch *w, const char *name)
{
	wait_event(w, IN_MOVED_TO, name, strlen(name) + 1);
}

/* prepare @name in the watched directory and wait for its install. */
static void prepare_installed(struct prealloc_pool *p, int dfd, struct watch *w, const char *name)
{
	assert_int_equal(prealloc_pool_prepare(p, dfd, name, 0), 0);
	wait_moved_to(w, name);
}

/* A pool over a new directory, opened as *@dfd and watched for @mask. */
static struct prealloc_pool *watched_pool(char *dir, size_t len, uint64_t seg, uint32_t target,
					  int *dfd, struct watch *w, uint32_t mask)
{
	struct prealloc_pool *p = open_pool(new_dir(dir, len), seg, target, 1);

	*dfd = open_dir(dir);
	watch_start(w, dir, mask);
	return p;
}

/* A pool (target 1) over a new directory, opened as *@dfd, in which each of
 * the NULL-terminated @names is prepared and installed. */
static struct prealloc_pool *pool_installed(char *dir, size_t len, int *dfd,
					    const char *const *names)
{
	struct prealloc_pool *p;
	struct watch w;

	p = watched_pool(dir, len, SEG, 1, dfd, &w, IN_MOVED_TO);
	for (; *names; names++)
		prepare_installed(p, *dfd, &w, *names);
	close(w.in);
	return p;
}

/* A temporary segment created: the worker is making one. */
static void wait_tmp_created(struct watch *w)
{
	wait_event(w, IN_CREATE, TMP_PREFIX, strlen(TMP_PREFIX));
}

static void prepare_bad_arguments(void **state)
{
	struct tfs tmp = { .loop_fd = -1 };
	struct prealloc_pool *p;
	char dir[128];
	int dfd, ofd;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 0, 1);
	dfd = open_dir(dir);
	assert_int_equal(prealloc_pool_prepare(NULL, dfd, "x", 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "x", 1), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "x", 1u << 31), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "", 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, NULL, 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, dfd, ".prealloc-ready-000001", 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, AT_FDCWD, "/x/.prealloc-tmp-1", 0), -EINVAL);
	assert_int_equal(prealloc_pool_prepare(p, -1, "x", 0), -EBADF);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "missing-dir/x", 0), -ENOENT);
	/* Another filesystem: refused at once, not left to the worker. */
	if (tfs_create(&tmp, "tmpfs", 16, NULL) == 0) {
		ofd = open(tmp.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_int_equal(prealloc_pool_prepare(p, ofd, "x", 0), -EXDEV);
		close(ofd);
		tfs_destroy(&tmp);
	}
	prealloc_pool_close(p);
	/* Nothing was queued: nothing installed, nothing made. */
	assert_int_equal(list(dir, "", NULL, 0), 2);	/* "." and ".." */
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

static void prepare_then_take(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128], sub[160];
	struct watch w;
	int dfd, dfd2, fd;
	ino_t ino;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 2, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 2, -1), 0);
	dfd = open_dir(dir);
	watch_start(&w, dir, IN_MOVED_TO);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-1", 0), 0);
	/* Queued, being installed or installed: a second prepare is refused. */
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-1", 0), -EEXIST);
	wait_moved_to(&w, "wal-1");
	ino = inode_of(dfd, "wal-1");
	/* Installed and not taken: still refused, and take is not fooled by
	 * the name existing. */
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-1", 0), -EEXIST);
	fd = prealloc_pool_take(p, dfd, "wal-1", 0);
	check_taken(fd, dfd, "wal-1", SEG);
	assert_int_equal(inode_of(dfd, "wal-1"), ino);	/* the installed one, not moved again */
	close(fd);
	s = stats(p);
	assert_int_equal(s.prepared, 1);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.misses, 0);
	/* Taken: the name is the caller's; both calls now see it exists. */
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-1", 0), -EEXIST);
	assert_int_equal(prealloc_pool_take(p, dfd, "wal-1", 0), -EEXIST);

	/* A name in a subdirectory, taken through another descriptor of the
	 * directory it was prepared relative to. */
	assert_int_equal(mkdirat(dfd, "sub", 0755), 0);
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_true(inotify_add_watch(w.in, sub, IN_MOVED_TO) >= 0);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "sub/wal-2", 0), 0);
	wait_moved_to(&w, "wal-2");
	dfd2 = open_dir(dir);
	fd = prealloc_pool_take(p, dfd2, "sub/wal-2", 0);
	check_taken(fd, dfd, "sub/wal-2", SEG);
	close(fd);
	s = stats(p);
	assert_int_equal(s.prepared, 2);
	assert_int_equal(s.hits, 2);
	assert_int_equal(s.misses, 0);
	close(w.in);
	prealloc_pool_close(p);
	close(dfd2);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* The caller's directory descriptor is closed at once; the worker still
 * installs, and take through another descriptor of it is served. */
static void prepare_dirfd_closed(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	struct watch w;
	int dfd, dfd2;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	watch_start(&w, dir, IN_MOVED_TO);
	dfd = open_dir(dir);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "wal-c", 0), 0);
	close(dfd);
	wait_moved_to(&w, "wal-c");
	close(w.in);
	dfd2 = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	take_checked(p, dfd2, "wal-c", SEG);
	assert_int_equal(stats(p).prepared, 1);
	assert_int_equal(stats(p).hits, 1);
	assert_int_equal(stats(p).misses, 0);
	prealloc_pool_close(p);
	close(dfd2);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* None ready (a target 0 pool): the worker makes one for the install. */
static void prepare_none_ready(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128];
	struct watch w;
	int dfd;

	(void)state;
	p = watched_pool(dir, sizeof(dir), SEG, 0, &dfd, &w, IN_MOVED_TO);
	prepare_installed(p, dfd, &w, "wal-0");
	take_checked(p, dfd, "wal-0", SEG);
	s = stats(p);
	assert_int_equal(s.prepared, 1);
	assert_int_equal(s.created, 1);
	assert_int_equal(s.hits, 1);
	assert_int_equal(s.misses, 0);
	assert_int_equal(s.ready, 0);
	assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	prealloc_pool_close(p);

	/* A pool that has none yet (just opened, growing): same outcome. */
	p = open_pool(dir, SEG, 2, 1);
	prepare_installed(p, dfd, &w, "wal-1");
	take_checked(p, dfd, "wal-1", SEG);
	assert_int_equal(stats(p).prepared, 1);
	assert_int_equal(stats(p).misses, 0);
	close(w.in);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* take of a name whose install is under way waits for it.  A target 0 pool
 * makes nothing but the installs' segments, so a temporary segment created
 * after prepare says the install has begun: the take must be a hit, the
 * installed segment. */
static void take_while_installing(void **state)
{
	const uint64_t seg = 32 * MiB;
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	struct watch w;
	char dir[128], name[32];
	int dfd;

	(void)state;
	p = watched_pool(dir, sizeof(dir), seg, 0, &dfd, &w, IN_CREATE);
	for (unsigned int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "wal-%u", i);
		assert_int_equal(prealloc_pool_prepare(p, dfd, name, 0), 0);
		wait_tmp_created(&w);
		take_checked(p, dfd, name, seg);
		s = stats(p);
		assert_int_equal(s.hits, i + 1);
		assert_int_equal(s.misses, 0);
		assert_int_equal(s.prepared, i + 1);
		assert_int_equal(s.created, i + 1);
		/* Nothing else made: no segment left over in the pool. */
		assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	}
	close(w.in);
	/* Taken right after prepare: still queued (withdrawn, a miss in the
	 * caller), or being installed or installed (a hit), as the threads
	 * run.  Whichever: one segment under the name, the one handed out. */
	for (unsigned int i = 3; i < 6; i++) {
		snprintf(name, sizeof(name), "wal-%u", i);
		assert_int_equal(prealloc_pool_prepare(p, dfd, name, 0), 0);
		take_checked(p, dfd, name, seg);
		assert_int_equal(list(dir, ".prealloc-", NULL, 0), 0);
	}
	s = stats(p);
	assert_int_equal(s.hits + s.misses, 6);
	/* A hit here is an install (none is ever ready), a miss a withdrawn
	 * request taken in the caller. */
	assert_int_equal(s.prepared, s.hits);
	assert_int_equal(s.created, s.prepared);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* The name appears after prepare, while the worker makes the segment for it
 * (a target 0 pool: a temporary segment is the install's).  Ours is created
 * with O_EXCL: when it succeeds, the install's rename comes later and must
 * fail.  A run where the install wins is a plain hit; try another name. */
static void name_taken_before_install(void)
{
	const uint64_t seg = 32 * MiB;
	struct prealloc_pool_stats s0, s;
	struct prealloc_pool *p;
	struct watch w;
	char dir[128], name[32];
	struct stat st;
	int dfd, fd = -1;

	p = watched_pool(dir, sizeof(dir), seg, 0, &dfd, &w, IN_CREATE);
	for (unsigned int i = 0; fd < 0; i++) {
		if (i == 10)
			fail_msg("the install always renamed before the name was created");
		snprintf(name, sizeof(name), "late-%u", i);
		s0 = stats(p);
		assert_int_equal(prealloc_pool_prepare(p, dfd, name, 0), 0);
		wait_tmp_created(&w);
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0) {
			assert_int_equal(errno, EEXIST);
			take_checked(p, dfd, name, seg);
			fd = -1;
		}
	}
	close(w.in);
	/* take waits for the install, then takes as usual: the name exists. */
	assert_int_equal(prealloc_pool_take(p, dfd, name, 0), -EEXIST);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_ino, inode_of(dfd, name));	/* ours, left alone */
	close(fd);
	/* The segment made for it is kept, and the failure is not the pool's:
	 * no error recorded (nor the back-off that comes with one). */
	s = stats(p);
	assert_int_equal(s.created, s0.created + 1);
	assert_int_equal(s.prepared, s0.prepared);
	assert_int_equal(s.ready, 1);
	assert_int_equal(s.last_error, 0);
	assert_int_equal(s.enospc, 0);
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 1);
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	/* ... and the next take is served with it. */
	take_checked(p, dfd, "next", seg);
	s = stats(p);
	assert_int_equal(s.hits, s0.hits + 1);
	assert_int_equal(s.misses, s0.misses);
	assert_int_equal(s.ready, 0);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

static int set_immutable(int fd, bool on)
{
	int flags;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return -errno;
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0 ? -errno : 0;
}

/* The name's directory refuses the rename (immutable: -EPERM, also for
 * root), deterministically: the install's hit is put back. */
static void directory_refuses_install(void)
{
	struct prealloc_pool_stats s0, s;
	struct prealloc_pool *p;
	struct watch w;
	char dir[128];
	int dfd, sub;

	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	dfd = open_dir(dir);
	assert_int_equal(mkdirat(dfd, "frozen", 0755), 0);
	sub = openat(dfd, "frozen", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(sub >= 0);
	assert_int_equal(set_immutable(sub, true), 0);
	watch_start(&w, dir, IN_CLOSE_WRITE);
	s0 = stats(p);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "frozen/x", 0), 0);
	/* The install opened the ready segment and closed it once its rename
	 * failed; take waits for the rest and takes as usual: refused too. */
	wait_event(&w, IN_CLOSE_WRITE, READY_PREFIX, strlen(READY_PREFIX));
	close(w.in);
	assert_int_equal(prealloc_pool_take(p, dfd, "frozen/x", 0), -EPERM);
	s = stats(p);
	assert_int_equal(s.ready, 1);		/* still in the pool */
	assert_int_equal(s.prepared, s0.prepared);
	assert_int_equal(s.hits, s0.hits);
	assert_int_equal(s.misses, s0.misses);
	assert_int_equal(s.last_error, 0);
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 1);
	/* Writable again: a plain hit, and the pool refills. */
	assert_int_equal(set_immutable(sub, false), 0);
	take_checked(p, dfd, "frozen/x", SEG);
	assert_int_equal(stats(p).hits, s0.hits + 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	assert_int_equal(stats(p).last_error, 0);
	prealloc_pool_close(p);
	close(sub);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* Installs that fail because of the caller's name or directory: take then
 * takes as usual and says what the name says; the segment stays in the pool
 * and the pool's own error state is untouched. */
static void prepare_install_fails(void **state)
{
	(void)state;
	name_taken_before_install();
	directory_refuses_install();
}

/* An installed name removed or replaced by the caller before the take. */
static void prepared_name_changed(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	p = pool_installed(dir, sizeof(dir), &dfd, (const char *const[]){ "gone", "replaced", NULL });
	/* Removed: take makes it anew (a plain take). */
	assert_int_equal(unlinkat(dfd, "gone", 0), 0);
	take_checked(p, dfd, "gone", SEG);
	/* Removed and another file created under the name (the freed inode
	 * number could be the new file's, were the segment not held open):
	 * refused, and that file left alone. */
	assert_int_equal(unlinkat(dfd, "replaced", 0), 0);
	fd = openat(dfd, "replaced", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(prealloc_pool_take(p, dfd, "replaced", 0), -ESTALE);
	fd = openat(dfd, "replaced", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), 0);
	close(fd);
	assert_int_equal(stats(p).prepared, 2);
	/* Said once, then forgotten: the name is the caller's file. */
	assert_int_equal(prealloc_pool_take(p, dfd, "replaced", 0), -EEXIST);
	/* Once it is removed, the name can be prepared again. */
	assert_int_equal(unlinkat(dfd, "replaced", 0), 0);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "replaced", 0), 0);
	take_checked(p, dfd, "replaced", SEG);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
}

/* Close leaves an installed, untaken name as a complete segment; a request
 * still queued is dropped (or its install abandoned): never half a segment
 * under a name. */
static void close_with_prepared(void **state)
{
	const uint64_t big = 64 * MiB;
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	p = pool_installed(dir, sizeof(dir), &dfd, (const char *const[]){ "kept", NULL });
	prealloc_pool_close(p);
	/* Close abandons or finishes what the worker was making: no
	 * temporary left behind (checked before an open would clean up). */
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	fd = openat(dfd, "kept", O_RDONLY | O_CLOEXEC);
	check_segment(fd, SEG, true);
	close(fd);

	/* Closed right after prepare, the worker making a big segment. */
	p = open_pool(dir, big, 0, 1);
	assert_int_equal(prealloc_pool_prepare(p, dfd, "maybe", 0), 0);
	prealloc_pool_close(p);
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	fd = openat(dfd, "maybe", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		check_segment(fd, big, true);
		close(fd);
	} else {
		assert_int_equal(errno, ENOENT);
	}
	/* The next open leaves the installed names alone. */
	p = open_pool(dir, SEG, 0, 1);
	assert_int_equal(faccessat(dfd, "kept", F_OK, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
	assert_int_equal(tfs_rmtree(dir), 0);
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

/* --- recycling ----------------------------------------------------------- */

/* Take until the segment with inode @ino comes out (it was recycled after
 * the ones ready then, and the worker serves recycled segments first). */
static int take_inode(struct prealloc_pool *p, int dfd, ino_t ino, uint32_t target)
{
	char name[32];

	for (unsigned int i = 0; i < target + 2; i++) {
		struct stat st;
		int fd;

		assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
		snprintf(name, sizeof(name), "again-%lu-%u", (unsigned long)ino, i);
		fd = prealloc_pool_take(p, dfd, name, 0);
		assert_true(fd >= 0);
		assert_int_equal(fstat(fd, &st), 0);
		if (st.st_ino == ino)
			return fd;
		close(fd);
	}
	fail_msg("recycled segment never came back");
	return -1;
}

static void recycle_one(bool zero, uint64_t new_size)
{
	struct prealloc_pool_stats s0;
	struct prealloc_pool *p;
	uint8_t *expect = calloc(1, SEG);
	char dir[128];
	struct stat st;
	int dfd, fd;

	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 2, 1);
	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "used", 0);
	assert_true(fd >= 0);
	assert_int_equal(tc_write_pattern(fd, expect, 7, 4096, SEG / 2), 0);
	if (new_size != SEG)	/* a segment the database cut or grew */
		assert_int_equal(ftruncate(fd, (off_t)new_size), 0);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	s0 = stats(p);
	assert_int_equal(prealloc_pool_recycle(p, dfd, "used", zero ? PREALLOC_POOL_RECYCLE_ZERO : 0),
			 0);
	assert_int_equal(faccessat(dfd, "used", F_OK, 0), -1);	/* gone at once */
	fd = take_inode(p, dfd, st.st_ino, 2);
	check_segment(fd, SEG, zero);
	if (new_size < SEG)
		memset(expect + new_size, 0, SEG - new_size);
	if (!zero)	/* old bytes kept (up to the cut), the rest zero */
		assert_int_equal(tc_compare(fd, expect, SEG), -1);
	close(fd);
	assert_int_equal(stats(p).recycled, s0.recycled + 1);
	prealloc_pool_close(p);
	close(dfd);
	free(expect);
}

static void recycle_zeroed(void **state)
{
	(void)state;
	recycle_one(true, SEG);
}

static void recycle_kept(void **state)
{
	(void)state;
	recycle_one(false, SEG);
}

/* Recycled segments are kept even when the pool is at its target. */
static void recycle_beyond_target(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	struct stat st;
	int dfd, fd;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	dfd = open_dir(dir);
	fd = prealloc_pool_take(p, dfd, "used", 0);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);	/* at target again */
	assert_int_equal(prealloc_pool_recycle(p, dfd, "used", 0), 0);
	fd = take_inode(p, dfd, st.st_ino, 1);
	check_segment(fd, SEG, true);	/* it was never written: still zero */
	close(fd);
	assert_int_equal(stats(p).recycled, 1);
	prealloc_pool_close(p);
	close(dfd);
}

static void recycle_cut_and_grown(void **state)
{
	(void)state;
	recycle_one(false, SEG / 4);	/* grown back: the tail written, zero */
	recycle_one(true, SEG * 2);	/* cut to the segment size */
}

/* --- a worker killed mid-segment ---------------------------------------- */

#define CRASH_SEG (64 * MiB)
#define KILLS 4

/* Child: run a pool until killed. */
static void run_pool_forever(const char *dir)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = CRASH_SEG,
					  .target = 8, .free_floor = 1 };
	struct prealloc_pool *p;

	if (prealloc_pool_open(dir, &c, &p))
		_exit(3);
	for (;;)
		pause();
}

static void killed_mid_segment(void **state)
{
	unsigned long seqs[64];
	unsigned int mid = 0, n;
	struct prealloc_pool *p;
	char dir[128];
	int dfd;

	(void)state;
	new_dir(dir, sizeof(dir));
	for (unsigned int k = 1; k <= KILLS; k++) {
		struct watch w;
		int st;
		pid_t pid;

		watch_start(&w, dir, IN_CREATE);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			run_pool_forever(dir);
		/* The k-th segment of this run is being made: kill it there. */
		for (unsigned int i = 0; i < k; i++)
			wait_tmp_created(&w);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFSIGNALED(st));
		mid += list(dir, TMP_PREFIX, NULL, 0) > 0;
		close(w.in);
	}
	/* At least one kill landed while a segment was half made (the window is
	 * the whole zeroing of 64 MiB; the kill follows its creation at once). */
	assert_true(mid > 0);

	/* Restart: leftovers gone, every segment still there is complete. */
	p = open_pool(dir, CRASH_SEG, 0, 1);
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	n = list(dir, READY_PREFIX, seqs, 64);
	assert_int_equal(stats(p).ready, n);
	dfd = open_dir(dir);
	for (unsigned int i = 0; i < n; i++) {
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "seg-%u", i);
		fd = prealloc_pool_take(p, dfd, name, 0);
		check_segment(fd, CRASH_SEG, true);
		close(fd);
	}
	assert_int_equal(stats(p).misses, 0);
	prealloc_pool_close(p);
	close(dfd);
}

/*
 * A power cut, as near as a test gets: the filesystem is shut down without
 * flushing its log (FS_IOC_SHUTDOWN, NOLOGFLUSH: what is not on disk is
 * lost, as in xfstests' godown), then mounted again.  Segments published
 * before the cut (renamed, directory synced) must be there and complete;
 * nothing else may look ready.
 */
#define PA_FS_IOC_SHUTDOWN _IOR('X', 125, uint32_t)
#define PA_SHUTDOWN_NOLOGFLUSH 2u

static void power_cut_mid_segment(void **state)
{
	unsigned long seqs[64];
	uint32_t how = PA_SHUTDOWN_NOLOGFLUSH;
	struct prealloc_pool *p;
	struct watch w;
	int dfd, st;
	unsigned int n;
	struct tfs t;
	pid_t pid;

	(void)state;
	assert_int_equal(tfs_create(&t, fstype, 512, NULL), 0);
	watch_start(&w, t.dir, IN_CREATE);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		run_pool_forever(t.dir);
	/* Two segments published, the third under way: cut. */
	for (unsigned int i = 0; i < 3; i++)
		wait_tmp_created(&w);
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ioctl(dfd, PA_FS_IOC_SHUTDOWN, &how) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		close(dfd);
		close(w.in);
		tfs_destroy(&t);
		skip();
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(dfd);
	close(w.in);
	assert_int_equal(umount2(t.dir, 0), 0);
	assert_int_equal(mount(t.dev, t.dir, fstype, 0, NULL), 0);

	/* Before any pool open cleans up: every ready name is complete. */
	n = list(t.dir, READY_PREFIX, seqs, 64);
	assert_true(n >= 2);
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (unsigned int i = 0; i < n; i++) {
		char name[48];
		int fd;

		snprintf(name, sizeof(name), READY_PREFIX "%06lu", seqs[i]);
		fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
		check_segment(fd, CRASH_SEG, true);
		close(fd);
	}
	p = open_pool(t.dir, CRASH_SEG, 0, 1);
	assert_int_equal(stats(p).ready, n);
	assert_int_equal(list(t.dir, TMP_PREFIX, NULL, 0), 0);
	prealloc_pool_close(p);
	close(dfd);
	tfs_destroy(&t);
}

/* --- out of space -------------------------------------------------------- */

/* Fill @dir's filesystem with a file until @left bytes are available. */
static int fill_to(const char *dir, const char *name, uint64_t left)
{
	char path[192];
	uint64_t a = avail(dir);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_true(a > left);
	assert_int_equal(fallocate(fd, 0, 0, (off_t)(a - left)), 0);
	assert_int_equal(fsync(fd), 0);
	return fd;
}

static void floor_gives_space_back(void **state)
{
	const uint64_t seg = 8 * MiB, floor = 64 * MiB;
	unsigned long before[16], after[16];
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	struct tfs t;
	int dfd, filler, fd;
	unsigned int nb, na;

	(void)state;
	/* btrfs's free space is an estimate that moves by whole chunks: the
	 * exact counts below do not hold there. */
	if (strcmp(fstype, "btrfs") == 0)
		skip();
	assert_int_equal(tfs_create(&t, fstype, 400, NULL), 0);
	p = open_pool(t.dir, seg, 8, floor);
	assert_int_equal(prealloc_pool_wait_ready(p, 8, -1), 0);
	nb = list(t.dir, READY_PREFIX, before, 16);
	assert_int_equal(nb, 8);

	/* Someone else eats the space: 20 MiB below the floor.  A take (a hit,
	 * the oldest segment) sends the worker round: it gives space back and
	 * does not grow again. */
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	filler = fill_to(t.dir, "filler", floor - 20 * MiB);
	fd = prealloc_pool_take(p, dfd, "wal-1", 0);
	check_segment(fd, seg, true);
	close(fd);
	assert_int_equal(prealloc_pool_wait_ready(p, 8, -1), -ENOSPC);
	assert_true(avail(t.dir) >= floor);	/* the floor holds */
	s = stats(p);
	assert_int_equal(s.removed, 3);		/* 24 MiB for 20 */
	assert_int_equal(s.hits, 1);
	na = list(t.dir, READY_PREFIX, after, 16);
	assert_int_equal(na, s.ready);
	assert_int_equal(na, nb - 1 - 3);
	/* Oldest first: the ones left are the newest. */
	for (unsigned int i = 0; i < na; i++)
		assert_int_equal(after[i], before[nb - na + i]);

	/* A ready segment is still handed out, as a hit. */
	fd = prealloc_pool_take(p, dfd, "wal-2", 0);
	check_segment(fd, seg, true);
	close(fd);
	assert_int_equal(stats(p).hits, 2);
	/* Not growing below the floor: what it was, less the one taken. */
	assert_int_equal(prealloc_pool_wait_ready(p, 8, -1), -ENOSPC);
	assert_int_equal(stats(p).ready, na - 1);

	/* Space comes back: so does the pool.  (Cut before the unlink: xfs
	 * frees an unlinked file's blocks later, in the background.) */
	assert_int_equal(ftruncate(filler, 0), 0);
	close(filler);
	assert_int_equal(unlinkat(dfd, "filler", 0), 0);
	assert_int_equal(prealloc_pool_wait_ready(p, 8, -1), 0);
	prealloc_pool_close(p);
	close(dfd);
	tfs_destroy(&t);
}

/* ext4 with few inodes: the worker meets a real ENOSPC creating a segment. */
static void enospc_in_worker(void **state)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	unsigned int files = 0;
	char name[32];
	struct tfs t;
	int dfd, fd, fd2;

	(void)state;
	if (strcmp(fstype, "ext4") != 0)
		skip();
	assert_int_equal(tfs_create(&t, "ext4", 128, "-N 64"), 0);
	dfd = open(t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (;; files++) {
		snprintf(name, sizeof(name), "f%u", files);
		fd = openat(dfd, name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			break;
		close(fd);
	}
	assert_int_equal(errno, ENOSPC);
	assert_true(files >= 2);
	/* Inodes for two segments. */
	assert_int_equal(unlinkat(dfd, "f0", 0), 0);
	assert_int_equal(unlinkat(dfd, "f1", 0), 0);

	p = open_pool(t.dir, SEG, 4, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 4, -1), -ENOSPC);
	s = stats(p);
	assert_int_equal(s.ready, 2);
	assert_int_equal(s.target, 2);	/* shrunk */
	assert_true(s.enospc >= 1);
	assert_int_equal(s.last_error, 0);

	/* Never a failed take while a segment is ready. */
	fd = prealloc_pool_take(p, dfd, "wal-1", 0);
	check_segment(fd, SEG, true);
	fd2 = prealloc_pool_take(p, dfd, "wal-2", 0);
	check_segment(fd2, SEG, true);
	assert_int_equal(stats(p).hits, 2);
	/* None ready and no inode: now the take fails, and says why. */
	assert_int_equal(prealloc_pool_take(p, dfd, "wal-3", 0), -ENOSPC);
	close(fd);
	close(fd2);

	/* Inodes back: the target grows back. */
	for (unsigned int i = 2; i < 8; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		assert_int_equal(unlinkat(dfd, name, 0), 0);
	}
	assert_int_equal(prealloc_pool_wait_ready(p, 4, -1), 0);
	assert_int_equal(stats(p).target, 4);
	prealloc_pool_close(p);
	close(dfd);
	tfs_destroy(&t);
}

/* --- fork ------------------------------------------------------------------ */

static void forked_child(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	int st;
	pid_t pid;

	(void)state;
	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 1, 1);
	/* Fork with the worker idle: what a busy worker had allocated would be
	 * unreachable in the child, and valgrind would say so. */
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct prealloc_pool_stats s = { .size = sizeof(s) };
		bool ok = prealloc_pool_take(p, AT_FDCWD, "/nonexistent/x", 0) == -ECHILD &&
			  prealloc_pool_get_stats(p, &s) == -ECHILD &&
			  prealloc_pool_prepare(p, AT_FDCWD, "/nonexistent/x", 0) == -ECHILD &&
			  prealloc_pool_wait_ready(p, 1, -1) == -ECHILD;

		prealloc_pool_close(p);	/* frees the child's copy only */
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(prealloc_pool_get_stats(p, &(struct prealloc_pool_stats){ .size = 16 }), 0);
	prealloc_pool_close(p);
}

/* --- open flags and the context --------------------------------------------- */

/* take_ex() with @oflags: the descriptor has them (or O_DIRECT is refused
 * and the name stays free), and the segment is complete. */
static void take_with(struct prealloc_pool *p, int dfd, const char *name, int oflags)
{
	int fd = prealloc_pool_take_ex(p, dfd, name, 0, oflags), rfd;
	void *buf = NULL;

	if (fd == -EINVAL && (oflags & O_DIRECT)) {
		assert_int_equal(faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW), -1);
		return;
	}
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & (oflags | O_ACCMODE), oflags | O_RDWR);
	assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC);
	assert_int_equal(posix_memalign(&buf, 4096, 4096), 0);
	memset(buf, 0, 4096);
	assert_int_equal(pwrite(fd, buf, 4096, 0), 4096);	/* aligned: also O_DIRECT */
	free(buf);
	close(fd);
	rfd = openat(dfd, name, O_RDONLY | O_CLOEXEC);	/* not O_DIRECT: any buffer */
	check_segment(rfd, SEG, true);
	close(rfd);
}

static void take_open_flags(void **state)
{
	struct prealloc_pool *p;
	char dir[128];
	struct watch w;
	int dfd;

	(void)state;
	dfd = open_dir(new_dir(dir, sizeof(dir)));
	p = open_pool(dir, SEG, 2, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 2, -1), 0);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "x", 0, O_APPEND), -EINVAL);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "x", 0, O_WRONLY), -EINVAL);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "x", 0, O_CREAT | O_DSYNC), -EINVAL);
	assert_int_equal(prealloc_pool_take_ex(p, dfd, "x", 1u << 1, O_DSYNC), -EINVAL);
	assert_int_equal(prealloc_pool_take_ex(NULL, dfd, "x", 0, O_DSYNC), -EINVAL);
	assert_int_equal(faccessat(dfd, "x", F_OK, 0), -1);
	assert_int_equal(stats(p).ready, 2);
	take_with(p, dfd, "hit-dsync", O_DSYNC);		/* hits */
	take_with(p, dfd, "hit-direct", O_DIRECT);
	prealloc_pool_close(p);
	close(dfd);

	p = open_pool(new_dir(dir, sizeof(dir)), SEG, 0, 1);	/* none ready */
	dfd = open_dir(dir);
	take_with(p, dfd, "miss-sync", O_SYNC);			/* misses */
	take_with(p, dfd, "miss-direct", O_DIRECT | O_DSYNC);
	assert_int_equal(stats(p).misses, 2);
	watch_start(&w, dir, IN_MOVED_TO);			/* a prepared name */
	assert_int_equal(prealloc_pool_prepare(p, dfd, "prepared", 0), 0);
	wait_moved_to(&w, "prepared");
	take_with(p, dfd, "prepared", O_DSYNC);
	assert_int_equal(stats(p).hits, 1);
	close(w.in);
	prealloc_pool_close(p);
	close(dfd);
}

/* A context in the config: the pool holds its own reference (the caller's
 * is dropped at once), and a 0.2-sized config is still accepted. */
static void config_context(void **state)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = SEG, .target = 1,
					  .free_floor = 1 };
	struct prealloc_pool *p;
	char dir[128];
	int dfd, fd;

	(void)state;
	dfd = open_dir(new_dir(dir, sizeof(dir)));
	assert_int_equal(prealloc_ctx_new(NULL, 0, &c.ctx), 0);
	assert_int_equal(prealloc_pool_open(dir, &c, &p), 0);
	assert_non_null(prealloc_ctx_unref(c.ctx));	/* the pool's reference */
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	fd = prealloc_pool_take(p, dfd, "a", 0);
	check_segment(fd, SEG, true);
	close(fd);
	prealloc_pool_close(p);

	c.ctx = NULL;
	c.size = offsetof(struct prealloc_pool_config, ctx);
	assert_int_equal(prealloc_pool_open(dir, &c, &p), 0);
	assert_int_equal(prealloc_pool_wait_ready(p, 1, -1), 0);
	prealloc_pool_close(p);
	close(dfd);
}

/* --- copy-on-write ----------------------------------------------------------- */

/*
 * btrfs: without +C on the directory a segment is allocated and durable but
 * not written (overwrites go to new blocks anyway), with +C it is written as
 * on ext4.  Either way the worker's segments are adopted again by the next
 * open: creation and adoption agree.
 */
static void cow_pool(bool nocow)
{
	struct prealloc_pool_stats s;
	struct prealloc_pool *p;
	char dir[128];
	int dfd, attr = 0;

	dfd = open_dir(new_dir(dir, sizeof(dir)));
	if (nocow) {	/* chattr +C: new files inherit it */
		assert_int_equal(ioctl(dfd, FS_IOC_GETFLAGS, &attr), 0);
		attr |= FS_NOCOW_FL;
		assert_int_equal(ioctl(dfd, FS_IOC_SETFLAGS, &attr), 0);
	}
	p = open_pool(dir, SEG, 3, 1);
	assert_int_equal(prealloc_pool_wait_ready(p, 3, -1), 0);
	s = stats(p);
	assert_int_equal(s.cow_segments, nocow ? 0 : s.created);
	assert_true(nocow ? s.bytes_zeroed >= 3 * SEG : s.bytes_zeroed == 0);
	prealloc_pool_close(p);

	p = open_pool(dir, SEG, 0, 1);
	s = stats(p);
	assert_int_equal(s.ready, 3);
	assert_int_equal(s.cow_segments, nocow ? 0 : 3);
	for (int i = 0; i < 3; i++) {
		struct prealloc_census cs = { .size = sizeof(cs) };
		char name[16];
		int fd;

		snprintf(name, sizeof(name), "wal-%d", i);
		fd = prealloc_pool_take(p, dfd, name, 0);
		check_segment(fd, SEG, true);
		assert_int_equal(file_cow(fd), !nocow);
		assert_int_equal(prealloc_verify(fd, 0, SEG, &cs), 0);
		assert_int_equal(cs.written_bytes, nocow ? SEG : 0);
		close(fd);
	}
	close(dfd);
	assert_int_equal(stats(p).hits, 3);	/* every one adopted */
	prealloc_pool_close(p);
}

static void cow_segments_adopted(void **state)
{
	(void)state;
	if (strcmp(fstype, "btrfs") != 0)
		skip();
	for (int nocow = 0; nocow <= 1; nocow++)	/* the default, then chattr +C */
		cow_pool(nocow);
}

/* --- names the pool did not make --------------------------------------------- */

/* Things under the pool's names that the pool cannot have made.  Sequence 0
 * and 1 are what a fresh pool would make first: it must step past them. */
static const struct foreign {
	const char *name;
	mode_t type;
} foreign[] = {
	{ READY_PREFIX "000000", S_IFIFO },	/* open() would block */
	{ TMP_PREFIX "000001", S_IFDIR },	/* unlink() would fail */
	{ READY_PREFIX "000999", S_IFIFO },
	{ TMP_PREFIX "000998", S_IFIFO },
	{ READY_PREFIX "000997", S_IFLNK },	/* to a complete segment-sized file */
	{ READY_PREFIX "000996", S_IFDIR },
	{ READY_PREFIX "000995", S_IFCHR },
	{ READY_PREFIX "000994", S_IFREG },	/* a hard link to "data" */
	{ TMP_PREFIX "000993", S_IFREG },	/* a hard link to "data" */
};

static void make_foreign(int dfd)
{
	int fd = openat(dfd, "data", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	/* A complete segment by content: only its links make it not the pool's. */
	assert_true(fd >= 0);
	assert_int_equal(prealloc_file(fd, 0, SEG, 0), 0);
	close(fd);
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		const char *n = foreign[i].name;
		int ret;

		switch (foreign[i].type) {
		case S_IFIFO: ret = mkfifoat(dfd, n, 0600); break;
		case S_IFDIR: ret = mkdirat(dfd, n, 0700); break;
		case S_IFLNK: ret = symlinkat("data", dfd, n); break;
		case S_IFCHR: ret = mknodat(dfd, n, S_IFCHR | 0600, makedev(1, 3)); break;
		default: ret = linkat(dfd, "data", dfd, n, 0); break;
		}
		assert_int_equal(ret, 0);
	}
}

/* In a child under alarm(), so that a scan that blocks fails the test
 * instead of hanging it: open, fill, close and reopen the pool.  The exit
 * status says which step failed. */
static void open_twice(const char *dir)
{
	struct prealloc_pool_stats s = { .size = sizeof(s) };
	struct prealloc_pool *p;
	struct prealloc_pool_config c = { .size = sizeof(c), .segment_size = SEG, .target = 2,
					  .free_floor = 1 };

	alarm(30);	/* seconds of work at most, even under sanitizers */
	if (prealloc_pool_open(dir, &c, &p))
		_exit(2);
	if (prealloc_pool_wait_ready(p, 2, -1) || prealloc_pool_get_stats(p, &s) ||
	    s.ready != 2 || s.last_error || s.misses)
		_exit(3);
	prealloc_pool_close(p);
	c.target = 0;
	if (prealloc_pool_open(dir, &c, &p))
		_exit(4);
	if (prealloc_pool_get_stats(p, &s) || s.ready != 2)
		_exit(5);
	prealloc_pool_close(p);
	_exit(0);
}

static void foreign_names_left_alone(void **state)
{
	struct stat st;
	char dir[128];
	int dfd, ws;
	pid_t pid;

	(void)state;
	dfd = open_dir(new_dir(dir, sizeof(dir)));
	make_foreign(dfd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		open_twice(dir);
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (WIFSIGNALED(ws))
		fail_msg("the pool hung or crashed (signal %d)", WTERMSIG(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		assert_int_equal(fstatat(dfd, foreign[i].name, &st, AT_SYMLINK_NOFOLLOW), 0);
		assert_int_equal(st.st_mode & S_IFMT, foreign[i].type);
	}
	assert_int_equal(fstatat(dfd, "data", &st, 0), 0);
	assert_int_equal(st.st_nlink, 3);
	assert_int_equal((uint64_t)st.st_size, SEG);
	/* The two the pool made, and the six foreign ready names. */
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 2 + 6);
	close(dfd);
}

/* --- the tool ------------------------------------------------------------- */

static int tool(const char *args)
{
	const char *exe = getenv("PREALLOC_TOOL");
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>&1", exe, args);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void tool_fills_and_inspects(void **state)
{
	char dir[128], args[256];

	(void)state;
	if (!getenv("PREALLOC_TOOL"))
		skip();
	new_dir(dir, sizeof(dir));
	snprintf(args, sizeof(args), "pool %s --segment-size 4M --count 3 --free-floor 1", dir);
	assert_int_equal(tool(args), 0);
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 3);
	assert_int_equal(list(dir, TMP_PREFIX, NULL, 0), 0);
	snprintf(args, sizeof(args), "pool %s --segment-size 4M --json", dir);	/* inspect */
	assert_int_equal(tool(args), 0);
	assert_int_equal(list(dir, READY_PREFIX, NULL, 0), 3);
	snprintf(args, sizeof(args), "pool %s --count 3", dir);	/* no segment size */
	assert_int_equal(tool(args), 2);
	snprintf(args, sizeof(args), "pool %s/missing --segment-size 4M", dir);
	assert_int_equal(tool(args), 1);
}

static int group_setup(void **state)
{
	(void)state;
	return tfs_create(&fs, fstype, 1024, NULL) ? -1 : 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tfs_destroy(&fs);
	return 0;
}

int main(void)
{
	static const char *const types[] = { "ext4", "xfs", "btrfs" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_arguments),
		cmocka_unit_test(take_hits_and_names),
		cmocka_unit_test(take_miss),
		cmocka_unit_test(take_nowait),
		cmocka_unit_test(concurrent_takes),
		cmocka_unit_test(prepare_bad_arguments),
		cmocka_unit_test(prepare_then_take),
		cmocka_unit_test(prepare_dirfd_closed),
		cmocka_unit_test(prepare_none_ready),
		cmocka_unit_test(take_while_installing),
		cmocka_unit_test(prepare_install_fails),
		cmocka_unit_test(prepared_name_changed),
		cmocka_unit_test(close_with_prepared),
		cmocka_unit_test(concurrent_prepares),
		cmocka_unit_test(recycle_zeroed),
		cmocka_unit_test(recycle_kept),
		cmocka_unit_test(recycle_cut_and_grown),
		cmocka_unit_test(recycle_beyond_target),
		cmocka_unit_test(forked_child),
		cmocka_unit_test(foreign_names_left_alone),
		cmocka_unit_test(cow_segments_adopted),
		cmocka_unit_test(take_open_flags),
		cmocka_unit_test(config_context),
		cmocka_unit_test(tool_fills_and_inspects),
		cmocka_unit_test(killed_mid_segment),
		cmocka_unit_test(power_cut_mid_segment),
		cmocka_unit_test(floor_gives_space_back),
		cmocka_unit_test(enospc_in_worker),
	};
	int failed = 0;

	tfs_enter();
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		fstype = types[i];
		dir_nr = 0;
		if (tfs_supported(fstype))
			failed += cmocka_run_group_tests_name(fstype, tests, group_setup,
							      group_teardown);
	}
	return failed ? 1 : 0;
}
