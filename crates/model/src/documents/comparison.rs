//! The documents of `restbench compare --json`: two runs ([`Comparison`]) or two `load` results
//! ([`LoadComparison`]) side by side, B as ratios of A with a verdict on the noise. The report
//! crate computes them; they are written here, with the other documents, so the on-disk schema
//! changes in one crate. The CLI prints them inside [`crate::Versioned`], which writes their
//! [`Document::SCHEMA_VERSION`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Document;
use crate::BoundBy;

/// What a change in throughput amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// B serves more requests per second than A, beyond the noise.
    #[serde(rename = "faster")]
    Faster,
    /// B serves fewer requests per second than A, beyond the noise.
    #[serde(rename = "slower")]
    Slower,
    /// The interval of B ÷ A does not exclude 1 by more than the noise of both runs. Documents
    /// written before intervals said "within noise"; they read as this.
    #[serde(rename = "same", alias = "within noise")]
    Same,
    /// A side has fewer than two figures that count (one repeat, or every other one contended):
    /// no interval, so no verdict.
    #[serde(rename = "no interval")]
    NoInterval,
    /// One side failed or was skipped.
    #[serde(rename = "not comparable")]
    NotComparable,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Same => "same",
            Verdict::NoInterval => "no interval",
            Verdict::NotComparable => "not comparable",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which cell: subject × workload × scenario × protocol, and the settings label when one run
/// holds the same key more than once (study variants such as `GOMAXPROCS=1`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    pub subject: String,
    pub workload: String,
    pub scenario: String,
    /// `h1` or `h2c`; comparisons written before protocols existed read `h1`.
    #[serde(
        default = "crate::vocabulary::protocol::default_protocol",
        skip_serializing_if = "is_h1"
    )]
    pub protocol: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

fn is_h1(p: &str) -> bool {
    p == "h1"
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
    /// B ÷ A of req/s, a 95 % interval from the two runs' per-round figures (Welch on logs);
    /// absent with fewer than two counting repeats on a side, and in older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps_interval: Option<crate::Interval>,
    /// B ÷ A of server CPU µs per request, the same way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us_per_req_interval: Option<crate::Interval>,
    /// The margin beyond 1 the req/s interval had to clear for a verdict: the two runs' noise
    /// combined (`0.04` is 4 %); absent when no noise was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<f64>,
    pub verdict: Verdict,
    /// Why the cell is not comparable, or flags that weaken the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Both runs searched this cell's capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<ComparedCapacity>,
    /// The equal-load rates both runs loaded this cell at.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub at_rate: Vec<ComparedRate>,
}

/// A cell's capacity in both runs. The ratio is given only when both are the server's under the
/// same SLO: a floor compared with anything says nothing about the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparedCapacity {
    pub slo_a: String,
    pub slo_b: String,
    pub a_rate: Option<f64>,
    pub b_rate: Option<f64>,
    pub a_bound_by: BoundBy,
    pub b_bound_by: BoundBy,
    /// B's capacity ÷ A's.
    pub ratio: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A cell at one equal-load rate in both runs. The CPU ratio is given only when both held it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparedRate {
    pub target: f64,
    pub a_achieved: f64,
    pub b_achieved: f64,
    pub a_held: bool,
    pub b_held: bool,
    pub a_cpu_us_per_req: Option<f64>,
    pub b_cpu_us_per_req: Option<f64>,
    /// B's server CPU µs per request ÷ A's (below 1 is better).
    pub cpu_ratio: Option<f64>,
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

/// Printed inside [`crate::Versioned`], which carries this version.
impl Document for Comparison {
    const SCHEMA_VERSION: u32 = 1;
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

/// How a load run was shaped, for the heading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadLabel {
    pub url: String,
    pub method: String,
    pub connections: u32,
    pub threads: u32,
    /// `10s`, `500 requests`, plus `at 5000 req/s` with a rate.
    pub shape: String,
    pub duration_s: f64,
}

/// Which direction is an improvement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    Higher,
    Lower,
}

/// How a metric's values read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    PerSecond,
    Micros,
    Count,
    Percent,
    BytesPerSecond,
}

/// One figure of both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadMetric {
    /// `req/s`, `p99`, `errors`, …
    pub metric: String,
    pub unit: Unit,
    pub a: f64,
    pub b: f64,
    /// B ÷ A; absent when A is 0.
    pub ratio: Option<f64>,
    pub better: Better,
}

/// The comparison of load result B against load result A.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadComparison {
    pub a: LoadLabel,
    pub b: LoadLabel,
    /// Settings that differ between the two runs (`connections 10 → 64`): the ratios then mix
    /// the server's change with the load's.
    pub differences: Vec<String>,
    pub metrics: Vec<LoadMetric>,
    /// On req/s, beyond each run's own per-second noise or not.
    pub verdict: Verdict,
    /// B ÷ A of req/s from the two runs' whole seconds (Welch on logs), when each has two or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps_interval: Option<crate::Interval>,
    /// The margin the interval had to clear: each run's drift (its second half's rate against
    /// its first half's), combined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<f64>,
    /// Per-second coefficient of variation of each run's rate, the noise the verdict used.
    pub a_cv: f64,
    pub b_cv: f64,
}

/// Printed inside [`crate::Versioned`], which carries this version.
impl Document for LoadComparison {
    const SCHEMA_VERSION: u32 = 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_read_as_written() {
        for v in [
            Verdict::Faster,
            Verdict::Slower,
            Verdict::Same,
            Verdict::NoInterval,
            Verdict::NotComparable,
        ] {
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(json, format!("\"{v}\""));
            assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), v);
        }
        // Comparisons written before intervals said "within noise".
        assert_eq!(
            serde_json::from_str::<Verdict>("\"within noise\"").unwrap(),
            Verdict::Same
        );
    }
}
