//! Inline SVG charts, written as strings: horizontal bars (with whiskers and markers) and latency
//! percentile curves on log–"nines" axes. No scripts, no external resources.

use std::fmt::Write;

use crate::escape::html as escape;
use crate::units::micros_short;

/// Categorical colours (Tableau 10); indices beyond them repeat with a dash pattern.
pub const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// A colour and a dash pattern for series number `i`.
pub fn series_style(i: usize) -> (&'static str, &'static str) {
    const DASHES: [&str; 3] = ["", "6 3", "2 3"];
    (
        PALETTE[i % PALETTE.len()],
        DASHES[(i / PALETTE.len()) % DASHES.len()],
    )
}

/// The "nines" of a quantile: 0.5 → 0.30, 0.9 → 1, 0.99 → 2, 0.999 → 3.
pub fn nines(q: f64) -> f64 {
    -(1.0 - q).max(1e-12).log10()
}

/// The quantile at a number of nines (inverse of [`nines`]).
pub fn quantile_at(nines: f64) -> f64 {
    1.0 - 10f64.powf(-nines)
}

/// A percentile label for a quantile: `50`, `99`, `99.9`, `99.99`.
pub fn percentile_label(q: f64) -> String {
    let p = q * 100.0;
    let s = format!("{p:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Maps values on a log10 scale onto pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogScale {
    lo: f64,
    hi: f64,
    p0: f64,
    p1: f64,
}

impl LogScale {
    /// `lo..hi` (both > 0) onto `p0..p1` pixels (p1 may be below p0, as for y axes).
    pub fn new(lo: f64, hi: f64, p0: f64, p1: f64) -> Self {
        let lo = lo.max(f64::MIN_POSITIVE);
        let hi = if hi > lo { hi } else { lo * 10.0 };
        Self { lo, hi, p0, p1 }
    }
    pub fn px(&self, v: f64) -> f64 {
        let t = (v.max(self.lo).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10());
        self.p0 + t * (self.p1 - self.p0)
    }
}

/// Maps values linearly onto pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearScale {
    lo: f64,
    hi: f64,
    p0: f64,
    p1: f64,
}

impl LinearScale {
    pub fn new(lo: f64, hi: f64, p0: f64, p1: f64) -> Self {
        let hi = if hi > lo { hi } else { lo + 1.0 };
        Self { lo, hi, p0, p1 }
    }
    pub fn px(&self, v: f64) -> f64 {
        self.p0 + (v - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)
    }
}

/// Decade bounds around `lo..hi`: the largest power of ten ≤ lo and the smallest ≥ hi.
pub fn log_bounds(lo: f64, hi: f64) -> (f64, f64) {
    let lo = lo.max(1e-9);
    let hi = hi.max(lo);
    let a = 10f64.powf(lo.log10().floor());
    let mut b = 10f64.powf(hi.log10().ceil());
    if b <= a {
        b = a * 10.0;
    }
    (a, b)
}

/// Ticks at 1, 2 and 5 × 10^k inside `lo..=hi`; only powers of ten when that would be too many.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = log_bounds(lo, hi);
    let mut all = Vec::new();
    let mut d = a;
    while d <= b * 1.000_001 {
        for m in [1.0, 2.0, 5.0] {
            let v = d * m;
            if v >= lo * 0.999_999 && v <= hi * 1.000_001 {
                all.push(v);
            }
        }
        d *= 10.0;
    }
    if all.len() > 9 {
        all.retain(|v| {
            let l = v.log10();
            (l - l.round()).abs() < 1e-9
        });
    }
    all
}

/// The smallest "nice" number (1, 2, 2.5, 5 × 10^k) at or above `v`.
pub fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if m * p >= v * 0.999_999 {
            return m * p;
        }
    }
    10.0 * p
}

/// Ticks from 0 to a nice maximum at or above `max`, 4 to 6 steps.
pub fn linear_ticks(max: f64) -> Vec<f64> {
    let top = nice_ceiling(max);
    let step = [top / 5.0, top / 4.0, top / 2.0]
        .into_iter()
        .find(|s| {
            let n = s / 10f64.powf(s.log10().floor());
            [1.0, 2.0, 2.5, 5.0].iter().any(|m| (n - m).abs() < 1e-9)
        })
        .unwrap_or(top / 5.0);
    let n = (top / step).round() as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

/// A coordinate as SVG gets it: one decimal, none when it is whole.
pub(super) fn f(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// Cuts a label to `n` characters.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n - 1).collect::<String>())
    }
}

