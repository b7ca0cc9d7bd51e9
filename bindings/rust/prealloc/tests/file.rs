//! prealloc::file() and verify() on a real file.

mod common;

use common::Scratch;
use prealloc::{Method, Options, Phase, WriteZeroes};
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::fd::AsRawFd;

const MIB: u64 = 1 << 20;

#[test]
fn range_is_written_and_file_extended() {
    let dir = Scratch::new("written");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let report = prealloc::file(&f, 0..4 * MIB, &Options::new()).unwrap();
    assert!(report.written(), "{report:?}");
    assert_ne!(report.method(), Method::Auto);
    assert_eq!(report.bytes_zeroed(), 4 * MIB);
    assert_eq!(report.failed_phase(), None);
    assert!(report.lock_error().is_none(), "{report:?}");
    assert_eq!(f.metadata().unwrap().len(), 4 * MIB);
    let census = prealloc::verify(&f, 0..4 * MIB).unwrap();
    if census.fiemap() {
        assert_eq!(census.written_bytes(), 4 * MIB, "{census:?}");
    }
}

/// What verify() sees after a plain fallocate(): the difference the
/// library exists for (and proof that the census above could fail).
#[test]
fn fallocate_leaves_unwritten_extents() {
    let dir = Scratch::new("fallocate");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    // SAFETY: a plain system call on an open descriptor.
    let ret = unsafe { libc::fallocate(f.as_raw_fd(), 0, 0, MIB as i64) };
    assert_eq!(ret, 0);
    let census = prealloc::verify(&f, 0..MIB).unwrap();
    if census.fiemap() {
        assert_eq!(census.unwritten_bytes(), MIB, "{census:?}");
    }
}

#[test]
fn keep_size_keeps_size_and_says_reserved() {
    let dir = Scratch::new("keep");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let report = prealloc::file(&f, 0..MIB, Options::new().keep_size(true)).unwrap();
    assert_eq!(f.metadata().unwrap().len(), 0);
    assert!(!report.written());
    assert_eq!(report.bytes_reserved(), MIB);
}

/// A forced method alone: the planner never weighed the kernel flag.
#[test]
fn forced_method_does_not_weigh_write_zeroes() {
    let dir = Scratch::new("forced");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let report = prealloc::file(&f, 0..MIB, Options::new().method(Some(Method::Buffered))).unwrap();
    assert_eq!(report.method(), Method::Buffered);
    assert_eq!(report.write_zeroes(), WriteZeroes::NotWeighed, "{report:?}");
}

#[test]
fn data_is_kept() {
    let dir = Scratch::new("kept");
    let path = dir.path().join("seg");
    std::fs::write(&path, b"record").unwrap();
    let f = OpenOptions::new().write(true).open(&path).unwrap();
    let report = prealloc::file(&f, 0..MIB, &Options::new()).unwrap();
    assert_eq!(report.bytes_kept(), 6);
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..6], b"record");
    assert!(bytes[6..].iter().all(|&b| b == 0));
}

#[test]
fn errors_are_errno() {
    let dir = Scratch::new("errno");
    let path = dir.path().join("seg");
    File::create_new(&path).unwrap();
    let ro = File::open(&path).unwrap();
    let err = prealloc::file(&ro, 0..MIB, &Options::new()).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EBADF));
    // Refused before any work: no report.
    let failure = prealloc::file_with_report(&ro, 0..MIB, &Options::new()).unwrap_err();
    assert!(failure.report().is_none());
    #[allow(clippy::reversed_empty_ranges)]
    let err = prealloc::file(&ro, 5..5, &Options::new()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}

/// ENOSPC from the free-space check: the report names the phase, and the
/// file is as it was.
#[test]
fn enospc_reports_the_phase_and_changes_nothing() {
    let dir = Scratch::new("enospc");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let failure = prealloc::file_with_report(&f, 0..(1 << 43), &Options::new()).unwrap_err();
    assert_eq!(
        failure.error().raw_os_error(),
        Some(libc::ENOSPC),
        "{failure}"
    );
    let report = failure.report().expect("a report after work started");
    assert_eq!(report.failed_phase(), Some(Phase::SpaceCheck));
    assert!(report.undo_error().is_none());
    assert_eq!(f.metadata().unwrap().len(), 0);
    let err: std::io::Error = failure.into();
    assert_eq!(err.kind(), ErrorKind::StorageFull);
}

