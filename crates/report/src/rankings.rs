//! A group's rounds as reports show them: the ranking by req/s with ties (`=2`) and the
//! efficiency ranking (server CPU µs per request) beside it, each figure with its 95 % interval,
//! how many rounds the group needed and which ratios never settled, the cells shown but never
//! ranked (contended) and the seed of the orders. Data in, strings out; the renderers lay them out.

use restbench_model::vocabulary::flag::Flag;
use restbench_model::{Cell, GroupRounds, Interval, RoundsPolicy, RunResults};

use crate::cells::subject_label;
use crate::units::{compact, ratio};

/// Unsettled ratios listed by name before "and N more".
pub const UNSETTLED_LISTED: usize = 3;

/// One line of a group's ranking table: a place by req/s and, beside it, a place by CPU µs per
/// request (either side empty when the two lists differ in length).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RankRow {
    pub rank: String,
    pub subject: String,
    /// `58.3k`, `≥ 58.3k` for a floor (client-bound).
    pub rps: String,
    /// `[56.1k, 60.2k]`, or `–` with one round.
    pub rps_interval: String,
    /// `±3.1 %`, or `–`.
    pub rps_half_width: String,
    pub efficiency_rank: String,
    pub efficiency_subject: String,
    /// `8.1`.
    pub cpu_us_per_req: String,
    pub cpu_interval: String,
    pub cpu_half_width: String,
}

/// A group as the reports show it.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupView {
    pub workload: String,
    pub scenario: String,
    pub protocol: String,
    /// `plaintext · single-thread`, with ` (h2c)` when not h1.
    pub title: String,
    /// `7 rounds: settled, every ratio within ±3 %.`
    pub rounds: String,
    pub rows: Vec<RankRow>,
    /// Shown but never ranked, with why (the contended flag's legend); `None` when none.
    pub not_ranked: Option<String>,
    /// Which figure comes from which: measured beside a reference, each cell's ratio to it
    /// from the duets (with its interval), and that the table's figures are each cell alone;
    /// or why the group was measured interleaved. `None` for interleaved runs.
    pub method: Option<String>,
    /// Every slice that did not count, one line each: who, which round, when, why.
    pub excluded: Vec<String>,
}

/// One view per group of the run, in the order the run recorded them; empty for runs from
/// before rounds.
pub fn group_views(r: &RunResults) -> Vec<GroupView> {
    // The cells by group, once: each group looks up its own (linear in the cells).
    let mut by_group: std::collections::HashMap<(&str, &str, &str), Vec<&Cell>> =
        std::collections::HashMap::new();
    for c in &r.cells {
        by_group
            .entry((&c.workload, &c.scenario, &c.protocol))
            .or_default()
            .push(c);
    }
    r.groups
        .iter()
        .map(|g| {
            let cells = by_group
                .get(&(
                    g.workload.as_str(),
                    g.scenario.as_str(),
                    g.protocol.as_str(),
                ))
                .map_or(&[][..], Vec::as_slice);
            group_view(g, r.protocol.rounds.as_ref(), cells)
        })
        .collect()
}

/// The views of one workload (and scenario, when given).
pub fn views_of<'a>(
    views: &'a [GroupView],
    workload: &'a str,
    scenario: Option<&'a str>,
) -> impl Iterator<Item = &'a GroupView> {
    views
        .iter()
        .filter(move |v| v.workload == workload && scenario.is_none_or(|s| v.scenario == s))
}

/// How the rounds were taken, for the load paragraph: `Rounds: interleaved, a fresh order from
/// seed 42 in even rounds, backwards in odd ones; 3–20 rounds, until every ratio is within ±3 %; a 1 s re-warm before
/// each slice.` `None` for runs from before rounds.
pub fn policy_line(policy: Option<&RoundsPolicy>) -> Option<String> {
    let p = policy?;
    let count = match p.target_ci {
        Some(t) => format!(
            "{}–{} rounds, until every ratio of a group is within ±{}",
            p.min_rounds,
            p.max_rounds,
            percent(t)
        ),
        None => format!("{} rounds (a fixed count)", p.min_rounds),
    };
    if p.beside_reference {
        return Some(format!(
            "Rounds: duets, every cell of a group measured beside the group's reference at the \
             same instant (the servers sharing the server CPUs, each with its own generator \
             run), and alone in the first {} rounds for its own figures; {count}; a {} s re-warm \
             before each slice.",
            p.solo_rounds.unwrap_or(p.max_rounds),
            p.rewarm_s
        ));
    }
    if p.duet {
        return Some(format!(
            "Rounds: duet, every cell of a group measured at once in each round (the servers \
             sharing the server CPUs, each with its own generator run); {count}; a {} s re-warm \
             before each slice.",
            p.rewarm_s
        ));
    }
    Some(format!(
        "Rounds: interleaved, every cell of a group once per round, a fresh order from seed {} \
         in even rounds and that order backwards in the odd ones; {count}; a {} s re-warm \
         before each slice.",
        p.seed, p.rewarm_s
    ))
}

