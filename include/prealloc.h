/* SPDX-License-Identifier: MIT */
/*
 * libprealloc - preallocate file space that is allocated *and written*.
 *
 * prealloc_file() makes a range of a regular file (or a block device) read as
 * zeros with every block allocated and written, by the cheapest method the
 * storage offers, keeping bytes that hold data and never exposing stale
 * data.  How methods are chosen, background pacing and the pool's life
 * cycle: libprealloc(7).
 *
 * Conventions: functions return 0 (or a non-negative value) on success and
 * a negative errno value on failure; nothing is printed; output parameters
 * are left untouched on failure unless stated otherwise.  All functions are
 * thread-safe (calls on one file: see prealloc_file()).  Callers must not
 * write into a range while it is being preallocated, unless they ask for
 * %PREALLOC_CONCURRENT_WRITES.
 *
 * Unknown is %PREALLOC_FACT_NULL for a fact, %PREALLOC_UNKNOWN for a yes/no
 * answer, and never a number.  The ABI is LP64-only (64-bit pointers and
 * longs): the header refuses other targets.
 */
#ifndef LIBPREALLOC_H
#define LIBPREALLOC_H

#include <stdarg.h>
#include <stdint.h>

#include <prealloc-common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum prealloc_flags - behaviour flags for prealloc_file()
 * @PREALLOC_KEEP_SIZE: do not change the file size; the part of the range
 *	beyond EOF is only reserved, and the report says it is not written.
 * @PREALLOC_ZERO_DATA: zero the whole range, data included (recycling a WAL
 *	segment); required for block devices.  Zeroed data cannot be restored
 *	after a failure (see prealloc_file()).
 * @PREALLOC_NO_SYNC: skip the final fdatasync(); the result is not durable
 *	until the caller syncs.
 * @PREALLOC_FORCE: block devices only: zero a device that carries a
 *	filesystem, RAID or partition-table signature.  A mounted or otherwise
 *	exclusively held device is refused even with this flag.
 * @PREALLOC_BACKGROUND: run beside live traffic: the rate falls while the
 *	device serves other I/O and climbs back while it does not, never to
 *	zero (libprealloc(7)).  &prealloc_options.max_rate is a hard cap;
 *	&prealloc_report.background says what applied.
 * @PREALLOC_CONCURRENT_WRITES: other threads or processes may write into
 *	the range while the call runs (buffered, O_DIRECT, mmap, io_uring,
 *	AIO, appends that move end of file into it), and no byte they write
 *	may be lost.  Where the call would write zeros, it writes them into a
 *	temporary file on the same filesystem and exchanges them into the file
 *	only where, and only while, nobody changed it (xfs with exchange-range:
 *	XFS_IOC_START_COMMIT/XFS_IOC_COMMIT_RANGE, Linux 6.13); a range others
 *	wrote into is kept as they wrote it.  Where the file is only reserved
 *	(copy-on-write files, memory-backed filesystems: fallocate() never
 *	touches data) the call is fallocate().  Anywhere else the kernel
 *	offers no way to order the zero writes against others' (ext4: its
 *	EXT4_IOC_MOVE_EXT keeps unwritten blocks unwritten), and where @fd is
 *	not open for reading and writing or is O_APPEND (the exchange refuses
 *	it), the call fails with -EOPNOTSUPP before it writes anything, the
 *	file untouched: call fallocate() instead.
 *	prealloc_probe_plan_reason() says which; libprealloc(7) has the
 *	details.  Not with %PREALLOC_ZERO_DATA (-EINVAL).  Since: 0.6
 */
enum prealloc_flags {
	PREALLOC_KEEP_SIZE = 1u << 0,
	PREALLOC_ZERO_DATA = 1u << 1,
	PREALLOC_NO_SYNC   = 1u << 2,
	PREALLOC_FORCE     = 1u << 3,
	PREALLOC_BACKGROUND = 1u << 4,
	PREALLOC_CONCURRENT_WRITES = 1u << 5,
};

/**
 * enum prealloc_method - how a byte range was (or is to be) made written
 * @PREALLOC_METHOD_AUTO: let the library choose (options only).
 * @PREALLOC_METHOD_WRITE_ZEROES: fallocate(FALLOC_FL_WRITE_ZEROES): the device zeroes.
 * @PREALLOC_METHOD_ZEROOUT: ioctl(BLKZEROOUT) on a block device.
 * @PREALLOC_METHOD_URING: O_DIRECT zero writes through io_uring.
 * @PREALLOC_METHOD_BUFFERED: pwrite() of zeros.
 * @PREALLOC_METHOD_ALLOCATE: fallocate() reservation only; the blocks may stay
 *	unwritten (copy-on-write files, keep-size beyond EOF).
 * @PREALLOC_METHOD_AIO: O_DIRECT zero writes through Linux AIO (io_submit),
 *	right after io_uring in a plan: where a seccomp profile, a sysctl or
 *	the kernel refuses io_uring, the writes still go direct.  Refused
 *	(-EOPNOTSUPP) in a library built without libaio.
 *
 * New methods get new values at the end; struct fields hold a method as a
 * uint32_t.  To list the methods this library knows, skip the values in
 * [1, %PREALLOC_METHOD_SLOTS) that prealloc_method_name() does not name.
 *
 * The buffered writes (the method, and the edges of the others) leave the
 * page cache as they found it: each says RWF_DONTCACHE (Linux 6.14; ext4
 * and xfs take it), so the kernel starts write-back at once and drops the
 * pages when it completes, by the call's final fdatasync() at the latest;
 * where that is refused (an older kernel, btrfs, FUSE) the call starts
 * write-back of every 8 MiB it writes with sync_file_range() and drops the
 * 8 MiB before, once written, with POSIX_FADV_DONTNEED: at most 16 MiB of
 * its pages are cached at a time.  Pages cached before the call that hold
 * the caller's bytes (the partial pages at either end of a piece it writes,
 * the data it keeps) stay cached.  Durability is unchanged: the call's one
 * fdatasync() at the end makes the range durable (none with
 * %PREALLOC_NO_SYNC).  tmpfs pages are the file itself and stay.
 */
enum prealloc_method {
	PREALLOC_METHOD_AUTO = 0,
	PREALLOC_METHOD_WRITE_ZEROES,
	PREALLOC_METHOD_ZEROOUT,
	PREALLOC_METHOD_URING,
	PREALLOC_METHOD_BUFFERED,
	PREALLOC_METHOD_ALLOCATE,
	PREALLOC_METHOD_AIO,
};

