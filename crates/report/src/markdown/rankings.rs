//! report.md's ranking of a group measured in rounds: the places by req/s with ties beside the
//! places by server CPU µs per request, each figure with its 95 % interval, the rounds it took
//! and what never settled, and the cells shown but not ranked.

use std::fmt::Write;

use super::escape;
use crate::rankings::GroupView;

/// One group's ranking section.
pub fn ranking(v: &GroupView) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "### Ranking: {}\n", escape(&v.title));
    let _ = writeln!(o, "{}\n", escape(&v.rounds));
    if !v.rows.is_empty() {
        o.push_str(
            "| rank | subject | req/s | 95 % interval | rank by CPU/req | subject | CPU µs/req | 95 % interval |\n",
        );
        o.push_str("|---:|---|---:|---|---:|---|---:|---|\n");
        for r in &v.rows {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                r.rank,
                escape(&r.subject),
                r.rps,
                r.rps_interval,
                r.efficiency_rank,
                escape(&r.efficiency_subject),
                r.cpu_us_per_req,
                r.cpu_interval
            );
        }
        o.push('\n');
    }
    if let Some(why) = &v.not_ranked {
        let _ = writeln!(o, "{}\n", escape(why));
    }
    if let Some(method) = &v.method {
        let _ = writeln!(o, "{}\n", escape(method));
    }
    if !v.excluded.is_empty() {
        let _ = writeln!(o, "Slices excluded (each measured again):\n");
        for x in &v.excluded {
            let _ = writeln!(o, "- {}", escape(x));
        }
        o.push('\n');
    }
    o
}

/// Under the first ranking: how to read the ranks.
pub const HOW_TO_READ: &str = "Ranks come from the ratios paired by round: subjects whose ratio's \
95 % interval holds 1 share a rank (`=1`); `≥` marks a floor (the generator was the bound), \
ranked after the others. Efficiency is server CPU µs per request, lower first: the measure noise \
moves least. `–`: one round, no interval. See docs/verdicts.md.\n\n";
