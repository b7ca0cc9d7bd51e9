/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec`: what its two ways of reaching a program's fallocate()
 * share (src/tool/exec-convert.c).  The interposer (src/tool/exec-preload.c,
 * loaded into the program with LD_PRELOAD) and the supervisor
 * (src/tool/exec-supervise.c, seccomp user notification) both hand each
 * call to exec_convert(), and count it in one tally that `prealloc exec`
 * shares with every process of the program (a memfd, MAP_SHARED).
 */
#ifndef PREALLOC_EXEC_CONVERT_H
#define PREALLOC_EXEC_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include <prealloc.h>

/* How `prealloc exec` configures the interposer of every process it starts. */
#define EXEC_ENV_MIN	"PREALLOC_EXEC_MIN_SIZE"	/* bytes */
#define EXEC_ENV_PATHS	"PREALLOC_EXEC_PATHS"		/* globs, one per line */
#define EXEC_ENV_LOG	"PREALLOC_EXEC_LOG"		/* the log: "fd:dev:ino" */
#define EXEC_ENV_TALLY	"PREALLOC_EXEC_TALLY"		/* the tally: "fd:dev:ino" */

#define EXEC_DEFAULT_MIN (1ull << 20)
#define EXEC_ERRNO_MAX 134

/* What became of the calls, counted by every process of the program. */
struct exec_tally {
	uint64_t seen;				/* fallocate() calls looked at */
	uint64_t converted;			/* made written by the library */
	uint64_t passed;			/* not ours: a flag, small, not a file, ... */
	uint64_t fell_back;			/* the library failed: the real call made */
	uint64_t bytes;				/* converted bytes */
	uint64_t by_method[PREALLOC_METHOD_SLOTS];	/* ... by the method that wrote most */
	uint64_t fallback_errno[EXEC_ERRNO_MAX];	/* why the library failed */
};

struct exec_cfg {
	uint64_t min;				/* smaller calls pass */
	char *paths;				/* NUL-separated globs, or NULL: all */
	int log_fd;				/* O_APPEND, or -1 */
	uint64_t log_dev, log_ino;		/* what log_fd must still be */
	struct exec_tally *tally;		/* shared, or NULL */
	/* Called while a converted call waits for another process's hold on
	 * the file; non-zero gives up (the supervisor: the program itself
	 * holds a flock() on it). */
	prealloc_progress_fn waiting;
	void *waiting_data;
};

/* What exec_convert() did with one call. */
enum exec_outcome {
	EXEC_CONVERTED,		/* the range is written: the call returns 0 */
	EXEC_PASSED,		/* not ours: make the real call */
	EXEC_FELL_BACK,		/* the library failed: make the real call */
};

/*
 * One fallocate(@fd, @mode, @off, @len) of the program, @fd a descriptor of
 * this process that refers to the program's (its own, or a copy of it).
 * Only mode 0 with @len at least cfg->min on a regular file whose path
 * matches cfg->paths is converted: prealloc_file_ex() on @fd.  Counts the
 * call and logs it (@pid, 0 for this process, and @prog_fd: the program's
 * view, for the log).
 */
enum exec_outcome exec_convert(const struct exec_cfg *cfg, int fd, int mode, uint64_t off,
			       uint64_t len, int pid, int prog_fd);

/* Fill @cfg from the environment `prealloc exec` set: the log and the
 * tally are descriptors it opened and the program's processes inherit (so
 * one that drops its privileges still reaches them), taken only while they
 * are still those files (see exec-preload.c: before main()). */
void exec_cfg_from_env(struct exec_cfg *cfg);

/* Print @t as the summary lines `prealloc exec` ends with, to @fd. */
void exec_tally_print(const struct exec_tally *t, int fd);

#endif
