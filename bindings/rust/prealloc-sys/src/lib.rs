//! Raw FFI declarations for libprealloc 0.6 (`<prealloc.h>` and
//! `<prealloc-pool.h>`), linked through `pkg-config libprealloc`.
//!
//! Everything here mirrors the C header one to one; the header's kernel-doc
//! is the reference for each item's contract.  The layout of every struct and
//! the value of every constant are checked against the installed header by
//! the crate's tests (with the `layout-test` feature: both sides generated
//! from the header's list of members by `bindings/header-api.py`).  Use the safe
//! `prealloc` crate unless you need the raw calls.
#![allow(non_camel_case_types)]
#![warn(missing_docs)]

use std::ffi::{c_char, c_int, c_uint, c_void};

/// `PREALLOC_KEEP_SIZE`: do not change the file size.
pub const PREALLOC_KEEP_SIZE: u32 = 1 << 0;
/// `PREALLOC_ZERO_DATA`: zero the whole range, data included.
pub const PREALLOC_ZERO_DATA: u32 = 1 << 1;
/// `PREALLOC_NO_SYNC`: skip the final `fdatasync()`.
pub const PREALLOC_NO_SYNC: u32 = 1 << 2;
/// `PREALLOC_FORCE`: zero a block device that carries a signature.
pub const PREALLOC_FORCE: u32 = 1 << 3;
/// `PREALLOC_BACKGROUND`: paced, idle-priority work beside live traffic.
pub const PREALLOC_BACKGROUND: u32 = 1 << 4;
/// `PREALLOC_CONCURRENT_WRITES`: others may write into the range meanwhile;
/// none of their bytes is lost (`-EOPNOTSUPP` where that cannot be ordered).
pub const PREALLOC_CONCURRENT_WRITES: u32 = 1 << 5;

/// `PREALLOC_METHOD_AUTO`: let the library choose.
pub const PREALLOC_METHOD_AUTO: u32 = 0;
/// `PREALLOC_METHOD_WRITE_ZEROES`: `fallocate(FALLOC_FL_WRITE_ZEROES)`.
pub const PREALLOC_METHOD_WRITE_ZEROES: u32 = 1;
/// `PREALLOC_METHOD_ZEROOUT`: `ioctl(BLKZEROOUT)`.
pub const PREALLOC_METHOD_ZEROOUT: u32 = 2;
/// `PREALLOC_METHOD_URING`: O_DIRECT zero writes through io_uring.
pub const PREALLOC_METHOD_URING: u32 = 3;
/// `PREALLOC_METHOD_BUFFERED`: `pwrite()` of zeros.
pub const PREALLOC_METHOD_BUFFERED: u32 = 4;
/// `PREALLOC_METHOD_ALLOCATE`: reservation only.
pub const PREALLOC_METHOD_ALLOCATE: u32 = 5;
/// `PREALLOC_METHOD_AIO`: O_DIRECT zero writes through Linux AIO.
pub const PREALLOC_METHOD_AIO: u32 = 6;
/// Length of `prealloc_report.bytes_by_method`, fixed forever.
pub const PREALLOC_METHOD_SLOTS: usize = 16;

/// `PREALLOC_PHASE_NONE`: nothing failed.
pub const PREALLOC_PHASE_NONE: u32 = 0;
/// `PREALLOC_PHASE_TARGET`: examining the descriptor and probing.
pub const PREALLOC_PHASE_TARGET: u32 = 1;
/// `PREALLOC_PHASE_REQUEST`: the request does not suit the target.
pub const PREALLOC_PHASE_REQUEST: u32 = 2;
/// `PREALLOC_PHASE_CLAIM`: claiming a block device with O_EXCL.
pub const PREALLOC_PHASE_CLAIM: u32 = 3;
/// `PREALLOC_PHASE_SIGNATURES`: looking for signatures on a block device.
pub const PREALLOC_PHASE_SIGNATURES: u32 = 4;
/// `PREALLOC_PHASE_CLASSIFY`: reading the extent map of the range.
pub const PREALLOC_PHASE_CLASSIFY: u32 = 5;
/// `PREALLOC_PHASE_SPACE_CHECK`: the free-space check.
pub const PREALLOC_PHASE_SPACE_CHECK: u32 = 6;
/// `PREALLOC_PHASE_RESERVE`: reserving the range with `fallocate()`.
pub const PREALLOC_PHASE_RESERVE: u32 = 7;
/// `PREALLOC_PHASE_ZERO`: zeroing.
pub const PREALLOC_PHASE_ZERO: u32 = 8;
/// `PREALLOC_PHASE_SYNC`: the final `fdatasync()`.
pub const PREALLOC_PHASE_SYNC: u32 = 9;

