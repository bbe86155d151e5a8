//! The charts of one workload × scenario, as `<figure class="chart" data-chart=…>` around the
//! SVG that `svg.rs` draws: requests per second, latency by percentile, server CPU and memory.

use std::fmt::Write;

use restbench_model::Cell;
use restbench_model::documents::histogram;

use crate::cells::{CellLabel, open_loop_only, single_repeat};
use crate::escape::html as escape;
use crate::open_loop;
use crate::units::{bytes_short, micros_short, si, si_precise, thousands, trimmed as trim};

use super::svg::{self, Bar, BarChart, Curve};

/// The four charts of a group's measured cells: up to ten cells, three bar charts stacked beside
/// one latency chart as tall as they are; more, all four in a grid.
pub fn group_charts(
    o: &mut String,
    ok: &[(&Cell, &CellLabel)],
    color: &dyn Fn(&CellLabel) -> usize,
    closed_loop: &str,
) {
    // Cells measured only open loop have no closed-loop figures to chart.
    let ok: Vec<(&Cell, &CellLabel)> = ok
        .iter()
        .copied()
        .filter(|(c, _)| !open_loop_only(c))
        .collect();
    let ok = ok.as_slice();
    if !ok.is_empty() {
        if ok.len() <= 10 {
            // Three bar charts stacked beside one latency chart as tall as they are.
            let bars = svg::bar_chart_height(ok.len());
            let legend_px: f64 = ok
                .iter()
                .map(|(_, l)| l.label.chars().count() as f64 * 7.0 + 40.0)
                .sum::<f64>();
            let legend_px = (legend_px / 560.0).ceil() * 22.0;
            let height = ((2.7 * bars + 120.0 - legend_px) / 0.9).clamp(280.0, 640.0);
            o.push_str("<div class=\"charts stack\"><div class=\"col\">");
            rps_chart(o, ok, color);
            cpu_chart(o, ok, color);
            memory_chart(o, ok, color);
            o.push_str("</div><div class=\"col\">");
            latency_figure(o, ok, color, height, closed_loop);
            o.push_str("</div></div>");
        } else {
            o.push_str("<div class=\"charts\">");
            rps_chart(o, ok, color);
            latency_figure(o, ok, color, 320.0, closed_loop);
            cpu_chart(o, ok, color);
            memory_chart(o, ok, color);
            o.push_str("</div>");
        }
        if let Some(body) = super::timeline::panels(ok, color) {
            o.push_str("<div class=\"charts\">");
            figure(
                o,
                "timeline",
                "Over time",
                "requests per second and p99, second by second; repeats end to end (dashed)",
                &body,
            );
            o.push_str("</div>");
        }
    }
}

fn figure(o: &mut String, kind: &str, caption: &str, note: &str, body: &str) {
    let _ = write!(
        o,
        "<figure class=\"chart\" data-chart=\"{kind}\"><figcaption>{} <span>{}</span></figcaption>{body}</figure>",
        escape(caption),
        escape(note)
    );
}

fn rps_chart(o: &mut String, ok: &[(&Cell, &CellLabel)], color: &dyn Fn(&CellLabel) -> usize) {
    let any_ci = ok.iter().any(|(c, _)| c.rps.ci95.is_some());
    let bars: Vec<Bar> = ok
        .iter()
        .map(|(c, l)| {
            let whisker = c
                .rps
                .ci95
                .or_else(|| (c.rps.max > c.rps.min).then_some([c.rps.min, c.rps.max]));
            Bar {
                label: l.label.clone(),
                value: c.rps.median,
                whisker,
                marker: None,
                color: svg::series_style(color(l)).0.into(),
                text: si_precise(c.rps.median),
                title: format!(
                    "{}: median {} req/s{}{}",
                    l.label,
                    thousands(c.rps.median),
                    c.rps.ci95.map_or(String::new(), |[a, b]| format!(
                        ", 95 % CI {}–{}",
                        thousands(a),
                        thousands(b)
                    )),
                    // One repeat has no spread: say so rather than a cv of 0 %.
                    if single_repeat(c) {
                        "; one repeat".to_string()
                    } else {
                        format!(
                            "; min {} max {}; cv {:.1} %",
                            thousands(c.rps.min),
                            thousands(c.rps.max),
                            c.rps.cv * 100.0
                        )
                    }
                ),
            }
        })
        .collect();
    let body = svg::bar_chart(&BarChart {
        bars: &bars,
        tick_label: &si,
        axis_title: "requests per second",
        marker_title: "",
    });
    figure(
        o,
        "rps",
        "Requests per second",
        if any_ci {
            "median; whiskers: 95 % CI (min–max without one)"
        } else {
            "median; whiskers: min–max over repeats"
        },
        &body,
    );
}

