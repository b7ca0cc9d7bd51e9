/* SPDX-License-Identifier: MIT */
/*
 * The start-up scan of the pool's directory: complete ready segments are
 * reported, the pool's leftovers removed, and whatever the pool cannot have
 * made is left alone without being opened in a way that could block.  What
 * a complete segment is: complete().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "src/pool/store.h"

/* Copy-on-write, as the library's probe sees @fd (and so as fill() made it:
 * prealloc_file_ex() reserves rather than writes exactly then). */
static bool is_cow(const struct pa_store *s, int fd)
{
	struct prealloc_options o = { .size = sizeof(o), .ctx = s->cfg->ctx };
	struct prealloc_probe *pr;
	uint64_t cow = 0;

	if (prealloc_probe_new(fd, 0, 0, &o, &pr) < 0)
		return false;
	if (prealloc_probe_lookup(pr, "cow", &cow, NULL) < 0)
		cow = 0;
	prealloc_probe_free(pr);
	return cow;
}

/*
 * Is the open ready segment @fd complete, as fill() makes one: the
 * configured size, no hole, and every block written, or (on a copy-on-write
 * file, where written zeros would not spare an overwrite its new block) every
 * block allocated.  *@cow says which.
 */
static bool complete(const struct pa_store *s, int fd, bool *cow)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	uint64_t len = s->cfg->segment_size;
	struct stat st;

	*cow = false;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size != len ||
	    prealloc_verify(fd, 0, len, &cs) < 0)
		return false;
	if (cs.written_bytes == len || (!cs.fiemap && !cs.hole_bytes))
		return true;
	*cow = cs.fiemap && cs.written_bytes + cs.unwritten_bytes == len && is_cow(s, fd);
	return *cow;
}

/* @name opened read-only if it may be the pool's, -EPERM if it cannot be.
 * Never blocks (a FIFO) and never follows a link; lstat first so that a
 * device node is not even opened.  Anything that is not a regular file with
 * one link (a directory, a hard link to someone's file) is left alone. */
static int open_own(const struct pa_store *s, const char *name)
{
	struct stat before, st;
	int fd;

	if (fstatat(s->dirfd, name, &before, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!pa_store_own_type(&before))
		return -EPERM;
	fd = openat(s->dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENXIO ? -EPERM : -errno;
	if (fstat(fd, &st) < 0 || !pa_store_own_type(&st) || st.st_ino != before.st_ino) {
		close(fd);
		return -EPERM;
	}
	return fd;
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

/* What the scan does with a name of the pool's. */
enum pa_scan_verdict {
	PA_SCAN_ADOPT,		/* a complete ready segment */
	PA_SCAN_REMOVE,		/* the pool's leftover */
	PA_SCAN_SKIP,		/* not the pool's file: left alone */
};

static int judge(const struct pa_store *s, const char *name, bool ready,
		 enum pa_scan_verdict *v, bool *cow)
{
	int fd = open_own(s, name);

	if (fd == -EPERM || fd == -ENOENT) {
		*v = PA_SCAN_SKIP;
		return 0;
	}
	if (fd < 0)
		return fd;
	*v = ready && complete(s, fd, cow) ? PA_SCAN_ADOPT : PA_SCAN_REMOVE;
	close(fd);
	return 0;
}

/* What the scan reports, and to whom. */
struct pa_scan {
	pa_store_found_fn found;
	void *arg;
	uint32_t next_seq;
	bool removed;
};

/* One directory entry: @seq_ok says @seq was parsed from its name. */
static int scan_one(const struct pa_store *s, struct pa_scan *sc, const char *n, bool ready,
		    bool seq_ok, uint32_t seq)
{
	enum pa_scan_verdict v;
	bool cow = false;
	int ret = judge(s, n, ready, &v, &cow);

	if (ret)
		return ret;
	/* Also past names left alone: the pool must not collide with them. */
	if (seq_ok && seq >= sc->next_seq)
		sc->next_seq = seq + 1;
	if (v == PA_SCAN_ADOPT && seq_ok)
		return sc->found(sc->arg, seq, cow);
	if (v == PA_SCAN_SKIP)
		return 0;
	sc->removed = true;
	return unlinkat(s->dirfd, n, 0) < 0 && errno != ENOENT ? -errno : 0;
}

/* Start-up: remove leftovers, report complete ready segments to @found,
 * leave alone what the pool cannot have made; *@ret_next is a sequence
 * number past every name seen. */
int pa_store_scan(const struct pa_store *s, pa_store_found_fn found, void *arg,
		  uint32_t *ret_next)
{
	size_t tl = strlen(PA_POOL_TMP_PREFIX), rl = strlen(PA_POOL_READY_PREFIX);
	int fd = openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;
	struct pa_scan sc = { .found = found, .arg = arg };
	struct dirent *de;
	uint32_t seq = 0;
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
		bool tmp = strncmp(n, PA_POOL_TMP_PREFIX, tl) == 0, seq_ok;

		if (!tmp && strncmp(n, PA_POOL_READY_PREFIX, rl) != 0)
			continue;
		seq_ok = parse_seq(n + (tmp ? tl : rl), &seq) == 0;
		ret = scan_one(s, &sc, n, !tmp, seq_ok, seq);
	}
	if (!ret && errno)
		ret = -errno;
	closedir(d);
	if (!ret && sc.removed)
		ret = pa_store_sync(s);
	*ret_next = sc.next_seq;
	return ret;
}
