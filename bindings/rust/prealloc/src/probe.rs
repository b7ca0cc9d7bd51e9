//! What the library knows about a target, and what it would do.

use crate::sys_util::{c_str, check, range_len};
use crate::{Action, Method, Options};
use prealloc_sys as sys;
use std::ffi::{c_char, c_int, CString};
use std::io;
use std::ops::Range;
use std::os::fd::{AsFd, AsRawFd};
use std::ptr::{self, NonNull};

/// A snapshot of a target's facts and of the plan for a request:
/// `struct prealloc_probe`, freed on drop.
///
/// `Send` and `Sync`: the probe is immutable after [`Probe::new`], every C
/// function reading it is thread-safe and takes it `const`; only
/// `prealloc_probe_free()` needs it exclusively, which `Drop` has.  Strings
/// borrowed from it live as long as the borrow of the probe.
#[derive(Debug)]
pub struct Probe(NonNull<sys::prealloc_probe>);

// SAFETY: see the type's documentation.
unsafe impl Send for Probe {}
// SAFETY: see the type's documentation.
unsafe impl Sync for Probe {}

/// Whether the device will do the zeroing, and the fact that decided it:
/// `prealloc_probe_zeroing_offloaded()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZeroingOffloaded<'a> {
    /// `FALLOC_FL_WRITE_ZEROES` will zero the request on the device.
    Yes(Option<&'a str>),
    /// Known not to happen.
    No(Option<&'a str>),
    /// A device fact needed could not be read.
    Unknown(Option<&'a str>),
}

/// A fact's value (`enum prealloc_fact_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FactValue<'a> {
    /// Unknown: not reported, unreadable or not applicable.
    Null,
    /// A yes/no fact.
    Bool(bool),
    /// A number.
    Number(u64),
    /// A number of bytes.
    Bytes(u64),
    /// A bit field or identifier, best shown in hexadecimal.
    Flags(u64),
    /// A string.
    String(&'a str),
    /// A type this binding does not know, with what it carries.
    Other(i32, u64, Option<&'a str>),
}

/// One named fact of a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fact<'a> {
    /// Dotted name, e.g. `queue.write_zeroes_unmap_max_bytes`.
    pub name: &'a str,
    /// Its value.
    pub value: FactValue<'a>,
}

/// A step of the plan: `prealloc_probe_step()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanStep {
    /// What the step does.
    pub action: Action,
    /// The method covering its bytes ([`Method::Auto`] for the sync).
    pub method: Method,
    /// Its bytes.
    pub range: Range<u64>,
}

/// Iterator over the facts of the target or of one device of its chain.
#[derive(Debug)]
pub struct Facts<'a> {
    probe: &'a Probe,
    device: Option<u32>,
    index: u32,
}

fn fact_value<'a>(kind: c_int, number: u64, string: *const c_char) -> FactValue<'a> {
    // SAFETY: the string belongs to the probe borrowed for 'a.
    let s = unsafe { c_str(string) };
    match (kind, s) {
        (sys::PREALLOC_FACT_NULL, _) => FactValue::Null,
        (sys::PREALLOC_FACT_BOOL, _) => FactValue::Bool(number != 0),
        (sys::PREALLOC_FACT_NUMBER, _) => FactValue::Number(number),
        (sys::PREALLOC_FACT_BYTES, _) => FactValue::Bytes(number),
        (sys::PREALLOC_FACT_FLAGS, _) => FactValue::Flags(number),
        (sys::PREALLOC_FACT_STRING, Some(s)) => FactValue::String(s),
        (other, s) => FactValue::Other(other, number, s),
    }
}

impl<'a> Iterator for Facts<'a> {
    type Item = Fact<'a>;

    fn next(&mut self) -> Option<Fact<'a>> {
        let (mut name, mut number, mut string) = (ptr::null(), 0u64, ptr::null());
        let p = self.probe.0.as_ptr();
        // SAFETY: the probe is borrowed; out pointers are locals.
        let kind = unsafe {
            match self.device {
                None => {
                    sys::prealloc_probe_fact(p, self.index, &mut name, &mut number, &mut string)
                }
                Some(d) => sys::prealloc_probe_device_fact(
                    p,
                    d,
                    self.index,
                    &mut name,
                    &mut number,
                    &mut string,
                ),
            }
        };
        if kind < 0 {
            return None;
        }
        self.index += 1;
        // SAFETY: names are valid while the probe is.
        let name = unsafe { c_str(name) }.unwrap_or("");
        Some(Fact {
            name,
            value: fact_value(kind, number, string),
        })
    }
}

