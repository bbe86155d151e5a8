//! What a run costs: each subject's build, start and warm-up as measured by earlier runs here
//! (`{cache}/costs.json`), and the estimate of a plan's wall time drawn from them — printed
//! before anything is built, so the user knows what the command will take.

use std::collections::BTreeMap;
use std::path::Path;

use restbench_loadgen::StopAt;
use serde::{Deserialize, Serialize};

use super::plan::RunPlan;

const FILE: &str = "costs.json";
/// The most costs.json may hold: a few lines per subject.
pub const LIMIT: u64 = 1 << 20;
/// The longest a build, a start or a warm-up is believed to take: a day.
pub const MAX_COST_S: f64 = 86_400.0;
/// Seconds assumed when no run has measured a subject here yet.
const UNKNOWN_BUILD_S: f64 = 60.0;
const UNKNOWN_START_S: f64 = 2.0;
/// Seconds per slice beyond its load: connecting, sampling, the progress line.
const SLICE_OVERHEAD_S: f64 = 0.3;

/// One subject's measured costs, in seconds (the latest measure of each).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubjectCosts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_s: Option<f64>,
}

/// The costs of every subject measured here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Costs {
    pub subjects: BTreeMap<String, SubjectCosts>,
}

impl Costs {
    /// The costs recorded in `cache`; empty when none are (or the file does not read: a link,
    /// a pipe, more than [`LIMIT`]). A figure no build, start or warm-up can take (negative,
    /// not a number, beyond [`MAX_COST_S`]) is dropped, and a guess stands in.
    pub fn load(cache: &Path) -> Costs {
        restbench_model::documents::io::read_own_string(&cache.join(FILE), LIMIT, "costs")
            .map(|text| Costs::parse(&text))
            .unwrap_or_default()
    }

    /// The costs of a costs.json's text: empty when it is not one, figures out of range dropped
    /// (the fuzz target `costs_and_conformance_cache` feeds it anything).
    pub fn parse(text: &str) -> Costs {
        let mut costs: Costs = serde_json::from_str(text).unwrap_or_default();
        costs.subjects.retain(|id, _| restbench_subject::is_id(id));
        for c in costs.subjects.values_mut() {
            for figure in [&mut c.build_s, &mut c.start_s, &mut c.warmup_s] {
                *figure = figure.filter(|s| s.is_finite() && (0.0..=MAX_COST_S).contains(s));
            }
        }
        costs
    }

    /// Writes the costs back; a failure only loses the next estimate's accuracy.
    pub fn store(&self, cache: &Path) {
        if let Ok(json) = serde_json::to_string_pretty(self) {
            let tmp = cache.join(format!(".{FILE}.tmp"));
            if std::fs::create_dir_all(cache).is_ok() && std::fs::write(&tmp, json).is_ok() {
                let _ = std::fs::rename(&tmp, cache.join(FILE));
            }
        }
    }

    pub fn built(&mut self, subject: &str, seconds: f64) {
        self.entry(subject).build_s = Some(seconds);
    }

    pub fn started(&mut self, subject: &str, seconds: f64) {
        self.entry(subject).start_s = Some(seconds);
    }

    /// A warm-up of `seconds` (the longest of the run's is kept until the next run).
    pub fn warmed(&mut self, subject: &str, seconds: f64) {
        if seconds > 0.0 {
            let e = self.entry(subject);
            e.warmup_s = Some(e.warmup_s.map_or(seconds, |w| w.max(seconds)));
        }
    }

    fn entry(&mut self, subject: &str) -> &mut SubjectCosts {
        self.subjects.entry(subject.to_string()).or_default()
    }
}

/// A plan's expected wall time: with every group stopping at its minimum rounds, and with
/// every group needing its cap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub cells: usize,
    pub groups: usize,
    pub min_rounds: u32,
    pub max_rounds: u32,
    pub min_s: f64,
    pub max_s: f64,
    /// Subjects whose build or start no run here has measured (a guess stands in).
    pub unmeasured: usize,
}

