/* SPDX-License-Identifier: MIT */
/*
 * Regular files: the checks, the facts for the plan's steps (the range's
 * classification, the space check), the run, and undo of everything the
 * call allocated if anything fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/log.h"
#include "base/mutant.h"
#include "src/exec/direct.h"
#include "src/exec/exchange.h"
#include "src/exec/exec.h"
#include "src/exec/regular_file.h"
#include "src/exec/report.h"
#include "src/file/extents.h"
#include "src/file/space.h"
#include "src/file/undo.h"
#include "src/method/method.h"
#include "src/plan/steps.h"

#define WZ_CHUNK (1ull << 30)	/* progress and cancelling granularity */

/* One regular-file call on its way: the job, the range as found, the plan
 * being run, and what undoes it. */
struct file_run {
	struct pa_job *j;
	struct pa_regionlist regions;
	struct pa_exec x;
	struct pa_undo undo;		/* the file before the call */
	bool fiemap;			/* regions come from FIEMAP, not SEEK_DATA */
};

int pa_file_classify(int fd, struct pa_work *w, struct pa_regionlist *regions, bool *ret_fiemap)
{
	struct pa_extlist ext = { 0 };
	int ret = pa_extents_read(fd, w->off, w->end, &ext, ret_fiemap);

	if (!ret)
		ret = pa_classify(ext.v, ext.n, w->off, w->end, w->old_size, w->bs, regions);
	pa_extlist_free(&ext);
	w->regions = regions;
	return ret;
}

/* Fail fast with ENOSPC before changing anything (src/file/space.c); @fd,
 * or -1 for the probe, which does not wait for xfs's count. */
int pa_file_space(const struct pa_target *t, const char *sysfs, struct pa_log *log, int fd,
		  struct pa_work *w)
{
	uint64_t avail, need;
	int ret = pa_space_check(sysfs, fd, &t->sfs, t->st.st_dev, w->regions, &avail, &need);

	if (ret)
		pa_log_to(log, LOG_NOTICE, "free-space check: %llu bytes needed, %llu available: "
			  "ENOSPC before anything was changed\n", (unsigned long long)need,
			  (unsigned long long)avail);

	/* Allocated space is not reserved again (xfs would count it, and
	 * fail near full): reserve piece by piece (src/plan/steps.c) when the
	 * range exceeds what is free. */
	w->piecewise = w->end - w->off > avail;
	return ret;
}

/* Direct writes need a descriptor of their own and its alignment. */
static int prepare(struct pa_job *j, struct pa_exec *x, unsigned int m)
{
	const struct pa_caps *caps = j->target->caps;
	int ret;

	if (!pa_method_is(m, PA_M_DIRECT))
		return 0;
	ret = pa_open_direct(j, caps ? caps->logical_block_size : 512);
	if (ret)
		return ret;
	x->w.direct_align = pa_direct_align(j);
	return 0;
}

/*
 * Append-only files accept fallocate(0) but refuse the punch and truncate
 * that would undo it, and zero writes at an offset: refuse them (and
 * immutable files) before anything is allocated.
 */
int pa_file_check_attrs(int fd)
{
	const uint64_t deny = STATX_ATTR_APPEND | STATX_ATTR_IMMUTABLE;
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, 0, &stx) < 0)
		return 0;
	return stx.stx_attributes & stx.stx_attributes_mask & deny ? -EPERM : 0;
}

/* The range as it is, recorded for undo before anything changes. */
static int classify(struct file_run *f)
{
	struct pa_job *j = f->j;
	struct pa_work *w = &f->x.w;
	int ret;

	pa_phase(j->rep, PREALLOC_PHASE_CLASSIFY, 0);
	ret = pa_file_classify(j->fd, w, &f->regions, &f->fiemap);
	if (!ret)
		ret = pa_undo_record(&f->undo, j->fd, w->off, w->end, w->old_size, w->bs,
				     !(j->opts->flags & PREALLOC_KEEP_SIZE));
	if (!ret)
		ret = pa_todo_init(w, &f->x.todo, &f->x.ntodo);
	for (size_t i = 0; i < f->x.ntodo; i++)
		j->total += f->x.todo[i].len;
	return ret;
}

