/* SPDX-License-Identifier: MIT */
/* The report's verdict on a file's range after a successful run.  Pure. */
#ifndef PREALLOC_REPORT_H
#define PREALLOC_REPORT_H

#include <stdbool.h>

#include "prealloc.h"
#include "src/plan/steps.h"

/*
 * Complete @r, whose byte counters the methods filled, for the range @w
 * (classified from FIEMAP when @fiemap, else SEEK_DATA; @reserved: the
 * filesystem took the reservation): bytes kept, the state beyond EOF of a
 * keep-size call, copy-on-write, unknown bytes and the written verdict.
 */
void pa_report_fill(struct prealloc_report *r, const struct pa_work *w, bool fiemap,
		    bool reserved);

#endif
