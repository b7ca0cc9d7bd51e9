/* SPDX-License-Identifier: MIT */
/* Messages, sizes and JSON output shared by the tool's commands. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/stat.h>

#include <prealloc.h>

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

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("prealloc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'prealloc %s%s--help' for more information.\n",
		cmd ? cmd : "", cmd ? " " : "");
	return EXIT_USAGE;
}

int cli_exit_code(int err)
{
	return err == EOPNOTSUPP ? EXIT_NOTSUPP : EXIT_OPERATIONAL;
}

int cli_close_stdout(int ret)
{
	bool failed = ferror(stdout) != 0, pending = __fpending(stdout) != 0;
	int err;

	errno = 0;
	err = fclose(stdout) ? errno : 0;
	/* EBADF with nothing to write: stdout was closed, and not used. */
	if (err == EPIPE || (!failed && (!err || (err == EBADF && !pending))))
		return ret;
	if (err)
		fprintf(stderr, "prealloc: write error: %s\n", strerror(err));
	else
		fputs("prealloc: write error\n", stderr);
	return ret ? ret : EXIT_OPERATIONAL;
}

static const char *long_name(const struct option *lopts, int opt)
{
	for (; lopts->name; lopts++)
		if (lopts->val == opt)
			return lopts->name;
	return "?";
}

int cli_check_rules(const char *cmd, const struct option *lopts, const struct cli_rule *rules,
		    size_t n, const bool seen[128], unsigned int situation)
{
	for (size_t i = 0; i < n; i++) {
		const struct cli_rule *r = &rules[i];

		if (seen[r->opt & 127] && (situation & r->when) == r->when)
			return cli_usage_error(cmd, "--%s %s", long_name(lopts, r->opt), r->why);
	}
	return 0;
}

unsigned int cli_target_kind(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? CLI_ON_FILE : 0;
	return S_ISREG(st.st_mode) ? CLI_ON_FILE : S_ISBLK(st.st_mode) ? CLI_ON_BLKDEV : 0;
}

int cli_parse_size(const char *s, uint64_t *ret)
{
	static const char units[] = "KMGTPE";
	unsigned long long v = 0, base = 1024, mult = 1;
	const char *p = s, *u;

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
		p++;
		if (p[0] == 'i' && p[1] == 'B') {
			p += 2;			/* KiB: binary, like plain K */
		} else if (p[0] == 'B') {
			base = 1000;		/* KB: decimal */
			p++;
		}
		if (*p)
			return -EINVAL;
		for (long i = 0; i <= u - units; i++)
			mult *= base;
	}
	if (v > ~0ull / mult)
		return -ERANGE;
	*ret = (uint64_t)(v * mult);
	return 0;
}

int cli_size_arg(const char *cmd, const char *what, const char *arg, uint64_t min,
		 uint64_t max, uint64_t *ret)
{
	uint64_t v;

	if (cli_parse_size(arg, &v) || v < min || v > max)
		return cli_usage_error(cmd, "bad %s '%s'", what, arg);
	*ret = v;
	return 0;
}

int cli_method_arg(const char *cmd, const char *arg, uint32_t *ret)
{
	int m = prealloc_method_from_name(arg);

	if (m < 0)
		return cli_usage_error(cmd, "unknown method '%s'", arg);
	*ret = (uint32_t)m;
	return 0;
}

int cli_request_opt(const char *cmd, int c, const char *arg, uint64_t *offset,
		    uint64_t *length, struct prealloc_options *o)
{
	switch (c) {
	case 'o': return cli_size_arg(cmd, "offset", arg, 0, UINT64_MAX, offset);
	case 'l': return cli_size_arg(cmd, "length", arg, 1, UINT64_MAX, length);
	case 'k': o->flags |= PREALLOC_KEEP_SIZE; return 0;
	case 'z': o->flags |= PREALLOC_ZERO_DATA; return 0;
	case 'm': return cli_method_arg(cmd, arg, &o->method);
	default: return -1;
	}
}

const char *cli_human_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;

	while (u < 6 && bytes >> (10 * (u + 1)))
		u++;
	if (bytes % (1ull << (10 * u)) == 0)
		snprintf(buf, len, "%llu %s", (unsigned long long)(bytes >> (10 * u)), units[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)bytes / (double)(1ull << (10 * u)), units[u]);
	return buf;
}

struct json_object *cli_json_range(const char *path, uint64_t off, uint64_t len)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "offset", json_object_new_uint64(off));
	json_object_object_add(o, "length", json_object_new_uint64(len));
	return o;
}

void cli_json_print(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}
