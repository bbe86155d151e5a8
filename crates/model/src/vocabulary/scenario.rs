//! The three scenarios: how much CPU a server may use, and how that is enforced.
//!
//! - `single-thread`: the runtime is told to use one thread or process (`GOMAXPROCS=1`, one
//!   worker); the server may use one core.
//! - `one-cpu`: runtime defaults under a CPU budget of one core: a CFS quota of one CPU when cgroups
//!   are available (as `docker run --cpus=1`), else pinned to one CPU.
//! - `all-cores`: one worker per server CPU; the server may use all of them.

use serde::{Deserialize, Serialize};

/// One scenario. `Ord` is the order reports show them in (the order of [`ALL`]).
///
/// [`ALL`]: Scenario::ALL
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scenario {
    SingleThread,
    OneCpu,
    AllCores,
}

crate::vocabulary!(Scenario, "scenario", {
    SingleThread => "single-thread",
    OneCpu => "one-cpu",
    AllCores => "all-cores",
});

impl Scenario {
    /// The position in report order; a name that is not a scenario sorts last.
    pub fn rank(name: &str) -> usize {
        Self::parse(name).map_or(Self::ALL.len(), |s| s as usize)
    }
}

/// The scenario names in report order (for code that still holds names as strings).
pub const SCENARIO_ORDER: [&str; 3] = [
    Scenario::SingleThread.name(),
    Scenario::OneCpu.name(),
    Scenario::AllCores.name(),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_report_order() {
        for s in Scenario::ALL {
            assert_eq!(s.name().parse::<Scenario>().unwrap(), s);
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{s}\""));
        }
        assert_eq!(SCENARIO_ORDER, ["single-thread", "one-cpu", "all-cores"]);
        let mut sorted = Scenario::ALL;
        sorted.sort();
        assert_eq!(sorted, Scenario::ALL);
        assert!("many-cores".parse::<Scenario>().is_err());
    }
}