/// `PREALLOC_STEP_NONE`: the old name of [`PREALLOC_PHASE_NONE`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_NONE")]
pub const PREALLOC_STEP_NONE: u32 = PREALLOC_PHASE_NONE;
/// `PREALLOC_STEP_TARGET`: the old name of [`PREALLOC_PHASE_TARGET`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_TARGET")]
pub const PREALLOC_STEP_TARGET: u32 = PREALLOC_PHASE_TARGET;
/// `PREALLOC_STEP_REQUEST`: the old name of [`PREALLOC_PHASE_REQUEST`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_REQUEST")]
pub const PREALLOC_STEP_REQUEST: u32 = PREALLOC_PHASE_REQUEST;
/// `PREALLOC_STEP_CLAIM`: the old name of [`PREALLOC_PHASE_CLAIM`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_CLAIM")]
pub const PREALLOC_STEP_CLAIM: u32 = PREALLOC_PHASE_CLAIM;
/// `PREALLOC_STEP_SIGNATURES`: the old name of [`PREALLOC_PHASE_SIGNATURES`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_SIGNATURES")]
pub const PREALLOC_STEP_SIGNATURES: u32 = PREALLOC_PHASE_SIGNATURES;
/// `PREALLOC_STEP_CLASSIFY`: the old name of [`PREALLOC_PHASE_CLASSIFY`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_CLASSIFY")]
pub const PREALLOC_STEP_CLASSIFY: u32 = PREALLOC_PHASE_CLASSIFY;
/// `PREALLOC_STEP_SPACE_CHECK`: the old name of [`PREALLOC_PHASE_SPACE_CHECK`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_SPACE_CHECK")]
pub const PREALLOC_STEP_SPACE_CHECK: u32 = PREALLOC_PHASE_SPACE_CHECK;
/// `PREALLOC_STEP_RESERVE`: the old name of [`PREALLOC_PHASE_RESERVE`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_RESERVE")]
pub const PREALLOC_STEP_RESERVE: u32 = PREALLOC_PHASE_RESERVE;
/// `PREALLOC_STEP_ZERO`: the old name of [`PREALLOC_PHASE_ZERO`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_ZERO")]
pub const PREALLOC_STEP_ZERO: u32 = PREALLOC_PHASE_ZERO;
/// `PREALLOC_STEP_SYNC`: the old name of [`PREALLOC_PHASE_SYNC`].
#[deprecated(since = "0.5.0", note = "use PREALLOC_PHASE_SYNC")]
pub const PREALLOC_STEP_SYNC: u32 = PREALLOC_PHASE_SYNC;

/// `PREALLOC_ACTION_RESERVE`: `fallocate()` the step's bytes (a step of the plan).
pub const PREALLOC_ACTION_RESERVE: u32 = 1;
/// `PREALLOC_ACTION_ZERO`: make the step's bytes read zero.
pub const PREALLOC_ACTION_ZERO: u32 = 2;
/// `PREALLOC_ACTION_WRITE_EDGES`: `pwrite()` zeros around an aligned middle.
pub const PREALLOC_ACTION_WRITE_EDGES: u32 = 3;
/// `PREALLOC_ACTION_SYNC`: `fdatasync()` the target.
pub const PREALLOC_ACTION_SYNC: u32 = 4;

