/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdlib.h>

#include "src/exec/devstat.h"

#define FIELDS		17	/* as of Linux 5.5 */
#define F_READ_IOS	0
#define F_WRITE_SECTORS	6
#define F_FLUSH_IOS	15

bool pa_devstat_parse(const char *line, struct pa_devstat *s)
{
	uint64_t f[FIELDS];
	unsigned int n = 0;
	const char *p = line;
	char *end;

	while (n < FIELDS) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p))
			break;
		f[n++] = strtoull(p, &end, 10);
		p = end;
	}
	if (n < 11 || (*p && !isspace((unsigned char)*p)))
		return false;
	s->reads = f[F_READ_IOS];
	s->write_bytes = f[F_WRITE_SECTORS] << 9;	/* always 512-byte sectors */
	s->flushes = n > F_FLUSH_IOS ? f[F_FLUSH_IOS] : 0;
	return true;
}