/**
 * enum prealloc_phase - the phase of a prealloc_file_ex() call that failed
 * @PREALLOC_PHASE_NONE: nothing failed (the call succeeded).
 * @PREALLOC_PHASE_TARGET: examining the descriptor and probing the storage.
 * @PREALLOC_PHASE_REQUEST: the request does not suit the target: -EINVAL
 *	(block-device range or flags), -EPERM (append-only or immutable file),
 *	-EOPNOTSUPP (a forced method the target cannot take).
 * @PREALLOC_PHASE_CLAIM: claiming a block device with O_EXCL (-EBUSY).
 * @PREALLOC_PHASE_SIGNATURES: looking for block-device signatures (-EEXIST).
 * @PREALLOC_PHASE_CLASSIFY: reading the extent map of the range.
 * @PREALLOC_PHASE_SPACE_CHECK: the free-space check, before anything is
 *	written: -ENOSPC here means nothing was changed.
 * @PREALLOC_PHASE_RESERVE: reserving the range with fallocate().
 * @PREALLOC_PHASE_ZERO: zeroing with &prealloc_report.failed_method.
 * @PREALLOC_PHASE_SYNC: the final fdatasync().
 *
 * In the order a call runs them, skipping those a target does not need;
 * after a refused method the next one runs again from
 * %PREALLOC_PHASE_RESERVE.  New phases get new values at the end.  A
 * "step" is a step of the plan (prealloc_probe_step(), &enum
 * prealloc_action); before 0.5 the phases were called steps too: &enum
 * prealloc_step keeps those names, with the same values.
 * Since: 0.5
 */
enum prealloc_phase {
	PREALLOC_PHASE_NONE = 0,
	PREALLOC_PHASE_TARGET,
	PREALLOC_PHASE_REQUEST,
	PREALLOC_PHASE_CLAIM,
	PREALLOC_PHASE_SIGNATURES,
	PREALLOC_PHASE_CLASSIFY,
	PREALLOC_PHASE_SPACE_CHECK,
	PREALLOC_PHASE_RESERVE,
	PREALLOC_PHASE_ZERO,
	PREALLOC_PHASE_SYNC,
};

/**
 * enum prealloc_step - the old name of &enum prealloc_phase (deprecated)
 * @PREALLOC_STEP_NONE: %PREALLOC_PHASE_NONE.
 * @PREALLOC_STEP_TARGET: %PREALLOC_PHASE_TARGET.
 * @PREALLOC_STEP_REQUEST: %PREALLOC_PHASE_REQUEST.
 * @PREALLOC_STEP_CLAIM: %PREALLOC_PHASE_CLAIM.
 * @PREALLOC_STEP_SIGNATURES: %PREALLOC_PHASE_SIGNATURES.
 * @PREALLOC_STEP_CLASSIFY: %PREALLOC_PHASE_CLASSIFY.
 * @PREALLOC_STEP_SPACE_CHECK: %PREALLOC_PHASE_SPACE_CHECK.
 * @PREALLOC_STEP_RESERVE: %PREALLOC_PHASE_RESERVE.
 * @PREALLOC_STEP_ZERO: %PREALLOC_PHASE_ZERO.
 * @PREALLOC_STEP_SYNC: %PREALLOC_PHASE_SYNC.
 *
 * The names of 0.2 to 0.4, kept so that code written for them compiles
 * unchanged (with prealloc_step_name() and &prealloc_report.failed_step);
 * new code names the phases.  Every value is its phase's.
 */
enum prealloc_step {
	PREALLOC_STEP_NONE = PREALLOC_PHASE_NONE,
	PREALLOC_STEP_TARGET = PREALLOC_PHASE_TARGET,
	PREALLOC_STEP_REQUEST = PREALLOC_PHASE_REQUEST,
	PREALLOC_STEP_CLAIM = PREALLOC_PHASE_CLAIM,
	PREALLOC_STEP_SIGNATURES = PREALLOC_PHASE_SIGNATURES,
	PREALLOC_STEP_CLASSIFY = PREALLOC_PHASE_CLASSIFY,
	PREALLOC_STEP_SPACE_CHECK = PREALLOC_PHASE_SPACE_CHECK,
	PREALLOC_STEP_RESERVE = PREALLOC_PHASE_RESERVE,
	PREALLOC_STEP_ZERO = PREALLOC_PHASE_ZERO,
	PREALLOC_STEP_SYNC = PREALLOC_PHASE_SYNC,
};

/**
 * enum prealloc_action - what a step of the plan does to its bytes
 * @PREALLOC_ACTION_RESERVE: fallocate() them (%PREALLOC_PHASE_RESERVE).
 * @PREALLOC_ACTION_ZERO: make them read zero with the step's method.
 * @PREALLOC_ACTION_WRITE_EDGES: pwrite() zeros to the bytes a whole-block
 *	method leaves around its aligned middle.
 * @PREALLOC_ACTION_SYNC: fdatasync() the target (no bytes are counted).
 *
 * New actions get new values at the end.
 * Since: 0.3
 */
enum prealloc_action {
	PREALLOC_ACTION_RESERVE = 1,
	PREALLOC_ACTION_ZERO,
	PREALLOC_ACTION_WRITE_EDGES,
	PREALLOC_ACTION_SYNC,
};

/**
 * enum prealloc_background - pacing that applied (prealloc_report.background)
 * @PREALLOC_BG_PACED: requests were held back by the pacer (the
 *	&prealloc_options.max_rate cap or the adaptive rate).
 * @PREALLOC_BG_IDLE_PRIO: direct writes (io_uring, Linux AIO) were sent with
 *	IOPRIO_CLASS_IDLE to a scheduler that honours it.
 * @PREALLOC_BG_ADAPTED: the adaptive rate was lowered at least once because
 *	the device was busy with other I/O.
 * Since: 0.2
 */
enum prealloc_background {
	PREALLOC_BG_PACED     = 1u << 0,
	PREALLOC_BG_IDLE_PRIO = 1u << 1,
	PREALLOC_BG_ADAPTED   = 1u << 2,
};

