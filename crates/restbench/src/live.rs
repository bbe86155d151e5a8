//! The live view of `restbench load`: the plain line on stderr (elapsed, answers per second over
//! the last second, errors, and p99 so far, redrawn four times a second), or the dashboard on
//! a terminal (`dashboard`), and the per-second lines of `--timeseries`. It reads the engine's
//! atomic [`Progress`] from its own thread, so the load threads never wait for it.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use std::io::Write;

use restbench_loadgen::{LiveLatency, Progress, STATUS_CLASSES, StopAt};
use restbench_report::units::{micros_short, thousands};

use crate::dashboard::{Dashboard, DashboardState};
use crate::timeseries::{Line, Timeseries};

const REFRESH: Duration = Duration::from_millis(250);
/// The p99 sparkline's length: the last this many seconds.
const SPARKLINE_SECONDS: usize = 120;

/// The view, while it is drawn; cleared by [`LiveLoad::finish`] or on drop.
pub struct LiveLoad {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// What the run was asked to do, for the view's "of how much" and the open loop's backlog.
#[derive(Debug, Clone)]
pub struct Plan {
    pub warmup: Duration,
    pub stop: StopAt,
    /// Open loop: the rate, and a ramp's end rate.
    pub rate: Option<f64>,
    pub rate_end: Option<f64>,
    pub url: String,
}

impl Plan {
    /// Requests the schedule meant to send in the first `t` of the measured period.
    fn expected(&self, t: Duration) -> Option<f64> {
        let from = self.rate?;
        let t = t.as_secs_f64();
        Some(match (self.rate_end, self.stop) {
            (Some(to), StopAt::Duration(len)) => {
                let len = len.as_secs_f64().max(1e-9);
                let ramp = t.min(len);
                from * ramp + (to - from) * ramp * ramp / (2.0 * len) + to * (t - ramp)
            }
            _ => from * t,
        })
    }
}

/// How the run is shown while it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Nothing (stderr is not a terminal, or `--quiet`).
    Hidden,
    /// The plain line on stderr.
    Line,
    /// The dashboard on stdout, a terminal.
    Dashboard,
}

impl LiveLoad {
    /// Starts the view and the time series; does nothing when neither is wanted, so piped
    /// output and logs carry no progress lines or escape codes.
    pub fn start(
        progress: Arc<Progress>,
        plan: Plan,
        view: View,
        timeseries: Option<Timeseries>,
    ) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let wanted = view != View::Hidden || timeseries.is_some();
        let thread = wanted.then(|| {
            let done = done.clone();
            std::thread::Builder::new()
                .name("live".into())
                .spawn(move || run_live(&progress, &plan, view, timeseries, &done))
                .ok()
        });
        Self {
            done,
            thread: thread.flatten(),
        }
    }

    /// Stops and clears the view, before the report is printed.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for LiveLoad {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One reading of the engine's counters.
#[derive(Debug, Clone)]
struct Reading {
    at: Instant,
    answered: u64,
    errors: u64,
    sent: u64,
    shed: u64,
    latency: Vec<u64>,
}

impl Reading {
    fn take(p: &Progress, at: Instant) -> Self {
        Self {
            at,
            answered: p.answered.load(Ordering::Relaxed),
            errors: p.errors.load(Ordering::Relaxed),
            sent: p.sent.load(Ordering::Relaxed),
            shed: p.shed.load(Ordering::Relaxed),
            latency: p.latency.counts(),
        }
    }

