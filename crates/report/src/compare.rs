//! Two runs side by side (`restbench compare A B`): per cell, B's figures as ratios of A's and a
//! verdict that takes the measured noise into account.
//!
//! This module computes; [`Comparison::to_text`] lives in `text.rs` and
//! [`Comparison::to_markdown`] in `markdown.rs`, with the other renderers.

use std::collections::BTreeMap;

use restbench_model::{Cell, CellStatus, RunResults};
use serde::{Deserialize, Serialize};

use crate::cells::{cell_labels, first_line, status_word};
pub use crate::noise::{MIN_CHANGE, Verdict, beyond_noise, verdict};

/// Which cell: subject × workload × scenario, and the settings label when one run holds the same
/// key more than once (study variants such as `GOMAXPROCS=1`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    pub subject: String,
    pub workload: String,
    pub scenario: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

impl CellKey {
    /// The subject, with the variant in brackets when there is one.
    pub fn label(&self) -> String {
        match &self.variant {
            Some(v) => format!("{} [{v}]", self.subject),
            None => self.subject.clone(),
        }
    }
}

/// One cell measured in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparedCell {
    #[serde(flatten)]
    pub key: CellKey,
    pub a_rps: Option<f64>,
    pub b_rps: Option<f64>,
    /// B's median req/s ÷ A's.
    pub rps_ratio: Option<f64>,
    pub a_p99_us: Option<u64>,
    pub b_p99_us: Option<u64>,
    /// B's p99 latency ÷ A's (below 1 is better).
    pub p99_ratio: Option<f64>,
    pub a_cpu_us_per_req: Option<f64>,
    pub b_cpu_us_per_req: Option<f64>,
    /// B's server CPU µs per request ÷ A's (below 1 is better).
    pub cpu_us_per_req_ratio: Option<f64>,
    pub verdict: Verdict,
    /// Why the cell is not comparable, or flags that weaken the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Where a run came from, for the heading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunLabel {
    pub kind: String,
    pub started_at: String,
    pub cpu_model: String,
    pub cores: u32,
    pub hostname: String,
}

impl RunLabel {
    fn of(r: &RunResults) -> Self {
        Self {
            kind: r.kind.clone(),
            started_at: r.started_at.clone(),
            cpu_model: r.environment.cpu_model.clone(),
            cores: r.environment.cores,
            hostname: r.environment.hostname.clone(),
        }
    }
}

/// The comparison of run B against run A.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub a: RunLabel,
    pub b: RunLabel,
    /// True when the two runs ran on different machines (CPU model or core count differ).
    pub different_machines: bool,
    pub cells: Vec<ComparedCell>,
    pub only_in_a: Vec<CellKey>,
    pub only_in_b: Vec<CellKey>,
}

/// Matches the cells of `a` and `b` by subject, workload and scenario (and by settings when a key
/// repeats) and compares each pair.
pub fn compare(a: &RunResults, b: &RunResults) -> Comparison {
    let keys_a = keys(&a.cells);
    let keys_b = keys(&b.cells);
    let mut used_b = vec![false; b.cells.len()];
    let mut cells = Vec::new();
    let mut only_in_a = Vec::new();
    for (i, ca) in a.cells.iter().enumerate() {
        let same_key = |j: usize| {
            let cb = &b.cells[j];
            !used_b[j]
                && cb.subject == ca.subject
                && cb.workload == ca.workload
                && cb.scenario == ca.scenario
        };
        let found = (0..b.cells.len())
            .find(|&j| same_key(j) && b.cells[j].settings == ca.settings)
            .or_else(|| (0..b.cells.len()).find(|&j| same_key(j)));
        match found {
            Some(j) => {
                used_b[j] = true;
                let mut key = keys_a[i].clone();
                if key.variant.is_none() {
                    key.variant = keys_b[j].variant.clone();
                }
                cells.push(compare_cell(key, ca, &b.cells[j]));
            }
            None => only_in_a.push(keys_a[i].clone()),
        }
    }
    let only_in_b = keys_b
        .iter()
        .zip(&used_b)
        .filter(|(_, used)| !**used)
        .map(|(k, _)| k.clone())
        .collect();
    let (la, lb) = (RunLabel::of(a), RunLabel::of(b));
    Comparison {
        different_machines: la.cpu_model != lb.cpu_model || la.cores != lb.cores,
        a: la,
        b: lb,
        cells,
        only_in_a,
        only_in_b,
    }
}

/// Keys of a run's cells, with a settings label where subject × workload × scenario repeats.
fn keys(cells: &[Cell]) -> Vec<CellKey> {
    let labels = cell_labels(&cells.iter().collect::<Vec<_>>());
    cells
        .iter()
        .zip(labels)
        .map(|(c, l)| CellKey {
            subject: c.subject.clone(),
            workload: c.workload.clone(),
            scenario: c.scenario.clone(),
            variant: l.variant,
        })
        .collect()
}

