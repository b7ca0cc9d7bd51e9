//! Compares every declaration of this crate with the table the installed
//! header gives (build.rs, `bindings/header-api.py`): struct sizes, field
//! offsets and sizes, enum values and constants.  Both tables are generated
//! from the header's own list of members, so a member added there and not
//! here fails: a missing field or constant does not compile, a differing
//! one fails the comparison.

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
    // SAFETY: the generated layout.c returns a static array of `count`
    // entries whose names are string literals.
    unsafe {
        let entries = std::slice::from_raw_parts(prealloc_sys_layout(&mut count), count);
        entries
            .iter()
            .map(|e| (CStr::from_ptr(e.name).to_str().unwrap().to_owned(), e.value))
            .collect()
    }
}

/// The size of the field `f` selects.
fn field_size<S, F>(_: fn(&S) -> &F) -> usize {
    size_of::<F>()
}

// The old names (PREALLOC_STEP_*) are in the header, and so checked too;
// the generated casts are the same for every item, needed or not.
#[allow(deprecated, clippy::unnecessary_cast)]
mod generated {
    use super::*;
    include!(concat!(env!("OUT_DIR"), "/layout_rust.rs"));
    pub(super) fn table() -> BTreeMap<String, u64> {
        from_rust()
    }
}

/// Every entry of each side is on the other with the same value.
#[test]
fn layout_matches_installed_header() {
    let (c, rust) = (from_c(), generated::table());
    assert!(
        c.len() > 100,
        "the header's table is too short: {}",
        c.len()
    );
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
