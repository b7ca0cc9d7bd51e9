//! The C enums as Rust enums that keep values a newer library may add.

use crate::sys_util::c_str;
use prealloc_sys as sys;
use std::fmt;

macro_rules! c_enum {
    ($(#[$doc:meta])* $name:ident, $namefn:ident, { $($(#[$vdoc:meta])* $v:ident = $c:ident,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* $v,)*
            /// A value this binding does not know (from a newer library).
            Other(u32),
        }

        impl $name {
            /// The value from its C number.
            pub fn from_raw(raw: u32) -> Self {
                match raw {
                    $(sys::$c => Self::$v,)*
                    other => Self::Other(other),
                }
            }

            /// The C number.
            pub fn to_raw(self) -> u32 {
                match self {
                    $(Self::$v => sys::$c,)*
                    Self::Other(raw) => raw,
                }
            }

            /// The library's short name, `None` for a value it does not know.
            pub fn name(self) -> Option<&'static str> {
                // SAFETY: the library returns static strings or NULL.
                unsafe { c_str(sys::$namefn(self.to_raw())) }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, "{}", self.to_raw()),
                }
            }
        }
    };
}

c_enum!(
    /// How a byte range was (or is to be) made written: `enum prealloc_method`.
    Method, prealloc_method_name, {
        /// Let the library choose (options only; in a report: nothing needed doing).
        Auto = PREALLOC_METHOD_AUTO,
        /// `fallocate(FALLOC_FL_WRITE_ZEROES)`: the device zeroes.
        WriteZeroes = PREALLOC_METHOD_WRITE_ZEROES,
        /// `ioctl(BLKZEROOUT)` on a block device.
        Zeroout = PREALLOC_METHOD_ZEROOUT,
        /// O_DIRECT zero writes through io_uring.
        Uring = PREALLOC_METHOD_URING,
        /// `pwrite()` of zeros.
        Buffered = PREALLOC_METHOD_BUFFERED,
        /// `fallocate()` reservation only: blocks may stay unwritten.
        Allocate = PREALLOC_METHOD_ALLOCATE,
        /// O_DIRECT zero writes through Linux AIO, where io_uring is refused.
        Aio = PREALLOC_METHOD_AIO,
    }
);

c_enum!(
    /// The phase of a call that failed: `enum prealloc_phase` (called
    /// `Step` before 0.5; a step is a step of the plan, [`PlanStep`](crate::PlanStep)).
    Phase, prealloc_phase_name, {
        /// Nothing failed.
        None = PREALLOC_PHASE_NONE,
        /// Examining the descriptor and probing the storage.
        Target = PREALLOC_PHASE_TARGET,
        /// The request does not suit the target.
        Request = PREALLOC_PHASE_REQUEST,
        /// Claiming a block device with O_EXCL.
        Claim = PREALLOC_PHASE_CLAIM,
        /// Looking for signatures on a block device.
        Signatures = PREALLOC_PHASE_SIGNATURES,
        /// Reading the extent map of the range.
        Classify = PREALLOC_PHASE_CLASSIFY,
        /// The free-space check: ENOSPC here means nothing was changed.
        SpaceCheck = PREALLOC_PHASE_SPACE_CHECK,
        /// Reserving the range with `fallocate()`.
        Reserve = PREALLOC_PHASE_RESERVE,
        /// Zeroing.
        Zero = PREALLOC_PHASE_ZERO,
        /// The final `fdatasync()`.
        Sync = PREALLOC_PHASE_SYNC,
    }
);

/// The old name of [`Phase`].
#[deprecated(since = "0.5.0", note = "renamed Phase (a step is a step of the plan)")]
pub type Step = Phase;

c_enum!(
    /// What a step of the plan does to its bytes: `enum prealloc_action`.
    Action, prealloc_action_name, {
        /// `fallocate()` them.
        Reserve = PREALLOC_ACTION_RESERVE,
        /// Make them read zero with the step's method.
        Zero = PREALLOC_ACTION_ZERO,
        /// `pwrite()` zeros around a whole-block method's aligned middle.
        WriteEdges = PREALLOC_ACTION_WRITE_EDGES,
        /// `fdatasync()` the target.
        Sync = PREALLOC_ACTION_SYNC,
    }
);

c_enum!(
    /// What became of `FALLOC_FL_WRITE_ZEROES` in a call, and why:
    /// `enum prealloc_write_zeroes`.
    WriteZeroes, prealloc_write_zeroes_name, {
        /// The planner never weighed the flag: a method other than write-zeroes was
        /// forced, or the file is copy-on-write or memory backed.
        NotWeighed = PREALLOC_WZ_NOT_WEIGHED,
        /// The flag zeroed bytes of the range.
        Used = PREALLOC_WZ_USED,
        /// The flag was to be tried but zeroed nothing of the range (no whole
        /// block needed it, or the call failed first).
        WouldTry = PREALLOC_WZ_WOULD_TRY,
        /// No block device facts under the target: not tried.
        NoDeviceFacts = PREALLOC_WZ_NO_DEVICE_FACTS,
        /// This kernel has no such mode (before Linux 6.17): not tried.
        NoKernel = PREALLOC_WZ_NO_KERNEL,
        /// The filesystem refused it on this kernel (now, or remembered in the
        /// context).
        FsRefused = PREALLOC_WZ_FS_REFUSED,
        /// The device cannot zero by unmapping.
        DeviceCannot = PREALLOC_WZ_DEVICE_CANNOT,
        /// Refused where sysfs cannot say whether by the filesystem or the device.
        FsOrDevice = PREALLOC_WZ_FS_OR_DEVICE,
        /// This file's inode cannot take it (inline data, no extents, xfs realtime
        /// or always copy-on-write, shared extents).
        Inode = PREALLOC_WZ_INODE,
        /// Keep-size beyond end of file: not tried.
        KeepSize = PREALLOC_WZ_KEEP_SIZE,
    }
);
