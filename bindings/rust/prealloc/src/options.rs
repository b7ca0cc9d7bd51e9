//! Options of a call, built like `std::fs::OpenOptions`.

use crate::{Context, Method};
use prealloc_sys as sys;
use std::mem::size_of;
use std::ptr;

/// Options of [`file()`](crate::file()), [`Probe::new`](crate::Probe::new) and
/// [`AsyncPrealloc::start`](crate::AsyncPrealloc::start):
/// `struct prealloc_options` without the progress callback.
///
/// The default asks for the whole contract: size extended, data kept,
/// durable on return, method chosen by the library.
#[derive(Debug, Clone, Default)]
pub struct Options {
    flags: u32,
    method: Option<Method>,
    queue_depth: u32,
    request_bytes: u64,
    max_rate: u64,
    ctx: Option<Context>,
}

impl Options {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    fn flag(&mut self, bit: u32, on: bool) -> &mut Self {
        if on {
            self.flags |= bit;
        } else {
            self.flags &= !bit;
        }
        self
    }

    /// `PREALLOC_KEEP_SIZE`: do not change the file size; the part of the
    /// range beyond end of file is only reserved.
    pub fn keep_size(&mut self, on: bool) -> &mut Self {
        self.flag(sys::PREALLOC_KEEP_SIZE, on)
    }

    /// `PREALLOC_ZERO_DATA`: zero the whole range, data included (recycling
    /// a WAL segment; required for block devices).
    pub fn zero_data(&mut self, on: bool) -> &mut Self {
        self.flag(sys::PREALLOC_ZERO_DATA, on)
    }

    /// `PREALLOC_NO_SYNC`: skip the final `fdatasync()`.
    pub fn no_sync(&mut self, on: bool) -> &mut Self {
        self.flag(sys::PREALLOC_NO_SYNC, on)
    }

    /// `PREALLOC_FORCE`: zero a block device that carries a signature.
    pub fn force(&mut self, on: bool) -> &mut Self {
        self.flag(sys::PREALLOC_FORCE, on)
    }

    /// `PREALLOC_BACKGROUND`: paced work beside live traffic.
    pub fn background(&mut self, on: bool) -> &mut Self {
        self.flag(sys::PREALLOC_BACKGROUND, on)
    }

    /// `PREALLOC_CONCURRENT_WRITES`: others may write into the range
    /// during the call and keep every byte; where no exchange can order
    /// the zeros the call fails with `EOPNOTSUPP`, the file untouched.
    pub fn concurrent_writes(&mut self, on: bool) -> &mut Self {
        self.flag(sys::PREALLOC_CONCURRENT_WRITES, on)
    }

    /// Forces one method, used alone (`None` or [`Method::Auto`]: the
    /// library chooses).
    pub fn method(&mut self, method: Option<Method>) -> &mut Self {
        self.method = method;
        self
    }

    /// Direct writes in flight (uring, aio); 0 for the default.
    pub fn queue_depth(&mut self, depth: u32) -> &mut Self {
        self.queue_depth = depth;
        self
    }

    /// Bytes per direct write (uring, aio); 0 for the default.
    pub fn request_bytes(&mut self, bytes: u64) -> &mut Self {
        self.request_bytes = bytes;
        self
    }

    /// Hard cap on the zeroing rate in bytes per second; 0 for none.
    pub fn max_rate(&mut self, bytes_per_sec: u64) -> &mut Self {
        self.max_rate = bytes_per_sec;
        self
    }

    /// The context whose caches and log hook the calls use (`None`: the
    /// process-wide default).  The options hold a reference.
    pub fn context(&mut self, ctx: Option<&Context>) -> &mut Self {
        self.ctx = ctx.cloned();
        self
    }

    /// The C struct; valid while `self` is, which keeps the context alive.
    pub(crate) fn raw(&self) -> sys::prealloc_options {
        sys::prealloc_options {
            size: size_of::<sys::prealloc_options>() as u32,
            flags: self.flags,
            method: self
                .method
                .map_or(sys::PREALLOC_METHOD_AUTO, Method::to_raw),
            queue_depth: self.queue_depth,
            request_bytes: self.request_bytes,
            progress: None,
            progress_data: ptr::null_mut(),
            max_rate: self.max_rate,
            ctx: self.ctx.as_ref().map_or(ptr::null_mut(), Context::as_ptr),
        }
    }
}