/// `PREALLOC_WZ_NOT_WEIGHED`: the planner never weighed the flag.
pub const PREALLOC_WZ_NOT_WEIGHED: u32 = 0;
/// `PREALLOC_WZ_USED`: the flag zeroed bytes of the range.
pub const PREALLOC_WZ_USED: u32 = 1;
/// `PREALLOC_WZ_WOULD_TRY`: to be tried, but it zeroed nothing of the range.
pub const PREALLOC_WZ_WOULD_TRY: u32 = 2;
/// `PREALLOC_WZ_NO_DEVICE_FACTS`: no block device facts under the target.
pub const PREALLOC_WZ_NO_DEVICE_FACTS: u32 = 3;
/// `PREALLOC_WZ_NO_KERNEL`: this kernel has no such mode (before 6.17).
pub const PREALLOC_WZ_NO_KERNEL: u32 = 4;
/// `PREALLOC_WZ_FS_REFUSED`: the filesystem refused it on this kernel.
pub const PREALLOC_WZ_FS_REFUSED: u32 = 5;
/// `PREALLOC_WZ_DEVICE_CANNOT`: the device cannot zero by unmapping.
pub const PREALLOC_WZ_DEVICE_CANNOT: u32 = 6;
/// `PREALLOC_WZ_FS_OR_DEVICE`: refused: the filesystem or the device.
pub const PREALLOC_WZ_FS_OR_DEVICE: u32 = 7;
/// `PREALLOC_WZ_INODE`: this file's inode cannot take it.
pub const PREALLOC_WZ_INODE: u32 = 8;
/// `PREALLOC_WZ_KEEP_SIZE`: keep-size beyond end of file.
pub const PREALLOC_WZ_KEEP_SIZE: u32 = 9;

/// `PREALLOC_BG_PACED`: requests were held back by the pacer.
pub const PREALLOC_BG_PACED: u32 = 1 << 0;
/// `PREALLOC_BG_IDLE_PRIO`: writes went with the idle I/O priority.
pub const PREALLOC_BG_IDLE_PRIO: u32 = 1 << 1;
/// `PREALLOC_BG_ADAPTED`: the adaptive rate was lowered at least once.
pub const PREALLOC_BG_ADAPTED: u32 = 1 << 2;

/// `PREALLOC_NO`.
pub const PREALLOC_NO: c_int = 0;
/// `PREALLOC_YES`.
pub const PREALLOC_YES: c_int = 1;
/// `PREALLOC_UNKNOWN`: the facts needed could not be read.
pub const PREALLOC_UNKNOWN: c_int = 2;

/// `PREALLOC_FACT_NULL`: unknown, no value.
pub const PREALLOC_FACT_NULL: c_int = 0;
/// `PREALLOC_FACT_BOOL`: 0 or 1.
pub const PREALLOC_FACT_BOOL: c_int = 1;
/// `PREALLOC_FACT_NUMBER`: a number.
pub const PREALLOC_FACT_NUMBER: c_int = 2;
/// `PREALLOC_FACT_BYTES`: a number of bytes.
pub const PREALLOC_FACT_BYTES: c_int = 3;
/// `PREALLOC_FACT_FLAGS`: a bit field or identifier.
pub const PREALLOC_FACT_FLAGS: c_int = 4;
/// `PREALLOC_FACT_STRING`: a string.
pub const PREALLOC_FACT_STRING: c_int = 5;

/// `PREALLOC_POOL_FULL_SPEED`: the pool's worker never paces itself.
pub const PREALLOC_POOL_FULL_SPEED: u32 = 1 << 0;
/// `PREALLOC_POOL_RECYCLE_ZERO`: zero a recycled segment's every byte.
pub const PREALLOC_POOL_RECYCLE_ZERO: u32 = 1 << 1;
/// `PREALLOC_POOL_TAKE_NOWAIT`: hand out a ready segment or fail with EAGAIN.
pub const PREALLOC_POOL_TAKE_NOWAIT: u32 = 1 << 0;
/// Largest `prealloc_pool_config.target`.
pub const PREALLOC_POOL_MAX_TARGET: u32 = 4096;

