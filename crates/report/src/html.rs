//! `report.html`: one self-contained page (inline CSS and SVG, no network, no external fonts or
//! scripts) rendered from a [`RunResults`].
//!
//! Test hooks: every chart is a `<figure class="chart" data-chart="rps|latency|cpu|memory">`,
//! every summary table a `<table class="cells">`, every study table a `<table class="ratios">`.
//! A tiny inline script records page errors in `<html data-errors>` and sets `data-ready="1"`
//! on load, so a headless browser can prove the page rendered cleanly.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use restbench_model::histogram;
use restbench_model::{Cell, CellStatus, FindingLevel, RunResults, StudyInfo};

use crate::cells::{CellLabel, cell_labels, first_line, per_cpu_second, per_mb, status_word};
pub use crate::escape::html as escape;
use crate::ratios::{self, RatioTable, StudyTables, row_label};
use crate::svg::{self, Bar, BarChart, Curve};
use crate::units::{
    bytes_short, compact, micros_short, ratio, si, si_precise, thousands, trimmed as trim,
};
use crate::vocabulary::{
    FLAGS, cpu_list, flag_legend, flag_severity, scenario_rank, workload_about, workload_rank,
};

const STYLE: &str = r#"
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--accent:#0969da;--warn:#9a6700;--warnbg:#fff8c5;--bad:#cf222e;--badbg:#ffebe9;--good:#1a7f37;--goodbg:#dafbe1}
*{box-sizing:border-box}
html{background:#fff;color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif}
body{margin:0}
main{max-width:1280px;margin:0 auto;padding:28px 32px 48px}
h1{font-size:26px;margin:0 0 4px;font-weight:650;letter-spacing:-.01em}
h2{font-size:20px;margin:40px 0 8px;padding-bottom:6px;border-bottom:1px solid var(--line);font-weight:620}
h3{font-size:16px;margin:28px 0 8px;font-weight:600}
h3 .sep{color:var(--muted);font-weight:400;margin:0 .3em}
p{margin:6px 0}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:1px 4px;border-radius:4px}
.muted{color:var(--muted)}
.small{font-size:12.5px}
.lede{color:var(--muted);margin:0 0 18px}
.banner{padding:10px 14px;border-radius:6px;margin:12px 0;border:1px solid}
.banner.warn{background:var(--warnbg);border-color:#d4a72c66}
.banner.info{background:#ddf4ff;border-color:#54aeff66}
.kpis{display:flex;gap:10px;flex-wrap:wrap;margin:14px 0 6px}
.kpi{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px;background:#fff}
.kpi b{display:block;font-size:20px;font-weight:620;font-variant-numeric:tabular-nums}
.kpi span{color:var(--muted);font-size:12px}
.env{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:12px;margin:14px 0}
.card{border:1px solid var(--line);border-radius:8px;padding:12px 14px;background:#fff}
.card h4{margin:0 0 8px;font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);font-weight:600}
.card dl{display:grid;grid-template-columns:auto 1fr;gap:3px 12px;margin:0}
.card dt{color:var(--muted)}
.card dd{margin:0;overflow-wrap:anywhere}
nav.toc{display:flex;flex-wrap:wrap;gap:6px;margin:10px 0 0}
nav.toc a{border:1px solid var(--line);border-radius:999px;padding:2px 10px;font-size:12.5px;background:var(--soft)}
.tablewrap{overflow-x:auto;margin:8px 0 6px;border:1px solid var(--line);border-radius:8px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:5px 7px;text-align:left;vertical-align:top;border-bottom:1px solid #eaeef2;white-space:nowrap}
thead th{background:var(--soft);font-weight:600;color:#333;border-bottom:1px solid var(--line)}
thead tr.group th{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);text-align:center;border-bottom:none;padding-bottom:0}
tbody tr:last-child td{border-bottom:none}
tbody tr:hover td{background:#fafbfc}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.sep,th.sep{border-left:1px solid #eaeef2}
td.wrap{white-space:normal;min-width:220px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:7px;vertical-align:0}
.subj{font-weight:600}
.flags{display:block;margin:2px 0 0 15px}
.fw{display:block;color:var(--muted);font-size:11.5px;font-weight:400;margin-left:17px}
.badge{display:inline-block;font-size:11px;line-height:16px;padding:0 6px;border-radius:999px;border:1px solid var(--line);background:var(--soft);color:#333;margin:1px 2px 1px 0;white-space:nowrap}
.badge.warn{background:var(--warnbg);border-color:#d4a72c88;color:#7d4e00}
.badge.bad{background:var(--badbg);border-color:#ff818266;color:#a40e26}
.badge.good{background:var(--goodbg);border-color:#4ac26b66;color:#116329}
table.cells td:first-child{white-space:normal;min-width:150px;max-width:230px}
tr.notok td{color:var(--muted);background:#fcfcfd}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:14px;margin:12px 0;align-items:start}
.charts.stack{grid-template-columns:1fr 1fr}
.charts.stack .col{display:flex;flex-direction:column;gap:14px;min-width:0}
@media (max-width:1100px){.charts.stack{grid-template-columns:1fr}}
figure.chart{margin:0;border:1px solid var(--line);border-radius:8px;padding:10px 12px 8px;background:#fff}
figure.chart figcaption{font-size:13px;font-weight:600;margin:0 0 6px}
figure.chart figcaption span{font-weight:400;color:var(--muted)}
figure.chart svg{display:block;width:100%;height:auto}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;font-size:12px;fill:#24292f}
svg text.tick{fill:#6e7781;font-size:11px}
svg text.axis-title{fill:#6e7781;font-size:11px}
svg text.value{fill:#333;font-size:11.5px}
svg .grid{stroke:#eaeef2;stroke-width:1}
svg .axis{stroke:#8c959f;stroke-width:1;fill:none}
svg .whisker{stroke:#24292f;stroke-width:1.3;fill:none}
svg .marker{stroke:#24292f;stroke-width:1.6;stroke-dasharray:3 2}
svg .curve{fill:none;stroke-width:2;stroke-linejoin:round;stroke-linecap:round}
svg g.bar:hover rect{opacity:.85}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0 0;padding:0;list-style:none;font-size:12px}
.legend li{display:flex;align-items:center}
figure.chart .legend svg{width:22px;height:10px;margin-right:5px;display:inline-block;flex:none}
.legend svg line{stroke-width:2.5}
.rbars{display:inline-block;width:96px;vertical-align:middle}
table.ratios td.sys{white-space:normal;min-width:180px;max-width:280px}
table.ratios td.note{white-space:normal;min-width:180px;font-size:12.5px}
.rbars i{display:block;height:6px;border-radius:2px;margin:1px 0}
.rbars i.pub{background:#b7bdc6}
.rbars i.meas{background:var(--accent)}
tr.baseline td{background:#f3f8ff}
td.rev{color:var(--bad);font-weight:700;text-align:center;font-size:15px}
ul.reversals li{margin:2px 0}
.tablewrap+p{margin-top:10px}
td.note span.line{display:block}
ul.plain{margin:6px 0;padding-left:20px}
dl.flags{display:grid;grid-template-columns:max-content 1fr;gap:6px 14px;margin:8px 0}
dl.flags dd{margin:0}
details{margin:6px 0}
details summary{cursor:pointer;color:var(--muted)}
pre{white-space:pre-wrap;background:var(--soft);padding:8px 10px;border-radius:6px;font-size:12px;margin:6px 0}
footer{margin-top:40px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);padding-top:10px}
@media print{main{padding:0}.charts{grid-template-columns:1fr}figure.chart,.tablewrap{break-inside:avoid}}
"#;

const SCRIPT: &str = r#"(function(){var d=document.documentElement,e=[];window.addEventListener('error',function(v){e.push(String(v.message||v.type));d.setAttribute('data-errors',e.join(' | '));});window.addEventListener('load',function(){d.setAttribute('data-ready','1');});})();"#;

/// The whole `report.html`.
pub fn render(r: &RunResults) -> String {
    let title = title_of(r);
    let mut o = page_start(&format!("{} — {}", title, r.started_at));
    o.push_str(&body(r));
    page_end(&mut o, r);
    o
}

/// One page over several runs (`restbench study all`): a contents list, then each run as
/// [`render`] shows it, its anchors prefixed so that they stay unique.
pub fn render_many(runs: &[&RunResults]) -> String {
    let mut o = page_start("restbench: the seed studies");
    o.push_str("<header><h1>restbench: the seed studies</h1><p class=\"lede\">Each study re-run here with its own subjects, workload and load shape, beside the Rust contenders, and set against the figures its authors published.</p></header><nav class=\"toc\">");
    for (i, r) in runs.iter().enumerate() {
        let _ = write!(o, "<a href=\"#r{i}\">{}</a>", escape(&title_of(r)));
    }
    o.push_str("</nav>");
    for (i, r) in runs.iter().enumerate() {
        let prefixed = body(r)
            .replace("id=\"", &format!("id=\"r{i}-"))
            .replace("href=\"#", &format!("href=\"#r{i}-"));
        let _ = write!(o, "<article id=\"r{i}\">{prefixed}</article>");
    }
    match runs.first() {
        Some(r) => page_end(&mut o, r),
        None => o.push_str("</main></body></html>\n"),
    }
    o
}

fn title_of(r: &RunResults) -> String {
    match &r.study {
        Some(s) => format!("restbench study {}: {}", s.id, s.title),
        None => format!("restbench {}", r.kind),
    }
}

fn page_start(title: &str) -> String {
    let mut o = String::with_capacity(128 * 1024);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"color-scheme\" content=\"light\"><title>{}</title><style>{STYLE}</style><script>{SCRIPT}</script></head><body><main>",
        escape(title)
    );
    o
}

fn page_end(o: &mut String, r: &RunResults) {
    let _ = writeln!(
        o,
        "<footer>Rendered by restbench {} from results.json (schema {}). Ratios and charts are computed from the stored cells; latency curves come from each cell's merged HdrHistogram.</footer></main></body></html>",
        escape(&r.environment.restbench_version),
        r.schema_version
    );
}

/// Everything one run shows, from its header to the legend.
fn body(r: &RunResults) -> String {
    let mut o = String::with_capacity(128 * 1024);
    let title = title_of(r);
    header(&mut o, r, &title);
    environment(&mut o, r);
    let groups = groups(r);
    let colors = colors(&groups);
    toc(&mut o, r, &groups);
    if let Some(info) = &r.study {
        study(&mut o, r, info);
    }
    let mut i = 0;
    while i < groups.len() {
        let w = groups[i].0;
        let _ = write!(o, "<section id=\"w-{}\"><h2>{}</h2>", anchor(w), escape(w));
        let about = workload_about(w);
        if !about.is_empty() {
            let _ = write!(o, "<p class=\"muted\">{}</p>", escape(about));
        }
        while i < groups.len() && groups[i].0 == w {
            let (_, s, cells) = &groups[i];
            group(&mut o, w, s, cells, &colors);
            i += 1;
        }
        o.push_str("</section>");
    }
    if r.cells.is_empty() {
        o.push_str("<p class=\"banner info\">No cells were measured.</p>");
    }
    findings(&mut o, r);
    legend(&mut o);
    o
}

type Group<'a> = (&'a str, &'a str, Vec<&'a Cell>);

/// Cells by workload (known order first) and scenario (known order first).
fn groups(r: &RunResults) -> Vec<Group<'_>> {
    let rank_w = workload_rank;
    let mut keys: Vec<(&str, &str)> = r
        .cells
        .iter()
        .map(|c| (c.workload.as_str(), c.scenario.as_str()))
        .collect();
    keys.sort_by(|a, b| {
        (rank_w(a.0), a.0, scenario_rank(a.1), a.1).cmp(&(
            rank_w(b.0),
            b.0,
            scenario_rank(b.1),
            b.1,
        ))
    });
    keys.dedup();
    keys.into_iter()
        .map(|(w, s)| {
            let mut cells: Vec<&Cell> = r
                .cells
                .iter()
                .filter(|c| c.workload == w && c.scenario == s)
                .collect();
            cells.sort_by(|a, b| {
                let ok = |c: &Cell| c.status == CellStatus::Ok;
                ok(b)
                    .cmp(&ok(a))
                    .then(b.rps.median.total_cmp(&a.rps.median))
                    .then(a.subject.cmp(&b.subject))
            });
            (w, s, cells)
        })
        .collect()
}

/// A stable colour index per subject, and per variant where a subject runs twice in one group
/// (alphabetical over the run).
fn colors(groups: &[Group<'_>]) -> BTreeMap<String, usize> {
    let set: BTreeSet<String> = groups
        .iter()
        .flat_map(|(_, _, cells)| cell_labels(cells).into_iter().map(|l| l.label))
        .collect();
    set.into_iter().enumerate().map(|(i, s)| (s, i)).collect()
}

fn anchor(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

fn header(o: &mut String, r: &RunResults, title: &str) {
    let _ = write!(o, "<header><h1>{}</h1>", escape(title));
    let when = match &r.finished_at {
        Some(f) => format!("Started {} · finished {}", r.started_at, f),
        None => format!("Started {}", r.started_at),
    };
    let _ = write!(
        o,
        "<p class=\"lede\">{} · {} on {} ({} cores)</p>",
        escape(&when),
        escape(&r.kind),
        escape(if r.environment.hostname.is_empty() {
            "this machine"
        } else {
            &r.environment.hostname
        }),
        r.environment.cores
    );
    if r.interrupted {
        o.push_str("<p class=\"banner warn\"><b>Interrupted.</b> The run was cut short; only the finished cells are shown.</p>");
    }
    let count = |s: CellStatus| r.cells.iter().filter(|c| c.status == s).count();
    let subjects: BTreeSet<&str> = r.cells.iter().map(|c| c.subject.as_str()).collect();
    let flagged = r.cells.iter().filter(|c| !c.flags.is_empty()).count();
    let _ = write!(
        o,
        "<div class=\"kpis\"><div class=\"kpi\"><b>{}</b><span>cells</span></div><div class=\"kpi\"><b>{}</b><span>measured</span></div><div class=\"kpi\"><b>{}</b><span>failed</span></div><div class=\"kpi\"><b>{}</b><span>skipped</span></div><div class=\"kpi\"><b>{}</b><span>subjects</span></div><div class=\"kpi\"><b>{}</b><span>cells with flags</span></div></div></header>",
        r.cells.len(),
        count(CellStatus::Ok),
        count(CellStatus::Failed),
        count(CellStatus::Skipped),
        subjects.len(),
        flagged
    );
}

fn dl(o: &mut String, title: &str, rows: &[(&str, String)]) {
    let _ = write!(o, "<div class=\"card\"><h4>{}</h4><dl>", escape(title));
    for (k, v) in rows {
        let _ = write!(o, "<dt>{}</dt><dd>{}</dd>", escape(k), v);
    }
    o.push_str("</dl></div>");
}

fn environment(o: &mut String, r: &RunResults) {
    let e = &r.environment;
    let p = &r.protocol;
    o.push_str("<section id=\"environment\"><div class=\"env\">");
    dl(
        o,
        "Machine",
        &[
            ("CPU", escape(&e.cpu_model)),
            ("cores", e.cores.to_string()),
            ("memory", bytes_short(e.memory_bytes as f64)),
            ("kernel", escape(&e.kernel)),
            ("host", escape(&e.hostname)),
        ],
    );
    dl(
        o,
        "Isolation",
        &[
            ("backend", format!("<code>{}</code>", escape(&e.backend))),
            ("why", escape(&e.backend_reason)),
            ("load generator CPUs", cpu_list(&e.loadgen_cpus)),
            ("server CPUs", cpu_list(&e.server_cpus)),
            (
                "generator ceiling",
                e.loadgen_ceiling_rps.map_or("not calibrated".into(), |v| {
                    format!("{} req/s", thousands(v))
                }),
            ),
        ],
    );
    let amount = match (p.duration_s, p.requests) {
        (Some(d), _) => format!("{d} s per repeat"),
        (None, Some(n)) => format!("{} requests per repeat", thousands(n as f64)),
        _ => "–".into(),
    };
    let warmup = match p.warmup_requests {
        Some(n) => format!("{} requests", thousands(n as f64)),
        None => format!("{} s", p.warmup_s),
    };
    let mut load = vec![
        (
            "shape",
            format!("{} connections, {} threads", p.connections, p.threads),
        ),
        ("amount", escape(&amount)),
        (
            "repeats",
            format!("{} (warm-up {})", p.repeats, escape(&warmup)),
        ),
        (
            "HTTP",
            format!(
                "HTTP/{}, {}",
                escape(&p.http_version),
                if p.keepalive {
                    "keep-alive"
                } else {
                    "a new connection per request"
                }
            ),
        ),
        (
            "timeout",
            format!(
                "{} s; database pool {} in total",
                p.timeout_s, p.db_pool_total
            ),
        ),
    ];
    if let Some(n) = &p.note {
        load.push(("note", escape(n)));
    }
    dl(o, "Load", &load);
    let mut tools: Vec<(&str, String)> = e
        .toolchains
        .iter()
        .map(|(k, v)| (k.as_str(), escape(v)))
        .collect();
    tools.insert(0, ("restbench", escape(&e.restbench_version)));
    dl(o, "Toolchains", &tools);
    o.push_str("</div></section>");
}

fn toc(o: &mut String, r: &RunResults, groups: &[Group<'_>]) {
    o.push_str("<nav class=\"toc\">");
    if r.study.is_some() {
        o.push_str("<a href=\"#study\">study ratios</a>");
    }
    for (w, s, _) in groups {
        let _ = write!(
            o,
            "<a href=\"#g-{}-{}\">{} · {}</a>",
            anchor(w),
            anchor(s),
            escape(w),
            escape(s)
        );
    }
    o.push_str("<a href=\"#flags\">flags</a></nav>");
}

fn flag_badge(flag: &str) -> String {
    format!(
        "<span class=\"badge {}\" title=\"{}\">{}</span>",
        flag_severity(flag),
        escape(flag_legend(flag)),
        escape(flag)
    )
}

fn swatch(i: usize) -> String {
    format!(
        "<span class=\"swatch\" style=\"background:{}\"></span>",
        svg::series_style(i).0
    )
}

fn group(o: &mut String, w: &str, s: &str, cells: &[&Cell], colors: &BTreeMap<String, usize>) {
    let labels = cell_labels(cells);
    let color = |l: &CellLabel| colors.get(&l.label).copied().unwrap_or(0);
    let _ = write!(
        o,
        "<h3 id=\"g-{}-{}\">{}<span class=\"sep\">·</span>{}</h3>",
        anchor(w),
        anchor(s),
        escape(w),
        escape(s)
    );
    // The summary table.
    o.push_str("<div class=\"tablewrap\"><table class=\"cells\"><thead><tr class=\"group\"><th></th><th colspan=\"4\" class=\"sep\">req/s</th><th colspan=\"4\" class=\"sep\">latency</th><th colspan=\"3\" class=\"sep\">server</th><th colspan=\"2\" class=\"sep\">efficiency</th></tr><tr><th>subject</th><th class=\"num sep\">median</th><th class=\"num\">CI95</th><th class=\"num\">min–max</th><th class=\"num\">cv</th><th class=\"num sep\">p50</th><th class=\"num\">p90</th><th class=\"num\">p99</th><th class=\"num\">p99.9</th><th class=\"num sep\">CPU cores</th><th class=\"num\">CPU µs/req</th><th class=\"num\">RSS peak</th><th class=\"num sep\" title=\"requests served per second of server CPU time\">req/CPU-s</th><th class=\"num\" title=\"req/s per MB of peak RSS\">req/s/MB</th></tr></thead><tbody>");
    for (c, l) in cells.iter().zip(&labels) {
        let name = subject_cell(c, l, color(l));
        if c.status == CellStatus::Ok {
            let ci = c.rps.ci95.map_or("–".into(), |[a, b]| {
                format!("{}–{}", compact(a), compact(b))
            });
            let limit = c.server.cpu_limit_cores.map_or(String::new(), |l| {
                format!(" <span class=\"muted\">/ {}</span>", trim(l))
            });
            let mut flags: Vec<String> = c.flags.iter().map(|f| flag_badge(f)).collect();
            if c.errors.total() > 0 {
                flags.push(format!(
                    "<span class=\"muted small\">{} errors</span>",
                    thousands(c.errors.total() as f64)
                ));
            }
            let flags = if flags.is_empty() {
                String::new()
            } else {
                format!("<span class=\"flags\">{}</span>", flags.join(" "))
            };
            let l = &c.latency_us;
            let _ = write!(
                o,
                "<tr><td>{name}{flags}</td><td class=\"num sep\"><b>{}</b></td><td class=\"num\">{ci}</td><td class=\"num\">{}–{}</td><td class=\"num\">{:.1} %</td><td class=\"num sep\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num sep\">{:.2}{limit}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num sep\">{}</td><td class=\"num\">{}</td></tr>",
                thousands(c.rps.median),
                compact(c.rps.min),
                compact(c.rps.max),
                c.rps.cv * 100.0,
                micros_short(l.p50 as f64),
                micros_short(l.p90 as f64),
                micros_short(l.p99 as f64),
                micros_short(l.p999 as f64),
                c.server.cpu_cores,
                if c.server.cpu_us_per_req > 0.0 {
                    format!("{:.1}", c.server.cpu_us_per_req)
                } else {
                    "–".into()
                },
                if c.server.rss_peak_bytes > 0 {
                    bytes_short(c.server.rss_peak_bytes as f64)
                } else {
                    "–".into()
                },
                per_cpu_second(c).map_or("–".into(), thousands),
                per_mb(c).map_or("–".into(), thousands),
            );
        } else {
            let _ = write!(
                o,
                "<tr class=\"notok\"><td>{name}</td><td class=\"sep\"><span class=\"badge bad\">{}</span></td><td colspan=\"12\" class=\"wrap\">{}</td></tr>",
                status_word(c.status),
                escape(&first_line(
                    c.reason.as_deref().unwrap_or("no reason recorded")
                ))
            );
        }
    }
    o.push_str("</tbody></table></div>");
    let ok: Vec<(&Cell, &CellLabel)> = cells
        .iter()
        .zip(&labels)
        .filter(|(c, _)| c.status == CellStatus::Ok)
        .map(|(c, l)| (*c, l))
        .collect();
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
            rps_chart(o, &ok, &color);
            cpu_chart(o, &ok, &color);
            memory_chart(o, &ok, &color);
            o.push_str("</div><div class=\"col\">");
            latency_figure(o, &ok, &color, height);
            o.push_str("</div></div>");
        } else {
            o.push_str("<div class=\"charts\">");
            rps_chart(o, &ok, &color);
            latency_figure(o, &ok, &color, 320.0);
            cpu_chart(o, &ok, &color);
            memory_chart(o, &ok, &color);
            o.push_str("</div>");
        }
    }
    let long: Vec<&&Cell> = cells
        .iter()
        .filter(|c| {
            c.status != CellStatus::Ok
                && c.reason
                    .as_deref()
                    .is_some_and(|r| r.contains('\n') || r.chars().count() > 160)
        })
        .collect();
    for c in long {
        let _ = write!(
            o,
            "<details><summary>Why {} {}</summary><pre>{}</pre></details>",
            escape(&c.subject),
            status_word(c.status),
            escape(c.reason.as_deref().unwrap_or(""))
        );
    }
}

fn subject_cell(c: &Cell, l: &CellLabel, color: usize) -> String {
    format!(
        "{}<span class=\"subj\">{}</span><span class=\"fw\">{} {} · {}</span>",
        swatch(color),
        escape(&l.label),
        escape(&c.framework),
        escape(&c.framework_version),
        escape(&c.language)
    )
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
                    "{}: median {} req/s{}; min {} max {}; cv {:.1} %",
                    l.label,
                    thousands(c.rps.median),
                    c.rps.ci95.map_or(String::new(), |[a, b]| format!(
                        ", 95 % CI {}–{}",
                        thousands(a),
                        thousands(b)
                    )),
                    thousands(c.rps.min),
                    thousands(c.rps.max),
                    c.rps.cv * 100.0
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
                    micros_short(c.latency_us.p99 as f64),
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
    figure(o, "latency", "Latency by percentile", note, &body);
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

fn study(o: &mut String, r: &RunResults, info: &StudyInfo) {
    o.push_str("<section id=\"study\">");
    let Some(StudyTables { study: s, tables }) = ratios::for_run(r) else {
        let _ = write!(
            o,
            "<h2>Study {}</h2><p class=\"banner warn\">No published figures are known for study id <code>{}</code>.</p></section>",
            escape(&info.id),
            escape(&info.id)
        );
        return;
    };
    let _ = write!(
        o,
        "<h2>Study {}: {} <span class=\"muted\">(seed {})</span></h2>",
        escape(&s.id),
        escape(&s.title),
        escape(&s.seed)
    );
    if info.shortened || !info.note.is_empty() {
        let _ = write!(
            o,
            "<p class=\"banner {}\">{}{}</p>",
            if info.shortened { "warn" } else { "info" },
            if info.shortened {
                "<b>Shortened.</b> "
            } else {
                ""
            },
            escape(&info.note)
        );
    }
    o.push_str("<div class=\"env\">");
    dl(
        o,
        "The seed",
        &[
            ("load", escape(&s.load_shape)),
            ("machine", escape(&s.machine)),
            ("source", escape(&s.source)),
        ],
    );
    o.push_str("</div>");
    o.push_str("<p class=\"muted\">Each ratio is a system's req/s ÷ the baseline's in the same scenario: published on the seed's machine, measured on this one. Grey bars: published; blue: measured. <b style=\"color:var(--bad)\">⇅</b> marks a system whose order against another differs between the two.</p>");
    for t in &tables {
        ratio_table(o, &s.workload, t);
    }
    if !s.unavailable.is_empty() {
        o.push_str("<h3>Not run here</h3><ul class=\"plain\">");
        for u in &s.unavailable {
            let _ = write!(
                o,
                "<li><b>{}</b>: {}</li>",
                escape(&u.system),
                escape(&u.reason)
            );
        }
        o.push_str("</ul>");
    }
    if !s.notes.is_empty() {
        o.push_str("<h3>About the seed</h3><ul class=\"plain\">");
        for n in &s.notes {
            let _ = write!(o, "<li>{}</li>", escape(n));
        }
        o.push_str("</ul>");
    }
    o.push_str("</section>");
}

fn ratio_table(o: &mut String, workload: &str, t: &RatioTable) {
    let _ = write!(
        o,
        "<h3 id=\"study-{}\">{}<span class=\"sep\">·</span>{}</h3>",
        anchor(&t.scenario),
        escape(workload),
        escape(&t.scenario)
    );
    if let Some(n) = &t.baseline_note {
        let _ = write!(o, "<p class=\"banner info small\">{}</p>", escape(n));
    }
    let max = t
        .rows
        .iter()
        .flat_map(|r| [r.published_ratio, r.measured_ratio])
        .flatten()
        .fold(0.0f64, f64::max)
        .max(1e-9);
    o.push_str("<div class=\"tablewrap\"><table class=\"ratios\"><thead><tr class=\"group\"><th colspan=\"2\"></th><th colspan=\"2\" class=\"sep\">req/s</th><th colspan=\"4\" class=\"sep\">ratio to the baseline</th><th class=\"sep\"></th></tr><tr><th>system (as published)</th><th>subject here</th><th class=\"num sep\">published</th><th class=\"num\">measured</th><th class=\"num sep\">published</th><th class=\"num\">measured</th><th></th><th title=\"order reversed against another system\">⇅</th><th class=\"sep\">note</th></tr></thead><tbody>");
    for row in &t.rows {
        let mut notes: Vec<String> = Vec::new();
        if row.baseline {
            notes.push("<span class=\"badge good\">baseline</span>".into());
        }
        if let Some(n) = &row.not_measured {
            notes.push(format!(
                "<span class=\"badge bad\">not measured</span><span class=\"line\">{}</span>",
                escape(n)
            ));
        }
        for f in &row.flags {
            notes.push(flag_badge(f));
        }
        if let Some(n) = &row.note {
            notes.push(format!("<span class=\"muted line\">{}</span>", escape(n)));
        }
        let bar = |v: Option<f64>, class: &str| {
            v.map_or(String::new(), |v| {
                format!(
                    "<i class=\"{class}\" style=\"width:{:.1}%\"></i>",
                    (v / max * 100.0).clamp(0.5, 100.0)
                )
            })
        };
        let _ = write!(
            o,
            "<tr{}><td class=\"sys\">{}</td><td>{}</td><td class=\"num sep\"{}>{}</td><td class=\"num\">{}</td><td class=\"num sep\">{}</td><td class=\"num\"><b>{}</b></td><td><span class=\"rbars\">{}{}</span></td><td class=\"rev\">{}</td><td class=\"sep note\">{}</td></tr>",
            if row.baseline {
                " class=\"baseline\""
            } else {
                ""
            },
            escape(&row.system),
            row.subject.as_ref().map_or("–".into(), |_| format!(
                "<code>{}</code>",
                escape(&row_label(row))
            )),
            published_title(row),
            row.published_rps.map_or("–".into(), thousands),
            row.measured_rps().map_or("–".into(), thousands),
            row.published_ratio.map_or("–".into(), ratio),
            row.measured_ratio.map_or("–".into(), ratio),
            bar(row.published_ratio, "pub"),
            bar(row.measured_ratio, "meas"),
            if row.reversed { "⇅" } else { "" },
            notes.join(" ")
        );
    }
    o.push_str("</tbody></table></div>");
    if !t.reversals.is_empty() {
        o.push_str("<p><b>Reversed pairs</b> (ahead in the published figures ⇅ ahead here):</p><ul class=\"reversals\">");
        for rev in &t.reversals {
            let _ = write!(o, "<li>{}</li>", escape(&ratios::reversal_text(t, rev)));
        }
        o.push_str("</ul>");
    } else if t
        .rows
        .iter()
        .filter(|r| r.published_ratio.is_some() && r.measured_ratio.is_some())
        .count()
        >= 2
    {
        o.push_str("<p class=\"muted\">The measured order matches the published one.</p>");
    }
}

/// A tooltip with what else the seed published for a row (latency, CPU, memory).
fn published_title(row: &ratios::RatioRow) -> String {
    let mut parts = Vec::new();
    if let Some(l) = &row.published_latency {
        parts.push(format!("published latency: {}", ratios::latency_text(l)));
    }
    if let Some(r) = &row.published_resources {
        parts.push(format!("published resources: {r}"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" title=\"{}\"", escape(&parts.join("; ")))
    }
}

fn findings(o: &mut String, r: &RunResults) {
    let rows: Vec<(&Cell, &restbench_model::Finding)> = r
        .cells
        .iter()
        .flat_map(|c| {
            c.findings
                .iter()
                .filter(|f| f.level != FindingLevel::Pass)
                .map(move |f| (c, f))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    o.push_str("<section id=\"findings\"><h2>Verification findings</h2><div class=\"tablewrap\"><table class=\"findings\"><thead><tr><th>subject</th><th>workload</th><th>scenario</th><th>level</th><th>check</th><th>message</th></tr></thead><tbody>");
    for (c, f) in rows {
        let (class, word) = match f.level {
            FindingLevel::Fail => ("bad", "fail"),
            FindingLevel::Warn => ("warn", "warn"),
            FindingLevel::Pass => ("good", "pass"),
        };
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><span class=\"badge {class}\">{word}</span></td><td><code>{}</code></td><td class=\"wrap\">{}</td></tr>",
            escape(&c.subject),
            escape(&c.workload),
            escape(&c.scenario),
            escape(&f.check),
            escape(&f.message)
        );
    }
    o.push_str("</tbody></table></div></section>");
}

fn legend(o: &mut String) {
    o.push_str("<section id=\"flags\"><h2>Reading this report</h2><dl class=\"flags\">");
    for (f, why) in FLAGS {
        let _ = write!(o, "<dt>{}</dt><dd>{}</dd>", flag_badge(f), escape(why));
    }
    o.push_str("</dl><p class=\"muted small\">Throughput is the median over the repeats; CI95 is a bootstrap confidence interval of that median (three repeats or more). Latency percentiles come from the merged HdrHistogram of all repeats, measured by the load generator. Server CPU and memory cover the server's whole process tree. Efficiency: requests served per second of server CPU time, and req/s per MB of peak resident memory.</p></section>");
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

    #[test]
    fn one_page_over_several_runs_keeps_anchors_unique() {
        let run = |id: &str| RunResults {
            schema_version: 1,
            kind: format!("study {id}"),
            started_at: "t".into(),
            finished_at: None,
            interrupted: false,
            environment: Default::default(),
            protocol: Default::default(),
            cells: vec![crate::test_support::cell("x", "echo", "one-cpu", 1000.0)],
            study: StudyInfo::new(id, true, "short"),
        };
        let (a, b) = (run("a"), run("b"));
        let html = render_many(&[&a, &b]);
        assert!(html.contains("<a href=\"#r0\">") && html.contains("<article id=\"r1\">"));
        let ids: Vec<&str> = html
            .split("id=\"")
            .skip(1)
            .map(|rest| &rest[..rest.find('"').unwrap()])
            .collect();
        let unique: BTreeSet<&str> = ids.iter().copied().collect();
        assert_eq!(ids.len(), unique.len(), "duplicate ids: {ids:?}");
        // Every in-page link points at an id on the page.
        for link in html.split("href=\"#").skip(1) {
            let target = &link[..link.find('"').unwrap()];
            assert!(unique.contains(target), "dangling link #{target}");
        }
        assert_eq!(html.matches("<figure class=\"chart\"").count(), 8);
    }

    #[test]
    fn a_page_escapes_names_and_reasons() {
        let mut c = crate::test_support::cell("a<b>", "echo", "one-cpu", 1000.0);
        c.framework = "x\"y".into();
        let mut f = crate::test_support::cell("z", "echo", "one-cpu", 0.0);
        f.status = CellStatus::Failed;
        f.reason = Some("<img src=x onerror=alert(1)>".into());
        let r = RunResults {
            schema_version: 1,
            kind: "run <1>".into(),
            started_at: "t".into(),
            finished_at: None,
            interrupted: true,
            environment: Default::default(),
            protocol: Default::default(),
            cells: vec![c, f],
            study: Some(StudyInfo {
                id: "q".into(),
                title: "?".into(),
                seed: "999".into(),
                shortened: false,
                note: String::new(),
            }),
        };
        let html = render(&r);
        assert!(!html.contains("<img") && !html.contains("a<b>") && !html.contains("run <1>"));
        assert!(html.contains("a&lt;b&gt;") && html.contains("&lt;img src=x"));
        assert!(html.contains("Interrupted"));
        assert!(html.contains("No published figures are known for study id"));
        assert_eq!(html.matches("<figure class=\"chart\"").count(), 4);
    }
}