fn compare_cell(key: CellKey, a: &Cell, b: &Cell) -> ComparedCell {
    let ok_a = a.status == CellStatus::Ok;
    let ok_b = b.status == CellStatus::Ok;
    let div = |x: f64, y: f64| (y > 0.0 && x.is_finite()).then(|| x / y);
    let mut out = ComparedCell {
        key,
        a_rps: ok_a.then_some(a.rps.median),
        b_rps: ok_b.then_some(b.rps.median),
        rps_ratio: None,
        a_p99_us: ok_a.then_some(a.latency_us.p99),
        b_p99_us: ok_b.then_some(b.latency_us.p99),
        p99_ratio: None,
        a_cpu_us_per_req: (ok_a && a.server.cpu_us_per_req > 0.0)
            .then_some(a.server.cpu_us_per_req),
        b_cpu_us_per_req: (ok_b && b.server.cpu_us_per_req > 0.0)
            .then_some(b.server.cpu_us_per_req),
        cpu_us_per_req_ratio: None,
        verdict: Verdict::NotComparable,
        note: None,
    };
    if !(ok_a && ok_b) {
        let why = |side: &str, c: &Cell| {
            format!(
                "{} in {side}: {}",
                status_word(c.status),
                first_line(c.reason.as_deref().unwrap_or("no reason recorded"))
            )
        };
        let mut notes = Vec::new();
        if !ok_a {
            notes.push(why("A", a));
        }
        if !ok_b {
            notes.push(why("B", b));
        }
        out.note = Some(notes.join("; "));
        return out;
    }
    out.rps_ratio = div(b.rps.median, a.rps.median);
    out.p99_ratio = div(b.latency_us.p99 as f64, a.latency_us.p99 as f64);
    out.cpu_us_per_req_ratio = match (out.b_cpu_us_per_req, out.a_cpu_us_per_req) {
        (Some(x), Some(y)) => div(x, y),
        _ => None,
    };
    out.verdict = verdict(&a.rps, &b.rps);
    let mut flags: Vec<String> = Vec::new();
    for (side, c) in [("A", a), ("B", b)] {
        if !c.flags.is_empty() {
            flags.push(format!("{side}: {}", c.flags.join(", ")));
        }
    }
    if !flags.is_empty() {
        out.note = Some(flags.join("; "));
    }
    out
}

impl Comparison {
    /// Verdict counts, for a one-line summary.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for c in &self.cells {
            *m.entry(c.verdict.as_str()).or_insert(0) += 1;
        }
        m
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_support::cell;
    use restbench_model::RpsStats;

    fn run(cells: Vec<Cell>) -> RunResults {
        RunResults {
            schema_version: restbench_model::SCHEMA_VERSION,
            kind: "run".into(),
            started_at: "2026-11-29T00:00:00Z".into(),
            finished_at: None,
            interrupted: false,
            environment: restbench_model::Environment {
                cpu_model: "cpu".into(),
                cores: 4,
                ..Default::default()
            },
            protocol: Default::default(),
            cells,
            study: None,
        }
    }

    /// Two runs: a slower cell, two variants listed in the other order, a cell that failed in B,
    /// and one cell only in each run. The renderers' tests use it too.
    pub(crate) fn sample() -> Comparison {
        let mut failed = cell("node-http", "echo", "all-cores", 0.0);
        failed.status = CellStatus::Failed;
        failed.reason = Some("port in use\nmore".into());
        let mut g1 = cell("go-nethttp", "echo", "one-cpu", 6_000.0);
        g1.settings.insert("GOMAXPROCS".into(), "1".into());
        let mut g4 = cell("go-nethttp", "echo", "one-cpu", 600.0);
        g4.settings.insert("GOMAXPROCS".into(), "4".into());
        let a = run(vec![
            cell("rust-axum", "echo", "all-cores", 100_000.0),
            g1.clone(),
            g4.clone(),
            cell("node-http", "echo", "all-cores", 20_000.0),
            cell("rust-iron", "plaintext", "all-cores", 1.0),
        ]);
        let mut g1b = g1.clone();
        g1b.rps.median = 6_010.0;
        g1b.rps.ci95 = Some([5_990.0, 6_030.0]);
        let mut g4b = g4.clone();
        g4b.rps = RpsStats {
            median: 5_900.0,
            ci95: Some([5_850.0, 5_950.0]),
            ..g4.rps
        };
        // B lists the variants in the other order; they must still pair by settings.
        let b = run(vec![
            g4b,
            g1b,
            cell("rust-axum", "echo", "all-cores", 90_000.0),
            failed,
            cell("rust-hyper", "echo", "all-cores", 1.0),
        ]);
        compare(&a, &b)
    }

    #[test]
    fn cells_are_matched_by_key_and_settings() {
        let c = sample();
        assert!(!c.different_machines);
        assert_eq!(c.cells.len(), 4);
        let find = |s: &str, v: Option<&str>| {
            c.cells
                .iter()
                .find(|x| x.key.subject == s && x.key.variant.as_deref() == v)
                .unwrap()
        };
        assert_eq!(find("rust-axum", None).verdict, Verdict::Slower);
        assert_eq!(find("rust-axum", None).rps_ratio, Some(0.9));
        assert_eq!(
            find("go-nethttp", Some("GOMAXPROCS=1")).verdict,
            Verdict::WithinNoise
        );
        let g = find("go-nethttp", Some("GOMAXPROCS=4"));
        assert_eq!(g.verdict, Verdict::Faster);
        assert!((g.rps_ratio.unwrap() - 5_900.0 / 600.0).abs() < 1e-9);
        let n = find("node-http", None);
        assert_eq!(n.verdict, Verdict::NotComparable);
        assert_eq!(n.note.as_deref(), Some("failed in B: port in use"));
        assert_eq!(c.only_in_a.len(), 1);
        assert_eq!(c.only_in_a[0].subject, "rust-iron");
        assert_eq!(c.only_in_b[0].subject, "rust-hyper");

        let json = serde_json::to_value(&c).unwrap();
        let verdicts: Vec<&str> = json["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["verdict"].as_str().unwrap())
            .collect();
        assert!(verdicts.contains(&"within noise") && verdicts.contains(&"faster"));
        assert_eq!(json["cells"][0]["subject"], "rust-axum");
    }
}
