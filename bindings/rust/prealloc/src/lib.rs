//! Preallocate file space that is allocated *and already written*.
//!
//! Safe bindings to libprealloc (`pkg-config libprealloc`, 0.5 or later).
//! [`file()`] makes a range of a file allocated, written (no unwritten
//! extents), zero where it held no data and durable, with the cheapest method
//! the storage offers; the first synced write into the range is then a pure
//! overwrite.  The C header's kernel-doc and libprealloc(7) state the full
//! contract; each item here says which part of it the type encodes.
//!
//! ```no_run
//! # fn main() -> std::io::Result<()> {
//! let seg = std::fs::File::create_new("000000010000000000000001")?;
//! let report = prealloc::file(&seg, 0..16 << 20, &prealloc::Options::new())?;
//! assert!(report.written() || report.cow());
//! # Ok(()) }
//! ```
//!
//! Errors are [`std::io::Error`]s made from the library's negative errno, so
//! `err.raw_os_error()` and `err.kind()` work as for any system call.  After a
//! failure the file is as it was, or [`Failure::report`] says what is not.
#![warn(missing_docs)]

mod async_op;
mod context;
mod names;
mod options;
mod pool;
mod probe;
mod report;
mod sys_util;

pub use async_op::AsyncPrealloc;
pub use context::Context;
#[allow(deprecated)]
pub use names::Step;
pub use names::{Action, Method, Phase, WriteZeroes};
pub use options::Options;
pub use pool::{Pool, PoolConfig, PoolStats, TakeOptions};
pub use probe::{Fact, FactValue, Facts, PlanStep, Probe, ZeroingOffloaded};
pub use report::{Census, Failure, Report};

use std::io;
use std::ops::Range;
use std::os::fd::{AsFd, AsRawFd};

/// Makes `range` of `f` allocated, written and (unless
/// [`Options::no_sync`]) durable: `prealloc_file_ex()`.
///
/// `f` must be open for writing.  Bytes that held data keep them; every
/// other byte of the range reads zero; the file grows to `range.end` unless
/// [`Options::keep_size`].  On failure the call has undone its work; use
/// [`file_with_report`] to learn what it did before (and whether the undo
/// itself failed).
pub fn file<F: AsFd>(f: &F, range: Range<u64>, opts: &Options) -> io::Result<Report> {
    file_with_report(f, range, opts).map_err(io::Error::from)
}

/// [`file()`], keeping the report of a failed call in the [`Failure`].
pub fn file_with_report<F: AsFd>(
    f: &F,
    range: Range<u64>,
    opts: &Options,
) -> Result<Report, Failure> {
    let len = sys_util::range_len(&range).map_err(Failure::bare)?;
    let mut report = Report::empty();
    // SAFETY: the descriptor is borrowed for the call; both structs are
    // initialised with their size and outlive it.
    let ret = unsafe {
        prealloc_sys::prealloc_file_ex(
            f.as_fd().as_raw_fd(),
            range.start,
            len,
            &opts.raw(),
            report.raw_mut(),
        )
    };
    match sys_util::check(ret) {
        Ok(_) => Ok(report),
        Err(error) => Err(Failure::new(error, report)),
    }
}

/// Counts the extent states of `range` of `f`: `prealloc_verify()`.
///
/// `f` may be open in any mode.  Flushes delayed allocation first.
pub fn verify<F: AsFd>(f: &F, range: Range<u64>) -> io::Result<Census> {
    let len = sys_util::range_len(&range)?;
    let mut census = Census::empty();
    // SAFETY: as in file_with_report().
    let ret = unsafe {
        prealloc_sys::prealloc_verify(f.as_fd().as_raw_fd(), range.start, len, census.raw_mut())
    };
    sys_util::check(ret).map(|_| census)
}

/// Version of the libprealloc loaded at run time, "MAJOR.MINOR.MICRO".
pub fn version() -> &'static str {
    // SAFETY: the library returns a static string.
    unsafe { sys_util::c_str(prealloc_sys::prealloc_version()) }.unwrap_or("")
}
