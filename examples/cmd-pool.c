/* SPDX-License-Identifier: MIT */
/*
 * `prealloc pool DIR --segment-size N [--count N] [--free-floor N]
 * [--max-rate N] [--json]`: fill a ready-segment pool to COUNT segments and
 * wait for them, or (no --count) inspect it.  Either way the pool is opened
 * as a database would open it: leftovers of a crash are removed, and ready
 * segments not of the given size are removed too.  Public API only.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "prealloc.h"

static int pool_usage(FILE *f, int status)
{
	fputs("usage: prealloc pool DIR --segment-size N [--count N] [--free-floor N]\n"
	      "                     [--max-rate N] [--json]\n", f);
	return status;
}

static void print_pool(const char *dir, const struct prealloc_pool_config *c,
		       const struct prealloc_pool_stats *s, int err, bool json)
{
	struct json j;

	if (!json) {
		printf("%s: %" PRIu32 " ready segments of %" PRIu64 " bytes (made %" PRIu64
		       ", %" PRIu64 " bytes zeroed, out of space %" PRIu64 " times)\n",
		       dir, s->ready, c->segment_size, s->created, s->bytes_zeroed, s->enospc);
		return;
	}
	json_begin(&j, stdout);
	json_str(&j, "dir", dir);
	json_u64(&j, "segment_size", c->segment_size);
	json_u64(&j, "count", c->target);
	json_bool(&j, "ok", !err);
	if (err)
		json_str(&j, "error", strerror(err));
	json_u64(&j, "ready", s->ready);
	json_u64(&j, "created", s->created);
	json_u64(&j, "bytes_zeroed", s->bytes_zeroed);
	json_u64(&j, "enospc", s->enospc);
	json_i64(&j, "last_error", s->last_error);
	json_end(&j);
}

int cmd_pool(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "segment-size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "free-floor", required_argument, NULL, 'f' },
		{ "max-rate", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct prealloc_pool_config c = { .size = sizeof(c) };
	struct prealloc_pool_stats s = { .size = sizeof(s) };
	struct prealloc_pool *p;
	bool json = false;
	uint64_t v;
	const char *dir;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "s:c:f:r:jh", lopts, NULL)) != -1) {
		if (opt == 'j') {
			json = true;
			continue;
		}
		if (opt == 'h')
			return pool_usage(stdout, 0);
		if (opt == '?' || cli_parse_size(optarg, &v)) {
			fprintf(stderr, "prealloc: bad option or size: '%s'\n",
				opt == '?' ? argv[optind - 1] : optarg);
			return pool_usage(stderr, EXIT_USAGE);
		}
		if (opt == 's')
			c.segment_size = v;
		else if (opt == 'c' && v <= PREALLOC_POOL_MAX_TARGET)
			c.target = (uint32_t)v;
		else if (opt == 'f')
			c.free_floor = v;
		else if (opt == 'r')
			c.max_rate = v;
		else
			return pool_usage(stderr, EXIT_USAGE);
	}
	if (optind != argc - 1 || !c.segment_size)
		return pool_usage(stderr, EXIT_USAGE);
	dir = argv[optind];
	ret = prealloc_pool_open(dir, &c, &p);
	if (ret) {
		cli_fail(dir, -ret, ret == -EBUSY ? "in use by another pool" : NULL);
		return EXIT_OPERATIONAL;
	}
	ret = prealloc_pool_wait_ready(p, c.target, -1);
	prealloc_pool_stats(p, &s);
	prealloc_pool_close(p);
	if (ret == -ENOSPC)
		cli_fail(dir, 0, "out of space: %" PRIu32 " of %" PRIu32 " segments ready "
			 "(the pool leaves the free-space floor alone)", s.ready, c.target);
	else if (ret)
		cli_fail(dir, -ret, NULL);
	print_pool(dir, &c, &s, -ret, json);
	return ret ? EXIT_OPERATIONAL : 0;
}