/**
 * enum prealloc_write_zeroes - what became of FALLOC_FL_WRITE_ZEROES in a call
 * @PREALLOC_WZ_NOT_WEIGHED: the planner never weighed the flag: a method
 *	other than write-zeroes was forced, the file is copy-on-write or memory
 *	backed, or the call failed before planning.
 * @PREALLOC_WZ_USED: the flag zeroed bytes of the range, planned or forced
 *	(in a probe: the kernel took it on this filesystem or device earlier in
 *	the context).
 * @PREALLOC_WZ_WOULD_TRY: the flag was to be tried first but zeroed nothing
 *	of the range: no whole block needed zeroing, or the call failed or was
 *	cancelled before (in a probe: not asked yet, would try).
 * @PREALLOC_WZ_NO_DEVICE_FACTS: no block device with sysfs facts under the
 *	target (NFS, FUSE, a device not found under the sysfs root): not tried.
 * @PREALLOC_WZ_NO_KERNEL: this kernel has no FALLOC_FL_WRITE_ZEROES (Linux
 *	6.17 added it): not tried.
 * @PREALLOC_WZ_FS_REFUSED: the filesystem refused the flag on this kernel:
 *	asked in this call (planned, or forced: the call then fails with
 *	-EOPNOTSUPP), or remembered from an earlier call in the context, forced
 *	or not (then not tried).
 * @PREALLOC_WZ_DEVICE_CANNOT: the device cannot zero by unmapping: its sysfs
 *	queue says so (not tried), or the kernel refused the flag on a block
 *	device.
 * @PREALLOC_WZ_FS_OR_DEVICE: refused (now or earlier in the context) where
 *	sysfs cannot say whether the device can zero by unmapping: the
 *	filesystem or the device.
 * @PREALLOC_WZ_INODE: this file's inode cannot take it: ext4 inline data (not
 *	tried), or the kernel refused it for a file without extents, on xfs's
 *	realtime device, always copied on write, or sharing extents; the rest of
 *	the filesystem still gets the flag.
 * @PREALLOC_WZ_KEEP_SIZE: %PREALLOC_KEEP_SIZE beyond end of file, which the
 *	flag cannot do: not tried.
 *
 * One of these in &prealloc_report.write_zeroes; a probe names the planner's
 * verdict in its "write_zeroes" fact, in the words of
 * prealloc_write_zeroes_name(), and prealloc_probe_plan_reason() says it as
 * a sentence.  New values get new numbers at the end.
 * Since: 0.4
 */
enum prealloc_write_zeroes {
	PREALLOC_WZ_NOT_WEIGHED = 0,
	PREALLOC_WZ_USED,
	PREALLOC_WZ_WOULD_TRY,
	PREALLOC_WZ_NO_DEVICE_FACTS,
	PREALLOC_WZ_NO_KERNEL,
	PREALLOC_WZ_FS_REFUSED,
	PREALLOC_WZ_DEVICE_CANNOT,
	PREALLOC_WZ_FS_OR_DEVICE,
	PREALLOC_WZ_INODE,
	PREALLOC_WZ_KEEP_SIZE,
};

/* Size of &prealloc_report.bytes_by_method: fixed forever. */
#define PREALLOC_METHOD_SLOTS 16

/**
 * typedef prealloc_progress_fn - progress callback
 * @done: bytes of the range handled so far
 * @total: bytes the call will handle in all
 * @data: the caller's pointer from &struct prealloc_options
 *
 * Called on the calling thread between chunks of work, and now and then
 * with @done 0 while the call waits for another on the same bytes (@total
 * is then the range's length).  Return 0 to go on, anything else to cancel:
 * the call undoes its work as any failed call does and returns -ECANCELED.
 */
typedef int (*prealloc_progress_fn)(uint64_t done, uint64_t total, void *data);

/**
 * struct prealloc_ctx - library state: caches, sysfs root, log hook
 *
 * Opaque; what the library learns between calls and takes from the
 * environment (libprealloc(7)).  Calls given no context use a process-wide
 * default one.  A context may be used by several threads at once.
 */
struct prealloc_ctx;

/**
 * struct prealloc_options - options for prealloc_file_ex()
 * @size: sizeof(struct prealloc_options) as the caller knows it.  Fields
 *	beyond @size are taken as zero; bytes the library does not know must be
 *	zero, and @size at most 4096 (-E2BIG otherwise).
 * @flags: &enum prealloc_flags
 * @method: &enum prealloc_method to force, or %PREALLOC_METHOD_AUTO.  A forced
 *	method is used alone: refused, it fails the call with -EOPNOTSUPP.
 * @queue_depth: direct writes (uring, aio) in flight; 0 for the default.
 * @request_bytes: bytes per direct write (uring, aio) (rounded down to whole pages and
 *	the direct-I/O alignment, at least one page); 0 for the default.
 * @progress: optional &prealloc_progress_fn.
 * @progress_data: passed to @progress.
 * @max_rate: hard cap on the zeroing rate in bytes per second, over any
 *	interval longer than one request; 0 for none.  Applies with or without
 *	%PREALLOC_BACKGROUND, to every method (bytes zeroed by the device count).
 * @ctx: &struct prealloc_ctx the call uses, or NULL for the default one;
 *	it must stay referenced for the call's duration.
 *
 * New fields are appended at the end.
 */
struct prealloc_options {
	uint32_t size;
	uint32_t flags;
	uint32_t method;
	uint32_t queue_depth;
	uint64_t request_bytes;
	prealloc_progress_fn progress;
	void *progress_data;
	uint64_t max_rate;
	struct prealloc_ctx *ctx;
};

/**
 * struct prealloc_report - what prealloc_file_ex() did
 * @size: set by the caller to sizeof(struct prealloc_report), 8 to 4096
 *	(-EINVAL, -E2BIG); the library fills at most that many bytes.
 * @written: 1 if every block of the range is now allocated and written.
 * @cow: 1 if the file is copy-on-write or the range holds shared
 *	(reflinked) extents: written state is not achievable, so space was
 *	reserved instead (shared data is kept).
 * @__pad: zero.
 * @method: the &enum prealloc_method that covered the most bytes
 *	(%PREALLOC_METHOD_AUTO if nothing needed doing).
 * @refused: methods tried and refused by the kernel or device before the call
 *	fell back to the next one, as a bit mask of (1 << &enum prealloc_method).
 * @bytes_zeroed: bytes made to read zero by any method; with
 *	%PREALLOC_KEEP_SIZE also the rest of a written last block past EOF,
 *	which is written zeros already.
 * @bytes_kept: bytes of existing data left untouched.
 * @bytes_reserved: bytes only reserved (allocated but not written).
 * @elapsed_ns: wall-clock time of the call.
 * @bytes_by_method: bytes of the range covered by each method, indexed by
 *	&enum prealloc_method (index 0 is unused); %PREALLOC_METHOD_SLOTS long
 *	whatever methods exist.
 * @failed_phase: the &enum prealloc_phase that failed, %PREALLOC_PHASE_NONE
 *	on success.  Arguments rejected before any work (-EINVAL, -E2BIG,
 *	-EFBIG, -EBADF) leave the whole report untouched.  Since: 0.5 (the
 *	same bytes were @failed_step before).
 * @failed_step: the old name of @failed_phase (deprecated): the other
 *	member of an anonymous union, the same bytes.
 * @failed_method: the &enum prealloc_method that was running when the call
 *	failed (%PREALLOC_METHOD_AUTO when none was); with
 *	%PREALLOC_PHASE_RESERVE, the method that needed the reservation.
 * @bytes_unknown: bytes of @bytes_kept whose extent state cannot be told
 *	without FIEMAP; @written is then 0.  Since: 0.2
 * @background: &enum prealloc_background bits: the pacing that applied.
 * @__pad2: zero.
 * @bytes_per_sec: achieved rate: @bytes_zeroed per second of @elapsed_ns.
 * @undo_error: the first error met undoing a failed call (-EIO after a
 *	filesystem shutdown, say): the file's size and allocation may not be
 *	as they were; 0 otherwise.  Since: 0.3
 * @__pad3: zero.
 * @lock_error: 0 when the file was held against other processes' calls on
 *	it (or nothing needed holding: a block device is claimed whole); else
 *	why it could not be, and the call ran ordered only with this
 *	process's calls: -EDEADLK (a flock() that is not another process's
 *	call holds the file: the application's own, a process's without the
 *	library, or one /proc/locks cannot name), -EOPNOTSUPP
 *	(NFS or SMB, whose flock() is a record lock), -EBUSY (the caller's
 *	description holds a lease, which opening the file would break), or why
 *	the file could not be opened again (-ENOENT without /proc, -EACCES: its
 *	mode forbids reading, -ESTALE, -ENOMEM, -EMFILE).  Since: 0.4
 * @__pad4: zero.
 * @write_zeroes: &enum prealloc_write_zeroes: whether FALLOC_FL_WRITE_ZEROES
 *	zeroed bytes of the range, and if not, why not (the kernel, the device,
 *	the filesystem, this file, keep-size).  Filled on failure too, with what
 *	the call knew when it failed.  Since: 0.4
 * @__pad5: zero.
 *
 * New fields are appended at the end, past an older caller's @size.  An
 * older library leaves the fields it does not know as the caller set them
 * (zero for a zeroed report, which reads as "no error" or "not weighed"): a
 * caller that may run on one checks prealloc_version() before reading them.
 */
