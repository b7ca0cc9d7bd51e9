/* SPDX-License-Identifier: MIT */
/* The tally, the log and the summary of `prealloc exec` (src/tool/exec-tally.h). */
#include <inttypes.h>
#include <stdio.h>
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
};

/* Why, in words: the library's error where it failed. */
static const char *why_of(const struct exec_result *r)
{
	if (r->err && r->outcome != EXEC_PASSED)
		return strerrorname_np(r->err) ? strerrorname_np(r->err) : "?";
	return r->why < EXEC_WHYS ? why_names[r->why] : "?";
}

void exec_tally_count(struct exec_tally *t, const struct exec_call *c,
		      const struct exec_result *r)
{
	uint64_t unfinished = t->outcomes[EXEC_ABANDONED] + t->outcomes[EXEC_INTERRUPTED];

	t->seen++;
	t->outcomes[r->outcome % EXEC_OUTCOMES]++;
	if (r->outcome == EXEC_CONVERTED) {
		t->bytes += c->len;
		t->by_method[r->method % PREALLOC_METHOD_SLOTS] += c->len;
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
	char path[6 * PATH_MAX], line[6 * PATH_MAX + 512];
	const char *method = r->outcome == EXEC_CONVERTED ? prealloc_method_name(r->method) : "";
	int n;

	if (log_fd < 0)
		return;
	json_escape(r->path, path, sizeof(path));
	n = snprintf(line, sizeof(line),
		     "{\"pid\":%d,\"tid\":%d,\"fd\":%d,\"path\":\"%s\",\"mode\":%d,\"offset\":%" PRIu64
		     ",\"length\":%" PRIu64 ",\"outcome\":\"%s\",\"why\":\"%s\",\"method\":\"%s\""
		     ",\"error\":%d,\"elapsed_ns\":%" PRIu64 ",\"front\":\"%s\"}\n",
		     (int)c->pid, (int)c->tid, c->prog_fd, path, c->mode, c->off, c->len,
		     outcome_names[r->outcome % EXEC_OUTCOMES], why_of(r), method ? method : "",
		     r->err, r->elapsed_ns, c->front == EXEC_FRONT_SECCOMP ? "seccomp" : "preload");
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(log_fd, line, (size_t)n);
}

void exec_tally_print(const struct exec_tally *t, bool preload, int fd)
{
	const uint64_t *o = t->outcomes;
	uint64_t unfinished = o[EXEC_ABANDONED] + o[EXEC_INTERRUPTED];

	dprintf(fd, "prealloc exec: %" PRIu64 " fallocate() calls seen, %" PRIu64
		" converted (%" PRIu64 " bytes written), %" PRIu64 " passed through, %" PRIu64
		" fell back, %" PRIu64 " abandoned, %" PRIu64 " interrupted\n", t->seen,
		o[EXEC_CONVERTED], t->bytes, o[EXEC_PASSED], o[EXEC_FELL_BACK], o[EXEC_ABANDONED],
		o[EXEC_INTERRUPTED]);
	for (unsigned int m = 1; m < PREALLOC_METHOD_SLOTS; m++)
		if (t->by_method[m])
			dprintf(fd, "prealloc exec:   %" PRIu64 " bytes by %s\n", t->by_method[m],
				prealloc_method_name(m) ? prealloc_method_name(m) : "?");
	for (int e = 0; e < EXEC_ERRNO_MAX; e++)
		if (t->fallback_errno[e])
			dprintf(fd, "prealloc exec:   %" PRIu64 " fell back on %s\n",
				t->fallback_errno[e], e ? strerrorname_np(e) : "another error");
	for (uint64_t i = 0; i < unfinished && i < EXEC_NAMED_MAX; i++)
		dprintf(fd, "prealloc exec:   %s\n", t->named[i]);
	if (unfinished > EXEC_NAMED_MAX)
		dprintf(fd, "prealloc exec:   and %" PRIu64 " more not finished\n",
			unfinished - EXEC_NAMED_MAX);
	if (preload)
		dprintf(fd, "prealloc exec: the interposer was loaded in %" PRIu64 " process%s\n",
			t->loaded, t->loaded == 1 ? "" : "es");
}
