/* SPDX-License-Identifier: MIT */
/*
 * libprealloc - preallocate file space that is allocated *and written*.
 *
 * prealloc_file() makes a range of a regular file (or a block device) read as
 * zeros with every block allocated and in the written state, using the
 * cheapest method the storage offers, without touching bytes that already
 * hold data and without ever exposing stale data.  How methods are chosen,
 * background pacing and the pool's life cycle: libprealloc(7).
 *
 * Conventions: every function returns 0 (or a non-negative value) on success
 * and a negative errno value on failure; nothing is printed; output parameters
 * are left untouched on failure unless stated otherwise.  All functions are
 * thread-safe.  Callers must not write into a range while it is being
 * preallocated (the same contract as any zeroing call).
 *
 * Unknown is %PREALLOC_FACT_NULL for a fact, %PREALLOC_UNKNOWN for a yes/no
 * answer, and never a number.  The ABI is LP64-only (64-bit pointers and
 * longs): the header refuses other targets.
 */
#ifndef LIBPREALLOC_H
#define LIBPREALLOC_H

#if defined(__SIZEOF_POINTER__) && (__SIZEOF_POINTER__ != 8 || __SIZEOF_LONG__ != 8)
#error "libprealloc: the ABI is LP64-only"
#endif

#include <stdarg.h>
#include <stdint.h>

/* Marks functions whose result must be looked at: ignoring it is a bug. */
#if defined(__GNUC__) || defined(__clang__)
#define PREALLOC_WUR __attribute__((warn_unused_result))
#else
#define PREALLOC_WUR
#endif

