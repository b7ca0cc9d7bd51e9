//! AsyncPrealloc: the eventfd, the result, cancel, and the fork rule.

mod common;

use common::{in_child, Scratch};
use prealloc::{AsyncPrealloc, Options};
use std::fs::File;
use std::os::fd::AsRawFd;

const MIB: u64 = 1 << 20;

fn wait_readable(fd: i32) {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; -1 waits until it is readable.
    assert_eq!(unsafe { libc::poll(&mut pfd, 1, -1) }, 1);
    assert_ne!(pfd.revents & libc::POLLIN, 0);
}

/// The file is closed right after start (the library keeps a duplicate);
/// the eventfd says when the result is there.
#[test]
fn completes_through_the_eventfd_after_the_file_is_closed() {
    let dir = Scratch::new("async");
    let path = dir.path().join("seg");
    let f = File::create_new(&path).unwrap();
    let op = AsyncPrealloc::start(&f, 0..2 * MIB, &Options::new()).unwrap();
    drop(f);
    wait_readable(op.as_raw_fd());
    op.poll().expect("done once readable").unwrap();
    let report = op.report().unwrap().expect("a report once done");
    assert!(report.written(), "{report:?}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 * MIB);
}

/// Cancelled work completes with ECANCELED and is undone.  The rate cap
/// keeps it running (64 MiB at 1 MiB/s) until the cancel.
#[test]
fn cancel_undoes() {
    let dir = Scratch::new("cancel");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let op = AsyncPrealloc::start(&f, 0..64 * MIB, Options::new().max_rate(MIB)).unwrap();
    op.cancel().unwrap();
    assert_eq!(op.wait().unwrap_err().raw_os_error(), Some(libc::ECANCELED));
    assert_eq!(f.metadata().unwrap().len(), 0);
}

/// A child must not touch an inherited handle: it gets ECHILD and its
/// drop frees nothing (freeing would wait for a thread the child lacks).
#[test]
fn child_gets_echild_and_drop_is_harmless() {
    let dir = Scratch::new("fork");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let op = AsyncPrealloc::start(&f, 0..64 * MIB, Options::new().max_rate(MIB)).unwrap();
    let status = in_child(|| {
        let echild = matches!(op.poll(), Some(Err(e)) if e.raw_os_error() == Some(libc::ECHILD));
        let cancel = op.cancel().is_err();
        // Drop a bitwise copy: runs Drop in the child.
        // SAFETY: the child uses `op` no more and never returns.
        drop(unsafe { std::ptr::read(&op) });
        echild && cancel
    });
    assert_eq!(status, 0);
    op.cancel().unwrap();
    assert_eq!(op.wait().unwrap_err().raw_os_error(), Some(libc::ECANCELED));
}

#[test]
fn bad_arguments_fail_at_start() {
    let dir = Scratch::new("async-bad");
    let path = dir.path().join("seg");
    File::create_new(&path).unwrap();
    let ro = File::open(&path).unwrap();
    let err = AsyncPrealloc::start(&ro, 0..MIB, &Options::new()).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EBADF));
}
