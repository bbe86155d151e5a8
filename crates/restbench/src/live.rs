//! The live line of `restbench load` on a terminal: elapsed, answers per second over the last
//! second, errors, and p99 so far, redrawn four times a second on stderr. It reads the engine's
//! atomic [`Progress`] from its own thread, so the load threads never wait for it.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use std::io::Write;

use restbench_loadgen::{Progress, StopAt};
use restbench_report::units::{micros_short, thousands};

const REFRESH: Duration = Duration::from_millis(250);

/// The line, while it is drawn; cleared by [`LiveLoad::finish`] or on drop.
pub struct LiveLoad {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// What the run was asked to do, for the line's "of how much".
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub warmup: Duration,
    pub stop: StopAt,
}

impl LiveLoad {
    /// Starts drawing when `enabled` (stderr is a terminal and `--quiet` was not given); else
    /// does nothing, so piped output and logs carry no progress lines or escape codes.
    pub fn start(progress: Arc<Progress>, plan: Plan, enabled: bool) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        let thread = enabled.then(|| {
            let done = done.clone();
            std::thread::Builder::new()
                .name("live".into())
                .spawn(move || draw(&progress, plan, &done))
                .ok()
        });
        Self {
            done,
            thread: thread.flatten(),
        }
    }

    /// Stops and clears the line, before the report is printed.
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

/// Carriage return and "erase line": the row is redrawn in place, and left empty at the end.
const CLEAR: &str = "\r\x1b[2K";
const SPINNER: [char; 8] = ['⣾', '⣽', '⣻', '⢿', '⡿', '⣟', '⣯', '⣷'];

/// Draws by hand rather than with a progress-bar crate: one row, never padded to the terminal's
/// width, so that the `^C` the terminal echoes cannot wrap it and leave it behind when cleared.
fn draw(progress: &Progress, plan: Plan, done: &AtomicBool) {
    let started = Instant::now();
    let mut turn = 0;
    let mut window = RateWindow::default();
    while !done.load(Ordering::Relaxed) {
        let now = Instant::now();
        let answered = progress.answered.load(Ordering::Relaxed);
        let rate = window.push(now, answered);
        let text = line(&Snapshot {
            elapsed: now - started,
            plan,
            answered,
            rate,
            errors: progress.errors.load(Ordering::Relaxed),
            p99_us: progress.latency.quantile(0.99),
        });
        let spinner = SPINNER[turn % SPINNER.len()];
        turn += 1;
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "{CLEAR}\x1b[36m{spinner}\x1b[0m {}",
            fit(&text, width())
        );
        let _ = err.flush();
        drop(err);
        // Short sleeps, so that the end of the run is not held up by a whole refresh.
        let until = now + REFRESH;
        while !done.load(Ordering::Relaxed) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{CLEAR}");
    let _ = err.flush();
}

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

/// One reading of the run.
#[derive(Debug, Clone, Copy)]
struct Snapshot {
    /// Since the load started, warm-up included.
    elapsed: Duration,
    plan: Plan,
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

    fn snapshot(elapsed_ms: u64) -> Snapshot {
        Snapshot {
            elapsed: Duration::from_millis(elapsed_ms),
            plan: Plan {
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