impl Probe {
    /// Probes `f` and plans `range` with `opts`, writing nothing:
    /// `prealloc_probe_new()`.  `range` `None` probes without a request
    /// (no plan).  `f` may be open in any mode, `O_PATH` included.
    pub fn new<F: AsFd>(f: &F, range: Option<Range<u64>>, opts: &Options) -> io::Result<Self> {
        let (offset, len) = match range {
            Some(r) => (r.start, range_len(&r)?),
            None => (0, 0),
        };
        let mut probe = ptr::null_mut();
        // SAFETY: the descriptor and options are borrowed for the call.
        check(unsafe {
            sys::prealloc_probe_new(f.as_fd().as_raw_fd(), offset, len, &opts.raw(), &mut probe)
        })?;
        Ok(Self(
            NonNull::new(probe).expect("prealloc_probe_new() succeeded without a probe"),
        ))
    }

    /// The target's facts, in the library's order.
    pub fn facts(&self) -> Facts<'_> {
        Facts {
            probe: self,
            device: None,
            index: 0,
        }
    }

    /// The facts of device `device` of the chain (0: the device holding
    /// the target).
    pub fn device_facts(&self, device: u32) -> Facts<'_> {
        Facts {
            probe: self,
            device: Some(device),
            index: 0,
        }
    }

    /// Number of devices in the chain under the target.
    pub fn device_count(&self) -> u32 {
        // SAFETY: the probe is live; only a NULL probe fails.
        unsafe { sys::prealloc_probe_device_count(self.0.as_ptr()) }.max(0) as u32
    }

    /// A fact of the target by name, `None` if this probe has none.
    pub fn lookup(&self, name: &str) -> Option<FactValue<'_>> {
        let name = CString::new(name).ok()?;
        let (mut number, mut string) = (0u64, ptr::null());
        // SAFETY: the probe and `name` are live for the call.
        let kind = unsafe {
            sys::prealloc_probe_lookup(self.0.as_ptr(), name.as_ptr(), &mut number, &mut string)
        };
        (kind >= 0).then(|| fact_value(kind, number, string))
    }

    /// Will the device do the zeroing, and which fact decided it.
    pub fn zeroing_offloaded(&self) -> ZeroingOffloaded<'_> {
        let mut why = ptr::null();
        // SAFETY: the probe is live; the reason lives as long as it.
        let (answer, why) = unsafe {
            let a = sys::prealloc_probe_zeroing_offloaded(self.0.as_ptr(), &mut why);
            (a, c_str(why))
        };
        match answer {
            sys::PREALLOC_YES => ZeroingOffloaded::Yes(why),
            sys::PREALLOC_NO => ZeroingOffloaded::No(why),
            _ => ZeroingOffloaded::Unknown(why),
        }
    }

    /// The methods of the plan, the one tried first first.  Fails with
    /// ENODATA without a request and EOPNOTSUPP when the request cannot be
    /// met here ([`plan_reason`](Self::plan_reason) says why).
    pub fn plan(&self) -> io::Result<Vec<Method>> {
        let mut methods = Vec::new();
        for index in 0.. {
            // SAFETY: the probe is live.
            match unsafe { sys::prealloc_probe_plan(self.0.as_ptr(), index) } {
                m if m >= 0 => methods.push(Method::from_raw(m as u32)),
                e if e == -libc::ENOENT => break,
                e => return Err(io::Error::from_raw_os_error(-e)),
            }
        }
        Ok(methods)
    }

    /// Why the plan is what it is, in one sentence.
    pub fn plan_reason(&self) -> Option<&str> {
        // SAFETY: the sentence lives as long as the probe.
        unsafe { c_str(sys::prealloc_probe_plan_reason(self.0.as_ptr())) }
    }

    /// The steps the call would run, or the error it would fail with
    /// before any step.
    pub fn steps(&self) -> io::Result<Vec<PlanStep>> {
        let mut steps = Vec::new();
        for index in 0.. {
            let (mut action, mut method, mut offset, mut length) = (0, 0, 0, 0);
            // SAFETY: the probe is live; out pointers are locals.
            let ret = unsafe {
                sys::prealloc_probe_step(
                    self.0.as_ptr(),
                    index,
                    &mut action,
                    &mut method,
                    &mut offset,
                    &mut length,
                )
            };
            if ret == -libc::ENOENT {
                break;
            }
            check(ret)?;
            steps.push(PlanStep {
                action: Action::from_raw(action),
                method: Method::from_raw(method),
                range: offset..offset + length,
            });
        }
        Ok(steps)
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        // SAFETY: the probe is owned and freed once.
        unsafe { sys::prealloc_probe_free(self.0.as_ptr()) };
    }
}
