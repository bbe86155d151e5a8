//! The ratio B ÷ A of every measure between two cells: what `restbench ab`, `compare --fail-if`
//! and `history check` print and gate on.
//!
//! Two cells of one run measured in the same rounds are paired by round
//! ([`crate::statistics::interval::paired_ratio`]): a drift of the machine during a round moves both alike
//! and cancels. Cells of different runs, or without rounds, are compared unpaired over their
//! repeats ([`crate::statistics::interval::unpaired_ratio`]).

use serde::{Deserialize, Serialize};

use crate::statistics::interval::{Interval, paired_ratio, unpaired_ratio};
use crate::statistics::multiplicity;
use crate::{Cell, CellStatus, RepeatResult, Saturation};

/// A figure a ratio is taken of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    Rps,
    P50,
    P99,
    CpuUsPerReq,
    Rss,
}

crate::vocabulary!(Measure, "measure", {
    Rps => "rps",
    P50 => "p50",
    P99 => "p99",
    CpuUsPerReq => "cpu_us_per_req",
    Rss => "rss",
});

impl Measure {
    /// More is better for throughput; less for latency, CPU and memory.
    pub fn higher_is_better(self) -> bool {
        self == Measure::Rps
    }

    /// How a report heads the measure's column.
    pub fn label(self) -> &'static str {
        match self {
            Measure::Rps => "req/s",
            Measure::P50 => "p50",
            Measure::P99 => "p99",
            Measure::CpuUsPerReq => "CPU µs/req",
            Measure::Rss => "RSS",
        }
    }

    /// The words for B better and B worse.
    pub fn verdict_words(self) -> (&'static str, &'static str) {
        match self {
            Measure::Rps | Measure::P50 | Measure::P99 => ("faster", "slower"),
            Measure::CpuUsPerReq | Measure::Rss => ("leaner", "costlier"),
        }
    }
}

/// The ratio B ÷ A of one measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureRatio {
    pub measure: Measure,
    /// The ratio of the two cells' figures (medians), when both have the figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<f64>,
    /// Its 95 % interval, when both sides have two or more repeats of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// Paired by round (same run, same rounds) rather than unpaired over repeats.
    #[serde(default)]
    pub paired: bool,
    /// Whether the interval excludes 1 as a finding of the verdicts drawn with it, after Holm's
    /// correction ([`crate::statistics::multiplicity`]); `None`: not corrected (a document
    /// from before the correction, or a ratio judged alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct: Option<bool>,
}

/// B better, B worse, or the same within noise, for one measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Better,
    Worse,
    Same,
    NoInterval,
}

impl MeasureRatio {
    /// Better or worse only when the interval excludes 1, and the family's correction (when
    /// applied) keeps it.
    pub fn verdict(&self) -> Verdict {
        let Some(i) = self.interval else {
            return Verdict::NoInterval;
        };
        if self.distinct == Some(false) {
            return Verdict::Same;
        }
        let up = i.above(1.0);
        let down = i.below(1.0);
        match (up, down, self.measure.higher_is_better()) {
            (true, _, true) | (_, true, false) => Verdict::Better,
            (true, _, false) | (_, true, true) => Verdict::Worse,
            _ => Verdict::Same,
        }
    }

    /// `faster`, `slower`, `leaner`, `costlier`, `same`, `no interval`.
    pub fn verdict_word(&self) -> &'static str {
        let (better, worse) = self.measure.verdict_words();
        match self.verdict() {
            Verdict::Better => better,
            Verdict::Worse => worse,
            Verdict::Same => "same",
            Verdict::NoInterval => "no interval",
        }
    }
}

/// The ratios of one pair of cells (same workload, scenario and protocol).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatioRow {
    pub a_subject: String,
    pub b_subject: String,
    pub workload: String,
    pub scenario: String,
    pub protocol: String,
    pub ratios: Vec<MeasureRatio>,
}

impl RatioRow {
    pub fn ratio(&self, measure: Measure) -> Option<&MeasureRatio> {
        self.ratios.iter().find(|r| r.measure == measure)
    }

    /// `plaintext single-thread h1`, with the subject first when asked.
    pub fn label(&self, with_subject: bool) -> String {
        let cell = format!("{} {} {}", self.workload, self.scenario, self.protocol);
        if with_subject && self.a_subject == self.b_subject {
            format!("{} {cell}", self.a_subject)
        } else if with_subject {
            format!("{}→{} {cell}", self.a_subject, self.b_subject)
        } else {
            cell
        }
    }
}

/// A cell's figure of `measure` (its medians, as reports show them).
pub fn cell_figure(cell: &Cell, measure: Measure) -> Option<f64> {
    let v = match measure {
        Measure::Rps => cell.rps.median,
        Measure::P50 => cell.latency_us.p50 as f64,
        Measure::P99 => cell.latency_us.p99 as f64,
        Measure::CpuUsPerReq => cell.server.cpu_us_per_req,
        Measure::Rss => cell.server.rss_peak_bytes as f64,
    };
    Some(v).filter(|v| v.is_finite() && *v > 0.0)
}

