//! Two runs side by side (`restbench compare A B`): per cell, B's figures as ratios of A's and a
//! verdict that takes the measured noise into account.
//!
//! Per cell, the ratio's 95 % interval comes from the two runs' per-round figures (the repeats
//! that count: not contended), Welch on logs ([`unpaired_ratio`]); the verdict needs it to clear
//! 1 by more than both runs' noise ([`crate::noise::run_noise`], combined). With one repeat on a
//! side there is no interval and no verdict. Documents that kept no repeats fall back to the
//! older rule on their medians' intervals ([`verdict`]).
//!
//! This module computes the model's [`Comparison`] document; `text::comparison` and
//! `markdown::comparison` render it.

use std::collections::HashMap;

use restbench_model::statistics::interval::unpaired_ratio;
use restbench_model::{Cell, CellStatus, RunResults};

use crate::cells::{cell_labels, first_line, open_loop_only, single_repeat, status_word};
use crate::conformance::nonconformant;
pub use crate::noise::{MIN_CHANGE, Verdict, beyond_noise, verdict};
use crate::noise::{combined, counting_cpu_us_per_req, counting_rps, interval_verdict, run_noise};
pub use restbench_model::documents::comparison::{
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
    // B's cells by subject × workload × scenario × protocol, in B's order: each cell of A is
    // looked for among its own key's only, so the pairing is linear in the cells.
    let key = |c: &Cell| {
        (
            c.subject.clone(),
            c.workload.clone(),
            c.scenario.clone(),
            c.protocol.clone(),
        )
    };
    let mut b_by_key: HashMap<_, Vec<usize>> = HashMap::new();
    for (j, cb) in b.cells.iter().enumerate() {
        b_by_key.entry(key(cb)).or_default().push(j);
    }
    // Each group's noise, once.
    let mut noise_of: HashMap<(bool, String, String, String), Option<f64>> = HashMap::new();
    let mut noise = |r: &RunResults, side: bool, c: &Cell| {
        *noise_of
            .entry((
                side,
                c.workload.clone(),
                c.scenario.clone(),
                c.protocol.clone(),
            ))
            .or_insert_with(|| run_noise(r, &c.workload, &c.scenario, &c.protocol))
    };
    // (a side is nonconformant, the pair): such pairs are listed after the others.
    let mut cells: Vec<(bool, ComparedCell)> = Vec::new();
    let mut only_in_a = Vec::new();
    for (i, ca) in a.cells.iter().enumerate() {
        let candidates = b_by_key.get_mut(&key(ca));
        let found = candidates.and_then(|js| {
            let pick = js
                .iter()
                .position(|&j| b.cells[j].settings == ca.settings)
                .or(if js.is_empty() { None } else { Some(0) })?;
            // Taken: the cells of B not yet paired stay in B's order.
            Some(js.remove(pick))
        });
        match found {
            Some(j) => {
                used_b[j] = true;
                let mut key = keys_a[i].clone();
                if key.variant.is_none() {
                    key.variant = keys_b[j].variant.clone();
                }
                let cb = &b.cells[j];
                let apart = nonconformant(ca) || nonconformant(cb);
                let noise = combined(noise(a, false, ca), noise(b, true, cb));
                cells.push((apart, compare_cell(key, ca, cb, noise)));
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
    let mut cells: Vec<ComparedCell> = cells.into_iter().map(|(_, c)| c).collect();
    correct_for_multiplicity(&mut cells);
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

/// Holm's correction over the cells' req/s verdicts: a comparison draws one per cell, so two
/// identical runs of a whole grid say "same" everywhere. A verdict whose interval does not
/// survive the correction is "same".
fn correct_for_multiplicity(cells: &mut [ComparedCell]) {
    let judged: Vec<(usize, restbench_model::Interval)> = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c.verdict, Verdict::Faster | Verdict::Slower))
        .filter_map(|(k, c)| Some((k, c.rps_interval?)))
        .collect();
    let all: Vec<restbench_model::Interval> = cells.iter().filter_map(|c| c.rps_interval).collect();
    let p: Vec<f64> = all
        .iter()
        .map(restbench_model::statistics::multiplicity::p_value)
        .collect();
    let kept = restbench_model::statistics::multiplicity::holm(&p);
    for (k, i) in judged {
        let at = all.iter().position(|x| *x == i);
        if at.is_some_and(|a| !kept[a]) {
            cells[k].verdict = Verdict::Same;
        }
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

fn compare_cell(key: CellKey, a: &Cell, b: &Cell, noise: Option<f64>) -> ComparedCell {
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
        rps_interval: None,
        cpu_us_per_req_interval: None,
        noise: None,
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
    let mut notes: Vec<String> = Vec::new();
    judge(&mut out, a, b, noise, &mut notes);
    for (side, c) in [("A", a), ("B", b)] {
        if !c.flags.is_empty() {
            notes.push(format!("{side}: {}", c.flags.join(", ")));
        }
    }
    if !notes.is_empty() {
        out.note = Some(notes.join("; "));
    }
    out
}

/// The verdict of two measured cells: from the interval of their per-round figures when both
/// kept repeats, else (documents without repeats) from their medians' intervals; none with one
/// repeat on a side.
fn judge(out: &mut ComparedCell, a: &Cell, b: &Cell, noise: Option<f64>, notes: &mut Vec<String>) {
    let kept_repeats = !a.repeats.is_empty() && !b.repeats.is_empty();
    if !kept_repeats && !single_repeat(a) && !single_repeat(b) {
        out.verdict = verdict(&a.rps, &b.rps);
        return;
    }
    let (ra, rb) = (counting_rps(a), counting_rps(b));
    if ra.len() < 2 || rb.len() < 2 {
        out.verdict = Verdict::NoInterval;
        let side = |c: &Cell, n: usize| {
            let count = if n == 1 { "one" } else { "no" };
            if c.repeats.len() > n {
                format!("{count} counting repeat (the others contended)")
            } else {
                format!("{count} repeat")
            }
        };
        let mut sides = Vec::new();
        if ra.len() < 2 {
            sides.push(format!("{} in A", side(a, ra.len())));
        }
        if rb.len() < 2 {
            sides.push(format!("{} in B", side(b, rb.len())));
        }
        notes.push(sides.join(", "));
        return;
    }
    out.rps_interval = unpaired_ratio(&ra, &rb);
    out.cpu_us_per_req_interval =
        unpaired_ratio(&counting_cpu_us_per_req(a), &counting_cpu_us_per_req(b));
    out.noise = noise;
    out.verdict = match &out.rps_interval {
        Some(i) => interval_verdict(i, noise.unwrap_or(0.0)),
        None => Verdict::NoInterval,
    };
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
            schema_version: <RunResults as restbench_model::Document>::SCHEMA_VERSION,
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
            unserved: Vec::new(),
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
            Verdict::Same
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
        assert!(verdicts.contains(&"same") && verdicts.contains(&"faster"));
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
mod interval_tests {
    use super::tests::run;
    use super::*;
    use crate::test_support::rounds_cell;
    use restbench_model::{GroupRounds, Round};

    const STEADY: [f64; 5] = [50_000.0, 50_400.0, 49_700.0, 50_100.0, 49_900.0];

    fn scaled(by: f64) -> Vec<f64> {
        STEADY.iter().map(|v| v * by).collect()
    }

    /// A run of rounds whose generator ceiling per round is `ceilings`.
    fn rounds_run(cells: Vec<Cell>, ceilings: &[f64]) -> RunResults {
        let mut r = run(cells);
        r.groups.push(GroupRounds {
            workload: "plaintext".into(),
            scenario: "single-thread".into(),
            protocol: "h1".into(),
            rounds: ceilings
                .iter()
                .map(|c| Round {
                    order: vec!["a".into(), "b".into()],
                    ceiling_rps: Some(*c),
                    contended: Vec::new(),
                    ceiling_contended: None,
                })
                .collect(),
            settled: true,
            pairs: Vec::new(),
            ranking: Vec::new(),
            efficiency: Vec::new(),
            reference: None,
            method_note: None,
            counted: Vec::new(),
            excluded: Vec::new(),
        });
        r
    }

    #[test]
    fn identical_runs_are_the_same_everywhere() {
        let cells = vec![
            rounds_cell("a", "plaintext", "single-thread", &STEADY),
            rounds_cell("b", "plaintext", "single-thread", &scaled(2.0)),
        ];
        let ceilings = [200_000.0, 201_000.0, 199_000.0, 200_500.0, 199_500.0];
        let a = rounds_run(cells.clone(), &ceilings);
        let c = compare(&a, &a.clone());
        assert!(c.cells.iter().all(|x| x.verdict == Verdict::Same), "{c:?}");
        for x in &c.cells {
            let i = x.rps_interval.unwrap();
            assert!(i.contains(1.0) && (i.estimate - 1.0).abs() < 1e-12, "{i:?}");
            assert!(x.cpu_us_per_req_interval.unwrap().contains(1.0));
            assert!(x.noise.unwrap() > 0.0, "the ceilings' spread is the noise");
        }
        assert_eq!(
            crate::lines::comparison_summary(&c),
            "2 cells in both runs: 0 faster, 0 slower, 2 same, 0 without interval."
        );
    }

    #[test]
    fn a_doubled_cell_with_tight_intervals_is_faster_and_noise_can_veto() {
        let a = run(vec![rounds_cell(
            "a",
            "plaintext",
            "single-thread",
            &STEADY,
        )]);
        let b = run(vec![rounds_cell(
            "a",
            "plaintext",
            "single-thread",
            &scaled(2.0),
        )]);
        let c = compare(&a, &b);
        let x = &c.cells[0];
        assert_eq!(x.verdict, Verdict::Faster, "{x:?}");
        let i = x.rps_interval.unwrap();
        assert!(i.low > 1.9 && i.high < 2.1, "{i:?}");
        assert_eq!(x.noise, None, "no ceilings, no drift: the interval alone");
        assert_eq!(compare(&b, &a).cells[0].verdict, Verdict::Slower);
        // The JSON carries the intervals; the old fields are still there.
        let json = serde_json::to_value(&c).unwrap();
        assert!(json["cells"][0]["rps_interval"]["low"].is_number());
        assert!(json["cells"][0]["cpu_us_per_req_interval"]["high"].is_number());
        // A run whose generator ceiling moved 150 % from start to end: 2× is within its noise.
        let mut drifting = a.clone();
        drifting.environment.loadgen_ceiling_start_rps = Some(100_000.0);
        drifting.environment.loadgen_ceiling_end_rps = Some(250_000.0);
        let c = compare(&drifting, &b);
        assert_eq!(c.cells[0].verdict, Verdict::Same);
        assert!((c.cells[0].noise.unwrap() - 1.5).abs() < 1e-9);
        // A change inside the interval (+0.3 % on a ±0.8 % interval) is the same.
        let near = run(vec![rounds_cell(
            "a",
            "plaintext",
            "single-thread",
            &scaled(1.003),
        )]);
        assert_eq!(compare(&a, &near).cells[0].verdict, Verdict::Same);
    }

    #[test]
    fn one_repeat_or_contended_rounds_give_no_interval() {
        let a = run(vec![rounds_cell(
            "a",
            "plaintext",
            "single-thread",
            &STEADY,
        )]);
        let once = run(vec![rounds_cell(
            "a",
            "plaintext",
            "single-thread",
            &[100_000.0],
        )]);
        let c = compare(&a, &once);
        let x = &c.cells[0];
        assert_eq!(x.verdict, Verdict::NoInterval);
        assert!(x.rps_interval.is_none());
        assert_eq!(x.note.as_deref(), Some("one repeat in B"));
        assert_eq!(x.rps_ratio, Some(2.0), "the ratio is still shown");
        assert!(
            crate::lines::comparison_summary(&c).ends_with("0 same, 1 without interval."),
            "{}",
            crate::lines::comparison_summary(&c)
        );
        // Every round but one contended: the same.
        let mut contended = a.clone();
        for r in contended.cells[0].repeats.iter_mut().skip(1) {
            r.saturation = Some(restbench_model::Saturation::Contended);
        }
        let x = &compare(&contended, &a).cells[0];
        assert_eq!(x.verdict, Verdict::NoInterval);
        assert!(
            x.note.as_deref().unwrap().contains("the others contended"),
            "{x:?}"
        );
        // Old documents spelled it "within noise": they read as the same.
        let old: Verdict = serde_json::from_str("\"within noise\"").unwrap();
        assert_eq!(old, Verdict::Same);
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
