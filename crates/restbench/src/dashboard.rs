//! `restbench load`'s live dashboard on a terminal (ratatui over crossterm), as oha and zrk
//! show one: the rate against the target, answers, errors, what the open loop sent, shed and
//! still owes (its backlog), a latency percentile spectrum, a p99 sparkline (one bar a second),
//! and the answers by status class. Drawn on stdout's alternate screen, so the report printed
//! after it stands alone; never drawn when stdout is not a terminal, with `--plain`, or when
//! stdout carries `--json -` or `--timeseries -` (`live` decides).

use std::io::{self, Stdout};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Gauge, Paragraph, Sparkline};
use ratatui::{Terminal, TerminalOptions, Viewport};

use restbench_loadgen::STATUS_CLASSES;
use restbench_report::units::{micros_short, thousands};

/// What one frame shows.
pub struct DashboardState<'a> {
    pub url: &'a str,
    pub progress_text: String,
    pub progress_ratio: f64,
    /// Answers per second over about the last second.
    pub rate: Option<f64>,
    /// Open loop: the rate the schedule asks for now.
    pub target_rate: Option<f64>,
    pub answered: u64,
    pub errors: u64,
    pub sent: u64,
    pub shed: u64,
    pub backlog: Option<u64>,
    /// p50, p75, p90, p99, p99.9, p99.99 and the maximum so far, in microseconds.
    pub spectrum: [Option<u64>; 7],
    /// p99 of each second so far, oldest first.
    pub p99s: Vec<u64>,
    /// Answers by status class: 1xx to 5xx, then any other code.
    pub classes: [u64; STATUS_CLASSES],
}

const SPECTRUM_LABELS: [&str; 7] = ["p50", "p75", "p90", "p99", "p99.9", "p99.99", "max"];
const CLASS_LABELS: [&str; STATUS_CLASSES] = ["1xx", "2xx", "3xx", "4xx", "5xx", "other"];

/// The dashboard while it is shown: the terminal in its alternate screen.
pub struct Dashboard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Dashboard {
    /// Switches stdout to its alternate screen, the cursor hidden. No raw mode: Ctrl-C still
    /// reaches restbench as a signal and stops the run.
    pub fn enter() -> io::Result<Self> {
        let mut out = io::stdout();
        execute!(out, terminal::EnterAlternateScreen, cursor::Hide)?;
        let backend = CrosstermBackend::new(out);
        // A terminal that tells no size (some pseudo-terminals) gets the classic 80×24.
        let terminal = match terminal::size() {
            Ok((w, h)) if w > 0 && h > 0 => Terminal::new(backend)?,
            _ => Terminal::with_options(
                backend,
                TerminalOptions {
                    viewport: Viewport::Fixed(Rect::new(0, 0, 80, 24)),
                },
            )?,
        };
        Ok(Self { terminal })
    }

    pub fn draw(&mut self, s: &DashboardState) -> io::Result<()> {
        self.terminal.draw(|f| render(f, s))?;
        Ok(())
    }

    /// Back to the main screen, the cursor shown, before the report is printed.
    pub fn leave(mut self) {
        let _ = execute!(
            self.terminal.backend_mut(),
            terminal::LeaveAlternateScreen,
            cursor::Show
        );
    }
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        let _ = execute!(
            self.terminal.backend_mut(),
            terminal::LeaveAlternateScreen,
            cursor::Show
        );
    }
}

fn render(f: &mut ratatui::Frame, s: &DashboardState) {
    let [title, gauge, middle, spark] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(9),
        Constraint::Min(4),
    ])
    .areas(f.area());
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::from("restbench load ").bold(),
            Span::from(s.url.to_string()),
            Span::from("  Ctrl-C stops and reports").dim(),
        ])),
        title,
    );
    f.render_widget(
        Gauge::default()
            .gauge_style(Style::default().fg(Color::Cyan))
            .ratio(s.progress_ratio)
            .label(s.progress_text.clone()),
        gauge,
    );
    let [counts, spectrum, statuses] = Layout::horizontal([
        Constraint::Percentage(36),
        Constraint::Percentage(40),
        Constraint::Percentage(24),
    ])
    .areas(middle);
    f.render_widget(counts_panel(s), counts);
    f.render_widget(spectrum_panel(s, spectrum), spectrum);
    f.render_widget(status_panel(s), statuses);
    render_sparkline(f, s, spark);
}

