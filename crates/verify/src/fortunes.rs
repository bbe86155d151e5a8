//! `fortunes`: GET /fortunes answers the Fortune rows plus `0, "Additional fortune added at
//! request time."`, sorted by message, as an HTML table rendered with escaping, UTF-8
//! (TechEmpower's fortunes, `toolset/test_types/fortune/fortune.py`): the page against the
//! expected one after TechEmpower's normalisation ([`fortune_page`](crate::fortune_page)),
//! with the reason when it differs (an unescaped `<script>`, no added row, rows out of order),
//! and one SELECT on Fortune per request counted by the database.

use restbench_db::{ADDED_FORTUNE, Database};
use restbench_model::{Finding, Workload};

use super::answer::snippet;
use super::tfb::{self, DateChecks, Kind};
use super::transport;
use crate::answer::TIMEOUT;
use crate::fortune_page;
use crate::http::Endpoint;

/// Requests whose statements are counted.
const COUNTED: u64 = 5;

pub fn check(to: Endpoint, db: &Database, dates: &mut DateChecks) -> Vec<Finding> {
    let mut f = Vec::new();
    let path = Workload::Fortunes.path();
    let mut rows = match db.fortunes() {
        Ok(rows) => rows,
        Err(e) => {
            f.push(Finding::fail(
                "database",
                format!("cannot read Fortune: {e}"),
            ));
            return f;
        }
    };
    rows.push((ADDED_FORTUNE.0, ADDED_FORTUNE.1.to_string()));
    rows.sort_by(|a, b| a.1.cmp(&b.1));
    let Some(r) = tfb::get(to, path, &mut f) else {
        return f;
    };
    if !tfb::envelope(&r, path, Kind::Html, &mut f) {
        return f;
    }
    match std::str::from_utf8(&r.body) {
        Ok(page) => f.push(page_against(page, &rows)),
        Err(e) => f.push(Finding::fail(
            "utf-8",
            format!("the page is not UTF-8 ({e}): the Japanese fortune cannot be right"),
        )),
    }
    f.push(one_select_per_request(to, db, path));
    dates.probe(to, path, &r);
    f
}

/// The page against the expected one, normalised; when they differ, the most telling reason.
fn page_against(page: &str, rows: &[(i32, String)]) -> Finding {
    if let Some(at) = page.to_ascii_lowercase().find("<script>") {
        return Finding::fail(
            "escape",
            format!(
                "the <script> fortune is not HTML-escaped: {}",
                snippet(&page[at..])
            ),
        );
    }
    let want = fortune_page::expected(rows);
    let got = fortune_page::normalise(page);
    if got == want {
        return Finding::pass(
            "body",
            format!(
                "{} fortunes, sorted and escaped, as TechEmpower's page (normalised)",
                rows.len()
            ),
        );
    }
    let (got_rows, want_rows) = (fortune_page::rows(&got), fortune_page::rows(&want));
    if !got_rows.iter().any(|(id, _)| id == "0") {
        return Finding::fail(
            "added-row",
            format!(
                "no row 0 {:?}: the fortune added at request time is missing ({} rows)",
                ADDED_FORTUNE.1,
                got_rows.len()
            ),
        );
    }
    let mut sorted = got_rows.clone();
    sorted.sort();
    let mut want_sorted = want_rows.clone();
    want_sorted.sort();
    if sorted == want_sorted && got_rows != want_rows {
        let first = got_rows
            .iter()
            .zip(&want_rows)
            .find(|(g, w)| g != w)
            .map(|(g, w)| format!("row {} where row {} belongs", g.0, w.0))
            .unwrap_or_default();
        return Finding::fail(
            "sort",
            format!("the rows are not sorted by message: {first}"),
        );
    }
    let line = got
        .lines()
        .zip(want.lines())
        .find(|(g, w)| g != w)
        .map(|(g, w)| format!("{g:?} where {w:?} belongs"))
        .unwrap_or_else(|| {
            format!(
                "{} lines where {} belong",
                got.lines().count(),
                want.lines().count()
            )
        });
    Finding::fail(
        "body",
        format!(
            "the page differs from TechEmpower's after normalisation: {}",
            snippet(&line)
        ),
    )
}

/// [`COUNTED`] requests: a SELECT on Fortune each (no cached rows).
fn one_select_per_request(to: Endpoint, db: &Database, path: &str) -> Finding {
    let counted = db.count_statements("fortune", || {
        for _ in 0..COUNTED {
            let _ = transport::send(to, "GET", path, &[], b"", TIMEOUT);
        }
    });
    match counted {
        Ok(n) if n.selects < COUNTED => Finding::fail(
            "queries",
            format!(
                "{} SELECTs on Fortune for {COUNTED} requests (pg_stat_statements): the rows are \
                 cached, not read per request",
                n.selects
            ),
        ),
        Ok(n) => Finding::pass(
            "queries",
            format!(
                "{} SELECTs on Fortune for {COUNTED} requests (pg_stat_statements)",
                n.selects
            ),
        ),
        Err(e) => Finding::warn("queries", format!("could not count queries: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_db::FORTUNES;
    use restbench_model::FindingLevel;

    fn sorted_rows() -> Vec<(i32, String)> {
        let mut rows: Vec<(i32, String)> =
            FORTUNES.iter().map(|(i, m)| (*i, m.to_string())).collect();
        rows.push((ADDED_FORTUNE.0, ADDED_FORTUNE.1.to_string()));
        rows.sort_by(|a, b| a.1.cmp(&b.1));
        rows
    }

    fn page(rows: &[(i32, String)], escape: bool) -> String {
        let mut p = String::from(
            "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>",
        );
        for (id, m) in rows {
            let m = if escape {
                m.replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;")
            } else {
                m.clone()
            };
            p.push_str(&format!("<tr><td>{id}</td><td>{m}</td></tr>"));
        }
        p + "</table></body></html>"
    }

    #[test]
    fn the_expected_page_is_techempowers() {
        let want = fortune_page::expected(&sorted_rows());
        // The first and last rows of TechEmpower's valid_fortune, and the Japanese row last.
        assert!(want.contains("<tr><td>11</td><td>&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;</td></tr>\n<tr><td>4</td>"), "{want}");
        assert!(
            want.ends_with(
                "<tr><td>12</td><td>フレームワークのベンチマーク</td></tr>\n</table></body></html>"
            ),
            "{want}"
        );
        assert_eq!(want.lines().count(), 18);
    }

    #[test]
    fn each_fault_gets_its_reason() {
        let rows = sorted_rows();
        let good = page_against(&page(&rows, true), &rows);
        assert_eq!(good.level, FindingLevel::Pass, "{good:?}");
        let unescaped = page_against(&page(&rows, false), &rows);
        assert_eq!(unescaped.check, "escape", "{unescaped:?}");
        let no_added: Vec<_> = rows.iter().filter(|r| r.0 != 0).cloned().collect();
        assert_eq!(
            page_against(&page(&no_added, true), &rows).check,
            "added-row"
        );
        let mut by_id = rows.clone();
        by_id.sort();
        assert_eq!(page_against(&page(&by_id, true), &rows).check, "sort");
        let mut changed = rows.clone();
        changed[3].1.push('!');
        assert_eq!(page_against(&page(&changed, true), &rows).check, "body");
    }
}
