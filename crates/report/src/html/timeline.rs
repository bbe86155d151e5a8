//! Small multiples over time: one panel per measured cell of a group, its rate above and its p99
//! below, second by second, repeats end to end. Drawn from [`crate::timeline`]'s data.

use std::fmt::Write;

use restbench_model::Cell;

use crate::cells::CellLabel;
use crate::escape::html as escape;
use crate::timeline::{Timeline, cell_timeline};
use crate::units::{micros_short, si};

use super::markup::swatch;
use super::svg::{Axes, LinearScale, f, linear_ticks, series_style, svg_start};

const W: f64 = 320.0;
const LEFT: f64 = 50.0;
const RIGHT: f64 = 10.0;
const PLOT_H: f64 = 58.0;
const RATE_TOP: f64 = 10.0;
const P99_TOP: f64 = 92.0;
const H: f64 = 178.0;

/// The panels of the group's cells that recorded seconds, inside one `<div class="tl">`; `None`
/// when none did (results written before seconds were kept), so that no empty figure is drawn.
pub fn panels(ok: &[(&Cell, &CellLabel)], color: &dyn Fn(&CellLabel) -> usize) -> Option<String> {
    let timelines: Vec<(Timeline, &CellLabel)> = ok
        .iter()
        .filter_map(|(c, l)| Some((cell_timeline(c)?, *l)))
        .collect();
    if timelines.is_empty() {
        return None;
    }
    let mut o = String::from("<div class=\"tl\">");
    for (t, l) in &timelines {
        let _ = write!(
            o,
            "<div class=\"tlp\"><div class=\"tlh\">{}{}</div>{}</div>",
            swatch(color(l)),
            escape(&l.label),
            panel(t, color(l), &l.label)
        );
    }
    o.push_str("</div>");
    Some(o)
}

/// One cell's SVG: requests per second (top) and p99 (bottom) against seconds.
fn panel(t: &Timeline, style: usize, label: &str) -> String {
    let (stroke, _) = series_style(style);
    let x = LinearScale::new(0.0, t.span.max(1.0), LEFT, W - RIGHT);
    let mut o = String::new();
    let aria = format!("{label}: requests per second and p99 latency over time");
    svg_start(&mut o, W, H, Some(&aria));
    let rate_ticks = linear_ticks(t.max_rps().max(1.0));
    let rate_top = rate_ticks.last().copied().unwrap_or(1.0);
    let y_rate = LinearScale::new(0.0, rate_top, RATE_TOP + PLOT_H, RATE_TOP);
    plot_frame(&mut o, &rate_ticks, &y_rate, &si, RATE_TOP, "req/s");
    let p99_ticks = linear_ticks(t.max_p99().unwrap_or(1).max(1) as f64);
    let p99_top = p99_ticks.last().copied().unwrap_or(1.0);
    let y_p99 = LinearScale::new(0.0, p99_top, P99_TOP + PLOT_H, P99_TOP);
    let latency = |us: f64| {
        if us == 0.0 {
            "0".to_string()
        } else {
            micros_short(us)
        }
    };
    plot_frame(&mut o, &p99_ticks, &y_p99, &latency, P99_TOP, "p99");
    // Seconds along the bottom, and a dashed line where each later repeat starts.
    for s in linear_ticks(t.span.max(1.0)) {
        if s > t.span.max(1.0) + 1e-9 {
            break;
        }
        let _ = write!(
            o,
            r#"<text class="tick" x="{px}" y="{y}" text-anchor="middle">{s}s</text>"#,
            px = f(x.px(s)),
            y = f(P99_TOP + PLOT_H + 14.0),
            s = f(s)
        );
    }
    for start in &t.repeat_starts {
        let _ = write!(
            o,
            r#"<line class="grid repeat" x1="{px}" y1="{a}" x2="{px}" y2="{z}"><title>repeat starts</title></line>"#,
            px = f(x.px(*start)),
            a = f(RATE_TOP),
            z = f(P99_TOP + PLOT_H)
        );
    }
    let rate: Vec<(f64, f64)> = t.points.iter().map(|p| (p.t, p.rps)).collect();
    curve(&mut o, &rate, &x, &y_rate, stroke, "requests per second");
    let p99: Vec<(f64, f64)> = t
        .points
        .iter()
        .filter_map(|p| Some((p.t, p.p99_us? as f64)))
        .collect();
    curve(&mut o, &p99, &x, &y_p99, stroke, "p99 latency");
    o.push_str("</svg>");
    o
}

/// Grid lines and tick labels of one plot, its axes and its title.
fn plot_frame(
    o: &mut String,
    ticks: &[f64],
    y: &LinearScale,
    label: &dyn Fn(f64) -> String,
    top: f64,
    title: &str,
) {
    let axes = Axes {
        y_label_offset: (4.0, 3.5),
        ..Axes::new(LEFT, W - RIGHT, top, top + PLOT_H)
    };
    for v in ticks {
        axes.y_grid(o, y.px(*v), &label(*v));
    }
    axes.frame(o);
    let _ = write!(
        o,
        r#"<text class="axis-title" x="{tx}" y="{ty}" text-anchor="end">{title}</text>"#,
        tx = f(W - RIGHT),
        ty = f(top + 9.0),
        title = escape(title)
    );
}

fn curve(
    o: &mut String,
    points: &[(f64, f64)],
    x: &LinearScale,
    y: &LinearScale,
    stroke: &str,
    title: &str,
) {
    let mut d = String::new();
    for (i, (t, v)) in points.iter().enumerate() {
        let _ = write!(
            d,
            "{}{} {}",
            if i == 0 { "M" } else { "L" },
            f(x.px(*t)),
            f(y.px(*v))
        );
    }
    if points.len() == 1 {
        // A single second is a dot, not an invisible line.
        let _ = write!(d, "h0.1");
    }
    if !d.is_empty() {
        let _ = write!(
            o,
            r#"<path class="curve" d="{d}" stroke="{stroke}"><title>{}</title></path>"#,
            escape(title)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::{RepeatResult, SecondSample};

    #[test]
    fn a_panel_per_cell_with_seconds_and_none_without() {
        let mut a = crate::test_support::cell("a<b>", "plaintext", "all-cores", 1000.0);
        let b = crate::test_support::cell("b", "plaintext", "all-cores", 1000.0);
        let labels = crate::cells::cell_labels(&[&a, &b]);
        let color = |_: &CellLabel| 0;
        assert_eq!(panels(&[(&a, &labels[0]), (&b, &labels[1])], &color), None);
        a.repeats = vec![RepeatResult {
            rps: 1000.0,
            requests: 3000,
            duration_s: 3.0,
            latency_us: Default::default(),
            errors: Default::default(),
            server_cpu_cores: 1.0,
            loadgen_cpu_cores: 1.0,
            round: None,
            saturation: None,
            timeseries: (0..3)
                .map(|i| SecondSample {
                    second: i,
                    requests: 1000,
                    errors: 0,
                    p50_us: Some(100),
                    p99_us: Some(900 + u64::from(i) * 100),
                })
                .collect(),
        }];
        let html = panels(&[(&a, &labels[0]), (&b, &labels[1])], &color).expect("a has seconds");
        assert_eq!(html.matches("<svg xmlns").count(), 1, "only a has a panel");
        assert_eq!(html.matches("class=\"curve\"").count(), 2, "rate and p99");
        assert!(html.contains("a&lt;b&gt;") && !html.contains("a<b>"));
        assert!(html.contains(">req/s<") && html.contains(">p99<"));
    }
}
