//! `none`: no migration; pages stay where placement put them.

use super::mechanism::Ctx;
use super::{rng::SplitMix64, BoundaryInput, Policy, PolicyEnv, Role};
use crate::profile::ProfilerKind;

#[derive(Debug, Clone)]
pub struct None;

impl Policy for None {
    const NAME: &'static str = "none";
    const SUMMARY: &'static str = "no migration: pages stay where placement put them";
    const PAPER: &'static str = "-";
    const DEFAULT_PROFILER: ProfilerKind = ProfilerKind::Perfect;
    const PROFILERS: Option<&'static [ProfilerKind]> = Some(&[ProfilerKind::Perfect]);
    const ROLE: Role = Role::Off;
    type Params = ();

    fn new(_: &(), _: &PolicyEnv) -> Self {
        None
    }
    fn decide(&mut self, _: &mut Ctx, _: &BoundaryInput, _: &mut SplitMix64) -> serde_json::Value {
        serde_json::Value::Null
    }
}
