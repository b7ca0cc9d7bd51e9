/* SPDX-License-Identifier: MIT */
/* What the pool's tests share (pool-fixture.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "pool-fixture.h"
#include "tfs.h"

static struct tfs fs;
const char *pool_fstype;
static unsigned int dir_nr;

const char *new_dir(char *buf, size_t len)
{
	char name[32];

	snprintf(name, sizeof(name), "pool-%u", dir_nr++);
	tfs_path(&fs, name, buf, len);
	assert_int_equal(mkdir(buf, 0755), 0);
	return buf;
}

int open_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(dfd >= 0);
	return dfd;
}

struct prealloc_pool *open_pool_flags(const char *dir, uint64_t seg, uint32_t target,
					     uint64_t floor, uint32_t flags)
{
	struct prealloc_pool_config c = { .size = sizeof(c), .flags = flags, .segment_size = seg,
					  .target = target, .free_floor = floor };
	struct prealloc_pool *p = NULL;

	assert_int_equal(prealloc_pool_open(dir, &c, &p), 0);
	assert_non_null(p);
	return p;
}

struct prealloc_pool *open_pool(const char *dir, uint64_t seg, uint32_t target,
				       uint64_t floor)
{
	return open_pool_flags(dir, seg, target, floor, 0);
}

struct prealloc_pool_stats stats(struct prealloc_pool *p)
{
	struct prealloc_pool_stats s = { .size = sizeof(s) };

	assert_int_equal(prealloc_pool_get_stats(p, &s), 0);
	return s;
}

bool file_cow(int fd)
{
	struct statfs sf;
	int attr = 0;

	assert_int_equal(fstatfs(fd, &sf), 0);
	if (sf.f_type != BTRFS_SUPER_MAGIC)
		return false;
	assert_int_equal(ioctl(fd, FS_IOC_GETFLAGS, &attr), 0);
	return !(attr & FS_NOCOW_FL);
}

void check_segment(int fd, uint64_t seg, bool zero)
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

unsigned int list(const char *dir, const char *prefix, unsigned long *seqs, unsigned int max)
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

ino_t inode_of(int dfd, const char *name)
{
	struct stat st;

	assert_int_equal(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	return st.st_ino;
}

void check_taken(int fd, int dfd, const char *name, uint64_t seg)
{
	struct stat st;

	check_segment(fd, seg, true);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(st.st_ino, inode_of(dfd, name));
}

void take_checked(struct prealloc_pool *p, int dfd, const char *name, uint64_t seg)
{
	int fd = prealloc_pool_take(p, dfd, name, 0);

	check_taken(fd, dfd, name, seg);
	close(fd);
}

void watch_start(struct watch *w, const char *dir, uint32_t mask)
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

void wait_event(struct watch *w, uint32_t mask, const char *name, size_t len)
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

void wait_moved_to(struct watch *w, const char *name)
{
	wait_event(w, IN_MOVED_TO, name, strlen(name) + 1);
}

void wait_tmp_created(struct watch *w)
{
	wait_event(w, IN_CREATE, TMP_PREFIX, strlen(TMP_PREFIX));
}

static int group_setup(void **state)
{
	(void)state;
	return tfs_create(&fs, pool_fstype, 1024, NULL) ? -1 : 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tfs_destroy(&fs);
	return 0;
}

int pool_run(const struct CMUnitTest *tests, size_t n)
{
	static const char *const types[] = { "ext4", "xfs", "btrfs" };
	int failed = 0;

	tfs_enter();
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		pool_fstype = types[i];
		dir_nr = 0;
		if (tfs_supported(pool_fstype))
			failed += _cmocka_run_group_tests(pool_fstype, tests, n, group_setup,
							  group_teardown);
	}
	return failed ? 1 : 0;
}
