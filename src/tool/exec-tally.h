/* SPDX-License-Identifier: MIT */
/*
 * What became of a program's calls under `prealloc exec`: the tally, the
 * log and the closing summary (src/tool/exec-tally.c), kept by
 * `prealloc exec` alone from the results of the calls it served: nothing
 * of them is in the program's reach.
 */
#ifndef PREALLOC_EXEC_TALLY_H
#define PREALLOC_EXEC_TALLY_H

#include <stdbool.h>
#include <stdint.h>

#include "exec-convert.h"

#define EXEC_ERRNO_MAX 134
#define EXEC_NAMED_MAX 8		/* unfinished calls the summary names */

struct exec_tally {
	uint64_t seen;				/* calls served */
	uint64_t outcomes[EXEC_OUTCOMES];	/* ... by what became of them */
	uint64_t bytes;				/* converted bytes */
	uint64_t by_method[PREALLOC_METHOD_SLOTS];	/* ... by the method that wrote most */
	uint64_t fallback_errno[EXEC_ERRNO_MAX];	/* why the library failed */
	uint64_t loaded;			/* processes that loaded the interposer */
	char named[EXEC_NAMED_MAX][PATH_MAX + 96];	/* abandoned, interrupted */
};

/* Count @r, the end of call @c. */
void exec_tally_count(struct exec_tally *t, const struct exec_call *c,
		      const struct exec_result *r);

/* One JSON line for @r, the end of call @c, appended to @log_fd. */
void exec_log_call(int log_fd, const struct exec_call *c, const struct exec_result *r);

/* The summary lines `prealloc exec` ends with, to @fd; @preload: the
 * interposer was the way in. */
void exec_tally_print(const struct exec_tally *t, bool preload, int fd);

#endif