/// Opaque `struct prealloc_ctx`.
#[repr(C)]
pub struct prealloc_ctx {
    _opaque: [u8; 0],
}

/// Opaque `struct prealloc_probe`.
#[repr(C)]
pub struct prealloc_probe {
    _opaque: [u8; 0],
}

/// Opaque `struct prealloc_async`.
#[repr(C)]
pub struct prealloc_async {
    _opaque: [u8; 0],
}

/// Opaque `struct prealloc_pool`.
#[repr(C)]
pub struct prealloc_pool {
    _opaque: [u8; 0],
}

/// `prealloc_progress_fn`: return 0 to go on, anything else to cancel.
pub type prealloc_progress_fn =
    Option<unsafe extern "C" fn(done: u64, total: u64, data: *mut c_void) -> c_int>;

/// `prealloc_log_fn`.  `args` is the C `va_list`, which stable Rust cannot
/// name: on LP64 Linux targets it reaches the hook as a pointer, to be
/// passed on unchanged to `vsnprintf()`.
pub type prealloc_log_fn = Option<
    unsafe extern "C" fn(
        data: *mut c_void,
        priority: c_int,
        file: *const c_char,
        line: c_int,
        func: *const c_char,
        format: *const c_char,
        args: *mut c_void,
    ),
>;

/// `struct prealloc_options`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct prealloc_options {
    /// `sizeof(struct prealloc_options)`.
    pub size: u32,
    /// `PREALLOC_*` flags.
    pub flags: u32,
    /// `PREALLOC_METHOD_*` to force, or auto.
    pub method: u32,
    /// io_uring writes in flight; 0 for the default.
    pub queue_depth: u32,
    /// Bytes per io_uring write; 0 for the default.
    pub request_bytes: u64,
    /// Optional progress callback.
    pub progress: prealloc_progress_fn,
    /// Passed to `progress`.
    pub progress_data: *mut c_void,
    /// Hard cap on the zeroing rate in bytes per second; 0 for none.
    pub max_rate: u64,
    /// Context, or NULL for the default one.
    pub ctx: *mut prealloc_ctx,
}

/// `struct prealloc_report`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct prealloc_report {
    /// `sizeof(struct prealloc_report)`, set by the caller.
    pub size: u32,
    /// 1 if every block of the range is allocated and written.
    pub written: u8,
    /// 1 if the file or range is copy-on-write.
    pub cow: u8,
    /// Zero.
    pub __pad: u16,
    /// The method that covered the most bytes.
    pub method: u32,
    /// Methods refused, as `1 << method` bits.
    pub refused: u32,
    /// Bytes made to read zero.
    pub bytes_zeroed: u64,
    /// Bytes of existing data left untouched.
    pub bytes_kept: u64,
    /// Bytes only reserved.
    pub bytes_reserved: u64,
    /// Wall-clock time of the call.
    pub elapsed_ns: u64,
    /// Bytes covered by each method, indexed by method.
    pub bytes_by_method: [u64; PREALLOC_METHOD_SLOTS],
    /// The phase that failed (`PREALLOC_PHASE_*`); in C also named
    /// `failed_step`, its name before 0.5 (an anonymous union of the two).
    pub failed_phase: u32,
    /// The method running when the call failed.
    pub failed_method: u32,
    /// Bytes of `bytes_kept` whose extent state is unknown.
    pub bytes_unknown: u64,
    /// `PREALLOC_BG_*` bits.
    pub background: u32,
    /// Zero.
    pub __pad2: u32,
    /// Achieved zeroing rate.
    pub bytes_per_sec: u64,
    /// First error of a failed undo, or 0.
    pub undo_error: i32,
    /// Zero.
    pub __pad3: u32,
    /// Why the call was not ordered with other processes' calls, or 0.
    pub lock_error: i32,
    /// Zero.
    pub __pad4: u32,
    /// What became of `FALLOC_FL_WRITE_ZEROES`: a `PREALLOC_WZ_*` value.
    pub write_zeroes: u32,
    /// Zero.
    pub __pad5: u32,
}

