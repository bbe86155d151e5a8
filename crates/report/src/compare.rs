//! Two runs side by side (`restbench compare A B`): per cell, B's figures as ratios of A's and a
//! verdict that takes the measured noise into account.
//!
//! This module computes the model's [`Comparison`] document; `text::comparison` and
//! `markdown::comparison` render it.

use restbench_model::{Cell, CellStatus, RunResults};

use crate::cells::{cell_labels, first_line, open_loop_only, status_word};
use crate::conformance::nonconformant;
pub use crate::noise::{MIN_CHANGE, Verdict, beyond_noise, verdict};
pub use restbench_model::comparison::{
    CellKey, ComparedCapacity, ComparedCell, ComparedRate, Comparison, RunLabel,
};

/// Where a run came from, for the heading.
fn run_label(r: &RunResults) -> RunLabel {
    RunLabel {
        kind: r.kind.clone(),
        started_at: r.started_at.clone(),
        cpu_model: r.environment.cpu_model.clone(),
        cores: r.environment.cores,
        hostname: r.environment.hostname.clone(),
    }
}

/// Matches the cells of `a` and `b` by subject, workload, scenario and protocol (and by settings when a key
/// repeats) and compares each pair, in A's order but with the pairs where either side is
/// `nonconformant` last.
pub fn compare(a: &RunResults, b: &RunResults) -> Comparison {
    let keys_a = keys(&a.cells);
    let keys_b = keys(&b.cells);
    let mut used_b = vec![false; b.cells.len()];
    // (a side is nonconformant, the pair): such pairs are listed after the others.
    let mut cells: Vec<(bool, ComparedCell)> = Vec::new();
    let mut only_in_a = Vec::new();
    for (i, ca) in a.cells.iter().enumerate() {
        let same_key = |j: usize| {
            let cb = &b.cells[j];
            !used_b[j]
                && cb.subject == ca.subject
                && cb.workload == ca.workload
                && cb.scenario == ca.scenario
                && cb.protocol == ca.protocol
        };
        let found = (0..b.cells.len())
            .find(|&j| same_key(j) && b.cells[j].settings == ca.settings)
            .or_else(|| (0..b.cells.len()).find(|&j| same_key(j)));
        match found {
            Some(j) => {
                used_b[j] = true;
                let mut key = keys_a[i].clone();
                if key.variant.is_none() {
                    key.variant = keys_b[j].variant.clone();
                }
                let apart = nonconformant(ca) || nonconformant(&b.cells[j]);
                cells.push((apart, compare_cell(key, ca, &b.cells[j])));
            }
            None => only_in_a.push(keys_a[i].clone()),
        }
    }
    let only_in_b = keys_b
        .iter()
        .zip(&used_b)
        .filter(|(_, used)| !**used)
        .map(|(k, _)| k.clone())
        .collect();
    cells.sort_by_key(|(apart, _)| *apart);
    let cells = cells.into_iter().map(|(_, c)| c).collect();
    let (la, lb) = (run_label(a), run_label(b));
    Comparison {
        different_machines: la.cpu_model != lb.cpu_model || la.cores != lb.cores,
        a: la,
        b: lb,
        cells,
        only_in_a,
        only_in_b,
    }
}

/// Keys of a run's cells, with a settings label where subject × workload × scenario repeats.
fn keys(cells: &[Cell]) -> Vec<CellKey> {
    let labels = cell_labels(&cells.iter().collect::<Vec<_>>());
    cells
        .iter()
        .zip(labels)
        .map(|(c, l)| CellKey {
            subject: c.subject.clone(),
            workload: c.workload.clone(),
            scenario: c.scenario.clone(),
            protocol: c.protocol.clone(),
            variant: l.variant,
        })
        .collect()
}