struct prealloc_report {
	uint32_t size;
	uint8_t written;
	uint8_t cow;
	uint16_t __pad;
	uint32_t method;
	uint32_t refused;
	uint64_t bytes_zeroed;
	uint64_t bytes_kept;
	uint64_t bytes_reserved;
	uint64_t elapsed_ns;
	uint64_t bytes_by_method[PREALLOC_METHOD_SLOTS];
	PREALLOC_ANON_UNION {
		uint32_t failed_phase;
		uint32_t failed_step;
	};
	uint32_t failed_method;
	uint64_t bytes_unknown;
	uint32_t background;
	uint32_t __pad2;
	uint64_t bytes_per_sec;
	int32_t undo_error;
	uint32_t __pad3;
	int32_t lock_error;
	uint32_t __pad4;
	uint32_t write_zeroes;
	uint32_t __pad5;
};

/**
 * struct prealloc_census - extent states of a range, from prealloc_verify()
 * @size: set by the caller to sizeof(struct prealloc_census).
 * @fiemap: 1 if FIEMAP answered; 0 if only SEEK_DATA/SEEK_HOLE were available
 *	(then unwritten extents cannot be told from holes or data).
 * @written_bytes: bytes in written extents.
 * @unwritten_bytes: bytes in unwritten (preallocated) extents.
 * @hole_bytes: bytes with no extent.
 * @shared_bytes: bytes of @written_bytes in shared (reflinked) extents.
 * @unknown_bytes: without FIEMAP, bytes SEEK_DATA calls data but which may
 *	be unwritten extents, not counted in @written_bytes (libprealloc(7)
 *	tells where the census is exact anyway).  Since: 0.2
 */
struct prealloc_census {
	uint32_t size;
	uint32_t fiemap;
	uint64_t written_bytes;
	uint64_t unwritten_bytes;
	uint64_t hole_bytes;
	uint64_t shared_bytes;
	uint64_t unknown_bytes;
};

