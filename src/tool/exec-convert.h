/* SPDX-License-Identifier: MIT */
/*
 * `prealloc exec`: one call, whichever front end took it
 * (src/tool/exec-convert.c): admitted by `prealloc exec` (its arguments,
 * the rights it is made with), then converted by a process that has taken
 * on those rights (src/tool/exec-worker.c); what became of it is a struct
 * exec_result, which the tally and the log are made of
 * (src/tool/exec-tally.c).
 */
#ifndef PREALLOC_EXEC_CONVERT_H
#define PREALLOC_EXEC_CONVERT_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include <prealloc.h>

#include "exec-call.h"
#include "exec-creds.h"

#define EXEC_DEFAULT_MIN (1ull << 20)
/* How long a call waits for another process's hold on the file: any process
 * can look like one that holds it for a call of its own.  Then the call is
 * made as the program made it. */
#define EXEC_LOCK_WAIT_NS (2ull * 1000 * 1000 * 1000)

/* What became of a call (the log's "outcome"). */
enum exec_outcome {
	EXEC_CONVERTED,		/* the range is written: the call returned 0 */
	EXEC_PASSED,		/* not one to convert: made as it was */
	EXEC_FELL_BACK,		/* the library failed: made as it was */
	EXEC_ABANDONED,		/* its caller died first: what was done is undone */
	EXEC_INTERRUPTED,	/* its worker was killed: made as it was */
	EXEC_OUTCOMES
};

/* Why a call passed (the log's "why"). */
enum exec_why {
	EXEC_WHY_NONE,
	EXEC_WHY_MODE,		/* not mode 0 */
	EXEC_WHY_SMALL,		/* below --min-size */
	EXEC_WHY_RANGE,		/* a range the kernel refuses (EINVAL) */
	EXEC_WHY_FSIZE,		/* beyond the caller's RLIMIT_FSIZE */
	EXEC_WHY_RIGHTS,	/* the caller's rights cannot be taken on */
	EXEC_WHY_NO_FILE,	/* the caller's file cannot be had as its own */
	EXEC_WHY_NOT_REGULAR,	/* not a regular file */
	EXEC_WHY_NOT_WRITABLE,	/* not open for writing (O_RDONLY, O_PATH) */
	EXEC_WHY_PATH,		/* outside --path */
	EXEC_WHY_GONE,		/* the caller was gone */
	EXEC_WHY_NO_PROCESS,	/* no process to convert it in (fork() failed) */
	EXEC_WHY_EXCLUDED,	/* inside --exclude */
	EXEC_WHY_NO_ORDER,	/* no way to order the zeros against others' writes here */
	EXEC_WHY_CHANGING,	/* the file kept changing under every ordered attempt */
	EXEC_WHY_SPECULATIVE,	/* its pattern's conversions were mostly thrown away */
	EXEC_WHY_DRY_RUN,	/* --dry-run */
	EXEC_WHYS
};

/* What converts a range: prealloc_file_ex() unless told otherwise. */
typedef int (*exec_convert_fn)(int fd, uint64_t offset, uint64_t len,
			       const struct prealloc_options *opts, struct prealloc_report *rep);

/*
 * How `prealloc exec` converts, for every call alike.  Globs are lists,
 * each NUL-terminated, then "", matched by fnmatch(3) against the path of
 * the caller's file.  A call is converted ordered against the program's
 * own writes (PREALLOC_CONCURRENT_WRITES), unless its file is in
 * @unordered: the operator vouches that the program never writes a range
 * while it fallocate()s it.
 */
struct exec_cfg {
	uint64_t min;			/* smaller calls pass */
	const char *paths;		/* only these are converted; NULL: all */
	const char *excluded;		/* these never are, or NULL */
	const char *unordered;		/* these are converted unordered, or NULL */
	bool dry_run;			/* none is: each is screened and measured */
	exec_convert_fn convert;
};

/* One call's end. */
struct exec_result {
	uint32_t size;			/* sizeof(struct exec_result) */
	uint32_t outcome;		/* enum exec_outcome */
	uint32_t why;			/* enum exec_why, for a passed call */
	int32_t err;			/* fell back, abandoned: the library's errno */
	uint32_t method;		/* converted: the method that wrote most */
	uint32_t ordered;		/* converted: ordered against the program's writes */
	uint32_t no_order;		/* dry run: would pass, no way to order it here */
	uint64_t bytes;			/* converted: zeros written; dry run: to be written */
	uint64_t dev, ino;		/* the file, when it was had */
	uint64_t elapsed_ns;
	char path[PATH_MAX];		/* the file's path, or "" */
};

/*
 * Whether @c is one to convert, as far as its arguments and the rights its
 * thread makes it with go (those in @cr): EXEC_WHY_NONE, or why it passes.
 * A range beyond the thread's file size limit passes: the kernel refuses
 * it with the program's own EFBIG or SIGXFSZ.
 */
enum exec_why exec_admit(const struct exec_cfg *cfg, const struct exec_call *c,
			 struct exec_creds *cr);

/*
 * In a process that has taken on the rights of the thread that made @c
 * (exec_creds_take()): have its file (the thread's own description, else
 * the file opened through /proc as it could open it), screen it, convert
 * it (or, in a dry run, count what converting would write); what became
 * of it in @r.  The caller's death during the conversion abandons it (the
 * library undoes what it did).  A converted or measured file comes back
 * in *@watch as an O_PATH descriptor of it (no lock, no access to its
 * data: something to fstat() until it is closed), else -1.  An ordered
 * conversion the library cannot order (-EOPNOTSUPP) or that found the
 * file changing under every attempt (-EBUSY) passes: the program's own
 * fallocate() never touches data.
 */
void exec_convert_call(const struct exec_cfg *cfg, const struct exec_call *c,
		       struct exec_result *r, int *watch);

/* CLOCK_MONOTONIC, in nanoseconds. */
uint64_t exec_now_ns(void);

#endif
