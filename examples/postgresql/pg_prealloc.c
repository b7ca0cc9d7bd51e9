/* SPDX-License-Identifier: MIT */
/*
 * The module: GUCs, the counters' shared memory and the worker's
 * registration.  Only from shared_preload_libraries: a worker and shared
 * memory cannot be added later.
 */
#include "pg_prealloc.h"

#include <dlfcn.h>
#include <limits.h>

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void _PG_init(void);

bool pgp_enabled;
int pgp_segments_ahead;
bool pgp_background;
int pgp_max_rate_mb;
int pgp_free_floor_mb;
int pgp_naptime_ms;

PgpShared *pgp_shared;

static shmem_request_hook_type prev_shmem_request;
static shmem_startup_hook_type prev_shmem_startup;

static void shmem_request(void)
{
	if (prev_shmem_request)
		prev_shmem_request();
	RequestAddinShmemSpace(MAXALIGN(sizeof(PgpShared)));
}

static void shmem_startup(void)
{
	bool found;

	if (prev_shmem_startup)
		prev_shmem_startup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	pgp_shared = ShmemInitStruct("pg_prealloc", sizeof(PgpShared), &found);
	if (!found) {
		memset(pgp_shared, 0, sizeof(*pgp_shared));
		SpinLockInit(&pgp_shared->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
}

static void define_gucs(void)
{
	DefineCustomBoolVariable("pg_prealloc.enabled",
				 "Install WAL segments ahead (off: the worker only keeps its pool).",
				 NULL, &pgp_enabled, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_prealloc.segments_ahead",
				"WAL segments kept installed ahead of the insert position, or on "
				"a standby of the walreceiver's (0: a twentieth of the free "
				"space, at most 64).",
				NULL, &pgp_segments_ahead, 0, 0, PREALLOC_POOL_MAX_TARGET,
				PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("pg_prealloc.background",
				 "Zero segments quietly beside the database's I/O (off: full speed).",
				 NULL, &pgp_background, true, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("pg_prealloc.max_rate",
				"Cap on the zeroing rate in MB/s (0: none).", NULL,
				&pgp_max_rate_mb, 0, 0, INT_MAX, PGC_POSTMASTER, GUC_UNIT_MB,
				NULL, NULL, NULL);
	DefineCustomIntVariable("pg_prealloc.free_floor",
				"Free space the pool leaves on pg_wal's filesystem (0: a twentieth "
				"of its size).",
				NULL, &pgp_free_floor_mb, 0, 0, INT_MAX, PGC_POSTMASTER, GUC_UNIT_MB,
				NULL, NULL, NULL);
	DefineCustomIntVariable("pg_prealloc.naptime",
				"Time between the worker's rounds.", NULL, &pgp_naptime_ms, 100,
				10, 60000, PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	MarkGUCPrefixReserved("pg_prealloc");
}

static void register_worker(void)
{
	BackgroundWorker bgw = { 0 };
	Dl_info self;

	/* The worker loads the library this process loaded: "pg_prealloc" from
	 * $libdir, or the path shared_preload_libraries gave. */
	if (!dladdr((void *)register_worker, &self) || !self.dli_fname)
		self.dli_fname = "pg_prealloc";
	if (strlen(self.dli_fname) >= BGW_MAXLEN)
		ereport(ERROR, (errmsg("pg_prealloc: path \"%s\" too long for a background worker",
				       self.dli_fname),
				errhint("Install pg_prealloc in $libdir and load it by name.")));

	bgw.bgw_flags = BGWORKER_SHMEM_ACCESS;
	/* Started on a hot standby too: it installs ahead of the walreceiver. */
	bgw.bgw_start_time = BgWorkerStart_ConsistentState;
	bgw.bgw_restart_time = 5;
	strlcpy(bgw.bgw_library_name, self.dli_fname, BGW_MAXLEN);
	snprintf(bgw.bgw_function_name, BGW_MAXLEN, "pgp_worker_main");
	snprintf(bgw.bgw_name, BGW_MAXLEN, "pg_prealloc worker");
	snprintf(bgw.bgw_type, BGW_MAXLEN, "pg_prealloc");
	RegisterBackgroundWorker(&bgw);
}

void _PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress) {
		ereport(WARNING, (errmsg("pg_prealloc must be loaded via shared_preload_libraries")));
		return;
	}
	define_gucs();
	prev_shmem_request = shmem_request_hook;
	shmem_request_hook = shmem_request;
	prev_shmem_startup = shmem_startup_hook;
	shmem_startup_hook = shmem_startup;
	register_worker();
}
