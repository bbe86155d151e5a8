//! A study's published figures beside ours, as ratios to the study's baseline system (absolute
//! req/s differ per machine; the order and the ratios are what a reproduction can check). Not
//! the A/B ratios of two cells, which are the model's `statistics::ab_ratios`.
//!
//! This module computes the tables; `markdown::study` and `html::study` render them. The few
//! plain-text sentences both need (a row's name, a reversal, a published latency) live here.

use restbench_model::{
    Cell, CellStatus, GroupRounds, Interval, PublishedFigure, PublishedLatency, PublishedStudy,
    RpsStats, RunResults, published_study,
};

use restbench_model::vocabulary::flag::Flag;

use crate::cells::{cell_labels, first_line, status_word};
use crate::noise::beyond_noise;
use crate::units::{micros_short, ratio};

/// One row: a published system, or a subject measured here that the seed did not have.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRow {
    /// The system as published, or the subject's framework for rows the seed did not have.
    pub system: String,
    pub subject: Option<String>,
    pub variant: Option<String>,
    pub published_rps: Option<f64>,
    pub published_ratio: Option<f64>,
    /// Latency as published, when it was.
    pub published_latency: Option<PublishedLatency>,
    /// CPU and memory as published.
    pub published_resources: Option<String>,
    pub measured: Option<RpsStats>,
    pub measured_ratio: Option<f64>,
    /// The 95 % interval of the measured ratio to the baseline: the run's paired ratio (from
    /// duets beside the group's reference, or interleaved rounds), else unpaired over the two
    /// cells' slices; `None` without two slices of each.
    pub measured_interval: Option<Interval>,
    /// Why there is no measured figure (unavailable here, failed, skipped, not run).
    pub not_measured: Option<String>,
    /// The measured cell's flags (`client_bound`, `noisy` …).
    pub flags: Vec<String>,
    /// True when this row takes part in at least one reversal.
    pub reversed: bool,
    /// True for the row the ratios are taken against.
    pub baseline: bool,
    /// A note on the published figure.
    pub note: Option<String>,
}

impl StudyRow {
    pub fn measured_rps(&self) -> Option<f64> {
        self.measured.map(|m| m.median)
    }

    /// True when the measured cell is flagged `nonconformant`.
    pub fn nonconformant(&self) -> bool {
        self.flags.iter().any(|f| f == Flag::Nonconformant.name())
    }
}

/// Two systems whose order differs between the published and the measured figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Reversal {
    /// Row indices: `first` was ahead in the published figures, `second` is ahead here.
    pub first: usize,
    pub second: usize,
    pub published: [f64; 2],
    pub measured: [f64; 2],
    /// True when the measured difference is within the noise of the two cells.
    pub within_noise: bool,
}

/// The ratio table of one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioTable {
    pub scenario: String,
    pub rows: Vec<StudyRow>,
    /// Index of the baseline row for the published ratios, and for the measured ones (the same
    /// row unless no row has both figures).
    pub published_baseline: Option<usize>,
    pub measured_baseline: Option<usize>,
    /// Said when the baseline is not the study's own.
    pub baseline_note: Option<String>,
    pub reversals: Vec<Reversal>,
}

/// A study's tables for a run.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyTables {
    pub study: PublishedStudy,
    pub tables: Vec<RatioTable>,
}

/// The study tables of a run that is a study with a known id.
pub fn for_run(r: &RunResults) -> Option<StudyTables> {
    let info = r.study.as_ref()?;
    let study = published_study(&info.id)?;
    let mut tables = tables(&study, &r.cells);
    for t in &mut tables {
        ratio_intervals(t, &study.workload, &r.groups, &r.cells);
    }
    Some(StudyTables { study, tables })
}

