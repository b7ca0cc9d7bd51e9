/* SPDX-License-Identifier: MIT */
/* `prealloc verify`: prealloc_verify()'s census of a range of PATH. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <prealloc.h>

#include "cli.h"

static void usage(void)
{
	fputs("Usage:\n"
	      " prealloc verify [options] PATH\n"
	      "\nCount written, unwritten (preallocated), hole and shared bytes of a range\n"
	      "of PATH (FIEMAP; SEEK_DATA/SEEK_HOLE where FIEMAP is missing).\n"
	      "\nOptions:\n"
	      " -o, --offset N   first byte of the range (default 0)\n"
	      " -l, --length N   length of the range (default: to the end of the file)\n"
	      " -j, --json       print the census as JSON (exact bytes)\n"
	      " -h, --help       show this help\n"
	      "\nExit status: 0 fully written, 1 not fully written or failed,\n"
	      "2 bad command line, 3 extent maps not supported here.\n", stdout);
}

static void print_json(const char *path, uint64_t off, uint64_t len,
		       const struct prealloc_census *cs, bool full)
{
	struct json_object *o = cli_json_range(path, off, len);

	json_object_object_add(o, "written_bytes", json_object_new_uint64(cs->written_bytes));
	json_object_object_add(o, "unwritten_bytes", json_object_new_uint64(cs->unwritten_bytes));
	json_object_object_add(o, "hole_bytes", json_object_new_uint64(cs->hole_bytes));
	json_object_object_add(o, "shared_bytes", json_object_new_uint64(cs->shared_bytes));
	json_object_object_add(o, "unknown_bytes", json_object_new_uint64(cs->unknown_bytes));
	json_object_object_add(o, "fiemap", json_object_new_boolean(cs->fiemap));
	json_object_object_add(o, "fully_written", json_object_new_boolean(full));
	cli_json_print(o);
}

static void print_text(const char *path, uint64_t off, uint64_t len,
		       const struct prealloc_census *cs, bool full)
{
	char a[32], b[32], w[32], u[32], h[32], s[32];

	printf("%s: [%s, %s): written %s, unwritten %s, holes %s, shared %s%s: %s\n", path,
	       cli_human_size(off, a, sizeof(a)), cli_human_size(off + len, b, sizeof(b)),
	       cli_human_size(cs->written_bytes, w, sizeof(w)),
	       cli_human_size(cs->unwritten_bytes, u, sizeof(u)),
	       cli_human_size(cs->hole_bytes, h, sizeof(h)),
	       cli_human_size(cs->shared_bytes, s, sizeof(s)),
	       cs->unknown_bytes ? " (no FIEMAP: data may be unwritten extents)" : "",
	       full ? "fully written" : "NOT fully written");
}

int cmd_verify(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct prealloc_census cs = { .size = sizeof(cs) };
	uint64_t off = 0, len = 0;
	bool json = false, full;
	const char *path;
	struct stat st;
	int c, fd, ret = 0;

	while (!ret && (c = getopt_long(argc, argv, "o:l:jh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o': ret = cli_size_arg("verify", "offset", optarg, 0, UINT64_MAX, &off); break;
		case 'l': ret = cli_size_arg("verify", "length", optarg, 1, UINT64_MAX, &len); break;
		case 'j': json = true; break;
		case 'h': usage(); return 0;
		default: return cli_usage_error("verify", "bad option");
		}
	}
	if (ret)
		return ret;
	if (optind != argc - 1)
		return cli_usage_error("verify", "expected one PATH");
	path = argv[optind];
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		cli_fail(path, errno, NULL);
		if (fd >= 0)
			close(fd);
		return EXIT_OPERATIONAL;
	}
	if (!len && off >= (uint64_t)st.st_size) {
		close(fd);
		cli_fail(path, 0, "offset %" PRIu64 " is at or beyond the end of file (%" PRIu64
			 " bytes): nothing to verify; give --length to count beyond it", off,
			 (uint64_t)st.st_size);
		return EXIT_OPERATIONAL;
	}
	if (!len)
		len = (uint64_t)st.st_size - off;
	ret = prealloc_verify(fd, off, len, &cs);
	close(fd);
	if (ret) {
		cli_fail(path, -ret, "cannot map extents");
		return cli_exit_code(-ret);
	}
	full = cs.written_bytes == len;
	if (json)
		print_json(path, off, len, &cs, full);
	else
		print_text(path, off, len, &cs, full);
	return full ? 0 : EXIT_OPERATIONAL;
}
