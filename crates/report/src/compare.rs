//! Two runs side by side (`restbench compare A B`): per cell, B's figures as ratios of A's and a
//! verdict that takes the measured noise into account.

use std::collections::BTreeMap;
use std::fmt::Write;

use restbench_model::{Cell, CellStatus, RpsStats, RunResults};
use serde::{Deserialize, Serialize};

use crate::units::{ratio, thousands};

/// The smallest change in req/s that counts as real when there are no confidence intervals.
pub const MIN_CHANGE: f64 = 0.05;

/// What a change in throughput amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// B serves more requests per second than A, beyond the noise.
    #[serde(rename = "faster")]
    Faster,
    /// B serves fewer requests per second than A, beyond the noise.
    #[serde(rename = "slower")]
    Slower,
    #[serde(rename = "within noise")]
    WithinNoise,
    /// One side failed or was skipped.
    #[serde(rename = "not comparable")]
    NotComparable,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
            Verdict::NotComparable => "not comparable",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// True when two throughput measurements differ by more than their noise: their 95 % confidence
/// intervals do not overlap when both have one; otherwise the relative change exceeds
/// max(2 × cv of either, [`MIN_CHANGE`]).
pub fn beyond_noise(a: &RpsStats, b: &RpsStats) -> bool {
    if let (Some(ca), Some(cb)) = (a.ci95, b.ci95) {
        return ca[1] < cb[0] || cb[1] < ca[0];
    }
    if a.median <= 0.0 || b.median <= 0.0 {
        return a.median != b.median;
    }
    let change = (b.median / a.median - 1.0).abs();
    change > (2.0 * a.cv).max(2.0 * b.cv).max(MIN_CHANGE)
}

/// The verdict for B against A.
pub fn verdict(a: &RpsStats, b: &RpsStats) -> Verdict {
    if !beyond_noise(a, b) {
        Verdict::WithinNoise
    } else if b.median > a.median {
        Verdict::Faster
    } else {
        Verdict::Slower
    }
}

/// Which cell: subject × workload × scenario, and the settings label when one run holds the same
/// key more than once (study variants such as `GOMAXPROCS=1`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    pub subject: String,
    pub workload: String,
    pub scenario: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

impl CellKey {
    fn label(&self) -> String {
        match &self.variant {
            Some(v) => format!("{} [{v}]", self.subject),
            None => self.subject.clone(),
        }
    }
}

/// One cell measured in both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparedCell {
    #[serde(flatten)]
    pub key: CellKey,
    pub a_rps: Option<f64>,
    pub b_rps: Option<f64>,
    /// B's median req/s ÷ A's.
    pub rps_ratio: Option<f64>,
    pub a_p99_us: Option<u64>,
    pub b_p99_us: Option<u64>,
    /// B's p99 latency ÷ A's (below 1 is better).
    pub p99_ratio: Option<f64>,
    pub a_cpu_us_per_req: Option<f64>,
    pub b_cpu_us_per_req: Option<f64>,
    /// B's server CPU µs per request ÷ A's (below 1 is better).
    pub cpu_us_per_req_ratio: Option<f64>,
    pub verdict: Verdict,
    /// Why the cell is not comparable, or flags that weaken the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Where a run came from, for the heading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunLabel {
    pub kind: String,
    pub started_at: String,
    pub cpu_model: String,
    pub cores: u32,
    pub hostname: String,
}

impl RunLabel {
    fn of(r: &RunResults) -> Self {
        Self {
            kind: r.kind.clone(),
            started_at: r.started_at.clone(),
            cpu_model: r.environment.cpu_model.clone(),
            cores: r.environment.cores,
            hostname: r.environment.hostname.clone(),
        }
    }
}

/// The comparison of run B against run A.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub a: RunLabel,
    pub b: RunLabel,
    /// True when the two runs ran on different machines (CPU model or core count differ).
    pub different_machines: bool,
    pub cells: Vec<ComparedCell>,
    pub only_in_a: Vec<CellKey>,
    pub only_in_b: Vec<CellKey>,
}