/**
 * prealloc_file() - make a range allocated, written and durable
 * @fd: file descriptor open for writing (a regular file or a block device)
 * @offset: first byte of the range
 * @len: length of the range in bytes, > 0
 * @flags: &enum prealloc_flags
 *
 * On success every filesystem block touching [@offset, @offset + @len) is
 * allocated and written, bytes that held data hold the same bytes, all other
 * bytes of the range read zero, the file is at least @offset + @len long
 * (unless %PREALLOC_KEEP_SIZE) and the result is durable (unless
 * %PREALLOC_NO_SYNC).  @fd's file offset and status flags are not changed.
 *
 * On failure the call undoes exactly what it did, and nothing else: blocks
 * it allocated are released (a hole block the range shares with bytes
 * inside EOF may stay allocated, reading zero), the size is cut back if it
 * is still one the call set, the file's own reservation beyond EOF is kept,
 * and data is untouched, except with %PREALLOC_ZERO_DATA: data zeroed before
 * the failure reads zero (&prealloc_report.bytes_zeroed counts every byte
 * written).  The undo ends with fsync() (unless %PREALLOC_NO_SYNC); if a
 * step of it fails, &prealloc_report.undo_error says so.  Failures decided before anything
 * changes (bad arguments, a forced method that cannot apply, -EPERM,
 * -ENOSPC, keep-size -EOPNOTSUPP) change nothing.  On a block device what
 * was zeroed stays zeroed.  How, per filesystem: libprealloc(7).
 *
 * A block-device range must be logical-block aligned and inside the device,
 * with %PREALLOC_ZERO_DATA; the device is claimed with O_EXCL for the call.
 * A library built without libblkid requires %PREALLOC_FORCE.
 *
 * What the call does to the caller's file and descriptor: it writes the
 * range, moves the size as above and syncs; nothing else the process owns
 * changes.  Its record locks (F_SETLK, OFD, lockf()) stay as they are: the
 * call opens the file again (O_DIRECT, no O_APPEND) and closes what it
 * opened only on a thread of the library's own, whose file table is the
 * library's (close_range(CLOSE_RANGE_UNSHARE), Linux 5.9) and receives
 * @fd over a socket pair, and a close() there cannot drop the process's
 * locks as a close() of the process's own would.  Those threads are kept
 * from call to call (up to 17, ending after 10 s unused), so the process
 * holds one descriptor of the library's (that socket, close-on-exec) while
 * they live; a fork()ed child makes its own.  The work runs with the
 * calling thread's file-system ids, supplementary groups and effective
 * capabilities, so a thread that changed its own (setfsuid(), capset())
 * gets what it could do itself: the opens, quotas and root's reserved
 * blocks it could have.  @fd's status flags and
 * offset are never changed.  A description holding a lease (F_SETLEASE)
 * is never opened again: the call uses @fd's own.  Opening and closing the
 * file is visible to inotify (IN_OPEN, IN_CLOSE_WRITE) and fanotify (an
 * open permission event may make the call wait for its answer).  The
 * caller's thread waits, running the progress callback and the log hook
 * (its own code, with its own descriptors), with its cancellation
 * disabled: the call is not a cancellation point, and completes (or is
 * undone) before a pending cancellation acts.  The work's thread has every
 * signal blocked, so a signal never interrupts the call.  Where no such
 * thread can be had the call fails before anything is done (-EAGAIN: no
 * thread; -EPERM or -ENOSYS: a seccomp profile refuses both close_range()
 * and unshare()).
 *
 * Concurrency: the call works on its copy of @fd (closing or dup2()ing over
 * @fd does not redirect it).  Calls on one file whose ranges could meet
 * (they share a page or a filesystem block, or both reach past end of file)
 * run one after the other, whichever thread, context, async handle or
 * descriptor makes them, by a range lock; calls of different processes on
 * one file run one after the other by a flock() on a description the
 * process keeps while any of its calls runs on the file, released by the
 * kernel if the process dies.  A waiting call calls its progress callback
 * with done 0 now and then, so it can be cancelled.  So no call fails or
 * undoes another's work by meeting it, and no call leaves an error for
 * anyone's next fsync().  flock() locks never meet record locks (on local
 * filesystems): the application's own F_SETLK, lockf() and OFD locks, on
 * any bytes, are granted while a call runs, from any thread or callback.
 * An application's flock() on the file would meet it: a call waits only
 * for a holder that is another process running the library's calls
 * (/proc/locks names it, and the library's keeper thread there is named
 * prealloc-keep, as it is only while that process's calls hold files and
 * for a second after),
 * that is, another call; for any other (its own
 * process's, flock(1)'s around a command, a backup tool's) it goes on
 * ordered with this process's calls only, and says so
 * (&prealloc_report.lock_error -EDEADLK).  Any process may name a thread
 * so: one that holds a flock() on the file makes a call without a
 * progress callback wait for as long as it holds it (a callback that
 * returns non-zero ends the wait).  Where the file cannot be held (&prealloc_report.lock_error says
 * why: NFS, a file that cannot be opened again), calls of other processes
 * are not ordered with this one: if their pages or blocks meet, one may
 * fail with -EIO and leave that error for every process's next fsync(), and
 * a failed one's undo may release blocks the other wrote.  Do not write
 * into the range (unless %PREALLOC_CONCURRENT_WRITES) or truncate the file
 * during the call (a truncate may raise SIGBUS).  With
 * %PREALLOC_CONCURRENT_WRITES a failed exchange leaves the file as it
 * was, and a failed fallocate() is not undone (a punch or a truncate could
 * destroy what another writer put there): the blocks and size it gave the
 * file stay, reading zero, and &prealloc_report.undo_error is -EBUSY.
 *
 * Returns: 0, or a negative errno: -EBADF (fd not open for writing), -EINVAL
 * (bad arguments, unknown flags, a block-device request as above, a
 * write-only O_DIRECT @fd with unaligned edges where the file cannot be
 * reopened), -EFBIG (@offset + @len too large), -ENOSPC (does not fit;
 * checked before anything is written; on xfs, whose free count lags behind
 * files just deleted, counted again for up to 63 ms), -EBUSY (block device mounted or held
 * with O_EXCL by anyone, the caller included), -EEXIST (block device carries
 * a filesystem, RAID or partition-table signature and %PREALLOC_FORCE is not
 * set), -ECANCELED (progress callback asked to stop), -EDEADLK (called from
 * a progress callback on bytes its running call holds), -EAGAIN, -EPERM,
 * -ENOSYS (no thread of the library's own files, as above), -EOPNOTSUPP
 * (%PREALLOC_KEEP_SIZE beyond EOF where the filesystem cannot reserve; an
 * O_APPEND @fd before Linux 6.9 where the file cannot be reopened; with
 * %PREALLOC_CONCURRENT_WRITES, no way to order the zero writes against
 * others' here: nothing was changed), -EBUSY (with
 * %PREALLOC_CONCURRENT_WRITES: the file kept changing under every attempt
 * to exchange; nothing was changed), or what
 * the kernel returned (-EIO, -EDQUOT, -EPERM for an append-only or immutable
 * file, -EISDIR, -ESPIPE, -ENODEV, ...).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_file(int fd, uint64_t offset, uint64_t len, unsigned int flags);

/**
 * prealloc_file_ex() - prealloc_file() with options and a report
 * @fd: as for prealloc_file()
 * @offset: as for prealloc_file()
 * @len: as for prealloc_file()
 * @opts: &struct prealloc_options, or NULL for defaults
 * @report: &struct prealloc_report to fill, or NULL; on failure it still
 *	describes the work done before the failure was undone.
 *
 * Returns: as prealloc_file(); also -E2BIG (@opts or @report from a newer
 * library with unknown non-zero fields), -EINVAL (@opts->size or
 * @report->size too small, unknown method), -EOPNOTSUPP (forced method not
 * possible here).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_file_ex(int fd, uint64_t offset, uint64_t len,
				  const struct prealloc_options *opts,
				  struct prealloc_report *report);

/**
 * struct prealloc_async - handle of an asynchronous preallocation (opaque)
 * Since: 0.2
 */
struct prealloc_async;

/**
 * prealloc_async_start() - start prealloc_file_ex() on a library thread
 * @fd: as for prealloc_file(); copied into the file table of the call's
 *	thread before this returns, so the caller may close @fd at once.  The
 *	open file description's offset and flags are not changed, nor the
 *	process's record locks on the file.
 * @offset: as for prealloc_file()
 * @len: as for prealloc_file()
 * @opts: &struct prealloc_options (copied), or NULL; %PREALLOC_BACKGROUND is
 *	always added.  A @opts->progress callback is called on a library
 *	thread that shares the process's file table.  @opts->ctx is referenced
 *	until prealloc_async_free().
 * @ret_handle: where to store the handle, to be released with
 *	prealloc_async_free()
 *
 * The work runs on a library thread with every signal blocked, under
 * prealloc_file_ex()'s contract (its file table the library's own).  Arguments are checked before it starts;
 * every other error (such as -ENOSPC) is what prealloc_async_poll()
 * returns.  A child process must not use handles inherited from its parent
 * (not even prealloc_async_free()).
 *
 * Returns: 0, or a negative errno: -EINVAL (NULL @ret_handle, bad arguments
 * as for prealloc_file_ex()), -EBADF (@fd not open for writing), -E2BIG,
 * -ENOMEM, -EAGAIN (no thread could be created), -EMFILE, -EPERM or -ENOSYS
 * (as for prealloc_file()).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_async_start(int fd, uint64_t offset, uint64_t len,
				      const struct prealloc_options *opts,
				      struct prealloc_async **ret_handle);

/**
 * prealloc_async_fd() - descriptor that becomes readable when the work is done
 * @h: handle from prealloc_async_start()
 *
 * An eventfd (non-blocking, close-on-exec) owned by the handle, readable
 * (POLLIN) once the result is available and from then on.  Do not read
 * from it or close it.
 *
 * Returns: the descriptor, or -EINVAL for a NULL @h.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_async_fd(const struct prealloc_async *h);

/**
 * prealloc_async_poll() - result of the work, without blocking
 * @h: handle from prealloc_async_start()
 *
 * Returns: -EINPROGRESS while the work runs; then what prealloc_file_ex()
 * returned (0, -ECANCELED after prealloc_async_cancel(), or another negative
 * errno); -EINVAL for a NULL @h.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_async_poll(const struct prealloc_async *h);

/**
 * prealloc_async_wait() - wait until the work is done
 * @h: handle from prealloc_async_start()
 *
 * Blocks (in poll(), restarted after signals) until the result is available.
 *
 * Returns: as prealloc_async_poll(), never -EINPROGRESS.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_async_wait(const struct prealloc_async *h);

/**
 * prealloc_async_cancel() - ask the work to stop
 * @h: handle from prealloc_async_start()
 *
 * Does not block.  The work stops after the request in flight, undoes what
 * it did as a failed call does and completes with -ECANCELED; work already
 * finished keeps its result.  Cancelling twice is harmless.
 *
 * Returns: 0, or -EINVAL for a NULL @h.
 * Since: 0.2
 */
