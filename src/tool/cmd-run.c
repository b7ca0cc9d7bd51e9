/* SPDX-License-Identifier: MIT */
/* `prealloc run`: prealloc_file_ex() on PATH, with a report. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <prealloc.h>

#include "cli.h"

static void usage(void)
{
	fputs("Usage:\n"
	      " prealloc run [options] --length N PATH\n"
	      "\nMake [offset, offset+length) of PATH allocated, written and durable;\n"
	      "PATH is created if missing (and removed again if the run fails).\n"
	      "\nOptions:\n"
	      " -o, --offset N         first byte of the range (default 0)\n"
	      " -l, --length N         length of the range (required)\n"
	      " -k, --keep-size        do not change the file size\n"
	      " -z, --zero-data        zero bytes that hold data too (required for block devices)\n"
	      " -f, --force            zero a block device that carries a signature\n"
	      " -n, --no-sync          skip the final fdatasync()\n"
	      " -m, --method M         auto, write-zeroes, zeroout, uring, aio, buffered or allocate\n"
	      " -q, --queue-depth N    direct writes in flight (uring, aio)\n"
	      " -r, --request-size N   bytes per direct write (uring, aio)\n"
	      " -b, --background       pace the work beside live traffic\n"
	      " -R, --rate N           at most N bytes per second (e.g. 100M)\n"
	      " -p, --progress         draw a progress bar on a terminal\n"
	      " -j, --json             print the report as JSON (exact bytes)\n"
	      " -h, --help             show this help\n"
	      "\nSIGINT or SIGTERM cancels the run and leaves PATH as it was.\n"
	      "\nExit status: 0 done, 1 failed, 2 bad command line, 3 the forced method\n"
	      "is not supported here.\n", stdout);
}

/* --- progress bar ------------------------------------------------------ */

