/* SPDX-License-Identifier: MIT */
/*
 * `prealloc verify`: prealloc_verify()'s census of a range of PATH, or of
 * every regular file under DIR, whole, file by file and in total.
 */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <prealloc.h>

#include "cli.h"

static void usage(void)
{
	fputs("Usage:\n"
	      " prealloc verify [options] PATH\n"
	      " prealloc verify [--json] DIR\n"
	      "\nCount written, unwritten (preallocated), hole and shared bytes of a range\n"
	      "of PATH (FIEMAP; SEEK_DATA/SEEK_HOLE where FIEMAP is missing).  For a\n"
	      "directory, count every regular file below it, whole, file by file and in\n"
	      "total, without following symlinks or leaving its filesystem.\n"
	      "\nOptions:\n"
	      " -o, --offset N   first byte of the range (default 0)\n"
	      " -l, --length N   length of the range (default: to the end of the file)\n"
	      " -j, --json       print the census as JSON (exact bytes)\n"
	      " -h, --help       show this help\n"
	      "\nExit status: 0 fully written (DIR: every file), 1 not fully written or\n"
	      "failed, 2 bad command line, 3 extent maps not supported here.\n", stdout);
}

/* ---- one census, two renderings ---- */

/* @cs's counts and verdict as members of @o. */
static void census_json(struct json_object *o, const struct prealloc_census *cs, bool full)
{
	json_object_object_add(o, "written_bytes", json_object_new_uint64(cs->written_bytes));
	json_object_object_add(o, "unwritten_bytes", json_object_new_uint64(cs->unwritten_bytes));
	json_object_object_add(o, "hole_bytes", json_object_new_uint64(cs->hole_bytes));
	json_object_object_add(o, "shared_bytes", json_object_new_uint64(cs->shared_bytes));
	json_object_object_add(o, "unknown_bytes", json_object_new_uint64(cs->unknown_bytes));
	json_object_object_add(o, "fiemap", json_object_new_boolean(cs->fiemap));
	json_object_object_add(o, "fully_written", json_object_new_boolean(full));
}

/* "written W, unwritten U, holes H, shared S: fully written", a line's end. */
static void census_text(const struct prealloc_census *cs, bool full)
{
	char w[32], u[32], h[32], s[32];

	printf("written %s, unwritten %s, holes %s, shared %s%s: %s\n",
	       cli_human_size(cs->written_bytes, w, sizeof(w)),
	       cli_human_size(cs->unwritten_bytes, u, sizeof(u)),
	       cli_human_size(cs->hole_bytes, h, sizeof(h)),
	       cli_human_size(cs->shared_bytes, s, sizeof(s)),
	       cs->unknown_bytes ? " (no FIEMAP: data may be unwritten extents)" : "",
	       full ? "fully written" : "NOT fully written");
}

static struct json_object *range_json(const char *path, uint64_t off, uint64_t len,
				      const struct prealloc_census *cs, bool full)
{
	struct json_object *o = cli_json_range(path, off, len);

	census_json(o, cs, full);
	return o;
}

static void range_text(const char *path, uint64_t off, uint64_t len,
		       const struct prealloc_census *cs, bool full)
{
	char a[32], b[32];

	printf("%s: [%s, %s): ", path, cli_human_size(off, a, sizeof(a)),
	       cli_human_size(off + len, b, sizeof(b)));
	census_text(cs, full);
}

/* ---- a directory ---- */

/* What the walk of a directory has counted so far. */
struct tree {
	struct json_object *list;	/* --json: each file's census or error; else NULL */
	struct prealloc_census sum;	/* of the files verified */
	uint64_t nfiles, nempty;	/* regular files, those of size 0 among them */
	uint64_t length;		/* bytes of the files verified */
	uint64_t nerrors;		/* files or directories that could not be read */
	dev_t dev;			/* the directory's filesystem, never left */
};

/* @path could not be counted (said on stderr): listed, and the tree is not
 * fully written. */
static void tree_failed(struct tree *t, const char *path, int err)
{
	struct json_object *o;

	t->nerrors++;
	if (!t->list)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "error", json_object_new_string(strerror(err)));
	json_object_array_add(t->list, o);
}

static void tree_add(struct tree *t, const char *path, uint64_t len,
		     const struct prealloc_census *cs)
{
	bool full = cs->written_bytes == len;

	t->length += len;
	t->sum.written_bytes += cs->written_bytes;
	t->sum.unwritten_bytes += cs->unwritten_bytes;
	t->sum.hole_bytes += cs->hole_bytes;
	t->sum.shared_bytes += cs->shared_bytes;
	t->sum.unknown_bytes += cs->unknown_bytes;
	t->sum.fiemap &= cs->fiemap;
	if (t->list)
		json_object_array_add(t->list, range_json(path, 0, len, cs, full));
	else
		range_text(path, 0, len, cs, full);
}

/* Regular file @path of the tree, whole: 0, or -EOPNOTSUPP when its
 * filesystem has no extent maps (the rest of the walk would only repeat it). */
