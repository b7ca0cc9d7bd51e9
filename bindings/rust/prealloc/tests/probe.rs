//! Probe: facts, the plan and its steps, the offload answer.

mod common;

use common::Scratch;
use prealloc::{Action, FactValue, Options, Probe, ZeroingOffloaded};
use std::fs::File;

#[test]
fn facts_iterate_and_look_up() {
    let dir = Scratch::new("facts");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let probe = Probe::new(&f, None, &Options::new()).unwrap();
    let facts: Vec<_> = probe.facts().collect();
    assert!(!facts.is_empty());
    for fact in &facts {
        assert_eq!(probe.lookup(fact.name), Some(fact.value), "{}", fact.name);
    }
    assert_eq!(probe.lookup("no.such.fact"), None);
    for d in 0..probe.device_count() {
        assert!(probe.device_facts(d).all(|f| !f.name.is_empty()));
    }
    // Without a request there is no plan.
    let err = probe.plan().unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENODATA));
}

#[test]
fn plan_and_steps_for_a_request() {
    let dir = Scratch::new("plan");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let probe = Probe::new(&f, Some(0..1 << 20), &Options::new()).unwrap();
    let plan = probe.plan().unwrap();
    assert!(!plan.is_empty());
    let steps = probe.steps().unwrap();
    assert_eq!(steps.last().map(|s| s.action), Some(Action::Sync));
    let zeroed: u64 = steps
        .iter()
        .filter(|s| matches!(s.action, Action::Zero | Action::WriteEdges))
        .map(|s| s.range.end - s.range.start)
        .sum();
    assert_eq!(zeroed, 1 << 20);
    // The probe wrote nothing.
    assert_eq!(f.metadata().unwrap().len(), 0);
    match probe.zeroing_offloaded() {
        ZeroingOffloaded::Yes(why) | ZeroingOffloaded::No(why) | ZeroingOffloaded::Unknown(why) => {
            assert!(why.is_none_or(|w| !w.is_empty()))
        }
    }
}

#[test]
fn facts_have_types() {
    let dir = Scratch::new("types");
    let f = File::create_new(dir.path().join("seg")).unwrap();
    let probe = Probe::new(&f, None, &Options::new()).unwrap();
    assert!(probe
        .facts()
        .any(|f| !matches!(f.value, FactValue::Null | FactValue::Other(..))));
}
