//! The library's context: caches and the sysfs root, shared by reference.

use crate::sys_util::{c_path, check};
use prealloc_sys as sys;
use std::io;
use std::path::Path;
use std::ptr::{self, NonNull};

/// A reference to a `struct prealloc_ctx`: what the library learns between
/// calls (device capabilities, refused methods) and the sysfs root it reads.
///
/// Clone takes a reference (`prealloc_ctx_ref()`), drop gives it back;
/// the last one frees the context.  Calls given no context use the
/// process-wide default one.
///
/// `Send` and `Sync`: the C contract says a context may be used by several
/// threads at once and every function is thread-safe; the rule that the last
/// reference must not go while a call uses it is kept by the borrows
/// ([`Options`](crate::Options) holds a reference for as long as it exists,
/// and pools, probes and async handles take their own in C).
#[derive(Debug)]
pub struct Context(NonNull<sys::prealloc_ctx>);

// SAFETY: see the type's documentation.
unsafe impl Send for Context {}
// SAFETY: see the type's documentation.
unsafe impl Sync for Context {}

impl Context {
    /// A new context reading sysfs at `sysfs_root` (a captured tree), or at
    /// `$PREALLOC_SYSFS_ROOT` else `/sys` for `None`: `prealloc_ctx_new()`.
    pub fn new(sysfs_root: Option<&Path>) -> io::Result<Self> {
        let root = sysfs_root.map(c_path).transpose()?;
        let mut ctx = ptr::null_mut();
        // SAFETY: `root` outlives the call; `ctx` is written on success.
        check(unsafe {
            sys::prealloc_ctx_new(
                root.as_ref().map_or(ptr::null(), |r| r.as_ptr()),
                0,
                &mut ctx,
            )
        })?;
        Ok(Self(
            NonNull::new(ctx).expect("prealloc_ctx_new() succeeded without a context"),
        ))
    }

    /// Forgets the cached device capabilities: `prealloc_ctx_flush()`.
    pub fn flush(&self) {
        // SAFETY: the pointer is a live reference; the call cannot fail.
        unsafe { sys::prealloc_ctx_flush(self.as_ptr()) };
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::prealloc_ctx {
        self.0.as_ptr()
    }
}

impl Clone for Context {
    fn clone(&self) -> Self {
        // SAFETY: taking a reference on a live context.
        unsafe { sys::prealloc_ctx_ref(self.as_ptr()) };
        Self(self.0)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: drops the reference this value holds, once.
        unsafe { sys::prealloc_ctx_unref(self.as_ptr()) };
    }
}
