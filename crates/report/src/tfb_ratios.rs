//! `study tfb`'s tables: for each of TechEmpower's seven test types, in the order TFB's site
//! showed them, our figures and Round 23's, each as a ratio to one baseline subject (the same on
//! both sides), with Kendall's tau-b between the two orders and the reversed pairs. Rows are the
//! seed studies' [`StudyRow`]s, so the ratio intervals and reversals are computed as theirs.
//! Absolute req/s cannot agree across the two machines; ratios and orders are what can be checked.

use restbench_model::documents::tfb::{Round23, TfbTest, round23};
use restbench_model::statistics::rank_correlation::kendall_tau_b;
use restbench_model::{Cell, CellStatus, RunResults};

use crate::cells::{first_line, status_word};
use crate::study_ratios::{RatioTable, StudyRow, mark_reversals, ratio_intervals};

/// The scenario `study tfb` measures in (its planner's `TFB_SCENARIO`).
pub const TFB_SCENARIO: &str = "all-cores";

/// One test type's section.
#[derive(Debug, Clone, PartialEq)]
pub struct TfbSection {
    pub test: TfbTest,
    /// The rows, Round 23's order first; `scenario` is the cells' scenario.
    pub table: RatioTable,
    /// Kendall's tau-b between Round 23's order and ours over the subjects with both figures
    /// (`None` with fewer than two).
    pub tau_b: Option<f64>,
    /// How many subjects have both figures.
    pub common: usize,
    /// Subjects of the run that state they do not serve this type, with why (subject.toml's
    /// `[unserved]`): said under the table, so a missing row is never silent.
    pub unserved: Vec<(String, String)>,
}

/// The whole study: Round 23's facts and a section per type.
#[derive(Debug, Clone, PartialEq)]
pub struct TfbTables {
    pub round23: Round23,
    pub sections: Vec<TfbSection>,
}

/// The tables of a `study tfb` run (`None` for any other run, or if the committed Round 23 file
/// were unreadable, which its unit test rules out).
pub fn for_run(r: &RunResults) -> Option<TfbTables> {
    if r.study.as_ref()?.id != restbench_model::documents::published::TFB_STUDY_ID {
        return None;
    }
    let round23 = round23().ok()?;
    let sections = TfbTest::SITE_ORDER
        .into_iter()
        .map(|test| {
            let mut s = section(&round23, test, &r.cells);
            ratio_intervals(&mut s.table, &test.cell_label(), &r.groups, &r.cells);
            (s.tau_b, s.common) = order_agreement(&s.table.rows);
            s.unserved = r
                .unserved_of(test.workload().name())
                .map(|u| (u.subject.clone(), u.reason.clone()))
                .collect();
            s
        })
        .collect();
    Some(TfbTables { round23, sections })
}

/// One type's rows: every cell of it measured here (h1, the study's scenario), beside its
/// subject's Round 23 figure or why it has none.
pub fn section(round23: &Round23, test: TfbTest, cells: &[Cell]) -> TfbSection {
    let label = test.cell_label();
    let mut rows: Vec<StudyRow> = cells
        .iter()
        .filter(|c| c.workload == label && c.scenario == TFB_SCENARIO && c.protocol == "h1")
        .map(|c| row(round23, test, c))
        .collect();
    // Round 23's order first, then the subjects it has no figure for, fastest here first.
    rows.sort_by(|a, b| {
        b.published_rps
            .unwrap_or(-1.0)
            .total_cmp(&a.published_rps.unwrap_or(-1.0))
            .then_with(|| {
                b.measured_rps()
                    .unwrap_or(-1.0)
                    .total_cmp(&a.measured_rps().unwrap_or(-1.0))
            })
    });
    let both = |r: &StudyRow| r.published_rps.is_some() && r.measured.is_some();
    // The baseline: the common subject fastest in Round 23 (rows are in that order).
    let common_base = rows.iter().position(both);
    let (pb, mb, baseline_note) = match common_base {
        Some(k) => (Some(k), Some(k), None),
        None => {
            let pb = rows.iter().position(|r| r.published_rps.is_some());
            let mb = (0..rows.len())
                .filter(|&i| rows[i].measured.is_some())
                .max_by(|&i, &j| {
                    rows[i]
                        .measured_rps()
                        .unwrap_or(0.0)
                        .total_cmp(&rows[j].measured_rps().unwrap_or(0.0))
                });
            let note = (pb.is_some() && mb.is_some()).then(|| {
                "No subject has both a Round 23 and a measured figure here, so each side's ratios are against its own fastest subject.".to_string()
            });
            (pb, mb, note)
        }
    };
    let published_base = pb.and_then(|k| rows[k].published_rps);
    let measured_base = mb.and_then(|k| rows[k].measured_rps());
    for (i, row) in rows.iter_mut().enumerate() {
        row.published_ratio = match (row.published_rps, published_base) {
            (Some(p), Some(b)) if b > 0.0 => Some(p / b),
            _ => None,
        };
        row.measured_ratio = match (row.measured_rps(), measured_base) {
            (Some(m), Some(b)) if b > 0.0 => Some(m / b),
            _ => None,
        };
        row.baseline = Some(i) == mb && Some(i) == pb;
    }
    let (tau_b, common) = order_agreement(&rows);
    let mut table = RatioTable {
        scenario: TFB_SCENARIO.to_string(),
        rows,
        published_baseline: pb,
        measured_baseline: mb,
        baseline_note,
        reversals: Vec::new(),
    };
    mark_reversals(&mut table);
    TfbSection {
        test,
        tau_b,
        common,
        unserved: Vec::new(),
        table,
    }
}