int prealloc_async_cancel(struct prealloc_async *h);

/**
 * prealloc_async_report() - the report of finished work
 * @h: handle from prealloc_async_start()
 * @report: &struct prealloc_report to fill (@report->size set by the caller)
 *
 * Returns: 0, -EINPROGRESS while the work runs (@report untouched),
 * -EINVAL (NULL argument, @report->size too small).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_async_report(const struct prealloc_async *h,
				       struct prealloc_report *report);

/**
 * prealloc_async_free() - release a handle
 * @h: handle from prealloc_async_start(), or NULL
 *
 * Work still running is cancelled and waited for (undo included), so the
 * file is in a final state when this returns; the handle's descriptors are
 * closed (its copy of the file's in the call's own file table).  @h must not be used by other threads meanwhile or afterwards;
 * neither this nor prealloc_async_wait() may be called from the handle's
 * own progress callback (they would wait for themselves).
 * Since: 0.2
 */
void prealloc_async_free(struct prealloc_async *h);

/**
 * prealloc_verify() - census of the extent states of a range
 * @fd: file descriptor of a regular file (any access mode)
 * @offset: first byte of the range
 * @len: length of the range, > 0
 * @census: &struct prealloc_census to fill (@census->size set by the caller)
 *
 * Flushes delayed allocation and counts written, unwritten, hole and shared
 * bytes in [@offset, @offset + @len), beyond EOF included (FIEMAP, else
 * SEEK_DATA/SEEK_HOLE on a description of its own, opened and closed on a
 * thread of the library's own files: @fd's offset and the process's record
 * locks stay as they are).
 *
 * Returns: 0, or a negative errno (-EINVAL, -EBADF, -EFBIG, or the kernel's).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_verify(int fd, uint64_t offset, uint64_t len,
				 struct prealloc_census *census);

/**
 * prealloc_method_name() - short name of a method
 * @method: &enum prealloc_method
 *
 * Returns: "auto", "write-zeroes", "zeroout", "uring", "buffered",
 * "allocate" or "aio"; NULL for an unknown value.
 * Since: 0.2
 */
PREALLOC_WUR const char *prealloc_method_name(enum prealloc_method method);

/**
 * prealloc_method_from_name() - parse a method name
 * @name: one of the names prealloc_method_name() returns
 *
 * Returns: the &enum prealloc_method, or -EINVAL.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_method_from_name(const char *name);

/**
 * prealloc_phase_name() - short name of a phase, for messages
 * @phase: &enum prealloc_phase
 *
 * Returns: "none", "target", "request", "claim", "signatures", "classify",
 * "space-check", "reserve", "zero" or "sync"; NULL for an unknown value.
 * Since: 0.5
 */
PREALLOC_WUR const char *prealloc_phase_name(enum prealloc_phase phase);

/**
 * prealloc_step_name() - the old name of prealloc_phase_name() (deprecated)
 * @step: &enum prealloc_step
 *
 * Kept, and exported, for code and binaries of 0.2 to 0.4.
 *
 * Returns: prealloc_phase_name(@step).
 * Since: 0.2
 */
PREALLOC_WUR const char *prealloc_step_name(enum prealloc_step step);

/**
 * prealloc_background_name() - short name of a pacing mechanism, for messages
 * @bit: one bit of &enum prealloc_background
 *
 * Returns: "paced", "idle-ioprio" or "adapted"; NULL for an unknown bit or
 * for a value that is not a single bit.
 * Since: 0.3
 */
PREALLOC_WUR const char *prealloc_background_name(enum prealloc_background bit);

/**
 * prealloc_action_name() - short name of a step's action, for messages
 * @action: &enum prealloc_action
 *
 * Returns: "reserve", "zero", "write-edges" or "sync"; NULL for an unknown
 * value.
 * Since: 0.3
 */
PREALLOC_WUR const char *prealloc_action_name(enum prealloc_action action);

/**
 * prealloc_write_zeroes_name() - short name of a write-zeroes verdict
 * @verdict: &enum prealloc_write_zeroes
 *
 * Returns: "not-weighed", "used", "would-try", "no-device-facts",
 * "no-kernel", "fs-refused", "device-cannot", "fs-or-device", "inode" or
 * "keep-size"; NULL for an unknown value.
 * Since: 0.4
 */
PREALLOC_WUR const char *prealloc_write_zeroes_name(enum prealloc_write_zeroes verdict);

/**
 * prealloc_version() - version of the library in use at run time
 *
 * Returns: "MAJOR.MINOR.MICRO" of the library loaded, which may be newer
 * than the header's %PREALLOC_VERSION_MAJOR and %PREALLOC_VERSION_MINOR.
 * Since: 0.2
 */
PREALLOC_WUR const char *prealloc_version(void);

/**
 * prealloc_ctx_new() - create a context
 * @sysfs_root: directory read instead of /sys (a captured tree), or NULL for
 *	$PREALLOC_SYSFS_ROOT else /sys (libprealloc(7)); device nodes are
 *	opened only when the root in use is /sys.
 * @flags: 0; no flags are defined yet.
 * @ret_ctx: where to store the new context, with one reference.
 *
 * Nothing is opened or probed until a call using it needs it.
 *
 * Returns: 0, or -EINVAL (@ret_ctx NULL, @sysfs_root empty, unknown flags),
 * -ENOMEM.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_ctx_new(const char *sysfs_root, unsigned int flags,
				  struct prealloc_ctx **ret_ctx);

/**
 * prealloc_ctx_ref() - take a reference on a context
 * @ctx: &struct prealloc_ctx, or NULL
 *
 * Returns: @ctx.
 * Since: 0.2
 */
struct prealloc_ctx *prealloc_ctx_ref(struct prealloc_ctx *ctx);

/**
 * prealloc_ctx_unref() - drop a reference on a context
 * @ctx: &struct prealloc_ctx, or NULL
 *
 * The last reference releases everything the context holds, descriptors
 * included; a probe holds one until prealloc_probe_free().  The caller must
 * not drop its last reference while a call using @ctx runs.
 *
 * Returns: @ctx while references remain, NULL once it is freed.
 * Since: 0.2
 */
