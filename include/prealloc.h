/* SPDX-License-Identifier: MIT */
/*
 * libprealloc - preallocate file space that is allocated *and written*.
 *
 * fallocate(2) leaves unwritten extents, and the first durable write into each
 * one pays a metadata transaction.  prealloc_file() makes a range of a regular
 * file (or a block device) read as zeros with every block allocated and in the
 * written state, using the cheapest method the storage offers, without
 * touching bytes that already hold data and without ever exposing stale data.
 *
 * Conventions: every function returns 0 (or a non-negative value) on success
 * and a negative errno value on failure; nothing is printed; output parameters
 * are left untouched on failure unless stated otherwise.  All functions are
 * thread-safe.  Callers must not write into a range while it is being
 * preallocated (the same contract as any zeroing call).
 */
#ifndef LIBPREALLOC_H
#define LIBPREALLOC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include <prealloc-version.h>

/**
 * enum prealloc_flags - behaviour flags for prealloc_file()
 * @PREALLOC_KEEP_SIZE: do not change the file size.  Written blocks cannot
 *	exist beyond end of file, so the part of the range beyond EOF is only
 *	reserved (unwritten) and the report says the range is not written.
 * @PREALLOC_ZERO_DATA: zero the whole range, including bytes that hold data
 *	(recycling a WAL segment).  Required for block devices.
 * @PREALLOC_NO_SYNC: skip the final fdatasync(); the result is not durable
 *	until the caller syncs.
 * @PREALLOC_FORCE: block devices only: zero a device that carries a
 *	filesystem, RAID or partition-table signature.  A mounted or otherwise
 *	exclusively held device is refused even with this flag.
 * @PREALLOC_BACKGROUND: run beside live traffic: pace the work so that
 *	concurrent foreground I/O on the same device hardly notices it (see
 *	&prealloc_options.max_rate for a hard cap).  Writes are 1 MiB with 2 in
 *	flight (unless &prealloc_options says otherwise), offloaded zeroing goes
 *	in 16 MiB calls, io_uring writes carry IOPRIO_CLASS_IDLE where the
 *	device's scheduler honours it (mq-deadline, bfq), and the rate adapts
 *	every 50 ms: while the device serves other I/O (its sysfs counters show
 *	reads, flushes or writes beyond the library's; where it has none, the
 *	library's own requests taking 4 times longer than on the quiet device)
 *	the rate is halved, down to a fifth of the best throughput seen so the
 *	work still ends, and requests shrink to 256 KiB, one at a time; while it
 *	does not, the rate climbs back, so an idle device is used at nearly full
 *	speed.  &prealloc_report.background says what applied.
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
 * @PREALLOC_METHOD_WRITE_ZEROES: fallocate(FALLOC_FL_WRITE_ZEROES); the device
 *	zeroes by unmapping (Linux 6.17+, ext4 and block devices).
 * @PREALLOC_METHOD_ZEROOUT: ioctl(BLKZEROOUT) on a block device.
 * @PREALLOC_METHOD_URING: large O_DIRECT zero writes through io_uring.
 * @PREALLOC_METHOD_BUFFERED: ordinary pwrite() of zeros (also used for the
 *	unaligned edges of the other write methods).
 * @PREALLOC_METHOD_ALLOCATE: fallocate() reservation only; the blocks may stay
 *	unwritten (copy-on-write files, keep-size beyond EOF) or are written by
 *	definition (tmpfs).
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
 * enum prealloc_background - pacing mechanisms that applied, in
 *	&prealloc_report.background
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

/* Size of &prealloc_report.bytes_by_method: fixed forever, whatever methods
 * are added, so the fields after it never move. */
#define PREALLOC_METHOD_SLOTS 16

/**
 * typedef prealloc_progress_fn - progress callback
 * @done: bytes of the range handled so far
 * @total: bytes the call will handle in all
 * @data: the caller's pointer from &struct prealloc_options
 *
 * Called from the calling thread between chunks of work.  Return 0 to go on,
 * anything else to cancel: the call then stops, undoes what it can (see
 * prealloc_file_ex()) and returns -ECANCELED.
 */
typedef int (*prealloc_progress_fn)(uint64_t done, uint64_t total, void *data);

