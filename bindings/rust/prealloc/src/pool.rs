//! The ready-segment pool: segments made ahead by a library thread.

use crate::sys_util::{c_path, check};
use crate::Context;
use prealloc_sys as sys;
use std::ffi::{c_int, c_uint};
use std::fs::File;
use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::ptr::{self, NonNull};
use std::time::Duration;

/// What [`Pool::open`] builds: `struct prealloc_pool_config`.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    raw: sys::prealloc_pool_config,
    ctx: Option<Context>,
}

impl PoolConfig {
    /// Segments of `segment_size` bytes, no ready target yet, mode 0600,
    /// the default free-space floor, quiet background work.
    pub fn new(segment_size: u64) -> Self {
        // SAFETY: plain integers and a pointer; all zeros is valid.
        let mut raw: sys::prealloc_pool_config = unsafe { zeroed() };
        raw.size = size_of::<sys::prealloc_pool_config>() as u32;
        raw.segment_size = segment_size;
        Self { raw, ctx: None }
    }

    /// Ready segments the worker keeps (at most 4096).
    pub fn target(&mut self, segments: u32) -> &mut Self {
        self.raw.target = segments;
        self
    }

    /// Permission bits of new segments; 0 for 0600.
    pub fn mode(&mut self, mode: u32) -> &mut Self {
        self.raw.mode = mode;
        self
    }

    /// Bytes of free space the pool leaves to everyone else; 0 for 1/20 of
    /// the filesystem.
    pub fn free_floor(&mut self, bytes: u64) -> &mut Self {
        self.raw.free_floor = bytes;
        self
    }

    /// Cap on the worker's zeroing rate in bytes per second; 0 for none.
    pub fn max_rate(&mut self, bytes_per_sec: u64) -> &mut Self {
        self.raw.max_rate = bytes_per_sec;
        self
    }

    /// `PREALLOC_POOL_FULL_SPEED`: one burst per segment instead of quiet work.
    pub fn full_speed(&mut self, on: bool) -> &mut Self {
        self.raw.flags = if on { sys::PREALLOC_POOL_FULL_SPEED } else { 0 };
        self
    }

    /// The context of the pool's own calls; the pool takes a reference.
    pub fn context(&mut self, ctx: Option<&Context>) -> &mut Self {
        self.ctx = ctx.cloned();
        self.raw.ctx = self.ctx.as_ref().map_or(ptr::null_mut(), Context::as_ptr);
        self
    }
}

/// How [`Pool::take_with`] opens the segment, like `std::fs::OpenOptions`:
/// always read-write and close-on-exec, plus these (`prealloc_pool_take_ex()`).
#[derive(Debug, Clone, Copy, Default)]
pub struct TakeOptions {
    open_flags: c_int,
    flags: c_uint,
}

impl TakeOptions {
    /// Read-write, close-on-exec, nothing else.
    pub fn new() -> Self {
        Self::default()
    }

    fn flag(&mut self, bit: c_int, on: bool) -> &mut Self {
        self.open_flags = if on {
            self.open_flags | bit
        } else {
            self.open_flags & !bit
        };
        self
    }

    /// `PREALLOC_POOL_TAKE_NOWAIT`: hand out a ready segment or fail with
    /// `EAGAIN` (`ErrorKind::WouldBlock`); never make one in the calling
    /// thread.
    pub fn nowait(&mut self, on: bool) -> &mut Self {
        self.flags = if on {
            self.flags | sys::PREALLOC_POOL_TAKE_NOWAIT
        } else {
            self.flags & !sys::PREALLOC_POOL_TAKE_NOWAIT
        };
        self
    }

    /// `O_DSYNC`, which cannot be added after the open.
    pub fn dsync(&mut self, on: bool) -> &mut Self {
        self.flag(libc::O_DSYNC, on)
    }

    /// `O_SYNC`.
    pub fn sync(&mut self, on: bool) -> &mut Self {
        self.flag(libc::O_SYNC, on)
    }

    /// `O_DIRECT`; a filesystem that refuses it fails the take with EINVAL
    /// and the segment stays in the pool.
    pub fn direct(&mut self, on: bool) -> &mut Self {
        self.flag(libc::O_DIRECT, on)
    }
}

/// A pool's counters: `struct prealloc_pool_stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolStats {
    /// Ready segments now.
    pub ready: u32,
    /// Ready segments the worker aims for now (lowered after ENOSPC).
    pub target: u32,
    /// The worker's last failure other than running out of space (errno).
    pub last_error: Option<i32>,
    /// Takes served from a ready segment.
    pub hits: u64,
    /// Takes that found none ready and made one in the calling thread.
    pub misses: u64,
    /// Time those misses spent making their segments.
    pub foreground_wait: Duration,
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
    /// Time the worker spent making and recycling segments.
    pub worker_time: Duration,
    /// Segments installed ahead under prepared names.
    pub prepared: u64,
    /// Copy-on-write segments (allocated and durable, not written).
    pub cow_segments: u64,
}

