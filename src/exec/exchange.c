/* SPDX-License-Identifier: MIT */
/*
 * Zeros ordered against other writers (PREALLOC_CONCURRENT_WRITES).  A
 * zero write classified before it lands overwrites whatever another
 * writer put there in between, and no syscall compares before it writes.
 * So the plan's methods zero a temporary file beside the target, where
 * nobody else writes, and the zeros reach the target only by a range
 * exchange the kernel makes only if the target did not change since the
 * attempt began (XFS_IOC_START_COMMIT/COMMIT_RANGE): each attempt notes
 * the target, flushes it (a dry run waits for direct writes in flight and
 * writes back the page cache, mmap writes included), punches the
 * temporary file wherever the target is written, and exchanges what is
 * left.  A write anywhere in the file after the note changes its ctime
 * and fails the exchange whole; the attempt is made again.  The target
 * is untouched until one succeeds, so a failure leaves it as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/log.h"
#include "src/exec/exchange.h"
#include "src/exec/regular_file.h"
#include "src/file/exchange.h"
#include "src/file/extents.h"
#include "src/plan/steps.h"

/* Attempts before giving up with -EBUSY, and the longest wait between
 * two: a writer that never pauses for that long cannot be ordered. */
#define ATTEMPTS 64
#define BACKOFF_MAX_NS (64ull * 1000 * 1000)

/* One ordered call: the target's request and the temporary file. */
struct xchg {
	struct pa_job *j;
	int tmp;			/* the temporary file, or -1 */
	int tmp_dfd;			/* its O_DIRECT descriptor, or -1 */
	uint64_t off, end;		/* the request */
	uint64_t bs;
	uint64_t hi;			/* end of the last block zeroed in tmp */
	uint64_t zeroed;		/* bytes of the request exchanged in */
};

/* What needs zeros, from the range as it is now (it may change: each
 * attempt looks again), and whether it fits. */
static int pieces(struct xchg *x, struct pa_regionlist *regions, struct pa_todo **todo,
		  size_t *n)
{
	struct pa_job *j = x->j;
	const struct pa_target *t = j->target;
	struct pa_work w = { .in = &t->in, .off = x->off, .end = x->end,
			     .old_size = (uint64_t)t->st.st_size, .bs = x->bs };
	bool fiemap;
	int ret;

	pa_phase(j->rep, PREALLOC_PHASE_CLASSIFY, 0);
	ret = pa_file_classify(j->fd, &w, regions, &fiemap);
	if (!ret)
		ret = pa_todo_init(&w, todo, n);
	if (ret)
		return ret;
	pa_phase(j->rep, PREALLOC_PHASE_SPACE_CHECK, 0);
	return pa_file_space(t, j->sysfs, j->log, j->fd, &w);
}

/* The temporary file, and the kernel's word that it can commit ranges:
 * without either the call cannot be ordered, and says so. */
static int open_tmp(struct xchg *x)
{
	struct pa_job *j = x->j;
	struct pa_commit c;
	int ret;

	pa_phase(j->rep, PREALLOC_PHASE_REQUEST, 0);
	x->tmp = pa_tmpfile_beside(j->fd, &j->target->st);
	if (x->tmp < 0) {
		pa_log_to(j->log, LOG_NOTICE, "concurrent writes: no temporary file beside the "
			  "file (%s): cannot order the zeros\n", strerror(-x->tmp));
		return -EOPNOTSUPP;
	}
	ret = pa_commit_start(j->fd, &c);
	if (ret) {
		pa_log_to(j->log, LOG_NOTICE, "concurrent writes: XFS_IOC_START_COMMIT refused (%s; "
			  "Linux 6.13 has it): cannot order the zeros\n", strerror(-ret));
		return ret == -ENOMEM ? ret : -EOPNOTSUPP;
	}
	return 0;
}

/* The call's job, aimed at the temporary file: no concurrent writes
 * there, no size to keep, one sync at the end for all its pieces. */
static void tmp_job(const struct xchg *x, struct pa_job *tj, struct pa_target *tt,
		    struct prealloc_options *to, struct prealloc_report *tr)
{
	const uint32_t drop = PREALLOC_CONCURRENT_WRITES | PREALLOC_KEEP_SIZE;

	*to = *x->j->opts;
	to->flags = (to->flags & ~drop) | PREALLOC_NO_SYNC;
	*tt = *x->j->target;
	tt->in.flags = to->flags;
	tt->in.range_in_eof = true;
	*tr = (struct prealloc_report){ .size = sizeof(*tr) };
	*tj = *x->j;
	tj->fd = tj->wfd = x->tmp;
	tj->wfd_known = -1;
	tj->dfd = x->tmp_dfd;
	tj->target = tt;
	tj->opts = to;
	tj->rep = tr;
}