/// Rough text width at the chart font size (12 px system fonts).
fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * 6.6
}

/// The opening tag of a chart `width` × `height` units large, with an accessible name when given.
pub(super) fn svg_start(o: &mut String, width: f64, height: f64, aria_label: Option<&str>) {
    let _ = write!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img"{a}>"#,
        w = f(width),
        h = f(height),
        a = aria_label.map_or(String::new(), |a| format!(r#" aria-label="{}""#, escape(a)))
    );
}

/// The plot area of a chart, in SVG units, and how every chart draws its grid, tick labels, axis
/// titles and axes on it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axes {
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
    /// How far left of the axis, and below its grid line, a y tick label sits.
    pub y_label_offset: (f64, f64),
}

impl Axes {
    pub fn new(left: f64, right: f64, top: f64, bottom: f64) -> Self {
        Self {
            left,
            right,
            top,
            bottom,
            y_label_offset: (6.0, 4.0),
        }
    }

    /// A horizontal grid line at `py` with its label left of the axis.
    pub fn y_grid(&self, o: &mut String, py: f64, label: &str) {
        let (dx, dy) = self.y_label_offset;
        let _ = write!(
            o,
            r#"<line class="grid" x1="{l}" y1="{py}" x2="{r}" y2="{py}"/><text class="tick" x="{tx}" y="{ty}" text-anchor="end">{label}</text>"#,
            l = f(self.left),
            r = f(self.right),
            py = f(py),
            tx = f(self.left - dx),
            ty = f(py + dy),
            label = escape(label)
        );
    }

    /// A vertical grid line at `px` with its label under the plot.
    pub fn x_grid(&self, o: &mut String, px: f64, label: &str) {
        let _ = write!(
            o,
            r#"<line class="grid" x1="{px}" y1="{a}" x2="{px}" y2="{z}"/><text class="tick" x="{px}" y="{ty}" text-anchor="middle">{label}</text>"#,
            px = f(px),
            a = f(self.top),
            z = f(self.bottom),
            ty = f(self.bottom + 15.0),
            label = escape(label)
        );
    }

    /// A log-scale y axis's grid: 1, 2 and 5 × 10^k, labelled as latencies.
    pub fn latency_grid(&self, o: &mut String, y: &LogScale, lo: f64, hi: f64) {
        for t in log_ticks(lo, hi) {
            self.y_grid(o, y.px(t), &micros_short(t));
        }
    }

    /// The x axis's title, centred under the plot at height `y`.
    pub fn x_title(&self, o: &mut String, title: &str, y: f64) {
        let _ = write!(
            o,
            r#"<text class="axis-title" x="{x}" y="{y}" text-anchor="middle">{t}</text>"#,
            x = f(self.left + (self.right - self.left) / 2.0),
            y = f(y),
            t = escape(title)
        );
    }

    /// The y axis's title, turned along the left edge.
    pub fn y_title(&self, o: &mut String, title: &str) {
        let _ = write!(
            o,
            r#"<text class="axis-title" transform="translate(12 {ym}) rotate(-90)" text-anchor="middle">{t}</text>"#,
            ym = f(self.top + (self.bottom - self.top) / 2.0),
            t = escape(title)
        );
    }

    /// The left and bottom axes.
    pub fn frame(&self, o: &mut String) {
        let _ = write!(
            o,
            r#"<path class="axis" d="M{l} {t}V{b}H{r}"/>"#,
            l = f(self.left),
            t = f(self.top),
            b = f(self.bottom),
            r = f(self.right)
        );
    }

    /// The left axis only (bars grow from it).
    pub fn left_axis(&self, o: &mut String) {
        let _ = write!(
            o,
            r#"<line class="axis" x1="{x}" y1="{a}" x2="{x}" y2="{z}"/>"#,
            x = f(self.left),
            a = f(self.top),
            z = f(self.bottom)
        );
    }
}

/// Decade bounds around the positive latencies given, or 1 to 10 µs when there is none.
fn latency_bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if lo.is_finite() {
        log_bounds(lo, hi)
    } else {
        log_bounds(1.0, 10.0)
    }
}

