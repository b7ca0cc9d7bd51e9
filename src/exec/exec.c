/* SPDX-License-Identifier: MIT */
/*
 * The plan executor, one for files and block devices: build the steps for
 * the planner's first method and run them in order; when a method is
 * refused (pa_refused(), src/method/method.h), build the steps for what it
 * left with the next method.  Any other error is the call's result, never
 * hidden by a fallback.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/internal.h"
#include "base/log.h"
#include "base/mutant.h"
#include "src/exec/exec.h"
#include "src/exec/ops.h"
#include "src/method/method.h"
#include "src/plan/steps.h"

/* The call's phase while a plan step of each action runs. */
static const uint32_t phase_of[] = {
	[PREALLOC_ACTION_RESERVE] = PREALLOC_PHASE_RESERVE,
	[PREALLOC_ACTION_ZERO] = PREALLOC_PHASE_ZERO,
	[PREALLOC_ACTION_WRITE_EDGES] = PREALLOC_PHASE_ZERO,
	[PREALLOC_ACTION_SYNC] = PREALLOC_PHASE_SYNC,
};

/* A filesystem without fallocate() is written anyway: the writes allocate,
 * and ENOSPC then comes from a write and is undone like any failure.
 * Allocation alone is refused there, and so is keep-size space beyond EOF,
 * which only a reservation can hold: the planner refuses the filesystems it
 * knows (ext2/ext3), this any other, before anything has changed. */
static int reserve(struct pa_job *j, struct pa_exec *x, const struct pa_step *s)
{
	int mode = x->w.in->flags & PREALLOC_KEEP_SIZE ? FALLOC_FL_KEEP_SIZE : 0;
	int ret = 0;

	x->w.reserved = true;
	if (!x->reserve_refused)
		ret = PA_RETRY_EINTR(fallocate(j->fd, mode, (off_t)s->start,
					       (off_t)s->len)) < 0 ? -errno : 0;
	x->reserve_refused |= pa_refused(ret);
	x->unkeepable = x->reserve_refused && mode && s->start + s->len > x->w.old_size;
	if (x->reserve_refused)
		return s->method == PREALLOC_METHOD_ALLOCATE || x->unkeepable ? -EOPNOTSUPP : 0;
	return ret;
}

/* A method's run of steps: consecutive zero steps go together to a method
 * that batches (the io_uring queue stays full across the holes of a
 * fragmented file).  *@k ends on the last. */
static int zero(struct pa_job *j, const struct pa_exec *x, size_t *k)
{
	const struct pa_steps *s = &x->steps;
	unsigned int m = s->v[*k].method;
	const struct pa_method_ops *ops = pa_method_ops(m);
	bool batch = pa_method_is(m, PA_M_BATCH);
	size_t e = *k + 1, n = 0;
	struct pa_range one, *r = &one;
	int ret;

	if (!ops)
		return -EOPNOTSUPP;
	while (batch && e < s->n && s->v[e].method == m &&
	       s->v[e].action == PREALLOC_ACTION_ZERO)
		e++;
	if (e - *k > 1 && !(r = calloc(e - *k, sizeof(*r))))
		return -ENOMEM;
	for (size_t i = *k; i < e; i++)
		r[n++] = (struct pa_range){ s->v[i].start, s->v[i].len };
	ret = ops->zero(j, r, n, x->chunk);
	if (r != &one)
		free(r);
	*k = e - 1;
	return ret;
}

static int run_step(struct pa_job *j, struct pa_exec *x, size_t *k)
{
	const struct pa_step *s = &x->steps.v[*k];

	if (s->action == PREALLOC_ACTION_RESERVE)
		return reserve(j, x, s);
	if (s->action == PREALLOC_ACTION_SYNC)
		return pa_mutant(PA_MUTANT_DATA_SYNC) ||
		       PA_RETRY_EINTR(fdatasync(x->sync_fd)) == 0 ? 0 : -errno;
	return zero(j, x, k);
}

/*
 * Run the steps; on failure x->failed and x->failed_done say where.  The
 * bytes counted since the step began tell where a refused method stopped:
 * write-zeroes, BLKZEROOUT and pwrite() go in order, and the io_uring
 * writer (whose completions do not) is refused only before its first write
 * (O_DIRECT open, ring setup).
 */
