/* SPDX-License-Identifier: MIT */
/*
 * The background worker: opens the pool in pg_wal/pgsql_tmp_prealloc once
 * PostgreSQL writes WAL (out of recovery, or on a hot standby once its
 * walreceiver streams: until then only the startup process touches pg_wal),
 * then every pg_prealloc.naptime runs a round of installs ahead (ahead.c)
 * and publishes the pool's counters.
 */
#include "pg_prealloc.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <syslog.h>

#include "access/xlog.h"
#include "common/file_perm.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"

#define MiB (1024 * 1024)
/* Sized from free space: a twentieth of it, at most this many segments. */
#define PGP_AUTO_MAX 64
/* Ready segments the pool keeps beside those installed: a burst of switches
 * between two rounds finds some, and the disk cost stays small. */
#define PGP_POOL_READY 4

struct pgp_worker {
	struct prealloc_ctx *ctx;
	struct prealloc_pool *pool;
	int waldir;
	struct pgp_ahead ahead;
};

static uint32 segments_ahead(int waldir)
{
	struct statvfs sv;
	uint64 avail;

	if (pgp_segments_ahead > 0)
		return pgp_segments_ahead;
	if (fstatvfs(waldir, &sv) < 0)
		return 0;
	avail = (uint64)sv.f_bavail * sv.f_frsize;
	return (uint32)Min(avail / 20 / wal_segment_size, PGP_AUTO_MAX);
}

/* The probe's plan for a segment in the pool's directory, for the view. */
static void describe_plan(struct pgp_worker *w, int pooldir)
{
	struct prealloc_options o = { .size = sizeof(o), .ctx = w->ctx };
	struct prealloc_probe *probe = NULL;
	int fd = openat(pooldir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	int m0 = -ENODATA, m1 = -ENOENT;

	if (fd >= 0 && prealloc_probe_new(fd, 0, wal_segment_size, &o, &probe) == 0) {
		m0 = prealloc_probe_plan(probe, 0);
		m1 = prealloc_probe_plan(probe, 1);
	}
	SpinLockAcquire(&pgp_shared->mutex);
	snprintf(pgp_shared->plan, sizeof(pgp_shared->plan), "%s%s%s",
		 m0 >= 0 ? prealloc_method_name(m0) : "unknown", m1 >= 0 ? ", then " : "",
		 m1 >= 0 ? prealloc_method_name(m1) : "");
	SpinLockRelease(&pgp_shared->mutex);
	prealloc_probe_free(probe);
	if (fd >= 0)
		close(fd);
}

/* The pool's directory, made or moved from its old name. */
static int pool_dir(void)
{
	struct stat st;

	if (stat(PGP_POOL_DIR, &st) < 0 && errno == ENOENT &&
	    rename(PGP_OLD_POOL_DIR, PGP_POOL_DIR) < 0 && errno != ENOENT)
		return -errno;
	if (mkdir(PGP_POOL_DIR, pg_dir_create_mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int open_pool(struct pgp_worker *w)
{
	struct prealloc_pool_config c = {
		.size = sizeof(c),
		.flags = pgp_background ? 0 : PREALLOC_POOL_FULL_SPEED,
		.segment_size = wal_segment_size,
		.mode = pg_file_create_mode,
		.free_floor = (uint64)pgp_free_floor_mb * MiB,
		.max_rate = (uint64)pgp_max_rate_mb * MiB,
		.ctx = w->ctx,
	};
	int pooldir, ret;

	ret = pool_dir();
	if (ret)
		return ret;
	pooldir = open(PGP_POOL_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pooldir < 0)
		return -errno;
	c.target = Min(segments_ahead(w->waldir), PGP_POOL_READY);
	ret = prealloc_pool_open(PGP_POOL_DIR, &c, &w->pool);
	if (ret) {
		close(pooldir);
		return ret;
	}
	describe_plan(w, pooldir);
	w->ahead.install.pooldir = pooldir;
	w->ahead.install.staged = false;
	return 0;
}

static void publish_pool(struct pgp_worker *w)
{
	struct prealloc_pool_stats st = { .size = sizeof(st) };

	if (prealloc_pool_get_stats(w->pool, &st))
		return;
	SpinLockAcquire(&pgp_shared->mutex);
	pgp_shared->pool = st;
	SpinLockRelease(&pgp_shared->mutex);
}

/* Open once WAL is written here; false: not (yet), try again next time. */
static bool ready(struct pgp_worker *w)
{
	struct pgp_walpos pos;
	int ret;

	if (w->pool)
		return true;
	if (!pgp_wal_position(&pos))
		return false;
	ret = open_pool(w);
	if (ret) {
		SpinLockAcquire(&pgp_shared->mutex);
		pgp_shared->last_error = ret;
		SpinLockRelease(&pgp_shared->mutex);
		ereport(WARNING, (errmsg("pg_prealloc: cannot open the pool in \"%s\": %s",
					 PGP_POOL_DIR, strerror(-ret))));
		return false;
	}
	ereport(LOG, (errmsg("pg_prealloc: pool in \"%s\" open, %u segments ahead",
			     PGP_POOL_DIR, segments_ahead(w->waldir))));
	return true;
}

static void close_worker(int code, Datum arg)
{
	struct pgp_worker *w = (struct pgp_worker *)DatumGetPointer(arg);
	uint64 installed;

	(void)code;
	SpinLockAcquire(&pgp_shared->mutex);
	installed = pgp_shared->installed;
	SpinLockRelease(&pgp_shared->mutex);
	if (w->pool)	/* tests count these */
		ereport(LOG, (errmsg("pg_prealloc: worker exiting, %llu segments installed",
				     (unsigned long long)installed)));
	prealloc_pool_close(w->pool);
	prealloc_ctx_unref(w->ctx);
}

static void setup(struct pgp_worker *w)
{
	int ret;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	w->waldir = open(XLOGDIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->waldir < 0)
		ereport(ERROR, (errcode_for_file_access(),
				errmsg("pg_prealloc: cannot open \"%s\": %m", XLOGDIR)));
	ret = prealloc_ctx_new(NULL, 0, &w->ctx);
	if (ret)
		ereport(ERROR, (errmsg("pg_prealloc: no libprealloc context: %s", strerror(-ret))));
	(void)prealloc_ctx_set_log_fn(w->ctx, pgp_logq_hook, NULL);
	/* Pacing's adaptations (LOG_INFO) come several times a second: keep
	 * them out of the server log unless it asks for debug messages. */
	(void)prealloc_ctx_set_log_priority(w->ctx, log_min_messages <= DEBUG1 ? LOG_DEBUG
									   : LOG_NOTICE);
	SpinLockAcquire(&pgp_shared->mutex);
	pgp_shared->worker_pid = MyProcPid;
	SpinLockRelease(&pgp_shared->mutex);
	before_shmem_exit(close_worker, PointerGetDatum(w));
}

void pgp_worker_main(Datum arg)
{
	static struct pgp_worker w;

	(void)arg;
	setup(&w);
	while (!ShutdownRequestPending) {
		if (ConfigReloadPending) {
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		if (pgp_enabled && ready(&w)) {
			pgp_ahead_round(&w.ahead, w.pool, w.waldir, segments_ahead(w.waldir));
			publish_pool(&w);
		}
		pgp_logq_drain();
		(void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
				pgp_naptime_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	proc_exit(0);
}
