//! Open-loop figures: a latency SLO, the capacity a server holds under it, and the constant-rate
//! steps both are made of (`restbench load --slo`, and the `capacity` and `at_rate` of a cell).
//!
//! A closed-loop rate says how fast a server answers when it is kept saturated; its latency is
//! that of a full queue. A *capacity* is the highest rate a server answers while its latency,
//! measured from each request's intended send time (wrk2's model), stays within every clause of
//! an [`Slo`]. A capacity the generator could not push past is a floor and says so
//! ([`BoundBy::Generator`]).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{ErrorCounts, LatencySummary};

/// A latency percentile an SLO clause can bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Percentile {
    P50,
    P90,
    P99,
    P999,
}

impl Percentile {
    pub const ALL: [Percentile; 4] = [
        Percentile::P50,
        Percentile::P90,
        Percentile::P99,
        Percentile::P999,
    ];

    /// The name in a clause: `p50`, `p90`, `p99`, `p99.9`.
    pub const fn name(self) -> &'static str {
        match self {
            Percentile::P50 => "p50",
            Percentile::P90 => "p90",
            Percentile::P99 => "p99",
            Percentile::P999 => "p99.9",
        }
    }

    /// This percentile of a summary, in microseconds.
    pub fn of(self, l: &LatencySummary) -> u64 {
        match self {
            Percentile::P50 => l.p50,
            Percentile::P90 => l.p90,
            Percentile::P99 => l.p99,
            Percentile::P999 => l.p999,
        }
    }
}

/// One clause of an SLO: `p99<=10ms` or `errors<=0.1%`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SloClause {
    /// This percentile of the latency (from the intended send time) at most `max_us`.
    Latency { percentile: Percentile, max_us: u64 },
    /// Failed requests (non-2xx/3xx answers and requests with no answer) at most this
    /// percentage of those sent.
    Errors { max_percent: f64 },
}

/// Why a clause could not be read; the message shows the accepted forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid SLO clause {text:?}: {reason} (expected p50|p90|p99|p99.9<=DURATION such as \
     p99<=10ms, or errors<=PERCENT% such as errors<=0.1%)"
)]
pub struct SloParseError {
    pub text: String,
    pub reason: String,
}

impl FromStr for SloClause {
    type Err = SloParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let fail = |reason: &str| SloParseError {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let Some((name, value)) = compact.split_once("<=") else {
            return Err(fail("no '<='"));
        };
        let name = name.to_ascii_lowercase();
        if name == "errors" {
            let Some(number) = value.strip_suffix('%') else {
                return Err(fail("the error bound needs a '%'"));
            };
            let pct: f64 = number
                .parse()
                .map_err(|_| fail(&format!("{number:?} is not a number")))?;
            if !(pct.is_finite() && (0.0..=100.0).contains(&pct)) {
                return Err(fail("the error bound must be from 0% to 100%"));
            }
            return Ok(SloClause::Errors { max_percent: pct });
        }
        let percentile = Percentile::ALL
            .into_iter()
            .find(|p| p.name() == name || (name == "p999" && *p == Percentile::P999))
            .ok_or_else(|| fail(&format!("unknown measure {name:?}")))?;
        let max_us = parse_micros(value).map_err(|reason| fail(&reason))?;
        Ok(SloClause::Latency { percentile, max_us })
    }
}

/// `10ms`, `500us`, `250µs`, `1.5s` in whole microseconds (at least 1 µs, at most 60 s: the
/// histograms' range).
fn parse_micros(value: &str) -> Result<u64, String> {
    let split = value
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("{value:?} has no unit (us, ms or s)"))?;
    let (number, unit) = value.split_at(split);
    if number.is_empty() {
        return Err(format!("{value:?} is not a duration such as 10ms"));
    }
    let n: f64 = number
        .parse()
        .map_err(|_| format!("{number:?} is not a number"))?;
    let scale = match unit {
        "us" | "µs" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        _ => return Err(format!("unknown unit {unit:?} (us, ms or s)")),
    };
    let us = n * scale;
    if !(us.is_finite() && (1.0..=crate::documents::histogram::HIGHEST_US as f64).contains(&us)) {
        return Err("the latency bound must be from 1us to 60s".into());
    }
    Ok(us.round() as u64)
}