/// The view of group `g` from its own cells.
fn group_view(g: &GroupRounds, policy: Option<&RoundsPolicy>, group_cells: &[&Cell]) -> GroupView {
    let mut by_subject: std::collections::HashMap<&str, &Cell> = std::collections::HashMap::new();
    for c in group_cells {
        by_subject.entry(c.subject.as_str()).or_insert(c);
    }
    let cell_of = |s: &str| by_subject.get(s).copied();
    let n = g.ranking.len().max(g.efficiency.len());
    let rows = (0..n)
        .map(|i| {
            let mut row = RankRow::default();
            if let Some(e) = g.ranking.get(i) {
                let cell = cell_of(&e.subject);
                let floor = cell.is_some_and(|c| c.flags.iter().any(|f| f == "client_bound"));
                row.rank = e.label();
                row.subject = e.subject.clone();
                row.rps = if floor {
                    format!("≥ {}", compact(e.value))
                } else {
                    compact(e.value)
                };
                let i = cell.and_then(|c| c.intervals.as_ref()).map(|x| x.rps);
                (row.rps_interval, row.rps_half_width) = interval_texts(i.as_ref(), compact);
            }
            if let Some(e) = g.efficiency.get(i) {
                row.efficiency_rank = e.label();
                row.efficiency_subject = e.subject.clone();
                row.cpu_us_per_req = format!("{:.1}", e.value);
                let i = cell_of(&e.subject)
                    .and_then(|c| c.intervals.as_ref())
                    .and_then(|x| x.cpu_us_per_req);
                (row.cpu_interval, row.cpu_half_width) =
                    interval_texts(i.as_ref(), |v| format!("{v:.1}"));
            }
            row
        })
        .collect();
    GroupView {
        workload: g.workload.clone(),
        scenario: g.scenario.clone(),
        protocol: g.protocol.clone(),
        title: format!(
            "{} · {}",
            g.workload,
            subject_label(&g.scenario, &g.protocol)
        ),
        rounds: rounds_line(g, policy),
        rows,
        not_ranked: not_ranked(g, group_cells),
        method: method_line(g),
        excluded: g.excluded.iter().map(excluded_line).collect(),
    }
}

/// How the group's verdicts were drawn, when in duets beside a reference (each cell's ratio to
/// it, with the interval), or why it was measured interleaved.
pub fn method_line(g: &GroupRounds) -> Option<String> {
    let Some(reference) = &g.reference else {
        return g.method_note.clone();
    };
    let ratios: Vec<String> = g
        .pairs
        .iter()
        .filter_map(|p| {
            let (other, i) = if &p.a == reference {
                (&p.b, p.rps)
            } else if &p.b == reference {
                (&p.a, p.rps.inverse())
            } else {
                return None;
            };
            Some(format!(
                "{other} {} [{:.2}, {:.2}]",
                ratio(i.estimate),
                i.low,
                i.high
            ))
        })
        .collect();
    let listed = if ratios.is_empty() {
        String::new()
    } else {
        format!(": req/s {}", ratios.join(", "))
    };
    Some(format!(
        "Duets beside {reference} (the median warm-up rate){listed}. Ranks and ties come from \
         the duets' ratios (chained through {reference} per round, Holm-corrected over the \
         run); req/s, µs/req and their ±95 % are each cell measured alone."
    ))
}

