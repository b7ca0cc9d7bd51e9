//! Conversions at the C boundary: errno results, ranges, C strings.

use std::ffi::{c_char, c_int, CStr, CString};
use std::io;
use std::ops::Range;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A C result: the non-negative value, or the `io::Error` of its `-errno`.
pub(crate) fn check(ret: c_int) -> io::Result<c_int> {
    if ret < 0 {
        Err(io::Error::from_raw_os_error(-ret))
    } else {
        Ok(ret)
    }
}

pub(crate) fn einval() -> io::Error {
    io::Error::from_raw_os_error(libc::EINVAL)
}

/// The length of a non-empty range (the C calls refuse empty ones too).
pub(crate) fn range_len(range: &Range<u64>) -> io::Result<u64> {
    match range.end.checked_sub(range.start) {
        Some(len) if len > 0 => Ok(len),
        _ => Err(einval()),
    }
}

/// A path as a C string; an interior NUL cannot name a file.
pub(crate) fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| einval())
}

/// Borrows a C string the library keeps alive at least as long as `'a`.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        None
    } else {
        CStr::from_ptr(p).to_str().ok()
    }
}
