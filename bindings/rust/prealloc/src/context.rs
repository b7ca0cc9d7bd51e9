//! The library's context: caches, the sysfs root and the log hook.

use crate::sys_util::{c_path, check};
use prealloc_sys as sys;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::ptr::{self, NonNull};
use std::sync::{Arc, Mutex};

/// The caller's log hook: a syslog(3) priority and one line, no newline.
type LogFn = dyn Fn(i32, &str) + Send + Sync;

extern "C" {
    // `va_list` reaches the hook as a pointer on LP64 Linux (an array type
    // on x86_64, a larger-than-16-byte struct passed by reference on
    // aarch64); vsnprintf takes it the same way.
    fn vsnprintf(s: *mut c_char, n: usize, format: *const c_char, ap: *mut c_void) -> c_int;
}

/// A reference to a `struct prealloc_ctx`: what the library learns between
/// calls (device capabilities, refused methods), the sysfs root it reads and
/// the hook its messages go to.
///
/// Clones share one C reference; when the last clone goes, the hook is
/// removed and the reference dropped (pools, probes and async handles hold
/// their own C references and outlive it, silently).  Calls given no
/// context use the process-wide default one, which has no hook.
///
/// `Send` and `Sync`: the C contract says a context may be used by several
/// threads at once and every function is thread-safe; the rule that the last
/// reference must not go while a call uses it is kept by the borrows
/// ([`Options`](crate::Options) holds a clone for as long as it exists).
#[derive(Clone)]
pub struct Context(Arc<Inner>);

struct Inner {
    ptr: NonNull<sys::prealloc_ctx>,
    hook: Mutex<Option<Box<Box<LogFn>>>>,
}

// SAFETY: see Context's documentation; the hook is Send + Sync.
unsafe impl Send for Inner {}
// SAFETY: as above.
unsafe impl Sync for Inner {}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Context").field(&self.0.ptr).finish()
    }
}

unsafe extern "C" fn log_trampoline(
    data: *mut c_void,
    priority: c_int,
    _file: *const c_char,
    _line: c_int,
    _func: *const c_char,
    format: *const c_char,
    args: *mut c_void,
) {
    let mut buf = [0 as c_char; 1024];
    // SAFETY: `data` is the Box<LogFn> set with this trampoline, alive
    // until the library promises no call runs; format and args are its own.
    let (hook, line) = unsafe {
        vsnprintf(buf.as_mut_ptr(), buf.len(), format, args);
        (
            &*(data as *const Box<LogFn>),
            CStr::from_ptr(buf.as_ptr()).to_string_lossy(),
        )
    };
    // A panic must not unwind into C.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        hook(priority, line.trim_end_matches('\n'))
    }));
}

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
        let ptr = NonNull::new(ctx).expect("prealloc_ctx_new() succeeded without a context");
        Ok(Self(Arc::new(Inner {
            ptr,
            hook: Mutex::new(None),
        })))
    }

    /// Routes the library's messages for calls using this context to `hook`
    /// (`None`: silent again): `prealloc_ctx_set_log_fn()`.  The hook runs
    /// in the thread doing the work (the library's own for
    /// [`AsyncPrealloc`](crate::AsyncPrealloc)) and must not call
    /// `set_log` itself.
    pub fn set_log<F>(&self, hook: Option<F>) -> io::Result<()>
    where
        F: Fn(i32, &str) + Send + Sync + 'static,
    {
        let mut slot = self.0.hook.lock().unwrap_or_else(|e| e.into_inner());
        let new: Option<Box<Box<LogFn>>> = hook.map(|f| Box::new(Box::new(f) as Box<LogFn>));
        let (func, data): (sys::prealloc_log_fn, *mut c_void) = match &new {
            Some(b) => (
                Some(log_trampoline),
                &**b as *const Box<LogFn> as *mut c_void,
            ),
            None => (None, ptr::null_mut()),
        };
        // SAFETY: `data` lives in `slot` until the hook is replaced; when
        // the call returns, the previous hook no longer runs, so it may go.
        check(unsafe { sys::prealloc_ctx_set_log_fn(self.as_ptr(), func, data) })?;
        *slot = new;
        Ok(())
    }

    /// The least urgent syslog(3) priority the hook receives (LOG_INFO, 6,
    /// by default): `prealloc_ctx_set_log_priority()`.
    pub fn set_log_priority(&self, priority: i32) -> io::Result<()> {
        // SAFETY: a live context.
        check(unsafe { sys::prealloc_ctx_set_log_priority(self.as_ptr(), priority) }).map(drop)
    }

    /// Forgets the cached device capabilities: `prealloc_ctx_flush()`.
    pub fn flush(&self) {
        // SAFETY: a live context; the call cannot fail.
        unsafe { sys::prealloc_ctx_flush(self.as_ptr()) };
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::prealloc_ctx {
        self.0.ptr.as_ptr()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        let hook = self.hook.get_mut().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the last Rust reference: remove the hook before its
        // closure goes (C references held elsewhere may still log), then
        // drop this reference.
        unsafe {
            if hook.is_some() {
                sys::prealloc_ctx_set_log_fn(self.ptr.as_ptr(), None, ptr::null_mut());
            }
            sys::prealloc_ctx_unref(self.ptr.as_ptr());
        }
    }
}
