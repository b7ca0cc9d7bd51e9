/* SPDX-License-Identifier: MIT */
/*
 * Regular files: the checks, the facts for the plan's steps (the range's
 * classification, the space check), the run, and undo of everything the
 * call allocated if anything fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "base/internal.h"
#include "src/call/call.h"
#include "src/call/report.h"
#include "src/call/target.h"
#include "src/exec/direct.h"
#include "src/exec/exec.h"
#include "src/exec/method.h"
#include "src/exec/regular_file.h"
#include "src/file/extents.h"
#include "src/file/space.h"
#include "src/file/undo.h"
#include "src/plan/steps.h"

#define WZ_CHUNK (1ull << 30)	/* progress and cancelling granularity */

struct file_job {
	struct pa_call *c;
	struct pa_seglist segs;
	struct pa_exec x;
	struct pa_undo undo;		/* the file before the call */
	bool fiemap;			/* segs come from FIEMAP, not SEEK_DATA */
};

int pa_file_classify(int fd, struct pa_work *w, struct pa_seglist *segs, bool *ret_fiemap)
{
	struct pa_extlist ext = { 0 };
	int ret = pa_extents_read(fd, w->off, w->end, &ext, ret_fiemap);

	if (!ret)
		ret = pa_classify(ext.v, ext.n, w->off, w->end, w->old_size, w->bs, segs);
	pa_extlist_free(&ext);
	w->segs = segs;
	return ret;
}

/* Fail fast with ENOSPC before changing anything (src/file/space.c); @fd,
 * or -1 for the probe, which does not wait for xfs's count. */
int pa_file_space(const struct pa_target *t, int fd, struct pa_work *w)
{
	uint64_t avail;
	int ret = pa_space_check(t->ctx, fd, &t->sfs, t->st.st_dev, w->segs, &avail);

	/* Allocated space is not reserved again (xfs would count it, and
	 * fail near full): reserve piece by piece (src/plan/steps.c) when the
	 * range exceeds what is free. */
	w->piecewise = w->end - w->off > avail;
	return ret;
}

/* Direct writes need a descriptor of their own and its alignment. */
static int prepare(struct pa_call *c, struct pa_exec *x, unsigned int m)
{
	const struct pa_caps *caps = c->target.caps;
	int ret;

	if (!pa_method_is(m, PA_M_DIRECT))
		return 0;
	ret = pa_open_direct(c, caps ? caps->logical_block_size : 512);
	if (ret)
		return ret;
	x->w.direct_align = pa_direct_align(c);
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
static int classify(struct file_job *j)
{
	struct pa_call *c = j->c;
	struct pa_work *w = &j->x.w;
	int ret;

	pa_phase(c, PREALLOC_PHASE_CLASSIFY, 0);
	ret = pa_file_classify(c->fd, w, &j->segs, &j->fiemap);
	if (!ret)
		ret = pa_undo_record(&j->undo, c->fd, w->off, w->end, w->old_size, w->bs,
				     !(c->opts.flags & PREALLOC_KEEP_SIZE));
	if (!ret)
		ret = pa_todo_init(w, &j->x.todo, &j->x.ntodo);
	for (size_t i = 0; i < j->x.ntodo; i++)
		c->total += j->x.todo[i].len;
	return ret;
}

static int run(struct file_job *j, const struct pa_plan *plan)
{
	struct pa_call *c = j->c;
	int ret = classify(j);

	if (!ret) {
		pa_phase(c, PREALLOC_PHASE_SPACE_CHECK, 0);
		ret = pa_file_space(&c->target, c->fd, &j->x.w);
	}
	if (ret)
		return ret;
	ret = pa_exec_run(c, &j->x, plan);
	if (ret && j->x.started)
		c->rep.undo_error = pa_undo_run(&j->undo, &j->segs, c->fd,
						!(c->opts.flags & PREALLOC_NO_SYNC));
	else if (!ret)
		pa_report_fill(&c->rep, &j->x.w, j->fiemap,
			       j->x.w.reserved && !j->x.reserve_refused);
	return ret;
}

int pa_file_prealloc(struct pa_call *c, uint64_t off, uint64_t len)
{
	struct file_job j = { .c = c };
	struct pa_plan plan;
	int ret;

	j.x = (struct pa_exec){ .sync_fd = c->fd, .chunk = WZ_CHUNK, .prepare = prepare };
	j.x.w = (struct pa_work){ .in = &c->target.in, .off = off, .end = off + len,
				  .old_size = (uint64_t)c->target.st.st_size,
				  .bs = c->target.fs_block };
	pa_phase(c, PREALLOC_PHASE_REQUEST, 0);
	ret = pa_file_check_attrs(c->fd);
	if (!ret)
		ret = pa_plan(&c->target.in, &plan);
	if (!ret)
		ret = pa_exec_prepare(c, &j.x, &plan);
	if (!ret)
		ret = run(&j, &plan);
	pa_exec_free(&j.x);
	pa_undo_free(&j.undo);
	pa_seglist_free(&j.segs);
	return ret;
}
