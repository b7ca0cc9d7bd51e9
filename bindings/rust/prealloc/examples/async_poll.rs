//! Preallocate in the background while an event loop waits on other
//! descriptors: the handle is an `AsFd`, registered here with plain
//! `poll(2)` (mio's `SourceFd` or tokio's `AsyncFd` take it the same way).
//!
//!     cargo run --example async_poll -- /path/to/segment

use prealloc::{AsyncPrealloc, Options};
use std::fs::File;
use std::os::fd::AsRawFd;

fn main() -> std::io::Result<()> {
    let path = std::env::args_os()
        .nth(1)
        .expect("usage: async_poll SEGMENT");
    let op = AsyncPrealloc::start(&File::create_new(&path)?, 0..8 << 20, &Options::new())?;
    // The file is already closed: the library works on its own duplicate.
    let mut pfd = libc::pollfd {
        fd: op.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one valid pollfd.
        if unsafe { libc::poll(&mut pfd, 1, 1000) } > 0 {
            break;
        }
        println!("still preallocating; serving other events");
    }
    op.poll().expect("readable means done")?;
    let report = op.report()?.expect("done");
    println!(
        "{}: {} at {} MB/s",
        path.to_string_lossy(),
        report.method(),
        report.bytes_per_sec() / 1_000_000
    );
    Ok(())
}
