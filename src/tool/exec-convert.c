/* SPDX-License-Identifier: MIT */
/* One fallocate() of a program under `prealloc exec` (src/tool/exec-convert.h). */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec-convert.h"

static void add(uint64_t *counter, uint64_t n)
{
	__atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The path @fd was opened by, or "" (no /proc). */
static void fd_path(int fd, char *buf, size_t len)
{
	char link[40];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static bool path_wanted(const struct exec_cfg *cfg, const char *path)
{
	if (!cfg->paths)
		return true;
	for (const char *g = cfg->paths; *g; g += strlen(g) + 1)
		if (fnmatch(g, path, 0) == 0)
			return true;
	return false;
}

/* @s as a JSON string's contents: quotes, backslashes and control bytes
 * escaped (a path may hold any byte but NUL). */
static void json_escape(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 7 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\%c", ch);
		else if (ch < 0x20)
			o += (size_t)snprintf(out + o, len - o, "\\u%04x", ch);
		else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
}

struct record {
	int pid, fd, mode;
	uint64_t off, len, ns;
	const char *path, *outcome, *why;
	const struct prealloc_report *rep;	/* converted or fell back */
	int err;
};

/* One JSON line, written whole (O_APPEND: lines of several processes never
 * interleave). */
static void log_call(const struct exec_cfg *cfg, const struct record *r)
{
	char path[PATH_MAX], line[PATH_MAX + 512];
	struct stat st;
	int n;

	/* The program may have closed it and opened a file of its own there. */
	if (cfg->log_fd < 0 || fstat(cfg->log_fd, &st) < 0 ||
	    (uint64_t)st.st_dev != cfg->log_dev || (uint64_t)st.st_ino != cfg->log_ino)
		return;
	json_escape(r->path, path, sizeof(path));
	n = snprintf(line, sizeof(line),
		     "{\"pid\":%d,\"fd\":%d,\"path\":\"%s\",\"mode\":%d,\"offset\":%" PRIu64
		     ",\"length\":%" PRIu64 ",\"outcome\":\"%s\",\"why\":\"%s\",\"method\":\"%s\""
		     ",\"error\":%d,\"elapsed_ns\":%" PRIu64 "}\n",
		     r->pid, r->fd, path, r->mode, r->off, r->len, r->outcome, r->why,
		     r->rep ? prealloc_method_name(r->rep->method) : "", r->err, r->ns);
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(cfg->log_fd, line, (size_t)n);
}

/*
 * Why a call is not ours, or NULL; @path filled in when it was needed.
 * Mode and size first: a passed call (a keep-size one per append, as
 * RocksDB makes) costs no system call of ours before them.
 */
static const char *not_ours(const struct exec_cfg *cfg, int fd, int mode, uint64_t len,
			    char *path, size_t plen)
{
	struct stat st;

	if (mode != 0)
		return "mode";
	if (len < cfg->min)
		return "small";
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return "not a regular file";
	if (!cfg->paths)
		return NULL;
	fd_path(fd, path, plen);
	return path_wanted(cfg, path) ? NULL : "path";
}

static void count(struct exec_tally *t, enum exec_outcome out, int err, uint64_t len,
		  unsigned int method)
{
	add(&t->seen, 1);
	switch (out) {
	case EXEC_PASSED:
		add(&t->passed, 1);
		break;
	case EXEC_FELL_BACK:
		add(&t->fell_back, 1);
		add(&t->fallback_errno[err < EXEC_ERRNO_MAX ? err : 0], 1);
		break;
	case EXEC_CONVERTED:
		add(&t->converted, 1);
		add(&t->bytes, len);
		add(&t->by_method[method % PREALLOC_METHOD_SLOTS], len);
		break;
	}
}

enum exec_outcome exec_convert(const struct exec_cfg *cfg, int fd, int mode, uint64_t off,
			       uint64_t len, int pid, int prog_fd)
{
	struct prealloc_options o = { .size = sizeof(o), .progress = cfg->waiting,
				      .progress_data = cfg->waiting_data };
	struct prealloc_report rep = { .size = sizeof(rep) };
	struct record r = { .pid = pid, .fd = prog_fd, .mode = mode, .off = off, .len = len,
			    .outcome = "passed" };
	enum exec_outcome out = EXEC_PASSED;
	char path[PATH_MAX] = "";
	uint64_t t0 = cfg->log_fd >= 0 ? now_ns() : 0;
	int ret;

	r.why = not_ours(cfg, fd, mode, len, path, sizeof(path));
	if (!r.why) {
		ret = prealloc_file_ex(fd, off, len, &o, &rep);
		r.rep = &rep;
		r.err = -ret;
		out = ret ? EXEC_FELL_BACK : EXEC_CONVERTED;
		r.outcome = ret ? "fell-back" : "converted";
		r.why = ret ? strerrorname_np(-ret) : "";
	}
	if (cfg->tally)
		count(cfg->tally, out, r.err, len, rep.method);
	if (cfg->log_fd >= 0) {
		if (!path[0])
			fd_path(fd, path, sizeof(path));
		r.path = path;
		r.pid = pid ? pid : getpid();
		r.ns = now_ns() - t0;
		log_call(cfg, &r);
	}
	return out;
}

/* Descriptor "@fd:@dev:@ino" from the environment, if it is still that
 * file (a daemon may have closed it and opened one of its own there):
 * a duplicate of ours, or -1. */
static int inherited(const char *v)
{
	unsigned long long dev, ino;
	struct stat st;
	int fd, dup;

	if (!v || sscanf(v, "%d:%llu:%llu", &fd, &dev, &ino) != 3 || fstat(fd, &st) < 0 ||
	    (unsigned long long)st.st_dev != dev || (unsigned long long)st.st_ino != ino)
		return -1;
	/* Far above the numbers a program opens its own files at, where the
	 * descriptor limit allows. */
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 1000);
	return dup >= 0 ? dup : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

void exec_cfg_from_env(struct exec_cfg *cfg)
{
	const char *min = getenv(EXEC_ENV_MIN), *paths = getenv(EXEC_ENV_PATHS);
	int tfd = inherited(getenv(EXEC_ENV_TALLY));
	struct stat st;

	*cfg = (struct exec_cfg){ .min = EXEC_DEFAULT_MIN };
	if (min)
		cfg->min = strtoull(min, NULL, 10);
	if (paths && *paths && (cfg->paths = calloc(1, strlen(paths) + 2))) {
		strcpy(cfg->paths, paths);
		for (char *p = cfg->paths; *p; p++)
			if (*p == '\n')
				*p = '\0';
	}
	cfg->log_fd = inherited(getenv(EXEC_ENV_LOG));
	if (cfg->log_fd >= 0 && fstat(cfg->log_fd, &st) == 0) {
		cfg->log_dev = (uint64_t)st.st_dev;
		cfg->log_ino = (uint64_t)st.st_ino;
	}
	if (tfd >= 0) {
		void *m = mmap(NULL, sizeof(*cfg->tally), PROT_READ | PROT_WRITE, MAP_SHARED,
			       tfd, 0);

		cfg->tally = m == MAP_FAILED ? NULL : m;
		close(tfd);
	}
}

void exec_tally_print(const struct exec_tally *t, int fd)
{
	dprintf(fd, "prealloc exec: %" PRIu64 " fallocate() calls seen, %" PRIu64
		" converted (%" PRIu64 " bytes written), %" PRIu64 " passed through, %" PRIu64
		" fell back\n", t->seen, t->converted, t->bytes, t->passed, t->fell_back);
	for (unsigned int m = 1; m < PREALLOC_METHOD_SLOTS; m++)
		if (t->by_method[m])
			dprintf(fd, "prealloc exec:   %" PRIu64 " bytes by %s\n", t->by_method[m],
				prealloc_method_name(m) ? prealloc_method_name(m) : "?");
	for (int e = 0; e < EXEC_ERRNO_MAX; e++)
		if (t->fallback_errno[e])
			dprintf(fd, "prealloc exec:   %" PRIu64 " fell back on %s\n",
				t->fallback_errno[e], e ? strerrorname_np(e) : "another error");
}
