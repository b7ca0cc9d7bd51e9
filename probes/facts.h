/* SPDX-License-Identifier: MIT */
/*
 * A transport's facts as data (probes/facts.c): tables of (name, type, where
 * in struct pa_device), grouped by the command that learnt them, so that the
 * probe's emitter is one loop and a new transport brings its facts with its
 * prober (struct pa_prober.facts) instead of code in src/probe.c.
 */
#ifndef PREALLOC_FACTS_H
#define PREALLOC_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "chain.h"
#include "prealloc.h"

/* How a fact's field is stored. */
enum pa_field {
	PA_FIELD_NUM,		/* unsigned (or bool) of .size bytes */
	PA_FIELD_CHARS,		/* char array: the string, "" included */
	PA_FIELD_TEXT,		/* char array: the string, or null when "" */
	PA_FIELD_LABEL,		/* a number shown as .label(value); null when that is NULL */
};

struct pa_fact_def {
	const char *name;		/* after the group's prefix */
	uint8_t type;			/* enum prealloc_fact_type of the value */
	uint8_t field;			/* enum pa_field */
	uint16_t size;			/* sizeof the field */
	size_t offset;			/* of the field in struct pa_device */
	const char *(*label)(int v);	/* PA_FIELD_LABEL */
};

/* A fact of struct pa_device member @m (e.g. nvme.ns.dlfeat). */
#define PA_FACT_AT(n, t, f, m) \
	{ n, t, f, sizeof(((struct pa_device *)0)->m), offsetof(struct pa_device, m), NULL }
#define PA_FACT_NUM(n, t, m)	PA_FACT_AT(n, t, PA_FIELD_NUM, m)
#define PA_FACT_CHARS(n, m)	PA_FACT_AT(n, PREALLOC_FACT_STRING, PA_FIELD_CHARS, m)
#define PA_FACT_TEXT(n, m)	PA_FACT_AT(n, PREALLOC_FACT_STRING, PA_FIELD_TEXT, m)
#define PA_FACT_LABEL(n, m, fn) { n, PREALLOC_FACT_STRING, PA_FIELD_LABEL, \
	sizeof(((struct pa_device *)0)->m), offsetof(struct pa_device, m), fn }

/* Facts learnt together: listed when @when is true, else one null fact. */
struct pa_fact_group {
	const char *prefix;		/* "nvme", "scsi.lbp" */
	long when;			/* offset of a bool in struct pa_device; -1: always */
	const char *unknown;		/* the null fact standing for the group */
	const struct pa_fact_def *facts;
	size_t n;
};

#define PA_FACTS_ALWAYS (-1L)

/* Receives each fact: "@prefix.@name" (no dot when @prefix is NULL). */
typedef void pa_fact_fn(void *arg, const char *prefix, const char *name, int type,
			uint64_t num, const char *str);

/* Call @fn for each fact of @groups (@n of them) on @d, in order.  Pure. */
void pa_facts_emit(const struct pa_fact_group *groups, size_t n, const struct pa_device *d,
		   pa_fact_fn *fn, void *arg);

#endif