    /// The interval from `before` to this reading, as a time-series line.
    fn since(&self, before: &Reading, measure_start: Instant, backlog: Option<u64>) -> Line {
        let interval = self.at.duration_since(before.at).as_secs_f64();
        let requests = self.answered.saturating_sub(before.answered);
        let counts: Vec<u64> = self
            .latency
            .iter()
            .zip(&before.latency)
            .map(|(a, b)| a.saturating_sub(*b))
            .collect();
        let q = |q: f64| LiveLatency::quantile_of(&counts, q);
        Line {
            t_s: round3(
                self.at
                    .saturating_duration_since(measure_start)
                    .as_secs_f64(),
            ),
            interval_s: round3(interval),
            requests,
            errors: self.errors.saturating_sub(before.errors),
            rps: if interval > 0.0 {
                (requests as f64 / interval).round()
            } else {
                0.0
            },
            sent: self.sent.saturating_sub(before.sent),
            shed: self.shed.saturating_sub(before.shed),
            backlog,
            p50_us: q(0.5),
            p90_us: q(0.9),
            p99_us: q(0.99),
            p999_us: q(0.999),
        }
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The view's thread: a reading four times a second, a time-series line once a second.
fn run_live(
    progress: &Progress,
    plan: &Plan,
    view: View,
    mut timeseries: Option<Timeseries>,
    done: &AtomicBool,
) {
    let started = Instant::now();
    let measure_start = started + plan.warmup;
    let mut dashboard = match view {
        View::Dashboard => Dashboard::enter().ok(),
        _ => None,
    };
    let line_view = view == View::Line || (view == View::Dashboard && dashboard.is_none());
    let mut turn = 0;
    let mut window = RateWindow::default();
    let mut second_start: Option<Reading> = None;
    let mut p99s: VecDeque<u64> = VecDeque::new();
    let mut finishing = false;
    loop {
        finishing |= done.load(Ordering::Relaxed);
        let now = Instant::now();
        let reading = Reading::take(progress, now);
        let measured = now.saturating_duration_since(measure_start);
        let backlog = plan
            .expected(measured)
            .filter(|_| now >= measure_start)
            .map(|e| (e - (reading.sent + reading.shed) as f64).max(0.0) as u64);
        if now >= measure_start {
            let base = second_start.get_or_insert_with(|| Reading {
                at: measure_start,
                answered: 0,
                errors: 0,
                sent: 0,
                shed: 0,
                latency: vec![0; reading.latency.len()],
            });
            let whole = now.duration_since(base.at) >= Duration::from_secs(1);
            let last = finishing && now.duration_since(base.at) >= Duration::from_millis(50);
            if whole || last {
                let line = reading.since(base, measure_start, backlog);
                if let Some(p99) = line.p99_us {
                    p99s.push_back(p99);
                    if p99s.len() > SPARKLINE_SECONDS {
                        p99s.pop_front();
                    }
                }
                if let Some(ts) = timeseries.as_mut()
                    && ts.write(&line).is_err()
                {
                    let path = ts.path().to_string();
                    timeseries = None;
                    let _ = writeln!(
                        std::io::stderr(),
                        "warning: cannot write --timeseries to {path}"
                    );
                }
                second_start = Some(reading.clone());
            }
        }
        if finishing {
            break;
        }
        let answered = reading.answered;
        let rate = window.push(now, answered);
        let snapshot = Snapshot {
            elapsed: now - started,
            plan: Stop {
                warmup: plan.warmup,
                stop: plan.stop,
            },
            answered,
            rate,
            errors: reading.errors,
            p99_us: progress.latency.quantile(0.99),
        };
        if let Some(d) = dashboard.as_mut() {
            let mut classes = [0u64; STATUS_CLASSES];
            for (c, a) in classes.iter_mut().zip(&progress.status_classes) {
                *c = a.load(Ordering::Relaxed);
            }
            let spectrum = [0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0]
                .map(|q| LiveLatency::quantile_of(&reading.latency, q));
            let state = DashboardState {
                url: &plan.url,
                progress_text: progress_text(&snapshot),
                progress_ratio: progress_ratio(&snapshot),
                rate,
                target_rate: plan.rate.map(|from| match (plan.rate_end, plan.stop) {
                    (Some(to), StopAt::Duration(len)) => {
                        let done = (measured.as_secs_f64() / len.as_secs_f64().max(1e-9)).min(1.0);
                        from + (to - from) * done
                    }
                    _ => from,
                }),
                answered,
                errors: reading.errors,
                sent: reading.sent,
                shed: reading.shed,
                backlog,
                spectrum,
                p99s: p99s.iter().copied().collect(),
                classes,
            };
            let _ = d.draw(&state);
        }
        if line_view {
            let text = line(&snapshot);
            let spinner = SPINNER[turn % SPINNER.len()];
            turn += 1;
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "{CLEAR}\x1b[36m{spinner}\x1b[0m {}",
                fit(&text, width())
            );
            let _ = err.flush();
        }
        // Short sleeps, so that the end of the run is not held up by a whole refresh.
        let until = now + REFRESH;
        while !done.load(Ordering::Relaxed) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    if let Some(d) = dashboard.take() {
        d.leave();
    }
    if line_view {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{CLEAR}");
        let _ = err.flush();
    }
}

/// Carriage return and "erase line": the row is redrawn in place, and left empty at the end.
const CLEAR: &str = "\r\x1b[2K";
const SPINNER: [char; 8] = ['⣾', '⣽', '⣻', '⢿', '⡿', '⣟', '⣯', '⣷'];

// Drawn by hand rather than with a progress-bar crate: one row, never padded to the terminal's
// width, so that the `^C` the terminal echoes cannot wrap it and leave it behind when cleared.

/// Answers per second over about the last second, from the samples the line took.
#[derive(Debug, Default)]
struct RateWindow {
    samples: VecDeque<(Instant, u64)>,
}

impl RateWindow {
    fn push(&mut self, now: Instant, answered: u64) -> Option<f64> {
        self.samples.push_back((now, answered));
        // Keep the newest sample at least a second old, and nothing older.
        while self.samples.len() > 2
            && now.duration_since(self.samples[1].0) >= Duration::from_secs(1)
        {
            self.samples.pop_front();
        }
        let (t0, a0) = *self.samples.front()?;
        let dt = now.duration_since(t0).as_secs_f64();
        (dt >= 0.2).then(|| answered.saturating_sub(a0) as f64 / dt)
    }
}

/// The warm-up and the end, for the line.
#[derive(Debug, Clone, Copy)]
struct Stop {
    warmup: Duration,
    stop: StopAt,
}

/// One reading of the run.
#[derive(Debug, Clone, Copy)]
struct Snapshot {
    /// Since the load started, warm-up included.
    elapsed: Duration,
    plan: Stop,
    answered: u64,
    /// Answers per second over about the last second; `None` at the very start.
    rate: Option<f64>,
    errors: u64,
    /// p99 so far (coarse), once a thread finished a second.
    p99_us: Option<u64>,
}

/// Columns of the terminal on stderr.
fn width() -> usize {
    terminal_size::terminal_size_of(std::io::stderr()).map_or(80, |(w, _)| usize::from(w.0))
}

/// Cuts the line so that it never fills its row: the spinner, and room for the `^C` a terminal
/// echoes, which would otherwise wrap the line and leave it behind when it is cleared.
fn fit(text: &str, columns: usize) -> String {
    let room = columns.saturating_sub(6).max(10);
    if text.chars().count() <= room {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(room - 1).collect();
        cut.push('…');
        cut
    }
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// How far the run is: `3.2 s / 10.0 s`, or the warm-up.
fn progress_text(s: &Snapshot) -> String {
    if s.elapsed < s.plan.warmup {
        return format!("warming up {} / {}", secs(s.elapsed), secs(s.plan.warmup));
    }
    let measured = s.elapsed - s.plan.warmup;
    match s.plan.stop {
        StopAt::Duration(d) => format!("{} / {}", secs(measured.min(d)), secs(d)),
        StopAt::Requests(n) => format!(
            "{} / {} requests",
            thousands(s.answered as f64),
            thousands(n as f64)
        ),
    }
}

/// How far the run is, from 0 to 1.
fn progress_ratio(s: &Snapshot) -> f64 {
    if s.elapsed < s.plan.warmup {
        return 0.0;
    }
    let measured = s.elapsed - s.plan.warmup;
    let r = match s.plan.stop {
        StopAt::Duration(d) => measured.as_secs_f64() / d.as_secs_f64().max(1e-9),
        StopAt::Requests(n) => s.answered as f64 / (n as f64).max(1.0),
    };
    r.clamp(0.0, 1.0)
}

fn line(s: &Snapshot) -> String {
    if s.elapsed < s.plan.warmup {
        return format!(
            "warming up {} / {} (left out of the figures)",
            secs(s.elapsed),
            secs(s.plan.warmup)
        );
    }
    let measured = s.elapsed - s.plan.warmup;
    let progress = match s.plan.stop {
        StopAt::Duration(d) => format!("{} / {}", secs(measured.min(d)), secs(d)),
        StopAt::Requests(n) => format!(
            "{} · {} / {} requests",
            secs(measured),
            thousands(s.answered as f64),
            thousands(n as f64)
        ),
    };
    let rate = s.rate.map_or_else(
        || "– req/s".to_string(),
        |r| format!("{} req/s", thousands(r)),
    );
    let errors = match s.errors {
        1 => "1 error".to_string(),
        n => format!("{} errors", thousands(n as f64)),
    };
    let p99 = s
        .p99_us
        .map_or_else(|| "–".to_string(), |us| micros_short(us as f64));
    format!("{progress} · {rate} · {errors} · p99 {p99} so far · Ctrl-C stops and reports")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backlog_counts_from_the_schedule_and_a_ramp_integrates() {
        let mut plan = Plan {
            warmup: Duration::ZERO,
            stop: StopAt::Duration(Duration::from_secs(10)),
            rate: Some(1000.0),
            rate_end: None,
            url: String::new(),
        };
        assert_eq!(plan.expected(Duration::from_secs(2)), Some(2000.0));
        plan.rate_end = Some(3000.0);
        // From 1000 to 3000 over 10 s: 2000/s on average, 20,000 in all; 11 s adds 3000.
        let all = plan.expected(Duration::from_secs(10)).unwrap();
        assert!((all - 20_000.0).abs() < 1e-6, "{all}");
        let after = plan.expected(Duration::from_secs(11)).unwrap();
        assert!((after - 23_000.0).abs() < 1e-6, "{after}");
        plan.rate = None;
        assert_eq!(plan.expected(Duration::from_secs(1)), None);
    }

    fn snapshot(elapsed_ms: u64) -> Snapshot {
        Snapshot {
            elapsed: Duration::from_millis(elapsed_ms),
            plan: Stop {
                warmup: Duration::from_secs(1),
                stop: StopAt::Duration(Duration::from_secs(10)),
            },
            answered: 12_000,
            rate: Some(10_250.4),
            errors: 3,
            p99_us: Some(1_830),
        }
    }

    #[test]
    fn the_line_reads_the_run() {
        assert_eq!(
            line(&snapshot(500)),
            "warming up 0.5 s / 1.0 s (left out of the figures)"
        );
        assert_eq!(
            line(&snapshot(4_200)),
            "3.2 s / 10.0 s · 10,250 req/s · 3 errors · p99 1.83 ms so far · Ctrl-C stops and reports"
        );
        let mut s = snapshot(1_500);
        s.plan.stop = StopAt::Requests(50_000);
        s.rate = None;
        s.errors = 1;
        s.p99_us = None;
        assert_eq!(
            line(&s),
            "0.5 s · 12,000 / 50,000 requests · – req/s · 1 error · p99 – so far · Ctrl-C stops and reports"
        );
    }

    #[test]
    fn the_line_leaves_room_at_the_end_of_its_row() {
        assert_eq!(fit("abc", 80), "abc");
        let long = "x".repeat(100);
        assert_eq!(fit(&long, 80).chars().count(), 74);
        assert!(fit(&long, 80).ends_with('…'));
        assert_eq!(
            fit(&long, 3).chars().count(),
            10,
            "a tiny terminal still gets a word"
        );
    }

    #[test]
    fn the_rate_is_over_about_the_last_second() {
        let t0 = Instant::now();
        let mut w = RateWindow::default();
        assert_eq!(w.push(t0, 0), None, "no interval yet");
        let at = |ms| t0 + Duration::from_millis(ms);
        assert_eq!(w.push(at(100), 100), None, "too short to tell");
        assert_eq!(w.push(at(250), 250), Some(1_000.0));
        for k in 2..=8 {
            w.push(at(250 * k), 250 * k);
        }
        // At 2 s the window starts about a second back; a burst shows at once.
        let r = w.push(at(2_250), 4_250).unwrap();
        assert!((2_500.0..=3_500.0).contains(&r), "{r}");
        assert!(w.samples.len() <= 6, "{}", w.samples.len());
    }
}