/// Each measured ratio's interval to the table's baseline: the pair of the run's group when it
/// has one (paired by round), else unpaired over both cells' counted slices. The ratio shown
/// becomes that interval's estimate, so a point never stands outside its own interval (the
/// ratio of solo medians can: duets split one machine's CPU differently), and the reversals are
/// found again from those ratios.
pub fn ratio_intervals(t: &mut RatioTable, workload: &str, groups: &[GroupRounds], cells: &[Cell]) {
    let Some(b) = t.measured_baseline else { return };
    let Some(base) = t.rows[b].subject.clone() else {
        return;
    };
    let group = groups
        .iter()
        .find(|g| g.workload == workload && g.scenario == t.scenario && g.protocol == "h1");
    let cell = |s: &str| {
        cells.iter().find(|c| {
            c.subject == s
                && c.workload == workload
                && c.scenario == t.scenario
                && c.protocol == "h1"
                && c.status == CellStatus::Ok
        })
    };
    for row in &mut t.rows {
        let Some(subject) = row.subject.as_deref() else {
            continue;
        };
        if row.measured_ratio.is_none() {
            continue;
        }
        let paired = group.and_then(|g| {
            g.pairs.iter().find_map(|p| {
                if p.a == base && p.b == subject {
                    Some(p.rps)
                } else if p.b == base && p.a == subject {
                    Some(p.rps.inverse())
                } else {
                    None
                }
            })
        });
        row.measured_interval = paired.or_else(|| {
            let (a, b) = (cell(&base)?, cell(subject)?);
            let m = restbench_model::statistics::ab_ratios::Measure::Rps;
            restbench_model::statistics::interval::unpaired_ratio(
                &restbench_model::statistics::ab_ratios::repeat_figures(a, m),
                &restbench_model::statistics::ab_ratios::repeat_figures(b, m),
            )
        });
        if let Some(i) = row
            .measured_interval
            .filter(|_| !row.baseline && subject != base)
        {
            row.measured_ratio = Some(i.estimate);
        }
    }
    mark_reversals(t);
}

/// The table's reversals from its rows' current ratios, and each row's `reversed` flag. A
/// reversal is within noise also when the two ratios' intervals overlap (the baseline's is
/// exactly 1).
pub(crate) fn mark_reversals(t: &mut RatioTable) {
    t.reversals = reversals(&t.rows);
    let span = |k: usize| -> Option<(f64, f64)> {
        if Some(k) == t.measured_baseline {
            return Some((1.0, 1.0));
        }
        t.rows[k].measured_interval.map(|i| (i.low, i.high))
    };
    for r in &mut t.reversals {
        if let (Some(a), Some(b)) = (span(r.first), span(r.second))
            && a.0 <= b.1
            && b.0 <= a.1
        {
            r.within_noise = true;
        }
    }
    for row in &mut t.rows {
        row.reversed = false;
    }
    for r in &t.reversals {
        t.rows[r.first].reversed = true;
        t.rows[r.second].reversed = true;
    }
}

/// `4.39× [4.10, 4.70]`, or the bare ratio without an interval; `–` without a ratio.
pub fn ratio_with_interval(row: &StudyRow) -> String {
    match (row.measured_ratio, row.measured_interval) {
        (None, _) => "–".into(),
        (Some(r), None) => ratio(r),
        (Some(r), Some(_)) if row.baseline => ratio(r),
        (Some(r), Some(i)) => format!("{} [{:.2}, {:.2}]", ratio(r), i.low, i.high),
    }
}

/// One table per scenario the study's figures use.
pub fn tables(study: &PublishedStudy, cells: &[Cell]) -> Vec<RatioTable> {
    study
        .scenarios()
        .iter()
        .map(|s| table(study, s, cells))
        .collect()
}

fn table(study: &PublishedStudy, scenario: &str, all_cells: &[Cell]) -> RatioTable {
    let cells: Vec<&Cell> = all_cells
        .iter()
        .filter(|c| c.workload == study.workload && c.scenario == scenario)
        .collect();
    let figures: Vec<&PublishedFigure> = study
        .figures
        .iter()
        .filter(|f| f.scenario == scenario)
        .collect();
    let (matched, claimed) = claim_cells(&figures, &cells);
    let mut rows: Vec<StudyRow> = figures
        .iter()
        .zip(&matched)
        .map(|(f, m)| published_row(study, f, m.map(|j| cells[j])))
        .collect();
    rows.extend(rows_not_in_the_seed(&cells, &claimed));
    let (pb, mb, baseline_note) = baselines(study, &rows);
    if let Some(p) = pb {
        let base = rows[p].published_rps.unwrap_or(0.0);
        for r in &mut rows {
            r.published_ratio = r.published_rps.filter(|_| base > 0.0).map(|v| v / base);
        }
    }
    if let Some(m) = mb {
        let base = rows[m].measured_rps().unwrap_or(0.0);
        for r in &mut rows {
            r.measured_ratio = r.measured_rps().filter(|_| base > 0.0).map(|v| v / base);
        }
    }
    if let Some(k) = pb.filter(|p| Some(*p) == mb) {
        rows[k].baseline = true;
    }
    let mut t = RatioTable {
        scenario: scenario.to_string(),
        rows,
        published_baseline: pb,
        measured_baseline: mb,
        baseline_note,
        reversals: Vec::new(),
    };
    mark_reversals(&mut t);
    t
}