/* What the temporary file's work tells the call's report. */
static void merge(struct pa_job *j, const struct pa_job *tj, const struct prealloc_report *tr)
{
	for (unsigned int m = 0; m < PREALLOC_METHOD_SLOTS; m++)
		j->rep->bytes_by_method[m] += tr->bytes_by_method[m];
	j->rep->refused |= tr->refused;
	j->rep->write_zeroes = tr->write_zeroes;
	j->rep->failed_phase = tr->failed_phase;
	j->rep->failed_method = tr->failed_method;
	j->done = tj->done;
	j->total = tj->total;
	j->pace = tj->pace;
	j->dontcache_refused = tj->dontcache_refused;
}

/* Zero the whole blocks of each piece in the temporary file, then make
 * them durable: the exchange must never give the target blocks whose
 * zeros a crash could lose (stale data), whatever PREALLOC_NO_SYNC says. */
static int zero_tmp(struct xchg *x, const struct pa_todo *todo, size_t n)
{
	struct pa_target tt;
	struct prealloc_options to;
	struct prealloc_report tr;
	struct pa_job tj;
	struct stat st;
	int ret = 0;

	if (PA_RETRY_EINTR(ftruncate(x->tmp, (off_t)x->end)) < 0 || fstat(x->tmp, &st) < 0)
		return -errno;
	for (size_t i = 0; i < n && !ret; i++) {
		uint64_t s = PA_ROUND_DOWN(todo[i].start, x->bs);
		uint64_t e = PA_ROUND_UP(todo[i].start + todo[i].len, x->bs);

		/* Inside its end of file: the pieces' holes, zeroed. */
		tmp_job(x, &tj, &tt, &to, &tr);
		tt.st = st;
		tt.st.st_size = (off_t)PA_MAX((uint64_t)st.st_size, e);
		ret = pa_file_prealloc(&tj, s, e - s);
		x->tmp_dfd = tj.dfd;
		merge(x->j, &tj, &tr);
		x->hi = PA_MAX(x->hi, e);
	}
	if (!ret && PA_RETRY_EINTR(fdatasync(x->tmp)) < 0)
		ret = -errno;
	return ret;
}

/* Punch the temporary file wherever the target is written below @size
 * (another writer's bytes, or data the classification saw); blocks at or
 * beyond end of file hold nobody's bytes and take the zeros. */
static int keep_written(struct xchg *x, uint64_t lo, uint64_t size)
{
	const int punch = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	uint64_t top = PA_MIN(x->hi, PA_ROUND_UP(size, x->bs));
	struct pa_extlist ext = { 0 };
	bool fiemap;
	int ret = lo < top ? pa_extents_read(x->j->fd, lo, top, &ext, &fiemap) : 0;

	for (size_t i = 0; !ret && i < ext.n; i++) {
		uint64_t s = PA_MAX(PA_ROUND_DOWN(ext.v[i].start, x->bs), lo);
		uint64_t e = PA_MIN(PA_ROUND_UP(ext.v[i].start + ext.v[i].len, x->bs), top);

		/* Without FIEMAP, SEEK_DATA's data may be unwritten: kept. */
		if ((ext.v[i].flags & PA_EXT_UNWRITTEN) || s >= e)
			continue;
		if (PA_RETRY_EINTR(fallocate(x->tmp, punch, (off_t)s, (off_t)(e - s))) < 0)
			ret = -errno;
	}
	pa_extlist_free(&ext);
	return ret;
}

/* Bytes of [@off, @end) of @fd in written extents (-1 without FIEMAP,
 * which cannot tell); 0 or -errno. */
static int written_in(int fd, uint64_t off, uint64_t end, int64_t *ret_bytes)
{
	struct prealloc_census c = { .size = sizeof(c) };
	struct pa_extlist ext = { 0 };
	bool fiemap;
	int ret = pa_extents_read(fd, off, end, &ext, &fiemap);

	if (!ret && fiemap)
		pa_census_count(&ext, off, end, &c);
	*ret_bytes = fiemap ? (int64_t)c.written_bytes : -1;
	pa_extlist_free(&ext);
	return ret;
}

static bool same(const struct stat *a, const struct stat *b)
{
	return a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_size == b->st_size;
}

/*
 * One attempt; -EBUSY when the target changed.  The first fstat() makes
 * the next change of the target's ctime visible even within a clock tick
 * (multigrain timestamps mark it queried), the second proves the note was
 * taken of what it saw, the third that the size it saw is the one left
 * once direct writes in flight completed.  The exchange runs to end of file, so a request
 * past it moves the size in the same transaction: nobody sees the size
 * without the zeros, and a failed attempt leaves both as they were.
 */
