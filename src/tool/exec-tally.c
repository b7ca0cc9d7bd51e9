/* SPDX-License-Identifier: MIT */
/* The tally, the log and the summary of `prealloc exec` (src/tool/exec-tally.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec-tally.h"

static const char *const outcome_names[EXEC_OUTCOMES] = {
	[EXEC_CONVERTED] = "converted",
	[EXEC_PASSED] = "passed",
	[EXEC_FELL_BACK] = "fell-back",
	[EXEC_ABANDONED] = "abandoned",
	[EXEC_INTERRUPTED] = "interrupted",
};

static const char *const why_names[EXEC_WHYS] = {
	[EXEC_WHY_NONE] = "",
	[EXEC_WHY_MODE] = "mode",
	[EXEC_WHY_SMALL] = "small",
	[EXEC_WHY_RANGE] = "range",
	[EXEC_WHY_FSIZE] = "file size limit",
	[EXEC_WHY_RIGHTS] = "rights",
	[EXEC_WHY_NO_FILE] = "no file",
	[EXEC_WHY_NOT_REGULAR] = "not a regular file",
	[EXEC_WHY_NOT_WRITABLE] = "not open for writing",
	[EXEC_WHY_PATH] = "path",
	[EXEC_WHY_GONE] = "gone",
	[EXEC_WHY_NO_PROCESS] = "no process",
	[EXEC_WHY_EXCLUDED] = "excluded",
	[EXEC_WHY_NO_ORDER] = "no way to order the zeros here",
	[EXEC_WHY_CHANGING] = "the file kept changing",
	[EXEC_WHY_SPECULATIVE] = "speculative",
	[EXEC_WHY_DRY_RUN] = "dry run",
};

/* Why, in words: the library's error where it failed. */
static const char *why_of(const struct exec_result *r)
{
	if (r->err && r->outcome != EXEC_PASSED)
		return strerrorname_np(r->err) ? strerrorname_np(r->err) : "?";
	return r->why < EXEC_WHYS ? why_names[r->why] : "?";
}

struct exec_pattern_tally *exec_tally_pattern(struct exec_tally *t, const char *glob, bool add)
{
	struct exec_pattern_tally *p;

	for (size_t i = 0; i < t->npatterns; i++)
		if (!strcmp(t->patterns[i].glob, glob))
			return &t->patterns[i];
	if (!add || !*glob || t->npatterns == EXEC_PATTERNS_MAX ||
	    !(p = realloc(t->patterns, (t->npatterns + 1) * sizeof(*p))))
		return NULL;
	t->patterns = p;
	p += t->npatterns++;
	*p = (struct exec_pattern_tally){ 0 };
	snprintf(p->glob, sizeof(p->glob), "%s", glob);
	return p;
}

bool exec_tally_wasteful(const struct exec_pattern_tally *p)
{
	return p->thrown - p->spares > p->bytes / 2;
}

bool exec_tally_throw(struct exec_pattern_tally *p, uint64_t bytes, bool spare)
{
	p->thrown += bytes;
	if (spare)
		p->spares += bytes;
	if (p->speculative || !exec_tally_wasteful(p))
		return false;
	p->speculative = true;
	return true;
}

void exec_tally_free(struct exec_tally *t)
{
	free(t->patterns);
	t->patterns = NULL;
	t->npatterns = 0;
}

/* A converted or measured call, and one passed as speculative, counted
 * for its file's pattern. */
static void count_pattern(struct exec_tally *t, const struct exec_result *r)
{
	bool written = r->outcome == EXEC_CONVERTED || r->why == EXEC_WHY_DRY_RUN;
	char glob[EXEC_PATTERN_MAX];
	struct exec_pattern_tally *p;

	if ((!written && r->why != EXEC_WHY_SPECULATIVE) ||
	    !exec_pattern_of(r->path, glob, sizeof(glob)) ||
	    !(p = exec_tally_pattern(t, glob, true)))
		return;
	if (!written) {
		p->passed++;
		return;
	}
	p->calls++;
	p->bytes += r->bytes;
	p->no_order += r->no_order;
}