static int tree_file(struct tree *t, const char *path)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	struct stat st;
	uint64_t len;
	int fd, r;

	t->nfiles++;
	/* Not what the walk saw (a symlink or a FIFO now): refused, not followed
	 * nor waited for. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = errno;
		cli_fail(path, r, NULL);
		if (fd >= 0)
			close(fd);
		tree_failed(t, path, r);
		return 0;
	}
	len = (uint64_t)st.st_size;
	r = len ? prealloc_verify(fd, 0, len, &cs) : 0;
	close(fd);
	if (r) {
		cli_fail(path, -r, "cannot map extents");
		if (r == -EOPNOTSUPP)
			return r;
		tree_failed(t, path, -r);
	} else if (!len) {
		t->nempty++;		/* nothing to count: fully written */
	} else {
		tree_add(t, path, len, &cs);
	}
	return 0;
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

/* Every regular file under @dir on its filesystem, in name order, symlinks
 * not followed (but @dir itself).  0 or -EOPNOTSUPP. */
static int tree_walk(struct tree *t, const char *dir)
{
	char *roots[] = { (char *)dir, NULL };
	FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_XDEV | FTS_NOCHDIR, by_name);
	FTSENT *e;
	int r = 0;

	if (!fts) {
		cli_fail(dir, errno, NULL);
		tree_failed(t, dir, errno);
		return 0;
	}
	while (!r && (e = fts_read(fts))) {
		switch (e->fts_info) {
		case FTS_F:
			/* A file bind-mounted here is another filesystem's. */
			if (e->fts_statp->st_dev == t->dev)
				r = tree_file(t, e->fts_path);
			break;
		case FTS_DNR:
		case FTS_ERR:
		case FTS_NS:
			cli_fail(e->fts_path, e->fts_errno, NULL);
			tree_failed(t, e->fts_path, e->fts_errno);
			break;
		}
	}
	if (!r && errno) {		/* fts_read() failed rather than ended */
		cli_fail(dir, errno, NULL);
		tree_failed(t, dir, errno);
	}
	fts_close(fts);
	return r;
}

/* The total after the files; the exit status. */
static int tree_report(const char *dir, const struct tree *t)
{
	bool full = !t->nerrors && t->sum.written_bytes == t->length;
	struct json_object *o, *total;
	char l[32];

	if (!t->list) {
		printf("total: %s in %" PRIu64 " file%s (%" PRIu64 " empty, %" PRIu64 " errors): ",
		       cli_human_size(t->length, l, sizeof(l)), t->nfiles, t->nfiles == 1 ? "" : "s",
		       t->nempty, t->nerrors);
		census_text(&t->sum, full);
		return full ? 0 : EXIT_OPERATIONAL;
	}
	o = json_object_new_object();
	total = json_object_new_object();
	json_object_object_add(o, "path", json_object_new_string(dir));
	json_object_object_add(o, "files", t->list);
	json_object_object_add(total, "files", json_object_new_uint64(t->nfiles));
	json_object_object_add(total, "empty_files", json_object_new_uint64(t->nempty));
	json_object_object_add(total, "errors", json_object_new_uint64(t->nerrors));
	json_object_object_add(total, "length", json_object_new_uint64(t->length));
	census_json(total, &t->sum, full);
	json_object_object_add(o, "total", total);
	cli_json_print(o);
	return full ? 0 : EXIT_OPERATIONAL;
}

/* ---- the command ---- */

static const struct option lopts[] = {
	{ "offset", required_argument, NULL, 'o' },
	{ "length", required_argument, NULL, 'l' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* Each file of a directory is counted whole: a range means nothing there. */
static const struct cli_rule dir_rules[] = {
	{ 'o', CLI_ON_DIR, "does not apply to a directory: each file is verified whole" },
	{ 'l', CLI_ON_DIR, "does not apply to a directory: each file is verified whole" },
};

static int verify_dir(const char *dir, dev_t dev, const bool seen[128], bool json)
{
	struct tree t = { .sum.fiemap = 1, .dev = dev };
	int r = cli_check_rules("verify", lopts, dir_rules, sizeof(dir_rules) / sizeof(dir_rules[0]),
				seen, CLI_ON_DIR);

	if (r)
		return r;
	if (json)
		t.list = json_object_new_array();
	if (tree_walk(&t, dir)) {
		json_object_put(t.list);
		return EXIT_NOTSUPP;
	}
	return tree_report(dir, &t);
}

int cmd_verify(int argc, char **argv)
{
	struct prealloc_census cs = { .size = sizeof(cs) };
	uint64_t off = 0, len = 0;
	bool json = false, full, seen[128] = { false };
	const char *path;
	struct stat st;
	int c, fd, ret = 0;

	while (!ret && (c = getopt_long(argc, argv, "o:l:jh", lopts, NULL)) != -1) {
		seen[c & 127] = true;
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
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return verify_dir(path, st.st_dev, seen, json);
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
		cli_json_print(range_json(path, off, len, &cs, full));
	else
		range_text(path, off, len, &cs, full);
	return full ? 0 : EXIT_OPERATIONAL;
}
