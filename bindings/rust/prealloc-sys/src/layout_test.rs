//! Compares every declaration of this crate with the table `layout.c`
//! builds from the installed header: struct sizes, field offsets, constants.

use super::*;
use std::collections::BTreeMap;
use std::ffi::CStr;
use std::mem::{offset_of, size_of};

#[repr(C)]
struct Entry {
    name: *const c_char,
    value: u64,
}

extern "C" {
    fn prealloc_sys_layout(count: *mut usize) -> *const Entry;
}

fn from_c() -> BTreeMap<String, u64> {
    let mut count = 0;
    // SAFETY: layout.c returns a static array of `count` entries whose names
    // are string literals.
    unsafe {
        let entries = std::slice::from_raw_parts(prealloc_sys_layout(&mut count), count);
        entries
            .iter()
            .map(|e| (CStr::from_ptr(e.name).to_str().unwrap().to_owned(), e.value))
            .collect()
    }
}

macro_rules! table {
    ($($kind:ident $($arg:ident)*;)*) => {{
        let mut t = BTreeMap::new();
        $(table!(@ t, $kind $($arg)*);)*
        t
    }};
    (@ $t:ident, size $s:ident) => {
        $t.insert(format!("sizeof {}", stringify!($s)), size_of::<$s>() as u64);
    };
    (@ $t:ident, fields $s:ident $($f:ident)*) => {
        $($t.insert(format!("{}.{}", stringify!($s), stringify!($f)),
                    offset_of!($s, $f) as u64);)*
    };
    (@ $t:ident, consts $($c:ident)*) => {
        $($t.insert(stringify!($c).to_owned(), $c as u64);)*
    };
}

fn from_rust() -> BTreeMap<String, u64> {
    table! {
        size prealloc_options;
        fields prealloc_options size flags method queue_depth request_bytes progress
            progress_data max_rate ctx;
        size prealloc_report;
        fields prealloc_report size written cow __pad method refused bytes_zeroed bytes_kept
            bytes_reserved elapsed_ns bytes_by_method failed_step failed_method bytes_unknown
            background __pad2 bytes_per_sec undo_error __pad3 lock_error __pad4 write_zeroes
            __pad5;
        size prealloc_census;
        fields prealloc_census size fiemap written_bytes unwritten_bytes hole_bytes
            shared_bytes unknown_bytes;
        size prealloc_pool_config;
        fields prealloc_pool_config size flags segment_size target mode free_floor max_rate ctx;
        size prealloc_pool_stats;
        fields prealloc_pool_stats size ready target last_error hits misses foreground_wait_ns
            created recycled removed bytes_zeroed enospc worker_ns prepared cow_segments;
        consts PREALLOC_KEEP_SIZE PREALLOC_ZERO_DATA PREALLOC_NO_SYNC PREALLOC_FORCE
            PREALLOC_BACKGROUND PREALLOC_METHOD_AUTO PREALLOC_METHOD_WRITE_ZEROES
            PREALLOC_METHOD_ZEROOUT PREALLOC_METHOD_URING PREALLOC_METHOD_BUFFERED
            PREALLOC_METHOD_ALLOCATE PREALLOC_METHOD_AIO PREALLOC_METHOD_SLOTS PREALLOC_STEP_NONE
            PREALLOC_STEP_TARGET PREALLOC_STEP_REQUEST PREALLOC_STEP_CLAIM
            PREALLOC_STEP_SIGNATURES PREALLOC_STEP_CLASSIFY PREALLOC_STEP_SPACE_CHECK
            PREALLOC_STEP_RESERVE PREALLOC_STEP_ZERO PREALLOC_STEP_SYNC
            PREALLOC_ACTION_RESERVE PREALLOC_ACTION_ZERO PREALLOC_ACTION_WRITE_EDGES
            PREALLOC_ACTION_SYNC PREALLOC_WZ_NOT_WEIGHED PREALLOC_WZ_USED PREALLOC_WZ_WOULD_TRY
            PREALLOC_WZ_NO_DEVICE_FACTS PREALLOC_WZ_NO_KERNEL PREALLOC_WZ_FS_REFUSED
            PREALLOC_WZ_DEVICE_CANNOT PREALLOC_WZ_FS_OR_DEVICE PREALLOC_WZ_INODE
            PREALLOC_WZ_KEEP_SIZE PREALLOC_BG_PACED PREALLOC_BG_IDLE_PRIO PREALLOC_BG_ADAPTED
            PREALLOC_NO PREALLOC_YES PREALLOC_UNKNOWN PREALLOC_FACT_NULL PREALLOC_FACT_BOOL
            PREALLOC_FACT_NUMBER PREALLOC_FACT_BYTES PREALLOC_FACT_FLAGS PREALLOC_FACT_STRING
            PREALLOC_POOL_FULL_SPEED PREALLOC_POOL_RECYCLE_ZERO PREALLOC_POOL_MAX_TARGET;
    }
}

/// Every entry of each side is on the other with the same value: a field
/// added to a struct in C and not here changes its size and fails too.
#[test]
fn layout_matches_installed_header() {
    let (c, rust) = (from_c(), from_rust());
    for (name, value) in &c {
        assert_eq!(
            rust.get(name),
            Some(value),
            "{name}: Rust differs from the C header"
        );
    }
    let missing: Vec<_> = rust.keys().filter(|k| !c.contains_key(*k)).collect();
    assert!(missing.is_empty(), "not checked against C: {missing:?}");
}
