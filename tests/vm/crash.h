/* SPDX-License-Identifier: MIT */
/*
 * Power-loss test (crash.c): the workload run through dm-log-writes records
 * what each library call was asked and answered (the oracle, kept in the
 * guest's memory, never on the recorded disk); at every crash point of the
 * replay the checks compare the recovered filesystem with it.
 *
 * Every call is bracketed by marks "B<i>" and "A<i>" (i = its index in the
 * oracle); its file's starting state is made durable before "B<i>".
 */
#ifndef VM_CRASH_H
#define VM_CRASH_H

#include <stdbool.h>
#include <stdint.h>

#define CW_MAX_CALLS 384
#define CW_POOL_CALLS 16	/* at most, both pool lives (crash-pool.c) */
#define CW_MAX_DATA 3
#define CW_SEG (1u << 20)	/* pool segment size */

enum cw_kind {
	CW_FILE,	/* prealloc_file_ex() on its own file */
	CW_POOL_OPEN,	/* open, wait for the ready segments */
	CW_POOL_TAKE,	/* take (or prepare and take) @name */
	CW_POOL_RECYCLE,	/* overwrite @name, recycle it with ZERO_DATA */
	CW_POOL_CLOSE,
};

struct cw_extent {
	uint64_t off, len;
};

struct cw_call {
	enum cw_kind kind;
	char name[32];		/* file (CW_FILE) or segment name, under the mount */
	char what[48];		/* for reports */
	uint64_t off, len;
	unsigned int flags;	/* PREALLOC_* */
	uint32_t method;
	uint32_t tag;		/* pattern of the old data */
	struct cw_extent data[CW_MAX_DATA];	/* old data (pattern @tag) */
	int ndata;
	uint64_t old_size, new_size;
	char taken_from[32];	/* CW_POOL_TAKE: the ready segment it moved */
	int life;		/* pool calls: which pool (crash-pool.c) */
	int ret;		/* what the call returned while recording */
};

struct cw_oracle {
	struct cw_call call[CW_MAX_CALLS];
	int n;
};

/* Marks seen so far during the replay, per call. */
struct cw_seen {
	bool before[CW_MAX_CALLS], after[CW_MAX_CALLS];
};

/* Run the workload in @dir (the mount point), marking through @mark: the
 * file calls once, again on new files while @more (NULL: never) says so and
 * the oracle has room, then the pool. */
int cw_run(const char *dir, bool (*more)(void), int (*mark)(const char *text),
	   struct cw_oracle *o);

/* The pool's part of it, in @dir (open as @dirfd): crash-pool.c. */
int cw_run_pool(const char *dir, int dirfd, int (*mark)(const char *text), struct cw_oracle *o);
int cw_check_pool(const char *dir, int dirfd, const struct cw_oracle *o,
		  const struct cw_seen *seen, const char *where);

/*
 * Check the filesystem mounted at @dir against the oracle at a crash point
 * where @seen holds the marks replayed so far: every file's size, the
 * extents of returned calls, the bytes of the calls not yet settled
 * (crash-check.c), all bytes with @sweep.  Prints one line per violation (prefixed with @where) and
 * returns their number.
 */
int cw_check(const char *dir, const struct cw_oracle *o, const struct cw_seen *seen,
	     bool sweep, const char *where);

#endif
