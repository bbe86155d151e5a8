//! report.html's profiles (`--profile`): per workload, the CPU split of every profiled subject
//! as a stacked bar, a table of the per-request counts with the slice's rate beside the measured
//! one, and per cell its top symbols and an interactive flame graph drawn by inferno.
//!
//! Each flame graph is inferno's own SVG, script included (click to zoom, Ctrl-F or "Search"
//! to highlight), inside an `<iframe srcdoc>`: every graph keeps its own ids and script, none
//! reaches the page's, and the page stays one offline file. `restbench profile` writes the same
//! pieces as a page of its own ([`page`]).

use std::fmt::Write;

use inferno::flamegraph::color::{MultiPalette, Palette};
use restbench_model::{CellProfile, RunResults};

use crate::escape::html as escape;
use crate::profiles::{ProfiledCell, by_workload, slice_ratio};

const STYLE: &str = include_str!("report.css");

/// The colours of the split's parts, in [`restbench_model::CpuSplit::parts`] order.
pub const PART_COLORS: [&str; 6] = [
    "#d9534f", "#f0ad4e", "#2a7ab0", "#5cb85c", "#9467bd", "#999999",
];

/// A flame graph of folded stacks: inferno's SVG with its script, frames coloured by kind
/// (kernel `_[k]`, JIT `_[j]`, inlined `_[i]`, as FlameGraph's java palette does).
pub fn flame_graph(folded: &str, title: &str) -> std::io::Result<String> {
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.colors = Palette::Multi(MultiPalette::Java);
    options.count_name = "samples".into();
    options.deterministic = true;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, folded.lines(), &mut svg)?;
    Ok(String::from_utf8_lossy(&svg).into_owned())
}

/// A differential flame graph (inferno's differential mode): the shape of `after`, each frame
/// red where it took more of the samples than in `before`, blue where less; `before` is
/// scaled to `after`'s total so a faster run is not all blue.
pub fn differential_flame_graph(before: &str, after: &str, title: &str) -> std::io::Result<String> {
    let mut diff = Vec::new();
    let options = inferno::differential::Options {
        normalize: true,
        strip_hex: true,
    };
    inferno::differential::from_readers(options, before.as_bytes(), after.as_bytes(), &mut diff)?;
    let diff = String::from_utf8_lossy(&diff).into_owned();
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = "samples".into();
    options.deterministic = true;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, diff.lines(), &mut svg)?;
    Ok(String::from_utf8_lossy(&svg).into_owned())
}

/// A flame graph's SVG inside an iframe of its own (see the module doc). Inferno's script
/// keeps zoom and search in the URL with `history.replaceState`, which an `about:srcdoc`
/// document may refuse: the guard makes that a no-op instead of an error.
pub fn flame_frame(svg: &str, title: &str) -> String {
    let body = svg.find("<svg").map_or(svg, |i| &svg[i..]).trim_end();
    let height = svg_height(body).unwrap_or(400.0) + 8.0;
    let doc = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><script>try{{history.replaceState(null,null,location.href)}}catch(e){{history.replaceState=function(){{}}}}</script></head>\
         <style>body{{margin:0}}svg{{width:100%}}</style><body>{body}</body></html>"
    );
    format!(
        "<iframe class=\"flame\" data-flame title=\"{}\" style=\"width:100%;height:{height:.0}px;border:0\" srcdoc=\"{}\"></iframe>",
        escape(title),
        escape(&doc)
    )
}

/// The `height` of an SVG's root element.
fn svg_height(svg: &str) -> Option<f64> {
    let head = &svg[..svg.find('>')?];
    let at = head.find(" height=\"")? + " height=\"".len();
    head[at..].split('"').next()?.parse().ok()
}

/// The profiles section of report.html; nothing when no cell was profiled.
pub fn section(o: &mut String, r: &RunResults) {
    let groups = by_workload(r);
    if groups.is_empty() {
        return;
    }
    o.push_str(
        "<section id=\"profiles\" data-profiles><h2>Profiles</h2><p class=\"muted\">Where each \
         server's CPU went in a profiling slice after its measured repeats, under the same load \
         (perf <code>cpu-clock</code> samples with call graphs, each counted where the CPU was). \
         The slice is never part of the ranked figures; its rate is shown beside the measured \
         one, so the profiler's cost is visible: that ratio is the measure of perf's overhead, the measured \
         rate being unprofiled. Frames nothing could name stay \
         <code>[unknown]</code>.</p>",
    );
    for (workload, cells) in &groups {
        let _ = write!(o, "<h3>{}</h3>", escape(workload));
        o.push_str(&split_chart(cells));
        counts_table(o, cells);
        for c in cells {
            cell_panel(o, c);
        }
    }
    o.push_str("</section>");
}

