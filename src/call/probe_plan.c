/* SPDX-License-Identifier: MIT */
/*
 * The probe's steps: the facts prealloc_file_ex() gathers before its first
 * step (the request checks, the first method's direct-I/O alignment, the
 * range's classification, the space check), read without writing, and the
 * steps the same builder makes of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/internal.h"
#include "src/call/context.h"
#include "src/call/probe_plan.h"
#include "src/call/target.h"
#include "src/exec/direct.h"
#include "src/exec/regular_file.h"
#include "src/file/reopen.h"
#include "src/method/method.h"
#include "src/plan/steps.h"

/* The plan's first method that its preparation would not refuse. */
static int first_method(const struct pa_target *t, int fd, const struct pa_plan *plan,
			struct pa_work *w, unsigned int *ret)
{
	bool file = t->in.target == PA_TARGET_FILE;
	uint32_t lbs = t->caps ? t->caps->logical_block_size : 512;

	for (unsigned int i = 0; i < plan->n; i++) {
		unsigned int m = plan->methods[i];
		bool ok = !(t->in.unusable & (1u << m));	/* no io_uring here */

		if (ok && pa_method_is(m, PA_M_DIRECT)) {
			w->direct_align = file ? pa_direct_align_fd(fd, lbs) : w->bs;
			ok = w->direct_align && (!file || pa_direct_reachable(fd));
		}
		if (ok) {
			*ret = m;
			return 0;
		}
		if (t->in.forced != PREALLOC_METHOD_AUTO)
			break;
	}
	return -EOPNOTSUPP;
}

/* A device takes whole logical blocks, and only to be zeroed. */
static int check_device(const struct pa_work *w)
{
	if (!(w->in->flags & PREALLOC_ZERO_DATA) || w->off % w->bs || w->end % w->bs)
		return -EINVAL;
	return 0;
}

struct classify_args {
	struct pa_work *w;
	struct pa_regionlist *regions;
};

static int classify_own(int rfd, void *arg)
{
	const struct classify_args *a = arg;
	bool fiemap;

	if (rfd < 0)
		return rfd;
	pa_regionlist_free(a->regions);
	return pa_file_classify(rfd, a->w, a->regions, &fiemap);
}

/* The range's extent map, through a descriptor of our own when @fd cannot
 * read it (O_PATH). */
static int classify(const struct pa_target *t, int fd, struct pa_work *w,
		    struct pa_regionlist *regions)
{
	struct classify_args a = { .w = w, .regions = regions };
	bool fiemap;
	int ret = pa_file_classify(fd, w, regions, &fiemap);

	if (ret != -EBADF)
		return ret;
	return pa_with_reopened(fd, &t->st, O_RDONLY | O_NONBLOCK, classify_own, &a);
}

/* In the call's order: the request, the plan, the first method, the range. */
static int facts(const struct pa_target *t, int fd, const struct pa_plan *plan, int plan_err,
		 struct pa_work *w, struct pa_regionlist *regions, unsigned int *m)
{
	int ret;

	if (t->in.target == PA_TARGET_BLOCKDEV)
		ret = check_device(w);
	else
		ret = pa_file_check_attrs(fd);
	if (!ret)
		ret = plan_err;
	if (!ret)
		ret = first_method(t, fd, plan, w, m);
	if (!ret && t->in.target == PA_TARGET_FILE) {
		ret = classify(t, fd, w, regions);
		if (!ret)
			ret = pa_file_space(t, pa_ctx_sysfs(t->ctx), pa_ctx_log(t->ctx), -1, w);
	}
	return ret;
}

int pa_probe_steps(const struct pa_target *t, int fd, const struct pa_plan *plan, int plan_err,
		   uint64_t off, uint64_t len, struct pa_steps *out)
{
	struct pa_work w = { .in = &t->in, .off = off, .end = off + len, .bs = t->fs_block };
	struct pa_regionlist regions = { 0 };
	struct pa_todo *todo = NULL;
	unsigned int m = 0;
	size_t n = 0;
	int ret;

	if (t->in.target == PA_TARGET_FILE)
		w.old_size = (uint64_t)t->st.st_size;
	ret = facts(t, fd, plan, plan_err, &w, &regions, &m);
	if (!ret)
		ret = pa_todo_init(&w, &todo, &n);
	if (!ret)
		ret = pa_steps_build(&w, m, todo, n, out);
	free(todo);
	pa_regionlist_free(&regions);
	return ret;
}
