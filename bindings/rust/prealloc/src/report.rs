//! What a call did (`struct prealloc_report`) and what a range holds
//! (`struct prealloc_census`).

use crate::{Method, Phase, WriteZeroes};
use prealloc_sys as sys;
use std::error::Error;
use std::fmt;
use std::io;
use std::mem::{size_of, zeroed};
use std::time::Duration;

/// What [`file()`](crate::file()) or an [`AsyncPrealloc`](crate::AsyncPrealloc)
/// did: `struct prealloc_report`, read through methods.
#[derive(Clone, Copy)]
pub struct Report(sys::prealloc_report);

impl Report {
    pub(crate) fn empty() -> Self {
        // SAFETY: the C struct is plain integers; all zeros is valid.
        let mut raw: sys::prealloc_report = unsafe { zeroed() };
        raw.size = size_of::<sys::prealloc_report>() as u32;
        Self(raw)
    }

    pub(crate) fn raw_mut(&mut self) -> *mut sys::prealloc_report {
        &mut self.0
    }

    /// Every block of the range is allocated and written.
    pub fn written(&self) -> bool {
        self.0.written != 0
    }

    /// The file or range is copy-on-write: space was reserved instead.
    pub fn cow(&self) -> bool {
        self.0.cow != 0
    }

    /// The method that covered the most bytes ([`Method::Auto`]: nothing
    /// needed doing).
    pub fn method(&self) -> Method {
        Method::from_raw(self.0.method)
    }

    /// Methods the kernel or device refused before the call fell back.
    pub fn refused(&self) -> impl Iterator<Item = Method> {
        let bits = self.0.refused;
        (0..32)
            .filter(move |i| bits & (1 << i) != 0)
            .map(Method::from_raw)
    }

    /// What became of `FALLOC_FL_WRITE_ZEROES`: used, or why not (also
    /// after a failure, as far as the call got).
    pub fn write_zeroes(&self) -> WriteZeroes {
        WriteZeroes::from_raw(self.0.write_zeroes)
    }

    /// Bytes of the range covered by `method`.
    pub fn bytes_by(&self, method: Method) -> u64 {
        let slot = method.to_raw() as usize;
        self.0.bytes_by_method.get(slot).copied().unwrap_or(0)
    }

    /// Bytes made to read zero.
    pub fn bytes_zeroed(&self) -> u64 {
        self.0.bytes_zeroed
    }

    /// Bytes of existing data left untouched.
    pub fn bytes_kept(&self) -> u64 {
        self.0.bytes_kept
    }

    /// Bytes only reserved (allocated, not written).
    pub fn bytes_reserved(&self) -> u64 {
        self.0.bytes_reserved
    }

    /// Bytes of [`bytes_kept`](Self::bytes_kept) whose extent state is
    /// unknown (no FIEMAP); [`written`](Self::written) is then false.
    pub fn bytes_unknown(&self) -> u64 {
        self.0.bytes_unknown
    }

    /// Wall-clock time of the call.
    pub fn elapsed(&self) -> Duration {
        Duration::from_nanos(self.0.elapsed_ns)
    }

    /// Zeroing rate achieved, bytes per second.
    pub fn bytes_per_sec(&self) -> u64 {
        self.0.bytes_per_sec
    }

    /// The `PREALLOC_BG_*` bits: the pacing that applied.
    pub fn background(&self) -> u32 {
        self.0.background
    }

    /// The phase of the call that failed, `None` after success.
    pub fn failed_phase(&self) -> Option<Phase> {
        match Phase::from_raw(self.0.failed_phase) {
            Phase::None => None,
            phase => Some(phase),
        }
    }

    /// The old name of [`failed_phase`](Self::failed_phase).
    #[deprecated(since = "0.5.0", note = "use failed_phase")]
    pub fn failed_step(&self) -> Option<Phase> {
        self.failed_phase()
    }

    /// The method running when the call failed, if one was.
    pub fn failed_method(&self) -> Option<Method> {
        match Method::from_raw(self.0.failed_method) {
            Method::Auto => None,
            method => Some(method),
        }
    }

