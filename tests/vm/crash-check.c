/* SPDX-License-Identifier: MIT */
/*
 * The checks at one crash point: each library call of the oracle against the
 * recovered filesystem, by what the marks say about it (not started, in
 * flight or failed, returned).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <prealloc.h>

#include "crash.h"
#include "tcheck.h"

static bool in_range(const struct cw_call *c, uint64_t pos)
{
	return pos >= c->off && pos - c->off < c->len;
}

/*
 * What @c's file must hold in [0, size): the old data (pattern @tag inside
 * the old size, zero elsewhere), with the range zeroed once a ZERO_DATA call
 * has returned.  Built whole so the common case is one memcmp(): the
 * per-byte rule below runs only when that fails.
 */
static uint8_t *expected(const struct cw_call *c, uint64_t size, bool done)
{
	uint8_t *exp = calloc(1, (size_t)size);

	for (int k = 0; exp && k < c->ndata; k++) {
		uint64_t end = c->data[k].off + c->data[k].len;

		end = end < c->old_size ? end : c->old_size;
		end = end < size ? end : size;
		if (end > c->data[k].off)
			tc_pattern(exp + c->data[k].off, c->tag, c->data[k].off,
				   (size_t)(end - c->data[k].off));
	}
	if (exp && done && (c->flags & PREALLOC_ZERO_DATA) && c->off < size) {
		uint64_t end = c->off + c->len < size ? c->off + c->len : size;

		memset(exp + c->off, 0, (size_t)(end - c->off));
	}
	return exp;
}

/*
 * Outside the range the old content; inside it the old content too, or
 * zero with ZERO_DATA (always zero once @done: expected() says so).
 */
static int check_bytes(const struct cw_call *c, const uint8_t *buf, uint64_t size, bool done,
		       const char *where)
{
	uint8_t *exp = expected(c, size, done);
	int bad = 0;

	if (!exp) {
		printf("VIOLATION %s: %s (%s): out of memory\n", where, c->name, c->what);
		return 1;
	}
	if (!memcmp(buf, exp, (size_t)size))
		size = 0;	/* exactly as expected: nothing to explain */
	for (uint64_t pos = 0; pos < size && !bad; pos++) {
		bool zero_ok = !done && in_range(c, pos) && (c->flags & PREALLOC_ZERO_DATA);

		if (buf[pos] == exp[pos] || (zero_ok && !buf[pos]))
			continue;
		printf("VIOLATION %s: %s (%s): byte %llu is 0x%02x, expected 0x%02x%s\n",
		       where, c->name, c->what, (unsigned long long)pos, buf[pos], exp[pos],
		       zero_ok ? " or 0" : "");
		bad = 1;
	}
	free(exp);
	return bad;
}

/* Every block of the range inside EOF written (FIEMAP), after a return. */
static int check_written(const struct cw_call *c, int fd, uint64_t size, const char *where)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	uint64_t end = c->off + c->len < size ? c->off + c->len : size;
	int r;

	if (end <= c->off)
		return 0;
	r = prealloc_verify(fd, c->off, end - c->off, &cs);
	if (r || cs.unwritten_bytes || cs.hole_bytes) {
		printf("VIOLATION %s: %s (%s): range not written: verify %d, %llu unwritten, "
		       "%llu hole bytes\n", where, c->name, c->what, r,
		       (unsigned long long)cs.unwritten_bytes, (unsigned long long)cs.hole_bytes);
		return 1;
	}
	return 0;
}

/* @bytes: read the file and compare its content too (else size and FIEMAP). */
static int check_file(int dirfd, const struct cw_call *c, bool done, bool bytes,
		      const char *where)
{
	uint64_t want = done ? c->new_size : c->old_size;
	struct stat st;
	uint8_t *buf = NULL;
	int fd, bad = 0;

	fd = openat(dirfd, c->name, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("VIOLATION %s: %s (%s): %s\n", where, c->name, c->what, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if ((uint64_t)st.st_size != want && (done || (uint64_t)st.st_size != c->new_size)) {
		printf("VIOLATION %s: %s (%s): size %llu, expected %llu%s\n", where, c->name,
		       c->what, (unsigned long long)st.st_size, (unsigned long long)want,
		       done ? "" : " or the new size");
		bad = 1;
	} else if (st.st_size && bytes) {
		buf = malloc((size_t)st.st_size);
		if (!buf || tc_read(fd, buf, (uint64_t)st.st_size) != st.st_size) {
			printf("VIOLATION %s: %s (%s): cannot read it\n", where, c->name, c->what);
			bad = 1;
		} else {
			bad = check_bytes(c, buf, (uint64_t)st.st_size, done, where);
		}
	}
	if (!bad && done)
		bad = check_written(c, fd, (uint64_t)st.st_size, where);
	free(buf);
	close(fd);
	return bad;
}

/*
 * Settled: the call has ended and the next file call has begun, whose
 * durable setup flushed after it.  Nothing writes its file again, so its
 * bytes can only change through the filesystem's own bugs (fsck looks at
 * every point, the sweeps read them); reading every file at every point made
 * a full run's later points cost a multiple of its early ones.
 */
static bool settled(const struct cw_oracle *o, const struct cw_seen *seen, int i)
{
	return seen->after[i] && i + 1 < o->n && o->call[i + 1].kind == CW_FILE &&
	       seen->before[i + 1];
}

int cw_check(const char *dir, const struct cw_oracle *o, const struct cw_seen *seen,
	     bool sweep, const char *where)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), bad = 0;

	if (dirfd < 0) {
		printf("VIOLATION %s: %s: %s\n", where, dir, strerror(errno));
		return 1;
	}
	for (int i = 0; i < o->n; i++) {
		const struct cw_call *c = &o->call[i];

		/* The starting state was durable before B<i>: from there on the
		 * file exists; a call that failed must have changed nothing
		 * outside its range, like one cut short. */
		if (c->kind == CW_FILE && seen->before[i])
			bad += check_file(dirfd, c, seen->after[i] && !c->ret,
					  sweep || !settled(o, seen, i), where);
	}
	bad += cw_check_pool(dir, dirfd, o, seen, where);
	close(dirfd);
	return bad;
}
