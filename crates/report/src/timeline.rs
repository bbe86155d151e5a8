//! A cell over time: its repeats' per-second rate and p99 laid end to end, for the charts that
//! show JIT warm-up, GC pauses and drift (data only; `html::timeline` draws it).

use restbench_model::{Cell, RepeatResult};

/// Seconds shorter than this (the partial last second of a repeat) are left out: their rate
/// would read low only because the second was cut.
const MIN_SECOND: f64 = 0.25;

/// One second of one repeat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimePoint {
    /// Seconds since the start of the first repeat's measurement, repeats laid end to end.
    pub t: f64,
    /// Answers per second in this second.
    pub rps: f64,
    /// The second's p99 latency, in microseconds, when it had answers and it was recorded.
    pub p99_us: Option<u64>,
}

/// A cell's seconds, all repeats in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    pub points: Vec<TimePoint>,
    /// Where each repeat after the first starts on the time axis.
    pub repeat_starts: Vec<f64>,
    /// Total length of the time axis, in seconds.
    pub span: f64,
}

impl Timeline {
    pub fn max_rps(&self) -> f64 {
        self.points.iter().map(|p| p.rps).fold(0.0, f64::max)
    }

    pub fn max_p99(&self) -> Option<u64> {
        self.points.iter().filter_map(|p| p.p99_us).max()
    }
}

/// The timeline of a cell, or `None` when none of its repeats recorded seconds (documents
/// written before they were kept, failed cells).
pub fn cell_timeline(cell: &Cell) -> Option<Timeline> {
    if cell.repeats.iter().all(|r| r.timeseries.is_empty()) {
        return None;
    }
    let mut out = Timeline::default();
    let mut offset = 0.0;
    for (i, r) in cell.repeats.iter().enumerate() {
        if i > 0 {
            out.repeat_starts.push(offset);
        }
        out.points.extend(repeat_points(r, offset));
        offset += repeat_length(r);
    }
    out.span = offset;
    Some(out)
}

/// The length of a repeat on the time axis: its measured duration, or its seconds when the
/// duration is missing.
fn repeat_length(r: &RepeatResult) -> f64 {
    if r.duration_s > 0.0 {
        r.duration_s
    } else {
        r.timeseries.len() as f64
    }
}

fn repeat_points(r: &RepeatResult, offset: f64) -> impl Iterator<Item = TimePoint> + '_ {
    let length = repeat_length(r);
    r.timeseries.iter().filter_map(move |s| {
        let start = f64::from(s.second);
        let width = (length - start).min(1.0);
        (width >= MIN_SECOND).then(|| TimePoint {
            t: offset + start + width / 2.0,
            rps: s.requests as f64 / width,
            p99_us: s.p99_us,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::SecondSample;

    fn repeat(duration_s: f64, seconds: &[(u64, Option<u64>)]) -> RepeatResult {
        RepeatResult {
            rps: 0.0,
            requests: 0,
            duration_s,
            latency_us: Default::default(),
            errors: Default::default(),
            server_cpu_cores: 0.0,
            loadgen_cpu_cores: 0.0,
            round: None,
            saturation: None,
            timeseries: seconds
                .iter()
                .enumerate()
                .map(|(i, (n, p99))| SecondSample {
                    second: i as u32,
                    requests: *n,
                    p99_us: *p99,
                    ..Default::default()
                })
                .collect(),
        }
    }

    #[test]
    fn repeats_are_laid_end_to_end_and_cut_seconds_left_out() {
        let mut cell = crate::test_support::cell("x", "plaintext", "all-cores", 1000.0);
        assert_eq!(cell_timeline(&cell), None, "no seconds recorded");
        cell.repeats = vec![
            // 2.1 s: the third second lasted 0.1 s and is left out.
            repeat(
                2.1,
                &[(1_000, Some(900)), (1_100, Some(800)), (50, Some(700))],
            ),
            // 1.5 s: its half second counts at its rate.
            repeat(1.5, &[(1_200, None), (600, Some(1_000))]),
        ];
        let t = cell_timeline(&cell).expect("seconds recorded");
        assert_eq!(t.repeat_starts, vec![2.1]);
        assert!((t.span - 3.6).abs() < 1e-9);
        let rates: Vec<f64> = t.points.iter().map(|p| p.rps).collect();
        assert_eq!(rates, vec![1_000.0, 1_100.0, 1_200.0, 1_200.0]);
        assert_eq!(t.points[0].t, 0.5);
        assert!((t.points[2].t - 2.6).abs() < 1e-9);
        assert!((t.points[3].t - 3.35).abs() < 1e-9);
        assert_eq!(t.points[2].p99_us, None);
        assert_eq!(t.max_p99(), Some(1_000));
        assert_eq!(t.max_rps(), 1_200.0);
    }
}
