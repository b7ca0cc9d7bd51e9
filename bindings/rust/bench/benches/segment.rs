//! One round of the segment benchmark: prepare a segment with fs4's
//! `allocate` (what Rust databases call today) or `prealloc::file`, then
//! write it 4 KiB at a time with `fdatasync` after each write.
//!
//!     cargo bench --bench segment -- fs4|prealloc DIR SEGMENT_BYTES WRITES
//!
//! Prints `prepare_ns=N write_sync_ns=N` (the second per write); bench.sh
//! alternates the methods over rounds and takes the medians.

use fs4::FileExt as _;
use std::fs::File;
use std::os::unix::fs::FileExt as _;
use std::path::Path;
use std::time::Instant;

type Prepare = fn(&File, u64) -> std::io::Result<()>;

/// The arms: each method's name and how it prepares a segment.
const METHODS: &[(&str, Prepare)] = &[
    ("fs4", |f, len| f.allocate(len)),
    ("prealloc", |f, len| {
        prealloc::file(f, 0..len, &prealloc::Options::new()).map(drop)
    }),
];

fn prepare(method: &str, f: &File, len: u64) -> std::io::Result<()> {
    let Some((_, prepare)) = METHODS.iter().find(|(name, _)| *name == method) else {
        let names: Vec<_> = METHODS.iter().map(|(name, _)| *name).collect();
        panic!("method: one of {names:?}");
    };
    prepare(f, len)
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let [method, dir, len, writes] = &args[..] else {
        panic!("usage: segment fs4|prealloc DIR SEGMENT_BYTES WRITES");
    };
    let (len, writes): (u64, u64) = (len.parse().unwrap(), writes.parse().unwrap());
    let path = Path::new(dir).join(format!("segment-rs-{method}"));
    let f = File::create_new(&path)?;
    let t = Instant::now();
    prepare(method, &f, len)?;
    let prepare_ns = t.elapsed().as_nanos();
    let block = [0x5au8; 4096];
    let t = Instant::now();
    for i in 0..writes {
        f.write_all_at(&block, i * 4096 % len)?;
        f.sync_data()?;
    }
    let write_sync_ns = t.elapsed().as_nanos() / u128::from(writes);
    std::fs::remove_file(&path)?;
    println!("prepare_ns={prepare_ns} write_sync_ns={write_sync_ns}");
    Ok(())
}
