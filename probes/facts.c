/* SPDX-License-Identifier: MIT */
/* Reading facts out of a struct by their tables (see facts.h). */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "prealloc.h"
#include "probes/facts.h"

static uint64_t read_uint(const void *p, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

/* The type of @def's value in @base, with *@num or *@str set. */
static int read_fact(const struct pa_fact_def *def, const void *base, uint64_t *num,
		     const char **str)
{
	const char *p = (const char *)base + def->offset;

	*num = 0;
	*str = NULL;
	switch (def->field) {
	case PA_FIELD_CHARS:
		*str = p;
		return PREALLOC_FACT_STRING;
	case PA_FIELD_TEXT:
		*str = p[0] ? p : NULL;
		break;
	case PA_FIELD_LABEL:
		/* A negative int reads as a large unsigned: no name. */
		*num = read_uint(p, def->size);
		*str = *num <= INT_MAX ? def->label((int)*num) : NULL;
		*num = 0;
		break;
	default:
		*num = read_uint(p, def->size);
		if (def->type == PREALLOC_FACT_BOOL)
			*num = !!*num;
		return def->type;
	}
	return *str ? PREALLOC_FACT_STRING : PREALLOC_FACT_NULL;
}

static bool learnt(const struct pa_fact_group *g, const void *base)
{
	bool b;

	if (g->when == PA_FACTS_ALWAYS)
		return true;
	memcpy(&b, (const char *)base + g->when, sizeof(b));
	return b;
}

void pa_facts_emit(const struct pa_fact_group *groups, size_t n, const void *base,
		   pa_fact_fn *fn, void *arg)
{
	for (size_t i = 0; i < n; i++) {
		const struct pa_fact_group *g = &groups[i];
		bool known = learnt(g, base);
		const char *s = NULL;
		uint64_t v = 0;

		if (!known && g->unknown) {
			fn(arg, NULL, g->unknown, PREALLOC_FACT_NULL, 0, NULL);
			continue;
		}
		for (size_t k = 0; k < g->n; k++) {
			int t = known ? read_fact(&g->facts[k], base, &v, &s) : PREALLOC_FACT_NULL;

			fn(arg, g->prefix, g->facts[k].name, t, v, s);
		}
	}
}
