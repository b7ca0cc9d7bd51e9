/* SPDX-License-Identifier: MIT */
/*
 * Where PostgreSQL writes WAL next, and whether the worker may install a
 * segment there now.
 *
 * Out of recovery, backends write at the insert position of the insertion
 * timeline.  On a standby the walreceiver writes what it streams, into the
 * segments of the timeline it receives (XLogWalRcvWrite opens them with
 * XLogFileInit, which uses a file already under the name, as a backend's
 * does): segments installed ahead of it take the zeroing off replication's
 * path, and PostgreSQL's own zero-filled ones made at restartpoints
 * (PreallocXlogFiles) find the name taken.
 *
 * During recovery the startup process alone may install segments while it
 * restores from the archive or ends recovery: it clears
 * InstallXLogFileSegmentActive under ControlFileLock, always with the
 * walreceiver stopped or waiting, and sets it again before it asks for
 * streaming, which the walreceiver needs to leave those states.  So a
 * walreceiver seen streaming under ControlFileLock means the flag is set
 * and stays set until the lock is released: the install is ordered before
 * any restore, and before promotion removes the old timeline's segments
 * ahead (RemoveNonParentXlogFiles).
 *
 * The position is taken again under the lock, so that a round delayed
 * across a restore from the archive never installs behind replay: a name
 * PostgreSQL has used and removed would be archived again.
 */
#include "pg_prealloc.h"

#include "access/xlog.h"
#include "access/xlogrecovery.h"
#include "replication/walreceiver.h"
#include "storage/lwlock.h"

/* Where the walreceiver writes: true while it streams. */
static bool streaming(struct pgp_walpos *p)
{
	bool on;

	SpinLockAcquire(&WalRcv->mutex);
	on = WalRcv->walRcvState == WALRCV_STREAMING;
	p->tli = WalRcv->receivedTLI;
	/* Before its first flush, flushedUpto may be from an earlier run. */
	p->lsn = Max(WalRcv->flushedUpto, WalRcv->receiveStart);
	SpinLockRelease(&WalRcv->mutex);
	p->lsn = Max(p->lsn, GetXLogReplayRecPtr(NULL));
	return on && p->tli != 0;
}

bool pgp_wal_position(struct pgp_walpos *p)
{
	if (!RecoveryInProgress()) {
		p->tli = GetWALInsertionTimeLine();
		p->lsn = GetXLogInsertRecPtr();
		p->receiving = false;
		return true;
	}
	p->receiving = true;
	return streaming(p);
}

bool pgp_wal_may_install(const struct pgp_walpos *p, XLogSegNo seg)
{
	struct pgp_walpos now;
	XLogSegNo cur;

	Assert(LWLockHeldByMeInMode(ControlFileLock, LW_EXCLUSIVE));
	/* Out of recovery the flag is set for good: the startup process sets
	 * it before recovery ends, and nothing clears it after. */
	if (!pgp_wal_position(&now) || now.receiving != p->receiving || now.tli != p->tli)
		return false;
	XLByteToSeg(now.lsn, cur, wal_segment_size);
	return seg > cur;
}