/*
 * Nothing to write, reserve or resize: the range is data already, inside
 * EOF, and the caller does not ask for it zeroed.  An automatic call then
 * prepares no method and opens nothing: it makes the range durable.  (A
 * forced method is still prepared: its refusal is the answer.)
 */
static bool nothing_to_do(const struct file_run *f)
{
	return !f->x.ntodo && f->x.w.end <= f->x.w.old_size &&
	       f->j->opts->method == PREALLOC_METHOD_AUTO;
}

static int sync_only(struct file_run *f, const struct pa_plan *plan)
{
	struct pa_job *j = f->j;

	pa_exec_verdict(j, plan);
	if (!(j->opts->flags & PREALLOC_NO_SYNC)) {
		pa_phase(j->rep, PREALLOC_PHASE_SYNC, 0);
		if (!pa_mutant(PA_MUTANT_DATA_SYNC) && PA_RETRY_EINTR(fdatasync(j->fd)) < 0)
			return -errno;
	}
	pa_report_fill(j->rep, &f->x.w, f->fiemap, false);
	return 0;
}

static int run(struct file_run *f, const struct pa_plan *plan)
{
	struct pa_job *j = f->j;
	int ret;

	pa_phase(j->rep, PREALLOC_PHASE_SPACE_CHECK, 0);
	ret = pa_file_space(j->target, j->sysfs, j->log, j->fd, &f->x.w);
	if (ret)
		return ret;
	ret = pa_exec_run(j, &f->x, plan);
	/* Others may write into the range: a punch or a truncate could
	 * destroy their bytes, so what the call reserved stays. */
	if (ret && f->x.started && (j->opts->flags & PREALLOC_CONCURRENT_WRITES))
		j->rep->undo_error = -EBUSY;
	else if (ret && f->x.started)
		j->rep->undo_error = pa_undo_run(&f->undo, &f->regions, j->fd,
						 !(j->opts->flags & PREALLOC_NO_SYNC));
	else if (!ret)
		pa_report_fill(j->rep, &f->x.w, f->fiemap,
			       f->x.w.reserved && !f->x.reserve_refused);
	return ret;
}

/* The range as it is, then nothing to do, or the plan prepared and run. */
static int classify_and_run(struct file_run *f, const struct pa_plan *plan)
{
	int ret = classify(f);

	if (ret)
		return ret;
	if (nothing_to_do(f))
		return sync_only(f, plan);
	ret = pa_exec_prepare(f->j, &f->x, plan);
	return ret ? ret : run(f, plan);
}

int pa_file_prealloc(struct pa_job *j, uint64_t off, uint64_t len)
{
	const struct pa_target *t = j->target;
	struct file_run f = { .j = j };
	struct pa_plan plan;
	int ret;

	f.x = (struct pa_exec){ .sync_fd = j->fd, .chunk = WZ_CHUNK, .prepare = prepare };
	f.x.w = (struct pa_work){ .in = &t->in, .off = off, .end = off + len,
				  .old_size = (uint64_t)t->st.st_size, .bs = t->fs_block };
	pa_phase(j->rep, PREALLOC_PHASE_REQUEST, 0);
	ret = pa_file_check_attrs(j->fd);
	if (!ret)
		ret = pa_plan(&t->in, &plan);
	if (!ret && plan.exchange)
		ret = pa_exchange_prealloc(j, off, len);
	else if (!ret)
		ret = classify_and_run(&f, &plan);
	pa_exec_free(&f.x);
	pa_undo_free(&f.undo);
	pa_regionlist_free(&f.regions);
	return ret;
}