/// Which cell each figure stands beside: figures claim cells, the most specific settings first,
/// ok cells before failed ones. Returns each figure's cell and which cells were claimed.
fn claim_cells(figures: &[&PublishedFigure], cells: &[&Cell]) -> (Vec<Option<usize>>, Vec<bool>) {
    let mut order: Vec<usize> = (0..figures.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(figures[i].specificity()));
    let mut claimed = vec![false; cells.len()];
    let mut matched: Vec<Option<usize>> = vec![None; figures.len()];
    for &i in &order {
        let f = figures[i];
        let Some(subject) = &f.subject else { continue };
        let candidate = |want_ok: bool| {
            (0..cells.len()).find(|&j| {
                !claimed[j]
                    && &cells[j].subject == subject
                    && f.settings_match(&cells[j].settings)
                    && (cells[j].status == CellStatus::Ok) == want_ok
            })
        };
        if let Some(j) = candidate(true).or_else(|| candidate(false)) {
            claimed[j] = true;
            matched[i] = Some(j);
        }
    }
    (matched, claimed)
}

/// A published figure's row, with the cell it claimed (if any) as the measured figure.
fn published_row(study: &PublishedStudy, f: &PublishedFigure, cell: Option<&Cell>) -> StudyRow {
    let ok = cell.filter(|c| c.status == CellStatus::Ok);
    let not_measured = match (&f.subject, cell) {
        (None, _) => Some(format!(
            "not run here: {}",
            study
                .unavailable_reason(&f.system)
                .unwrap_or("no subject stands for it")
        )),
        (Some(_), Some(c)) if c.status != CellStatus::Ok => Some(format!(
            "{}: {}",
            status_word(c.status),
            first_line(c.reason.as_deref().unwrap_or("no reason recorded"))
        )),
        (Some(_), None) => Some("not run in this study".to_string()),
        _ => None,
    };
    StudyRow {
        system: f.system.clone(),
        subject: f.subject.clone(),
        variant: f.variant.clone(),
        published_rps: Some(f.rps),
        published_ratio: None,
        published_latency: f.latency,
        published_resources: f.resources.clone(),
        measured: ok.map(|c| c.rps),
        measured_ratio: None,
        measured_interval: None,
        not_measured,
        flags: ok.map(|c| c.flags.clone()).unwrap_or_default(),
        reversed: false,
        baseline: false,
        note: f.note.clone(),
    }
}

/// Subjects measured here that the seed did not have, fastest first, nonconformant ones last.
fn rows_not_in_the_seed(cells: &[&Cell], claimed: &[bool]) -> Vec<StudyRow> {
    let labels = cell_labels(cells);
    let mut extras: Vec<StudyRow> = (0..cells.len())
        .filter(|&j| !claimed[j])
        .map(|j| {
            let c = cells[j];
            let ok = c.status == CellStatus::Ok;
            StudyRow {
                system: format!("{} {}", c.framework, c.framework_version)
                    .trim()
                    .to_string(),
                subject: Some(c.subject.clone()),
                variant: labels[j].variant.clone(),
                published_rps: None,
                published_ratio: None,
                published_latency: None,
                published_resources: None,
                measured: ok.then_some(c.rps),
                measured_ratio: None,
                measured_interval: None,
                not_measured: (!ok)
                    .then(|| first_line(c.reason.as_deref().unwrap_or("not measured"))),
                flags: c.flags.clone(),
                reversed: false,
                baseline: false,
                note: Some("not in the seed".into()),
            }
        })
        .collect();
    extras.sort_by(|a, b| {
        a.nonconformant().cmp(&b.nonconformant()).then_with(|| {
            b.measured_rps()
                .unwrap_or(-1.0)
                .total_cmp(&a.measured_rps().unwrap_or(-1.0))
        })
    });
    extras
}

