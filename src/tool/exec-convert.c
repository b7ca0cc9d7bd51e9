/* SPDX-License-Identifier: MIT */
/*
 * One call of a program under `prealloc exec` (src/tool/exec-convert.h).
 * The process that converts it has taken on the calling thread's rights
 * before it touches the file, so nothing it does is more than the thread
 * could have done: a file the thread could not write stays as it
 * is, and the kernel answers each step of the conversion as it would have
 * answered the call (ENOSPC where only CAP_SYS_RESOURCE or ext4's resuid
 * reaches the reserved blocks, EFBIG beyond RLIMIT_FSIZE, EDQUOT).  It has
 * the file as the thread has it: the thread's own description, else its
 * descriptor's file opened through /proc with the thread's access mode.
 * Whatever cannot be had so passes: the kernel makes the call as the
 * program made it.  The zeros are ordered against the program's own
 * writes to the range (PREALLOC_CONCURRENT_WRITES), for a stock program
 * may write a range while another of its threads fallocate()s it and its
 * fallocate() never touched data; only a file the operator vouched for
 * (--unordered) is converted without.  Where the library cannot order
 * them, the call passes as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exec-convert.h"

uint64_t exec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What symbolic link @link names, or "". */
static void link_of(const char *link, char *buf, size_t len)
{
	ssize_t n = readlink(link, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
}

/* Is @path in @globs (a list, see struct exec_cfg; NULL: none)? */
static bool in_globs(const char *globs, const char *path)
{
	for (const char *g = globs ? globs : ""; *g; g += strlen(g) + 1)
		if (fnmatch(g, path, 0) == 0)
			return true;
	return false;
}

enum exec_why exec_admit(const struct exec_cfg *cfg, const struct exec_call *c,
			 struct exec_creds *cr)
{
	/* What the front ends screened (exec_wanted()), and a range whose
	 * error is the kernel's to give. */
	if (c->mode != 0)
		return EXEC_WHY_MODE;
	if (c->len < cfg->min)
		return EXEC_WHY_SMALL;
	if ((int64_t)c->off < 0 || (int64_t)c->len <= 0 || (int64_t)(c->off + c->len) < 0)
		return EXEC_WHY_RANGE;
	if (!exec_call_waiting(c))
		return EXEC_WHY_GONE;
	if (exec_creds_read(c->pid, c->tid, cr))
		return EXEC_WHY_RIGHTS;
	if (cr->fsize.rlim_cur != RLIM_INFINITY && c->off + c->len > cr->fsize.rlim_cur)
		return EXEC_WHY_FSIZE;
	return EXEC_WHY_NONE;
}

/* The status flags of the description /proc's fdinfo file @info shows, or -1. */
static int fd_flags(const char *info)
{
	FILE *f = fopen(info, "re");
	char line[128];
	int flags = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %o", &flags) == 1)
			break;
	if (f)
		fclose(f);
	return flags;
}

/*
 * The caller's file: its own description, else the file its thread's
 * descriptor names, opened through /proc with the thread's rights and its
 * access mode, the type checked first (opening a FIFO would wait for its
 * other end), and still the thread's once opened.
 */
static int caller_file(const struct exec_call *c, enum exec_why *why)
{
	char link[64], info[64];
	struct stat st, own;
	int fd, flags;

	if (c->fd >= 0)
		return c->fd;
	exec_call_link(c, link, sizeof(link));
	snprintf(info, sizeof(info), "/proc/%d/task/%d/fdinfo/%d", (int)c->pid, (int)c->tid,
		 c->prog_fd);
	*why = EXEC_WHY_NO_FILE;
	if (stat(link, &st) < 0 || (flags = fd_flags(info)) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		*why = EXEC_WHY_NOT_REGULAR;
		return -1;
	}
	if ((flags & O_PATH) || (flags & O_ACCMODE) == O_RDONLY) {
		*why = EXEC_WHY_NOT_WRITABLE;
		return -1;
	}
	fd = open(link, (flags & (O_ACCMODE | O_APPEND)) | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &own) == 0 && own.st_dev == st.st_dev && own.st_ino == st.st_ino &&
	    exec_call_waiting(c)) {
		*why = EXEC_WHY_NONE;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* What the file is; @r gets its identity and path. */
static enum exec_why screen_file(const struct exec_cfg *cfg, int fd, struct exec_result *r)
{
	char link[40];
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	link_of(link, r->path, sizeof(r->path));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return EXEC_WHY_NOT_REGULAR;
	r->dev = (uint64_t)st.st_dev;
	r->ino = (uint64_t)st.st_ino;
	if (fl < 0 || (fl & O_PATH) || (fl & O_ACCMODE) == O_RDONLY)
		return EXEC_WHY_NOT_WRITABLE;
	if (cfg->paths && !in_globs(cfg->paths, r->path))
		return EXEC_WHY_PATH;
	if (in_globs(cfg->excluded, r->path))
		return EXEC_WHY_EXCLUDED;
	return EXEC_WHY_NONE;
}

struct job {
	const struct exec_call *c;
	uint64_t waiting_since;		/* for another process's hold, or 0 */
	bool gone, timed_out;
};

/* The library's progress callback: the call stops (and is undone) when its
 * caller is gone, or when it has waited too long for another process. */
static int progress(uint64_t done, uint64_t total, void *data)
{
	struct job *j = data;

	(void)total;
	if (!exec_call_waiting(j->c)) {
		j->gone = true;
		return 1;
	}
	if (done)
		return 0;
	if (!j->waiting_since)
		j->waiting_since = exec_now_ns();
	j->timed_out = exec_now_ns() - j->waiting_since > EXEC_LOCK_WAIT_NS;
	return j->timed_out;
}

/* What the library's failure @ret makes of an ordered call: a pass where
 * it could not order the zeros, else a fallback. */
static void failed(const struct job *j, int ret, bool ordered, struct exec_result *r)
{
	if (j->gone) {
		r->outcome = EXEC_ABANDONED;
		r->err = -ret;
	} else if (j->timed_out) {
		r->outcome = EXEC_FELL_BACK;
		r->err = ETIMEDOUT;
	} else if (ordered && (ret == -EOPNOTSUPP || ret == -EBUSY)) {
		r->outcome = EXEC_PASSED;
		r->why = ret == -EBUSY ? EXEC_WHY_CHANGING : EXEC_WHY_NO_ORDER;
	} else {
		r->outcome = EXEC_FELL_BACK;
		r->err = -ret;
	}
}

static void convert(const struct exec_cfg *cfg, const struct exec_call *c, int fd,
		    struct exec_result *r)
{
	bool ordered = !in_globs(cfg->unordered, r->path);
	struct job j = { .c = c };
	struct prealloc_options o = { .size = sizeof(o), .progress = progress, .progress_data = &j,
				      .flags = ordered ? PREALLOC_CONCURRENT_WRITES : 0 };
	struct prealloc_report rep = { .size = sizeof(rep) };
	int ret;

	ret = cfg->convert(fd, c->off, c->len, &o, &rep);
	r->method = rep.method;
	r->ordered = ordered;
	if (ret) {
		failed(&j, ret, ordered, r);
		return;
	}
	r->outcome = EXEC_CONVERTED;
	r->bytes = rep.bytes_zeroed;
}

/* Whether the library could order the zeros of @c against others' writes
 * on @fd (asked of its plan, nothing written). */
static bool orderable(int fd, const struct exec_call *c)
{
	struct prealloc_options o = { .size = sizeof(o), .flags = PREALLOC_CONCURRENT_WRITES };
	struct prealloc_probe *p = NULL;
	bool ok = prealloc_probe_new(fd, c->off, c->len, &o, &p) == 0 &&
		  prealloc_probe_plan(p, 0) >= 0;

	prealloc_probe_free(p);
	return ok;
}

/* A dry run: the call passes; @r says what converting it would write (the
 * bytes of its range not written yet) and whether it would pass for want
 * of a way to order them. */
static void measure(const struct exec_cfg *cfg, const struct exec_call *c, int fd,
		    struct exec_result *r)
{
	struct prealloc_census cs = { .size = sizeof(cs) };

	r->why = EXEC_WHY_DRY_RUN;
	if (prealloc_verify(fd, c->off, c->len, &cs) == 0)
		r->bytes = c->len - cs.written_bytes;
	r->no_order = !in_globs(cfg->unordered, r->path) && !orderable(fd, c);
}

/* An O_PATH descriptor of @fd's file, for `prealloc exec` to watch, or -1. */
static int watch_of(int fd)
{
	char link[40];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return open(link, O_PATH | O_CLOEXEC);
}

void exec_convert_call(const struct exec_cfg *cfg, const struct exec_call *c,
		       struct exec_result *r, int *watch)
{
	enum exec_why why = EXEC_WHY_NONE;
	uint64_t t0 = exec_now_ns();
	int fd = caller_file(c, &why);

	*r = (struct exec_result){ .size = sizeof(*r), .outcome = EXEC_PASSED, .why = why };
	*watch = -1;
	if (fd >= 0) {
		r->why = screen_file(cfg, fd, r);
	} else {
		exec_call_path(c, r->path, sizeof(r->path));
	}
	if (!r->why && cfg->dry_run)
		measure(cfg, c, fd, r);
	else if (!r->why)
		convert(cfg, c, fd, r);
	if (r->outcome == EXEC_CONVERTED || r->why == EXEC_WHY_DRY_RUN)
		*watch = watch_of(fd);
	if (fd >= 0 && fd != c->fd)
		close(fd);
	r->elapsed_ns = exec_now_ns() - t0;
}
