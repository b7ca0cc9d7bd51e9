/* SPDX-License-Identifier: MIT */
/* A file's pattern (src/tool/exec-pattern.h). */
#include <ctype.h>
#include <string.h>

#include "exec-pattern.h"

#define DELETED " (deleted)"

struct out {
	char *buf;
	size_t len, at;
};

static bool put(struct out *o, char ch)
{
	if (o->at + 1 >= o->len)
		return false;
	o->buf[o->at++] = ch;
	o->buf[o->at] = '\0';
	return true;
}

/* The @n bytes at @s: digit runs as "*", fnmatch()'s specials escaped. */
static bool put_part(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (isdigit((unsigned char)s[i])) {
			while (i + 1 < n && isdigit((unsigned char)s[i + 1]))
				i++;
			if (!put(o, '*'))
				return false;
			continue;
		}
		if (strchr("*?[]\\", s[i]) && !put(o, '\\'))
			return false;
		if (!put(o, s[i]))
			return false;
	}
	return true;
}

bool exec_pattern_of(const char *path, char *buf, size_t len)
{
	struct out o = { .buf = buf, .len = len };
	size_t n = strlen(path), d = strlen(DELETED);
	const char *name, *dir;
	bool ok;

	if (len)
		buf[0] = '\0';
	if (n > d && !strcmp(path + n - d, DELETED))
		n -= d;
	if (!len || n < 2 || path[0] != '/' || path[n - 1] == '/')
		return false;
	name = (const char *)memrchr(path, '/', n) + 1;
	if (name == path + 1) {
		ok = put(&o, '/') && put_part(&o, name, n - 1);
	} else {
		dir = (const char *)memrchr(path, '/', (size_t)(name - 1 - path)) + 1;
		ok = put(&o, '*') && put(&o, '/') && put_part(&o, dir, (size_t)(name - 1 - dir)) &&
		     put(&o, '/') && put_part(&o, name, (size_t)(path + n - name));
	}
	if (!ok)
		buf[0] = '\0';
	return ok;
}
