//! The rankings of a run measured in rounds, for a terminal, under the cell table: per group the
//! rounds it took, the places by req/s (ties `=1`) beside the places by CPU µs per request, with
//! each figure's ±95 %, fitted into the terminal's width, and the cells shown but not ranked.

use std::fmt::Write;

use restbench_model::RunResults;

use super::table::{Column, Sacrifice, TextTable, wrap};
use crate::rankings::{group_views, policy_line};

const COLUMNS: [Column; 8] = [
    Column::right("rank"),
    Column::left("subject").min_width(12),
    Column::right("req/s"),
    Column::right("±95%").drop_rank(2),
    Column::right("by CPU"),
    Column::left("subject").min_width(12),
    Column::right("µs/req"),
    Column::right("±95%").drop_rank(1),
];

const SACRIFICES: [Sacrifice; 4] = [
    Sacrifice::Narrow {
        column: 5,
        width: 16,
    },
    Sacrifice::Narrow {
        column: 1,
        width: 16,
    },
    Sacrifice::Drop(1),
    Sacrifice::Drop(2),
];

/// Every group's ranking, fitted into `width`; "" for a run from before rounds.
pub fn rankings(r: &RunResults, width: usize) -> String {
    let mut o = String::new();
    for v in group_views(r) {
        let _ = writeln!(o, "\n{}", v.title);
        for l in wrap(&v.rounds, width) {
            let _ = writeln!(o, "{l}");
        }
        let rows = v
            .rows
            .iter()
            .map(|x| {
                vec![
                    x.rank.clone(),
                    x.subject.clone(),
                    x.rps.clone(),
                    x.rps_half_width.clone(),
                    x.efficiency_rank.clone(),
                    x.efficiency_subject.clone(),
                    x.cpu_us_per_req.clone(),
                    if x.efficiency_rank.is_empty() {
                        String::new()
                    } else {
                        x.cpu_half_width.clone()
                    },
                ]
            })
            .collect();
        if !v.rows.is_empty() {
            for l in TextTable::new(&COLUMNS, rows).fit(width, &SACRIFICES).lines {
                let _ = writeln!(o, "{l}");
            }
        }
        if let Some(why) = &v.not_ranked {
            for l in wrap(why, width) {
                let _ = writeln!(o, "{l}");
            }
        }
        if let Some(method) = &v.method {
            for l in wrap(method, width) {
                let _ = writeln!(o, "{l}");
            }
        }
        if !v.excluded.is_empty() {
            let line = format!(
                "{} slices excluded and measured again (listed in report.md): {}",
                v.excluded.len(),
                v.excluded[0]
            );
            for l in wrap(&line, width) {
                let _ = writeln!(o, "{l}");
            }
        }
    }
    if o.is_empty() {
        return o;
    }
    if let Some(line) = policy_line(r.protocol.rounds.as_ref()) {
        o.insert_str(0, &format!("\n{}", wrap(&line, width).join("\n")));
    }
    {
        let note = "(=N: no paired interval separates them; ≥: a floor, the generator was the \
                    bound; by CPU: server CPU µs per request, lower first)";
        for l in wrap(note, width) {
            let _ = writeln!(o, "{l}");
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rankings_fit_eighty_columns() {
        let r = crate::rankings::tests::rounds_run();
        for width in [80, 100] {
            let t = rankings(&r, width);
            for l in t.lines() {
                assert!(l.chars().count() <= width, "{width}: {l:?}\n{t}");
            }
            assert!(t.contains("=1") && t.contains("≥ 30.0k"), "{t}");
            assert!(
                t.contains("Shown, not ranked: python-uvicorn-uvloop"),
                "{t}"
            );
            assert!(t.contains("seed 42"), "{t}");
        }
        assert_eq!(rankings(&crate::compare::tests::run(vec![]), 80), "");
    }
}