/// A repeat's figure of `measure`; RSS is measured per cell, not per repeat.
pub fn repeat_figure(r: &RepeatResult, measure: Measure) -> Option<f64> {
    let v = match measure {
        Measure::Rps => r.rps,
        Measure::P50 => r.latency_us.p50 as f64,
        Measure::P99 => r.latency_us.p99 as f64,
        Measure::CpuUsPerReq if r.requests > 0 => {
            r.server_cpu_cores * r.duration_s * 1e6 / r.requests as f64
        }
        _ => return None,
    };
    Some(v).filter(|v| v.is_finite() && *v > 0.0)
}

/// The repeats that count (a contended slice does not).
fn counted(cell: &Cell) -> impl Iterator<Item = &RepeatResult> {
    cell.repeats
        .iter()
        .filter(|r| r.saturation != Some(Saturation::Contended))
}

/// Every counted repeat's figure of `measure`.
pub fn repeat_figures(cell: &Cell, measure: Measure) -> Vec<f64> {
    counted(cell)
        .filter_map(|r| repeat_figure(r, measure))
        .collect()
}

/// Per round (index = round), the figure of `measure`; `None` when every repeat lacks a round.
fn by_round(cell: &Cell, measure: Measure) -> Option<Vec<Option<f64>>> {
    let rounds: Vec<(u32, Option<f64>)> = counted(cell)
        .filter_map(|r| Some((r.round?, repeat_figure(r, measure))))
        .collect();
    if rounds.is_empty() {
        return None;
    }
    let n = rounds.iter().map(|(r, _)| *r).max().unwrap_or(0) as usize + 1;
    let mut out = vec![None; n];
    for (r, v) in rounds {
        out[r as usize] = v;
    }
    Some(out)
}

/// B ÷ A of every measure of two cells. `same_run`: the cells were measured in one run's rounds,
/// so rounds pair them when both have rounds.
pub fn cell_ratios(a: &Cell, b: &Cell, same_run: bool) -> Vec<MeasureRatio> {
    Measure::ALL
        .iter()
        .map(|&measure| {
            let estimate = match (cell_figure(a, measure), cell_figure(b, measure)) {
                (Some(x), Some(y)) => Some(y / x),
                _ => None,
            };
            let paired = if same_run {
                by_round(a, measure)
                    .zip(by_round(b, measure))
                    .and_then(|(x, y)| paired_ratio(&x, &y))
            } else {
                None
            };
            let interval = paired.or_else(|| {
                unpaired_ratio(&repeat_figures(a, measure), &repeat_figures(b, measure))
            });
            MeasureRatio {
                measure,
                estimate: interval.map(|i| i.estimate).or(estimate),
                interval,
                paired: paired.is_some(),
                distinct: None,
            }
        })
        .collect()
}

/// The row of two cells (their workload, scenario and protocol are A's).
pub fn ratio_row(a: &Cell, b: &Cell, same_run: bool) -> RatioRow {
    RatioRow {
        a_subject: a.subject.clone(),
        b_subject: b.subject.clone(),
        workload: a.workload.clone(),
        scenario: a.scenario.clone(),
        protocol: a.protocol.clone(),
        ratios: cell_ratios(a, b, same_run),
    }
}

/// Holm's correction over every ratio with an interval in `rows`: the verdicts a command draws
/// at once are one family, so an A/A comparison of many measures says "same" everywhere.
pub fn correct_for_multiplicity(rows: &mut [RatioRow]) {
    let judged: Vec<(usize, usize, Interval)> = rows
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.ratios
                .iter()
                .enumerate()
                .filter_map(move |(m, ratio)| Some((r, m, ratio.interval?)))
        })
        .collect();
    let intervals: Vec<Interval> = judged.iter().map(|(_, _, i)| *i).collect();
    for ((r, m, _), d) in judged.iter().zip(multiplicity::distinct(&intervals)) {
        rows[*r].ratios[*m].distinct = Some(d);
    }
}

/// The rows of subject `a` against subject `b` within one run: every measured cell of `a`
/// with its counterpart of `b`, corrected for their number ([`correct_for_multiplicity`]).
pub fn ab_rows(cells: &[Cell], a: &str, b: &str) -> Vec<RatioRow> {
    let mut rows = ab_rows_uncorrected(cells, a, b);
    correct_for_multiplicity(&mut rows);
    rows
}

fn ab_rows_uncorrected(cells: &[Cell], a: &str, b: &str) -> Vec<RatioRow> {
    cells
        .iter()
        .filter(|c| c.subject == a && c.status == CellStatus::Ok)
        .filter_map(|ca| {
            let cb = cells.iter().find(|c| {
                c.subject == b
                    && c.status == CellStatus::Ok
                    && c.workload == ca.workload
                    && c.scenario == ca.scenario
                    && c.protocol == ca.protocol
            })?;
            Some(ratio_row(ca, cb, true))
        })
        .collect()
}