fn counts_panel(s: &DashboardState) -> Paragraph<'static> {
    let row =
        |k: &str, v: String| Line::from(vec![Span::from(format!("{k:<9}")).dim(), Span::from(v)]);
    let mut lines = vec![row(
        "rate",
        s.rate
            .map_or_else(|| "–".into(), |r| format!("{}/s", thousands(r))),
    )];
    if let Some(t) = s.target_rate {
        lines.push(row("target", format!("{}/s", thousands(t))));
    }
    lines.push(row("answered", thousands(s.answered as f64)));
    let errors = row("errors", thousands(s.errors as f64));
    lines.push(if s.errors > 0 { errors.red() } else { errors });
    lines.push(row("sent", thousands(s.sent as f64)));
    if let Some(b) = s.backlog {
        lines.push(row("backlog", thousands(b as f64)));
        lines.push(row("shed", thousands(s.shed as f64)));
    }
    Paragraph::new(lines).block(Block::bordered().title(" Requests "))
}

fn spectrum_panel(s: &DashboardState, area: Rect) -> Paragraph<'static> {
    let max = s
        .spectrum
        .iter()
        .flatten()
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    // Label, value and borders take 19 columns; the bar has the rest.
    let room = usize::from(area.width).saturating_sub(19).max(1);
    let lines: Vec<Line> = SPECTRUM_LABELS
        .iter()
        .zip(s.spectrum)
        .map(|(label, v)| {
            let (text, bar) = match v {
                Some(us) => {
                    // A log scale from 1 µs, so that a fast median and a slow tail both show.
                    let share =
                        ((us.max(1) as f64).ln() / (max as f64).ln().max(1e-9)).clamp(0.0, 1.0);
                    let n = ((share * room as f64).round() as usize).max(1);
                    (micros_short(us as f64), "█".repeat(n))
                }
                None => ("–".to_string(), String::new()),
            };
            Line::from(vec![
                Span::from(format!("{label:>6} ")).dim(),
                Span::from(format!("{text:>9} ")),
                Span::from(bar).cyan(),
            ])
        })
        .collect();
    Paragraph::new(lines).block(Block::bordered().title(" Latency so far "))
}

fn status_panel(s: &DashboardState) -> Paragraph<'static> {
    let lines: Vec<Line> = CLASS_LABELS
        .iter()
        .zip(s.classes)
        .filter(|(label, n)| *n > 0 || **label == "2xx")
        .map(|(label, n)| {
            let line = Line::from(vec![
                Span::from(format!("{label:<6}")).dim(),
                Span::from(thousands(n as f64)),
            ]);
            if matches!(*label, "4xx" | "5xx" | "other") {
                line.red()
            } else {
                line
            }
        })
        .collect();
    Paragraph::new(lines).block(Block::bordered().title(" Status "))
}

fn render_sparkline(f: &mut ratatui::Frame, s: &DashboardState, area: Rect) {
    let width = usize::from(area.width.saturating_sub(2));
    let shown = &s.p99s[s.p99s.len().saturating_sub(width)..];
    let last = shown
        .last()
        .map_or_else(|| "–".to_string(), |us| micros_short(*us as f64));
    let peak = shown
        .iter()
        .max()
        .map_or_else(|| "–".to_string(), |us| micros_short(*us as f64));
    f.render_widget(
        Sparkline::default()
            .block(Block::bordered().title(format!(" p99 per second: {last} now, {peak} peak ")))
            .data(shown)
            .style(Style::default().fg(Color::Yellow)),
        area,
    );
}