/// A cell's row: its subject's Round 23 framework and figure (with firmness and source), or why
/// there is none.
fn row(round23: &Round23, test: TfbTest, c: &Cell) -> StudyRow {
    let mapped = round23.subject(&c.subject);
    let figure = mapped.and_then(|m| m.figure(test));
    let ok = c.status == CellStatus::Ok;
    let note = match figure {
        Some(f) => {
            let mut n = format!("Round 23 firmness {}; {}", f.firmness.name(), f.source);
            if let Some(entries) = mapped.and_then(|m| m.entries.as_deref()) {
                n.push_str(&format!("; entries: {entries}"));
            }
            if let Some(extra) = &f.note {
                n.push_str(&format!("; {extra}"));
            }
            n
        }
        None => round23.why_no_figure(&c.subject, test),
    };
    StudyRow {
        system: mapped
            .and_then(|m| m.framework.clone())
            .unwrap_or_else(|| "no TFB entry".into()),
        subject: Some(c.subject.clone()),
        variant: None,
        published_rps: figure.map(|f| f.rps),
        published_ratio: None,
        published_latency: None,
        published_resources: None,
        measured: ok.then_some(c.rps),
        measured_ratio: None,
        measured_interval: None,
        not_measured: (!ok).then(|| {
            format!(
                "{}: {}",
                status_word(c.status),
                first_line(c.reason.as_deref().unwrap_or("no reason recorded"))
            )
        }),
        flags: if ok { c.flags.clone() } else { Vec::new() },
        reversed: false,
        baseline: false,
        note: Some(note),
    }
}

/// The paragraph every `study tfb` report carries: why Round 23's absolute figures and ours
/// cannot agree, only their ratios and orders.
pub fn why_absolutes_differ(round23: &Round23) -> String {
    format!(
        "Absolute figures cannot agree and are not compared: Round {} ran on {} (source: {}), \
        with the database and the load generator on machines of their own; here each server gets \
        the cores this run's placement gives it (one core on a two-core machine), beside the \
        generator and the database on the same host. Fifty-six cores against one, a 40 GbE link \
        against loopback, a database on its own machine against one sharing this host: req/s \
        here are a small and unequal fraction of Round 23's, so only the ratios between \
        subjects, and their order, can be set side by side.",
        round23.round, round23.hardware, round23.hardware_source
    )
}

/// The sentence under a type's table naming who does not serve it and why (`None` when all do).
pub fn unserved_text(s: &TfbSection) -> Option<String> {
    if s.unserved.is_empty() {
        return None;
    }
    let each: Vec<String> = s
        .unserved
        .iter()
        .map(|(id, why)| format!("{id} ({why})"))
        .collect();
    Some(format!(
        "Not served here (each subject.toml says why): {}.",
        each.join("; ")
    ))
}

/// Kendall's tau-b between the published and the measured ratios, and over how many rows.
fn order_agreement(rows: &[StudyRow]) -> (Option<f64>, usize) {
    let (published, measured): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter_map(|r| Some((r.published_ratio?, r.measured_ratio?)))
        .unzip();
    (kendall_tau_b(&published, &measured), published.len())
}

