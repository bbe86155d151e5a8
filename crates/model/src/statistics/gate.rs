//! The regression gate: thresholds such as `cpu_us_per_req>+5%` checked against the 95 %
//! interval of a ratio (B ÷ A, or head ÷ base). A check fails only when the whole interval lies
//! beyond the threshold; an estimate beyond it with an interval that is not is "within noise"
//! and passes with a warning, so a gate on a noisy runner does not cry wolf.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::statistics::ab_ratios::{Measure, MeasureRatio, RatioRow};
use crate::{Environment, Interval};

/// Which side of the threshold fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// `>`: the ratio must not exceed `1 + change`.
    Above,
    /// `<`: the ratio must not fall below `1 + change`.
    Below,
}

/// One `--fail-if` expression: `p99>+10%`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    pub measure: Measure,
    pub direction: Direction,
    /// The change as a fraction: `+0.05`, `-0.05`.
    pub change: f64,
}

impl Threshold {
    /// The ratio the threshold sits at: `1.05` for `+5%`.
    pub fn bound(&self) -> f64 {
        1.0 + self.change
    }

    fn beyond(&self, x: f64) -> bool {
        match self.direction {
            Direction::Above => x > self.bound(),
            Direction::Below => x < self.bound(),
        }
    }

    /// The whole interval lies beyond the threshold.
    fn wholly_beyond(&self, i: &Interval) -> bool {
        match self.direction {
            Direction::Above => i.above(self.bound()),
            Direction::Below => i.below(self.bound()),
        }
    }
}

impl fmt::Display for Threshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.direction {
            Direction::Above => '>',
            Direction::Below => '<',
        };
        write!(f, "{}{op}{:+}%", self.measure, round2(self.change * 100.0))
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// A `--fail-if` expression that does not read, with what was wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("--fail-if {expression:?}: {reason}")]
pub struct ThresholdError {
    pub expression: String,
    pub reason: String,
}

impl FromStr for Threshold {
    type Err = ThresholdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |reason: String| ThresholdError {
            expression: s.to_string(),
            reason,
        };
        let known = Measure::ALL
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let text: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(at) = text.find(['>', '<']) else {
            return Err(err(format!(
                "write MEASURE>+PCT% or MEASURE<-PCT% (such as cpu_us_per_req>+5%); measures: {known}"
            )));
        };
        let (name, rest) = text.split_at(at);
        let measure: Measure = name
            .parse()
            .map_err(|_| err(format!("unknown measure {name:?}; known: {known}")))?;
        let direction = if rest.starts_with('>') {
            Direction::Above
        } else {
            Direction::Below
        };
        let number = rest[1..].strip_suffix('%').ok_or_else(|| {
            err("the change must be a percentage ending in % (such as +5%)".into())
        })?;
        let pct: f64 = number
            .parse()
            .ok()
            .filter(|p: &f64| p.is_finite())
            .ok_or_else(|| err(format!("{number:?} is not a number of percent")))?;
        if pct <= -100.0 {
            return Err(err("a ratio cannot fall by 100 % or more".into()));
        }
        Ok(Threshold {
            measure,
            direction,
            change: pct / 100.0,
        })
    }
}

/// What one threshold said about one pair of cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// The interval lies wholly beyond the threshold: a regression.
    Fail,
    /// The estimate is beyond it, the interval is not: within noise, not failed.
    Noise,
    /// Within the threshold.
    Pass,
    /// No interval (one repeat, or the figure was not measured): nothing to judge.
    NoInterval,
}

/// One threshold on one pair of cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateCheck {
    pub threshold: String,
    /// `workload scenario protocol` (and the subject when the rows have several).
    pub cell: String,
    pub check: Check,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// One line for a person.
    pub sentence: String,
}

/// Every threshold over every row, and whether the gate failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    pub checks: Vec<GateCheck>,
    pub failed: bool,
    /// When the two sides ran on different machines (`--across-machines`), what differed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machine_differences: Vec<String>,
}

impl GateReport {
    pub fn failures(&self) -> impl Iterator<Item = &GateCheck> {
        self.checks.iter().filter(|c| c.check == Check::Fail)
    }