/// The rows of two runs: cells of the same subject, workload, scenario and protocol, corrected
/// for their number ([`correct_for_multiplicity`]).
pub fn run_rows(base: &[Cell], head: &[Cell]) -> Vec<RatioRow> {
    let mut rows: Vec<RatioRow> = base
        .iter()
        .filter(|c| c.status == CellStatus::Ok)
        .filter_map(|ca| {
            let cb = head.iter().find(|c| {
                c.status == CellStatus::Ok
                    && c.subject == ca.subject
                    && c.workload == ca.workload
                    && c.scenario == ca.scenario
                    && c.protocol == ca.protocol
            })?;
            Some(ratio_row(ca, cb, false))
        })
        .collect();
    correct_for_multiplicity(&mut rows);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CellSubject, LatencySummary, RpsStats, Scenario, Workload};

    /// A plaintext cell whose repeats (round, req/s) each served 2 s on 0.9 cores.
    fn cell_with_repeats(subject: &str, repeats: &[(u32, f64)]) -> Cell {
        let who = CellSubject {
            id: subject.into(),
            language: "rust".into(),
            framework: "f".into(),
            framework_version: "1".into(),
        };
        let mut c = Cell::new(&who, Workload::Plaintext, Scenario::SingleThread);
        c.repeats = repeats
            .iter()
            .map(|&(round, rps)| RepeatResult {
                rps,
                requests: (rps * 2.0) as u64,
                duration_s: 2.0,
                latency_us: LatencySummary {
                    p50: 100,
                    p99: 400,
                    ..LatencySummary::default()
                },
                errors: Default::default(),
                server_cpu_cores: 0.9,
                loadgen_cpu_cores: 0.5,
                timeseries: Vec::new(),
                round: Some(round),
                saturation: Some(Saturation::Server),
            })
            .collect();
        let mut sorted: Vec<f64> = repeats.iter().map(|r| r.1).collect();
        sorted.sort_by(f64::total_cmp);
        c.rps = RpsStats {
            median: sorted[sorted.len() / 2],
            ..RpsStats::default()
        };
        c.server.rss_peak_bytes = 10 << 20;
        c.latency_us = c.repeats[0].latency_us;
        c
    }

    #[test]
    fn cells_of_one_run_pair_by_round_and_drift_cancels() {
        // Round 1 is slow for both; B is 10 % faster every round.
        let a = cell_with_repeats("s@a", &[(0, 1000.0), (1, 500.0), (2, 1000.0)]);
        let b = cell_with_repeats("s@b", &[(0, 1100.0), (1, 550.0), (2, 1100.0)]);
        let rows = ab_rows(&[a.clone(), b.clone()], "s@a", "s@b");
        assert_eq!(rows.len(), 1);
        let rps = rows[0].ratio(Measure::Rps).unwrap();
        assert!(rps.paired);
        let i = rps.interval.unwrap();
        assert!((i.estimate - 1.1).abs() < 1e-9 && i.low > 1.09, "{i:?}");
        assert_eq!(rps.verdict(), Verdict::Better);
        assert_eq!(rps.verdict_word(), "faster");
        // CPU per request: the same cores and duration, more requests: leaner.
        let cpu = rows[0].ratio(Measure::CpuUsPerReq).unwrap();
        assert_eq!(cpu.verdict_word(), "leaner");
        // RSS has no per-repeat figure: an estimate, no interval.
        let rss = rows[0].ratio(Measure::Rss).unwrap();
        assert_eq!(rss.verdict(), Verdict::NoInterval);
        // Across runs the same figures are unpaired, and the slow round widens the interval.
        let rows = run_rows(
            &[a],
            &[cell_with_repeats(
                "s@a",
                &[(0, 1100.0), (1, 550.0), (2, 1100.0)],
            )],
        );
        let rps = rows[0].ratio(Measure::Rps).unwrap();
        assert!(!rps.paired);
        assert_eq!(rps.verdict(), Verdict::Same, "{rps:?}");
    }

    #[test]
    fn contended_slices_do_not_count() {
        let mut a = cell_with_repeats("s@a", &[(0, 1000.0), (1, 1000.0), (2, 1000.0)]);
        let b = cell_with_repeats("s@b", &[(0, 1000.0), (1, 100.0), (2, 1000.0)]);
        let mut b2 = b.clone();
        b2.repeats[1].saturation = Some(Saturation::Contended);
        let rows = ab_rows(&[a.clone(), b2], "s@a", "s@b");
        let i = rows[0].ratio(Measure::Rps).unwrap().interval.unwrap();
        assert_eq!(i.n, 2);
        assert!((i.estimate - 1.0).abs() < 1e-9);
        // Without rounds: unpaired over the repeats.
        for r in &mut a.repeats {
            r.round = None;
        }
        let rows = ab_rows(&[a, b], "s@a", "s@b");
        assert!(!rows[0].ratio(Measure::Rps).unwrap().paired);
    }
}
