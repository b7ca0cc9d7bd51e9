//! Create a WAL segment (16 MiB unless a size in bytes is given) the way a
//! database would: allocated, written and durable before the first commit
//! record goes into it, so every later synced write is a pure overwrite.
//!
//!     cargo run --example wal_segment -- /path/to/wal/000000010000000000000001 [BYTES]

use std::fs::File;
use std::process::ExitCode;

const WAL_SEGMENT_SIZE: u64 = 16 << 20;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let size = match args
        .get(1)
        .map(|s| s.to_str().and_then(|s| s.parse::<u64>().ok()))
    {
        None => Some(WAL_SEGMENT_SIZE),
        Some(n) => n.filter(|&n| n > 0),
    };
    let (Some(path), Some(size), 1..=2) = (args.first(), size, args.len()) else {
        eprintln!("usage: wal_segment SEGMENT [BYTES]");
        return ExitCode::from(2);
    };
    let result = File::create_new(path).and_then(|seg| {
        prealloc::file(&seg, 0..size, &prealloc::Options::new()).inspect_err(|_| {
            let _ = std::fs::remove_file(path);
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