/// Percentile points of a cell: from its histogram when present (a fine grid up to 99.99 % or
/// as far as the number of samples supports), else the stored summary. The flag says which.
pub fn latency_points(c: &Cell) -> (Vec<(f64, f64)>, bool) {
    if let Some(h) = c
        .histogram
        .as_deref()
        .and_then(|t| histogram::decode(t).ok())
        .filter(|h| !h.is_empty())
    {
        let n = h.len() as f64;
        let top = n.log10().clamp(svg::nines(0.99), 4.0);
        let start = svg::nines(0.5);
        let steps = ((top - start) / 0.04).ceil().max(1.0) as usize;
        let pts = (0..=steps)
            .map(|i| {
                let x = start + (top - start) * i as f64 / steps as f64;
                let q = svg::quantile_at(x).min(0.9999);
                (q, h.value_at_quantile(q) as f64)
            })
            .collect();
        return (pts, true);
    }
    let l = &c.latency_us;
    let pts = [
        (0.5, l.p50),
        (0.75, l.p75),
        (0.9, l.p90),
        (0.99, l.p99),
        (0.999, l.p999),
    ]
    .into_iter()
    .filter(|(_, v)| *v > 0)
    .map(|(q, v)| (q, v as f64))
    .collect();
    (pts, false)
}

fn latency_figure(
    o: &mut String,
    ok: &[(&Cell, &CellLabel)],
    color: &dyn Fn(&CellLabel) -> usize,
    height: f64,
    closed_loop: &str,
) {
    let mut from_hist = 0;
    let curves: Vec<Curve> = ok
        .iter()
        .map(|(c, l)| {
            let (points, h) = latency_points(c);
            if h {
                from_hist += 1;
            }
            Curve {
                label: format!(
                    "{}: p50 {}, p99 {}, p99.9 {}",
                    l.label,
                    micros_short(c.latency_us.p50 as f64),
                    crate::cells::p99_text(c),
                    micros_short(c.latency_us.p999 as f64)
                ),
                style: color(l),
                points,
            }
        })
        .collect();
    let mut body = svg::latency_chart(&curves, height);
    body.push_str("<ul class=\"legend\">");
    for (_, l) in ok {
        let (col, dash) = svg::series_style(color(l));
        let _ = write!(
            body,
            "<li><svg viewBox=\"0 0 22 10\" aria-hidden=\"true\"><line x1=\"1\" y1=\"5\" x2=\"21\" y2=\"5\" stroke=\"{col}\"{}/></svg>{}</li>",
            if dash.is_empty() {
                String::new()
            } else {
                format!(" stroke-dasharray=\"{dash}\"")
            },
            escape(&l.label)
        );
    }
    body.push_str("</ul>");
    let note = if from_hist == ok.len() {
        "from each cell's merged histogram"
    } else if from_hist == 0 {
        "from the stored percentiles (no histograms)"
    } else {
        "from histograms where stored, else the stored percentiles"
    };
    figure(
        o,
        "latency",
        &format!("Latency by percentile, {closed_loop}"),
        note,
        &body,
    );
}

/// The latency–throughput chart of a group's open-loop steps (none when no cell has any): p50 and
/// p99 against the achieved rate, a line per subject, the SLO drawn, the generator-bound region
/// shaded.
pub fn latency_throughput_figure(
    o: &mut String,
    ok: &[(&Cell, &CellLabel)],
    color: &dyn Fn(&CellLabel) -> usize,
) {
    let cells: Vec<&Cell> = ok.iter().map(|(c, _)| *c).collect();
    let Some(lt) = open_loop::latency_throughput(&cells) else {
        return;
    };
    let style_of = |label: &str| {
        ok.iter()
            .find(|(_, l)| l.label == label)
            .map_or(0, |(_, l)| color(l))
    };
    let curves: Vec<svg::RateCurve> = lt
        .series
        .iter()
        .map(|s| svg::RateCurve {
            label: s.label.clone(),
            style: style_of(&s.label),
            points: s
                .points
                .iter()
                .map(|p| (p.achieved, p.p50_us as f64, p.p99_us as f64, p.pass))
                .collect(),
        })
        .collect();
    let slo: Vec<(String, f64)> = lt
        .slo_lines
        .iter()
        .map(|(n, us)| (n.to_string(), *us as f64))
        .collect();
    let mut body = svg::rate_latency_chart(&curves, &slo, lt.generator_bound_from, 340.0);
    body.push_str("<ul class=\"legend\">");
    for s in &lt.series {
        let (col, _) = svg::series_style(style_of(&s.label));
        let _ = write!(
            body,
            "<li><svg viewBox=\"0 0 22 10\" aria-hidden=\"true\"><line x1=\"1\" y1=\"5\" x2=\"21\" y2=\"5\" stroke=\"{col}\" stroke-width=\"2\"/></svg>{}</li>",
            escape(&s.label)
        );
    }
    body.push_str("</ul>");
    figure(
        o,
        "latency-throughput",
        "Latency against throughput (open loop)",
        "p99 solid with points (hollow: the step failed), p50 dashed; latency from intended send times",
        &body,
    );
}

