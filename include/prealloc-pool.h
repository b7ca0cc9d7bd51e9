/* SPDX-License-Identifier: MIT */
/*
 * libprealloc's ready-segment pool: a directory of segments (files of one
 * size, allocated, written and durable) that a library thread keeps filled,
 * so that a database switching to a new WAL segment renames one into place
 * instead of zeroing one while commits wait; its life cycle is told in
 * libprealloc(7).  Built on the calls of <prealloc.h>, which includes this
 * header; included alone it declares the pool's calls only (a program that
 * also calls prealloc_ctx_new() or prealloc_file_ex() includes <prealloc.h>).
 */
#ifndef LIBPREALLOC_POOL_H
#define LIBPREALLOC_POOL_H

#include <stdint.h>

#include <prealloc-common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum prealloc_pool_flags - flags of &prealloc_pool_config
 * @PREALLOC_POOL_FULL_SPEED: the worker always zeroes at full speed, in one
 *	burst of large writes per segment, instead of quietly (still capped by
 *	&prealloc_pool_config.max_rate).  Commits that flush during a burst wait
 *	for it.
 */
enum prealloc_pool_flags {
	PREALLOC_POOL_FULL_SPEED = 1u << 0,
};

/**
 * enum prealloc_pool_recycle_flags - flags of prealloc_pool_recycle()
 * @PREALLOC_POOL_RECYCLE_ZERO: have the worker zero every byte of the
 *	segment before it is ready again.  The same bit as %PREALLOC_ZERO_DATA,
 *	which 0.2 documented here and which stays accepted as its alias.
 *	Since: 0.3
 */
enum prealloc_pool_recycle_flags {
	PREALLOC_POOL_RECYCLE_ZERO = 1u << 1,
};

/**
 * enum prealloc_pool_take_flags - flags of prealloc_pool_take()
 * @PREALLOC_POOL_TAKE_NOWAIT: hand out a ready segment or fail with -EAGAIN;
 *	never make one in the calling thread.  For a caller that moves
 *	segments under names while holding a lock others wait on (PostgreSQL's
 *	ControlFileLock), where a miss would zero a whole segment under it.
 *	Since: 0.3
 */
enum prealloc_pool_take_flags {
	PREALLOC_POOL_TAKE_NOWAIT = 1u << 0,
};

/**
 * struct prealloc_pool_config - what prealloc_pool_open() builds
 * @size: sizeof(struct prealloc_pool_config) as the caller knows it (rules
 *	as for &prealloc_options.size).
 * @flags: &enum prealloc_pool_flags.
 * @segment_size: bytes per segment, > 0.
 * @target: ready segments the worker keeps, at most %PREALLOC_POOL_MAX_TARGET;
 *	0 for none (the pool then only recycles and hands out what it holds).
 * @mode: permission bits of new segments; 0 for 0600.
 * @free_floor: bytes of free space the pool leaves to everyone else; 0 for
 *	the default of 1/20 of the filesystem's size.
 * @max_rate: cap on the worker's zeroing rate in bytes per second, passed to
 *	&prealloc_options.max_rate; 0 for none.
 * @ctx: the context of the pool's own calls (making segments, and the probe
 *	that tells whether one is copy-on-write), as &prealloc_options.ctx;
 *	NULL for the default.  The pool holds a reference until
 *	prealloc_pool_close().  Since: 0.3
 *
 * New fields are appended at the end; a @size that ends before @ctx is
 * accepted (the 0.2 layout).
 */
struct prealloc_pool_config {
	uint32_t size;
	uint32_t flags;
	uint64_t segment_size;
	uint32_t target;
	uint32_t mode;
	uint64_t free_floor;
	uint64_t max_rate;
	struct prealloc_ctx *ctx;
};

#define PREALLOC_POOL_MAX_TARGET 4096

