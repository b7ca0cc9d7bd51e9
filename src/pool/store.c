/* SPDX-License-Identifier: MIT */
/*
 * The pool's segments on disk: naming, making one (temporary name, one
 * reservation, written, durable), moving one in or out with
 * renameat2(RENAME_NOREPLACE) and a directory fsync, removing one.  The
 * start-up scan is in scan.c.  No lock and no pool state here: the callers
 * hold neither while they call in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "base/mutant.h"
#include "src/fs/fs.h"
#include "src/pool/store.h"

/* The pool's directory, locked: one pool per directory, since a second one
 * would remove our temporaries.  *@ret_fs_bytes: the filesystem's size. */
int pa_store_open(struct pa_store *s, const char *dir, uint64_t *ret_fs_bytes)
{
	struct statvfs sv;
	struct stat st;

	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0)
		return -errno;
	if (fstat(s->dirfd, &st) < 0 || fstatvfs(s->dirfd, &sv) < 0)
		return -errno;
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->counts_late = pa_fs_lookup(s->dirfd)->statfs_at_commit;
	if (flock(s->dirfd, LOCK_EX | LOCK_NB) < 0)
		return errno == EWOULDBLOCK ? -EBUSY : -errno;
	*ret_fs_bytes = (uint64_t)sv.f_blocks * (uint64_t)sv.f_frsize;
	return 0;
}

void pa_store_close(struct pa_store *s)
{
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->dirfd = -1;
}

void pa_store_name(char *buf, size_t len, bool ready, uint32_t seq)
{
	snprintf(buf, len, "%s%06u", ready ? PA_POOL_READY_PREFIX : PA_POOL_TMP_PREFIX, seq);
}

