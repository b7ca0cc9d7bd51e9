/* SPDX-License-Identifier: MIT */
/* The steps a call would run, for the probe (src/call/probe_plan.c). */
#ifndef PREALLOC_PROBE_PLAN_H
#define PREALLOC_PROBE_PLAN_H

#include "src/call/target.h"
#include "src/plan/steps.h"

/*
 * The steps prealloc_file_ex() would run first for [off, off + len) of
 * @fd (target @t, plan @plan, or the planner's error @plan_err), into @out;
 * nothing is written.  0, or the error the call would fail with before its
 * first step.
 */
int pa_probe_steps(const struct pa_target *t, int fd, const struct pa_plan *plan, int plan_err,
		   uint64_t off, uint64_t len, struct pa_steps *out);

#endif
