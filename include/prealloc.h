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
 *	&prealloc_options.max_rate for a hard cap).
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
 *	bytes the library does not know are zero (-E2BIG otherwise).  Sizes
 *	above 4096 are refused with -E2BIG.
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
 * @bytes_zeroed: bytes made to read zero by any method.
 * @bytes_kept: bytes of existing data left untouched.
 * @bytes_reserved: bytes only reserved (allocated but not written).
 * @elapsed_ns: wall-clock time of the call.
 * @bytes_by_method: bytes of the range covered by each method, indexed by
 *	&enum prealloc_method (index 0 is unused); %PREALLOC_METHOD_SLOTS long
 *	whatever methods exist.
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
 * The descriptor's file offset and status flags are not changed.  The call
 * works on its own duplicate of @fd taken on entry, so closing or dup2()ing
 * over @fd meanwhile does not redirect it.  Writes go through descriptors
 * reopened via /proc/self/fd (checked to be the same file) where possible;
 * without /proc, or when the file's mode forbids reopening it, @fd itself
 * serves: an O_APPEND @fd needs Linux 6.9 (RWF_NOAPPEND; -EOPNOTSUPP
 * before), an O_DIRECT @fd writes whole pages direct and partial pages
 * through a shared mapping, which needs @fd open O_RDWR (a write-only
 * O_DIRECT @fd gets -EINVAL for a range with unaligned edges).  Do not
 * truncate the file during the call: a mapped page beyond the new end of
 * file would raise SIGBUS.
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
