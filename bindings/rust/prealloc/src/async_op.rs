//! A preallocation running on a library thread, waited on through an fd.

use crate::sys_util::{check, range_len};
use crate::{Options, Report};
use prealloc_sys as sys;
use std::io;
use std::ops::Range;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::ptr::{self, NonNull};

/// [`file()`](crate::file()) running on a library thread with
/// `PREALLOC_BACKGROUND` pacing: `struct prealloc_async`.
///
/// The handle is an event source: [`AsFd`]/[`AsRawFd`] give an eventfd
/// that turns readable once the result is there and stays so (register it
/// with `poll(2)`, mio or tokio's `AsyncFd`; never read or close it), then
/// [`poll`](Self::poll) returns the result.  Dropping the handle cancels
/// work still running and waits for its undo, so the file is in a final
/// state afterwards.
///
/// What it encodes of the C contract:
/// - *Closing the file early*: the library duplicates the descriptor before
///   [`start`](Self::start) returns, so the file may be dropped at once.
/// - *Threads*: `Send` and `Sync`, since every C call on a handle is
///   thread-safe except `prealloc_async_free()`, which only `Drop` calls,
///   with the handle owned.
/// - *Fork*: a child must not use a handle inherited from its parent, not
///   even to free it.  Every method fails with ECHILD in a process other
///   than the one that started the work, and `Drop` there frees nothing.
#[derive(Debug)]
pub struct AsyncPrealloc {
    handle: NonNull<sys::prealloc_async>,
    pid: u32,
}

// SAFETY: see the type's documentation.
unsafe impl Send for AsyncPrealloc {}
// SAFETY: see the type's documentation.
unsafe impl Sync for AsyncPrealloc {}

impl AsyncPrealloc {
    /// Checks the arguments and starts the work: `prealloc_async_start()`.
    /// Errors other than bad arguments come from [`poll`](Self::poll).
    pub fn start<F: AsFd>(f: &F, range: Range<u64>, opts: &Options) -> io::Result<Self> {
        let len = range_len(&range)?;
        let mut handle = ptr::null_mut();
        // SAFETY: the options are copied and the descriptor duplicated by
        // the call; the context it names is referenced by the library.
        check(unsafe {
            sys::prealloc_async_start(
                f.as_fd().as_raw_fd(),
                range.start,
                len,
                &opts.raw(),
                &mut handle,
            )
        })?;
        let handle = NonNull::new(handle).expect("prealloc_async_start() gave no handle");
        Ok(Self {
            handle,
            pid: std::process::id(),
        })
    }

    /// The handle, in the process that made it only.
    fn ptr(&self) -> io::Result<*mut sys::prealloc_async> {
        if std::process::id() == self.pid {
            Ok(self.handle.as_ptr())
        } else {
            Err(io::Error::from_raw_os_error(libc::ECHILD))
        }
    }

    /// The result without blocking: `None` while the work runs.
    pub fn poll(&self) -> Option<io::Result<()>> {
        let h = match self.ptr() {
            Ok(h) => h,
            Err(e) => return Some(Err(e)),
        };
        // SAFETY: the handle is live and ours.
        match unsafe { sys::prealloc_async_poll(h) } {
            r if r == -libc::EINPROGRESS => None,
            r => Some(check(r).map(drop)),
        }
    }

    /// Blocks until the work is done and returns its result.
    pub fn wait(&self) -> io::Result<()> {
        // SAFETY: the handle is live and ours.
        check(unsafe { sys::prealloc_async_wait(self.ptr()?) }).map(drop)
    }

    /// Asks the work to stop; it undoes what it did and completes with
    /// ECANCELED (work already finished keeps its result).  Does not block.
    pub fn cancel(&self) -> io::Result<()> {
        // SAFETY: the handle is live and ours; cancel is thread-safe.
        check(unsafe { sys::prealloc_async_cancel(self.ptr()?) }).map(drop)
    }

    /// The report of finished work, `None` while it runs.
    pub fn report(&self) -> io::Result<Option<Report>> {
        let mut report = Report::empty();
        // SAFETY: the handle is live and ours; the report is sized.
        match unsafe { sys::prealloc_async_report(self.ptr()?, report.raw_mut()) } {
            r if r == -libc::EINPROGRESS => Ok(None),
            r => check(r).map(|_| Some(report)),
        }
    }
}

impl AsRawFd for AsyncPrealloc {
    fn as_raw_fd(&self) -> RawFd {
        // SAFETY: the handle is live; the eventfd is inherited by a child too.
        unsafe { sys::prealloc_async_fd(self.handle.as_ptr()) }
    }
}

impl AsFd for AsyncPrealloc {
    fn as_fd(&self) -> BorrowedFd<'_> {
        // SAFETY: the eventfd is open until the handle is freed in Drop,
        // which the borrow of `self` prevents meanwhile.
        unsafe { BorrowedFd::borrow_raw(self.as_raw_fd()) }
    }
}

impl Drop for AsyncPrealloc {
    fn drop(&mut self) {
        // A child leaks its copy: freeing it would wait for a thread that
        // only exists in the parent.
        if let Ok(h) = self.ptr() {
            // SAFETY: owned, freed once, in the process that made it.
            unsafe { sys::prealloc_async_free(h) };
        }
    }
}