/**
 * struct prealloc_options - options for prealloc_file_ex()
 * @size: sizeof(struct prealloc_options) as the caller knows it.  Fields
 *	beyond @size are taken as zero; a larger struct is accepted only if the
 *	bytes the library does not know are zero (-E2BIG otherwise).
 * @flags: &enum prealloc_flags
 * @method: &enum prealloc_method to force, or %PREALLOC_METHOD_AUTO.  A forced
 *	method is used alone: if the storage refuses it the call fails with
 *	-EOPNOTSUPP instead of falling back.
 * @queue_depth: io_uring writes in flight; 0 for the default.
 * @request_bytes: bytes per io_uring write (a multiple of the direct-I/O
 *	alignment is used); 0 for the default.
 * @progress: optional &prealloc_progress_fn.
 * @progress_data: passed to @progress.
 * @max_rate: hard cap on the zeroing rate in bytes per second; 0 for none.
 *	Applies with or without %PREALLOC_BACKGROUND, to every method (bytes
 *	zeroed by the device count like bytes written).  No credit is saved up
 *	while idle, so the cap holds over any interval longer than one request.
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
};

/**
 * struct prealloc_report - what prealloc_file_ex() did
 * @size: set by the caller to sizeof(struct prealloc_report); the library
 *	fills at most that many bytes.  At least 8 (@size, @written, @cow).
 * @written: 1 if every block of the range is now allocated and written.
 * @cow: 1 if the file is copy-on-write, or the range holds shared
 *	(reflinked) extents: overwrites will not go in place, so written state
 *	is not achievable (space was reserved instead; shared data is kept).
 * @__pad: zero.
 * @method: the &enum prealloc_method that covered the most bytes
 *	(%PREALLOC_METHOD_AUTO if nothing needed doing).
 * @refused: methods tried and refused by the kernel or device before the call
 *	fell back to the next one, as a bit mask of (1 << &enum prealloc_method).
 * @bytes_zeroed: bytes made to read zero by any method.
 * @bytes_kept: bytes of existing data left untouched.
 * @bytes_reserved: bytes only reserved (allocated but not written).
 * @elapsed_ns: wall-clock time of the call.
 * @bytes_by_method: bytes of the range covered by each method, indexed by
 *	&enum prealloc_method (index 0 is unused); %PREALLOC_METHOD_SLOTS long
 *	whatever methods exist.
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
 */
struct prealloc_census {
	uint32_t size;
	uint32_t fiemap;
	uint64_t written_bytes;
	uint64_t unwritten_bytes;
	uint64_t hole_bytes;
	uint64_t shared_bytes;
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
 * %PREALLOC_NO_SYNC).  On failure the file is as it was: size restored, space
 * the call allocated released, data untouched.
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
 * The descriptor's file offset and status flags are not changed.
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
int prealloc_file(int fd, uint64_t offset, uint64_t len, unsigned int flags);

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
int prealloc_file_ex(int fd, uint64_t offset, uint64_t len,
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
 *	thread.
 * @ret_handle: where to store the handle, to be released with
 *	prealloc_async_free()
 *
 * The work runs on a thread the library creates, with every signal
 * blocked, so signals go to the caller's threads and never interrupt it.
 * Arguments are checked before the thread starts; everything else (such as
 * -ENOSPC) is the result that prealloc_async_poll() returns.  The same
 * contract as prealloc_file_ex() holds: in particular the caller must not
 * write into the range until the work is done.
 *
 * fork(): the thread does not exist in a child process; a child must not use
 * handles inherited from its parent (not even prealloc_async_free()).
 *
 * Returns: 0, or a negative errno: -EINVAL (NULL @ret_handle, bad arguments
 * as for prealloc_file_ex()), -EBADF (@fd not open for writing), -E2BIG,
 * -ENOMEM, -EAGAIN (no thread could be created), -EMFILE.
 *
 * Since: 0.2
 */
int prealloc_async_start(int fd, uint64_t offset, uint64_t len,
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
int prealloc_async_fd(const struct prealloc_async *h);

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
int prealloc_async_poll(const struct prealloc_async *h);

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
int prealloc_async_wait(const struct prealloc_async *h);

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
int prealloc_async_report(const struct prealloc_async *h, struct prealloc_report *report);

/**
 * prealloc_async_free() - release a handle
 * @h: handle from prealloc_async_start(), or NULL
 *
 * If the work still runs it is cancelled and waited for (undo included), so
 * the file is in a final state when this returns.  Closes the handle's
 * descriptors.  @h must not be used by other threads meanwhile or afterwards.
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
 * Flushes delayed allocation (FIEMAP_FLAG_SYNC) and counts written, unwritten,
 * hole and shared bytes in [@offset, @offset + @len), beyond EOF included.
 * Where FIEMAP is not supported it falls back to SEEK_DATA/SEEK_HOLE.
 *
 * Returns: 0, or a negative errno (-EINVAL, -EBADF, -EFBIG, or the kernel's).
 *
 * Since: 0.2
 */
int prealloc_verify(int fd, uint64_t offset, uint64_t len,
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
int prealloc_method_from_name(const char *name);

/**
 * prealloc_version() - version of the library in use at run time
 *
 * Returns: a string such as "0.1.0".
 *
 * Since: 0.2
 */
const char *prealloc_version(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBPREALLOC_H */
