//! The page: the document shell (head, style, script, footer), the header with its figures, the
//! environment cards, the contents, one section per workload × scenario, the legend.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use restbench_model::{Cell, CellStatus, RunResults};

use crate::cells::{CellLabel, cell_labels};
use crate::conformance::{conformant_first, nonconformant, nonconformant_subjects, ranked_apart};
use crate::escape::html as escape;
use crate::units::{bytes_short, thousands};
use crate::vocabulary::{
    closed_loop_latency, cpu_list, flags, scenario_rank, workload_about, workload_rank,
};

use super::markup::{anchor, dl, flag_badge};
use super::{charts, conformance, profile, rankings, study, tables, tfb};
use crate::rankings::{group_views, policy_line, views_of};

/// The page's style sheet, inlined so the page needs nothing else.
const STYLE: &str = include_str!("report.css");

/// Records page errors in `<html data-errors>` and sets `data-ready="1"` on load (one line; the
/// file's final newline is not part of the page).
const SCRIPT: &str = include_str!("report.js");

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
    o.push_str(
        "<header><h1>restbench: the seed studies</h1>\
        <p class=\"lede\">Each study re-run here with its own subjects, workload and load shape, \
        beside the Rust contenders, and set against the figures its authors published.</p></header>\
        <nav class=\"toc\">",
    );
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
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
            <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
            <meta name=\"color-scheme\" content=\"light\"><title>{}</title><style>\n{STYLE}</style>\
            <script>{}</script></head><body><main>",
        escape(title),
        SCRIPT.trim_end()
    );
    o
}

fn page_end(o: &mut String, r: &RunResults) {
    let _ = writeln!(
        o,
        "<footer>Rendered by restbench {} from results.json (schema {}). Ratios and charts are \
            computed from the stored cells; latency curves come from each cell's merged \
            HdrHistogram.</footer></main></body></html>",
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
        match crate::tfb_ratios::for_run(r) {
            Some(tables) => tfb::tfb(&mut o, info, &tables),
            None => study::study(&mut o, r, info),
        }
    }
    let views = group_views(r);
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
            group(&mut o, w, s, cells, &colors, r.protocol.connections);
            for v in views_of(&views, w, Some(s)) {
                rankings::ranking(&mut o, v, r);
            }
            i += 1;
        }
        o.push_str("</section>");
    }
    if r.cells.is_empty() {
        o.push_str("<p class=\"banner info\">No cells were measured.</p>");
    }
    profile::section(&mut o, r);
    profile::explained_section(&mut o, r);
    conformance::section(&mut o, &r.conformance);
    tables::findings(&mut o, r);
    legend(&mut o);
    o
}

/// Before a nonconformant subject's name in the charts.
const NONCONFORMANT_MARK: &str = "⚠ ";

type Group<'a> = (&'a str, &'a str, Vec<&'a Cell>);