/// `tau-b = 0.67 over 4 subjects`, or why there is none.
pub fn tau_text(s: &TfbSection) -> String {
    match s.tau_b {
        Some(t) => format!(
            "Kendall's tau-b between Round 23's order and ours: {t:.2} over {} subjects.",
            s.common
        ),
        None => format!(
            "Kendall's tau-b: none, {} subject(s) with both figures (it needs two).",
            s.common
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::cell;

    fn r23() -> Round23 {
        round23().unwrap()
    }

    #[test]
    fn ratios_share_one_baseline_and_reversals_and_tau_are_found() {
        // Round 23 json: hyper 2,885,610 > axum 2,709,795 > fastify 844,960; actix none.
        let cells = vec![
            cell("rust-axum", "json", "all-cores", 100_000.0),
            cell("rust-hyper", "json", "all-cores", 80_000.0),
            cell("node-fastify", "json", "all-cores", 20_000.0),
            cell("rust-actix", "json", "all-cores", 120_000.0),
            cell("rust-axum", "db", "all-cores", 1.0),
        ];
        let s = section(&r23(), TfbTest::Json, &cells);
        let t = &s.table;
        let names: Vec<&str> = t
            .rows
            .iter()
            .map(|r| r.subject.as_deref().unwrap())
            .collect();
        assert_eq!(
            names,
            ["rust-hyper", "rust-axum", "node-fastify", "rust-actix"]
        );
        // hyper is the fastest common one in Round 23: the baseline on both sides.
        assert!(t.rows[0].baseline);
        assert_eq!(t.rows[0].published_ratio, Some(1.0));
        assert_eq!(t.rows[0].measured_ratio, Some(1.0));
        assert!((t.rows[1].published_ratio.unwrap() - 2_709_795.0 / 2_885_610.0).abs() < 1e-12);
        assert_eq!(t.rows[1].measured_ratio, Some(1.25));
        // actix has no Round 23 figure, says why, and still gets a measured ratio.
        assert_eq!(t.rows[3].published_ratio, None);
        assert_eq!(t.rows[3].measured_ratio, Some(1.5));
        assert!(
            t.rows[3]
                .note
                .as_deref()
                .unwrap()
                .contains("Problem starting actix")
        );
        // hyper ⇅ axum reversed; the other two pairs agree: (2 - 1) / 3.
        assert_eq!(t.reversals.len(), 1);
        assert!(t.rows[0].reversed && t.rows[1].reversed && !t.rows[2].reversed);
        assert_eq!(s.common, 3);
        assert!((s.tau_b.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert!(tau_text(&s).contains("0.33 over 3 subjects"));
        assert!(
            t.rows[0]
                .note
                .as_deref()
                .unwrap()
                .contains("firmness F1; https://")
        );
    }

    #[test]
    fn plaintext_rows_are_the_pipelined_cells_only() {
        let mut pipelined = cell("rust-hyper", "plaintext", "all-cores", 400_000.0);
        pipelined.workload = "plaintext-pipelined-16".into();
        let cells = vec![
            cell("rust-hyper", "plaintext", "all-cores", 50_000.0),
            pipelined,
        ];
        let s = section(&r23(), TfbTest::Plaintext, &cells);
        assert_eq!(s.table.rows.len(), 1);
        assert_eq!(s.table.rows[0].measured_rps(), Some(400_000.0));
        assert_eq!(s.tau_b, None);
        assert!(tau_text(&s).contains("it needs two"));
    }

    #[test]
    fn without_a_common_subject_each_side_has_its_own_baseline_and_says_so() {
        let mut failed = cell("rust-axum", "db", "all-cores", 0.0);
        failed.status = CellStatus::Failed;
        failed.reason = Some("verification failed: queries".into());
        let cells = vec![
            failed,
            cell("rust-hyper", "db", "all-cores", 10_000.0),
            cell("rust-reference", "db", "all-cores", 20_000.0),
        ];
        let s = section(&r23(), TfbTest::Db, &cells);
        assert!(
            s.table
                .baseline_note
                .as_deref()
                .unwrap()
                .contains("own fastest")
        );
        let axum = &s.table.rows[0];
        assert_eq!(axum.published_ratio, Some(1.0));
        assert!(
            axum.not_measured
                .as_deref()
                .unwrap()
                .contains("verification failed")
        );
        assert!(s.table.rows.iter().all(|r| !r.baseline));
        assert_eq!(s.tau_b, None);
        let reference = &s.table.rows[1];
        assert_eq!(reference.subject.as_deref(), Some("rust-reference"));
        assert_eq!(reference.measured_ratio, Some(1.0));
        assert!(
            reference
                .note
                .as_deref()
                .unwrap()
                .contains("restbench's own ceiling")
        );
        assert!(why_absolutes_differ(&r23()).contains("56 logical cores"));
    }
}
