//! Pool: take, take_with, recycle, the directory lock, threads, fork.

mod common;

use common::{in_child, Scratch};
use prealloc::{Pool, PoolConfig, TakeOptions};
use std::io::ErrorKind;
use std::time::Duration;

const SEG: u64 = 1 << 20;

fn open(dir: &Scratch, target: u32) -> Pool {
    let pool = Pool::open(
        dir.path(),
        PoolConfig::new(SEG).target(target).full_speed(true),
    )
    .unwrap();
    if target > 0 {
        pool.wait_ready(target, Some(Duration::from_secs(120)))
            .unwrap();
    }
    pool
}

#[test]
fn take_hands_out_a_ready_segment_as_a_file() {
    let dir = Scratch::new("pool");
    let pool = open(&dir, 1);
    let name = dir.path().join("wal-1");
    let seg = pool.take(&name).unwrap();
    assert_eq!(seg.metadata().unwrap().len(), SEG);
    let census = prealloc::verify(&seg, 0..SEG).unwrap();
    if census.fiemap() {
        assert_eq!(census.written_bytes(), SEG, "{census:?}");
    }
    let stats = pool.stats().unwrap();
    assert_eq!((stats.hits, stats.misses), (1, 0));
    // The name exists now: the segment stays in the pool.
    let err = pool.take(&name).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AlreadyExists);
}

#[test]
fn take_with_dsync_and_recycle() {
    let dir = Scratch::new("pool-dsync");
    let pool = open(&dir, 0);
    let name = dir.path().join("wal-1");
    let seg = pool
        .take_with(&name, TakeOptions::new().dsync(true))
        .unwrap();
    // SAFETY: F_GETFL on an open descriptor.
    let fl = unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&seg), libc::F_GETFL) };
    assert_eq!(fl & libc::O_DSYNC, libc::O_DSYNC);
    assert_eq!(pool.stats().unwrap().misses, 1);
    drop(seg);
    pool.recycle(&name, true).unwrap();
    assert!(!name.exists());
}

/// With nowait, an empty pool refuses instead of making a segment, and
/// counts nothing.
#[test]
fn take_nowait_refuses_when_none_is_ready() {
    let dir = Scratch::new("pool-nowait");
    let pool = open(&dir, 0);
    let name = dir.path().join("wal-1");
    let err = pool
        .take_with(&name, TakeOptions::new().nowait(true))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::WouldBlock);
    assert!(!name.exists());
    assert_eq!(pool.stats().unwrap().misses, 0);
    pool.take_with(&name, TakeOptions::new().nowait(false))
        .unwrap();
    assert_eq!(pool.stats().unwrap().misses, 1);
}

#[test]
fn one_pool_per_directory() {
    let dir = Scratch::new("pool-busy");
    let _pool = open(&dir, 0);
    let err = Pool::open(dir.path(), &PoolConfig::new(SEG)).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EBUSY));
}

/// Send + Sync: two threads take at once, each gets its own segment.
#[test]
fn threads_share_a_pool() {
    let dir = Scratch::new("pool-threads");
    let pool = open(&dir, 2);
    std::thread::scope(|s| {
        for i in 0..2 {
            let (pool, path) = (&pool, dir.path().join(format!("wal-{i}")));
            s.spawn(move || pool.take(path).unwrap());
        }
    });
    assert_eq!(pool.stats().unwrap().hits, 2);
}

/// In a child every call fails with ECHILD; the parent's pool still works.
#[test]
fn child_gets_echild() {
    let dir = Scratch::new("pool-fork");
    let pool = open(&dir, 1);
    let name = dir.path().join("wal-child");
    let status = in_child(
        || matches!(pool.wait_ready(1, Some(Duration::ZERO)), Err(e) if e.raw_os_error() == Some(libc::ECHILD)),
    );
    assert_eq!(status, 0);
    pool.take(&name).unwrap();
}

#[test]
fn pool_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Pool>();
    check::<prealloc::Probe>();
    check::<prealloc::AsyncPrealloc>();
    check::<prealloc::Context>();
}