#[test]
fn names_and_version() {
    assert_eq!(Method::Uring.name(), Some("uring"));
    assert_eq!(Method::Aio.name(), Some("aio"));
    assert_eq!(Method::from_raw(99), Method::Other(99));
    assert_eq!(Method::Other(99).to_string(), "99");
    assert_eq!(Phase::SpaceCheck.to_string(), "space-check");
    assert_eq!(WriteZeroes::FsRefused.name(), Some("fs-refused"));
    assert_eq!(WriteZeroes::from_raw(0), WriteZeroes::NotWeighed);
    assert_eq!(WriteZeroes::KeepSize.to_string(), "keep-size");
    assert_eq!(WriteZeroes::from_raw(99).name(), None);
    assert!(prealloc::version().starts_with("0."));
}

/// The log hook gets the library's formatted lines (the va_list passed
/// through), here the free-space check's refusal.
#[test]
fn context_log_hook_gets_formatted_lines() {
    use std::sync::{Arc, Mutex};
    let dir = Scratch::new("log");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let ctx = prealloc::Context::new(None).unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = lines.clone();
    ctx.set_log(Some(move |prio, line: &str| {
        sink.lock().unwrap().push((prio, line.to_owned()))
    }))
    .unwrap();
    let err = prealloc::file(&f, 0..(1 << 43), Options::new().context(Some(&ctx))).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
    let got = lines.lock().unwrap().clone();
    // The %llu arguments came through: the bytes needed cover the request.
    let needed = |l: &str| -> Option<u64> {
        l.strip_prefix("free-space check: ")?
            .split(' ')
            .next()?
            .parse()
            .ok()
    };
    assert!(
        got.iter()
            .any(|(p, l)| *p == libc::LOG_NOTICE && needed(l) >= Some(1 << 43)),
        "{got:?}"
    );
    ctx.set_log(None::<fn(i32, &str)>).unwrap();
    lines.lock().unwrap().clear();
    let _ = prealloc::file(&f, 0..(1 << 43), Options::new().context(Some(&ctx)));
    assert!(lines.lock().unwrap().is_empty());
}

/// The names before 0.5 still compile and mean the same.
#[test]
#[allow(deprecated)]
fn old_step_names_are_the_phases() {
    use prealloc::Step;
    assert_eq!(Step::SpaceCheck, Phase::SpaceCheck);
    assert_eq!(Step::Sync.to_raw(), prealloc_sys::PREALLOC_STEP_SYNC);
    assert_eq!(
        prealloc_sys::PREALLOC_STEP_ZERO,
        prealloc_sys::PREALLOC_PHASE_ZERO
    );
    let dir = Scratch::new("old-names");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let failure = prealloc::file_with_report(&f, 0..(1 << 43), &Options::new()).unwrap_err();
    let report = failure.report().expect("a report after work started");
    assert_eq!(report.failed_step(), report.failed_phase());
}

/// A flock() of the application's own on the file: the call goes on,
/// ordered with this process's calls only, and the report says why.
#[test]
fn lock_error_names_a_foreign_flock() {
    let dir = Scratch::new("lock-error");
    let path = dir.path().join("seg");
    let f = File::create_new(&path).unwrap();
    let holder = File::open(&path).unwrap();
    // SAFETY: a plain flock() on a descriptor we own.
    assert_eq!(unsafe { libc::flock(holder.as_raw_fd(), libc::LOCK_EX) }, 0);
    let report = prealloc::file(&f, 0..MIB, &Options::new()).unwrap();
    assert_eq!(
        report.lock_error().and_then(|e| e.raw_os_error()),
        Some(libc::EDEADLK),
        "{report:?}"
    );
    drop(holder);
    let report = prealloc::file(&f, 0..MIB, &Options::new()).unwrap();
    assert!(report.lock_error().is_none(), "{report:?}");
}
