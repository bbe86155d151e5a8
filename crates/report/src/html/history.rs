//! `restbench history show`: one self-contained page (inline CSS and SVG, no network) with a
//! timeline per cell and measure: each stored run a point with its interval, linked to its
//! revision, and a dashed line where the machine changed (CPU model, cores, kernel, backend).
//!
//! Test hooks: each chart is `<figure class="chart" data-chart="history" data-measure="rps">`,
//! each point a `<circle data-point>`, each machine change a `<line data-machine-change>`; the
//! page sets `data-ready="1"` on load and records script errors in `data-errors`, as report.html.

use std::collections::BTreeMap;
use std::fmt::Write;

use restbench_model::documents::history::{HistoryPoint, MachineFacts};
use restbench_model::statistics::ab_ratios::Measure;

use super::svg::{Axes, LinearScale, linear_ticks, nice_ceiling};
use crate::escape::html as escape;
use crate::units::{bytes_short, compact, micros_short};

const SCRIPT: &str = include_str!("report.js");
const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\
h2{margin-top:2em}figure.chart{margin:0 0 1.5em}svg{max-width:100%;height:auto}\
.grid{stroke:#ddd}.tick{font-size:10px;fill:#555}.axis{stroke:#333;fill:none}\
.axis-title{font-size:11px;fill:#333}.interval{stroke:#4477aa;stroke-width:2}\
circle{fill:#4477aa}.trend{stroke:#4477aa;fill:none;opacity:.4}\
.machine-change{stroke:#cc3311;stroke-dasharray:4 3}.machine-label{font-size:10px;fill:#cc3311}\
p.empty{color:#777}";

/// The page: a section per cell (subject, workload, scenario, protocol; duets apart, their
/// servers having shared the CPUs), a chart per measure.
/// `commit_url` turns a revision into a link (`{rev}` replaced).
pub fn page(points: &[HistoryPoint], commit_url: Option<&str>) -> String {
    type Key = (String, String, String, String, bool);
    let mut groups: BTreeMap<Key, Vec<&HistoryPoint>> = BTreeMap::new();
    for p in points {
        groups
            .entry((
                p.subject.clone(),
                p.workload.clone(),
                p.scenario.clone(),
                p.protocol.clone(),
                p.duet,
            ))
            .or_default()
            .push(p);
    }
    let mut body = String::new();
    if groups.is_empty() {
        body.push_str(r#"<p class="empty">No runs stored yet: <code>restbench history import RUN</code> adds one.</p>"#);
    }
    for ((subject, workload, scenario, protocol, duet), pts) in &groups {
        let how = if *duet {
            " · duet (A/B runs: the servers shared the CPUs)"
        } else {
            ""
        };
        let _ = write!(
            body,
            "<section><h2>{} · {} · {} · {}{how}</h2><p>{} points</p>",
            escape(subject),
            escape(workload),
            escape(scenario),
            escape(protocol),
            pts.len()
        );
        for measure in Measure::ALL {
            if pts.iter().any(|p| p.figure(measure).is_some()) {
                body.push_str(&chart(pts, measure, commit_url));
            }
        }
        body.push_str("</section>");
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>restbench history</title>\
         <style>{STYLE}</style><script>{SCRIPT}</script></head><body><h1>restbench history</h1>\
         <p>Each point is a run's figure with its 95 % interval; dashed red lines mark a change of machine.</p>{body}</body></html>\n"
    )
}

/// A point's x label: its date, or its time of day (`14:05`) when it shares its date with the
/// point before or after it, so runs of one day are told apart.
fn point_label(points: &[&HistoryPoint], i: usize) -> String {
    let day = |p: &&HistoryPoint| p.started_at.get(..10).unwrap_or(&p.started_at).to_string();
    let this = day(&points[i]);
    let shared = [i.checked_sub(1), Some(i + 1)]
        .into_iter()
        .flatten()
        .filter_map(|j| points.get(j))
        .any(|p| day(p) == this);
    match points[i].started_at.get(11..16) {
        Some(time) if shared => time.to_string(),
        _ => this,
    }
}

fn label(measure: Measure, v: f64) -> String {
    match measure {
        Measure::Rps => compact(v),
        Measure::P50 | Measure::P99 => micros_short(v),
        Measure::CpuUsPerReq => format!("{} µs", compact(v)),
        Measure::Rss => bytes_short(v),
    }
}

/// One measure over time.
fn chart(points: &[&HistoryPoint], measure: Measure, commit_url: Option<&str>) -> String {
    let (w, h) = (720.0, 220.0);
    let axes = Axes::new(64.0, w - 16.0, 16.0, h - 40.0);
    let top = points
        .iter()
        .filter_map(|p| p.figure(measure))
        .map(|f| f.high.unwrap_or(f.value).max(f.value))
        .fold(0.0, f64::max);
    let top = nice_ceiling(top);
    let y = LinearScale::new(0.0, top, axes.bottom, axes.top);
    let n = points.len().max(2) as f64 - 1.0;
    let x = |i: usize| axes.left + 12.0 + i as f64 / n * (axes.right - axes.left - 24.0);
    let mut o = format!(
        r#"<figure class="chart" data-chart="history" data-measure="{measure}"><figcaption>{}</figcaption><svg viewBox="0 0 {w} {h}" role="img">"#,
        escape(measure.label())
    );
    for t in linear_ticks(top) {
        axes.y_grid(&mut o, y.px(t), &label(measure, t));
    }
    axes.frame(&mut o);
    axes.y_title(&mut o, measure.label());
    let mut previous: Option<&MachineFacts> = None;
    let mut trend = String::new();
    for (i, p) in points.iter().enumerate() {
        if previous.is_some_and(|m| *m != p.machine) {
            let _ = write!(
                o,
                r#"<line class="machine-change" data-machine-change x1="{px:.1}" y1="{a:.1}" x2="{px:.1}" y2="{b:.1}"><title>machine: {t}</title></line><text class="machine-label" x="{tx:.1}" y="{ty:.1}">machine changed</text>"#,
                px = x(i) - 6.0,
                a = axes.top,
                b = axes.bottom,
                t = escape(&p.machine.describe()),
                tx = x(i) - 4.0,
                ty = axes.top + 10.0
            );
        }
        previous = Some(&p.machine);
        if i == 0 || i + 1 == points.len() || points.len() <= 8 {
            axes.x_grid(&mut o, x(i), &point_label(points, i));
        }
        let Some(f) = p.figure(measure) else { continue };
        if let (Some(lo), Some(hi)) = (f.low, f.high) {
            let _ = write!(
                o,
                r#"<line class="interval" x1="{px:.1}" y1="{a:.1}" x2="{px:.1}" y2="{b:.1}"/>"#,
                px = x(i),
                a = y.px(lo),
                b = y.px(hi)
            );
        }
        let _ = write!(
            trend,
            "{}{:.1} {:.1}",
            if trend.is_empty() { "M" } else { "L" },
            x(i),
            y.px(f.value)
        );
        o.push_str(&point(
            p,
            f.value,
            f.low.zip(f.high),
            measure,
            (x(i), y.px(f.value)),
            commit_url,
        ));
    }
    if !trend.is_empty() {
        let _ = write!(o, r#"<path class="trend" d="{trend}"/>"#);
    }
    o.push_str("</svg></figure>");
    o
}

/// A point with its tooltip, linked to its revision when there is one and a URL to link to.
fn point(
    p: &HistoryPoint,
    value: f64,
    interval: Option<(f64, f64)>,
    measure: Measure,
    (px, py): (f64, f64),
    commit_url: Option<&str>,
) -> String {
    let rev = p.revision.as_deref().unwrap_or("no revision");
    let range = interval
        .map(|(lo, hi)| format!(" [{}, {}]", label(measure, lo), label(measure, hi)))
        .unwrap_or_default();
    let title = format!(
        "{} · {} · {}{range} · {}",
        p.started_at,
        rev,
        label(measure, value),
        p.machine.describe()
    );
    let circle = format!(
        r#"<circle data-point r="4" cx="{px:.1}" cy="{py:.1}"><title>{}</title></circle>"#,
        escape(&title)
    );
    match (
        p.revision.as_deref(),
        commit_url.and_then(|u| commit_url_checked(u).ok()),
    ) {
        (Some(rev), Some(url)) => format!(
            r#"<a href="{}">{circle}</a>"#,
            escape(&url.replace("{rev}", &url_component(rev)))
        ),
        _ => circle,
    }
}

/// The most a `--commit-url` may hold: a link, not a document.
pub const COMMIT_URL_LIMIT: usize = 2048;

/// `--commit-url` checked: an `http://` or `https://` URL (the scheme in any case) with a host,
/// of printable characters, at most [`COMMIT_URL_LIMIT`] bytes. Any other scheme
/// (`javascript:`, `data:`, `file:`) would run or open something when the point is clicked.
pub fn commit_url_checked(url: &str) -> Result<&str, String> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return Err(format!(
            "{:?} is not an http(s) URL: give one such as https://github.com/me/my-server/commit/{{rev}}",
            crate::escape::terminal(url.get(..80).unwrap_or(url))
        ));
    };
    if url.len() > COMMIT_URL_LIMIT {
        return Err(format!(
            "the commit URL is {} bytes long: at most {COMMIT_URL_LIMIT}",
            url.len()
        ));
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("the commit URL holds spaces or control characters: encode them".into());
    }
    if rest.is_empty() || rest.starts_with(['/', '?', '#']) {
        return Err(format!("{url:?} names no host"));
    }
    Ok(url)
}

/// A revision as one URL path segment: unreserved characters kept, every other byte
/// percent-encoded, so a stored revision cannot add a path, a query or a scheme to the link.
fn url_component(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            o.push(b as char);
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::documents::history::StoredFigure;

    #[test]
    fn a_commit_url_is_http_or_https_only() {
        for good in [
            "https://github.com/me/s/commit/{rev}",
            "HTTP://example.invalid/{rev}",
        ] {
            assert_eq!(commit_url_checked(good), Ok(good));
        }
        for bad in [
            "javascript:alert(1)//{rev}",
            "JaVaScRiPt:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "file:///etc/passwd",
            "https://",
            "https:///path",
            "https://a b/{rev}",
            "//example.invalid/{rev}",
            "",
        ] {
            assert!(commit_url_checked(bad).is_err(), "{bad:?} was taken");
        }
        // Nor does the page link to one, if handed one.
        let points = [at(1, "6.1", 100.0), at(2, "6.1", 101.0)];
        let html = page(&points, Some("JaVaScRiPt:alert(1)//{rev}"));
        assert!(!html.to_ascii_lowercase().contains("javascript:"), "{html}");
        // A revision cannot leave its path segment.
        let mut odd = at(3, "6.1", 99.0);
        odd.revision = Some("x/../../evil?q=\"".into());
        let html = page(&[odd], Some("https://example.invalid/commit/{rev}"));
        assert!(
            html.contains("https://example.invalid/commit/x%2F..%2F..%2Fevil%3Fq%3D%22"),
            "{html}"
        );
    }

    fn at(day: u32, kernel: &str, rps: f64) -> HistoryPoint {
        HistoryPoint {
            run: format!("run{day}"),
            started_at: format!("2026-01-{day:02}T00:00:00Z"),
            subject: "rust-hyper".into(),
            revision: Some(format!("abc{day}")),
            source_hash: String::new(),
            workload: "plaintext".into(),
            scenario: "single-thread".into(),
            protocol: "h1".into(),
            machine: MachineFacts {
                cpu_model: "CPU".into(),
                cores: 2,
                kernel: kernel.into(),
                backend: "cgroup-v2".into(),
            },
            restbench_version: "0.1.0".into(),
            duet: false,
            figures: vec![StoredFigure {
                measure: Measure::Rps,
                value: rps,
                low: Some(rps * 0.97),
                high: Some(rps * 1.03),
            }],
        }
    }

    #[test]
    fn duets_have_a_section_of_their_own() {
        let mut duet = at(2, "6.1", 500.0);
        duet.duet = true;
        let html = page(&[at(1, "6.1", 1000.0), duet], None);
        assert_eq!(html.matches("<section>").count(), 2, "{html}");
        assert_eq!(html.matches("duet (A/B runs").count(), 1);
    }

    #[test]
    fn the_timeline_marks_machine_changes_and_links_revisions() {
        let points = [
            at(1, "6.1", 1000.0),
            at(2, "6.1", 1010.0),
            at(3, "6.8", 990.0),
        ];
        let html = page(&points, Some("https://example.invalid/commit/{rev}"));
        assert_eq!(html.matches("data-point").count(), 3);
        assert_eq!(html.matches("data-machine-change").count(), 1);
        assert!(html.contains(r#"href="https://example.invalid/commit/abc2""#));
        assert!(html.contains(r#"data-measure="rps""#));
        assert!(
            !html.contains(r#"data-measure="p99""#),
            "no figure, no chart"
        );
        assert!(
            !html.contains("http://") && !html.contains("<script src"),
            "self-contained"
        );
    }

    #[test]
    fn runs_of_one_day_are_told_apart_by_their_time() {
        let point = |started_at: &str| HistoryPoint {
            started_at: started_at.into(),
            ..at(1, "6.1", 1000.0)
        };
        let points = [
            point("2026-11-30T09:00:00Z"),
            point("2026-12-01T14:05:34Z"),
            point("2026-12-01T14:10:16Z"),
        ];
        let refs: Vec<&HistoryPoint> = points.iter().collect();
        let labels: Vec<String> = (0..3).map(|i| point_label(&refs, i)).collect();
        assert_eq!(labels, ["2026-11-30", "14:05", "14:10"]);
    }
}
