/* SPDX-License-Identifier: MIT */
/*
 * The plan as a work list: which bytes each method covers and what is done
 * to them (reserve, zero, write edges, sync), in the order the executor
 * (src/exec/exec.c) runs them.  Built by a pure function of the facts, so
 * `prealloc probe` prints what a call will do and a table tests it.
 */
#ifndef PREALLOC_STEPS_H
#define PREALLOC_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/file/extents.h"
#include "src/plan/plan.h"

struct pa_range {
	uint64_t start;
	uint64_t len;
};

/* A piece of the range still to be made zero: a zeroed region, or what a
 * refused method left of one. */
struct pa_todo {
	uint64_t start;
	uint64_t len;
	bool data;			/* held data (zeroed on PREALLOC_ZERO_DATA) */
};

struct pa_step {
	uint64_t start;
	uint64_t len;
	uint32_t todo;			/* zero and edge steps: index of their piece */
	uint8_t action;			/* enum prealloc_action */
	uint8_t method;			/* enum prealloc_method covering the bytes */
};

struct pa_steps {
	struct pa_step *v;
	size_t n, cap;
};

/* The facts the steps are built from (src/call/target.c, the classification,
 * the space check, the method's preparation). */
struct pa_work {
	const struct pa_plan_input *in;
	const struct pa_regionlist *regions;	/* a file's classified range; NULL for a device */
	uint64_t off, end;		/* the request */
	uint64_t old_size;		/* a file's size before the call */
	uint64_t bs;			/* filesystem block (a device's logical block) */
	uint64_t direct_align;		/* direct writes (uring): known once prepared */
	bool piecewise;			/* reserve hole by hole: the range exceeds free space */
	bool reserved;			/* reservation done or refused: no reserve steps */
};

/* Is region @s of @w zeroed (rather than kept, or only reserved)? */
bool pa_region_zeroed(const struct pa_work *w, const struct pa_region *s);

/* The pieces to zero: @w's zeroed regions, or a device's whole range.
 * 0 or -ENOMEM; free *@ret with free(). */
int pa_todo_init(const struct pa_work *w, struct pa_todo **ret, size_t *ret_n);

/*
 * The steps that make @todo zero with @method (and reserve first when the
 * method writes into reserved space), then sync.  Replaces @out's steps.
 * 0 or -ENOMEM.
 */
int pa_steps_build(const struct pa_work *w, unsigned int method, const struct pa_todo *todo,
		   size_t n, struct pa_steps *out);

/*
 * What @s leaves to do when step @k was refused after @done of its bytes:
 * the rest of every zero and edge step from @k on, per piece of @todo,
 * merged where adjacent.  Replaces *@todo.  0 or -ENOMEM.
 */
int pa_todo_remaining(const struct pa_steps *s, size_t k, uint64_t done,
		      struct pa_todo **todo, size_t *n);

void pa_steps_free(struct pa_steps *s);

#endif