/// The rows the published and the measured ratios are taken against, and a note when that is not
/// the study's own baseline: the study's own when it has both figures, else the first row that
/// has both, else one row for each side.
fn baselines(
    study: &PublishedStudy,
    rows: &[StudyRow],
) -> (Option<usize>, Option<usize>, Option<String>) {
    let both = |r: &StudyRow| r.published_rps.is_some() && r.measured.is_some();
    let is_study_baseline = |r: &StudyRow| {
        r.subject.as_deref() == Some(study.baseline.as_str()) && r.published_rps.is_some()
    };
    let own = rows.iter().position(|r| is_study_baseline(r) && both(r));
    if let Some(k) = own {
        return (Some(k), Some(k), None);
    }
    if let Some(k) = rows.iter().position(both) {
        let why = if rows.iter().any(is_study_baseline) {
            format!("{} was not measured here", study.baseline)
        } else {
            format!("{} has no figure in this scenario", study.baseline)
        };
        let note = format!(
            "Ratios are against {} because {why}.",
            rows[k].subject.as_deref().unwrap_or(&rows[k].system)
        );
        return (Some(k), Some(k), Some(note));
    }
    let pb = rows
        .iter()
        .position(is_study_baseline)
        .or_else(|| rows.iter().position(|r| r.published_rps.is_some()));
    let mb = rows.iter().position(|r| r.measured.is_some());
    let note = mb.map(|_| {
        "No system has both a published and a measured figure here, so the published and the measured ratios are against different systems.".to_string()
    });
    (pb, mb, note)
}

/// Every pair of rows with both figures whose order differs between published and measured.
pub fn reversals(rows: &[StudyRow]) -> Vec<Reversal> {
    let mut out = Vec::new();
    for i in 0..rows.len() {
        for j in i + 1..rows.len() {
            let (Some(pi), Some(pj), Some(mi), Some(mj)) = (
                rows[i].published_ratio,
                rows[j].published_ratio,
                rows[i].measured_ratio,
                rows[j].measured_ratio,
            ) else {
                continue;
            };
            if (pi - pj) * (mi - mj) >= 0.0 {
                continue;
            }
            let (first, second) = if pi > pj { (i, j) } else { (j, i) };
            let within_noise = match (rows[i].measured, rows[j].measured) {
                (Some(a), Some(b)) => !beyond_noise(&a, &b),
                _ => false,
            };
            out.push(Reversal {
                first,
                second,
                published: [
                    rows[first].published_ratio.unwrap_or(0.0),
                    rows[second].published_ratio.unwrap_or(0.0),
                ],
                measured: [
                    rows[first].measured_ratio.unwrap_or(0.0),
                    rows[second].measured_ratio.unwrap_or(0.0),
                ],
                within_noise,
            });
        }
    }
    out
}

/// The sentence under a ratio table with nonconformant rows: their measured order is not a
/// ranking (`None` when every row is conformant).
pub fn ranked_apart_note(t: &RatioTable) -> Option<String> {
    let labels: Vec<String> = t
        .rows
        .iter()
        .filter(|r| r.nonconformant())
        .map(row_label)
        .collect();
    let names: Vec<&str> = labels.iter().map(String::as_str).collect();
    crate::conformance::ranked_apart(&names)
}

/// A row's name in tables: the subject (with its variant), else the published system.
pub fn row_label(r: &StudyRow) -> String {
    match (&r.subject, &r.variant) {
        (Some(s), Some(v)) => format!("{s} [{v}]"),
        (Some(s), None) => s.clone(),
        (None, _) => r.system.clone(),
    }
}

/// Published latency in a line: `mean 793 µs, sd 221 µs, max 12.0 ms`, `p50 609 µs, p99 92.8 ms`.
pub fn latency_text(l: &PublishedLatency) -> String {
    let parts: Vec<String> = [
        ("p50", l.p50_us),
        ("p75", l.p75_us),
        ("p90", l.p90_us),
        ("p99", l.p99_us),
        ("mean", l.mean_us),
        ("sd", l.stdev_us),
        ("min", l.min_us),
        ("max", l.max_us),
    ]
    .iter()
    .filter_map(|(k, v)| v.map(|v| format!("{k} {}", micros_short(v))))
    .collect();
    parts.join(", ")
}