struct bar {
	bool draw;		/* --progress on a terminal */
	uint64_t t0, last;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void draw_bar(struct bar *b, uint64_t done, uint64_t total)
{
	uint64_t t = now_ns();
	double frac = total ? (double)done / (double)total : 1.0, secs;
	int fill = (int)(frac * 40);

	if (done < total && t - b->last < 100000000ull)
		return;
	b->last = t;
	secs = (double)(t - b->t0) / 1e9;
	fprintf(stderr, "\r[%.*s%*s] %3d%% %8.1f MiB %8.1f MiB/s", fill,
		"########################################", 40 - fill, "",
		(int)(frac * 100), (double)done / 1048576.0,
		secs > 0 ? (double)done / 1048576.0 / secs : 0.0);
	if (done >= total)
		fputc('\n', stderr);
}

/* --- cancelling -------------------------------------------------------- */

/* SIGINT and SIGTERM cancel the call through its progress callback: the
 * library undoes it, the message says so, and --json still prints the
 * report (the background bits of an interrupted run among it). */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int progress(uint64_t done, uint64_t total, void *data)
{
	struct bar *b = data;

	if (interrupted)
		return 1;
	if (b->draw)
		draw_bar(b, done, total);
	return 0;
}

/* --- arguments --------------------------------------------------------- */

struct run_args {
	uint64_t offset, length;	/* length 0: --length not given */
	bool json, progress;
	bool seen[128];			/* short options given */
	struct prealloc_options o;
};

static const char sopts[] = CLI_REQUEST_SHORT "fnq:r:bR:pjh";
static const struct option lopts[] = {
	CLI_REQUEST_LONG,
	{ "force", no_argument, NULL, 'f' },
	{ "no-sync", no_argument, NULL, 'n' },
	{ "queue-depth", required_argument, NULL, 'q' },
	{ "request-size", required_argument, NULL, 'r' },
	{ "background", no_argument, NULL, 'b' },
	{ "rate", required_argument, NULL, 'R' },
	{ "progress", no_argument, NULL, 'p' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* Options that do not apply, refused rather than ignored. */
static const struct cli_rule rules[] = {
	{ 'k', CLI_ON_BLKDEV, "does not apply to a block device: its size is fixed" },
	{ 'f', CLI_ON_FILE, "applies to block devices only: it overrides their signature check" },
	{ 'q', CLI_NOT_DIRECT, "tunes the uring and aio methods only, and --method forces another" },
	{ 'r', CLI_NOT_DIRECT, "tunes the uring and aio methods only, and --method forces another" },
};

static int check_run(const struct run_args *a, const char *path)
{
	unsigned int situation = cli_target_kind(path);

	if (a->o.method && a->o.method != PREALLOC_METHOD_URING &&
	    a->o.method != PREALLOC_METHOD_AIO)
		situation |= CLI_NOT_DIRECT;
	return cli_check_rules("run", lopts, rules, sizeof(rules) / sizeof(rules[0]), a->seen,
			       situation);
}

static int parse_run(int argc, char **argv, struct run_args *a)
{
	uint64_t qd = 0;
	int c, err = 0;

	a->o.size = sizeof(a->o);
	while (!err && (c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		a->seen[c & 127] = true;
		switch (c) {
		case 'f': a->o.flags |= PREALLOC_FORCE; break;
		case 'n': a->o.flags |= PREALLOC_NO_SYNC; break;
		case 'q':
			err = cli_size_arg("run", "queue depth", optarg, 1, 4096, &qd);
			a->o.queue_depth = (uint32_t)qd;
			break;
		case 'r':
			err = cli_size_arg("run", "request size", optarg, 1, UINT64_MAX,
					   &a->o.request_bytes);
			break;
		case 'b': a->o.flags |= PREALLOC_BACKGROUND; break;
		case 'R': err = cli_size_arg("run", "rate", optarg, 1, UINT64_MAX, &a->o.max_rate); break;
		case 'p': a->progress = true; break;
		case 'j': a->json = true; break;
		case 'h': usage(); return -1;
		default:
			err = cli_request_opt("run", c, optarg, &a->offset, &a->length, &a->o);
			if (err < 0)
				return cli_usage_error("run", "bad option");
		}
	}
	if (err)
		return err;
	if (!a->length)
		return cli_usage_error("run", "--length is required");
	if (optind != argc - 1)
		return cli_usage_error("run", "expected one PATH");
	return check_run(a, argv[optind]);
}

/* --- messages ---------------------------------------------------------- */

/* The signatures prealloc_file() found on a device, from a probe. */
static void signatures(int fd, char *buf, size_t len)
{
	struct prealloc_probe *p;
	const char *s = NULL;

	snprintf(buf, len, "unknown");
	if (prealloc_probe_new(fd, 0, 0, NULL, &p) < 0)
		return;
	if (prealloc_probe_lookup(p, "signatures", NULL, &s) == PREALLOC_FACT_STRING && s[0])
		snprintf(buf, len, "%s", s);
	prealloc_probe_free(p);
}

/* What a failed call left: with --zero-data, zeroed data stays zeroed. */
static const char *after_failure(const struct run_args *a, const struct prealloc_report *r,
				 char *buf, size_t len)
{
	if (r->undo_error) {
		snprintf(buf, len, "undoing it failed too (%s): the file may not be as it was; "
			 "check its size and allocation", strerror(-r->undo_error));
		return buf;
	}
	if (!(a->o.flags & PREALLOC_ZERO_DATA) || !r->bytes_zeroed)
		return "the file is as it was";
	snprintf(buf, len, "size and allocation are as they were, but %" PRIu64 " bytes of the "
		 "range were zeroed before the failure (data among them is lost)", r->bytes_zeroed);
	return buf;
}

/* What became of FALLOC_FL_WRITE_ZEROES, in the library's word for it. */
static const char *wz_name(const struct prealloc_report *r)
{
	const char *name = prealloc_write_zeroes_name(r->write_zeroes);

	return name ? name : "unknown";
}

/* Say why, in the words of this tool, for the errors a person can act on;
 * the report names the phase that failed, so nothing is guessed. */
static void explain(const char *path, int fd, int err, const struct run_args *a,
		    const struct prealloc_report *r)
{
	const char *phase = prealloc_phase_name(r->failed_phase);
	char sig[128], sz[32], left[160];

	if (r->failed_phase == PREALLOC_PHASE_REQUEST && err == EINVAL &&
	    !(a->o.flags & PREALLOC_ZERO_DATA)) {
		cli_fail(path, 0, "a block device has no holes: preallocating it means zeroing "
			 "it and destroying its contents; pass --zero-data to do that");
	} else if (r->failed_phase == PREALLOC_PHASE_REQUEST && err == EINVAL) {
		cli_fail(path, err, "range must be aligned to the logical block size and inside the device");
	} else if (r->failed_phase == PREALLOC_PHASE_SIGNATURES && err == EEXIST) {
		signatures(fd, sig, sizeof(sig));
		cli_fail(path, 0, "device carries a signature (%s); pass --force to zero it anyway", sig);
	} else if (r->failed_phase == PREALLOC_PHASE_CLAIM && err == EBUSY) {
		cli_fail(path, err, "device is in use (mounted or held open exclusively); refused even with --force");
	} else if (r->failed_phase == PREALLOC_PHASE_SPACE_CHECK && err == ENOSPC) {
		cli_fail(path, err, "out of space: %s do not fit; nothing was changed",
			 cli_human_size(a->length, sz, sizeof(sz)));
	} else if (err == EOPNOTSUPP && (a->o.flags & PREALLOC_KEEP_SIZE) &&
		   (r->failed_phase == PREALLOC_PHASE_REQUEST || r->failed_phase == PREALLOC_PHASE_RESERVE)) {
		cli_fail(path, err, "--keep-size beyond end of file needs space reserved there, and "
			 "this file cannot hold blocks beyond its end (no fallocate()); nothing was changed");
	} else if (err == EOPNOTSUPP && a->o.method) {
		cli_fail(path, err, "method %s is not possible here", prealloc_method_name(a->o.method));
	} else if (err == ECANCELED) {
		cli_fail(path, err, "cancelled; %s", after_failure(a, r, left, sizeof(left)));
	} else if (err == ENOSPC) {
		cli_fail(path, err, "out of space in phase %s; %s", phase,
			 after_failure(a, r, left, sizeof(left)));
	} else if (r->failed_method) {
		cli_fail(path, err, "phase %s with method %s (write-zeroes: %s); %s", phase,
			 prealloc_method_name(r->failed_method), wz_name(r),
			 after_failure(a, r, left, sizeof(left)));
	} else if (r->failed_phase) {
		cli_fail(path, err, "phase %s; %s", phase, after_failure(a, r, left, sizeof(left)));
	} else {
		cli_fail(path, err, NULL);
	}
}

static const char *method_or_none(uint32_t m)
{
	return m ? prealloc_method_name(m) : "none";
}

static void print_text(const char *path, const struct run_args *a, const struct prealloc_report *r)
{
	char len[32], off[32], z[32], k[32], res[32];

	printf("%s: %s at %s: %s (write-zeroes: %s), zeroed %s, kept %s, reserved only %s, "
	       "%s, %.3f s\n", path, cli_human_size(a->length, len, sizeof(len)),
	       cli_human_size(a->offset, off, sizeof(off)),
	       r->method ? prealloc_method_name(r->method) : "nothing to do", wz_name(r),
	       cli_human_size(r->bytes_zeroed, z, sizeof(z)),
	       cli_human_size(r->bytes_kept, k, sizeof(k)),
	       cli_human_size(r->bytes_reserved, res, sizeof(res)),
	       r->written ? "written" : r->cow ? "copy-on-write: not written" :
	       r->bytes_unknown ? "written state unknown (no FIEMAP)" :
	       "not fully written", (double)r->elapsed_ns / 1e9);
}

static void print_json(const char *path, const struct run_args *a,
		       const struct prealloc_report *r, int err)
{
	struct json_object *o = cli_json_range(path, a->offset, a->length),
			   *by = json_object_new_object(), *refused = json_object_new_array(),
			   *bg = json_object_new_array();

	json_object_object_add(o, "ok", json_object_new_boolean(!err));
	if (err) {
		json_object_object_add(o, "error", json_object_new_string(strerror(err)));
		json_object_object_add(o, "failed_phase",
				       json_object_new_string(prealloc_phase_name(r->failed_phase)));
		/* The key of 0.4 and before, for scripts that read it. */
		json_object_object_add(o, "failed_step",
				       json_object_new_string(prealloc_phase_name(r->failed_phase)));
		json_object_object_add(o, "failed_method", r->failed_method ?
				       json_object_new_string(prealloc_method_name(r->failed_method)) :
				       NULL);
		json_object_object_add(o, "undo_error", r->undo_error ?
				       json_object_new_string(strerror(-r->undo_error)) : NULL);
	}
	json_object_object_add(o, "method", json_object_new_string(method_or_none(r->method)));
	for (unsigned int m = 1; m < PREALLOC_METHOD_SLOTS; m++) {
		if (!prealloc_method_name(m))
			continue;
		json_object_object_add(by, prealloc_method_name(m),
				       json_object_new_uint64(r->bytes_by_method[m]));
		if (r->refused & (1u << m))
			json_object_array_add(refused, json_object_new_string(prealloc_method_name(m)));
	}
	json_object_object_add(o, "bytes_by_method", by);
	json_object_object_add(o, "refused", refused);
	json_object_object_add(o, "write_zeroes", json_object_new_string(wz_name(r)));
	json_object_object_add(o, "bytes_zeroed", json_object_new_uint64(r->bytes_zeroed));
	json_object_object_add(o, "bytes_kept", json_object_new_uint64(r->bytes_kept));
	json_object_object_add(o, "bytes_reserved", json_object_new_uint64(r->bytes_reserved));
	json_object_object_add(o, "bytes_unknown", json_object_new_uint64(r->bytes_unknown));
	json_object_object_add(o, "written", json_object_new_boolean(r->written));
	json_object_object_add(o, "cow", json_object_new_boolean(r->cow));
	json_object_object_add(o, "seconds", json_object_new_double((double)r->elapsed_ns / 1e9));
	json_object_object_add(o, "bytes_per_sec", json_object_new_uint64(r->bytes_per_sec));
	for (unsigned int i = 0; i < 32; i++) {
		/* Names from the library: a bit added there shows up here. */
		const char *name = prealloc_background_name(r->background & (1u << i));

		if (name)
			json_object_array_add(bg, json_object_new_string(name));
	}
	json_object_object_add(o, "background", bg);
	cli_json_print(o);
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
		return ret < 0 ? 0 : ret;
	path = argv[optind];
	catch_signals();	/* before the file may be created */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		cli_fail(path, errno, NULL);
		return EXIT_OPERATIONAL;
	}
	b.draw = a.progress && isatty(STDERR_FILENO);
	b.t0 = now_ns();
	a.o.progress = progress;
	a.o.progress_data = &b;
	ret = prealloc_file_ex(fd, a.offset, a.length, &a.o, &r);
	if (ret)
		explain(path, fd, -ret, &a, &r);
	if (a.json)
		print_json(path, &a, &r, -ret);
	else if (!ret)
		print_text(path, &a, &r);
	/* "The file is as it was": it was not there. */
	if (ret && created)
		unlink(path);
	close(fd);
	return ret ? cli_exit_code(-ret) : 0;
}