/// A stacked bar per cell: the split of its samples, kernel parts first.
pub fn split_chart(cells: &[ProfiledCell<'_>]) -> String {
    let (left, right, row) = (200.0, 620.0, 24.0);
    let height = 30.0 + row * cells.len() as f64 + 40.0;
    let mut o = String::new();
    let _ = write!(
        o,
        "<figure class=\"chart\" data-chart=\"cpu-split\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 {height:.0}\" width=\"640\" height=\"{height:.0}\" role=\"img\" aria-label=\"CPU split\">"
    );
    let axes = super::svg::Axes::new(left, right, 10.0, 10.0 + row * cells.len() as f64);
    for pct in [0.0, 25.0, 50.0, 75.0, 100.0] {
        axes.x_grid(
            &mut o,
            left + (right - left) * pct / 100.0,
            &format!("{pct:.0}%"),
        );
    }
    for (i, c) in cells.iter().enumerate() {
        let y = 10.0 + row * i as f64 + 3.0;
        let _ = write!(
            o,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            y + 13.0,
            escape(&c.label)
        );
        let mut x = left;
        for (j, (name, share)) in c.profile.split.parts().iter().enumerate() {
            let w = (right - left) * share;
            if w > 0.0 {
                let _ = write!(
                    o,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {} {:.1}%</title></rect>",
                    row - 6.0,
                    PART_COLORS[j],
                    escape(&c.label),
                    name,
                    share * 100.0
                );
            }
            x += w;
        }
    }
    let mut x = 20.0;
    let ly = height - 14.0;
    for (j, (name, _)) in restbench_model::CpuSplit::default()
        .parts()
        .iter()
        .enumerate()
    {
        let _ = write!(
            o,
            "<rect x=\"{x:.0}\" y=\"{:.0}\" width=\"10\" height=\"10\" fill=\"{}\"/><text class=\"tick\" x=\"{:.0}\" y=\"{ly:.0}\">{name}</text>",
            ly - 9.0,
            PART_COLORS[j],
            x + 14.0
        );
        x += 16.0 + name.len() as f64 * 6.6 + 14.0;
    }
    o.push_str("</svg><figcaption>Share of the server's CPU samples</figcaption></figure>");
    o
}

/// Per cell: the slice's rate beside the measured one, system calls, context switches and
/// page faults per request.
fn counts_table(o: &mut String, cells: &[ProfiledCell<'_>]) {
    o.push_str(
        "<table class=\"profile-counts\"><thead><tr><th>cell</th><th>kernel</th><th>slice req/s</th>\
         <th>measured req/s</th><th>syscalls/req</th><th>voluntary ctx sw/req</th>\
         <th>involuntary ctx sw/req</th><th>minor faults/req</th></tr></thead><tbody>",
    );
    let per = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.2}"));
    for c in cells {
        let p = c.profile;
        let ratio = slice_ratio(c.cell, p).map_or(String::new(), |x| format!(" ({x:.2}×)"));
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{:.1}%</td><td>{:.0}{ratio}</td><td>{:.0}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&c.label),
            p.split.kernel() * 100.0,
            p.rps,
            c.cell.rps.median,
            per(p.syscalls_per_request),
            per(p.voluntary_switches_per_request),
            per(p.involuntary_switches_per_request),
            per(p.minor_faults_per_request),
        );
    }
    o.push_str("</tbody></table>");
}

/// One cell: its top symbols and its flame graph, folded away until opened.
fn cell_panel(o: &mut String, c: &ProfiledCell<'_>) {
    let _ = write!(
        o,
        "<details class=\"profile\"><summary>{} — {} samples, {}</summary>",
        escape(&c.label),
        c.profile.samples,
        escape(&c.profile.recorder)
    );
    if let Some(jit) = crate::profile_pairs::jit_caveat(c.profile) {
        let _ = write!(
            o,
            "<p class=\"banner warn\" data-jit-compiling>{}</p>",
            escape(&jit)
        );
    }
    symbols(o, c.profile);
    match c
        .profile
        .folded()
        .map_err(|e| e.to_string())
        .and_then(|folded| {
            flame_graph(&folded, &format!("{} {}", c.label, c.cell.workload))
                .map_err(|e| e.to_string())
        }) {
        Ok(svg) => o.push_str(&flame_frame(&svg, &c.label)),
        Err(e) => {
            let _ = write!(
                o,
                "<p class=\"banner warn\">No flame graph: {}</p>",
                escape(&e)
            );
        }
    }
    o.push_str("</details>");
}

/// The top symbols by self time, and the profile's notes.
fn symbols(o: &mut String, p: &CellProfile) {
    o.push_str(
        "<table class=\"profile-symbols\"><thead><tr><th>self</th><th>part</th><th>symbol</th></tr></thead><tbody>",
    );
    for s in &p.top_symbols {
        let _ = write!(
            o,
            "<tr><td>{:.1}%</td><td>{}</td><td><code>{}</code></td></tr>",
            s.share * 100.0,
            escape(&s.part),
            escape(&s.symbol)
        );
    }
    o.push_str("</tbody></table>");
    for note in &p.notes {
        let _ = write!(o, "<p class=\"muted\">{}</p>", escape(note));
    }
}