impl fmt::Display for SloClause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SloClause::Latency { percentile, max_us } => {
                let (v, unit) = if max_us % 1_000_000 == 0 {
                    (max_us / 1_000_000, "s")
                } else if max_us % 1000 == 0 {
                    (max_us / 1000, "ms")
                } else {
                    (*max_us, "us")
                };
                write!(f, "{}<={v}{unit}", percentile.name())
            }
            SloClause::Errors { max_percent } => write!(f, "errors<={max_percent}%"),
        }
    }
}

impl Serialize for SloClause {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SloClause {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Every clause must hold. Written as a list of clause texts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Slo(pub Vec<SloClause>);

impl Slo {
    /// Parses each text as a clause (`--slo` may be repeated).
    pub fn parse_all<S: AsRef<str>>(texts: &[S]) -> Result<Self, SloParseError> {
        texts
            .iter()
            .map(|t| t.as_ref().parse())
            .collect::<Result<Vec<_>, _>>()
            .map(Slo)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The clauses a step breaks, as their texts with the measured value
    /// (`p99<=10ms (was 14.2ms)`); empty when it meets them all.
    pub fn broken(&self, latency: &LatencySummary, errors_percent: f64) -> Vec<String> {
        let mut out = Vec::new();
        for clause in &self.0 {
            match *clause {
                SloClause::Latency { percentile, max_us } => {
                    let v = percentile.of(latency);
                    if v > max_us {
                        out.push(format!("{clause} (was {v}us)"));
                    }
                }
                SloClause::Errors { max_percent } => {
                    if errors_percent > max_percent {
                        out.push(format!("{clause} (was {errors_percent:.3}%)"));
                    }
                }
            }
        }
        out
    }

    /// The latency bound on `percentile`, if a clause sets one.
    pub fn latency_bound(&self, percentile: Percentile) -> Option<u64> {
        self.0.iter().find_map(|c| match *c {
            SloClause::Latency {
                percentile: p,
                max_us,
            } if p == percentile => Some(max_us),
            _ => None,
        })
    }
}

impl fmt::Display for Slo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&texts.join(" and "))
    }
}

/// What set the capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoundBy {
    /// The server: the first failing rate above it failed with the generator's CPUs to spare.
    Server,
    /// The generator reached its own limit (it fell short of a rate with its CPUs saturated, or
    /// its closed-loop probe was already generator-bound): the rate is a floor, not the server's.
    Generator,
    /// Every rate tried passed and the step budget ran out before one failed: a floor.
    Search,
}

impl BoundBy {
    pub const fn name(self) -> &'static str {
        match self {
            BoundBy::Server => "server",
            BoundBy::Generator => "generator",
            BoundBy::Search => "search",
        }
    }

    /// False when the rate is only a lower bound on what the server can do.
    pub const fn is_server(self) -> bool {
        matches!(self, BoundBy::Server)
    }
}

/// What the server used during one step (harness runs only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StepServer {
    pub cpu_cores: f64,
    pub cpu_us_per_req: f64,
    pub rss_peak_bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup_memory_peak_bytes: Option<u64>,
}

/// One constant-rate load: its own warm-up, then `duration_s` measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RateStep {
    pub target_rps: f64,
    /// Answered requests per second while measuring.
    pub achieved_rps: f64,
    pub duration_s: f64,
    pub sent: u64,
    pub requests: u64,
    pub errors: ErrorCounts,
    /// Failed requests as a percentage of those sent (what `errors<=` bounds).
    pub errors_percent: f64,
    /// From each request's intended send time.
    pub latency_us: LatencySummary,
    /// The step met every clause and held its rate.
    pub pass: bool,
    /// Why it did not: broken clauses, or the rate it could not hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    pub loadgen_cpu_cores: f64,
    /// The generator used (nearly) all the CPU it had: a failure is then the generator's.
    #[serde(default)]
    pub generator_saturated: bool,
    /// How far the generator fell behind its schedule at worst, in microseconds.
    #[serde(default)]
    pub max_schedule_lag_us: u64,
    /// Base64 V2+DEFLATE HdrHistogram of `latency_us`.
    pub histogram: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<StepServer>,
}

impl RateStep {
    /// Achieved / target.
    pub fn held_fraction(&self) -> f64 {
        if self.target_rps > 0.0 {
            self.achieved_rps / self.target_rps
        } else {
            0.0
        }
    }
}