    /// After a failure: the first error of the undo, when undoing failed
    /// too and the file may not be as it was.
    pub fn undo_error(&self) -> Option<io::Error> {
        (self.0.undo_error < 0).then(|| io::Error::from_raw_os_error(-self.0.undo_error))
    }

    /// Why the call was not ordered with other processes' calls on the
    /// file (`EDEADLK`: a `flock()` that is not another process's call,
    /// `EOPNOTSUPP`: NFS or SMB, `EBUSY`: a lease, or why the file could not
    /// be opened again); `None` when it was held, or nothing needed holding.
    pub fn lock_error(&self) -> Option<io::Error> {
        (self.0.lock_error < 0).then(|| io::Error::from_raw_os_error(-self.0.lock_error))
    }
}

impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Report")
            .field("written", &self.written())
            .field("cow", &self.cow())
            .field("method", &self.method())
            .field("write_zeroes", &self.write_zeroes())
            .field("bytes_zeroed", &self.bytes_zeroed())
            .field("bytes_kept", &self.bytes_kept())
            .field("bytes_reserved", &self.bytes_reserved())
            .field("elapsed", &self.elapsed())
            .field("failed_phase", &self.failed_phase())
            .field("undo_error", &self.undo_error())
            .field("lock_error", &self.lock_error())
            .finish_non_exhaustive()
    }
}

/// A failed [`file_with_report`](crate::file_with_report()): the error and
/// the report of the work done before it was undone.
#[derive(Debug)]
pub struct Failure {
    error: io::Error,
    report: Option<Box<Report>>,
}

impl Failure {
    pub(crate) fn new(error: io::Error, report: Report) -> Self {
        Self {
            error,
            report: Some(Box::new(report)),
        }
    }

    /// A failure of the arguments, found before the library was called.
    pub(crate) fn bare(error: io::Error) -> Self {
        Self {
            error,
            report: None,
        }
    }

    /// The error (`raw_os_error()` is the errno).
    pub fn error(&self) -> &io::Error {
        &self.error
    }

    /// The report; `None` when the arguments were refused before any work
    /// (the C call then leaves the report untouched).
    pub fn report(&self) -> Option<&Report> {
        self.report
            .as_deref()
            .filter(|r| r.0.failed_phase != sys::PREALLOC_PHASE_NONE)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.report().and_then(Report::failed_phase) {
            Some(phase) => write!(f, "{} (phase {phase})", self.error),
            None => self.error.fmt(f),
        }
    }
}

impl Error for Failure {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.error)
    }
}

impl From<Failure> for io::Error {
    fn from(failure: Failure) -> Self {
        failure.error
    }
}

/// Extent states of a range, from [`verify`](crate::verify()):
/// `struct prealloc_census`.
#[derive(Debug, Clone, Copy)]
pub struct Census(sys::prealloc_census);

impl Census {
    pub(crate) fn empty() -> Self {
        // SAFETY: plain integers; all zeros is valid.
        let mut raw: sys::prealloc_census = unsafe { zeroed() };
        raw.size = size_of::<sys::prealloc_census>() as u32;
        Self(raw)
    }

    pub(crate) fn raw_mut(&mut self) -> *mut sys::prealloc_census {
        &mut self.0
    }

    /// FIEMAP answered (otherwise unwritten extents look like data or holes).
    pub fn fiemap(&self) -> bool {
        self.0.fiemap != 0
    }

    /// Bytes in written extents.
    pub fn written_bytes(&self) -> u64 {
        self.0.written_bytes
    }

    /// Bytes in unwritten (preallocated) extents.
    pub fn unwritten_bytes(&self) -> u64 {
        self.0.unwritten_bytes
    }

    /// Bytes with no extent.
    pub fn hole_bytes(&self) -> u64 {
        self.0.hole_bytes
    }

    /// Bytes of [`written_bytes`](Self::written_bytes) in shared extents.
    pub fn shared_bytes(&self) -> u64 {
        self.0.shared_bytes
    }

    /// Without FIEMAP, data bytes that may be unwritten extents.
    pub fn unknown_bytes(&self) -> u64 {
        self.0.unknown_bytes
    }
}