/// `node-http ⇅ go-nethttp [GOMAXPROCS=1]: published 1.00× vs 0.56×, measured 0.80× vs 1.10×`.
pub fn reversal_text(t: &RatioTable, rev: &Reversal) -> String {
    format!(
        "{} ⇅ {}: published {} vs {}, measured {} vs {}{}",
        row_label(&t.rows[rev.first]),
        row_label(&t.rows[rev.second]),
        ratio(rev.published[0]),
        ratio(rev.published[1]),
        ratio(rev.measured[0]),
        ratio(rev.measured[1]),
        if rev.within_noise {
            " (the measured difference is within noise)"
        } else if t.rows[rev.first].nonconformant() || t.rows[rev.second].nonconformant() {
            " (a nonconformant subject: not a ranking)"
        } else {
            ""
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::cell;
    use restbench_model::documents::published::PublishedStudy;

    fn with(mut c: Cell, k: &str, v: &str) -> Cell {
        c.settings.insert(k.into(), v.into());
        c
    }

    fn study_a() -> PublishedStudy {
        restbench_model::published_study("a").unwrap()
    }

    #[test]
    fn ratios_against_the_baseline_and_reversals_found() {
        // Published single-thread: node 12,618.86, go 7,124.41, go-dynamic 4,943.11.
        // Measured: go overtakes node, go-dynamic stays last.
        let cells = vec![
            cell("node-http", "echo", "single-thread", 10_000.0),
            with(
                cell("go-nethttp", "echo", "single-thread", 15_000.0),
                "GOMAXPROCS",
                "1",
            ),
            with(
                cell("go-nethttp-dynamic", "echo", "single-thread", 9_000.0),
                "GOMAXPROCS",
                "1",
            ),
            cell("rust-axum", "echo", "single-thread", 40_000.0),
        ];
        let t = &tables(&study_a(), &cells)[0];
        assert_eq!(t.scenario, "single-thread");
        assert_eq!(t.rows.len(), 4);
        assert!(t.rows[0].baseline);
        assert_eq!(t.rows[0].measured_ratio, Some(1.0));
        assert!((t.rows[1].published_ratio.unwrap() - 7_124.41 / 12_618.86).abs() < 1e-9);
        assert_eq!(t.rows[1].measured_ratio, Some(1.5));
        assert_eq!(t.rows[3].subject.as_deref(), Some("rust-axum"));
        assert_eq!(t.rows[3].published_ratio, None);
        assert_eq!(t.rows[3].measured_ratio, Some(4.0));
        // node vs go swapped; node vs dynamic did not; go vs dynamic did not.
        assert_eq!(t.reversals.len(), 1);
        let r = &t.reversals[0];
        assert_eq!((r.first, r.second), (0, 1));
        assert!(!r.within_noise);
        assert!(t.rows[0].reversed && t.rows[1].reversed && !t.rows[2].reversed);
        assert!(reversal_text(t, r).starts_with("node-http ⇅ go-nethttp [GOMAXPROCS=1]"));
    }

    #[test]
    fn variants_match_by_settings_and_missing_systems_keep_their_rows() {
        let mut failed = cell("node-http", "echo", "one-cpu", 0.0);
        failed.status = CellStatus::Failed;
        failed.reason = Some("did not start <in time>".into());
        let cells = vec![
            failed,
            cell("go-nethttp", "echo", "one-cpu", 600.0),
            with(
                cell("go-nethttp", "echo", "one-cpu", 6_000.0),
                "GOMAXPROCS",
                "1",
            ),
        ];
        let all = tables(&study_a(), &cells);
        let t = all.iter().find(|t| t.scenario == "one-cpu").unwrap();
        let by_variant = |v: &str| {
            t.rows
                .iter()
                .find(|r| r.variant.as_deref() == Some(v))
                .unwrap()
        };
        assert_eq!(by_variant("GOMAXPROCS=1").measured_rps(), Some(6_000.0));
        assert_eq!(by_variant("GOMAXPROCS unset").measured_rps(), Some(600.0));
        let node = &t.rows[0];
        assert!(
            node.not_measured
                .as_deref()
                .unwrap()
                .contains("did not start")
        );
        // The baseline moves to the first row with both figures, and says so.
        assert!(t.baseline_note.as_deref().unwrap().contains("node-http"));
        assert!(
            t.rows
                .iter()
                .find(|r| r.baseline)
                .unwrap()
                .subject
                .as_deref()
                == Some("go-nethttp")
        );
        // Published 579.77 < 6,209.90 and measured 600 < 6,000: no reversal.
        assert!(t.reversals.is_empty());
    }

    #[test]
    fn unavailable_systems_are_listed_with_their_reason() {
        // Every system of the seeds runs here now: study d with its .NET row taken back out.
        let mut d = restbench_model::published_study("d").unwrap();
        let net = d
            .figures
            .iter_mut()
            .find(|f| f.system.contains(".NET"))
            .unwrap();
        net.subject = None;
        d.unavailable
            .push(restbench_model::documents::published::UnavailableSystem {
                system: net.system.clone(),
                reason: "no .NET SDK here".into(),
            });
        let cells = vec![cell("java-light4j", "plaintext", "all-cores", 100_000.0)];
        let ts = tables(&d, &cells);
        assert_eq!(
            ts.iter().map(|t| t.scenario.as_str()).collect::<Vec<_>>(),
            ["single-thread", "all-cores"]
        );
        let all = &ts[1];
        let net = all.rows.iter().find(|r| r.system.contains(".NET")).unwrap();
        assert!(net.not_measured.as_deref().unwrap().contains(".NET SDK"));
        assert_eq!(net.published_ratio, Some(57_162.40 / 475_553.57));
        let warp = all
            .rows
            .iter()
            .find(|r| r.subject.as_deref() == Some("haskell-warp"))
            .unwrap();
        assert_eq!(warp.not_measured.as_deref(), Some("not run in this study"));
    }

    #[test]
    fn a_paired_ratio_is_shown_with_its_own_estimate_and_the_reversals_follow_it() {
        use restbench_model::statistics::interval::Interval;
        use restbench_model::statistics::rounds::{GroupRounds, PairRatio};
        // Solo medians put go ahead of node (1.5x), a reversal against the seed; the duets
        // beside node say 0.80x [0.75, 0.85]: the shown ratio is the duets', and no reversal.
        let cells = vec![
            cell("node-http", "echo", "single-thread", 10_000.0),
            with(
                cell("go-nethttp", "echo", "single-thread", 15_000.0),
                "GOMAXPROCS",
                "1",
            ),
        ];
        let mut t = tables(&study_a(), &cells).remove(0);
        assert_eq!(t.reversals.len(), 1);
        let pair = PairRatio {
            a: "node-http".into(),
            b: "go-nethttp".into(),
            rps: Interval {
                estimate: 0.80,
                low: 0.75,
                high: 0.85,
                n: 3,
            },
            cpu_us_per_req: None,
            settled: false,
            rps_distinct: None,
            cpu_distinct: None,
        };
        let group = GroupRounds {
            workload: "echo".into(),
            scenario: "single-thread".into(),
            protocol: "h1".into(),
            rounds: Vec::new(),
            settled: false,
            pairs: vec![pair],
            ranking: Vec::new(),
            efficiency: Vec::new(),
            reference: Some("node-http".into()),
            method_note: None,
            counted: Vec::new(),
            excluded: Vec::new(),
        };
        ratio_intervals(&mut t, "echo", &[group], &cells);
        let go = &t.rows[1];
        assert_eq!(go.measured_ratio, Some(0.80));
        let i = go.measured_interval.unwrap();
        assert!(i.low <= 0.80 && 0.80 <= i.high);
        assert_eq!(ratio_with_interval(go), "0.80× [0.75, 0.85]");
        assert_eq!(t.rows[0].measured_ratio, Some(1.0));
        assert!(t.reversals.is_empty());
        assert!(!t.rows[0].reversed && !t.rows[1].reversed);
    }

    #[test]
    fn reversals_within_noise_are_told_apart() {
        let mut a = cell("node-http", "echo", "single-thread", 10_000.0);
        let mut b = with(
            cell("go-nethttp", "echo", "single-thread", 10_100.0),
            "GOMAXPROCS",
            "1",
        );
        a.rps.ci95 = Some([9_800.0, 10_200.0]);
        b.rps.ci95 = Some([9_900.0, 10_300.0]);
        let t = &tables(&study_a(), &[a, b])[0];
        assert_eq!(t.reversals.len(), 1);
        assert!(t.reversals[0].within_noise);
        assert!(reversal_text(t, &t.reversals[0]).contains("within noise"));
    }
}
