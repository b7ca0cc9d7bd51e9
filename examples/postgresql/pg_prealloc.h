/* SPDX-License-Identifier: MIT */
/*
 * pg_prealloc: a PostgreSQL (15 and later) background worker that keeps the
 * next WAL segments installed under their names (the current timeline's,
 * or on a standby those the walreceiver streams into), made by a
 * libprealloc pool in pg_wal/pgsql_tmp_prealloc.  What its files share: the
 * GUCs (pg_prealloc.c), the counters in shared memory (read by stats.c),
 * the worker (worker.c, ahead.c, walpos.c, install.c) and the log queue
 * (logq.c).  What differs between PostgreSQL's majors is in pg_compat.h.
 */
#ifndef PG_PREALLOC_H
#define PG_PREALLOC_H

#include "postgres.h"

#include "access/xlog_internal.h"
#include "pg_compat.h"
#include "storage/spin.h"

#include <prealloc.h>	/* the context and probe calls, and the pool */

/* The pool's directory, inside pg_wal.  No WAL name to PostgreSQL's scans;
 * and named as a temporary files' directory (PG_TEMP_FILE_PREFIX), which
 * pg_basebackup and pg_rewind never copy (pg_rewind removes the target's:
 * the worker makes new segments).  PGP_OLD_POOL_DIR: its name before, moved
 * to the new one at start. */
#define PGP_POOL_DIR XLOGDIR "/pgsql_tmp_prealloc"
#define PGP_OLD_POOL_DIR XLOGDIR "/.pg_prealloc"
/* In the pool's directory: the next segment to install, with its stub
 * (install.c). */
#define PGP_STAGED "staged"

/* Installs the worker remembers, to tell whether a segment PostgreSQL
 * switched into was one of them. */
#define PGP_RECENT 1024

/* GUCs (pg_prealloc.c). */
extern bool pgp_enabled;
extern int pgp_segments_ahead;	/* 0: sized from free space */
extern bool pgp_background;	/* off: the pool zeroes at full speed */
extern int pgp_max_rate_mb;	/* MB/s, 0 for no cap */
extern int pgp_free_floor_mb;	/* 0: libprealloc's default */
extern int pgp_naptime_ms;

/* What the worker publishes and pg_prealloc_stats() reads (under mutex). */
typedef struct PgpShared {
	slock_t mutex;
	int worker_pid;
	TimeLineID tli;
	uint32 ahead_target;		/* segments ahead aimed for now */
	uint32 ahead_present;		/* of them existing now, whoever made them */
	uint32 installed_ahead;		/* of them installed by the worker now */
	uint64 installed;		/* segments the worker installed in all */
	uint64 switched_installed;	/* switched into: installed by the worker */
	uint64 misses;			/* switched into: not installed by it */
	uint64 pool_empty;		/* rounds stopped with no segment ready */
	uint64 rounds;			/* rounds completed */
	int last_error;			/* last failed install or pool open, -errno */
	struct prealloc_pool_stats pool;
	char plan[96];			/* the probe's plan for pg_wal */
} PgpShared;

extern PgpShared *pgp_shared;

/* worker.c */
PGDLLEXPORT void pgp_worker_main(Datum arg);

/* walpos.c: where WAL is written next: the insert position, or on a
 * standby the walreceiver's flush position, or replay's where it is further
 * (false: in recovery, nothing streams now). */
struct pgp_walpos {
	TimeLineID tli;
	XLogRecPtr lsn;
	bool receiving;			/* a standby's walreceiver writes it */
};
bool pgp_wal_position(struct pgp_walpos *p);
/* Under ControlFileLock: whether segment seg of p's timeline may be
 * installed now (no restore from the archive or end of recovery under way,
 * and seg still ahead of where WAL is written). */
bool pgp_wal_may_install(const struct pgp_walpos *p, XLogSegNo seg);

/* install.c: one segment moved under the WAL name of segment seg of p's
 * timeline, with the stub pg_waldump reads the segment size from.  1 done,
 * 0 the name is taken, or -errno (-EAGAIN: none ready; -EBUSY: not now:
 * recovery is restoring or ending, or WAL has moved past seg). */
struct pgp_install {
	int pooldir;
	bool staged;			/* PGP_STAGED holds a stubbed segment */
};
int pgp_install(struct pgp_install *in, struct prealloc_pool *pool, int waldir, const char *name,
		const struct pgp_walpos *p, XLogSegNo seg);

/* ahead.c: one round of installs ahead, and the switches it saw. */
struct pgp_ahead {
	struct pgp_install install;
	TimeLineID tli;
	TimeLineID announced;		/* the timeline the log has named */
	XLogSegNo seen;			/* last segment seen current */
	XLogSegNo recent[PGP_RECENT];	/* ring of installed segments */
	uint32 nrecent;
	int err;			/* the last round's failure, reported once */
};
void pgp_ahead_round(struct pgp_ahead *a, struct prealloc_pool *pool, int waldir, uint32 target);

/* logq.c: the library's messages, queued by any thread, reported by ours. */
void pgp_logq_hook(void *data, int priority, const char *file, int line, const char *fn,
		   const char *format, va_list args);
void pgp_logq_drain(void);

#endif