/// One bar of a horizontal bar chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    /// A whisker (interval) around the value.
    pub whisker: Option<[f64; 2]>,
    /// A marker across the bar (a CPU limit, a mean).
    pub marker: Option<f64>,
    pub color: String,
    /// Text written after the bar.
    pub text: String,
    /// Tooltip.
    pub title: String,
}

/// Options of a bar chart.
pub struct BarChart<'a> {
    pub bars: &'a [Bar],
    /// Axis tick labels.
    pub tick_label: &'a dyn Fn(f64) -> String,
    /// Axis title under the ticks.
    pub axis_title: &'a str,
    /// What the marker means, for its tooltip; markers are drawn as dashed dark lines.
    pub marker_title: &'a str,
}

const WIDTH: f64 = 640.0;
/// Bar labels longer than this are cut (the tooltip has them whole).
const LABEL_CHARS: usize = 34;

/// The height (in SVG units, 640 wide) of a bar chart with `n` bars.
pub fn bar_chart_height(n: usize) -> f64 {
    8.0 + 26.0 * n.max(1) as f64 + 40.0
}

/// A horizontal bar chart, one bar per row, axis at the bottom.
pub fn bar_chart(c: &BarChart<'_>) -> String {
    let longest_label = c
        .bars
        .iter()
        .map(|b| b.label.chars().count().min(LABEL_CHARS))
        .max()
        .unwrap_or(8) as f64;
    let label_w = (longest_label * 7.0 + 14.0).clamp(90.0, 250.0);
    let right_pad = 30.0;
    let top = 8.0;
    let plot_h = BAR_ROW * c.bars.len().max(1) as f64;
    let max = c
        .bars
        .iter()
        .flat_map(|b| [Some(b.value), b.whisker.map(|w| w[1]), b.marker])
        .flatten()
        .fold(0.0f64, f64::max);
    // Leave room for the text after the longest bar.
    let longest_text = c
        .bars
        .iter()
        .map(|b| text_width(&b.text))
        .fold(0.0, f64::max);
    let plot_w = WIDTH - label_w - right_pad;
    let ticks = linear_ticks(max.max(f64::MIN_POSITIVE) * (1.0 + (longest_text + 8.0) / plot_w));
    let top_value = *ticks.last().unwrap_or(&1.0);
    let x = LinearScale::new(0.0, top_value, label_w, label_w + plot_w);
    let axes = Axes::new(label_w, label_w + plot_w, top, top + plot_h);
    let mut o = String::new();
    svg_start(&mut o, WIDTH, bar_chart_height(c.bars.len()), None);
    for t in &ticks {
        axes.x_grid(&mut o, x.px(*t), &(c.tick_label)(*t));
    }
    axes.x_title(&mut o, c.axis_title, top + plot_h + 33.0);
    for (i, b) in c.bars.iter().enumerate() {
        bar(&mut o, b, &x, top + i as f64 * BAR_ROW, c.marker_title);
    }
    axes.left_axis(&mut o);
    o.push_str("</svg>");
    o
}

/// The height of a bar's row.
const BAR_ROW: f64 = 26.0;

/// One bar in the row starting at `y`: its label, the bar from the axis, its whisker and
/// marker, and its text after whichever ends last.
fn bar(o: &mut String, b: &Bar, x: &LinearScale, y: f64, marker_title: &str) {
    let bar_h = 16.0;
    let label_w = x.px(0.0);
    let by = y + (BAR_ROW - bar_h) / 2.0;
    let cy = y + BAR_ROW / 2.0;
    let w = (x.px(b.value.max(0.0)) - label_w).max(0.5);
    let _ = write!(
        o,
        r#"<g class="bar"><title>{title}</title><text class="label" x="{lx}" y="{ty}" text-anchor="end">{label}</text><rect x="{x0}" y="{by}" width="{w}" height="{bh}" rx="2" fill="{color}"/>"#,
        title = escape(&b.title),
        lx = f(label_w - 8.0),
        ty = f(cy + 4.0),
        label = escape(&clip(&b.label, LABEL_CHARS)),
        x0 = f(label_w),
        by = f(by),
        w = f(w),
        bh = f(bar_h),
        color = escape(&b.color),
    );
    let mut end = label_w + w;
    if let Some([lo, hi]) = b.whisker {
        let (a, z) = (x.px(lo.max(0.0)), x.px(hi.max(0.0)));
        let _ = write!(
            o,
            r#"<path class="whisker" d="M{a} {cy}H{z}M{a} {t}V{u}M{z} {t}V{u}"/>"#,
            a = f(a),
            z = f(z),
            cy = f(cy),
            t = f(cy - 5.0),
            u = f(cy + 5.0)
        );
        end = end.max(z);
    }
    if let Some(m) = b.marker {
        let mx = x.px(m.max(0.0));
        let _ = write!(
            o,
            r#"<line class="marker" x1="{mx}" y1="{a}" x2="{mx}" y2="{z}"><title>{t}</title></line>"#,
            mx = f(mx),
            a = f(by - 3.0),
            z = f(by + bar_h + 3.0),
            t = escape(marker_title)
        );
        end = end.max(mx);
    }
    let _ = write!(
        o,
        r#"<text class="value" x="{x}" y="{y}">{t}</text></g>"#,
        x = f(end + 6.0),
        y = f(cy + 4.0),
        t = escape(&b.text)
    );
}