impl prealloc_report {
    /// The field's name before 0.5: C keeps both names on one field, Rust
    /// has one field, so the old name is this accessor.
    #[deprecated(since = "0.5.0", note = "use the field failed_phase")]
    pub fn failed_step(&self) -> u32 {
        self.failed_phase
    }
}

/// `struct prealloc_census`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct prealloc_census {
    /// `sizeof(struct prealloc_census)`, set by the caller.
    pub size: u32,
    /// 1 if FIEMAP answered.
    pub fiemap: u32,
    /// Bytes in written extents.
    pub written_bytes: u64,
    /// Bytes in unwritten extents.
    pub unwritten_bytes: u64,
    /// Bytes with no extent.
    pub hole_bytes: u64,
    /// Bytes of `written_bytes` in shared extents.
    pub shared_bytes: u64,
    /// Without FIEMAP, data bytes that may be unwritten extents.
    pub unknown_bytes: u64,
}

/// `struct prealloc_pool_config`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct prealloc_pool_config {
    /// `sizeof(struct prealloc_pool_config)`.
    pub size: u32,
    /// `PREALLOC_POOL_*` flags.
    pub flags: u32,
    /// Bytes per segment.
    pub segment_size: u64,
    /// Ready segments the worker keeps.
    pub target: u32,
    /// Permission bits of new segments; 0 for 0600.
    pub mode: u32,
    /// Free bytes the pool leaves to everyone else; 0 for the default.
    pub free_floor: u64,
    /// Cap on the worker's zeroing rate; 0 for none.
    pub max_rate: u64,
    /// Context of the pool's own calls, or NULL.
    pub ctx: *mut prealloc_ctx,
}

/// `struct prealloc_pool_stats`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct prealloc_pool_stats {
    /// `sizeof(struct prealloc_pool_stats)`, set by the caller.
    pub size: u32,
    /// Ready segments now.
    pub ready: u32,
    /// Ready segments the worker aims for now.
    pub target: u32,
    /// The worker's last failure other than ENOSPC, as a negative errno.
    pub last_error: i32,
    /// Takes served from a ready segment.
    pub hits: u64,
    /// Takes that made their segment in the calling thread.
    pub misses: u64,
    /// Time the misses spent making segments.
    pub foreground_wait_ns: u64,
    /// Segments the worker made.
    pub created: u64,
    /// Segments recycled and made ready.
    pub recycled: u64,
    /// Ready segments removed to keep the free-space floor.
    pub removed: u64,
    /// Bytes the worker made to read zero.
    pub bytes_zeroed: u64,
    /// Times the pool ran out of space.
    pub enospc: u64,
    /// Time the worker spent working.
    pub worker_ns: u64,
    /// Segments installed ahead under prepared names.
    pub prepared: u64,
    /// Copy-on-write segments.
    pub cow_segments: u64,
}

