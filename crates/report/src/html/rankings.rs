//! report.html's ranking of a group measured in rounds: a `<table class="ranking">` with the
//! places by req/s (ties `=1`) beside the places by server CPU µs per request, each with its
//! 95 % interval, the rounds the group took and what never settled, and the cells shown but
//! not ranked; every round's order in a `<details>`.

use std::fmt::Write;

use restbench_model::RunResults;

use crate::escape::html as escape;
use crate::rankings::GroupView;

/// One group's ranking block (`data-ranking` on its wrapper).
pub fn ranking(o: &mut String, v: &GroupView, r: &RunResults) {
    let _ = write!(
        o,
        "<div class=\"ranking\" data-ranking><h4>Ranking · {}</h4><p class=\"small\">{}</p>",
        escape(&v.title),
        escape(&v.rounds)
    );
    if !v.rows.is_empty() {
        o.push_str(
            "<div class=\"tablewrap\"><table class=\"ranking\"><thead><tr><th class=\"num\">rank</th>\
             <th>subject</th><th class=\"num\">req/s</th><th class=\"num\">95 % interval</th>\
             <th class=\"num sep\" title=\"by server CPU µs per request, lower first\">rank by CPU/req</th>\
             <th>subject</th><th class=\"num\">CPU µs/req</th><th class=\"num\">95 % interval</th>\
             </tr></thead><tbody>",
        );
        for x in &v.rows {
            let _ = write!(
                o,
                "<tr><td class=\"num\"><b>{}</b></td><td>{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num sep\"><b>{}</b></td><td>{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&x.rank),
                escape(&x.subject),
                escape(&x.rps),
                escape(&x.rps_interval),
                escape(&x.efficiency_rank),
                escape(&x.efficiency_subject),
                escape(&x.cpu_us_per_req),
                escape(&x.cpu_interval),
            );
        }
        o.push_str("</tbody></table></div>");
    }
    if let Some(why) = &v.not_ranked {
        let _ = write!(
            o,
            "<p class=\"banner warn small\" data-not-ranked>{}</p>",
            escape(why)
        );
    }
    if let Some(method) = &v.method {
        let _ = write!(o, "<p class=\"small\" data-method>{}</p>", escape(method));
    }
    if !v.excluded.is_empty() {
        let _ = write!(
            o,
            "<details data-excluded><summary>{} slices excluded, each measured again</summary><ul>",
            v.excluded.len()
        );
        for x in &v.excluded {
            let _ = write!(o, "<li>{}</li>", escape(x));
        }
        o.push_str("</ul></details>");
    }
    orders(o, v, r);
    o.push_str("</div>");
}

/// Every round's order and ceiling, folded.
fn orders(o: &mut String, v: &GroupView, r: &RunResults) {
    let Some(g) = r
        .groups
        .iter()
        .find(|g| g.workload == v.workload && g.scenario == v.scenario && g.protocol == v.protocol)
    else {
        return;
    };
    let seed = r
        .protocol
        .rounds
        .as_ref()
        .map_or(String::new(), |p| format!(" (seed {})", p.seed));
    let _ = write!(
        o,
        "<details class=\"small\"><summary>the order of each round{}</summary><ol>",
        escape(&seed)
    );
    for round in &g.rounds {
        let ceiling = round.ceiling_rps.map_or(String::new(), |c| {
            format!("; generator ceiling {}", crate::units::thousands(c))
        });
        let contended = if round.contended.is_empty() {
            String::new()
        } else {
            format!("; contended: {}", round.contended.join(", "))
        };
        let _ = write!(
            o,
            "<li>{}{}{}</li>",
            escape(&round.order.join(" → ")),
            escape(&ceiling),
            escape(&contended)
        );
    }
    o.push_str("</ol></details>");
}
