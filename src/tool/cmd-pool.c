/* SPDX-License-Identifier: MIT */
/*
 * `prealloc pool`: fill a ready-segment pool and wait for it, or inspect one.
 * Either way the pool is opened as a database would open it, so leftovers of
 * a crash are removed, and so are ready segments of another size.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <prealloc-pool.h>

#include "cli.h"

static void usage(void)
{
	fputs("Usage:\n"
	      " prealloc pool [options] DIR\n"
	      "\nKeep a pool of ready segments (allocated, written and durable files of one\n"
	      "size) in DIR, as prealloc_pool_open() does: fill it to --count segments and\n"
	      "wait for them, or without --count show what it holds.  Opening the pool\n"
	      "removes leftovers of a crash and ready segments of another size.  On btrfs\n"
	      "without chattr +C on DIR, segments are allocated but not written.\n"
	      "\nOptions:\n"
	      " -s, --segment-size N  bytes per segment (required)\n"
	      " -c, --count N         ready segments to make and wait for (default 0: inspect)\n"
	      " -F, --free-floor N    free space to leave alone (default 1/20 of the filesystem)\n"
	      " -R, --rate N          at most N bytes per second (e.g. 100M)\n"
	      " -j, --json            print the pool's counters as JSON (exact bytes)\n"
	      " -h, --help            show this help\n"
	      "\nExit status: 0 the pool holds --count segments, 1 failed (out of space:\n"
	      "fewer are ready), 2 bad command line.\n", stdout);
}

static void print_json(const char *dir, const struct prealloc_pool_config *c,
		       const struct prealloc_pool_stats *s, int err)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "dir", json_object_new_string(dir));
	json_object_object_add(o, "segment_size", json_object_new_uint64(c->segment_size));
	json_object_object_add(o, "count", json_object_new_uint64(c->target));
	json_object_object_add(o, "ok", json_object_new_boolean(!err));
	if (err)
		json_object_object_add(o, "error", json_object_new_string(strerror(err)));
	json_object_object_add(o, "ready", json_object_new_uint64(s->ready));
	json_object_object_add(o, "created", json_object_new_uint64(s->created));
	json_object_object_add(o, "bytes_zeroed", json_object_new_uint64(s->bytes_zeroed));
	json_object_object_add(o, "cow_segments", json_object_new_uint64(s->cow_segments));
	json_object_object_add(o, "enospc", json_object_new_uint64(s->enospc));
	json_object_object_add(o, "last_error", json_object_new_int(s->last_error));
	cli_json_print(o);
}

static void print_text(const char *dir, const struct prealloc_pool_config *c,
		       const struct prealloc_pool_stats *s)
{
	char seg[32], zeroed[32];

	printf("%s: %u ready segments of %s (made now %llu, %s zeroed)\n", dir, s->ready,
	       cli_human_size(c->segment_size, seg, sizeof(seg)),
	       (unsigned long long)s->created, cli_human_size(s->bytes_zeroed, zeroed,
							      sizeof(zeroed)));
	if (s->cow_segments)
		printf("%s: %llu copy-on-write segments: allocated and durable, not written\n",
		       dir, (unsigned long long)s->cow_segments);
}

static int parse(int argc, char **argv, struct prealloc_pool_config *c, bool *json)
{
	static const struct option lopts[] = {
		{ "segment-size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "free-floor", required_argument, NULL, 'F' },
		{ "rate", required_argument, NULL, 'R' },
		{ "max-rate", required_argument, NULL, 'R' },	/* its name in 0.3.0 */
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static const struct cli_rule rules[] = {
		{ 'F', CLI_INSPECT_ONLY, "applies only with --count: inspecting makes no segments" },
		{ 'R', CLI_INSPECT_ONLY, "applies only with --count: inspecting makes no segments" },
	};
	bool seen[128] = { false };
	uint64_t count = 0;
	int opt, err = 0;

	while (!err && (opt = getopt_long(argc, argv, "s:c:F:R:jh", lopts, NULL)) != -1) {
		seen[opt & 127] = true;
		switch (opt) {
		case 's':
			err = cli_size_arg("pool", "segment size", optarg, 1, UINT64_MAX,
					   &c->segment_size);
			break;
		case 'c':
			err = cli_size_arg("pool", "count", optarg, 0, PREALLOC_POOL_MAX_TARGET, &count);
			c->target = (uint32_t)count;
			break;
		case 'F':
			err = cli_size_arg("pool", "free floor", optarg, 0, UINT64_MAX, &c->free_floor);
			break;
		case 'R': err = cli_size_arg("pool", "rate", optarg, 1, UINT64_MAX, &c->max_rate); break;
		case 'j': *json = true; break;
		case 'h': usage(); return -1;
		default: return cli_usage_error("pool", "bad option");
		}
	}
	if (err)
		return err;
	if (!c->segment_size)
		return cli_usage_error("pool", "--segment-size is required");
	if (optind != argc - 1)
		return cli_usage_error("pool", "expected one DIR");
	return cli_check_rules("pool", lopts, rules, sizeof(rules) / sizeof(rules[0]), seen,
			       c->target ? 0 : CLI_INSPECT_ONLY);
}

int cmd_pool(int argc, char **argv)
{
	struct prealloc_pool_config c = { .size = sizeof(c) };
	struct prealloc_pool_stats s = { .size = sizeof(s) };
	struct prealloc_pool *p;
	bool json = false;
	const char *dir;
	int ret = parse(argc, argv, &c, &json);

	if (ret)
		return ret < 0 ? 0 : ret;
	dir = argv[optind];
	ret = prealloc_pool_open(dir, &c, &p);
	if (ret) {
		cli_fail(dir, -ret, ret == -EBUSY ? "in use by another pool" : NULL);
		return cli_exit_code(-ret);
	}
	ret = prealloc_pool_wait_ready(p, c.target, -1);
	if (prealloc_pool_get_stats(p, &s))
		s.ready = 0;
	prealloc_pool_close(p);
	if (ret == -ENOSPC)
		cli_fail(dir, 0, "out of space: %u of %u segments ready (the pool leaves "
			 "the free-space floor alone)", s.ready, c.target);
	else if (ret)
		cli_fail(dir, -ret, NULL);
	if (json)
		print_json(dir, &c, &s, -ret);
	else if (!ret)
		print_text(dir, &c, &s);
	return ret ? cli_exit_code(-ret) : 0;
}