/// One excluded slice, for the list under a group.
fn excluded_line(x: &restbench_model::ExcludedSlice) -> String {
    let clock = |unix: f64| {
        let secs = unix as i64;
        let day = secs.rem_euclid(86_400);
        format!("{:02}:{:02}:{:02}", day / 3600, day / 60 % 60, day % 60)
    };
    let beside = x
        .beside
        .as_ref()
        .map_or(String::new(), |b| format!(" beside {b}"));
    format!(
        "{}{beside}, round {}, {}–{} UTC: {}",
        x.subject,
        x.round + 1,
        clock(x.from_unix_s),
        clock(x.to_unix_s),
        x.cause
    )
}

/// An interval as `[a, b]` and `±x %`; `–` for both without one (one round).
fn interval_texts(i: Option<&Interval>, show: impl Fn(f64) -> String) -> (String, String) {
    match i {
        Some(i) => (
            format!("[{}, {}]", show(i.low), show(i.high)),
            format!("±{}", percent(i.relative_half_width())),
        ),
        None => ("–".into(), "–".into()),
    }
}

/// `3 %`, `3.1 %`.
fn percent(fraction: f64) -> String {
    let p = fraction * 100.0;
    if (p - p.round()).abs() < 0.05 {
        format!("{p:.0} %")
    } else {
        format!("{p:.1} %")
    }
}

/// How many rounds the group took, whether it settled, and the ratios that never did (a few by
/// name, then "and N more").
pub fn rounds_line(g: &GroupRounds, policy: Option<&RoundsPolicy>) -> String {
    let n = g.rounds.len();
    let rounds = format!("{n} round{}", if n == 1 { "" } else { "s" });
    let target = policy.and_then(|p| p.target_ci);
    let unsettled: Vec<_> = g.unsettled().collect();
    let Some(t) = target else {
        // A fixed count says nothing about how narrow its intervals came out.
        let widest = g
            .pairs
            .iter()
            .map(|p| p.rps.relative_half_width())
            .fold(None, |w: Option<f64>, x| Some(w.map_or(x, |w| w.max(x))));
        return match widest {
            Some(w) => format!(
                "{rounds}, a fixed count (no target): the widest ratio ±{}.",
                percent(w)
            ),
            None => format!("{rounds}, a fixed count (no target)."),
        };
    };
    if g.settled || unsettled.is_empty() {
        return format!("{rounds}: settled, every ratio within ±{}.", percent(t));
    }
    let mut named: Vec<String> = unsettled
        .iter()
        .take(UNSETTLED_LISTED)
        .map(|p| {
            format!(
                "{} ÷ {} {} ±{}",
                p.b,
                p.a,
                ratio(p.rps.estimate),
                percent(p.rps.relative_half_width())
            )
        })
        .collect();
    if unsettled.len() > UNSETTLED_LISTED {
        named.push(format!("and {} more", unsettled.len() - UNSETTLED_LISTED));
    }
    format!(
        "{rounds}: not settled at ±{}, {} of {} ratios never came within it: {}.",
        percent(t),
        unsettled.len(),
        g.pairs.len(),
        named.join(", ")
    )
}