extern "C" {
    /// `prealloc_file()`: Make a range allocated, written and durable.
    pub fn prealloc_file(fd: c_int, offset: u64, len: u64, flags: c_uint) -> c_int;
    /// `prealloc_file_ex()`: `prealloc_file()` with options and a report.
    pub fn prealloc_file_ex(
        fd: c_int,
        offset: u64,
        len: u64,
        opts: *const prealloc_options,
        report: *mut prealloc_report,
    ) -> c_int;
    /// `prealloc_async_start()`: Start prealloc_file_ex() on a library thread.
    pub fn prealloc_async_start(
        fd: c_int,
        offset: u64,
        len: u64,
        opts: *const prealloc_options,
        ret_handle: *mut *mut prealloc_async,
    ) -> c_int;
    /// `prealloc_async_fd()`: Descriptor that becomes readable when the work is done.
    pub fn prealloc_async_fd(h: *const prealloc_async) -> c_int;
    /// `prealloc_async_poll()`: Result of the work, without blocking.
    pub fn prealloc_async_poll(h: *const prealloc_async) -> c_int;
    /// `prealloc_async_wait()`: Wait until the work is done.
    pub fn prealloc_async_wait(h: *const prealloc_async) -> c_int;
    /// `prealloc_async_cancel()`: Ask the work to stop.
    pub fn prealloc_async_cancel(h: *mut prealloc_async) -> c_int;
    /// `prealloc_async_report()`: The report of finished work.
    pub fn prealloc_async_report(h: *const prealloc_async, report: *mut prealloc_report) -> c_int;
    /// `prealloc_async_free()`: Release a handle.
    pub fn prealloc_async_free(h: *mut prealloc_async);
    /// `prealloc_verify()`: Census of the extent states of a range.
    pub fn prealloc_verify(fd: c_int, offset: u64, len: u64, census: *mut prealloc_census)
        -> c_int;
    /// `prealloc_method_name()`: Short name of a method.
    pub fn prealloc_method_name(method: u32) -> *const c_char;
    /// `prealloc_method_from_name()`: Parse a method name.
    pub fn prealloc_method_from_name(name: *const c_char) -> c_int;
    /// `prealloc_phase_name()`: Short name of a phase, for messages.
    pub fn prealloc_phase_name(phase: u32) -> *const c_char;
    /// `prealloc_step_name()`: the old name of [`prealloc_phase_name`].
    #[deprecated(since = "0.5.0", note = "use prealloc_phase_name")]
    pub fn prealloc_step_name(step: u32) -> *const c_char;
    /// `prealloc_background_name()`: Short name of a pacing mechanism, for messages.
    pub fn prealloc_background_name(bit: u32) -> *const c_char;
    /// `prealloc_action_name()`: Short name of a step's action, for messages.
    pub fn prealloc_action_name(action: u32) -> *const c_char;
    /// `prealloc_write_zeroes_name()`: Short name of a write-zeroes verdict.
    pub fn prealloc_write_zeroes_name(verdict: u32) -> *const c_char;
    /// `prealloc_version()`: Version of the library in use at run time.
    pub fn prealloc_version() -> *const c_char;
    /// `prealloc_ctx_new()`: Create a context.
    pub fn prealloc_ctx_new(
        sysfs_root: *const c_char,
        flags: c_uint,
        ret_ctx: *mut *mut prealloc_ctx,
    ) -> c_int;
    /// `prealloc_ctx_ref()`: Take a reference on a context.
    pub fn prealloc_ctx_ref(ctx: *mut prealloc_ctx) -> *mut prealloc_ctx;
    /// `prealloc_ctx_unref()`: Drop a reference on a context.
    pub fn prealloc_ctx_unref(ctx: *mut prealloc_ctx) -> *mut prealloc_ctx;
    /// `prealloc_ctx_flush()`: Forget what a context has learnt.
    pub fn prealloc_ctx_flush(ctx: *mut prealloc_ctx) -> c_int;
    /// `prealloc_ctx_set_log_fn()`: Route the library's messages to the caller.
    pub fn prealloc_ctx_set_log_fn(
        ctx: *mut prealloc_ctx,
        func: prealloc_log_fn,
        data: *mut c_void,
    ) -> c_int;
    /// `prealloc_ctx_set_log_priority()`: The least urgent message the hook receives.
    pub fn prealloc_ctx_set_log_priority(ctx: *mut prealloc_ctx, priority: c_int) -> c_int;
    /// `prealloc_probe_new()`: Probe a file or block device.
    pub fn prealloc_probe_new(
        fd: c_int,
        offset: u64,
        len: u64,
        opts: *const prealloc_options,
        ret_probe: *mut *mut prealloc_probe,
    ) -> c_int;
    /// `prealloc_probe_free()`: Free a probe.
    pub fn prealloc_probe_free(probe: *mut prealloc_probe);
    /// `prealloc_probe_zeroing_offloaded()`: Will the device do the zeroing?.
    pub fn prealloc_probe_zeroing_offloaded(
        probe: *const prealloc_probe,
        ret_decided_by: *mut *const c_char,
    ) -> c_int;
    /// `prealloc_probe_plan()`: A method of the plan for the request.
    pub fn prealloc_probe_plan(probe: *const prealloc_probe, index: c_uint) -> c_int;
    /// `prealloc_probe_plan_reason()`: Why the plan is what it is.
    pub fn prealloc_probe_plan_reason(probe: *const prealloc_probe) -> *const c_char;
    /// `prealloc_probe_step()`: A step of the plan for the request.
    pub fn prealloc_probe_step(
        probe: *const prealloc_probe,
        index: c_uint,
        ret_action: *mut u32,
        ret_method: *mut u32,
        ret_offset: *mut u64,
        ret_length: *mut u64,
    ) -> c_int;
    /// `prealloc_probe_fact()`: A fact of the target, by position.
    pub fn prealloc_probe_fact(
        probe: *const prealloc_probe,
        index: c_uint,
        ret_name: *mut *const c_char,
        ret_number: *mut u64,
        ret_string: *mut *const c_char,
    ) -> c_int;
    /// `prealloc_probe_lookup()`: A fact of the target, by name.
    pub fn prealloc_probe_lookup(
        probe: *const prealloc_probe,
        name: *const c_char,
        ret_number: *mut u64,
        ret_string: *mut *const c_char,
    ) -> c_int;
    /// `prealloc_probe_device_count()`: Number of devices in the chain.
    pub fn prealloc_probe_device_count(probe: *const prealloc_probe) -> c_int;
    /// `prealloc_probe_device_fact()`: A fact of a device, by position.
    pub fn prealloc_probe_device_fact(
        probe: *const prealloc_probe,
        device: c_uint,
        index: c_uint,
        ret_name: *mut *const c_char,
        ret_number: *mut u64,
        ret_string: *mut *const c_char,
    ) -> c_int;
    /// `prealloc_probe_device_lookup()`: A fact of a device, by name.
    pub fn prealloc_probe_device_lookup(
        probe: *const prealloc_probe,
        device: c_uint,
        name: *const c_char,
        ret_number: *mut u64,
        ret_string: *mut *const c_char,
    ) -> c_int;
    /// `prealloc_pool_open()`: Open a pool over a directory and start its worker.
    pub fn prealloc_pool_open(
        dir: *const c_char,
        cfg: *const prealloc_pool_config,
        ret_pool: *mut *mut prealloc_pool,
    ) -> c_int;
    /// `prealloc_pool_take()`: Hand out a segment under the caller's final name.
    pub fn prealloc_pool_take(
        pool: *mut prealloc_pool,
        dirfd: c_int,
        name: *const c_char,
        flags: c_uint,
    ) -> c_int;
    /// `prealloc_pool_take_ex()`: `prealloc_pool_take()` with open flags.
    pub fn prealloc_pool_take_ex(
        pool: *mut prealloc_pool,
        dirfd: c_int,
        name: *const c_char,
        flags: c_uint,
        open_flags: c_int,
    ) -> c_int;
    /// `prealloc_pool_prepare()`: Have the worker put a segment under a name ahead.
    pub fn prealloc_pool_prepare(
        pool: *mut prealloc_pool,
        dirfd: c_int,
        name: *const c_char,
        flags: c_uint,
    ) -> c_int;
    /// `prealloc_pool_recycle()`: Give a used segment back to the pool.
    pub fn prealloc_pool_recycle(
        pool: *mut prealloc_pool,
        dirfd: c_int,
        name: *const c_char,
        flags: c_uint,
    ) -> c_int;
    /// `prealloc_pool_wait_ready()`: Wait until some segments are ready.
    pub fn prealloc_pool_wait_ready(
        pool: *mut prealloc_pool,
        count: u32,
        timeout_ms: c_int,
    ) -> c_int;
    /// `prealloc_pool_get_stats()`: Read a pool's counters.
    pub fn prealloc_pool_get_stats(
        pool: *mut prealloc_pool,
        stats: *mut prealloc_pool_stats,
    ) -> c_int;
    /// `prealloc_pool_close()`: Stop the worker and free the handle.
    pub fn prealloc_pool_close(pool: *mut prealloc_pool);
}

#[cfg(all(test, feature = "layout-test"))]
mod layout_test;