#ifdef __cplusplus
extern "C" {
#endif

#include <prealloc-version.h>

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
 * @PREALLOC_BACKGROUND: run beside live traffic: smaller requests, idle I/O
 *	priority where the scheduler honours it, and a rate that falls while the
 *	device serves other I/O and climbs back while it does not, never below
 *	a floor that keeps the work moving (libprealloc(7) tells how).
 *	&prealloc_options.max_rate is a hard cap; &prealloc_report.background
 *	says what applied.
 */
enum prealloc_flags {
	PREALLOC_KEEP_SIZE = 1u << 0,
	PREALLOC_ZERO_DATA = 1u << 1,
	PREALLOC_NO_SYNC   = 1u << 2,
	PREALLOC_FORCE     = 1u << 3,
	PREALLOC_BACKGROUND = 1u << 4,
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
 *
 * New methods get new values at the end.  Struct fields hold a method as a
 * uint32_t; to list the methods this library knows, loop over
 * [1, %PREALLOC_METHOD_SLOTS) and skip values prealloc_method_name() does not
 * name.
 */
enum prealloc_method {
	PREALLOC_METHOD_AUTO = 0,
	PREALLOC_METHOD_WRITE_ZEROES,
	PREALLOC_METHOD_ZEROOUT,
	PREALLOC_METHOD_URING,
	PREALLOC_METHOD_BUFFERED,
	PREALLOC_METHOD_ALLOCATE,
};

/**
 * enum prealloc_step - the step of a prealloc_file_ex() call that failed
 * @PREALLOC_STEP_NONE: nothing failed (the call succeeded).
 * @PREALLOC_STEP_TARGET: examining the descriptor and probing the storage.
 * @PREALLOC_STEP_REQUEST: the request does not suit the target: a block
 *	device without %PREALLOC_ZERO_DATA or with a misaligned or out-of-device
 *	range (-EINVAL), an append-only or immutable file (-EPERM).
 * @PREALLOC_STEP_CLAIM: claiming a block device with O_EXCL: -EBUSY when it
 *	is mounted or held open exclusively.
 * @PREALLOC_STEP_SIGNATURES: looking for signatures on a block device:
 *	-EEXIST when one was found and %PREALLOC_FORCE was not set.
 * @PREALLOC_STEP_CLASSIFY: reading the extent map of the range.
 * @PREALLOC_STEP_SPACE_CHECK: the free-space check, done before anything is
 *	written: -ENOSPC here means nothing was changed.
 * @PREALLOC_STEP_RESERVE: reserving the range with fallocate().
 * @PREALLOC_STEP_ZERO: zeroing with the method in
 *	&prealloc_report.failed_method.
 * @PREALLOC_STEP_SYNC: the final fdatasync().
 *
 * Steps are listed in the order a call runs them; a step a target does not
 * need is skipped.  New steps get new values at the end.
 */
enum prealloc_step {
	PREALLOC_STEP_NONE = 0,
	PREALLOC_STEP_TARGET,
	PREALLOC_STEP_REQUEST,
	PREALLOC_STEP_CLAIM,
	PREALLOC_STEP_SIGNATURES,
	PREALLOC_STEP_CLASSIFY,
	PREALLOC_STEP_SPACE_CHECK,
	PREALLOC_STEP_RESERVE,
	PREALLOC_STEP_ZERO,
	PREALLOC_STEP_SYNC,
};

/**
 * enum prealloc_background - pacing that applied (prealloc_report.background)
 * @PREALLOC_BG_PACED: requests were held back by the pacer (the
 *	&prealloc_options.max_rate cap or the adaptive rate).
 * @PREALLOC_BG_IDLE_PRIO: io_uring writes were sent with IOPRIO_CLASS_IDLE to
 *	a scheduler that honours it.
 * @PREALLOC_BG_ADAPTED: the adaptive rate was lowered at least once because
 *	the device was busy with other I/O.
 *
 * Since: 0.2
 */
enum prealloc_background {
	PREALLOC_BG_PACED     = 1u << 0,
	PREALLOC_BG_IDLE_PRIO = 1u << 1,
	PREALLOC_BG_ADAPTED   = 1u << 2,
};

/* Size of &prealloc_report.bytes_by_method: fixed forever. */
#define PREALLOC_METHOD_SLOTS 16

/**
 * typedef prealloc_progress_fn - progress callback
 * @done: bytes of the range handled so far
 * @total: bytes the call will handle in all
 * @data: the caller's pointer from &struct prealloc_options
 *
 * Called from the calling thread between chunks of work.  Return 0 to go on,
 * anything else to cancel: the call then stops, undoes its work as any failed
 * call does (see prealloc_file()) and returns -ECANCELED.
 */
typedef int (*prealloc_progress_fn)(uint64_t done, uint64_t total, void *data);

/**
 * struct prealloc_ctx - library state: caches, sysfs root, log hook
 *
 * Opaque.  Holds what the library learns between calls and takes from the
 * environment (libprealloc(7)).  Calls given no context use a process-wide
 * default one.  A context may be used by several threads at once.
 */
struct prealloc_ctx;

/**
 * struct prealloc_options - options for prealloc_file_ex()
 * @size: sizeof(struct prealloc_options) as the caller knows it.  Fields
 *	beyond @size are taken as zero; a larger struct is accepted only if the
 *	bytes the library does not know are zero (-E2BIG otherwise).  Sizes
 *	above 4096 are refused with -E2BIG.
 * @flags: &enum prealloc_flags
 * @method: &enum prealloc_method to force, or %PREALLOC_METHOD_AUTO.  A forced
 *	method is used alone: if the storage refuses it the call fails with
 *	-EOPNOTSUPP instead of falling back.
 * @queue_depth: io_uring writes in flight; 0 for the default.
 * @request_bytes: bytes per io_uring write (rounded down to whole pages and
 *	the direct-I/O alignment, at least one page); 0 for the default.
 * @progress: optional &prealloc_progress_fn.
 * @progress_data: passed to @progress.
 * @max_rate: hard cap on the zeroing rate in bytes per second, over any
 *	interval longer than one request; 0 for none.  Applies with or without
 *	%PREALLOC_BACKGROUND, to every method (bytes zeroed by the device count).
 * @ctx: &struct prealloc_ctx whose caches the call uses, or NULL for the
 *	default context.  It must stay referenced for the call's duration.
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
 * @size: set by the caller to sizeof(struct prealloc_report); the library
 *	fills at most that many bytes.  At least 8 (@size, @written, @cow);
 *	sizes above 4096 are refused with -E2BIG.
 * @written: 1 if every block of the range is now allocated and written.
 * @cow: 1 if the file is copy-on-write, or the range holds shared
 *	(reflinked) extents: overwrites will not go in place, so written state
 *	is not achievable (space was reserved instead; shared data is kept).
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
 * @failed_step: the &enum prealloc_step that failed, %PREALLOC_STEP_NONE
 *	on success.  Arguments rejected before any work (-EINVAL, -E2BIG,
 *	-EFBIG, -EBADF from the checks of the call itself) leave the whole
 *	report untouched.
 * @failed_method: the &enum prealloc_method that was running when the call
 *	failed (%PREALLOC_METHOD_AUTO when none was); with
 *	%PREALLOC_STEP_RESERVE, the method that needed the reservation.
 * @bytes_unknown: bytes of @bytes_kept whose extent state cannot be told
 *	without FIEMAP (FUSE, some network filesystems); @written is then 0.
 *	Since: 0.2
 * @background: &enum prealloc_background bits: the pacing that applied.
 * @__pad2: zero.
 * @bytes_per_sec: achieved rate: @bytes_zeroed per second of @elapsed_ns.
 *
 * New fields are appended at the end; a caller compiled against an older
 * header passes a smaller @size and never sees them.
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
	uint32_t failed_step;
	uint32_t failed_method;
	uint64_t bytes_unknown;
	uint32_t background;
	uint32_t __pad2;
	uint64_t bytes_per_sec;
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
 *	be unwritten extents: not counted in @written_bytes (tmpfs and ramfs
 *	are exact: data is written, other pages count as holes).  Since: 0.2
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
 * %PREALLOC_NO_SYNC).
 *
 * On failure the call undoes exactly what it did, and nothing else:
 *  - blocks it allocated are released: every whole block of the range that
 *    was a hole (or unallocated beyond EOF) when the call started, and a
 *    block the range shares with bytes outside it when those bytes are
 *    beyond EOF.  A hole block the range shares with bytes inside EOF
 *    outside the range (at most one at each end) may stay allocated,
 *    reading zero as before: another writer may be using the rest of it.
 *  - the size is restored if the call changed it and it is still one the
 *    call set (the file is never made longer by the undo);
 *  - space the file had reserved beyond EOF (%PREALLOC_KEEP_SIZE) is kept.
 *    ext4 cannot punch beyond EOF, so there the undo truncates to the size
 *    the file has (a truncate that keeps the size) and reserves the file's
 *    own reservation again (a write extending the file from another thread
 *    between that truncate's size check and the truncate would be cut);
 *  - btrfs writes zeros into the rest of the old last block when a call
 *    reaches past EOF, allocating it if it was a hole: it is released again
 *    when its bytes inside EOF still read zero;
 *  - data is untouched, except with %PREALLOC_ZERO_DATA: then any part of
 *    the range's data the call had zeroed before the failure reads zero
 *    (not necessarily a prefix: writes run in parallel), and
 *    &prealloc_report.bytes_zeroed counts every byte the call wrote,
 *    writes still in flight when it failed included.  Bytes that held no
 *    data read zero either way.
 * A failure decided before anything is changed changes nothing at all: bad
 * arguments, a forced method known not to apply (zeroout on a file, uring
 * where O_DIRECT is refused, anything but buffered on ext4 inline data),
 * append-only or immutable files, -ENOSPC from the free-space check.
 *
 * Keep-size space beyond EOF of an ext4 inline-data file is not reserved
 * (the report says so).
 *
 * On a block device the range must be logical-block aligned and inside the
 * device, and %PREALLOC_ZERO_DATA is required because every byte is zeroed.
 * The call claims the device with O_EXCL for its duration, so a device that is
 * mounted or held with O_EXCL by anyone, the caller included, is refused with
 * -EBUSY.  A library built without libblkid cannot look for signatures and
 * requires %PREALLOC_FORCE for every device.  A failed or cancelled call on a
 * block device leaves the part already zeroed zeroed: there is nothing to
 * restore.
 *
 * @fd's file offset and status flags are not changed.  Where the file
 * cannot be reopened (no /proc, a mode that forbids it), an O_APPEND @fd
 * needs Linux 6.9 (-EOPNOTSUPP before) and a write-only O_DIRECT @fd gets
 * -EINVAL for a range with unaligned edges.
 *
 * Concurrency: the call works on its own duplicate of @fd, so closing or
 * dup2()ing over @fd meanwhile does not redirect it.  Do not write into the
 * range or truncate the file during the call (a truncate may raise SIGBUS).
 *
 * Returns: 0, or a negative errno: -EBADF (fd not open for writing), -EINVAL
 * (bad arguments, unknown flags, misaligned block-device range, block device
 * without %PREALLOC_ZERO_DATA), -EFBIG (@offset + @len too large), -ENOSPC
 * (does not fit; checked before anything is written), -EBUSY (block device in
 * use), -EEXIST (block device carries a signature and %PREALLOC_FORCE is not
 * set), -ECANCELED (progress callback asked to stop), or what the kernel
 * returned (-EIO, -EDQUOT, -EPERM, -EISDIR, -ESPIPE, -ENODEV, ...).
 *
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
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_file_ex(int fd, uint64_t offset, uint64_t len,
				  const struct prealloc_options *opts,
				  struct prealloc_report *report);

/**
 * struct prealloc_async - handle of an asynchronous preallocation (opaque)
 *
 * Since: 0.2
 */
struct prealloc_async;

/**
 * prealloc_async_start() - start prealloc_file_ex() on a library thread
 * @fd: as for prealloc_file(); duplicated (F_DUPFD_CLOEXEC) before this
 *	returns, so the caller may close @fd at once.  The duplicate shares the
 *	open file description, whose offset and status flags the work does not
 *	change; it is closed by prealloc_async_free().
 * @offset: as for prealloc_file()
 * @len: as for prealloc_file()
 * @opts: &struct prealloc_options (copied), or NULL; %PREALLOC_BACKGROUND is
 *	always added.  A @opts->progress callback is called from the library's
 *	thread.  @opts->ctx is referenced until prealloc_async_free().
 * @ret_handle: where to store the handle, to be released with
 *	prealloc_async_free()
 *
 * The work runs on a library thread with every signal blocked.  Arguments
 * are checked before it starts; every other error (such as -ENOSPC) is the
 * result prealloc_async_poll() returns.  prealloc_file_ex()'s contract holds
 * until the work is done.  A child process must not use handles inherited
 * from its parent (not even prealloc_async_free()).
 *
 * Returns: 0, or a negative errno: -EINVAL (NULL @ret_handle, bad arguments
 * as for prealloc_file_ex()), -EBADF (@fd not open for writing), -E2BIG,
 * -ENOMEM, -EAGAIN (no thread could be created), -EMFILE.
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_async_start(int fd, uint64_t offset, uint64_t len,
				      const struct prealloc_options *opts,
				      struct prealloc_async **ret_handle);

/**
 * prealloc_async_fd() - descriptor that becomes readable when the work is done
 * @h: handle from prealloc_async_start()
 *
 * An eventfd (non-blocking, close-on-exec) owned by the handle, for poll(),
 * epoll or an event loop: it turns readable (POLLIN) once the result is
 * available and stays so.  Do not read from it or close it.
 *
 * Returns: the descriptor, or -EINVAL for a NULL @h.
 *
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
 *
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
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_async_wait(const struct prealloc_async *h);

/**
 * prealloc_async_cancel() - ask the work to stop
 * @h: handle from prealloc_async_start()
 *
 * Does not block.  The work stops after the request in flight, undoes what
 * it did (as prealloc_file_ex() does when its progress callback cancels)
 * and completes with -ECANCELED; work that had already finished keeps its
 * result.  Cancelling twice is harmless.
 *
 * Returns: 0, or -EINVAL for a NULL @h.
 *
 * Since: 0.2
 */
int prealloc_async_cancel(struct prealloc_async *h);

/**
 * prealloc_async_report() - the report of finished work
 * @h: handle from prealloc_async_start()
 * @report: &struct prealloc_report to fill (@report->size set by the caller)
 *
 * Returns: 0, -EINPROGRESS while the work runs (@report untouched), or
 * -EINVAL (NULL argument, @report->size too small).
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_async_report(const struct prealloc_async *h,
				       struct prealloc_report *report);

/**
 * prealloc_async_free() - release a handle
 * @h: handle from prealloc_async_start(), or NULL
 *
 * If the work still runs it is cancelled and waited for (undo included), so
 * the file is in a final state when this returns.  Closes the handle's
 * descriptors.  @h must not be used by other threads meanwhile or afterwards,
 * and neither this nor prealloc_async_wait() may be called from the handle's
 * own progress callback (they would wait for themselves).
 *
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
 * SEEK_DATA/SEEK_HOLE).
 *
 * Returns: 0, or a negative errno (-EINVAL, -EBADF, -EFBIG, or the kernel's).
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_verify(int fd, uint64_t offset, uint64_t len,
				 struct prealloc_census *census);

/**
 * prealloc_method_name() - short name of a method
 * @method: &enum prealloc_method
 *
 * Returns: "auto", "write-zeroes", "zeroout", "uring", "buffered" or
 * "allocate"; NULL for an unknown value.
 *
 * Since: 0.2
 */
const char *prealloc_method_name(enum prealloc_method method);

/**
 * prealloc_method_from_name() - parse a method name
 * @name: one of the names prealloc_method_name() returns
 *
 * Returns: the &enum prealloc_method, or -EINVAL.
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_method_from_name(const char *name);

/**
 * prealloc_step_name() - short name of a step, for messages
 * @step: &enum prealloc_step
 *
 * Returns: "none", "target", "request", "claim", "signatures", "classify",
 * "space-check", "reserve", "zero" or "sync"; NULL for an unknown value.
 *
 * Since: 0.2
 */
const char *prealloc_step_name(enum prealloc_step step);

/**
 * prealloc_version() - version of the library in use at run time
 *
 * Returns: "MAJOR.MINOR.MICRO" of the library loaded, which may be newer
 * than the header's %PREALLOC_VERSION_MAJOR and %PREALLOC_VERSION_MINOR.
 *
 * Since: 0.2
 */
const char *prealloc_version(void);

/**
 * prealloc_ctx_new() - create a context
 * @sysfs_root: directory every sysfs reader of the context uses instead of
 *	/sys (a captured tree), or NULL for $PREALLOC_SYSFS_ROOT (read with
 *	secure_getenv() each time) else /sys.  Device nodes are opened for
 *	transport probes only when the root in use is /sys.
 * @flags: 0; no flags are defined yet.
 * @ret_ctx: where to store the new context, with one reference.
 *
 * Pass it through &prealloc_options.ctx and to prealloc_probe_new().
 * Nothing is opened or probed until a call needs it.
 *
 * Returns: 0, or -EINVAL (@ret_ctx NULL, @sysfs_root empty, unknown flags),
 * -ENOMEM.
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_ctx_new(const char *sysfs_root, unsigned int flags,
				  struct prealloc_ctx **ret_ctx);

/**
 * prealloc_ctx_ref() - take a reference on a context
 * @ctx: &struct prealloc_ctx, or NULL
 *
 * Returns: @ctx.
 *
 * Since: 0.2
 */
struct prealloc_ctx *prealloc_ctx_ref(struct prealloc_ctx *ctx);

/**
 * prealloc_ctx_unref() - drop a reference on a context
 * @ctx: &struct prealloc_ctx, or NULL
 *
 * When the last reference goes, everything the context holds is released,
 * descriptors included.  A probe holds a reference on its context until prealloc_probe_free().
 * The caller must not drop its last reference while a call using @ctx runs.
 *
 * Returns: @ctx while references remain, NULL once it is freed.
 *
 * Since: 0.2
 */
struct prealloc_ctx *prealloc_ctx_unref(struct prealloc_ctx *ctx);

/**
 * prealloc_ctx_flush() - forget what a context has learnt
 * @ctx: &struct prealloc_ctx, or NULL for the default context
 *
 * Drops the cached device capabilities and the memory of write-zeroes
 * refusals, and closes the mount-table watch descriptor; the next call
 * probes afresh.  Use it after changing the storage under the process in a
 * way the mount table does not show (e.g. a device's queue limits).  Probes
 * already created keep what they saw.  A watch descriptor the process closed
 * behind the library's back (closefrom()) is never polled or closed by it.
 *
 * Returns: 0.
 *
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
 * Called in the thread doing the work (the library's own for
 * prealloc_async_start()).  It must not call prealloc_ctx_set_log_fn() on
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
 * The library never prints.  With a hook, calls using @ctx report methods
 * refused and why, a failed free-space check, background pacing's
 * adaptations (libprealloc(7)).
 * Messages less urgent than prealloc_ctx_set_log_priority() allows
 * (LOG_INFO by default) are dropped.  Thread-safe: when it returns, no call
 * of the previous hook runs or will start, so its @data may be freed.
 *
 * Returns: 0, or -EINVAL (@ctx NULL).
 *
 * Since: 0.3
 */
int prealloc_ctx_set_log_fn(struct prealloc_ctx *ctx, prealloc_log_fn fn, void *data);

/**
 * prealloc_ctx_set_log_priority() - the least urgent message the hook receives
 * @ctx: &struct prealloc_ctx (not NULL)
 * @priority: a syslog(3) priority, LOG_EMERG (0) to LOG_DEBUG (7)
 *
 * Returns: 0, or -EINVAL (@ctx NULL, @priority out of range).
 *
 * Since: 0.3
 */
int prealloc_ctx_set_log_priority(struct prealloc_ctx *ctx, int priority);

/**
 * enum prealloc_answer - a yes/no question the storage may not answer
 * @PREALLOC_NO: no.
 * @PREALLOC_YES: yes.
 * @PREALLOC_UNKNOWN: the facts needed could not be read (no sysfs, an
 *	unreadable attribute); the library will try and fall back.  The fact
 *	holding such an answer is %PREALLOC_FACT_NULL.
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
 * @PREALLOC_FACT_FLAGS: a number that is a bit field or identifier, best
 *	shown in hexadecimal (NVMe DLFEAT, ONCS, ...).
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
 * and of each device of the chain under it, and the plan for a request.
 *
 * Facts are named with dotted paths ("queue.write_zeroes_unmap_max_bytes",
 * "nvme.dlfeat"); facts sharing a prefix are adjacent; libprealloc(7)
 * lists them.  New facts may appear in later versions; none is removed or
 * changes type.
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
 * what it would do, and writes nothing.  Facts that cannot be learnt (no
 * privilege for a device command, no sysfs, an old kernel) are
 * unknown, with the reason where one is known; they never make the call
 * fail.  @fd's offset is not moved.
 *
 * Returns: 0, or a negative errno: -EINVAL (@ret_probe NULL, bad options as
 * for prealloc_file_ex()), -EFBIG (@offset + @len too large), -E2BIG (@opts
 * from a newer library with unknown non-zero fields), -EBADF, -EISDIR,
 * -ESPIPE, -ENODEV (not a regular file or block device), -ENOMEM.
 *
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
 *
 * Since: 0.2
 */
void prealloc_probe_free(struct prealloc_probe *probe);

/**
 * prealloc_probe_zeroing_offloaded() - will the device do the zeroing?
 * @probe: &struct prealloc_probe
 * @ret_decided_by: if not NULL, set to the fact that decided the answer
 *	(e.g. "nvme0n1: queue/write_zeroes_unmap_max_bytes = 0"); valid until
 *	the probe is freed.
 *
 * Yes when the request (or, without one, extending the file) would be
 * zeroed by the device through FALLOC_FL_WRITE_ZEROES; no when that is known
 * not to happen; unknown when a device fact needed could not be read.
 *
 * Returns: an &enum prealloc_answer, or -EINVAL (@probe NULL).
 *
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
 * forced method that cannot apply to this target), -EINVAL (@probe NULL).
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_plan(const struct prealloc_probe *probe, unsigned int index);

/**
 * prealloc_probe_plan_reason() - why the plan is what it is
 * @probe: &struct prealloc_probe
 *
 * Returns: one sentence, valid until the probe is freed; NULL when there is
 * no plan (no request, or @probe NULL).
 *
 * Since: 0.2
 */
const char *prealloc_probe_plan_reason(const struct prealloc_probe *probe);

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
 *
 * Since: 0.2
 */
PREALLOC_WUR int prealloc_probe_fact(const struct prealloc_probe *probe, unsigned int index,
				     const char **ret_name, uint64_t *ret_number,
				     const char **ret_string);

/**
 * prealloc_probe_lookup() - a fact of the target, by name
 * @probe: &struct prealloc_probe
 * @name: the fact's name, e.g. "atomic_write.unit_max"
 * @ret_number: as for prealloc_probe_fact()
 * @ret_string: as for prealloc_probe_fact()
 *
 * Returns: the &enum prealloc_fact_type, or -ENOENT (no such fact in this
 * probe), -EINVAL (@probe or @name NULL).
 *
 * Since: 0.2
 */
int prealloc_probe_lookup(const struct prealloc_probe *probe, const char *name,
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
 *
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
 *
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
 *
 * Since: 0.2
 */
int prealloc_probe_device_lookup(const struct prealloc_probe *probe,
				 unsigned int device, const char *name,
				 uint64_t *ret_number, const char **ret_string);

/**
 * enum prealloc_pool_flags - flags of &prealloc_pool_config
 * @PREALLOC_POOL_FULL_SPEED: the worker always zeroes at full speed, in one
 *	burst of large writes per segment, instead of quietly (still capped by
 *	&prealloc_pool_config.max_rate).  Commits that flush during a burst wait
 *	for it (tests/bench/RESULTS.md measures both ways).
 */
enum prealloc_pool_flags {
	PREALLOC_POOL_FULL_SPEED = 1u << 0,
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
 *
 * New fields are appended at the end.
 */
struct prealloc_pool_config {
	uint32_t size;
	uint32_t flags;
	uint64_t segment_size;
	uint32_t target;
	uint32_t mode;
	uint64_t free_floor;
	uint64_t max_rate;
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
 * @worker_ns: time the worker spent making and recycling segments (with
 *	pacing, much longer than the zeroing itself takes).
 * @prepared: segments the worker installed ahead under names from
 *	prealloc_pool_prepare() (taken or not yet).
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
};

struct prealloc_pool;

/**
 * prealloc_pool_open() - open a pool over a directory and start its worker
 * @dir: the pool's directory (must exist)
 * @cfg: &struct prealloc_pool_config
 * @ret_pool: where to store the new handle
 *
 * Removes leftovers of an earlier run, adopts the complete ready segments
 * already there, and starts the worker, which runs with every signal blocked.
 *
 * A pool keeps a number of segments (files of one fixed size, allocated,
 * written and durable) ready in one directory, so that a database switching
 * to a new WAL segment renames one into place instead of zeroing one while
 * commits wait.  A library thread (the worker) makes them in the background,
 * one at a time and in order: while a segment is ready anyway, with
 * %PREALLOC_BACKGROUND pacing and 256 KiB writes one at a time, so that a
 * commit's cache flush never waits behind more than that; at full speed when
 * none is ready; never faster than &prealloc_pool_config.max_rate.  Each is
 * made under a temporary name ".prealloc-tmp-NNNNNN": reserved with one
 * fallocate() for the whole segment, zero-written, fdatasync()ed, renamed to
 * ".prealloc-ready-NNNNNN" and the directory fsync()ed.  After a crash the
 * directory therefore holds only complete segments under ".prealloc-ready-*"
 * names; prealloc_pool_open() removes every ".prealloc-tmp-*" leftover and
 * every ready segment that is not of the configured size or not fully
 * written.  Files with other names are never touched.  (Named temporaries
 * rather than O_TMPFILE: every filesystem has them, and a crash leaves
 * nothing that start-up cannot find.)
 *
 * One pool object per directory at a time: the directory is flock()ed and a
 * second open, in this process or another, fails with -EBUSY.  The
 * filesystem must support renameat2(RENAME_NOREPLACE) (ext4, xfs, btrfs,
 * tmpfs and most local filesystems do).
 *
 * Free space: the worker never grows the pool while the filesystem would be
 * left with less than &prealloc_pool_config.free_floor bytes available after
 * the segment it would add, and while less than the floor is available it
 * removes ready segments, oldest first, to give the space back.  A miss in
 * prealloc_pool_take() is the database asking, so it ignores the floor.  An
 * ENOSPC (or EDQUOT) met by the worker lowers its target to the segments it
 * has and is counted in &prealloc_pool_stats.enospc; the target grows back
 * when space returns.  prealloc_pool_take() hands out a ready segment whenever
 * one exists.
 *
 * Fork: the worker thread does not exist in a child process.  In the child,
 * every pool function fails with -ECHILD and prealloc_pool_close() only frees
 * the child's copy of the handle: the parent's pool, its worker, its lock on
 * the directory and its segments are untouched.  The pool's descriptors are
 * close-on-exec.
 *
 * Returns: 0, or a negative errno: -EINVAL (bad arguments or configuration,
 * unknown flags), -E2BIG (@cfg from a newer library with unknown non-zero
 * fields), -ENOTDIR, -EBUSY (the directory is already a pool's), -ENOMEM,
 * -EAGAIN (no thread), or what the kernel returned.
 *
 * Since: 0.2
 */
int prealloc_pool_open(const char *dir, const struct prealloc_pool_config *cfg,
		       struct prealloc_pool **ret_pool);

/**
 * prealloc_pool_take() - hand out a segment under the caller's final name
 * @pool: the pool
 * @dirfd: directory for @name (or %AT_FDCWD); it must be on the pool's
 *	filesystem, and may be the pool's own directory
 * @name: the segment's new name, relative to @dirfd; must not exist, and its
 *	last component must not start with ".prealloc-" (the pool's names)
 * @flags: 0 (no flags are defined yet)
 *
 * Moves the oldest ready segment to @name with renameat2(RENAME_NOREPLACE)
 * and fsync()s the directories involved, so the segment appears under @name
 * complete or not at all, also after a crash.  If no segment is ready, one is
 * made in the calling thread at full speed (a miss; see
 * &prealloc_pool_stats.misses).  The segment is
 * &prealloc_pool_config.segment_size bytes, allocated, written and durable;
 * freshly made segments read zero, recycled ones hold what
 * prealloc_pool_recycle() left in them.  Safe to call from several threads at
 * once: each call gets its own segment.  A @name given to
 * prealloc_pool_prepare() before is served by the worker's install: see
 * there.
 *
 * Returns: a new descriptor open O_RDWR | O_CLOEXEC on the segment (set
 * O_DIRECT with fcntl(F_SETFL) if needed), or a negative errno: -EINVAL,
 * -EEXIST (@name exists; the segment stays in the pool), -EXDEV (@dirfd on
 * another filesystem; likewise), -ENOSPC (none ready and none could be made),
 * -ESTALE (@name was prepared, installed, and another file put there since;
 * once, the name is then forgotten),
 * -ECHILD, or what the kernel returned.  If the rename succeeded but a
 * directory fsync() failed (-EIO), the segment is under @name but the rename
 * may not be durable (also when the worker's install of a prepared @name
 * failed that way).
 *
 * Since: 0.2
 */
int prealloc_pool_take(struct prealloc_pool *pool, int dirfd, const char *name,
		       unsigned int flags);

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
 * Takes the segment switch off the commit path.  prealloc_pool_take() moves a
 * segment under its name with a rename and a directory fsync() (a journal
 * commit, milliseconds), in the calling thread.  Called early (say when the
 * current WAL segment is three quarters full), prealloc_pool_prepare() only
 * queues @name and returns; the worker, once done with the segment it may be
 * making at that moment and before any other work, moves the
 * oldest ready segment under @name exactly as prealloc_pool_take() would
 * (renameat2(RENAME_NOREPLACE), directories fsync()ed), or first makes one
 * when none is ready (ignoring the free-space floor, like a miss; not paced
 * as background work, but never faster than &prealloc_pool_config.max_rate).
 * Later, prealloc_pool_take() of the same @name (relative to the same
 * directory, through any descriptor of it; any directory for an absolute
 * @name) only opens the segment: no rename, no fsync, counted as a hit.  If
 * the worker is installing it at that moment, take waits for it; if the
 * request is still queued, take withdraws it and takes as usual in the
 * calling thread; if the install failed, take takes as usual (and so fails
 * with -EEXIST if @name appeared meanwhile), except that an install whose
 * rename succeeded but whose directory fsync() failed is reported by take
 * as that error.  Failing to make the segment or to sync a directory, and
 * running out of space, count like the worker's other failures
 * (&prealloc_pool_stats.last_error or &prealloc_pool_stats.enospc, and the
 * worker's back-off that follows them); a rename refused because of @name or
 * its directory (@name appeared, the directory was removed) puts the segment
 * back in the pool and leaves last_error and the refills alone.
 * PostgreSQL installs its future WAL segments under their final names the
 * same way.
 *
 * An installed segment belongs to the caller: a complete segment
 * (&prealloc_pool_config.segment_size bytes, written, durable, reading zero
 * or what prealloc_pool_recycle() left) under @name, whose rename is durable.
 * prealloc_pool_close() drops the names still queued but leaves installed
 * ones in place, and after a crash an installed name is there too: the
 * caller's start-up must expect a prepared name to exist and hold such a
 * segment that no record was written to.  If the caller removes or renames
 * an installed name instead of taking it, take of that name later takes as
 * usual; if another file is put under it, take fails with -ESTALE once and
 * leaves that file alone, and the pool forgets the name (a later take of it
 * fails with -EEXIST: the file exists).  The pool remembers a prepared name
 * until it is taken (whatever the outcome) or the pool closes, and holds an
 * installed segment open (one descriptor, close-on-exec) until then; a name
 * whose install failed, or an installed name removed since, may be prepared
 * again.
 *
 * Returns: 0 once @name is queued, or a negative errno: -EINVAL (@flags,
 * @name empty or one of the pool's names), -EEXIST (@name exists, or is
 * already prepared and still queued or being installed), -EXDEV (@name's
 * directory is on another filesystem), -ENOMEM, -ECHILD, or what the kernel
 * returned.  The install's own outcome is reported by the
 * prealloc_pool_take() of @name.
 *
 * Since: 0.2
 */
int prealloc_pool_prepare(struct prealloc_pool *pool, int dirfd, const char *name,
			  unsigned int flags);

/**
 * prealloc_pool_recycle() - give a used segment back to the pool
 * @pool: the pool
 * @dirfd: directory of @name (or %AT_FDCWD), on the pool's filesystem
 * @name: the segment; the caller must have closed or stopped using it
 * @flags: 0, or %PREALLOC_ZERO_DATA to have the worker zero every byte
 *
 * Moves @name into the pool under a temporary name (renameat2 with
 * RENAME_NOREPLACE, directories fsync()ed; the name is gone when the call
 * returns).  The worker then cuts or grows it to the segment size, makes it
 * written and durable (zeroing every byte first with %PREALLOC_ZERO_DATA, at
 * the background pace) and adds it to the ready segments, after those already
 * there.  Recycled segments are kept even beyond the target (the database
 * decides what it recycles); the free-space floor still applies.  Without
 * %PREALLOC_ZERO_DATA the old bytes stay, as in PostgreSQL's recycled WAL
 * segments: the reader must tell old records from new.  A recycled segment
 * not yet ready when the pool closes is removed by the next
 * prealloc_pool_open().
 *
 * Returns: 0, or a negative errno: -EINVAL (also: @name not a regular file),
 * -ENOENT, -EXDEV (@dirfd on another filesystem), -ENOMEM, -ECHILD, or what
 * the kernel returned.
 *
 * Since: 0.2
 */
int prealloc_pool_recycle(struct prealloc_pool *pool, int dirfd, const char *name,
			  unsigned int flags);

/**
 * prealloc_pool_wait_ready() - wait until some segments are ready
 * @pool: the pool
 * @count: ready segments to wait for, at most the configured target
 * @timeout_ms: give up after this many milliseconds; -1 waits as long as the
 *	worker makes progress
 *
 * For start-up ("open the database once the pool is warm") and tests.
 * Returns at once when @count segments are ready.  Otherwise the worker is
 * asked for a fresh round (free space looked at again, a retry after an
 * ENOSPC) and the call returns when @count are ready or that round ends
 * short of them.
 *
 * Returns: 0 once @count segments are ready, or a negative errno: -EINVAL
 * (@count above the target), -ETIMEDOUT, -ENOSPC (the worker stopped short for
 * lack of space: floor or ENOSPC), the worker's last error if it stopped short
 * for another reason, -ECHILD.
 *
 * Since: 0.2
 */
int prealloc_pool_wait_ready(struct prealloc_pool *pool, uint32_t count, int timeout_ms);

/**
 * prealloc_pool_get_stats() - read a pool's counters
 * @pool: the pool
 * @stats: &struct prealloc_pool_stats, @stats->size set by the caller
 *
 * Returns: 0, or -EINVAL (NULL argument, @stats->size below 16), -ECHILD.
 *
 * Since: 0.2
 */
int prealloc_pool_get_stats(struct prealloc_pool *pool, struct prealloc_pool_stats *stats);

/**
 * prealloc_pool_close() - stop the worker and free the handle
 * @pool: the pool, or NULL
 *
 * A segment the worker is making is abandoned (its temporary file removed);
 * ready segments stay in the directory for the next prealloc_pool_open().
 * Names prealloc_pool_prepare() queued and the worker did not install yet are
 * dropped; installed ones stay, as complete segments under their names.
 * No other call on @pool may be running or follow.
 *
 * Since: 0.2
 */
void prealloc_pool_close(struct prealloc_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* LIBPREALLOC_H */
