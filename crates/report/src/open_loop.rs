//! The open-loop figures of a group of cells as data for the renderers: capacity rows, equal-load
//! rows, and the latency–throughput curves (p50 and p99 against the achieved rate). Computing
//! layer: cells in, plain data out, no markup.

use restbench_model::{BoundBy, Cell, CellStatus, Percentile, RateStep};

use crate::cells::cell_labels;

/// One cell's capacity, as tables show it.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityRow {
    pub label: String,
    pub scenario: String,
    pub slo: String,
    /// The highest passing achieved rate; `None` when no rate met the SLO.
    pub rate: Option<f64>,
    pub bound_by: BoundBy,
    pub reason: String,
    /// Server CPU µs per request and p99 at the capacity (the passing step that set it).
    pub cpu_us_per_req: Option<f64>,
    pub p99_us: Option<u64>,
    pub steps: usize,
}

impl CapacityRow {
    /// The rate as a reader must read it: a floor is never shown as a capacity.
    pub fn rate_text(&self, fmt: fn(f64) -> String) -> String {
        match (self.rate, self.bound_by) {
            (None, _) => "none met".into(),
            (Some(r), BoundBy::Server) => fmt(r),
            (Some(r), _) => format!("≥ {}", fmt(r)),
        }
    }
}

