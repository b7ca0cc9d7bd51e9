/* SPDX-License-Identifier: MIT */
/* Loading fixture files for the probe tests ($PROBE_FIXTURES/...). */
#ifndef PROBE_FIXTURE_H
#define PROBE_FIXTURE_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* Read $PROBE_FIXTURES/@name into a malloc'ed buffer; NULL if missing. */
static inline void *fixture_load(const char *name, size_t *len)
{
	const char *dir = getenv("PROBE_FIXTURES");
	char path[4096];
	void *buf;
	FILE *f;
	long n;

	*len = 0;
	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "fixtures", name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

#endif