static int run_steps(struct pa_job *j, struct pa_exec *x)
{
	for (size_t k = 0; k < x->steps.n; k++) {
		const struct pa_step *s = &x->steps.v[k];
		uint64_t base = j->done;
		size_t first = k;
		int ret;

		pa_phase(j->rep, phase_of[s->action], s->method);
		x->started = true;	/* the target may change from here on */
		ret = run_step(j, x, &k);
		if (ret) {
			x->failed = first;
			x->failed_done = j->done - base;
			return ret;
		}
	}
	return 0;
}

/* Note that @method was refused here (EOPNOTSUPP) before falling back: in
 * the report and the log (who refused write-zeroes, and the per-(device,
 * fs) memory, pa_zero_write_zeroes() settled). */
static void note_refused(struct pa_job *j, unsigned int method)
{
	const char *by = method == PREALLOC_METHOD_WRITE_ZEROES ? j->wz_refuser : NULL;

	j->rep->refused |= 1u << method;
	pa_log_to(j->log, LOG_NOTICE, "%s refused by %s (EOPNOTSUPP): trying the next method\n",
		  prealloc_method_name(method), by ? by : "the file or the system");
}

/* Make @m ready: refused when this process cannot use it at all (a
 * forced method; an automatic plan leaves it out). */
static int prepare(struct pa_job *j, struct pa_exec *x, unsigned int m)
{
	if (x->w.in->unusable & (1u << m))
		return -EOPNOTSUPP;
	return x->prepare ? x->prepare(j, x, m) : 0;
}

/* Build and run @m's steps; -EOPNOTSUPP with *@ran when a step refused. */
static int run_method(struct pa_job *j, struct pa_exec *x, unsigned int m, bool *ran)
{
	int ret;

	pa_phase(j->rep, PREALLOC_PHASE_ZERO, m);
	*ran = false;
	ret = m != x->prepared ? prepare(j, x, m) : 0;
	if (!ret)
		ret = pa_steps_build(&x->w, m, x->todo, x->ntodo, &x->steps);
	if (ret)
		return ret;
	*ran = true;
	return run_steps(j, x);
}

void pa_exec_verdict(struct pa_job *j, const struct pa_plan *p)
{
	/* The planner's verdict until the flag zeroes or is refused: in the
	 * report "used" means it zeroed bytes of this range. */
	j->rep->write_zeroes = p->write_zeroes == PREALLOC_WZ_USED ? PREALLOC_WZ_WOULD_TRY :
								    p->write_zeroes;
}

int pa_exec_prepare(struct pa_job *j, struct pa_exec *x, const struct pa_plan *p)
{
	int ret = -EOPNOTSUPP;

	pa_exec_verdict(j, p);

	for (x->first = 0; x->first < p->n; x->first++) {
		unsigned int m = p->methods[x->first];

		ret = prepare(j, x, m);
		x->prepared = m;
		if (!pa_refused(ret) || j->opts->method != PREALLOC_METHOD_AUTO)
			return ret;
		note_refused(j, m);
	}
	return ret;
}

int pa_exec_run(struct pa_job *j, struct pa_exec *x, const struct pa_plan *p)
{
	int ret = -EOPNOTSUPP;

	for (unsigned int i = x->first; i < p->n; i++) {
		unsigned int m = p->methods[i];
		bool ran;

		ret = run_method(j, x, m, &ran);
		/* A forced method stands alone: its refusal is the answer; so
		 * is one that no other method can get round. */
		if (!pa_refused(ret) || j->opts->method != PREALLOC_METHOD_AUTO || x->unkeepable)
			return ret;
		note_refused(j, m);
		if (ran && pa_todo_remaining(&x->steps, x->failed, x->failed_done, &x->todo,
					     &x->ntodo))
			return -ENOMEM;
	}
	return ret;
}

void pa_exec_free(struct pa_exec *x)
{
	pa_steps_free(&x->steps);
	free(x->todo);
	x->todo = NULL;
	x->ntodo = 0;
}