/// `restbench profile`'s page: one cell's split, counts, top symbols and flame graph.
pub fn page(label: &str, workload: &str, profile: &CellProfile, folded: &str) -> String {
    let mut o = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>profile: {}</title>\
         <style>\n{STYLE}</style></head><body><main><h1>profile: {} · {}</h1>",
        escape(label),
        escape(label),
        escape(workload)
    );
    let parts: Vec<String> = profile
        .split
        .parts()
        .iter()
        .map(|(name, share)| format!("{name} {:.1}%", share * 100.0))
        .collect();
    let _ = write!(
        o,
        "<p>{} samples over {:.1}s at {:.0} req/s ({}). CPU: {}.</p>",
        profile.samples,
        profile.duration_s,
        profile.rps,
        escape(&profile.recorder),
        escape(&parts.join(", "))
    );
    symbols(&mut o, profile);
    match flame_graph(folded, &format!("{label} {workload}")) {
        Ok(svg) => o.push_str(&flame_frame(&svg, label)),
        Err(e) => {
            let _ = write!(o, "<p>No flame graph: {}</p>", escape(&e.to_string()));
        }
    }
    o.push_str("</main></body></html>\n");
    o
}

/// A flame graph of a differential folded profile (`stack before after` lines, as
/// [`crate::profile_pairs::differential_folded`] writes them, per request): the shape of
/// `after`, red where it spends more per request than `before`, blue where less.
pub fn per_request_differential_flame_graph(diff: &str, title: &str) -> std::io::Result<String> {
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = "samples per million requests".into();
    options.deterministic = true;
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options, diff.lines(), &mut svg)?;
    Ok(String::from_utf8_lossy(&svg).into_owned())
}

/// `run --explain`'s section: each pair of neighbours in each group's ranking, compared.
pub fn explained_section(o: &mut String, r: &RunResults) {
    if !r.protocol.explain {
        return;
    }
    o.push_str(
        "<section id=\"profiles-compared\" data-profiles-compared><h2>Profiles compared</h2>\
         <p class=\"muted\">Each pair of neighbours in a ranking, profile beside profile, per \
         request of each profiling slice. The slice's rate against the measured (unprofiled) \
         one is the measure of perf's overhead.</p>",
    );
    let groups = crate::profile_pairs::neighbour_pairs(r);
    if groups.is_empty() {
        o.push_str("<p>No group has two profiled cells to compare.</p>");
    }
    for (title, pairs) in groups {
        let _ = write!(o, "<h3>{}</h3>", escape(&title));
        for (a, b) in pairs {
            if let Some(p) = crate::profile_pairs::pair_of(a, b) {
                pair_panel(o, &p);
            }
        }
    }
    o.push_str("</section>");
}

/// One pair: its sentence, the per-request table, the top symbols side by side, the caveats
/// and the differential flame graph (per request, red where the slower side spends more).
pub fn pair_panel(o: &mut String, p: &crate::profile_pairs::CellPair<'_>) {
    let (a, b) = (&p.paired.faster.label, &p.paired.slower.label);
    let _ = write!(
        o,
        "<div class=\"profile-pair\" data-profile-pair><h4>{} beside {}</h4><p data-pair-sentence><b>{}</b></p>\
         <table class=\"profile-counts\"><thead><tr><th>per request</th><th>{}</th><th>{}</th></tr></thead><tbody>",
        escape(a),
        escape(b),
        escape(&p.paired.sentence()),
        escape(a),
        escape(b)
    );
    for (name, x, y) in p.paired.rows() {
        let _ = write!(
            o,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(&name),
            escape(&x),
            escape(&y)
        );
    }
    o.push_str("</tbody></table>");
    let symbols = crate::profile_pairs::top_symbols_side_by_side(p.faster.1, p.slower.1, 8);
    if !symbols.is_empty() {
        let _ = write!(
            o,
            "<table class=\"profile-symbols\"><thead><tr><th>top symbol (self)</th><th>{}</th><th>{}</th></tr></thead><tbody>",
            escape(a),
            escape(b)
        );
        for (symbol, x, y) in symbols {
            let _ = write!(
                o,
                "<tr><td><code>{}</code></td><td class=\"num\">{:.1} %</td><td class=\"num\">{:.1} %</td></tr>",
                escape(&symbol),
                x * 100.0,
                y * 100.0
            );
        }
        o.push_str("</tbody></table>");
    }
    let caveats = p.caveats();
    if !caveats.is_empty() {
        o.push_str("<ul class=\"plain\" data-profile-caveats>");
        for c in caveats {
            let _ = write!(o, "<li>{}</li>", escape(&c));
        }
        o.push_str("</ul>");
    }
    let title = format!("{b} against {a}, per request (red: {b} spends more)");
    match p
        .differential()
        .map_err(|e| e.to_string())
        .and_then(|diff| {
            per_request_differential_flame_graph(&diff, &title).map_err(|e| e.to_string())
        }) {
        Ok(svg) => o.push_str(&flame_frame(&svg, &title)),
        Err(e) => {
            let _ = write!(
                o,
                "<p class=\"banner warn\">No differential flame graph: {}</p>",
                escape(&e)
            );
        }
    }
    o.push_str("</div>");
}