fn compare_cell(key: CellKey, a: &Cell, b: &Cell) -> ComparedCell {
    let ok_a = a.status == CellStatus::Ok;
    let ok_b = b.status == CellStatus::Ok;
    let div = |x: f64, y: f64| (y > 0.0 && x.is_finite()).then(|| x / y);
    let mut out = ComparedCell {
        key,
        a_rps: ok_a.then_some(a.rps.median),
        b_rps: ok_b.then_some(b.rps.median),
        rps_ratio: None,
        a_p99_us: ok_a.then_some(a.latency_us.p99),
        b_p99_us: ok_b.then_some(b.latency_us.p99),
        p99_ratio: None,
        a_cpu_us_per_req: (ok_a && a.server.cpu_us_per_req > 0.0)
            .then_some(a.server.cpu_us_per_req),
        b_cpu_us_per_req: (ok_b && b.server.cpu_us_per_req > 0.0)
            .then_some(b.server.cpu_us_per_req),
        cpu_us_per_req_ratio: None,
        verdict: Verdict::NotComparable,
        note: None,
        capacity: None,
        at_rate: Vec::new(),
    };
    if !(ok_a && ok_b) {
        let why = |side: &str, c: &Cell| {
            format!(
                "{} in {side}: {}",
                status_word(c.status),
                first_line(c.reason.as_deref().unwrap_or("no reason recorded"))
            )
        };
        let mut notes = Vec::new();
        if !ok_a {
            notes.push(why("A", a));
        }
        if !ok_b {
            notes.push(why("B", b));
        }
        out.note = Some(notes.join("; "));
        return out;
    }
    out.capacity = compare_capacity(a, b);
    out.at_rate = compare_rates(a, b);
    if open_loop_only(a) || open_loop_only(b) {
        out.a_rps = None;
        out.b_rps = None;
        out.a_p99_us = None;
        out.b_p99_us = None;
        out.note = Some("measured open loop only in one run: see capacity and equal load".into());
        return out;
    }
    out.rps_ratio = div(b.rps.median, a.rps.median);
    out.p99_ratio = div(b.latency_us.p99 as f64, a.latency_us.p99 as f64);
    out.cpu_us_per_req_ratio = match (out.b_cpu_us_per_req, out.a_cpu_us_per_req) {
        (Some(x), Some(y)) => div(x, y),
        _ => None,
    };
    out.verdict = verdict(&a.rps, &b.rps);
    let mut flags: Vec<String> = Vec::new();
    for (side, c) in [("A", a), ("B", b)] {
        if !c.flags.is_empty() {
            flags.push(format!("{side}: {}", c.flags.join(", ")));
        }
    }
    if !flags.is_empty() {
        out.note = Some(flags.join("; "));
    }
    out
}

fn compare_capacity(a: &Cell, b: &Cell) -> Option<ComparedCapacity> {
    let (ca, cb) = (a.capacity.as_ref()?, b.capacity.as_ref()?);
    let same_slo = ca.slo == cb.slo;
    let both_server = ca.bound_by.is_server() && cb.bound_by.is_server();
    let ratio = match (ca.rate, cb.rate) {
        (Some(x), Some(y)) if same_slo && both_server && x > 0.0 => Some(y / x),
        _ => None,
    };
    let note = if !same_slo {
        Some(format!("different SLOs: {} and {}", ca.slo, cb.slo))
    } else if !both_server {
        Some("a floor (bound by the generator or the search) on one side: no ratio".into())
    } else {
        None
    };
    Some(ComparedCapacity {
        slo_a: ca.slo.to_string(),
        slo_b: cb.slo.to_string(),
        a_rate: ca.rate,
        b_rate: cb.rate,
        a_bound_by: ca.bound_by,
        b_bound_by: cb.bound_by,
        ratio,
        note,
    })
}