/// Matches the cells of `a` and `b` by subject, workload and scenario (and by settings when a key
/// repeats) and compares each pair.
pub fn compare(a: &RunResults, b: &RunResults) -> Comparison {
    let keys_a = keys(&a.cells);
    let keys_b = keys(&b.cells);
    let mut used_b = vec![false; b.cells.len()];
    let mut cells = Vec::new();
    let mut only_in_a = Vec::new();
    for (i, ca) in a.cells.iter().enumerate() {
        let same_key = |j: usize| {
            let cb = &b.cells[j];
            !used_b[j]
                && cb.subject == ca.subject
                && cb.workload == ca.workload
                && cb.scenario == ca.scenario
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
                cells.push(compare_cell(key, ca, &b.cells[j]));
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
    let (la, lb) = (RunLabel::of(a), RunLabel::of(b));
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
    let labels = crate::cell_labels(&cells.iter().collect::<Vec<_>>());
    cells
        .iter()
        .zip(labels)
        .map(|(c, l)| CellKey {
            subject: c.subject.clone(),
            workload: c.workload.clone(),
            scenario: c.scenario.clone(),
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
    };
    if !(ok_a && ok_b) {
        let why = |side: &str, c: &Cell| {
            let status = if c.status == CellStatus::Failed {
                "failed"
            } else {
                "skipped"
            };
            format!(
                "{status} in {side}: {}",
                crate::first_line(c.reason.as_deref().unwrap_or("no reason recorded"))
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

impl Comparison {
    /// Verdict counts, for a one-line summary.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut m = BTreeMap::new();
        for c in &self.cells {
            *m.entry(c.verdict.as_str()).or_insert(0) += 1;
        }
        m
    }

    fn summary(&self) -> String {
        let counts = self.counts();
        let parts: Vec<String> = [
            Verdict::Faster,
            Verdict::Slower,
            Verdict::WithinNoise,
            Verdict::NotComparable,
        ]
        .iter()
        .filter_map(|v| counts.get(v.as_str()).map(|n| format!("{n} {v}")))
        .collect();
        format!(
            "{} cells in both runs: {}.",
            self.cells.len(),
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            }
        )
    }

    fn rows(&self) -> Vec<[String; 9]> {
        self.cells
            .iter()
            .map(|c| {
                let opt = |v: Option<f64>, f: fn(f64) -> String| v.map_or("–".to_string(), f);
                [
                    c.key.label(),
                    c.key.workload.clone(),
                    c.key.scenario.clone(),
                    opt(c.a_rps, thousands),
                    opt(c.b_rps, thousands),
                    opt(c.rps_ratio, ratio),
                    opt(c.p99_ratio, ratio),
                    opt(c.cpu_us_per_req_ratio, ratio),
                    c.verdict.to_string(),
                ]
            })
            .collect()
    }

    fn heading_lines(&self) -> Vec<String> {
        let l = |x: &RunLabel| {
            format!(
                "{} started {} on {} ({} cores{})",
                x.kind,
                x.started_at,
                x.cpu_model,
                x.cores,
                if x.hostname.is_empty() {
                    String::new()
                } else {
                    format!(", {}", x.hostname)
                }
            )
        };
        let mut v = vec![format!("A: {}", l(&self.a)), format!("B: {}", l(&self.b))];
        if self.different_machines {
            v.push("The runs come from different machines: ratios mix machine and software differences.".into());
        }
        v
    }

    /// Markdown: a table of ratios (B ÷ A) with verdicts, then the cells found in only one run.
    pub fn to_markdown(&self) -> String {
        let mut o = String::from("# restbench compare\n\n");
        for line in self.heading_lines() {
            let _ = writeln!(o, "- {}", crate::markdown::escape(&line));
        }
        let _ = writeln!(o, "\n{}\n", self.summary());
        o.push_str("| subject | workload | scenario | A req/s | B req/s | req/s B÷A | p99 B÷A | CPU µs/req B÷A | verdict | note |\n");
        o.push_str("|---|---|---|---:|---:|---:|---:|---:|---|---|\n");
        for (row, c) in self.rows().iter().zip(&self.cells) {
            let verdict = match c.verdict {
                Verdict::Faster | Verdict::Slower => format!("**{}**", row[8]),
                _ => row[8].clone(),
            };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {verdict} | {} |",
                crate::markdown::escape(&row[0]),
                row[1],
                row[2],
                row[3],
                row[4],
                row[5],
                row[6],
                row[7],
                crate::markdown::escape(c.note.as_deref().unwrap_or(""))
            );
        }
        for (title, list) in [
            ("Only in A", &self.only_in_a),
            ("Only in B", &self.only_in_b),
        ] {
            if !list.is_empty() {
                let _ = writeln!(o, "\n## {title}\n");
                for k in list {
                    let _ = writeln!(
                        o,
                        "- {} / {} / {}",
                        crate::markdown::escape(&k.label()),
                        k.workload,
                        k.scenario
                    );
                }
            }
        }
        o.push_str("\nVerdicts: *faster*/*slower* when the 95 % confidence intervals of req/s do not overlap (or, without intervals, when the change exceeds twice either run's coefficient of variation and 5 %); otherwise *within noise*. p99 and CPU µs/req ratios below 1 are improvements.\n");
        o
    }

    /// Plain text for a terminal, with aligned columns.
    pub fn to_text(&self) -> String {
        let mut o = String::new();
        for line in self.heading_lines() {
            let _ = writeln!(o, "{line}");
        }
        let _ = writeln!(o, "{}\n", self.summary());
        let header = [
            "subject",
            "workload",
            "scenario",
            "A req/s",
            "B req/s",
            "req/s B÷A",
            "p99 B÷A",
            "CPU/req B÷A",
            "verdict",
        ];
        let rows = self.rows();
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for r in &rows {
            for (w, cell) in widths.iter_mut().zip(r.iter()) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
                let pad = w - c.chars().count();
                let right = (3..8).contains(&i);
                if i > 0 {
                    s.push_str("  ");
                }
                if right {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    if i + 1 < cells.len() {
                        s.push_str(&" ".repeat(pad));
                    }
                }
            }
            s
        };
        let head: Vec<String> = header.iter().map(|h| h.to_string()).collect();
        let _ = writeln!(o, "{}", line(&head));
        for (r, c) in rows.iter().zip(&self.cells) {
            let mut l = line(r);
            if let Some(n) = &c.note {
                let _ = write!(l, "  ({n})");
            }
            let _ = writeln!(o, "{l}");
        }
        for (title, list) in [
            ("only in A", &self.only_in_a),
            ("only in B", &self.only_in_b),
        ] {
            if !list.is_empty() {
                let _ = writeln!(o, "\n{title}:");
                for k in list {
                    let _ = writeln!(o, "  {} / {} / {}", k.label(), k.workload, k.scenario);
                }
            }
        }
        o.push_str("\nratios are B ÷ A; for p99 and CPU µs/req below 1 is better; verdicts weigh req/s against the noise of both runs\n");
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(median: f64, cv: f64, ci: Option<[f64; 2]>) -> RpsStats {
        RpsStats {
            median,
            min: median,
            max: median,
            cv,
            ci95: ci,
        }
    }

    #[test]
    fn confidence_intervals_decide_when_both_exist() {
        let a = stats(1000.0, 0.01, Some([990.0, 1010.0]));
        let b = stats(1030.0, 0.01, Some([1020.0, 1040.0]));
        assert_eq!(verdict(&a, &b), Verdict::Faster);
        assert_eq!(verdict(&b, &a), Verdict::Slower);
        let c = stats(1005.0, 0.01, Some([1000.0, 1015.0]));
        assert_eq!(verdict(&a, &c), Verdict::WithinNoise);
    }

    #[test]
    fn without_intervals_the_change_must_beat_cv_and_five_percent() {
        let a = stats(1000.0, 0.0, None);
        assert_eq!(verdict(&a, &stats(1040.0, 0.0, None)), Verdict::WithinNoise);
        assert_eq!(verdict(&a, &stats(1060.0, 0.0, None)), Verdict::Faster);
        assert_eq!(verdict(&a, &stats(940.0, 0.0, None)), Verdict::Slower);
        // A cv of 10 % makes 15 % a non-result.
        assert_eq!(
            verdict(&stats(1000.0, 0.10, None), &stats(1150.0, 0.0, None)),
            Verdict::WithinNoise
        );
        assert_eq!(
            verdict(&stats(1000.0, 0.10, None), &stats(1250.0, 0.02, None)),
            Verdict::Faster
        );
        // One side with an interval and one without falls back to the cv rule.
        assert_eq!(
            verdict(
                &stats(1000.0, 0.01, Some([999.0, 1001.0])),
                &stats(1020.0, 0.0, None)
            ),
            Verdict::WithinNoise
        );
    }

    fn run(cells: Vec<Cell>) -> RunResults {
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
        }
    }

    #[test]
    fn cells_are_matched_by_key_and_settings() {
        use crate::test_support::cell;
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
        let c = compare(&a, &b);
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

        let text = c.to_text();
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("  echo  ")).collect();
        assert_eq!(lines.len(), 4, "{text}");
        let lines: Vec<&str> = lines.into_iter().filter(|l| l.contains('×')).collect();
        // Aligned: the ratio column ends at the same character in every row.
        let ends: Vec<usize> = lines
            .iter()
            .map(|l| {
                let i = l.find('×').unwrap_or(0);
                l[..i].chars().count()
            })
            .collect();
        assert!(ends.windows(2).all(|w| w[0] == w[1]), "{text}");
        assert!(text.contains("only in A:") && text.contains("rust-iron"));
        let md = c.to_markdown();
        assert!(md.contains("| rust-axum | echo | all-cores | 100,000 | 90,000 | 0.90× |"));
        assert!(md.contains("**slower**"));
        assert!(md.contains("## Only in B"));
    }
}
