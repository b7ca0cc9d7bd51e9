/* SPDX-License-Identifier: MIT */
/*
 * Facts as data (probes/facts.c): tables of (name, type, where in a struct),
 * grouped by the command that learnt them, so that the probe's emitter is
 * one loop and a new transport brings its facts with its prober (struct
 * pa_prober.facts, over struct pa_device) instead of code in src/call/probe.c.
 */
#ifndef PREALLOC_FACTS_H
#define PREALLOC_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "prealloc.h"

/* How a fact's field is stored. */
enum pa_field {
	PA_FIELD_NUM,		/* unsigned (or bool) of .size bytes: 1, 2, 4 or 8 */
	PA_FIELD_CHARS,		/* char array: the string, "" included */
	PA_FIELD_TEXT,		/* char array: the string, or null when "" */
	PA_FIELD_LABEL,		/* a number shown as .label(value); null when that is NULL */
};

struct pa_fact_def {
	const char *name;		/* after the group's prefix */
	uint8_t type;			/* enum prealloc_fact_type of the value */
	uint8_t field;			/* enum pa_field */
	uint16_t size;			/* sizeof the field */
	size_t offset;			/* of the field in the struct described */
	const char *(*label)(int v);	/* PA_FIELD_LABEL */
};

/* A fact of member @m (e.g. nvme.ns.dlfeat) of struct type @s. */
#define PA_FACT_FIELD(s, m) sizeof(((s *)0)->m), offsetof(s, m)
#define PA_FACT_NUM(s, n, t, m)	{ n, t, PA_FIELD_NUM, PA_FACT_FIELD(s, m), NULL }
#define PA_FACT_STR(s, n, f, m)	{ n, PREALLOC_FACT_STRING, f, PA_FACT_FIELD(s, m), NULL }
#define PA_FACT_CHARS(s, n, m)	PA_FACT_STR(s, n, PA_FIELD_CHARS, m)
#define PA_FACT_TEXT(s, n, m)	PA_FACT_STR(s, n, PA_FIELD_TEXT, m)
#define PA_FACT_LABEL(s, n, m, fn) \
	{ n, PREALLOC_FACT_STRING, PA_FIELD_LABEL, PA_FACT_FIELD(s, m), fn }
/* The common case: a number named as its field @m of the part @part
 * (e.g. nvme.ns) of @s, of type PREALLOC_FACT_@t. */
#define PA_FACT_OF(s, part, m, t) PA_FACT_NUM(s, #m, PREALLOC_FACT_##t, part.m)

/* Facts learnt together: listed when @when is true, else null. */
struct pa_fact_group {
	const char *prefix;		/* "nvme", "scsi.lbp" */
	long when;			/* offset of a bool in the struct; -1: always */
	const char *unknown;		/* the one null fact standing for the group;
					 * NULL: each of its facts, null */
	const struct pa_fact_def *facts;
	size_t n;
};

#define PA_FACTS_ALWAYS (-1L)

/* Receives each fact: "@prefix.@name" (no dot when @prefix is NULL). */
typedef void pa_fact_fn(void *arg, const char *prefix, const char *name, int type,
			uint64_t num, const char *str);

/* Call @fn for each fact of @groups (@n of them) in the struct at @base,
 * in order.  Pure. */
void pa_facts_emit(const struct pa_fact_group *groups, size_t n, const void *base,
		   pa_fact_fn *fn, void *arg);

#endif