static int attempt(struct xchg *x, bool sync)
{
	const uint64_t how = PA_XCHG_TO_EOF | PA_XCHG_FILE1_WRITTEN;
	int fd = x->j->fd, ret;
	struct pa_commit c;
	struct stat a, b;
	uint64_t size, lo;
	int64_t zeroed = 0;

	if (fstat(fd, &a) < 0)
		return -errno;
	ret = pa_commit_start(fd, &c);
	if (ret)
		return ret;
	if (fstat(fd, &b) < 0)
		return -errno;
	if (!same(&a, &b))
		return -EBUSY;
	/* Cut below the range since the call began: exchanging would grow
	 * a file whose size the caller asked to keep. */
	if ((x->j->opts->flags & PREALLOC_KEEP_SIZE) && x->end > (uint64_t)b.st_size)
		return -EBUSY;
	size = PA_MAX((uint64_t)b.st_size, x->end);
	if (PA_RETRY_EINTR(ftruncate(x->tmp, (off_t)size)) < 0)
		return -errno;
	lo = PA_MIN(PA_ROUND_DOWN(x->off, x->bs), PA_ROUND_DOWN((uint64_t)b.st_size, x->bs));
	ret = pa_commit_range(fd, &c, x->tmp, lo, size - lo, how | PA_XCHG_DRY_RUN);
	/* A direct write noted before the note sets the size as it
	 * completes, which the dry run waited for, and leaves ctime alone. */
	if (!ret && fstat(fd, &a) < 0)
		ret = -errno;
	if (!ret && !same(&a, &b))
		ret = -EBUSY;
	if (!ret)
		ret = keep_written(x, lo, (uint64_t)b.st_size);
	/* What the exchange gives the target: the temporary file's written
	 * bytes of the request. */
	if (!ret)
		ret = written_in(x->tmp, x->off, x->end, &zeroed);
	x->zeroed = zeroed > 0 ? (uint64_t)zeroed : 0;
	if (!ret)
		ret = pa_commit_range(fd, &c, x->tmp, lo, size - lo, how | (sync ? PA_XCHG_DSYNC : 0));
	return ret;
}

/* Attempt until one succeeds, waiting longer each time (the writers may
 * pause), the caller cancels, or the attempts run out. */
static int exchange(struct xchg *x)
{
	struct pa_job *j = x->j;
	const struct prealloc_options *o = j->opts;
	bool sync = !(o->flags & PREALLOC_NO_SYNC);
	uint64_t wait = 1000000;
	int ret = -EBUSY;

	pa_phase(j->rep, PREALLOC_PHASE_ZERO, 0);
	for (unsigned int i = 0; i < ATTEMPTS && ret == -EBUSY; i++) {
		struct timespec ts = pa_ns_ts(wait);

		if (i && o->progress && o->progress(j->done, j->total, o->progress_data))
			return -ECANCELED;
		if (i)
			nanosleep(&ts, NULL);
		wait = PA_MIN(wait * 2, BACKOFF_MAX_NS);
		ret = attempt(x, sync);
	}
	if (ret == -EBUSY)
		pa_log_to(j->log, LOG_NOTICE, "concurrent writes: the file changed under each of "
			  "%d exchanges: nothing was changed\n", ATTEMPTS);
	return ret;
}

/* The report of a call that exchanged: the target's range as it is now. */
static void report(struct xchg *x)
{
	struct prealloc_report *r = x->j->rep;
	int64_t written;

	r->bytes_zeroed = x->zeroed;
	r->bytes_kept = x->end - x->off - x->zeroed;
	r->written = written_in(x->j->fd, x->off, x->end, &written) == 0 &&
		     written == (int64_t)(x->end - x->off);
}

int pa_exchange_prealloc(struct pa_job *j, uint64_t off, uint64_t len)
{
	struct xchg x = { .j = j, .tmp = -1, .tmp_dfd = -1, .off = off, .end = off + len,
			  .bs = j->target->fs_block };
	struct pa_regionlist regions = { 0 };
	struct pa_todo *todo = NULL;
	size_t n = 0;
	int ret = pieces(&x, &regions, &todo, &n);

	if (!ret)
		ret = open_tmp(&x);
	if (!ret)
		ret = zero_tmp(&x, todo, n);
	if (!ret)
		ret = exchange(&x);
	if (!ret)
		report(&x);
	if (x.tmp_dfd >= 0)
		close(x.tmp_dfd);
	if (x.tmp >= 0)
		close(x.tmp);
	free(todo);
	pa_regionlist_free(&regions);
	return ret;
}