/// One latency curve: points of (quantile, latency µs).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub label: String,
    /// Index into [`series_style`].
    pub style: usize,
    pub points: Vec<(f64, f64)>,
}

/// Latency against percentile: x in "nines" from p50 to the highest quantile present (at most
/// 99.99), y on a log scale.
pub fn latency_chart(curves: &[Curve], height: f64) -> String {
    let (left, right, top, bottom) = (74.0, 24.0, 12.0, 44.0);
    let height = height.max(200.0);
    let axes = Axes::new(left, WIDTH - right, top, height - bottom);
    let pts = curves.iter().flat_map(|c| c.points.iter());
    let max_q = pts.clone().map(|p| p.0).fold(0.99f64, f64::max).min(0.9999);
    let (ylo, yhi) = latency_bounds(pts.map(|p| p.1));
    let x = LinearScale::new(nines(0.5), nines(max_q), axes.left, axes.right);
    let y = LogScale::new(ylo, yhi, axes.bottom, top);
    let mut o = String::new();
    svg_start(&mut o, WIDTH, height, None);
    axes.latency_grid(&mut o, &y, ylo, yhi);
    for q in [0.5, 0.9, 0.99, 0.999, 0.9999] {
        if q > max_q + 1e-12 {
            break;
        }
        axes.x_grid(&mut o, x.px(nines(q)), &format!("p{}", percentile_label(q)));
    }
    axes.x_title(&mut o, "percentile (log scale of nines)", height - 8.0);
    axes.y_title(&mut o, "latency (log)");
    for c in curves {
        let (color, dash) = series_style(c.style);
        let mut d = String::new();
        for (i, (q, v)) in c
            .points
            .iter()
            .filter(|(q, v)| *v > 0.0 && *q <= max_q + 1e-12)
            .enumerate()
        {
            let _ = write!(
                d,
                "{}{} {}",
                if i == 0 { "M" } else { "L" },
                f(x.px(nines(*q))),
                f(y.px(*v))
            );
        }
        if d.is_empty() {
            continue;
        }
        let _ = write!(
            o,
            r#"<path class="curve" d="{d}" stroke="{color}"{dash}><title>{t}</title></path>"#,
            dash = if dash.is_empty() {
                String::new()
            } else {
                format!(r#" stroke-dasharray="{dash}""#)
            },
            t = escape(&c.label)
        );
    }
    axes.frame(&mut o);
    o.push_str("</svg>");
    o
}

/// One subject's latency–throughput curve: (achieved req/s, p50 µs, p99 µs, passed) per step.
#[derive(Debug, Clone, PartialEq)]
pub struct RateCurve {
    pub label: String,
    /// Index into [`series_style`].
    pub style: usize,
    pub points: Vec<(f64, f64, f64, bool)>,
}

/// Latency against achieved rate: x linear from 0, y on a log scale; p99 a solid line with
/// points (hollow where the step failed), p50 a thin dashed one; each SLO bound a labelled
/// horizontal line; the generator-bound region (from `generator_from` up) shaded.
pub fn rate_latency_chart(
    curves: &[RateCurve],
    slo: &[(String, f64)],
    generator_from: Option<f64>,
    height: f64,
) -> String {
    let (left, right, top, bottom) = (74.0, 24.0, 12.0, 44.0);
    let height = height.max(200.0);
    let axes = Axes::new(left, WIDTH - right, top, height - bottom);
    let xs = curves.iter().flat_map(|c| c.points.iter().map(|p| p.0));
    let max_x = xs.fold(0.0f64, f64::max).max(generator_from.unwrap_or(0.0));
    let ys = curves
        .iter()
        .flat_map(|c| c.points.iter().flat_map(|p| [p.1, p.2]))
        .chain(slo.iter().map(|s| s.1));
    let (ylo, yhi) = latency_bounds(ys);
    let xticks = linear_ticks(max_x.max(1.0));
    let xmax = xticks.last().copied().unwrap_or(1.0);
    let x = LinearScale::new(0.0, xmax, axes.left, axes.right);
    let y = LogScale::new(ylo, yhi, axes.bottom, top);
    let mut o = String::new();
    svg_start(&mut o, WIDTH, height, None);
    if let Some(g) = generator_from {
        generator_region(&mut o, &axes, x.px(g).min(axes.right), g);
    }
    axes.latency_grid(&mut o, &y, ylo, yhi);
    for t in &xticks {
        axes.x_grid(&mut o, x.px(*t), &crate::units::si(*t));
    }
    for (name, us) in slo {
        slo_line(
            &mut o,
            &axes,
            y.px(*us),
            &format!("{name} ≤ {}", micros_short(*us)),
        );
    }
    axes.x_title(&mut o, "achieved req/s (open loop)", height - 8.0);
    axes.y_title(&mut o, "latency (log)");
    for c in curves {
        rate_curve(&mut o, c, &x, &y, ylo);
    }
    axes.frame(&mut o);
    o.push_str("</svg>");
    o
}

/// The shaded region from `gx` to the right edge where the figures are the generator's.
fn generator_region(o: &mut String, axes: &Axes, gx: f64, from: f64) {
    let _ = write!(
        o,
        r##"<rect class="generator-bound" x="{gx}" y="{t}" width="{w}" height="{h}" fill="#999" fill-opacity="0.15"><title>generator-bound from {rate} req/s: figures here are the generator's</title></rect><text class="tick" x="{tx}" y="{ty}" text-anchor="end">generator-bound</text>"##,
        gx = f(gx),
        t = f(axes.top),
        w = f((axes.right - gx).max(2.0)),
        h = f(axes.bottom - axes.top),
        rate = escape(&crate::units::thousands(from)),
        tx = f(axes.right - 4.0),
        ty = f(axes.top + 12.0)
    );
}

/// An SLO bound: a red dashed line across the plot at `py`, labelled above it.
fn slo_line(o: &mut String, axes: &Axes, py: f64, label: &str) {
    let _ = write!(
        o,
        r##"<line class="slo" x1="{l}" y1="{py}" x2="{r}" y2="{py}" stroke="#c00" stroke-dasharray="5 3"/><text class="tick" x="{tx}" y="{ty}" fill="#c00">SLO {label}</text>"##,
        l = f(axes.left),
        r = f(axes.right),
        py = f(py),
        tx = f(axes.left + 4.0),
        ty = f(py - 4.0),
        label = escape(label)
    );
}

/// One subject's p50 and p99 lines, then a point per step (hollow where it failed).
fn rate_curve(o: &mut String, c: &RateCurve, x: &LinearScale, y: &LogScale, ylo: f64) {
    let (color, _) = series_style(c.style);
    for (which, idx, dash, width) in [
        ("p50", 1usize, r#" stroke-dasharray="3 3""#, 1.0),
        ("p99", 2, "", 2.0),
    ] {
        let mut d = String::new();
        for (i, p) in c.points.iter().enumerate() {
            let v = if idx == 1 { p.1 } else { p.2 };
            let _ = write!(
                d,
                "{}{} {}",
                if i == 0 { "M" } else { "L" },
                f(x.px(p.0)),
                f(y.px(v.max(ylo)))
            );
        }
        if d.is_empty() {
            continue;
        }
        let _ = write!(
            o,
            r#"<path class="curve" data-percentile="{which}" d="{d}" stroke="{color}" stroke-width="{width}"{dash}><title>{t}</title></path>"#,
            t = escape(&format!("{} {which}", c.label))
        );
    }
    for p in &c.points {
        let _ = write!(
            o,
            r#"<circle cx="{cx}" cy="{cy}" r="3" stroke="{color}" fill="{fill}"><title>{t}</title></circle>"#,
            cx = f(x.px(p.0)),
            cy = f(y.px(p.2.max(ylo))),
            fill = if p.3 { color } else { "white" },
            t = escape(&format!(
                "{}: {} req/s, p50 {}, p99 {} ({})",
                c.label,
                crate::units::thousands(p.0),
                micros_short(p.1),
                micros_short(p.2),
                if p.3 { "met the SLO" } else { "failed" }
            ))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nines_and_back() {
        assert!((nines(0.9) - 1.0).abs() < 1e-9);
        assert!((nines(0.999) - 3.0).abs() < 1e-9);
        assert!((nines(0.5) - std::f64::consts::LOG10_2).abs() < 1e-12);
        assert!((quantile_at(2.0) - 0.99).abs() < 1e-12);
        assert_eq!(percentile_label(0.5), "50");
        assert_eq!(percentile_label(0.999), "99.9");
        assert_eq!(percentile_label(0.9999), "99.99");
    }

    #[test]
    fn log_scale_maps_decades_evenly() {
        let s = LogScale::new(10.0, 10_000.0, 300.0, 0.0);
        assert_eq!(s.px(10.0), 300.0);
        assert_eq!(s.px(10_000.0), 0.0);
        assert!((s.px(100.0) - 200.0).abs() < 1e-9);
        assert!((s.px(1_000.0) - 100.0).abs() < 1e-9);
        // Below the range clamps to its bottom.
        assert_eq!(s.px(0.0), 300.0);
    }

    #[test]
    fn log_ticks_and_bounds() {
        assert_eq!(log_bounds(150.0, 2_300.0), (100.0, 10_000.0));
        assert_eq!(log_bounds(100.0, 100.0), (100.0, 1_000.0));
        assert_eq!(
            log_ticks(100.0, 10_000.0),
            vec![100.0, 200.0, 500.0, 1_000.0, 2_000.0, 5_000.0, 10_000.0]
        );
        // Many decades keep powers of ten only.
        assert_eq!(
            log_ticks(1.0, 1_000_000.0),
            vec![1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0, 1_000_000.0]
        );
    }

    #[test]
    fn linear_ticks_are_nice() {
        assert_eq!(nice_ceiling(7_124.0), 10_000.0);
        assert_eq!(nice_ceiling(21_938.0), 25_000.0);
        assert_eq!(nice_ceiling(150.0), 200.0);
        assert_eq!(
            linear_ticks(21_938.0),
            vec![0.0, 5_000.0, 10_000.0, 15_000.0, 20_000.0, 25_000.0]
        );
        let small = linear_ticks(0.9);
        assert_eq!(small.len(), 6);
        assert!((small[5] - 1.0).abs() < 1e-12 && (small[1] - 0.2).abs() < 1e-12);
    }

    #[test]
    fn charts_escape_labels() {
        let bars = [Bar {
            label: "<script>".into(),
            value: 10.0,
            whisker: Some([9.0, 11.0]),
            marker: None,
            color: "#4e79a7".into(),
            text: "10 & more".into(),
            title: "a \"b\"".into(),
        }];
        let svg = bar_chart(&BarChart {
            bars: &bars,
            tick_label: &|v| format!("{v}"),
            axis_title: "req/s",
            marker_title: "",
        });
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("&lt;script&gt;") && !svg.contains("<script>"));
        assert!(svg.contains("10 &amp; more"));
        let l = latency_chart(
            &[Curve {
                label: "x".into(),
                style: 0,
                points: vec![(0.5, 100.0), (0.99, 1_000.0), (0.999, 5_000.0)],
            }],
            300.0,
        );
        assert!(l.contains("p99.9") && !l.contains("p99.99"));
        assert!(l.contains("<path class=\"curve\""));
        let r = rate_latency_chart(
            &[RateCurve {
                label: "<x>".into(),
                style: 1,
                points: vec![
                    (1_000.0, 100.0, 400.0, true),
                    (2_000.0, 300.0, 9_000.0, false),
                ],
            }],
            &[("p99".into(), 5_000.0)],
            Some(1_800.0),
            300.0,
        );
        assert!(r.starts_with("<svg") && r.ends_with("</svg>"));
        assert!(r.contains("&lt;x&gt;") && !r.contains("<x>"));
        assert!(r.contains("generator-bound") && r.contains("SLO p99"));
        assert!(r.contains("data-percentile=\"p50\"") && r.contains("data-percentile=\"p99\""));
    }
}