/// The closed-loop probe that bounds the search from above.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CapacityProbe {
    pub rps: f64,
    pub connections: u32,
    pub duration_s: f64,
    pub loadgen_cpu_cores: f64,
    pub generator_saturated: bool,
}

/// The highest rate that met every clause, and how it was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Capacity {
    pub slo: Slo,
    /// The highest *achieved* rate of a passing step; `None` when no step passed.
    pub rate: Option<f64>,
    pub bound_by: BoundBy,
    /// Why `bound_by`, in a sentence.
    pub reason: String,
    pub probe: CapacityProbe,
    /// The search stops when a passing and a failing rate are this close (fraction of the
    /// failing one).
    pub resolution: f64,
    /// A step passes only when its achieved rate is at least this fraction of its target.
    pub hold_fraction: f64,
    pub step_duration_s: f64,
    pub step_warmup_s: f64,
    /// The CPU the generator had (cores), when known: saturation is judged against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generator_cores: Option<f64>,
    /// In the order they ran.
    pub steps: Vec<RateStep>,
    /// The search was cut short (Ctrl-C).
    #[serde(default)]
    pub interrupted: bool,
}

impl Capacity {
    /// The passing step that set [`Self::rate`].
    pub fn at_capacity(&self) -> Option<&RateStep> {
        self.steps.iter().filter(|s| s.pass).max_by(|a, b| {
            a.achieved_rps
                .partial_cmp(&b.achieved_rps)
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    }

    /// Whether [`Self::rate`] is only a floor (something other than the server bound it), which a
    /// reader sees as "at least".
    pub fn is_floor(&self) -> bool {
        !self.bound_by.is_server()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_parse_and_print_back() {
        for (text, back) in [
            ("p99<=10ms", "p99<=10ms"),
            ("p50 <= 500us", "p50<=500us"),
            ("p99.9<=1s", "p99.9<=1s"),
            ("P90<=1.5ms", "p90<=1500us"),
            ("p999<=250µs", "p99.9<=250us"),
            ("errors<=0.1%", "errors<=0.1%"),
            ("errors<=0%", "errors<=0%"),
        ] {
            let c: SloClause = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(c.to_string(), back, "{text}");
            assert_eq!(back.parse::<SloClause>().unwrap(), c);
        }
    }

    #[test]
    fn bad_clauses_say_what_is_wrong() {
        for (text, needle) in [
            ("p99", "no '<='"),
            ("p95<=10ms", "unknown measure"),
            ("p99<=10", "no unit"),
            ("p99<=10h", "unknown unit"),
            ("p99<=0ms", "from 1us to 60s"),
            ("p99<=99s", "from 1us to 60s"),
            ("p99<=x ms", "not a duration"),
            ("p99<=1.2.3ms", "not a number"),
            ("errors<=0.1", "needs a '%'"),
            ("errors<=200%", "0% to 100%"),
            ("errors<=NaN%", "0% to 100%"),
        ] {
            let e = text.parse::<SloClause>().unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
            assert!(e.contains("p99<=10ms"), "the message shows the forms: {e}");
        }
    }

    #[test]
    fn an_slo_names_the_clauses_a_step_breaks() {
        let slo = Slo::parse_all(&["p99<=10ms", "errors<=0.1%"]).unwrap();
        let ok = LatencySummary {
            p99: 9_000,
            ..LatencySummary::default()
        };
        assert!(slo.broken(&ok, 0.05).is_empty());
        let slow = LatencySummary {
            p99: 12_000,
            ..LatencySummary::default()
        };
        let broken = slo.broken(&slow, 1.0);
        assert_eq!(broken.len(), 2, "{broken:?}");
        assert!(broken[0].starts_with("p99<=10ms"));
        assert!(broken[1].starts_with("errors<=0.1%"));
        assert_eq!(slo.latency_bound(Percentile::P99), Some(10_000));
        assert_eq!(slo.to_string(), "p99<=10ms and errors<=0.1%");
        let json = serde_json::to_string(&slo).unwrap();
        assert_eq!(json, r#"["p99<=10ms","errors<=0.1%"]"#);
        assert_eq!(serde_json::from_str::<Slo>(&json).unwrap(), slo);
        assert!(serde_json::from_str::<Slo>(r#"["p99<=soon"]"#).is_err());
    }
}