fn cpu_chart(o: &mut String, ok: &[(&Cell, &CellLabel)], color: &dyn Fn(&CellLabel) -> usize) {
    let any_limit = ok.iter().any(|(c, _)| c.server.cpu_limit_cores.is_some());
    let bars: Vec<Bar> = ok
        .iter()
        .map(|(c, l)| Bar {
            label: l.label.clone(),
            value: c.server.cpu_cores,
            whisker: None,
            marker: c.server.cpu_limit_cores,
            color: svg::series_style(color(l)).0.into(),
            text: if c.server.cpu_us_per_req > 0.0 {
                format!(
                    "{:.2} · {:.1} µs/req",
                    c.server.cpu_cores, c.server.cpu_us_per_req
                )
            } else {
                format!("{:.2}", c.server.cpu_cores)
            },
            title: format!(
                "{}: {:.2} CPU cores busy, {:.1} CPU µs per request{}",
                l.label,
                c.server.cpu_cores,
                c.server.cpu_us_per_req,
                c.server
                    .cpu_limit_cores
                    .map_or(String::new(), |v| format!(", limit {} cores", trim(v)))
            ),
        })
        .collect();
    let body = svg::bar_chart(&BarChart {
        bars: &bars,
        tick_label: &|v| trim(v),
        axis_title: "CPU cores busy (server process tree)",
        marker_title: "the scenario's CPU limit",
    });
    figure(
        o,
        "cpu",
        "Server CPU",
        if any_limit {
            "cores busy and CPU µs per request; dashed: the CPU limit"
        } else {
            "cores busy and CPU µs per request"
        },
        &body,
    );
}

fn memory_chart(o: &mut String, ok: &[(&Cell, &CellLabel)], color: &dyn Fn(&CellLabel) -> usize) {
    const MB: f64 = 1024.0 * 1024.0;
    let bars: Vec<Bar> = ok
        .iter()
        .map(|(c, l)| Bar {
            label: l.label.clone(),
            value: c.server.rss_peak_bytes as f64 / MB,
            whisker: None,
            marker: (c.server.rss_mean_bytes > 0).then(|| c.server.rss_mean_bytes as f64 / MB),
            color: svg::series_style(color(l)).0.into(),
            text: bytes_short(c.server.rss_peak_bytes as f64),
            title: format!(
                "{}: RSS peak {}, mean {}",
                l.label,
                bytes_short(c.server.rss_peak_bytes as f64),
                bytes_short(c.server.rss_mean_bytes as f64)
            ),
        })
        .collect();
    let body = svg::bar_chart(&BarChart {
        bars: &bars,
        tick_label: &|v| format!("{} MB", si(v)),
        axis_title: "resident memory (server process tree)",
        marker_title: "mean RSS",
    });
    figure(
        o,
        "memory",
        "Server memory",
        "RSS peak; dashed: mean",
        &body,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_points_come_from_the_histogram_when_there_is_one() {
        let mut c = crate::test_support::cell("x", "echo", "one-cpu", 1000.0);
        c.latency_us.p50 = 100;
        c.latency_us.p99 = 900;
        let (pts, from_hist) = latency_points(&c);
        assert!(!from_hist);
        assert_eq!(pts, vec![(0.5, 100.0), (0.99, 900.0)]);

        let mut h = histogram::new_latency_histogram();
        for v in 1..=100_000u64 {
            h.record(v).unwrap();
        }
        c.histogram = Some(histogram::encode(&h));
        let (pts, from_hist) = latency_points(&c);
        assert!(from_hist);
        assert_eq!(pts.first().unwrap().0, 0.5);
        assert!((pts.last().unwrap().0 - 0.9999).abs() < 1e-9);
        let p50 = pts.first().unwrap().1;
        assert!((p50 - 50_000.0).abs() / 50_000.0 < 0.002, "{p50}");
        assert!(pts.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));

        // Few samples: the curve stops where the data stops supporting a percentile.
        let mut small = histogram::new_latency_histogram();
        for v in 1..=200u64 {
            small.record(v).unwrap();
        }
        c.histogram = Some(histogram::encode(&small));
        let (pts, _) = latency_points(&c);
        // 200 samples support percentiles up to 1 − 1/200 = 99.5 %.
        assert!((pts.last().unwrap().0 - 0.995).abs() < 1e-9);
    }
}