/// The group's cells that are measured but not ranked because contended, with the flag's legend.
fn not_ranked(g: &GroupRounds, cells: &[&Cell]) -> Option<String> {
    let contended = Flag::Contended.name();
    let names: Vec<&str> = cells
        .iter()
        .filter(|c| c.flags.iter().any(|f| f == contended))
        .filter(|c| !g.ranking.iter().any(|e| e.subject == c.subject))
        .map(|c| c.subject.as_str())
        .collect();
    if names.is_empty() {
        return None;
    }
    Some(format!(
        "Shown, not ranked: {} ({contended}). {}",
        names.join(", "),
        Flag::Contended.legend()
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_support::rounds_cell;
    use restbench_model::{PairRatio, RankEntry, Round};

    fn interval(estimate: f64, half: f64) -> Interval {
        Interval {
            estimate,
            low: estimate * (1.0 - half),
            high: estimate * (1.0 + half),
            n: 5,
        }
    }

    fn entry(subject: &str, rank: u32, tied: bool, value: f64) -> RankEntry {
        RankEntry {
            subject: subject.into(),
            rank,
            tied,
            value,
        }
    }

    fn pair(a: &str, b: &str, estimate: f64, half: f64, settled: bool) -> PairRatio {
        PairRatio {
            a: a.into(),
            b: b.into(),
            rps: interval(estimate, half),
            cpu_us_per_req: None,
            settled,
            rps_distinct: None,
            cpu_distinct: None,
        }
    }

    #[test]
    fn a_group_beside_a_reference_says_which_figure_comes_from_which() {
        let mut g = GroupRounds {
            workload: "plaintext".into(),
            scenario: "single-thread".into(),
            protocol: "h1".into(),
            rounds: Vec::new(),
            settled: false,
            pairs: vec![pair("a", "ref", 0.5, 0.02, false)],
            ranking: Vec::new(),
            efficiency: Vec::new(),
            reference: Some("ref".into()),
            method_note: None,
            counted: Vec::new(),
            excluded: vec![restbench_model::ExcludedSlice {
                subject: "a".into(),
                round: 1,
                beside: Some("ref".into()),
                cause: "0.52 cores of the server's CPUs went to others".into(),
                from_unix_s: 3_600.0 * 12.0 + 61.0,
                to_unix_s: 3_600.0 * 12.0 + 67.0,
            }],
        };
        let method = method_line(&g).unwrap();
        assert!(method.starts_with("Duets beside ref"), "{method}");
        assert!(method.contains("a 2.00× [1.96, 2.04]"), "{method}");
        assert!(method.contains("each cell measured alone"), "{method}");
        assert_eq!(
            excluded_line(&g.excluded[0]),
            "a beside ref, round 2, 12:01:01–12:01:07 UTC: 0.52 cores of the server's CPUs went \
             to others"
        );
        // A fixed count is never "settled": it says how wide its intervals came out.
        let line = rounds_line(&g, None);
        assert_eq!(
            line,
            "0 rounds, a fixed count (no target): the widest ratio ±2 %."
        );
        g.reference = None;
        g.method_note = Some("measured interleaved: why".into());
        assert_eq!(
            method_line(&g).as_deref(),
            Some("measured interleaved: why")
        );
    }

    /// A run of rounds on plaintext · single-thread: rust-hyper and rust-axum tied first,
    /// go-nethttp third, node-http a floor, python contended and not ranked; one cell of one
    /// round; five ratios never settled.
    pub(crate) fn rounds_run() -> RunResults {
        let w = "plaintext";
        let s = "single-thread";
        let mut node = rounds_cell("node-http", w, s, &[30_000.0, 30_300.0, 29_800.0]);
        node.flags = vec!["client_bound".into()];
        let mut python = rounds_cell("python-uvicorn-uvloop", w, s, &[9_000.0, 9_500.0]);
        python.flags = vec!["contended".into()];
        let mut cells = vec![
            rounds_cell(
                "rust-hyper",
                w,
                s,
                &[58_300.0, 56_900.0, 59_100.0, 58_000.0],
            ),
            rounds_cell("rust-axum", w, s, &[57_900.0, 58_600.0, 56_400.0, 59_000.0]),
            rounds_cell(
                "go-nethttp",
                w,
                s,
                &[40_100.0, 39_000.0, 41_000.0, 40_500.0],
            ),
            node,
            python,
            rounds_cell("haskell-warp", "todo", s, &[20_000.0]),
        ];
        cells[5].repeats.truncate(1);
        let mut r = crate::compare::tests::run(cells);
        r.protocol.rounds = Some(RoundsPolicy {
            seed: 42,
            min_rounds: 3,
            max_rounds: 4,
            target_ci: Some(0.03),
            rewarm_s: 1.0,
            duet: false,
            beside_reference: false,
            solo_rounds: None,
        });
        let round = |order: &[&str], ceiling: f64, contended: &[&str]| Round {
            order: order.iter().map(|s| s.to_string()).collect(),
            ceiling_rps: Some(ceiling),
            contended: contended.iter().map(|s| s.to_string()).collect(),
            ceiling_contended: None,
        };
        let order = [
            "rust-axum",
            "go-nethttp",
            "rust-hyper",
            "python-uvicorn-uvloop",
            "node-http",
        ];
        r.groups.push(GroupRounds {
            workload: w.into(),
            scenario: s.into(),
            protocol: "h1".into(),
            rounds: vec![
                round(&order, 200_000.0, &[]),
                round(&order, 196_000.0, &["python-uvicorn-uvloop"]),
                round(&order, 203_000.0, &["python-uvicorn-uvloop"]),
                round(&order, 199_000.0, &[]),
            ],
            settled: false,
            pairs: vec![
                pair("rust-hyper", "rust-axum", 1.0, 0.04, false),
                pair("rust-hyper", "go-nethttp", 0.69, 0.035, false),
                pair("rust-hyper", "node-http", 0.52, 0.02, true),
                pair("rust-axum", "go-nethttp", 0.69, 0.05, false),
                pair("rust-axum", "node-http", 0.52, 0.06, false),
                pair("go-nethttp", "node-http", 0.75, 0.031, false),
            ],
            ranking: vec![
                entry("rust-hyper", 1, true, 58_150.0),
                entry("rust-axum", 1, true, 58_250.0),
                entry("go-nethttp", 3, false, 40_300.0),
                entry("node-http", 4, false, 30_000.0),
            ],
            efficiency: vec![
                entry("rust-axum", 1, true, 16.3),
                entry("rust-hyper", 1, true, 16.3),
                entry("go-nethttp", 3, false, 23.6),
                entry("node-http", 4, false, 31.7),
            ],
            reference: None,
            method_note: None,
            counted: Vec::new(),
            excluded: Vec::new(),
        });
        r.groups.push(GroupRounds {
            workload: "todo".into(),
            scenario: s.into(),
            protocol: "h1".into(),
            rounds: vec![round(&["haskell-warp"], 190_000.0, &[])],
            settled: true,
            pairs: Vec::new(),
            ranking: vec![entry("haskell-warp", 1, false, 20_000.0)],
            efficiency: Vec::new(),
            reference: None,
            method_note: None,
            counted: Vec::new(),
            excluded: Vec::new(),
        });
        r
    }

    #[test]
    fn the_policy_line_says_how_the_rounds_were_taken() {
        let mut policy = RoundsPolicy {
            seed: 7,
            min_rounds: 3,
            max_rounds: 6,
            target_ci: None,
            rewarm_s: 0.5,
            duet: false,
            beside_reference: false,
            solo_rounds: None,
        };
        let interleaved = policy_line(Some(&policy)).unwrap();
        assert!(interleaved.contains("backwards") && interleaved.contains("seed 7"));
        policy.duet = true;
        let duet = policy_line(Some(&policy)).unwrap();
        assert!(duet.starts_with("Rounds: duet, every cell of a group measured at once"));
        assert!(duet.contains("3 rounds (a fixed count)"), "{duet}");
        assert_eq!(policy_line(None), None);
    }

    #[test]
    fn ties_floors_intervals_and_the_contended_cell_read_as_said() {
        let r = rounds_run();
        let views = group_views(&r);
        let v = &views[0];
        assert_eq!(v.title, "plaintext · single-thread");
        let ranks: Vec<&str> = v.rows.iter().map(|x| x.rank.as_str()).collect();
        assert_eq!(ranks, ["=1", "=1", "3", "4"]);
        assert_eq!(v.rows[3].rps, "≥ 30.0k", "a client-bound cell is a floor");
        assert!(v.rows[0].rps_interval.starts_with('['), "{:?}", v.rows[0]);
        assert!(v.rows[0].rps_half_width.starts_with('±'));
        assert_eq!(v.rows[0].efficiency_subject, "rust-axum");
        let not_ranked = v.not_ranked.as_deref().unwrap();
        assert!(not_ranked.starts_with("Shown, not ranked: python-uvicorn-uvloop (contended)."));
        assert!(not_ranked.contains(Flag::Contended.legend()));
        assert!(v.rows.iter().all(|x| x.subject != "python-uvicorn-uvloop"));
        // Five unsettled ratios: three by name, then the rest counted.
        assert_eq!(
            v.rounds,
            "4 rounds: not settled at ±3 %, 5 of 6 ratios never came within it: rust-axum ÷ \
             rust-hyper 1.00× ±4 %, go-nethttp ÷ rust-hyper 0.69× ±3.5 %, go-nethttp ÷ rust-axum \
             0.69× ±5 %, and 2 more."
        );
        // One round: no interval, a dash.
        let todo = &views[1];
        assert_eq!(todo.rounds, "1 round: settled, every ratio within ±3 %.");
        assert_eq!(todo.rows[0].rps_interval, "–");
        assert_eq!(todo.rows[0].cpu_us_per_req, "");
        assert!(
            policy_line(r.protocol.rounds.as_ref())
                .unwrap()
                .contains("seed 42")
        );
        assert!(group_views(&crate::compare::tests::run(vec![])).is_empty());
    }
}
