/* SPDX-License-Identifier: MIT */
/*
 * What became of a program's calls under `prealloc exec`: the tally, the
 * log and the closing summary (src/tool/exec-tally.c), kept by
 * `prealloc exec` alone from the results of the calls it served and from
 * what the program did to the files afterwards (src/tool/exec-watch.c):
 * nothing of them is in the program's reach.
 */
#ifndef PREALLOC_EXEC_TALLY_H
#define PREALLOC_EXEC_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec-convert.h"
#include "exec-pattern.h"

#define EXEC_ERRNO_MAX 134
#define EXEC_NAMED_MAX 8		/* unfinished calls the summary names */
#define EXEC_PATTERNS_MAX 1024		/* patterns counted; calls of more are not */
/* What the program cuts off or unlinks of a converted range within this
 * many seconds of its conversion it threw away (src/tool/exec-watch.c). */
#define EXEC_WATCH_S 60

/* The converted calls of one file pattern (or, in a dry run, the calls
 * that would be), and what the program did with what they wrote. */
struct exec_pattern_tally {
	char glob[EXEC_PATTERN_MAX];
	uint64_t calls;
	uint64_t bytes;			/* zeros they wrote (would write) */
	uint64_t thrown;		/* ... the program cut off or unlinked soon after */
	uint64_t spares;		/* ... of it, files unlinked unwritten */
	uint64_t passed;		/* calls passed once it was speculative */
	uint64_t no_order;		/* dry run: calls with no way to order them */
	bool speculative;		/* most of what they wrote was thrown away */
};

struct exec_tally {
	uint64_t seen;				/* calls served */
	uint64_t outcomes[EXEC_OUTCOMES];	/* ... by what became of them */
	uint64_t bytes;				/* converted bytes */
	uint64_t by_method[PREALLOC_METHOD_SLOTS];	/* ... by the method that wrote most */
	uint64_t unordered;			/* converted calls --unordered vouched for */
	uint64_t passed_why[EXEC_WHYS];		/* why calls passed */
	uint64_t fallback_errno[EXEC_ERRNO_MAX];	/* why the library failed */
	uint64_t loaded;			/* processes that loaded the interposer */
	char named[EXEC_NAMED_MAX][PATH_MAX + 96];	/* abandoned, interrupted */
	struct exec_pattern_tally *patterns;
	size_t npatterns;
};

/* Count @r, the end of call @c. */
void exec_tally_count(struct exec_tally *t, const struct exec_call *c,
		      const struct exec_result *r);

/* The tally of @glob, added (zeroed) when @add and there is room, else
 * NULL.  Its index stays its own until exec_tally_free(). */
struct exec_pattern_tally *exec_tally_pattern(struct exec_tally *t, const char *glob, bool add);

/* @bytes more of what @p's calls wrote thrown away by the program, in a
 * spare (a file unlinked unwritten) or not: true when that makes @p
 * speculative (more than half of it thrown away, spares aside). */
bool exec_tally_throw(struct exec_pattern_tally *p, uint64_t bytes, bool spare);

/* Has @p thrown away more than half of what it wrote, spares aside? */
bool exec_tally_wasteful(const struct exec_pattern_tally *p);

void exec_tally_free(struct exec_tally *t);

/* One JSON line for @r, the end of call @c, appended to @log_fd. */
void exec_log_call(int log_fd, const struct exec_call *c, const struct exec_result *r);

/* One JSON line for what the program did to a converted range [@off, +@len)
 * of the file at @path (@p's): @event "cut" (to @size bytes), "unlinked" or "discarded" (unlinked unwritten),
 * @thrown bytes of its zeros more thrown away; or @event "speculative" once
 * @p has thrown away most of what it wrote (@path NULL). */
void exec_log_event(int log_fd, const char *event, const struct exec_pattern_tally *p,
		    const char *path, uint64_t off, uint64_t len, uint64_t size,
		    uint64_t thrown);

/* The summary lines `prealloc exec` ends with, to @fd; @preload: the
 * interposer was the way in; @dry_run: per pattern what converting would
 * have written and what the program kept, and the options that follow. */
void exec_tally_print(const struct exec_tally *t, bool preload, bool dry_run, int fd);

#endif