/// A directory of ready segments kept filled by a library thread:
/// `struct prealloc_pool`, closed on drop (ready segments stay for the next
/// open; a segment being made is abandoned).
///
/// What it encodes of the C contract:
/// - *Threads*: `Send` and `Sync`: take, prepare, recycle and the others
///   are safe from several threads at once (each take gets its own
///   segment); `prealloc_pool_close()`, which needs the pool alone, is only
///   called by `Drop`.
/// - *Fork*: the worker does not exist in a child; there every method fails
///   with ECHILD and `Drop` frees only the child's copy, leaving the
///   parent's pool, lock and segments alone.
/// - *Descriptors*: a taken segment is an owned [`File`] (close-on-exec),
///   closed when dropped; the pool's own descriptors are its business.
#[derive(Debug)]
pub struct Pool(NonNull<sys::prealloc_pool>);

// SAFETY: see the type's documentation.
unsafe impl Send for Pool {}
// SAFETY: see the type's documentation.
unsafe impl Sync for Pool {}

impl Pool {
    /// Opens the pool over `dir` (which must exist) and starts its worker:
    /// `prealloc_pool_open()`.  EBUSY if the directory is already a pool's.
    pub fn open<P: AsRef<Path>>(dir: P, config: &PoolConfig) -> io::Result<Self> {
        let dir = c_path(dir.as_ref())?;
        let mut pool = ptr::null_mut();
        // SAFETY: the path and config outlive the call; the pool takes its
        // own reference on the config's context.
        check(unsafe { sys::prealloc_pool_open(dir.as_ptr(), &config.raw, &mut pool) })?;
        Ok(Self(
            NonNull::new(pool).expect("prealloc_pool_open() gave no pool"),
        ))
    }

    /// Moves a ready segment (or one made now, on a miss) to `name`, which
    /// must not exist, and opens it read-write: `prealloc_pool_take()`.
    /// A relative `name` is taken from the working directory.
    pub fn take<P: AsRef<Path>>(&self, name: P) -> io::Result<File> {
        self.take_with(name, &TakeOptions::new())
    }

    /// [`take`](Self::take) with `O_DSYNC`, `O_SYNC` or `O_DIRECT`.
    pub fn take_with<P: AsRef<Path>>(&self, name: P, opts: &TakeOptions) -> io::Result<File> {
        let name = c_path(name.as_ref())?;
        // SAFETY: the pool is live; the name outlives the call.
        let fd = check(unsafe {
            sys::prealloc_pool_take_ex(
                self.0.as_ptr(),
                libc::AT_FDCWD,
                name.as_ptr(),
                opts.flags,
                opts.open_flags,
            )
        })?;
        // SAFETY: the library hands over a new descriptor we now own.
        Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Has the worker install a segment under `name` ahead, so the later
    /// [`take`](Self::take) of it only opens it: `prealloc_pool_prepare()`.
    pub fn prepare<P: AsRef<Path>>(&self, name: P) -> io::Result<()> {
        let name = c_path(name.as_ref())?;
        // SAFETY: as in take_with().
        check(unsafe {
            sys::prealloc_pool_prepare(self.0.as_ptr(), libc::AT_FDCWD, name.as_ptr(), 0)
        })
        .map(drop)
    }

    /// Gives a used segment back; the worker makes it ready again, zeroing
    /// every byte first if `zero`: `prealloc_pool_recycle()`.  The caller
    /// must have stopped using it.
    pub fn recycle<P: AsRef<Path>>(&self, name: P, zero: bool) -> io::Result<()> {
        let name = c_path(name.as_ref())?;
        let flags = if zero {
            sys::PREALLOC_POOL_RECYCLE_ZERO
        } else {
            0
        };
        // SAFETY: as in take_with().
        check(unsafe {
            sys::prealloc_pool_recycle(self.0.as_ptr(), libc::AT_FDCWD, name.as_ptr(), flags)
        })
        .map(drop)
    }

    /// Waits until `count` segments are ready, at most `timeout` (`None`:
    /// as long as the worker makes progress): `prealloc_pool_wait_ready()`.
    pub fn wait_ready(&self, count: u32, timeout: Option<Duration>) -> io::Result<()> {
        let ms = timeout.map_or(-1, |t| c_int::try_from(t.as_millis()).unwrap_or(c_int::MAX));
        // SAFETY: the pool is live.
        check(unsafe { sys::prealloc_pool_wait_ready(self.0.as_ptr(), count, ms) }).map(drop)
    }

    /// The pool's counters.
    pub fn stats(&self) -> io::Result<PoolStats> {
        // SAFETY: plain integers; all zeros is valid.
        let mut s: sys::prealloc_pool_stats = unsafe { zeroed() };
        s.size = size_of::<sys::prealloc_pool_stats>() as u32;
        // SAFETY: the pool is live; the stats are sized.
        check(unsafe { sys::prealloc_pool_get_stats(self.0.as_ptr(), &mut s) })?;
        Ok(PoolStats {
            ready: s.ready,
            target: s.target,
            last_error: (s.last_error < 0).then_some(-s.last_error),
            hits: s.hits,
            misses: s.misses,
            foreground_wait: Duration::from_nanos(s.foreground_wait_ns),
            created: s.created,
            recycled: s.recycled,
            removed: s.removed,
            bytes_zeroed: s.bytes_zeroed,
            enospc: s.enospc,
            worker_time: Duration::from_nanos(s.worker_ns),
            prepared: s.prepared,
            cow_segments: s.cow_segments,
        })
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: owned and closed once; no other call can be running.
        unsafe { sys::prealloc_pool_close(self.0.as_ptr()) };
    }
}