    /// The one-line summary: failed, or passed (and how many checks were within noise).
    pub fn summary(&self) -> String {
        let count = |k: Check| self.checks.iter().filter(|c| c.check == k).count();
        let (fail, noise, none) = (
            count(Check::Fail),
            count(Check::Noise),
            count(Check::NoInterval),
        );
        let mut s = if fail > 0 {
            format!(
                "gate failed: {fail} of {} checks regressed beyond their threshold",
                self.checks.len()
            )
        } else {
            format!(
                "gate passed: {} checks, none regressed beyond its threshold",
                self.checks.len()
            )
        };
        if noise > 0 {
            s.push_str(&format!("; {noise} beyond it but the same within noise"));
        }
        if none > 0 {
            s.push_str(&format!("; {none} without an interval not judged"));
        }
        s
    }
}

/// Checks every threshold against every row's ratio of its measure.
pub fn evaluate(thresholds: &[Threshold], rows: &[RatioRow]) -> GateReport {
    let mut checks = Vec::new();
    let several_subjects = rows
        .iter()
        .any(|r| r.b_subject != rows[0].b_subject || r.a_subject != rows[0].a_subject);
    for row in rows {
        let cell = row.label(several_subjects);
        for t in thresholds {
            let ratio = row.ratio(t.measure);
            checks.push(check_one(t, &cell, ratio));
        }
    }
    let failed = checks.iter().any(|c| c.check == Check::Fail);
    GateReport {
        checks,
        failed,
        machine_differences: Vec::new(),
    }
}

fn check_one(t: &Threshold, cell: &str, ratio: Option<&MeasureRatio>) -> GateCheck {
    let interval = ratio.and_then(|r| r.interval);
    let (check, sentence) = match (ratio, interval) {
        (_, Some(i)) if t.wholly_beyond(&i) => (
            Check::Fail,
            format!(
                "{cell}: {} ×{:.3} [{:.3}, {:.3}] lies wholly beyond {t}",
                t.measure.label(),
                i.estimate,
                i.low,
                i.high
            ),
        ),
        (_, Some(i)) if t.beyond(i.estimate) => (
            Check::Noise,
            format!(
                "{cell}: {} ×{:.3} is beyond {t} but its interval [{:.3}, {:.3}] reaches within it: the same within noise",
                t.measure.label(),
                i.estimate,
                i.low,
                i.high
            ),
        ),
        (_, Some(i)) => (
            Check::Pass,
            format!(
                "{cell}: {} ×{:.3} [{:.3}, {:.3}] within {t}",
                t.measure.label(),
                i.estimate,
                i.low,
                i.high
            ),
        ),
        (Some(r), None) if r.estimate.is_some() => (
            Check::NoInterval,
            format!(
                "{cell}: {} ×{:.3} has no interval ({}): not judged against {t}",
                t.measure.label(),
                r.estimate.unwrap_or(f64::NAN),
                if t.measure == Measure::Rss {
                    "memory is one figure per cell"
                } else {
                    "fewer than two rounds that count: one repeat, or the others contended"
                }
            ),
        ),
        _ => (
            Check::NoInterval,
            format!(
                "{cell}: no {} figure on both sides: not judged against {t}",
                t.measure.label()
            ),
        ),
    };
    GateCheck {
        threshold: t.to_string(),
        cell: cell.to_string(),
        check,
        interval,
        sentence,
    }
}

