//! Create a 16 MiB WAL segment the way a database would: allocated, written
//! and durable before the first commit record goes into it, so every later
//! synced write is a pure overwrite.
//!
//!     cargo run --example wal_segment -- /path/to/wal/000000010000000000000001

use std::fs::File;
use std::process::ExitCode;

const WAL_SEGMENT_SIZE: u64 = 16 << 20;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: wal_segment SEGMENT");
        return ExitCode::from(2);
    };
    let result = File::create_new(&path).and_then(|seg| {
        prealloc::file(&seg, 0..WAL_SEGMENT_SIZE, &prealloc::Options::new()).inspect_err(|_| {
            let _ = std::fs::remove_file(&path);
        })
    });
    match result {
        Ok(r) => {
            let state = if r.written() {
                "written"
            } else {
                "reserved only"
            };
            println!(
                "{}: {}, {state}, {:?}",
                path.to_string_lossy(),
                r.method(),
                r.elapsed()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: {e}", path.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}