/**
 * struct prealloc_pool_stats - a pool's counters, from prealloc_pool_get_stats()
 * @size: set by the caller to sizeof(struct prealloc_pool_stats); the library
 *	fills at most that many bytes.  At least 16.
 * @ready: ready segments now.
 * @target: ready segments the worker is aiming for now: the configured
 *	target, lowered after an ENOSPC until space returns.
 * @last_error: the worker's last failure other than running out of space, as
 *	a negative errno (0 if none); the worker retries on its next round.
 * @hits: prealloc_pool_take() calls served from a ready segment (also one
 *	the worker installed ahead under a name from prealloc_pool_prepare()).
 * @misses: prealloc_pool_take() calls that found none ready and made one in
 *	the calling thread.
 * @foreground_wait_ns: total time the calling threads of those misses spent
 *	making their segments (the foreground waits).
 * @created: segments the worker made.
 * @recycled: segments taken back by prealloc_pool_recycle() and made ready.
 * @removed: ready segments removed to keep the free-space floor.
 * @bytes_zeroed: bytes the worker made to read zero (new and recycled
 *	segments; &prealloc_report.bytes_zeroed summed).
 * @enospc: times the pool (worker or a miss) ran out of space.
 * @worker_ns: time the worker spent making and recycling segments, pacing
 *	included.
 * @prepared: segments the worker installed ahead under names from
 *	prealloc_pool_prepare() (taken or not yet).
 * @cow_segments: segments made, recycled, or adopted by prealloc_pool_open()
 *	that are copy-on-write files (btrfs without nodatacow): allocated and
 *	durable but not written, see prealloc_pool_open().  Since: 0.3
 *
 * New fields are appended at the end.
 */
struct prealloc_pool_stats {
	uint32_t size;
	uint32_t ready;
	uint32_t target;
	int32_t last_error;
	uint64_t hits;
	uint64_t misses;
	uint64_t foreground_wait_ns;
	uint64_t created;
	uint64_t recycled;
	uint64_t removed;
	uint64_t bytes_zeroed;
	uint64_t enospc;
	uint64_t worker_ns;
	uint64_t prepared;
	uint64_t cow_segments;
};

struct prealloc_pool;

