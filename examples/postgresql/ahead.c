/* SPDX-License-Identifier: MIT */
/*
 * One round of the worker: note the segments PostgreSQL switched into since
 * the last round (installed by us or not), then install ready segments from
 * the pool under the names of the next ones that do not exist yet: after
 * the insert position, or on a standby after the walreceiver's (walpos.c).
 *
 * Each install (install.c) holds ControlFileLock, as PostgreSQL's own
 * installs and its recycler do (InstallXLogFileSegment): they stat() a name
 * and then rename over it, so a name we filled without the lock could be
 * replaced under a backend writing into it.  Under the lock the rename is
 * RENAME_NOREPLACE: an existing name is PostgreSQL's (-EEXIST).  The pool's
 * take is NOWAIT: with nothing ready we stop rather than zero 16 MiB.  Only
 * complete, durable segments ever appear under a WAL name.
 */
#include "pg_prealloc.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "access/xlog.h"

static bool was_installed(const struct pgp_ahead *a, XLogSegNo seg)
{
	uint32 n = Min(a->nrecent, PGP_RECENT);

	for (uint32 i = 0; i < n; i++)
		if (a->recent[i] == seg)
			return true;
	return false;
}

/* Segments (a->seen, cur] were switched into since the last round. */
static void note_switches(struct pgp_ahead *a, XLogSegNo cur)
{
	uint64 ours = 0, other = 0;

	for (XLogSegNo s = a->seen + 1; a->seen && s <= cur; s++) {
		if (was_installed(a, s))
			ours++;
		else
			other++;
	}
	a->seen = cur;
	SpinLockAcquire(&pgp_shared->mutex);
	pgp_shared->switched_installed += ours;
	pgp_shared->misses += other;
	SpinLockRelease(&pgp_shared->mutex);
}

static void publish(TimeLineID tli, uint32 target, uint32 present, uint32 ahead, uint64 done,
		    bool empty, int err)
{
	SpinLockAcquire(&pgp_shared->mutex);
	pgp_shared->tli = tli;
	pgp_shared->ahead_target = target;
	pgp_shared->ahead_present = present;
	pgp_shared->installed_ahead = ahead;
	pgp_shared->installed += done;
	pgp_shared->pool_empty += empty;
	pgp_shared->rounds++;
	if (err)
		pgp_shared->last_error = err;
	SpinLockRelease(&pgp_shared->mutex);
}

void pgp_ahead_round(struct pgp_ahead *a, struct prealloc_pool *pool, int waldir, uint32 target)
{
	struct pgp_walpos pos;
	TimeLineID tli;
	XLogSegNo cur, s;
	char name[MAXFNAMELEN];
	uint32 present = 0, ahead = 0;
	uint64 done = 0;
	struct stat st;
	int ret = 0;

	if (!pgp_wal_position(&pos))
		return;		/* in recovery, nothing streaming */
	tli = pos.tli;
	XLByteToSeg(pos.lsn, cur, wal_segment_size);
	if (tli != a->tli) {
		if (a->tli)
			ereport(LOG, (errmsg("pg_prealloc: following timeline %u", tli)));
		a->tli = tli;
		a->seen = 0;
		a->nrecent = 0;
	}
	note_switches(a, cur);
	for (s = cur + 1; s <= cur + target; s++) {
		XLogFileName(name, tli, s, wal_segment_size);
		if (fstatat(waldir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			present++;
			ahead += was_installed(a, s);
			continue;
		}
		ret = pgp_install(&a->install, pool, waldir, name, &pos, s);
		if (ret < 0)
			break;
		present++;
		if (ret) {
			a->recent[a->nrecent++ % PGP_RECENT] = s;
			ahead++;
			done++;
		}
		if (ret && a->announced != tli) {	/* once per timeline: tests look for it */
			a->announced = tli;
			ereport(LOG, (errmsg("pg_prealloc: installing WAL segments ahead on "
					     "timeline %u, the first %s", tli, name)));
		}
	}
	/* Once per new failure, not every round it lasts. */
	if (ret < 0 && ret != -EAGAIN && ret != -EBUSY && ret != a->err)
		ereport(WARNING, (errmsg("pg_prealloc: cannot install WAL segment %s: %s", name,
					 strerror(-ret))));
	if (ret != -EAGAIN && ret != -EBUSY)
		a->err = Min(ret, 0);	/* not failures: nothing ready, or not now */
	publish(tli, target, present, ahead, done, ret == -EAGAIN, ret < 0 ? a->err : 0);
}