struct prealloc_ctx *prealloc_ctx_unref(struct prealloc_ctx *ctx);

/**
 * prealloc_ctx_flush() - forget what a context has learnt
 * @ctx: &struct prealloc_ctx, or NULL for the default context
 *
 * Drops the cached device capabilities and remembered write-zeroes
 * refusals and closes the mount-table watch descriptor, so the next call
 * probes afresh (libprealloc(7) says when that is needed).  Probes already
 * created keep what they saw.  A watch descriptor closed behind the
 * library's back (closefrom()) is never polled or closed by it.
 *
 * Returns: 0, or a negative errno like every call here, though none can
 * happen: NULL names the default context, which is flushed like any other,
 * and forgetting only frees and closes.  Callers may ignore the result.
 * Since: 0.2
 */
int prealloc_ctx_flush(struct prealloc_ctx *ctx);

/**
 * typedef prealloc_log_fn - the caller's log hook
 * @data: the pointer given to prealloc_ctx_set_log_fn().
 * @priority: a syslog(3) priority.
 * @file: source file of the message, or NULL.
 * @line: its line, or 0.
 * @fn: its function, or NULL.
 * @format: printf(3) format of one newline-terminated line.
 * @args: the format's arguments.
 *
 * Called on the thread that made the call (the library's own for
 * prealloc_async_start() and the pool's worker), never on the thread whose
 * file table is the library's.  It must not call prealloc_ctx_set_log_fn() on
 * the same context.
 */
typedef void (*prealloc_log_fn)(void *data, int priority, const char *file, int line,
				const char *fn, const char *format, va_list args);

/**
 * prealloc_ctx_set_log_fn() - route the library's messages to the caller
 * @ctx: &struct prealloc_ctx (not NULL: the default context has no hook)
 * @fn: the hook, or NULL to be silent again (the default)
 * @data: passed to @fn
 *
 * Calls using @ctx then report refused methods, a failed free-space check
 * and pacing's adaptations (libprealloc(7)); messages less urgent than
 * prealloc_ctx_set_log_priority() allows (LOG_INFO by default) are dropped.
 * Thread-safe: when it returns, no call of the previous hook runs or will
 * start, so its @data may be freed.
 *
 * Returns: 0, or -EINVAL (@ctx NULL).
 * Since: 0.3
 */
int prealloc_ctx_set_log_fn(struct prealloc_ctx *ctx, prealloc_log_fn fn, void *data);

/**
 * prealloc_ctx_set_log_priority() - the least urgent message the hook receives
 * @ctx: &struct prealloc_ctx (not NULL)
 * @priority: a syslog(3) priority, LOG_EMERG (0) to LOG_DEBUG (7)
 *
 * Returns: 0, or -EINVAL (@ctx NULL, @priority out of range).
 * Since: 0.3
 */
int prealloc_ctx_set_log_priority(struct prealloc_ctx *ctx, int priority);

/**
 * enum prealloc_answer - a yes/no question the storage may not answer
 * @PREALLOC_NO: no.
 * @PREALLOC_YES: yes.
 * @PREALLOC_UNKNOWN: the facts needed could not be read, or the kernel was
 *	not asked yet; the library will try and fall back.  The fact holding it
 *	is %PREALLOC_FACT_NULL.
 */
enum prealloc_answer {
	PREALLOC_NO = 0,
	PREALLOC_YES = 1,
	PREALLOC_UNKNOWN = 2,
};

/**
 * enum prealloc_fact_type - the type of a probe fact's value
 * @PREALLOC_FACT_NULL: unknown (not reported, unreadable, or not
 *	applicable in this probe); no value.
 * @PREALLOC_FACT_BOOL: a number, 0 or 1.
 * @PREALLOC_FACT_NUMBER: a number.
 * @PREALLOC_FACT_BYTES: a number of bytes.
 * @PREALLOC_FACT_FLAGS: a number, bit field or identifier, best in hex.
 * @PREALLOC_FACT_STRING: a string.
 *
 * New types may be added at the end; show a type you do not know as a
 * number or a string, whichever it carries.
 */
enum prealloc_fact_type {
	PREALLOC_FACT_NULL = 0,
	PREALLOC_FACT_BOOL,
	PREALLOC_FACT_NUMBER,
	PREALLOC_FACT_BYTES,
	PREALLOC_FACT_FLAGS,
	PREALLOC_FACT_STRING,
};

/**
 * struct prealloc_probe - what the library knows about a target
 *
 * Opaque.  A snapshot taken by prealloc_probe_new(): facts of the target
 * and of each device of the chain under it, and the plan for a request with
 * its steps.  Facts are named with dotted paths ("nvme.dlfeat"), listed in
 * libprealloc(7); later versions may add facts, never remove one or change
 * its type.
 */
struct prealloc_probe;

/**
 * prealloc_probe_new() - probe a file or block device
 * @fd: descriptor of a regular file or a block device (any access mode,
 *	O_PATH included: probing needs no permission on the device itself)
 * @offset: first byte of the request to plan for
 * @len: length of the request, or 0 to probe without a request (no plan)
 * @opts: &struct prealloc_options of the request (flags, method, context),
 *	or NULL for defaults; progress and rate fields are ignored.
 * @ret_probe: where to store the probe.
 *
 * Reads what prealloc_file_ex(@fd, @offset, @len, @opts) would read, plans
 * what it would do, and writes nothing.  Facts that cannot be learnt are
 * unknown, with the reason where one is known, and never make the call
 * fail.  @fd's offset is not moved.  What the probe opens (a readable
 * description for an O_PATH @fd, the device node the NVMe and SCSI probes
 * send their commands through) it opens and closes on a thread of the
 * library's own files, as prealloc_file() does, so the process's record
 * locks stay; where no such thread can be had, what it would have read is
 * unknown.
 *
 * Returns: 0, or a negative errno: -EINVAL (@ret_probe NULL, bad options),
 * -E2BIG, -EFBIG (as for prealloc_file_ex()), -EBADF, -EISDIR, -ESPIPE,
 * -ENODEV (not a regular file or block device), -ENOMEM.
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_new(int fd, uint64_t offset, uint64_t len,
				    const struct prealloc_options *opts,
				    struct prealloc_probe **ret_probe);

/**
 * prealloc_probe_free() - free a probe
 * @probe: &struct prealloc_probe, or NULL
 *
 * Also drops the probe's reference on its context.
 * Since: 0.2
 */
void prealloc_probe_free(struct prealloc_probe *probe);