bool pa_store_holds(const struct pa_store *s, const char *name)
{
	return faccessat(s->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A segment of the pool's, opened read-write with @oflags added. */
int pa_store_open_seg(const struct pa_store *s, const char *name, int oflags)
{
	int fd = openat(s->dirfd, name, O_RDWR | O_CLOEXEC | oflags);

	return fd < 0 ? -errno : fd;
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
static int sync_other_parent(const struct pa_store *s, int dirfd, const char *name)
{
	struct stat st;
	int fd = open_parent(dirfd, name, &st), ret = 0;

	if (fd < 0)
		return fd;
	if (st.st_dev != s->dev || st.st_ino != s->ino)
		ret = sync_fd(fd);
	close(fd);
	return ret;
}

/* 0 if the directory that holds @name is on the pool's filesystem, else
 * -EXDEV or -errno: checked before the worker renames into it. */
int pa_store_same_fs(const struct pa_store *s, int dirfd, const char *name)
{
	struct stat st;
	int fd = open_parent(dirfd, name, &st);

	if (fd < 0)
		return fd;
	close(fd);
	return st.st_dev == s->dev ? 0 : -EXDEV;
}

static int rename_noreplace(int from_dir, const char *from, int to_dir, const char *to)
{
	return renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE) < 0 ? -errno : 0;
}

/* Both directories are synced: on a crash the segment is under one name.
 * *@ret_renamed says whether the rename itself happened (a failure after it
 * is a directory sync's). */
int pa_store_move(const struct pa_store *s, const char *from, int dirfd, const char *to,
		 bool *ret_renamed)
{
	int ret = rename_noreplace(s->dirfd, from, dirfd, to);

	*ret_renamed = !ret;
	if (pa_mutant(PA_MUTANT_DIR_SYNC))
		return ret;
	if (!ret)
		ret = sync_other_parent(s, dirfd, to);
	if (!ret)
		ret = sync_fd(s->dirfd);
	return ret;
}

int pa_store_move_in(const struct pa_store *s, int dirfd, const char *from, const char *to)
{
	int ret = rename_noreplace(dirfd, from, s->dirfd, to);

	if (!ret)
		ret = sync_other_parent(s, dirfd, from);
	if (!ret)
		ret = sync_fd(s->dirfd);
	return ret;
}

int pa_store_remove(const struct pa_store *s, bool ready, uint32_t seq)
{
	char name[64];
	int fd;

	pa_store_name(name, sizeof(name), ready, seq);
	/* Cut first: xfs frees an unlinked file's blocks later, in the
	 * background, and the free-space floor must see the space back at once
	 * (a crash in between leaves an empty segment, removed at start-up). */
	fd = openat(s->dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		(void)!ftruncate(fd, 0);
		close(fd);
	}
	if (unlinkat(s->dirfd, name, 0) < 0)
		return -errno;
	return sync_fd(s->dirfd);
}

int pa_store_publish(const struct pa_store *s, uint32_t seq)
{
	char from[64], to[64];
	int ret;

	pa_store_name(from, sizeof(from), false, seq);
	pa_store_name(to, sizeof(to), true, seq);
	ret = rename_noreplace(s->dirfd, from, s->dirfd, to);
	return ret ? ret : sync_fd(s->dirfd);
}

/* The worker gives up a segment when the pool closes. */
static int keep_going(uint64_t done, uint64_t total, void *data)
{
	const bool *stop = data;

	(void)done;
	(void)total;
	return __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/*
 * Quiet writes: while a segment is ready anyway the worker writes 256 KiB at
 * a time, one in flight, so a commit's cache flush waits behind at most that
 * much.  Behind the default 4 x 4 MiB burst, the first commit after a switch
 * took 27-29 times the steady p99
 * (tests/bench/results/2026-11-23-wal.md).
 */
#define PA_POOL_QUIET_REQUEST (256u << 10)

/* Make the open file @fd a complete segment: allocated, durable, and
 * written unless it is copy-on-write (see complete()). */
static int fill(const struct pa_store *s, int fd, unsigned int flags, enum pa_pool_pace pace,
		struct pa_fill *f)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = flags, .ctx = s->cfg->ctx };
	struct prealloc_report r = { .size = sizeof(r) };
	uint64_t len = s->cfg->segment_size;
	int ret;

	if (pace != PA_POOL_CALLER) {
		o.max_rate = s->cfg->max_rate;
		o.progress = keep_going;
		o.progress_data = s->stop;
	}
	if (pace == PA_POOL_QUIET && !(s->cfg->flags & PREALLOC_POOL_FULL_SPEED)) {
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
	if (!ret) {
		f->zeroed += r.bytes_zeroed;
		f->allocated += len;
		f->cow = r.cow;
	}
	return ret;
}

/* A new segment under its temporary name; returns it open, or -errno with
 * nothing left behind. */
int pa_store_make(const struct pa_store *s, uint32_t seq, enum pa_pool_pace pace,
		 struct pa_fill *f)
{
	char name[64];
	int fd, ret;

	pa_store_name(name, sizeof(name), false, seq);
	fd = openat(s->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, s->cfg->mode);
	if (fd < 0)
		return -errno;
	ret = fill(s, fd, 0, pace, f);
	if (!ret)
		return fd;
	close(fd);
	unlinkat(s->dirfd, name, 0);
	return ret;
}

/* A recycled segment (under its temporary name) cut or grown to size and
 * made written again.  On failure it is removed. */
int pa_store_refill(const struct pa_store *s, uint32_t seq, bool zero, enum pa_pool_pace pace,
		   struct pa_fill *f)
{
	char name[64];
	struct stat st;
	int fd, ret = 0;

	pa_store_name(name, sizeof(name), false, seq);
	fd = pa_store_open_seg(s, name, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if ((uint64_t)st.st_size > s->cfg->segment_size &&
		 ftruncate(fd, (off_t)s->cfg->segment_size) < 0)
		ret = -errno;
	if (!ret)
		ret = fill(s, fd, zero ? PREALLOC_ZERO_DATA : 0, pace, f);
	close(fd);
	if (ret)
		unlinkat(s->dirfd, name, 0);
	return ret;
}

int pa_store_avail(const struct pa_store *s, uint64_t *ret_avail)
{
	struct statvfs sv;

	if (fstatvfs(s->dirfd, &sv) < 0)
		return -errno;
	*ret_avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	return 0;
}

/* Where statfs counts blocks allocated or freed only once their
 * transaction commits (btrfs), commit it (pa_fs_commit()). */
int pa_store_settle(const struct pa_store *s)
{
	return s->counts_late ? pa_fs_commit(s->dirfd) : 0;
}

/* fsync() the pool's directory: after the scan removed something. */
int pa_store_sync(const struct pa_store *s)
{
	return sync_fd(s->dirfd);
}