/**
 * prealloc_pool_open() - open a pool over a directory and start its worker
 * @dir: the pool's directory (must exist)
 * @cfg: &struct prealloc_pool_config
 * @ret_pool: where to store the new handle
 *
 * Removes leftovers of an earlier run, adopts the complete ready segments
 * already there, and starts the worker: a library thread, with every signal
 * blocked, that keeps &prealloc_pool_config.target segments ready, paced as
 * background work while one is ready anyway, at full speed when none is,
 * never faster than &prealloc_pool_config.max_rate (libprealloc(7)).
 *
 * Crash safety: a segment only ever appears complete under a
 * ".prealloc-ready-*" name.  This call removes every ".prealloc-tmp-*"
 * leftover and every ready segment that is not complete: of the configured
 * size and fully written (or, copy-on-write, fully allocated).  Nothing else
 * is touched: not files with other names, nor anything under the pool's
 * names that it cannot have made (anything but a regular file with one
 * link), which is never opened in a way that could block or follow it.
 *
 * Copy-on-write files (btrfs, unless the pool's directory has the nodatacow
 * attribute, chattr +C): a complete segment is of the configured size,
 * every block allocated and durable, but not written; &prealloc_report.cow
 * holds for it, it is counted in &prealloc_pool_stats.cow_segments, and the
 * worker zeroes nothing (&prealloc_pool_stats.bytes_zeroed stays 0).
 *
 * One pool object per directory at a time: the directory is flock()ed and a
 * second open, in this process or another, fails with -EBUSY.  The
 * filesystem must support renameat2(RENAME_NOREPLACE).
 *
 * Free space: the worker never grows the pool while the filesystem would be
 * left with less than &prealloc_pool_config.free_floor bytes available after
 * the segment it would add, and while less is available it removes ready
 * segments, oldest first.  Available is statfs f_bavail when the worker
 * looks, with what the pool itself allocated and freed and the filesystem
 * does not count yet: btrfs counts blocks in statfs only once their
 * transaction commits (up to its commit interval, 30 s by default), so where
 * the worker's answer hangs on its own recent segments it first has the
 * transaction committed (BTRFS_IOC_START_SYNC: metadata, no file's dirty
 * pages; syncfs() where a policy refuses that ioctl; if both fail, statfs as
 * it stands, the failure in &prealloc_pool_stats.last_error).  The floor is
 * not a reservation: space others use counts once statfs shows it (on btrfs,
 * once committed), and a miss in prealloc_pool_take() or a segment made for
 * prealloc_pool_prepare() ignores it, so less can be left; the worker answers
 * only by removing ready segments, and with none ready the filesystem stays
 * below the floor until space returns.  An ENOSPC (or EDQUOT) met by the
 * worker lowers its target to the segments it has, counted in
 * &prealloc_pool_stats.enospc, until space returns.  prealloc_pool_take()
 * hands out a ready segment whenever one exists.
 *
 * Fork: in a child process every pool function fails with -ECHILD and
 * prealloc_pool_close() only frees the child's copy of the handle; the
 * parent's pool (worker, lock, segments) is untouched.  The pool's
 * descriptors are close-on-exec.
 *
 * Returns: 0, or a negative errno: -EINVAL (bad arguments or configuration,
 * unknown flags), -E2BIG (@cfg from a newer library with unknown non-zero
 * fields), -ENOTDIR, -EBUSY (the directory is already a pool's), -ENOMEM,
 * -EAGAIN (no thread), or what the kernel returned.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_pool_open(const char *dir, const struct prealloc_pool_config *cfg,
		       struct prealloc_pool **ret_pool);

/**
 * prealloc_pool_take() - hand out a segment under the caller's final name
 * @pool: the pool
 * @dirfd: directory for @name (or %AT_FDCWD); it must be on the pool's
 *	filesystem, and may be the pool's own directory
 * @name: the segment's new name, relative to @dirfd; must not exist, and its
 *	last component must not start with ".prealloc-" (the pool's names)
 * @flags: 0 or %PREALLOC_POOL_TAKE_NOWAIT (since 0.3)
 *
 * Moves the oldest ready segment to @name with renameat2(RENAME_NOREPLACE)
 * and fsync()s the directories involved, so the segment appears under @name
 * complete or not at all, also after a crash.  If no segment is ready, one is
 * made in the calling thread at full speed (a miss; see
 * &prealloc_pool_stats.misses), or with %PREALLOC_POOL_TAKE_NOWAIT the call
 * fails with -EAGAIN, leaves @name alone and counts nothing (a prepared
 * @name the worker is installing at that moment is still waited for).
 * The segment is
 * &prealloc_pool_config.segment_size bytes, allocated, written (unless
 * copy-on-write: see prealloc_pool_open()) and durable; freshly made
 * segments read zero, recycled ones hold what prealloc_pool_recycle() left
 * in them.  Safe to call from several threads at once: each call gets its
 * own segment.  A @name given to prealloc_pool_prepare() before is served
 * by the worker's install: see there.
 *
 * Returns: a new descriptor open O_RDWR | O_CLOEXEC on the segment
 * (prealloc_pool_take_ex() adds O_DSYNC or O_DIRECT), or a negative errno:
 * -EINVAL, -EEXIST (@name exists; the segment stays in the pool), -EXDEV
 * (@dirfd on another filesystem; likewise), -ENOSPC (none ready and none
 * could be made), -EAGAIN (none ready, with %PREALLOC_POOL_TAKE_NOWAIT),
 * -ESTALE (@name was prepared, installed, and another file put there since;
 * once, the name is then forgotten), -ECHILD, or what the kernel returned.
 * If the rename succeeded but a
 * directory fsync() failed (-EIO), the segment is under @name but the rename
 * may not be durable (also when the worker's install of a prepared @name
 * failed that way).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_pool_take(struct prealloc_pool *pool, int dirfd, const char *name,
		       unsigned int flags);

/**
 * prealloc_pool_take_ex() - prealloc_pool_take() with open flags
 * @pool: the pool
 * @dirfd: as for prealloc_pool_take()
 * @name: as for prealloc_pool_take()
 * @flags: as for prealloc_pool_take()
 * @open_flags: 0 or any of O_DSYNC, O_SYNC and O_DIRECT: added to the
 *	returned descriptor's O_RDWR | O_CLOEXEC.  A WAL writes with O_DSYNC or
 *	O_DIRECT, which fcntl(F_SETFL) cannot add later (O_DSYNC) or a
 *	filesystem may refuse (O_DIRECT); any other flag is refused.
 *
 * Exactly prealloc_pool_take(), except that the segment is opened with
 * @open_flags, before it is moved under @name: a filesystem that refuses
 * O_DIRECT fails the call with -EINVAL and the segment stays in the pool (a
 * prepared @name keeps its installed segment, for a take without
 * O_DIRECT).
 *
 * Returns: as prealloc_pool_take(); -EINVAL also for @open_flags outside
 * the three, or refused by the filesystem.
 * Since: 0.3
 */