/// Cells by workload (known order first) and scenario (known order first); in each, measured
/// cells first, conformant before nonconformant, fastest first.
fn groups(r: &RunResults) -> Vec<Group<'_>> {
    let mut keys: Vec<(&str, &str)> = r
        .cells
        .iter()
        .map(|c| (c.workload.as_str(), c.scenario.as_str()))
        .collect();
    keys.sort_by(|a, b| {
        (workload_rank(a.0), a.0, scenario_rank(a.1), a.1).cmp(&(
            workload_rank(b.0),
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
                    .then(conformant_first(a, b))
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
    if let Some(why) = &r.noisy_machine {
        let _ = write!(
            o,
            "<p class=\"banner warn\" data-noisy-machine><b>Noisy machine.</b> {}; read every \
             figure with that noise in mind.</p>",
            escape(why)
        );
    }
    if r.interrupted {
        o.push_str("<p class=\"banner warn\"><b>Interrupted.</b> The run was cut short; only the finished cells are shown.</p>");
    }
    let count = |s: CellStatus| r.cells.iter().filter(|c| c.status == s).count();
    let subjects: BTreeSet<&str> = r.cells.iter().map(|c| c.subject.as_str()).collect();
    let flagged = r.cells.iter().filter(|c| !c.flags.is_empty()).count();
    // Only when there are some: an interrupt, not the subjects, kept them from being measured.
    let interrupted = match count(CellStatus::Interrupted) {
        0 => String::new(),
        n => format!("<div class=\"kpi\"><b>{n}</b><span>interrupted</span></div>"),
    };
    let _ = write!(
        o,
        "<div class=\"kpis\"><div class=\"kpi\"><b>{}</b><span>cells</span></div>\
            <div class=\"kpi\"><b>{}</b><span>measured</span></div><div class=\"kpi\"><b>{}</b>\
            <span>failed</span></div><div class=\"kpi\"><b>{}</b><span>skipped</span></div>\
            {interrupted}\
            <div class=\"kpi\"><b>{}</b><span>subjects</span></div><div class=\"kpi\"><b>{}</b>\
            <span>cells with flags</span></div></div></header>",
        r.cells.len(),
        count(CellStatus::Ok),
        count(CellStatus::Failed),
        count(CellStatus::Skipped),
        subjects.len(),
        flagged
    );
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
    let mut isolation = vec![
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
    ];
    // Where PostgreSQL ran, for runs with a database (its CPUs are in every cell's placement).
    if let Some(db) = crate::cells::database_place(&r.cells) {
        isolation.push(("PostgreSQL", escape(db)));
    }
    dl(o, "Isolation", &isolation);
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
            format!(
                "{}, {}",
                crate::units::plural(p.connections, "connection"),
                crate::units::plural(p.threads, "thread")
            ),
        ),
        ("amount", escape(&amount)),
        (
            "repeats",
            match p.restarts {
                Some(n) => format!(
                    "{} over {n} server processes (warm-up {} in each)",
                    p.repeats,
                    escape(&warmup)
                ),
                None => format!("{} (warm-up {})", p.repeats, escape(&warmup)),
            },
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
    if let Some(line) = policy_line(p.rounds.as_ref()) {
        load.push(("rounds", escape(&line)));
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
    if !r.conformance.is_empty() {
        o.push_str("<a href=\"#conformance\">conformance</a>");
    }
    o.push_str("<a href=\"#flags\">flags</a></nav>");
}

fn group(
    o: &mut String,
    w: &str,
    s: &str,
    cells: &[&Cell],
    colors: &BTreeMap<String, usize>,
    connections: u32,
) {
    let held = cells.iter().find_map(|c| c.connections);
    let closed_loop = closed_loop_latency(held.unwrap_or(connections));
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
    tables::cells_table(o, cells, &labels, &color, &closed_loop);
    if let Some(line) = crate::cells::bytes_per_answer_line(w, cells) {
        let _ = write!(
            o,
            "<p class=\"small\" data-bytes-per-answer>{}</p>",
            escape(&line)
        );
    }
    if let Some(why) = ranked_apart(&nonconformant_subjects(cells.iter().copied())) {
        let _ = write!(
            o,
            "<p class=\"banner warn small\" data-ranked-apart>{} Listed last in the table and the \
             charts, marked {} in the charts.</p>",
            escape(&why),
            NONCONFORMANT_MARK.trim_end()
        );
    }
    // The charts name a nonconformant subject with a mark, in the colour of its plain name.
    let marked: Vec<CellLabel> = cells
        .iter()
        .zip(&labels)
        .map(|(c, l)| CellLabel {
            label: if nonconformant(c) {
                format!("{NONCONFORMANT_MARK}{}", l.label)
            } else {
                l.label.clone()
            },
            variant: l.variant.clone(),
        })
        .collect();
    let chart_color = |l: &CellLabel| {
        let plain = l.label.strip_prefix(NONCONFORMANT_MARK).unwrap_or(&l.label);
        colors.get(plain).copied().unwrap_or(0)
    };
    let ok: Vec<(&Cell, &CellLabel)> = cells
        .iter()
        .zip(&marked)
        .filter(|(c, _)| c.status == CellStatus::Ok)
        .map(|(c, l)| (*c, l))
        .collect();
    charts::group_charts(o, &ok, &chart_color, &closed_loop);
    charts::latency_throughput_figure(o, &ok, &chart_color);
    tables::capacity_table(o, cells);
    tables::equal_load_table(o, cells);
    tables::long_reasons(o, cells);
}

fn legend(o: &mut String) {
    o.push_str("<section id=\"flags\"><h2>Reading this report</h2><dl class=\"flags\">");
    for (f, why) in flags() {
        let _ = write!(o, "<dt>{}</dt><dd>{}</dd>", flag_badge(f), escape(why));
    }
    o.push_str(
        "</dl><p class=\"muted small\">Throughput is the median over the repeats; CI95 is a \
        bootstrap confidence interval of that median (three repeats or more), or, for a run \
        measured in rounds, the 95 % interval over its rounds (t on logs). Rankings share a rank \
        (<code>=1</code>) where no paired interval separates two subjects; contended cells are \
        shown, never ranked (docs/verdicts.md). Latency percentiles \
        come from the merged HdrHistogram of all repeats, measured by the load generator. Server \
        CPU and memory cover the server's whole process tree. Efficiency: requests served per \
        second of server CPU time, and req/s per MB of peak resident memory.</p></section>",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::StudyInfo;

    #[test]
    fn one_repeat_shows_no_spread_rather_than_a_perfect_one() {
        let mut once = crate::test_support::cell("x", "echo", "one-cpu", 58_300.0);
        once.rps.min = 58_300.0;
        once.rps.max = 58_300.0;
        once.rps.cv = 0.0;
        once.rps.ci95 = None;
        let run = RunResults {
            schema_version: 1,
            kind: "run".into(),
            started_at: "t".into(),
            finished_at: None,
            interrupted: false,
            environment: Default::default(),
            protocol: Default::default(),
            cells: vec![once],
            study: None,
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
            unserved: Vec::new(),
        };
        let html = render(&run);
        assert!(!html.contains("58.3k–58.3k"), "a range of one value");
        assert!(!html.contains("0.0 %"), "a cv of one repeat");
        assert!(
            html.contains("one repeat"),
            "the chart's title says why there is no spread"
        );
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
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
            unserved: Vec::new(),
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
    fn a_tfb_study_has_one_section_per_type_in_the_order_of_tfbs_site() {
        let cell = |s: &str, w: &str, rps: f64| {
            let mut c = crate::test_support::cell(s, "json", "all-cores", rps);
            c.workload = w.into();
            c
        };
        let r = RunResults {
            schema_version: 1,
            kind: "study tfb".into(),
            started_at: "t".into(),
            finished_at: None,
            interrupted: false,
            environment: Default::default(),
            protocol: Default::default(),
            cells: vec![
                cell("rust-hyper", "json", 90_000.0),
                cell("rust-axum", "json", 100_000.0),
                cell("rust-axum", "plaintext-pipelined-16", 500_000.0),
            ],
            study: StudyInfo::new("tfb", true, "3 s per repeat"),
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
            unserved: vec![restbench_model::Unserved {
                subject: "dotnet-aspnetcore".into(),
                workload: "fortunes".into(),
                reason: "no PostgreSQL driver <without> NuGet".into(),
            }],
        };
        let html = render(&r);
        let md = crate::markdown::report(&r);
        let titles = [
            "JSON serialization",
            "Single query",
            "Multiple queries",
            "Cached queries",
            "Fortunes",
            "Data updates",
            "Plaintext",
        ];
        for page in [&html, &md] {
            let at: Vec<usize> = titles.iter().map(|t| page.find(t).unwrap()).collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
            assert!(page.contains("56 logical cores") && page.contains("40 GbE"));
            // json: hyper ahead in Round 23, axum ahead here: one pair, reversed.
            assert!(page.contains("order and ours: -1.00 over 2 subjects."));
            assert!(page.contains("rust-hyper ⇅ rust-axum"));
            assert!(page.contains("tfb-status.techempower.com/results/91a66052"));
        }
        assert!(html.contains("<section id=\"study\" data-study=\"tfb\">"));
        assert!(html.contains("<table class=\"ratios\">"));
        assert!(md.contains("### Multiple queries (`queries`, 20 queries per request)"));
        assert!(md.contains("No cell of this type was measured."));
        // Who states it does not serve a type is named under that type's heading, with why.
        let said =
            "Not served here (each subject.toml says why): dotnet-aspnetcore (no PostgreSQL driver";
        let fortunes = md.find("### Fortunes").unwrap();
        let at = md.find(said).unwrap();
        assert!(
            at > fortunes && at < md.find("### Data updates").unwrap(),
            "{md}"
        );
        assert_eq!(md.matches(said).count(), 1);
        assert!(html.contains("<p data-unserved>Not served here"));
        assert!(html.contains("&lt;without&gt; NuGet"));
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
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
            unserved: Vec::new(),
        };
        let html = render(&r);
        assert!(!html.contains("<img") && !html.contains("a<b>") && !html.contains("run <1>"));
        assert!(html.contains("a&lt;b&gt;") && html.contains("&lt;img src=x"));
        assert!(html.contains("Interrupted"));
        assert!(html.contains("No published figures are known for study id"));
        assert_eq!(html.matches("<figure class=\"chart\"").count(), 4);
    }

    #[test]
    fn restarts_and_the_database_place_reach_markdown_and_html() {
        let mut a = crate::test_support::cell("a", "users", "one-cpu", 1000.0);
        a.restarts = restbench_model::RestartSpread::of(&[900.0, 1100.0], &[0, 1]);
        a.placement.database = "own cluster on CPU 0, the generator's".into();
        a.placement.db_cpus = vec![0];
        let b = crate::test_support::cell("b", "users", "one-cpu", 1000.0);
        let mut r = RunResults {
            schema_version: 1,
            kind: "run".into(),
            started_at: "t".into(),
            finished_at: None,
            interrupted: false,
            environment: Default::default(),
            protocol: Default::default(),
            cells: vec![a, b],
            study: None,
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
            unserved: Vec::new(),
        };
        let html = render(&r);
        assert!(html.contains("between processes 14.1% over 2 processes"));
        assert!(html.contains("<dt>PostgreSQL</dt><dd>own cluster on CPU 0"));
        let md = crate::markdown::report(&r);
        assert!(md.contains("| cv | cv between processes |"), "{md}");
        assert!(md.contains("| 14.1% over 2 processes |") && md.contains("| – |"));
        assert!(md.contains("PostgreSQL (users workload): own cluster on CPU 0"));
        // One process per cell: no column, no row.
        r.cells.iter_mut().for_each(|c| {
            c.restarts = None;
            c.placement.database.clear();
        });
        let md = crate::markdown::report(&r);
        assert!(!md.contains("between processes") && !md.contains("PostgreSQL"));
        assert!(!render(&r).contains("<dt>PostgreSQL</dt>"));
    }
}