void exec_tally_count(struct exec_tally *t, const struct exec_call *c,
		      const struct exec_result *r)
{
	uint64_t unfinished = t->outcomes[EXEC_ABANDONED] + t->outcomes[EXEC_INTERRUPTED];

	t->seen++;
	t->outcomes[r->outcome % EXEC_OUTCOMES]++;
	count_pattern(t, r);
	if (r->outcome == EXEC_CONVERTED) {
		t->bytes += c->len;
		t->by_method[r->method % PREALLOC_METHOD_SLOTS] += c->len;
		t->unordered += !r->ordered;
	} else if (r->outcome == EXEC_PASSED) {
		t->passed_why[r->why % EXEC_WHYS]++;
	} else if (r->outcome == EXEC_FELL_BACK) {
		t->fallback_errno[r->err > 0 && r->err < EXEC_ERRNO_MAX ? r->err : 0]++;
	} else if ((r->outcome == EXEC_ABANDONED || r->outcome == EXEC_INTERRUPTED) &&
		   unfinished < EXEC_NAMED_MAX) {
		snprintf(t->named[unfinished], sizeof(t->named[0]),
			 "%s: %s [%" PRIu64 ", +%" PRIu64 ") of process %d",
			 outcome_names[r->outcome], r->path[0] ? r->path : "?", c->off, c->len,
			 (int)c->pid);
	}
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

void exec_log_call(int log_fd, const struct exec_call *c, const struct exec_result *r)
{
	char path[6 * PATH_MAX], glob[EXEC_PATTERN_MAX], pattern[6 * EXEC_PATTERN_MAX];
	char line[6 * PATH_MAX + 6 * EXEC_PATTERN_MAX + 512];
	const char *method = r->outcome == EXEC_CONVERTED ? prealloc_method_name(r->method) : "";
	int n;

	if (log_fd < 0)
		return;
	json_escape(r->path, path, sizeof(path));
	exec_pattern_of(r->path, glob, sizeof(glob));
	json_escape(glob, pattern, sizeof(pattern));
	n = snprintf(line, sizeof(line),
		     "{\"pid\":%d,\"tid\":%d,\"fd\":%d,\"path\":\"%s\",\"pattern\":\"%s\",\"mode\":%d"
		     ",\"offset\":%" PRIu64 ",\"length\":%" PRIu64 ",\"outcome\":\"%s\",\"why\":\"%s\""
		     ",\"method\":\"%s\",\"ordered\":%s,\"bytes\":%" PRIu64 ",\"error\":%d"
		     ",\"elapsed_ns\":%" PRIu64 ",\"front\":\"%s\"}\n",
		     (int)c->pid, (int)c->tid, c->prog_fd, path, pattern, c->mode, c->off, c->len,
		     outcome_names[r->outcome % EXEC_OUTCOMES], why_of(r), method ? method : "",
		     r->outcome == EXEC_CONVERTED && r->ordered ? "true" : "false", r->bytes,
		     r->err, r->elapsed_ns, c->front == EXEC_FRONT_SECCOMP ? "seccomp" : "preload");
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(log_fd, line, (size_t)n);
}

void exec_log_event(int log_fd, const char *event, const struct exec_pattern_tally *p,
		    const char *path, uint64_t off, uint64_t len, uint64_t size,
		    uint64_t thrown)
{
	char file[6 * PATH_MAX], pattern[6 * EXEC_PATTERN_MAX];
	char line[6 * PATH_MAX + 6 * EXEC_PATTERN_MAX + 256];
	int n;

	if (log_fd < 0)
		return;
	json_escape(p->glob, pattern, sizeof(pattern));
	json_escape(path ? path : "", file, sizeof(file));
	if (!path)
		n = snprintf(line, sizeof(line),
			     "{\"event\":\"%s\",\"pattern\":\"%s\",\"bytes\":%" PRIu64
			     ",\"thrown\":%" PRIu64 "}\n", event, pattern, p->bytes, p->thrown);
	else
		n = snprintf(line, sizeof(line),
			     "{\"event\":\"%s\",\"path\":\"%s\",\"pattern\":\"%s\",\"offset\":%" PRIu64
			     ",\"length\":%" PRIu64 ",\"size\":%" PRIu64 ",\"thrown\":%" PRIu64 "}\n",
			     event, file, pattern, off, len, size, thrown);
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(log_fd, line, (size_t)n);
}

/* The calls that were not converted, by why. */
static void print_others(const struct exec_tally *t, int fd)
{
	uint64_t unfinished = t->outcomes[EXEC_ABANDONED] + t->outcomes[EXEC_INTERRUPTED];

	for (unsigned int w = 1; w < EXEC_WHYS; w++)
		if (t->passed_why[w])
			dprintf(fd, "prealloc exec:   %" PRIu64 " passed through: %s\n",
				t->passed_why[w], why_names[w]);
	for (int e = 0; e < EXEC_ERRNO_MAX; e++)
		if (t->fallback_errno[e])
			dprintf(fd, "prealloc exec:   %" PRIu64 " fell back on %s\n",
				t->fallback_errno[e], e ? strerrorname_np(e) : "another error");
	for (uint64_t i = 0; i < unfinished && i < EXEC_NAMED_MAX; i++)
		dprintf(fd, "prealloc exec:   %s\n", t->named[i]);
	if (unfinished > EXEC_NAMED_MAX)
		dprintf(fd, "prealloc exec:   and %" PRIu64 " more not finished\n",
			unfinished - EXEC_NAMED_MAX);
}

/* The wasteful first: most thrown away, then most written. */
static int by_waste(const void *a, const void *b)
{
	const struct exec_pattern_tally *x = *(const struct exec_pattern_tally *const *)a;
	const struct exec_pattern_tally *y = *(const struct exec_pattern_tally *const *)b;

	if (x->thrown != y->thrown)
		return x->thrown < y->thrown ? 1 : -1;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static void print_pattern(const struct exec_pattern_tally *p, bool dry_run, int fd)
{
	dprintf(fd, "prealloc exec:   %s: %" PRIu64 " call%s %s %" PRIu64 " bytes, %" PRIu64
		" thrown away by the program (cut off or unlinked within %d s), %" PRIu64 " kept",
		p->glob, p->calls, p->calls == 1 ? "" : "s",
		dry_run ? "would have written" : "converted,", p->bytes, p->thrown,
		EXEC_WATCH_S, p->bytes - p->thrown);
	if (p->spares)
		dprintf(fd, "; %" PRIu64 " of it in spares unlinked unwritten", p->spares);
	if (p->speculative && !dry_run)
		dprintf(fd, "; speculative: %" PRIu64 " call%s passed through since", p->passed,
			p->passed == 1 ? "" : "s");
	if (p->no_order)
		dprintf(fd, "; %" PRIu64 " with no way to order the zeros here", p->no_order);
	dprintf(fd, "\n");
}

/* @option 'GLOB' for each of @v's @n patterns that @which, shell-quoted. */
static void print_options(struct exec_pattern_tally *const *v, size_t n,
			  bool (*which)(const struct exec_pattern_tally *), const char *option,
			  int fd)
{
	char quoted[4 * EXEC_PATTERN_MAX + 3];

	for (size_t i = 0; i < n; i++) {
		size_t q = 0;

		if (!which(v[i]))
			continue;
		quoted[q++] = '\'';
		for (const char *c = v[i]->glob; *c; c++) {
			if (*c == '\'') {
				memcpy(quoted + q, "'\\''", 4);
				q += 4;
			} else {
				quoted[q++] = *c;
			}
		}
		quoted[q++] = '\'';
		quoted[q] = '\0';
		dprintf(fd, " %s %s", option, quoted);
	}
	dprintf(fd, "\n");
}

static bool unorderable(const struct exec_pattern_tally *p)
{
	return p->no_order && !exec_tally_wasteful(p);
}

/* Each pattern's calls, what they wrote and what the program threw
 * away; after a dry run, the options that follow. */
static void print_patterns(const struct exec_tally *t, bool dry_run, int fd)
{
	struct exec_pattern_tally **v = calloc(t->npatterns + 1, sizeof(*v));
	size_t n = 0, waste = 0, order = 0;

	for (size_t i = 0; v && i < t->npatterns; i++)
		if (t->patterns[i].calls)
			v[n++] = &t->patterns[i];
	if (!n || !v) {
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), by_waste);
	dprintf(fd, "prealloc exec: %s\n", dry_run ?
		"a dry run, nothing converted; per file pattern, what converting would have done:" :
		"per file pattern, what was converted:");
	for (size_t i = 0; i < n; i++) {
		print_pattern(v[i], dry_run, fd);
		waste += exec_tally_wasteful(v[i]);
		order += unorderable(v[i]);
	}
	if (dry_run && waste) {
		dprintf(fd, "prealloc exec: to leave out what the program throws away:");
		print_options(v, n, exec_tally_wasteful, "--exclude", fd);
	}
	if (dry_run && order) {
		dprintf(fd, "prealloc exec: no way to order the zeros here; for a program that "
			"never writes a range while it fallocate()s it:");
		print_options(v, n, unorderable, "--unordered", fd);
	}
	free(v);
}

void exec_tally_print(const struct exec_tally *t, bool preload, bool dry_run, int fd)
{
	const uint64_t *o = t->outcomes;

	dprintf(fd, "prealloc exec: %" PRIu64 " fallocate() calls seen, %" PRIu64
		" converted (%" PRIu64 " bytes written), %" PRIu64 " passed through, %" PRIu64
		" fell back, %" PRIu64 " abandoned, %" PRIu64 " interrupted\n", t->seen,
		o[EXEC_CONVERTED], t->bytes, o[EXEC_PASSED], o[EXEC_FELL_BACK], o[EXEC_ABANDONED],
		o[EXEC_INTERRUPTED]);
	for (unsigned int m = 1; m < PREALLOC_METHOD_SLOTS; m++)
		if (t->by_method[m])
			dprintf(fd, "prealloc exec:   %" PRIu64 " bytes by %s\n", t->by_method[m],
				prealloc_method_name(m) ? prealloc_method_name(m) : "?");
	if (t->unordered)
		dprintf(fd, "prealloc exec:   %" PRIu64 " converted unordered (--unordered)\n",
			t->unordered);
	print_others(t, fd);
	print_patterns(t, dry_run, fd);
	if (preload)
		dprintf(fd, "prealloc exec: the interposer was loaded in %" PRIu64 " process%s\n",
			t->loaded, t->loaded == 1 ? "" : "es");
}