PREALLOC_WUR int prealloc_pool_take_ex(struct prealloc_pool *pool, int dirfd, const char *name,
			  unsigned int flags, int open_flags);

/**
 * prealloc_pool_prepare() - have the worker put a segment under a name ahead
 * @pool: the pool
 * @dirfd: directory for @name (or %AT_FDCWD: the working directory now); as
 *	for prealloc_pool_take().  The pool keeps its own duplicate: the caller
 *	may close @dirfd once the call returns.
 * @name: the name of the segment the caller will take next; as for
 *	prealloc_pool_take()
 * @flags: 0 (no flags are defined yet)
 *
 * Takes the segment switch (a rename and a directory fsync()) off the
 * commit path: the call only queues @name.  The worker, once done with the
 * segment it may be making and before any other work, moves the oldest
 * ready segment under @name exactly as prealloc_pool_take() would, or first
 * makes one when none is ready (ignoring the free-space floor, like a miss;
 * not paced, but never faster than &prealloc_pool_config.max_rate).  Later,
 * prealloc_pool_take() of the same @name (relative to the same directory,
 * through any descriptor of it; any directory for an absolute @name) only
 * opens the segment: no rename, no fsync, counted as a hit.  If the worker is
 * installing it at that moment, take waits for it; if the request is still
 * queued, take withdraws it and takes as usual; if the install failed, take
 * takes as usual (and so fails with -EEXIST if @name appeared meanwhile),
 * except that an install whose rename succeeded but whose directory fsync()
 * failed is reported by take as that error.  Failing to make the segment or
 * to sync a directory, and running out of space, count like the worker's
 * other failures (&prealloc_pool_stats.last_error or
 * &prealloc_pool_stats.enospc, and the back-off that follows); a rename
 * refused because of @name or its directory (@name appeared, the directory
 * was removed) puts the segment back and leaves last_error and the refills
 * alone.
 *
 * An installed segment belongs to the caller: complete, as from
 * prealloc_pool_take(), under @name, with its rename durable.
 * prealloc_pool_close() and a crash leave it there: the caller's start-up
 * must expect a prepared name to hold such a segment, with no record
 * written to it.  If the caller removes or renames an installed name
 * instead of taking it, take of that name later takes as usual; if another
 * file is put under it, take fails with -ESTALE once and leaves that file
 * alone, and the pool forgets the name (a later take fails with -EEXIST).
 * The pool remembers a prepared name until it is taken (whatever the
 * outcome) or the pool closes, and holds an installed segment open (one
 * descriptor, close-on-exec) until then; a name whose install failed, or an
 * installed name removed since, may be prepared again.
 *
 * Returns: 0 once @name is queued, or a negative errno: -EINVAL (@flags,
 * @name empty or one of the pool's names), -EEXIST (@name exists, or is
 * already prepared and still queued or being installed), -EXDEV (@name's
 * directory is on another filesystem), -ENOMEM, -ECHILD, or what the kernel
 * returned.  The install's own outcome is reported by the
 * prealloc_pool_take() of @name.
 * Since: 0.2
 */