/**
 * prealloc_probe_zeroing_offloaded() - will the device do the zeroing?
 * @probe: &struct prealloc_probe
 * @ret_decided_by: if not NULL, set to the fact that decided the answer,
 *	valid until the probe is freed.
 *
 * Yes when the request (or, without one, extending the file) would be
 * zeroed by the device through FALLOC_FL_WRITE_ZEROES; no when that is known
 * not to happen (also when the request's steps give no bytes to
 * write-zeroes); unknown when a device fact needed could not be read.  Which
 * filesystem takes the flag is the kernel's to say: for a file over a device
 * that can zero by unmapping, the answer is yes or no only once a call with
 * the probe's context asked the kernel on that filesystem ("asked the
 * kernel: works here", "asked the kernel: refused: ..."), and unknown until
 * then ("not asked yet: would try"); the probe itself writes nothing.  For a
 * block device the queue attribute is the kernel's answer.
 *
 * Returns: an &enum prealloc_answer, or -EINVAL (@probe NULL).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_zeroing_offloaded(const struct prealloc_probe *probe,
						  const char **ret_decided_by);

/**
 * prealloc_probe_plan() - a method of the plan for the request
 * @probe: &struct prealloc_probe
 * @index: 0 for the method tried first, 1 for its fallback, ...
 *
 * Returns: an &enum prealloc_method, or -ENOENT (@index past the last
 * method), -ENODATA (the probe was made without a request), -EOPNOTSUPP (a
 * forced method that cannot apply to this target, or a request that cannot
 * be met here: prealloc_probe_plan_reason() says why), -EINVAL (@probe NULL).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_plan(const struct prealloc_probe *probe, unsigned int index);

/**
 * prealloc_probe_plan_reason() - why the plan is what it is
 * @probe: &struct prealloc_probe
 *
 * Returns: one sentence, valid until the probe is freed (also when
 * prealloc_probe_plan() says -EOPNOTSUPP); NULL without a request, for a
 * forced method that cannot apply, or for a NULL @probe.
 * Since: 0.2
 */
PREALLOC_WUR const char *prealloc_probe_plan_reason(const struct prealloc_probe *probe);

/**
 * prealloc_probe_step() - a step of the plan for the request
 * @probe: &struct prealloc_probe
 * @index: 0, 1, ... until -ENOENT
 * @ret_action: if not NULL, set to the step's &enum prealloc_action
 * @ret_method: if not NULL, set to the &enum prealloc_method that covers
 *	the step's bytes (for a reservation, the method that needs it; 0 for
 *	the sync)
 * @ret_offset: if not NULL, set to the step's first byte
 * @ret_length: if not NULL, set to its length in bytes
 *
 * The steps prealloc_file_ex() runs for the request, in order, with the
 * method it tries first.  A call that needs no fallback and finds the range
 * as the probe did reports in &prealloc_report.bytes_by_method each
 * method's zero and write-edges lengths summed.  The steps of fallback
 * methods (prealloc_probe_plan()) are not listed.
 *
 * Returns: 0, or -ENOENT (@index past the last step), -ENODATA (the probe
 * was made without a request), the error the call would fail with before
 * any step (-EOPNOTSUPP, -ENOSPC, -EPERM, -EINVAL: see &enum prealloc_phase),
 * the error reading the range's extent map (an O_PATH descriptor that
 * cannot be reopened), -EINVAL (@probe NULL).
 * Since: 0.3
 */
PREALLOC_WUR int prealloc_probe_step(const struct prealloc_probe *probe, unsigned int index,
				     uint32_t *ret_action, uint32_t *ret_method,
				     uint64_t *ret_offset, uint64_t *ret_length);

/**
 * prealloc_probe_fact() - a fact of the target, by position
 * @probe: &struct prealloc_probe
 * @index: 0, 1, ... until -ENOENT
 * @ret_name: if not NULL, set to the fact's name
 * @ret_number: if not NULL, set to the value of a number, bytes, flags or
 *	bool fact (0 otherwise)
 * @ret_string: if not NULL, set to the value of a string fact (NULL
 *	otherwise)
 *
 * Strings are valid until the probe is freed.
 *
 * Returns: the &enum prealloc_fact_type, or -ENOENT (@index past the last
 * fact), -EINVAL (@probe NULL).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_fact(const struct prealloc_probe *probe, unsigned int index,
				     const char **ret_name, uint64_t *ret_number,
				     const char **ret_string);

/**
 * prealloc_probe_lookup() - a fact of the target, by name
 * @probe: &struct prealloc_probe
 * @name: the fact's name, e.g. "atomic_write.unit_max", or "uring_refused":
 *	why this process cannot use io_uring, with the evidence
 *	("io_uring_setup refused: EPERM (a seccomp profile?)", "...;
 *	kernel.io_uring_disabled = 2"), a null fact when it can
 * @ret_number: as for prealloc_probe_fact()
 * @ret_string: as for prealloc_probe_fact()
 *
 * Returns: the &enum prealloc_fact_type, or -ENOENT (no such fact in this
 * probe), -EINVAL (@probe or @name NULL).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_lookup(const struct prealloc_probe *probe, const char *name,
				       uint64_t *ret_number, const char **ret_string);

/**
 * prealloc_probe_device_count() - number of devices in the chain
 * @probe: &struct prealloc_probe
 *
 * The device holding the target comes first (index 0), then the devices
 * below it, recursively (partition, disk, dm and md members, a loop
 * device's backing file's device); none for tmpfs, NFS and the like.
 *
 * Returns: the number of devices, or -EINVAL (@probe NULL).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_device_count(const struct prealloc_probe *probe);

/**
 * prealloc_probe_device_fact() - a fact of a device, by position
 * @probe: &struct prealloc_probe
 * @device: index in the chain, below prealloc_probe_device_count()
 * @index: 0, 1, ... until -ENOENT
 * @ret_name: as for prealloc_probe_fact()
 * @ret_number: as for prealloc_probe_fact()
 * @ret_string: as for prealloc_probe_fact()
 *
 * Returns: the &enum prealloc_fact_type, or -ENOENT (@index past the last
 * fact), -ENXIO (no such device), -EINVAL (@probe NULL).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_device_fact(const struct prealloc_probe *probe,
					    unsigned int device, unsigned int index,
					    const char **ret_name, uint64_t *ret_number,
					    const char **ret_string);

/**
 * prealloc_probe_device_lookup() - a fact of a device, by name
 * @probe: &struct prealloc_probe
 * @device: index in the chain
 * @name: the fact's name, e.g. "queue.write_zeroes_unmap_max_bytes"
 * @ret_number: as for prealloc_probe_fact()
 * @ret_string: as for prealloc_probe_fact()
 *
 * Returns: the &enum prealloc_fact_type, or -ENOENT (no such fact for this
 * device), -ENXIO (no such device), -EINVAL (@probe or @name NULL).
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_device_lookup(const struct prealloc_probe *probe,
					      unsigned int device, const char *name,
					      uint64_t *ret_number, const char **ret_string);

#ifdef __cplusplus
}
#endif

/* The ready-segment pool, built on the calls above: <prealloc.h> declares
 * the whole library.  (The dependency is one-way: the pool's header needs
 * only <prealloc-common.h>.) */
#include <prealloc-pool.h>

#endif /* LIBPREALLOC_H */