/// The capacity rows of the cells that have one, highest capacity first.
pub fn capacity_rows(cells: &[&Cell]) -> Vec<CapacityRow> {
    let labels = cell_labels(cells);
    let mut rows: Vec<CapacityRow> = cells
        .iter()
        .zip(labels)
        .filter(|(c, _)| c.status == CellStatus::Ok)
        .filter_map(|(c, l)| {
            let cap = c.capacity.as_ref()?;
            let at = cap.at_capacity();
            Some(CapacityRow {
                label: l.label,
                scenario: c.scenario.clone(),
                slo: cap.slo.to_string(),
                rate: cap.rate,
                bound_by: cap.bound_by,
                reason: cap.reason.clone(),
                cpu_us_per_req: at
                    .and_then(|s| s.server)
                    .map(|s| s.cpu_us_per_req)
                    .filter(|v| *v > 0.0),
                p99_us: at.map(|s| s.latency_us.p99),
                steps: cap.steps.len(),
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.rate
            .unwrap_or(0.0)
            .total_cmp(&a.rate.unwrap_or(0.0))
            .then(a.label.cmp(&b.label))
    });
    rows
}

/// One cell at one equal-load rate.
#[derive(Debug, Clone, PartialEq)]
pub struct EqualLoadRow {
    pub label: String,
    pub scenario: String,
    pub target: f64,
    pub achieved: f64,
    /// Held the rate and met the SLO (when one was given).
    pub held: bool,
    /// Why not.
    pub failed: Vec<String>,
    pub cpu_us_per_req: Option<f64>,
    pub cpu_cores: Option<f64>,
    pub p50_us: u64,
    pub p99_us: u64,
    pub errors_percent: f64,
    pub rss_peak_bytes: Option<u64>,
}

/// The equal-load rows: by rate, then held before not held, then least CPU per request first.
pub fn equal_load_rows(cells: &[&Cell]) -> Vec<EqualLoadRow> {
    let labels = cell_labels(cells);
    let mut rows: Vec<EqualLoadRow> = Vec::new();
    for (c, l) in cells.iter().zip(labels) {
        if c.status != CellStatus::Ok {
            continue;
        }
        for s in &c.at_rate {
            rows.push(EqualLoadRow {
                label: l.label.clone(),
                scenario: c.scenario.clone(),
                target: s.target_rps,
                achieved: s.achieved_rps,
                held: s.pass,
                failed: s.failed.clone(),
                cpu_us_per_req: s.server.map(|v| v.cpu_us_per_req).filter(|v| *v > 0.0),
                cpu_cores: s.server.map(|v| v.cpu_cores),
                p50_us: s.latency_us.p50,
                p99_us: s.latency_us.p99,
                errors_percent: s.errors_percent,
                rss_peak_bytes: s.server.map(|v| v.rss_peak_bytes).filter(|v| *v > 0),
            });
        }
    }
    rows.sort_by(|a, b| {
        a.target
            .total_cmp(&b.target)
            .then(b.held.cmp(&a.held))
            .then(
                a.cpu_us_per_req
                    .unwrap_or(f64::INFINITY)
                    .total_cmp(&b.cpu_us_per_req.unwrap_or(f64::INFINITY)),
            )
            .then(a.label.cmp(&b.label))
    });
    rows
}

/// One measured point of a curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    pub achieved: f64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub pass: bool,
    pub generator_saturated: bool,
}

/// One cell's curve: every open-loop step it ran (capacity steps and equal-load points), by
/// achieved rate.
#[derive(Debug, Clone, PartialEq)]
pub struct CurveSeries {
    pub label: String,
    pub points: Vec<CurvePoint>,
}

/// The latency–throughput chart of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyThroughput {
    pub series: Vec<CurveSeries>,
    /// The SLO's latency bounds (p50 and p99 clauses), to draw as lines: (name, µs).
    pub slo_lines: Vec<(&'static str, u64)>,
    /// From this achieved rate up, some cell's figures were the generator's (a step with its CPU
    /// saturated, or a capacity bound by the generator).
    pub generator_bound_from: Option<f64>,
}

/// The curves of cells with open-loop steps; `None` when no cell has any.
pub fn latency_throughput(cells: &[&Cell]) -> Option<LatencyThroughput> {
    let labels = cell_labels(cells);
    let mut series = Vec::new();
    let mut slo_lines: Vec<(&'static str, u64)> = Vec::new();
    let mut generator_from: Option<f64> = None;
    let mut lower = |v: f64| {
        generator_from = Some(generator_from.map_or(v, |g: f64| g.min(v)));
    };
    for (c, l) in cells.iter().zip(labels) {
        if c.status != CellStatus::Ok {
            continue;
        }
        let mut steps: Vec<&RateStep> = c.at_rate.iter().collect();
        if let Some(cap) = &c.capacity {
            steps.extend(cap.steps.iter());
            for p in [Percentile::P50, Percentile::P99] {
                if let Some(us) = cap.slo.latency_bound(p)
                    && !slo_lines.contains(&(p.name(), us))
                {
                    slo_lines.push((p.name(), us));
                }
            }
            if cap.bound_by == BoundBy::Generator
                && let Some(r) = cap.rate
            {
                lower(r);
            }
        }
        let mut points: Vec<CurvePoint> = steps
            .iter()
            .filter(|s| s.requests > 0)
            .map(|s| CurvePoint {
                achieved: s.achieved_rps,
                p50_us: s.latency_us.p50,
                p99_us: s.latency_us.p99,
                pass: s.pass,
                generator_saturated: s.generator_saturated,
            })
            .collect();
        for p in points.iter().filter(|p| p.generator_saturated) {
            lower(p.achieved);
        }
        points.sort_by(|a, b| a.achieved.total_cmp(&b.achieved));
        if !points.is_empty() {
            series.push(CurveSeries {
                label: l.label,
                points,
            });
        }
    }
    (!series.is_empty()).then_some(LatencyThroughput {
        series,
        slo_lines,
        generator_bound_from: generator_from,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_support::cell;
    use restbench_model::{Capacity, CapacityProbe, LatencySummary, Slo, StepServer};

    pub(crate) fn step(target: f64, achieved: f64, p99: u64, pass: bool, sat: bool) -> RateStep {
        RateStep {
            target_rps: target,
            achieved_rps: achieved,
            duration_s: 1.0,
            sent: 100,
            requests: 100,
            errors: Default::default(),
            errors_percent: 0.0,
            latency_us: LatencySummary {
                p50: p99 / 4,
                p99,
                ..Default::default()
            },
            pass,
            failed: if pass {
                vec![]
            } else {
                vec!["p99<=5ms".into()]
            },
            loadgen_cpu_cores: 0.5,
            generator_saturated: sat,
            max_schedule_lag_us: 0,
            histogram: String::new(),
            server: Some(StepServer {
                cpu_cores: 0.5,
                cpu_us_per_req: 1e6 * 0.5 / achieved,
                rss_peak_bytes: 1 << 20,
                cgroup_memory_peak_bytes: None,
            }),
        }
    }

    pub(crate) fn with_open_loop(subject: &str, rate: f64, bound: BoundBy) -> Cell {
        let mut c = cell(subject, "plaintext", "single-thread", rate * 1.2);
        c.capacity = Some(Capacity {
            slo: Slo::parse_all(&["p99<=5ms"]).unwrap(),
            rate: Some(rate),
            bound_by: bound,
            reason: "why".into(),
            probe: CapacityProbe::default(),
            resolution: 0.02,
            hold_fraction: 0.97,
            step_duration_s: 1.0,
            step_warmup_s: 0.5,
            generator_cores: Some(1.0),
            steps: vec![
                step(
                    rate * 1.2,
                    rate * 1.1,
                    9_000,
                    false,
                    bound == BoundBy::Generator,
                ),
                step(rate, rate, 3_000, true, false),
            ],
            interrupted: false,
        });
        c.at_rate = vec![step(
            20_000.0,
            rate.min(20_000.0),
            1_000,
            rate >= 20_000.0,
            false,
        )];
        c
    }

    #[test]
    fn capacity_rows_put_floors_apart_and_the_highest_first() {
        let a = with_open_loop("slow", 10_000.0, BoundBy::Server);
        let b = with_open_loop("fast", 90_000.0, BoundBy::Generator);
        let rows = capacity_rows(&[&a, &b]);
        assert_eq!(rows[0].label, "fast");
        assert_eq!(rows[0].rate_text(|v| format!("{v:.0}")), "≥ 90000");
        assert_eq!(rows[1].rate_text(|v| format!("{v:.0}")), "10000");
        assert_eq!(rows[1].p99_us, Some(3_000));
        assert_eq!(rows[1].cpu_us_per_req, Some(50.0));
    }

    #[test]
    fn equal_load_rows_keep_a_rate_not_held() {
        let a = with_open_loop("slow", 10_000.0, BoundBy::Server);
        let b = with_open_loop("fast", 90_000.0, BoundBy::Server);
        let rows = equal_load_rows(&[&a, &b]);
        assert_eq!(rows.len(), 2);
        assert!(rows[0].held && rows[0].label == "fast");
        assert!(!rows[1].held && rows[1].achieved < rows[1].target);
    }

    #[test]
    fn curves_mark_where_the_generator_bound_begins() {
        let a = with_open_loop("slow", 10_000.0, BoundBy::Server);
        let b = with_open_loop("fast", 90_000.0, BoundBy::Generator);
        let lt = latency_throughput(&[&a, &b]).unwrap();
        assert_eq!(lt.series.len(), 2);
        assert_eq!(lt.slo_lines, vec![("p99", 5_000)]);
        assert_eq!(lt.generator_bound_from, Some(90_000.0));
        assert!(
            lt.series[0]
                .points
                .windows(2)
                .all(|w| w[0].achieved <= w[1].achieved)
        );
        let plain = cell("x", "plaintext", "single-thread", 1.0);
        assert!(latency_throughput(&[&plain]).is_none());
    }
}
