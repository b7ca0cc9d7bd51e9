/* SPDX-License-Identifier: MIT */
/* Messages and argument parsing shared by the tool's commands. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_fail(const char *path, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "prealloc: %s: ", path);
	if (fmt) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		if (err)
			fputs(": ", stderr);
	}
	if (err)
		fputs(strerror(err), stderr);
	fputc('\n', stderr);
}

int cli_parse_size(const char *s, uint64_t *ret)
{
	static const char units[] = "KMGTPE";
	unsigned long long v = 0;
	const char *p = s, *u;
	unsigned int shift = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (~0ull - 9) / 10)
			return -ERANGE;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	if (*p) {
		u = strchr(units, toupper((unsigned char)*p));
		if (!u)
			return -EINVAL;
		shift = 10 * (unsigned int)(u - units + 1);
		p++;
		/* Accept "M", "MB" and "MiB" alike: all binary. */
		if (*p == 'i')
			p++;
		if (*p == 'B' || *p == 'b')
			p++;
		if (*p)
			return -EINVAL;
	}
	if (shift && v > (~0ull >> shift))
		return -ERANGE;
	*ret = (uint64_t)v << shift;
	return 0;
}
