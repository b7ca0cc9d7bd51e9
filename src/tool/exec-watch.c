/* SPDX-License-Identifier: MIT */
/*
 * The converted ranges watched (src/tool/exec-watch.h).  A look is one
 * fstat() per file, made when a call of a pattern with converted ranges
 * comes, when inotify says a file lost a link, when a watch ends, and at
 * the end; the program's own descriptors are never touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec-watch.h"

#define NS_PER_MS (1000ull * 1000)
#define WATCH_NS (EXEC_WATCH_S * 1000ull * NS_PER_MS)

static void let_go(struct exec_watch *w, size_t i)
{
	int wd = w->v[i].wd;

	close(w->v[i].fd);
	w->v[i] = w->v[--w->n];
	/* One watch per file, whatever the ranges converted in it. */
	for (size_t k = 0; wd >= 0 && k < w->n; k++)
		if (w->v[k].wd == wd)
			return;
	if (wd >= 0)
		inotify_rm_watch(w->inotify, wd);
}

/* Room for one more: the range watched longest is let go (what it wrote
 * and still has, kept). */
static bool room(struct exec_watch *w)
{
	struct exec_watched *v;
	size_t oldest = 0;

	if (w->n == EXEC_WATCHED_MAX) {
		for (size_t i = 1; i < w->n; i++)
			if (w->v[i].until_ns < w->v[oldest].until_ns)
				oldest = i;
		let_go(w, oldest);
	}
	v = realloc(w->v, (w->n + 1) * sizeof(*v));
	if (v)
		w->v = v;
	return v != NULL;
}

/* An inotify watch of @fd's file for a change of its link count, or -1. */
static int watch_links(struct exec_watch *w, int fd)
{
	char link[40];

	if (w->inotify < 0)
		w->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->inotify < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return inotify_add_watch(w->inotify, link, IN_ATTRIB);
}

void exec_watch_add(struct exec_watch *w, struct exec_tally *t, const struct exec_call *c,
		    const struct exec_result *r, int fd)
{
	char glob[EXEC_PATTERN_MAX];
	struct exec_pattern_tally *p = NULL;
	uint64_t now = exec_now_ns();
	struct stat st;

	if (exec_pattern_of(r->path, glob, sizeof(glob)))
		p = exec_tally_pattern(t, glob, false);
	if (!p || !room(w)) {
		close(fd);
		return;
	}
	if (!w->n)
		w->looked_ns = now;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	w->v[w->n++] = (struct exec_watched){ .fd = fd, .wd = watch_links(w, fd),
					      .pattern = (size_t)(p - t->patterns),
					      .off = c->off, .end = c->off + c->len,
					      .bytes = r->bytes, .until_ns = now + WATCH_NS,
					      .mtime = st.st_mtim, .size = (uint64_t)st.st_size };
}

/* Unlinked as it was after its call: a spare, never written. */
static bool unwritten(const struct exec_watched *x, const struct stat *st)
{
	return (uint64_t)st->st_size == x->size && st->st_mtim.tv_sec == x->mtime.tv_sec &&
	       st->st_mtim.tv_nsec == x->mtime.tv_nsec;
}

/* What of @x's zeros the file as @st shows has thrown away, and how. */
static uint64_t gone(const struct exec_watched *x, const struct stat *st, const char **how)
{
	uint64_t size = (uint64_t)st->st_size, cut;

	if (!st->st_nlink) {
		*how = unwritten(x, st) ? "discarded" : "unlinked";
		return x->bytes;
	}
	*how = "cut";
	if (size >= x->end)
		return x->thrown;
	cut = x->end - (size > x->off ? size : x->off);
	return cut < x->bytes ? cut : x->bytes;
}

/* Look at @x: what it threw away since the last look counted and logged.
 * False when it is to be let go: unlinked, gone, or watched long enough. */
static bool look_at(struct exec_watch *w, struct exec_tally *t, struct exec_watched *x,
		    uint64_t now)
{
	struct exec_pattern_tally *p = &t->patterns[x->pattern];
	char link[40], path[PATH_MAX];
	const char *how;
	struct stat st;
	uint64_t g;
	ssize_t n;

	if (fstat(x->fd, &st) < 0)
		return false;
	g = gone(x, &st, &how);
	if (g > x->thrown) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", x->fd);
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
		exec_log_event(w->log_fd, how, p, path, x->off, x->end - x->off,
			       (uint64_t)st.st_size, g - x->thrown);
		if (exec_tally_throw(p, g - x->thrown, !strcmp(how, "discarded")))
			exec_log_event(w->log_fd, "speculative", p, NULL, 0, 0, 0, 0);
		x->thrown = g;
	}
	return st.st_nlink && now < x->until_ns;
}

static void look(struct exec_watch *w, struct exec_tally *t)
{
	uint64_t now = exec_now_ns();

	for (size_t i = w->n; i-- > 0;)
		if (!look_at(w, t, &w->v[i], now))
			let_go(w, i);
	w->looked_ns = now;
}

int exec_watch_fd(const struct exec_watch *w)
{
	return w->inotify;
}

void exec_watch_events(struct exec_watch *w, struct exec_tally *t)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;

	while (w->inotify >= 0 && read(w->inotify, buf, sizeof(buf)) > 0)
		any = true;
	if (any)
		look(w, t);
}

bool exec_watch_speculative(struct exec_watch *w, struct exec_tally *t, const char *path)
{
	char glob[EXEC_PATTERN_MAX];
	struct exec_pattern_tally *p;

	if (!exec_pattern_of(path, glob, sizeof(glob)) || !(p = exec_tally_pattern(t, glob, false)))
		return false;
	look(w, t);
	return p->speculative;
}

int exec_watch_due_ms(const struct exec_watch *w)
{
	uint64_t now = exec_now_ns(), due = UINT64_MAX;

	if (!w->n)
		return -1;
	for (size_t i = 0; i < w->n; i++) {
		if (w->v[i].until_ns < due)
			due = w->v[i].until_ns;
		if (w->v[i].wd < 0 && w->looked_ns + EXEC_LOOK_MS * NS_PER_MS < due)
			due = w->looked_ns + EXEC_LOOK_MS * NS_PER_MS;
	}
	return now >= due ? 0 : (int)((due - now + NS_PER_MS - 1) / NS_PER_MS);
}

void exec_watch_tick(struct exec_watch *w, struct exec_tally *t)
{
	if (w->n && exec_watch_due_ms(w) == 0)
		look(w, t);
}

void exec_watch_end(struct exec_watch *w, struct exec_tally *t)
{
	look(w, t);
	while (w->n)
		let_go(w, w->n - 1);
	free(w->v);
	w->v = NULL;
	if (w->inotify >= 0)
		close(w->inotify);
	w->inotify = -1;
}