fn compare_rates(a: &Cell, b: &Cell) -> Vec<ComparedRate> {
    a.at_rate
        .iter()
        .filter_map(|sa| {
            let sb = b.at_rate.iter().find(|s| s.target_rps == sa.target_rps)?;
            let cpu = |s: &restbench_model::RateStep| {
                s.server.map(|v| v.cpu_us_per_req).filter(|v| *v > 0.0)
            };
            let (ua, ub) = (cpu(sa), cpu(sb));
            Some(ComparedRate {
                target: sa.target_rps,
                a_achieved: sa.achieved_rps,
                b_achieved: sb.achieved_rps,
                a_held: sa.pass,
                b_held: sb.pass,
                a_cpu_us_per_req: ua,
                b_cpu_us_per_req: ub,
                cpu_ratio: match (ua, ub) {
                    (Some(x), Some(y)) if sa.pass && sb.pass => Some(y / x),
                    _ => None,
                },
            })
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_support::cell;
    use restbench_model::RpsStats;

    pub(crate) fn run(cells: Vec<Cell>) -> RunResults {
        RunResults {
            schema_version: restbench_model::SCHEMA_VERSION,
            kind: "run".into(),
            started_at: "2026-11-29T00:00:00Z".into(),
            finished_at: None,
            interrupted: false,
            environment: restbench_model::Environment {
                cpu_model: "cpu".into(),
                cores: 4,
                ..Default::default()
            },
            protocol: Default::default(),
            cells,
            study: None,
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// Two runs: a slower cell, two variants listed in the other order, a cell that failed in B,
    /// and one cell only in each run. The renderers' tests use it too.
    #[test]
    fn capacity_and_equal_load_compare_only_like_with_like() {
        use crate::open_loop::tests::with_open_loop;
        use restbench_model::BoundBy;
        let a = run(vec![
            with_open_loop("x", 10_000.0, BoundBy::Server),
            with_open_loop("y", 30_000.0, BoundBy::Server),
        ]);
        let b = run(vec![
            with_open_loop("x", 12_000.0, BoundBy::Server),
            with_open_loop("y", 40_000.0, BoundBy::Generator),
        ]);
        let c = compare(&a, &b);
        let x = c.cells[0].capacity.as_ref().unwrap();
        assert!((x.ratio.unwrap() - 1.2).abs() < 1e-9);
        let y = c.cells[1].capacity.as_ref().unwrap();
        assert_eq!(y.ratio, None, "a floor gives no ratio");
        assert!(y.note.as_deref().unwrap().contains("floor"));
        // x could not hold 20,000/s in either run: no CPU ratio at that rate.
        assert_eq!(c.cells[0].at_rate.len(), 1);
        assert_eq!(c.cells[0].at_rate[0].cpu_ratio, None);
        assert!(c.cells[1].at_rate[0].cpu_ratio.is_some());
        // The JSON carries both (the text and Markdown are in the snapshots).
        let json = serde_json::to_value(&c).unwrap();
        assert!(json["cells"][0]["capacity"]["ratio"].is_number());
    }

    pub(crate) fn sample() -> Comparison {
        let mut failed = cell("node-http", "echo", "all-cores", 0.0);
        failed.status = CellStatus::Failed;
        failed.reason = Some("port in use\nmore".into());
        let mut g1 = cell("go-nethttp", "echo", "one-cpu", 6_000.0);
        g1.settings.insert("GOMAXPROCS".into(), "1".into());
        let mut g4 = cell("go-nethttp", "echo", "one-cpu", 600.0);
        g4.settings.insert("GOMAXPROCS".into(), "4".into());
        let a = run(vec![
            cell("rust-axum", "echo", "all-cores", 100_000.0),
            g1.clone(),
            g4.clone(),
            cell("node-http", "echo", "all-cores", 20_000.0),
            cell("rust-iron", "plaintext", "all-cores", 1.0),
        ]);
        let mut g1b = g1.clone();
        g1b.rps.median = 6_010.0;
        g1b.rps.ci95 = Some([5_990.0, 6_030.0]);
        let mut g4b = g4.clone();
        g4b.rps = RpsStats {
            median: 5_900.0,
            ci95: Some([5_850.0, 5_950.0]),
            ..g4.rps
        };
        // B lists the variants in the other order; they must still pair by settings.
        let b = run(vec![
            g4b,
            g1b,
            cell("rust-axum", "echo", "all-cores", 90_000.0),
            failed,
            cell("rust-hyper", "echo", "all-cores", 1.0),
        ]);
        compare(&a, &b)
    }

    #[test]
    fn cells_are_matched_by_key_and_settings() {
        let c = sample();
        assert!(!c.different_machines);
        assert_eq!(c.cells.len(), 4);
        let find = |s: &str, v: Option<&str>| {
            c.cells
                .iter()
                .find(|x| x.key.subject == s && x.key.variant.as_deref() == v)
                .unwrap()
        };
        assert_eq!(find("rust-axum", None).verdict, Verdict::Slower);
        assert_eq!(find("rust-axum", None).rps_ratio, Some(0.9));
        assert_eq!(
            find("go-nethttp", Some("GOMAXPROCS=1")).verdict,
            Verdict::WithinNoise
        );
        let g = find("go-nethttp", Some("GOMAXPROCS=4"));
        assert_eq!(g.verdict, Verdict::Faster);
        assert!((g.rps_ratio.unwrap() - 5_900.0 / 600.0).abs() < 1e-9);
        let n = find("node-http", None);
        assert_eq!(n.verdict, Verdict::NotComparable);
        assert_eq!(n.note.as_deref(), Some("failed in B: port in use"));
        assert_eq!(c.only_in_a.len(), 1);
        assert_eq!(c.only_in_a[0].subject, "rust-iron");
        assert_eq!(c.only_in_b[0].subject, "rust-hyper");

        let json = serde_json::to_value(&c).unwrap();
        let verdicts: Vec<&str> = json["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["verdict"].as_str().unwrap())
            .collect();
        assert!(verdicts.contains(&"within noise") && verdicts.contains(&"faster"));
        assert_eq!(json["cells"][0]["subject"], "rust-axum");
    }

    #[test]
    fn a_pair_with_a_nonconformant_side_is_listed_last_and_said_so() {
        let flagged = |mut c: Cell| {
            c.flags.push("nonconformant".into());
            c
        };
        let a = run(vec![
            flagged(cell("cheat-http", "plaintext", "all-cores", 900_000.0)),
            cell("rust-axum", "plaintext", "all-cores", 300_000.0),
        ]);
        let b = run(vec![
            cell("cheat-http", "plaintext", "all-cores", 950_000.0),
            cell("rust-axum", "plaintext", "all-cores", 310_000.0),
        ]);
        let c = compare(&a, &b);
        let order: Vec<&str> = c.cells.iter().map(|x| x.key.subject.as_str()).collect();
        assert_eq!(order, ["rust-axum", "cheat-http"]);
        let summary = crate::lines::comparison_summary(&c);
        assert!(
            summary.contains("1 with a nonconformant side listed last"),
            "{summary}"
        );
    }
}

#[cfg(test)]
mod protocol_tests {
    use super::tests::run;
    use super::*;
    use crate::test_support::cell;

    #[test]
    fn cells_pair_by_protocol_and_h2c_is_labelled() {
        let h1 = cell("rust-hyper", "plaintext", "single-thread", 100.0);
        let mut h2c = cell("rust-hyper", "plaintext", "single-thread", 300.0);
        h2c.protocol = "h2c".into();
        let mut h2c_b = h2c.clone();
        h2c_b.rps.median = 330.0;
        // B lists h2c first: it must still pair with A's h2c cell, not with h1.
        let c = compare(&run(vec![h1.clone(), h2c]), &run(vec![h2c_b, h1]));
        assert_eq!(c.cells.len(), 2);
        assert!(c.only_in_a.is_empty() && c.only_in_b.is_empty());
        let h2 = c.cells.iter().find(|x| x.key.protocol == "h2c").unwrap();
        assert_eq!(h2.rps_ratio, Some(1.1));
        assert_eq!(crate::cells::key_label(&h2.key), "rust-hyper (h2c)");
        assert_eq!(h2.key.variant, None);
        let json = serde_json::to_value(&c).unwrap();
        let protocols: Vec<_> = json["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.get("protocol").cloned())
            .collect();
        // h1 is left out of the JSON, as before protocols existed.
        assert!(protocols.contains(&None) && protocols.contains(&Some("h2c".into())));
        let back: Comparison = serde_json::from_value(json).unwrap();
        assert!(back.cells.iter().any(|x| x.key.protocol == "h1"));
    }
}