/// What differs between two machines in what moves figures: CPU model, cores, kernel and the
/// cgroup backend (empty when they are the same machine for that purpose).
pub fn machine_differences(a: &Environment, b: &Environment) -> Vec<String> {
    let mut out = Vec::new();
    let mut differ = |what: &str, x: String, y: String| {
        if x != y {
            out.push(format!("{what}: {x} vs {y}"));
        }
    };
    differ("CPU model", a.cpu_model.clone(), b.cpu_model.clone());
    differ("cores", a.cores.to_string(), b.cores.to_string());
    differ("kernel", a.kernel.clone(), b.kernel.clone());
    differ("cgroup backend", a.backend.clone(), b.backend.clone());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::statistics::ab_ratios::RatioRow;

    fn row(measure: Measure, low: f64, estimate: f64, high: f64) -> RatioRow {
        RatioRow {
            a_subject: "s@a".into(),
            b_subject: "s@b".into(),
            workload: "plaintext".into(),
            scenario: "single-thread".into(),
            protocol: "h1".into(),
            ratios: vec![MeasureRatio {
                measure,
                estimate: Some(estimate),
                interval: Some(Interval {
                    estimate,
                    low,
                    high,
                    n: 5,
                }),
                paired: true,
                distinct: None,
            }],
        }
    }

    #[test]
    fn expressions_parse_and_bad_ones_say_why() {
        let t: Threshold = "cpu_us_per_req>+5%".parse().unwrap();
        assert_eq!(t.measure, Measure::CpuUsPerReq);
        assert_eq!(t.direction, Direction::Above);
        assert!((t.bound() - 1.05).abs() < 1e-12);
        assert_eq!(t.to_string(), "cpu_us_per_req>+5%");
        let t: Threshold = " rps < -5 % ".parse().unwrap();
        assert_eq!((t.measure, t.direction), (Measure::Rps, Direction::Below));
        assert!((t.bound() - 0.95).abs() < 1e-12);
        assert_eq!(
            "p99>10%".parse::<Threshold>().unwrap().to_string(),
            "p99>+10%"
        );
        let e = "latency>+5%".parse::<Threshold>().unwrap_err().to_string();
        assert!(
            e.contains("unknown measure \"latency\"") && e.contains("cpu_us_per_req"),
            "{e}"
        );
        let e = "p99=+5%".parse::<Threshold>().unwrap_err().to_string();
        assert!(e.contains("MEASURE>+PCT%"), "{e}");
        let e = "p99>+5".parse::<Threshold>().unwrap_err().to_string();
        assert!(e.contains("ending in %"), "{e}");
        let e = "p99>+x%".parse::<Threshold>().unwrap_err().to_string();
        assert!(e.contains("not a number"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn only_an_interval_wholly_beyond_fails() {
        let cpu: Threshold = "cpu_us_per_req>+5%".parse().unwrap();
        let fail = evaluate(
            std::slice::from_ref(&cpu),
            &[row(Measure::CpuUsPerReq, 1.06, 1.08, 1.10)],
        );
        assert!(fail.failed);
        assert_eq!(fail.checks[0].check, Check::Fail);
        assert!(
            fail.summary().starts_with("gate failed"),
            "{}",
            fail.summary()
        );
        let noise = evaluate(
            std::slice::from_ref(&cpu),
            &[row(Measure::CpuUsPerReq, 0.98, 1.07, 1.15)],
        );
        assert!(!noise.failed);
        assert_eq!(noise.checks[0].check, Check::Noise);
        assert!(noise.checks[0].sentence.contains("same within noise"));
        assert!(
            noise.summary().contains("within noise"),
            "{}",
            noise.summary()
        );
        let pass = evaluate(&[cpu], &[row(Measure::CpuUsPerReq, 0.97, 1.0, 1.03)]);
        assert_eq!(pass.checks[0].check, Check::Pass);
        // Below: rps falling by more than 5 %.
        let rps: Threshold = "rps<-5%".parse().unwrap();
        assert!(
            evaluate(
                std::slice::from_ref(&rps),
                &[row(Measure::Rps, 0.80, 0.85, 0.90)]
            )
            .failed
        );
        assert!(
            !evaluate(
                std::slice::from_ref(&rps),
                &[row(Measure::Rps, 0.80, 0.85, 0.96)]
            )
            .failed
        );
        // A measure the row does not have is not judged, and does not fail.
        let other = evaluate(&[rps], &[row(Measure::P99, 2.0, 3.0, 4.0)]);
        assert_eq!(other.checks[0].check, Check::NoInterval);
        assert!(!other.failed);
        // RSS is one figure per cell: an estimate without an interval, and the check says why.
        let mut memory = row(Measure::Rss, 1.0, 1.5, 2.0);
        memory.ratios[0].interval = None;
        let rss: Threshold = "rss>+10%".parse().unwrap();
        let judged = evaluate(&[rss], &[memory]);
        assert_eq!(judged.checks[0].check, Check::NoInterval);
        assert!(!judged.failed);
        assert!(
            judged.checks[0]
                .sentence
                .contains("memory is one figure per cell"),
            "{:?}",
            judged.checks[0]
        );
    }

    #[test]
    fn machines_differ_in_what_moves_figures_only() {
        let a = Environment {
            cpu_model: "EPYC".into(),
            cores: 2,
            kernel: "6.1".into(),
            backend: "cgroup-v2".into(),
            hostname: "one".into(),
            ..Environment::default()
        };
        let same = Environment {
            hostname: "two".into(),
            ..a.clone()
        };
        assert!(machine_differences(&a, &same).is_empty());
        let b = Environment {
            cores: 4,
            kernel: "6.8".into(),
            ..a.clone()
        };
        assert_eq!(
            machine_differences(&a, &b),
            vec![
                "cores: 2 vs 4".to_string(),
                "kernel: 6.1 vs 6.8".to_string()
            ]
        );
    }
}
