//! A private scratch directory per test, on $PREALLOC_TEST_DIR (the CI
//! script mounts a loop ext4 there when it runs as root) or the temp dir.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(test: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base = std::env::var_os("PREALLOC_TEST_DIR").filter(|d| !d.is_empty());
        let base = base.map_or_else(std::env::temp_dir, PathBuf::from);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("prealloc-rs-{test}-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir).expect("scratch directory");
        Self(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Forks; the child runs `f` and exits with its result, the parent returns
/// the child's exit status.  The child only runs code that neither
/// allocates nor locks (the parent has other threads).
pub fn in_child(f: impl FnOnce() -> bool) -> i32 {
    // SAFETY: see above; the child leaves with _exit().
    unsafe {
        match libc::fork() {
            0 => libc::_exit(if f() { 0 } else { 1 }),
            pid => {
                assert!(pid > 0, "fork");
                let mut status = 0;
                assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
                assert!(libc::WIFEXITED(status), "child died: {status:#x}");
                libc::WEXITSTATUS(status)
            }
        }
    }
}
