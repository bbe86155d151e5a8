//! Progress on the terminal while a run goes: what runs now and how much is left. Plain lines
//! when stderr is not a terminal, so logs stay readable.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use restbench_harness::events::{At, Event, Observer, RunEvent, Step};
use restbench_harness::planner::Resolved;
use restbench_model::{Cell, CellStatus};
use restbench_report::units::{micros_short, thousands};

pub struct TerminalProgress {
    bar: Option<ProgressBar>,
    current: Mutex<String>,
    /// When the first round ended, and the estimate of work done then: the ETA is drawn from
    /// the rounds' own pace, not from builds and starts.
    rounds: Mutex<Option<(Instant, f64)>>,
    eta: Mutex<String>,
}

impl TerminalProgress {
    pub fn new(total: usize) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner:.cyan} [{pos}/{len} cells] {elapsed_precise} {wide_msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Self {
            bar,
            current: Mutex::new(String::new()),
            rounds: Mutex::new(None),
            eta: Mutex::new(String::new()),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// A line of the command's own (the plan, a warning), printed as a note of the run is.
    pub fn note(&self, line: &str) {
        self.say(line);
    }

    /// Prints `line` above the bar, broken to the terminal's width (continuations indented).
    fn say(&self, line: &str) {
        for part in crate::width::hanging(line, crate::width::stderr_width(), 4) {
            match &self.bar {
                Some(bar) => bar.println(part),
                None => eprintln!("{part}"),
            }
        }
    }
}

impl Observer for TerminalProgress {
    fn event(&self, event: &Event) {
        match event.kind {
            RunEvent::Step { at, step } => self.step(at, step),
            RunEvent::LoadProgress(fraction) => self.load_progress(fraction),
            RunEvent::CellDone { cell, done, total } => self.cell_done(cell, done, total),
            RunEvent::Note(message) => self.say(message),
            RunEvent::RoundDone {
                workload,
                scenario,
                round,
                min_rounds,
                max_rounds,
                pairs,
                unsettled,
                targeted,
                widest,
                done,
                ..
            } => {
                self.update_eta(done);
                if round >= min_rounds && pairs > 0 {
                    let eta = self.eta.lock().map(|e| e.clone()).unwrap_or_default();
                    let widest = widest.map_or(String::new(), |w| {
                        format!(", the widest ±{:.1} %", w * 100.0)
                    });
                    let state = if targeted {
                        format!("{} of {pairs} ratios settled{widest}", pairs - unsettled)
                    } else {
                        format!("{pairs} ratios, a fixed count (no target){widest}")
                    };
                    self.say(&format!(
                        "{workload} · {scenario}: round {round} (of {min_rounds}–{max_rounds}), \
                         {state}{eta}"
                    ));
                }
            }
            RunEvent::Conformed {
                conformance,
                cached,
            } => self.say(&crate::output::conformance_summary(conformance, cached)),
            _ => {}
        }
    }
}

impl TerminalProgress {
    fn step(&self, at: At, step: Step) {
        let what = match (at.scenario, at.workload) {
            (Some(s), Some(w)) => format!("{} · {w} · {s}: {step}", at.subject),
            (Some(s), None) => format!("{} · {s}: {step}", at.subject),
            (None, _) => format!("{}: {step}", at.subject),
        };
        if let Ok(mut c) = self.current.lock() {
            *c = what.clone();
        }
        match &self.bar {
            Some(bar) => bar.set_message(what),
            None => {
                if matches!(step, Step::Building | Step::Starting | Step::Conformance) {
                    self.say(&what);
                }
            }
        }
    }

    fn load_progress(&self, fraction: f64) {
        if let (Some(bar), Ok(c), Ok(eta)) = (&self.bar, self.current.lock(), self.eta.lock()) {
            bar.set_message(format!("{c} {:>3.0}%{eta}", fraction * 100.0));
        }
    }

    /// The ETA from the pace of the rounds since the first one ended: `, ETA 12 min`.
    fn update_eta(&self, done: f64) {
        let (Ok(mut first), Ok(mut eta)) = (self.rounds.lock(), self.eta.lock()) else {
            return;
        };
        let Some((at, then)) = *first else {
            *first = Some((Instant::now(), done));
            return;
        };
        let pace = (done - then) / at.elapsed().as_secs_f64().max(1e-3);
        if pace > 0.0 {
            let left = (1.0 - done).max(0.0) / pace;
            *eta = format!(
                ", ETA {}",
                restbench_harness::runner::costs::human_duration(left)
            );
        }
    }

    fn cell_done(&self, cell: &Cell, done: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
        }
        self.say(&cell_line(cell, done, total));
    }
}

/// A finished cell in one line, in the units and names of the final table: req/s with
/// thousands separated, latency as `5.74 ms`, CPU in cores.
fn cell_line(cell: &Cell, done: usize, total: usize) -> String {
    let what = format!(
        "[{done}/{total}] {} · {} · {}",
        cell.subject, cell.workload, cell.scenario
    );
    match cell.status {
        CellStatus::Ok => format!(
            "{what}: {} req/s, p99 {}, CPU {:.2}{}",
            thousands(cell.rps.median),
            micros_short(cell.latency_us.p99 as f64),
            cell.server.cpu_cores,
            if cell.flags.is_empty() {
                String::new()
            } else {
                format!(" [{}]", cell.flags.join(", "))
            }
        ),
        CellStatus::Failed => format!(
            "{what}: FAILED: {}",
            cell.reason
                .as_deref()
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("")
        ),
        CellStatus::Skipped => {
            format!("{what}: skipped: {}", cell.reason.as_deref().unwrap_or(""))
        }
        CellStatus::Interrupted => format!("{what}: interrupted"),
    }
}

/// A resolved run measured with the terminal's progress, then its exports, reports and table
/// written (what `run` and `bench` do once they have a plan).
pub fn measure(
    mut resolved: Resolved,
    stop: &AtomicBool,
    exports: restbench_report::export::Exports,
) -> anyhow::Result<ExitCode> {
    crate::output::warn(&resolved.warnings);
    let progress = TerminalProgress::new(resolved.plan.cells());
    for line in resolved.plan_lines() {
        progress.note(&line);
    }
    for note in resolved.opening_notes() {
        progress.note(&note);
    }
    let result = resolved.run(stop, &progress);
    progress.finish();
    let out_dir = resolved.plan.out_dir.clone();
    // The run's own database stops before the reports are written.
    drop(resolved);
    let results = result?;
    crate::output::report_written(&exports.write_runs(&[&results])?);
    crate::output::finish_run(&results, &out_dir)
}

#[cfg(test)]
mod tests {
    use restbench_model::{Cell, CellSubject, Scenario, Workload};

    use super::cell_line;

    #[test]
    fn a_finished_cell_says_its_figures_in_the_tables_units() {
        let who = CellSubject {
            id: "rust-hyper".into(),
            language: "rust".into(),
            framework: "hyper".into(),
            framework_version: "1".into(),
        };
        let mut c = Cell::new(&who, Workload::Plaintext, Scenario::SingleThread);
        c.rps.median = 33_723.4;
        c.latency_us.p99 = 5_739;
        c.server.cpu_cores = 0.224;
        assert_eq!(
            cell_line(&c, 1, 8),
            "[1/8] rust-hyper · plaintext · single-thread: 33,723 req/s, p99 5.74 ms, CPU 0.22"
        );
        // Said broken to the terminal's width, as `say` does.
        for part in crate::width::hanging(&cell_line(&c, 10, 216), 80, 4) {
            assert!(part.chars().count() <= 80, "{part:?}");
        }
    }
}