/// The estimate of `plan` from `costs`: builds of the subjects not yet built (`built` says
/// which are fresh), a start per subject and scenario, a warm-up per cell, and per round a
/// calibration and a re-warm and a measured slice per cell.
pub fn estimate(plan: &RunPlan, costs: &Costs, built: &dyn Fn(&str) -> bool) -> Estimate {
    let slice_s = match plan.shape.stop {
        StopAt::Duration(d) => d.as_secs_f64(),
        StopAt::Requests(_) => 10.0,
    };
    let (min_rounds, max_rounds, rewarm_s) = plan
        .rounds
        .as_ref()
        .map_or((0, 0, 0.0), |r| (r.min_rounds, r.max_rounds, r.rewarm_s));
    let calibration_s = plan.calibration.map_or(0.0, |d| d.as_secs_f64().min(1.0));
    let mut fixed = 0.0;
    let mut unmeasured = 0;
    let mut groups = std::collections::BTreeSet::new();
    let mut per_round_cells = 0.0;
    for e in &plan.entries {
        let cells = plan.cells_of(&e.subject);
        if cells.is_empty() || e.subject.unavailable_reason().is_some() {
            continue;
        }
        let c = plan
            .entries
            .iter()
            .find(|x| x.subject.id == e.subject.id)
            .and_then(|x| costs.subjects.get(&x.subject.id))
            .cloned()
            .unwrap_or_default();
        if c.build_s.is_none() || c.start_s.is_none() {
            unmeasured += 1;
        }
        if !built(&e.subject.id) {
            fixed += c.build_s.unwrap_or(UNKNOWN_BUILD_S);
        }
        let warmup = c.warmup_s.unwrap_or(2.0 * plan.shape.warmup.as_secs_f64());
        for s in &e.scenarios {
            fixed += c.start_s.unwrap_or(UNKNOWN_START_S);
            for (w, p) in &cells {
                groups.insert((s.name(), w.name(), p.name()));
                fixed += warmup;
                per_round_cells += 1.0;
            }
        }
    }
    let slice = slice_s + rewarm_s + SLICE_OVERHEAD_S;
    let per_round = per_round_cells * slice + groups.len() as f64 * calibration_s;
    Estimate {
        cells: plan.cells(),
        groups: groups.len(),
        min_rounds,
        max_rounds,
        min_s: fixed + per_round * f64::from(min_rounds),
        max_s: fixed + per_round * f64::from(max_rounds),
        unmeasured,
    }
}

/// `7 min`, `2 h 05 min`, `40 s`.
pub fn human_duration(seconds: f64) -> String {
    // Beyond a year an estimate says nothing; NaN reads as 0.
    const YEAR_S: f64 = 365.0 * 86_400.0;
    if seconds > YEAR_S {
        return "more than a year".into();
    }
    let s = seconds.max(0.0).round() as u64;
    if s < 90 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min", (s + 30) / 60)
    } else {
        format!("{} h {:02} min", s / 3600, (s % 3600 + 30) / 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_keep_the_latest_and_the_longest_warm_up() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Costs::load(dir.path());
        assert!(c.subjects.is_empty(), "no file: nothing known");
        c.built("a", 30.0);
        c.started("a", 1.5);
        c.warmed("a", 4.0);
        c.warmed("a", 2.0);
        c.warmed("a", 0.0);
        c.store(dir.path());
        let back = Costs::load(dir.path());
        assert_eq!(
            back.subjects["a"],
            SubjectCosts {
                build_s: Some(30.0),
                start_s: Some(1.5),
                warmup_s: Some(4.0)
            }
        );
        std::fs::write(dir.path().join(FILE), "not json").unwrap();
        assert!(
            Costs::load(dir.path()).subjects.is_empty(),
            "a broken file is ignored"
        );
    }

    #[test]
    fn costs_out_of_range_are_dropped_and_a_link_or_a_pipe_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE),
            r#"{"subjects": {"a": {"build_s": 1e300, "start_s": -5, "warmup_s": 3.0},
                             "b": {"build_s": 86401, "start_s": 0.5}}}"#,
        )
        .unwrap();
        let c = Costs::load(dir.path());
        assert_eq!(
            c.subjects["a"],
            SubjectCosts {
                build_s: None,
                start_s: None,
                warmup_s: Some(3.0)
            }
        );
        assert_eq!(c.subjects["b"].build_s, None);
        assert_eq!(c.subjects["b"].start_s, Some(0.5));
        assert_eq!(human_duration(1e300), "more than a year");
        assert_eq!(human_duration(-3.0), "0 s");
        // A link to an endless device is not followed; a pipe does not hang the load.
        let linked = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/zero", linked.path().join(FILE)).unwrap();
        let piped = tempfile::tempdir().unwrap();
        nix::unistd::mkfifo(&piped.path().join(FILE), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let folders = [linked.path().to_path_buf(), piped.path().to_path_buf()];
        std::thread::spawn(move || {
            for f in &folders {
                let _ = tx.send(Costs::load(f));
            }
        });
        for _ in 0..2 {
            let c = rx
                .recv_timeout(std::time::Duration::from_secs(10))
                .expect("costs.json read without end");
            assert!(c.subjects.is_empty());
        }
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human_duration(40.0), "40 s");
        assert_eq!(human_duration(420.0), "7 min");
        assert_eq!(human_duration(7500.0), "2 h 05 min");
    }
}
