/* SPDX-License-Identifier: MIT */
/*
 * prealloc - try libprealloc on a file or block device, and describe the
 * machine in a bug report.
 *
 *   prealloc run [--offset N] --length N [options] PATH
 *   prealloc verify [--offset N] [--length N] [--json] PATH
 *   prealloc probe [--json] PATH
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blkid.h"
#include "cli.h"
#include "json.h"
#include "prealloc.h"

static void usage(FILE *f)
{
	fputs("Usage:\n"
	      "  prealloc run [--offset N] --length N [--keep-size] [--zero-data] [--force]\n"
	      "               [--no-sync] [--method auto|write-zeroes|zeroout|uring|buffered|allocate]\n"
	      "               [--queue-depth N] [--request-size N] [--background] [--rate N]\n"
	      "               [--progress] [--json] PATH\n"
	      "  prealloc verify [--offset N] [--length N] [--json] PATH\n"
	      "  prealloc probe [--json] PATH\n"
	      "  prealloc --version\n"
	      "Sizes take binary suffixes K, M, G, T, P, E.\n", f);
}

static int bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, "prealloc: %s: '%s'\n", what, arg ? arg : "");
	usage(stderr);
	return EXIT_USAGE;
}

/* --- progress bar ------------------------------------------------------ */

struct bar {
	uint64_t t0, last;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int draw_bar(uint64_t done, uint64_t total, void *data)
{
	struct bar *b = data;
	uint64_t t = now_ns();
	double frac = total ? (double)done / (double)total : 1.0, secs;
	int fill = (int)(frac * 40);

	if (done < total && t - b->last < 100000000ull)
		return 0;
	b->last = t;
	secs = (double)(t - b->t0) / 1e9;
	fprintf(stderr, "\r[%.*s%*s] %3d%% %8.1f MiB %8.1f MiB/s", fill,
		"########################################", 40 - fill, "",
		(int)(frac * 100), (double)done / 1048576.0,
		secs > 0 ? (double)done / 1048576.0 / secs : 0.0);
	if (done >= total)
		fputc('\n', stderr);
	return 0;
}

/* --- run --------------------------------------------------------------- */

struct run_args {
	uint64_t offset, length;
	bool have_length, json, progress;
	struct prealloc_options o;
};

static int parse_run(int argc, char **argv, struct run_args *a)
{
	static const struct option lopts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'l' },
		{ "keep-size", no_argument, NULL, 'k' },
		{ "zero-data", no_argument, NULL, 'z' },
		{ "force", no_argument, NULL, 'f' },
		{ "no-sync", no_argument, NULL, 'n' },
		{ "method", required_argument, NULL, 'm' },
		{ "queue-depth", required_argument, NULL, 'q' },
		{ "request-size", required_argument, NULL, 'r' },
		{ "progress", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "background", no_argument, NULL, 'b' },
		{ "rate", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t v;
	int c, m;

	a->o.size = sizeof(a->o);
	while ((c = getopt_long(argc, argv, "o:l:kzfnm:q:r:pjbR:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (cli_parse_size(optarg, &a->offset))
				return bad_usage("bad offset", optarg);
			break;
		case 'l':
			if (cli_parse_size(optarg, &a->length) || !a->length)
				return bad_usage("bad length", optarg);
			a->have_length = true;
			break;
		case 'k': a->o.flags |= PREALLOC_KEEP_SIZE; break;
		case 'z': a->o.flags |= PREALLOC_ZERO_DATA; break;
		case 'f': a->o.flags |= PREALLOC_FORCE; break;
		case 'n': a->o.flags |= PREALLOC_NO_SYNC; break;
		case 'm':
			m = prealloc_method_from_name(optarg);
			if (m < 0)
				return bad_usage("unknown method", optarg);
			a->o.method = (uint32_t)m;
			break;
		case 'q':
			if (cli_parse_size(optarg, &v) || !v || v > 4096)
				return bad_usage("bad queue depth", optarg);
			a->o.queue_depth = (uint32_t)v;
			break;
		case 'r':
			if (cli_parse_size(optarg, &v) || !v)
				return bad_usage("bad request size", optarg);
			a->o.request_bytes = v;
			break;
		case 'p': a->progress = true; break;
		case 'j': a->json = true; break;
		case 'b': a->o.flags |= PREALLOC_BACKGROUND; break;
		case 'R':
			if (cli_parse_size(optarg, &a->o.max_rate) || !a->o.max_rate)
				return bad_usage("bad rate (bytes per second)", optarg);
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (!a->have_length)
		return bad_usage("--length is required", "");
	if (optind != argc - 1)
		return bad_usage("expected one PATH", optind < argc ? argv[optind + 1] : "");
	return 0;
}

/* Say why, in the words of this tool, for the errors a person can act on. */
static void explain(const char *path, int fd, int err, const struct run_args *a)
{
	struct stat st;
	char sig[128] = "";
	bool bdev = fstat(fd, &st) == 0 && S_ISBLK(st.st_mode);

	if (bdev && err == EINVAL && !(a->o.flags & PREALLOC_ZERO_DATA))
		cli_fail(path, 0, "a block device has no holes: preallocating it means zeroing "
			 "it and destroying its contents; pass --zero-data to do that");
	else if (bdev && err == EINVAL)
		cli_fail(path, err, "range must be aligned to the logical block size and inside the device");
	else if (err == EEXIST && pa_blkid_signatures(path, sig, sizeof(sig)) >= 0)
		cli_fail(path, 0, "device carries a signature (%s); pass --force to zero it anyway",
			 sig[0] ? sig : "unknown");
	else if (err == EBUSY)
		cli_fail(path, err, "device is in use (mounted or held open exclusively); refused even with --force");
	else if (err == ENOSPC)
		cli_fail(path, err, "out of space: %" PRIu64 " bytes do not fit; nothing was changed",
			 a->length);
	else if (err == EOPNOTSUPP && a->o.method)
		cli_fail(path, err, "method %s is not possible here", prealloc_method_name(a->o.method));
	else if (err == ECANCELED)
		cli_fail(path, err, "cancelled; the file is as it was");
	else
		cli_fail(path, err, NULL);
}

/* enum prealloc_background, bit by bit. */
static const char *const bg_names[] = { "paced", "idle-ioprio", "adapted" };

static void print_run(const char *path, const struct run_args *a,
		      const struct prealloc_report *r, int err)
{
	struct json j;

	if (!a->json) {
		if (err)
			return;
		printf("%s: %" PRIu64 " bytes at %" PRIu64 ": %s, zeroed %" PRIu64
		       ", kept %" PRIu64 ", reserved only %" PRIu64 ", %s, %.3f s\n",
		       path, a->length, a->offset,
		       r->method ? prealloc_method_name(r->method) : "nothing to do",
		       r->bytes_zeroed, r->bytes_kept, r->bytes_reserved,
		       r->written ? "written" : r->cow ? "copy-on-write: not written" :
		       "not fully written", (double)r->elapsed_ns / 1e9);
		return;
	}
	json_begin(&j, stdout);
	json_str(&j, "path", path);
	json_u64(&j, "offset", a->offset);
	json_u64(&j, "length", a->length);
	json_bool(&j, "ok", !err);
	if (err)
		json_str(&j, "error", strerror(err));
	json_str(&j, "method", r->method ? prealloc_method_name(r->method) : "none");
	json_object(&j, "bytes_by_method");
	for (unsigned int m = 1; m < PREALLOC_METHOD_SLOTS; m++)
		if (prealloc_method_name(m))
			json_u64(&j, prealloc_method_name(m), r->bytes_by_method[m]);
	json_object_end(&j);
	json_array(&j, "refused");
	for (unsigned int m = 1; m < PREALLOC_METHOD_SLOTS; m++)
		if ((r->refused & (1u << m)) && prealloc_method_name(m))
			json_str(&j, NULL, prealloc_method_name(m));
	json_array_end(&j);
	json_u64(&j, "bytes_zeroed", r->bytes_zeroed);
	json_u64(&j, "bytes_kept", r->bytes_kept);
	json_u64(&j, "bytes_reserved", r->bytes_reserved);
	json_bool(&j, "written", r->written);
	json_bool(&j, "cow", r->cow);
	json_double(&j, "seconds", (double)r->elapsed_ns / 1e9);
	json_u64(&j, "bytes_per_sec", r->bytes_per_sec);
	json_array(&j, "background");
	for (unsigned int i = 0; i < sizeof(bg_names) / sizeof(bg_names[0]); i++)
		if (r->background & (1u << i))
			json_str(&j, NULL, bg_names[i]);
	json_array_end(&j);
	json_end(&j);
}

int cmd_run(int argc, char **argv)
{
	struct prealloc_report r = { .size = sizeof(r) };
	struct run_args a = { 0 };
	struct bar b = { 0 };
	const char *path;
	bool created;
	int fd, ret;

	ret = parse_run(argc, argv, &a);
	if (ret)
		return ret;
	path = argv[optind];
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		cli_fail(path, errno, NULL);
		return EXIT_OPERATIONAL;
	}
	if (a.progress && isatty(STDERR_FILENO)) {
		b.t0 = now_ns();
		a.o.progress = draw_bar;
		a.o.progress_data = &b;
	}
	ret = prealloc_file_ex(fd, a.offset, a.length, &a.o, &r);
	if (ret)
		explain(path, fd, -ret, &a);
	print_run(path, &a, &r, -ret);
	/* "The file is as it was": it was not there. */
	if (ret && created)
		unlink(path);
	close(fd);
	return ret ? EXIT_OPERATIONAL : 0;
}

/* --- verify ------------------------------------------------------------ */

int cmd_verify(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "offset", required_argument, NULL, 'o' },
		{ "length", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 }
	};
	struct prealloc_census cs = { .size = sizeof(cs) };
	uint64_t off = 0, len = 0;
	bool json = false, full;
	const char *path;
	struct stat st;
	int c, fd, ret;

	while ((c = getopt_long(argc, argv, "o:l:j", lopts, NULL)) != -1) {
		if (c == 'o' && !cli_parse_size(optarg, &off))
			continue;
		if (c == 'l' && !cli_parse_size(optarg, &len) && len)
			continue;
		if (c == 'j') {
			json = true;
			continue;
		}
		return bad_usage("bad option or size", c == '?' ? argv[optind - 1] : optarg);
	}
	if (optind != argc - 1)
		return bad_usage("expected one PATH", "");
	path = argv[optind];
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		cli_fail(path, errno, NULL);
		return EXIT_OPERATIONAL;
	}
	if (!len)
		len = (uint64_t)st.st_size > off ? (uint64_t)st.st_size - off : 0;
	ret = len ? prealloc_verify(fd, off, len, &cs) : 0;
	close(fd);
	if (ret) {
		cli_fail(path, -ret, "cannot map extents");
		return EXIT_OPERATIONAL;
	}
	full = cs.written_bytes == len;
	if (json) {
		struct json j;

		json_begin(&j, stdout);
		json_str(&j, "path", path);
		json_u64(&j, "offset", off);
		json_u64(&j, "length", len);
		json_u64(&j, "written_bytes", cs.written_bytes);
		json_u64(&j, "unwritten_bytes", cs.unwritten_bytes);
		json_u64(&j, "hole_bytes", cs.hole_bytes);
		json_u64(&j, "shared_bytes", cs.shared_bytes);
		json_bool(&j, "fiemap", cs.fiemap);
		json_bool(&j, "fully_written", full);
		json_end(&j);
	} else {
		printf("%s: [%" PRIu64 ", %" PRIu64 "): written %" PRIu64 ", unwritten %" PRIu64
		       ", holes %" PRIu64 ", shared %" PRIu64 "%s: %s\n", path, off, off + len,
		       cs.written_bytes, cs.unwritten_bytes, cs.hole_bytes, cs.shared_bytes,
		       cs.fiemap ? "" : " (no FIEMAP: unwritten extents not visible)",
		       full ? "fully written" : "NOT fully written");
	}
	return full ? 0 : EXIT_OPERATIONAL;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("prealloc %s\n", prealloc_version());
		return 0;
	}
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "verify") == 0)
		return cmd_verify(argc - 1, argv + 1);
	if (strcmp(argv[1], "probe") == 0)
		return cmd_probe(argc - 1, argv + 1);
	return bad_usage("unknown command", argv[1]);
}
