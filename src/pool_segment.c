/* SPDX-License-Identifier: MIT */
/*
 * The pool's segments on disk: naming, making one (temporary name, one
 * reservation, written, durable), moving one in or out with
 * renameat2(RENAME_NOREPLACE) and a directory fsync, and the start-up scan
 * that keeps only complete segments.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "mutant.h"
#include "pool.h"

void pa_pool_name(char *buf, size_t len, bool ready, uint32_t seq)
{
	snprintf(buf, len, "%s%06u", ready ? PA_POOL_READY_PREFIX : PA_POOL_TMP_PREFIX, seq);
}

bool pa_pool_out_of_space(int err)
{
	return err == -ENOSPC || err == -EDQUOT;
}

static int sync_fd(int fd)
{
	return PA_RETRY_EINTR(fsync(fd)) < 0 ? -errno : 0;
}

/* Open the directory that holds @name (relative to @dirfd), its status in
 * @st. */
static int open_parent(int dirfd, const char *name, struct stat *st)
{
	const char *slash = strrchr(name, '/');
	char *dir = NULL;
	int fd;

	if (slash) {
		dir = strndup(name, slash == name ? 1 : (size_t)(slash - name));
		if (!dir)
			return -ENOMEM;
	}
	fd = openat(dirfd, dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* fsync the directory holding @name, unless it is the pool's own (the
 * callers sync that one anyway). */
static int sync_other_parent(struct prealloc_pool *p, int dirfd, const char *name)
{
	struct stat st;
	int fd = open_parent(dirfd, name, &st), ret = 0;

	if (fd < 0)
		return fd;
	if (st.st_dev != p->dev || st.st_ino != p->ino)
		ret = sync_fd(fd);
	close(fd);
	return ret;
}

/* 0 if the directory that holds @name is on the pool's filesystem, else
 * -EXDEV or -errno: checked before the worker renames into it. */
int pa_pool_same_fs(const struct prealloc_pool *p, int dirfd, const char *name)
{
	struct stat st;
	int fd = open_parent(dirfd, name, &st);

	if (fd < 0)
		return fd;
	close(fd);
	return st.st_dev == p->dev ? 0 : -EXDEV;
}

static int rename_noreplace(int from_dir, const char *from, int to_dir, const char *to)
{
	return renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE) < 0 ? -errno : 0;
}

/* Both directories are synced: on a crash the segment is under one name.
 * *@ret_renamed says whether the rename itself happened (a failure after it
 * is a directory sync's). */
int pa_pool_move(struct prealloc_pool *p, const char *from, int dirfd, const char *to,
		 bool *ret_renamed)
{
	int ret = rename_noreplace(p->dirfd, from, dirfd, to);

	*ret_renamed = !ret;
	if (pa_mutant(PA_MUTANT_DIR_SYNC))
		return ret;
	if (!ret)
		ret = sync_other_parent(p, dirfd, to);
	if (!ret)
		ret = sync_fd(p->dirfd);
	return ret;
}

int pa_pool_move_in(struct prealloc_pool *p, int dirfd, const char *from, const char *to)
{
	int ret = rename_noreplace(dirfd, from, p->dirfd, to);

	if (!ret)
		ret = sync_other_parent(p, dirfd, from);
	if (!ret)
		ret = sync_fd(p->dirfd);
	return ret;
}

int pa_pool_remove(struct prealloc_pool *p, bool ready, uint32_t seq)
{
	char name[64];
	int fd;

	pa_pool_name(name, sizeof(name), ready, seq);
	/* Cut first: xfs frees an unlinked file's blocks later, in the
	 * background, and the free-space floor must see the space back at once
	 * (a crash in between leaves an empty segment, removed at start-up). */
	fd = openat(p->dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		(void)!ftruncate(fd, 0);
		close(fd);
	}
	if (unlinkat(p->dirfd, name, 0) < 0)
		return -errno;
	return sync_fd(p->dirfd);
}

int pa_pool_publish(struct prealloc_pool *p, uint32_t seq)
{
	char from[64], to[64];
	int ret;

	pa_pool_name(from, sizeof(from), false, seq);
	pa_pool_name(to, sizeof(to), true, seq);
	ret = rename_noreplace(p->dirfd, from, p->dirfd, to);
	return ret ? ret : sync_fd(p->dirfd);
}

/* The worker gives up a segment when the pool closes. */
static int keep_going(uint64_t done, uint64_t total, void *data)
{
	struct prealloc_pool *p = data;

	(void)done;
	(void)total;
	return __atomic_load_n(&p->stop, __ATOMIC_RELAXED);
}

/*
 * Quiet writes: while a segment is ready anyway the worker writes 256 KiB at
 * a time, one in flight, so a commit's cache flush waits behind at most that
 * much.  Behind the default 4 x 4 MiB burst, the first commit after a switch
 * took 10-30 times a normal one (tests/bench/RESULTS.md).
 */
#define PA_POOL_QUIET_REQUEST (256u << 10)