int prealloc_pool_prepare(struct prealloc_pool *pool, int dirfd, const char *name,
			  unsigned int flags);

/**
 * prealloc_pool_recycle() - give a used segment back to the pool
 * @pool: the pool
 * @dirfd: directory of @name (or %AT_FDCWD), on the pool's filesystem
 * @name: the segment; the caller must have closed or stopped using it
 * @flags: 0, or %PREALLOC_POOL_RECYCLE_ZERO to have the worker zero every
 *	byte
 *
 * Moves @name into the pool under a temporary name (renameat2 with
 * RENAME_NOREPLACE, directories fsync()ed; the name is gone when the call
 * returns).  The worker then cuts or grows it to the segment size, makes it
 * written and durable (zeroing every byte first with
 * %PREALLOC_POOL_RECYCLE_ZERO, at
 * the background pace) and adds it to the ready segments, after those already
 * there.  Recycled segments are kept even beyond the target; the free-space
 * floor still applies.  Without %PREALLOC_POOL_RECYCLE_ZERO the old bytes
 * stay: the reader must tell old records from new.  A recycled segment not
 * yet ready when the pool closes is removed by the next prealloc_pool_open().
 *
 * Returns: 0, or a negative errno: -EINVAL (also: @name not a regular file,
 * or one with other hard links), -ENOENT, -EXDEV (@dirfd on another
 * filesystem), -ENOMEM, -ECHILD, or what the kernel returned.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_pool_recycle(struct prealloc_pool *pool, int dirfd, const char *name,
			  unsigned int flags);

/**
 * prealloc_pool_wait_ready() - wait until some segments are ready
 * @pool: the pool
 * @count: ready segments to wait for, at most the configured target
 * @timeout_ms: give up after this many milliseconds; -1 waits as long as the
 *	worker makes progress
 *
 * Returns at once when @count segments are ready.  Otherwise the worker is
 * asked for a fresh round (free space looked at again, a retry after an
 * ENOSPC) and the call returns when @count are ready or that round ends
 * short of them.
 *
 * Returns: 0 once @count segments are ready, or a negative errno: -EINVAL
 * (@count above the target), -ETIMEDOUT, -ENOSPC (the worker stopped short for
 * lack of space: floor or ENOSPC), the worker's last error if it stopped short
 * for another reason, -ECHILD.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_pool_wait_ready(struct prealloc_pool *pool, uint32_t count, int timeout_ms);

/**
 * prealloc_pool_get_stats() - read a pool's counters
 * @pool: the pool
 * @stats: &struct prealloc_pool_stats, @stats->size set by the caller
 *
 * Returns: 0, or -EINVAL (NULL argument, @stats->size below 16), -ECHILD.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_pool_get_stats(struct prealloc_pool *pool, struct prealloc_pool_stats *stats);

/**
 * prealloc_pool_close() - stop the worker and free the handle
 * @pool: the pool, or NULL
 *
 * A segment the worker is making is abandoned (its temporary file removed);
 * ready segments stay in the directory for the next prealloc_pool_open().
 * Names prealloc_pool_prepare() queued and the worker did not install yet are
 * dropped; installed ones stay, as complete segments under their names.
 * No other call on @pool may be running or follow.
 * Since: 0.2
 */
void prealloc_pool_close(struct prealloc_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* LIBPREALLOC_POOL_H */