/* Make the open file @fd a complete segment: written and durable. */
static int fill(struct prealloc_pool *p, int fd, unsigned int flags, enum pa_pool_pace pace,
		uint64_t *zeroed)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags };
	struct prealloc_report r = { .size = sizeof(r) };
	uint64_t len = p->cfg.segment_size;
	int ret;

	if (pace != PA_POOL_CALLER) {
		o.max_rate = p->cfg.max_rate;
		o.progress = keep_going;
		o.progress_data = p;
	}
	if (pace == PA_POOL_QUIET && !(p->cfg.flags & PREALLOC_POOL_FULL_SPEED)) {
		o.flags |= PREALLOC_BACKGROUND;
		o.request_bytes = PA_POOL_QUIET_REQUEST;
		o.queue_depth = 1;
	}
	if (pa_mutant(PA_MUTANT_POOL_SYNC))
		o.flags |= PREALLOC_NO_SYNC;
	/* One reservation for the whole segment before any write, so the
	 * filesystem can place it in one contiguous run. */
	if (PA_RETRY_EINTR(fallocate(fd, 0, 0, (off_t)len)) < 0 && errno != EOPNOTSUPP)
		return -errno;
	ret = prealloc_file_ex(fd, 0, len, &o, &r);
	if (!ret)
		*zeroed += r.bytes_zeroed;
	return ret;
}

/* A new segment under its temporary name; returns it open, or -errno with
 * nothing left behind. */
int pa_pool_make(struct prealloc_pool *p, uint32_t seq, enum pa_pool_pace pace,
		 uint64_t *zeroed)
{
	char name[64];
	int fd, ret;

	pa_pool_name(name, sizeof(name), false, seq);
	fd = openat(p->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, p->cfg.mode);
	if (fd < 0)
		return -errno;
	ret = fill(p, fd, 0, pace, zeroed);
	if (!ret)
		return fd;
	close(fd);
	unlinkat(p->dirfd, name, 0);
	return ret;
}

/* A recycled segment (under its temporary name) cut or grown to size and
 * made written again.  On failure it is removed. */
int pa_pool_refill(struct prealloc_pool *p, uint32_t seq, bool zero, enum pa_pool_pace pace,
		   uint64_t *zeroed)
{
	char name[64];
	struct stat st;
	int fd, ret = 0;

	pa_pool_name(name, sizeof(name), false, seq);
	fd = openat(p->dirfd, name, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if ((uint64_t)st.st_size > p->cfg.segment_size &&
		 ftruncate(fd, (off_t)p->cfg.segment_size) < 0)
		ret = -errno;
	if (!ret)
		ret = fill(p, fd, zero ? PREALLOC_ZERO_DATA : 0, pace, zeroed);
	close(fd);
	if (ret)
		unlinkat(p->dirfd, name, 0);
	return ret;
}

int pa_pool_avail(const struct prealloc_pool *p, uint64_t *ret_avail)
{
	struct statvfs sv;

	if (fstatvfs(p->dirfd, &sv) < 0)
		return -errno;
	*ret_avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	return 0;
}

/* Is the ready segment @name complete: the configured size, fully written? */
static bool complete(const struct prealloc_pool *p, const char *name)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	uint64_t len = p->cfg.segment_size;
	struct stat st;
	bool ok;
	int fd = openat(p->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return false;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == len &&
	     prealloc_verify(fd, 0, len, &cs) == 0 &&
	     (cs.written_bytes == len || (!cs.fiemap && !cs.hole_bytes));
	close(fd);
	return ok;
}

static int parse_seq(const char *s, uint32_t *seq)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= UINT32_MAX)
		return -EINVAL;
	*seq = (uint32_t)v;
	return 0;
}

/* Start-up: remove leftovers, adopt complete ready segments. */
int pa_pool_scan(struct prealloc_pool *p)
{
	size_t tl = strlen(PA_POOL_TMP_PREFIX), rl = strlen(PA_POOL_READY_PREFIX);
	int fd = openat(p->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;
	bool removed = false;
	struct dirent *de;
	uint32_t seq;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (!ret && (errno = 0, de = readdir(d))) {
		const char *n = de->d_name;
		bool tmp = strncmp(n, PA_POOL_TMP_PREFIX, tl) == 0;

		if (!tmp && strncmp(n, PA_POOL_READY_PREFIX, rl) != 0)
			continue;
		if (!tmp && parse_seq(n + rl, &seq) == 0 && complete(p, n)) {
			ret = pa_seqs_add(&p->ready, seq);
			if (seq >= p->next_seq)
				p->next_seq = seq + 1;
			continue;
		}
		if (unlinkat(p->dirfd, n, 0) < 0 && errno != ENOENT)
			ret = -errno;
		removed = true;
	}
	if (!ret && errno)
		ret = -errno;
	closedir(d);
	if (!ret && removed)
		ret = sync_fd(p->dirfd);
	return ret;
}
