//! `updates`: GET /updates?queries=N reads N World rows one query each, gives each a new random
//! number, persists them and answers the rows (TechEmpower's database updates,
//! `toolset/test_types/update/update.py`): the clamp cases, the rows read back from World after
//! the answer (the answered numbers are the table's, and they changed), and the statements
//! counted by the database (one SELECT per row; updates may be batched).

use std::collections::BTreeMap;

use restbench_db::{Database, WorldTable};
use restbench_model::{Finding, TFB_QUERIES, Workload};

use super::queries::COUNTED;
use super::tfb::{self, DateChecks, Kind};
use super::transport;
use crate::answer::TIMEOUT;
use crate::http::Endpoint;

pub fn check(to: Endpoint, db: &Database, dates: &mut DateChecks) -> Vec<Finding> {
    let mut f = Vec::new();
    let path = Workload::Updates.path();
    let before = match db.worlds(WorldTable::World) {
        Ok(t) => t,
        Err(e) => {
            f.push(Finding::fail("database", format!("cannot read World: {e}")));
            return f;
        }
    };
    let Some(r) = tfb::get(to, path, &mut f) else {
        return f;
    };
    if !tfb::envelope(&r, path, Kind::Json, &mut f) {
        return f;
    }
    let Some(rows) = tfb::world_list(&r, TFB_QUERIES as usize, &format!("GET {path}"), &mut f)
    else {
        return f;
    };
    match db.worlds(WorldTable::World) {
        Ok(after) => f.push(persisted(&rows, &before, &after)),
        Err(e) => f.push(Finding::fail("database", format!("cannot read World: {e}"))),
    }
    tfb::clamps(to, Workload::Updates.route(), "queries", &mut f);
    f.push(statements(to, db, path));
    dates.probe(to, path, &r);
    f
}

/// The answered rows against World read back after the answer: each answered number is the
/// table's (the last answer for an id that came twice), and most of them changed (a new random
/// number equals the old one once in 10,000 draws; TechEmpower fails below 90 %).
fn persisted(rows: &[(i64, i64)], before: &[(i32, i32)], after: &[(i32, i32)]) -> Finding {
    let last: BTreeMap<i64, i64> = rows.iter().copied().collect();
    let answered: Vec<(i64, i64)> = last.iter().map(|(id, n)| (*id, *n)).collect();
    let wrong = tfb::against_table(&answered, after);
    if !wrong.is_empty() {
        return Finding::fail(
            "persisted",
            format!(
                "the answered numbers are not in World after the answer: {} (updates are not \
                 persisted, or not before the answer)",
                wrong.join("; ")
            ),
        );
    }
    let changed = last
        .keys()
        .filter(|id| {
            let i = (**id - 1) as usize;
            before.get(i).map(|r| r.1) != after.get(i).map(|r| r.1)
        })
        .count();
    if (changed as f64) < 0.9 * last.len() as f64 {
        return Finding::fail(
            "persisted",
            format!(
                "only {changed} of the {} rows answered changed in World: the numbers are not \
                 new random ones",
                last.len()
            ),
        );
    }
    Finding::pass(
        "persisted",
        format!(
            "{changed} of {} rows changed in World, as answered",
            last.len()
        ),
    )
}

/// [`COUNTED`] requests of [`TFB_QUERIES`] rows: a SELECT on World per row, and every row
/// updated (one UPDATE per row or one for all, within TechEmpower's 5 % margin for batches).
fn statements(to: Endpoint, db: &Database, path: &str) -> Finding {
    let expected = COUNTED * u64::from(TFB_QUERIES);
    let counted = db.count_statements(WorldTable::World.name(), || {
        for _ in 0..COUNTED {
            let _ = transport::send(to, "GET", path, &[], b"", TIMEOUT);
        }
    });
    match counted {
        Ok(n) if n.selects < expected => Finding::fail(
            "queries",
            format!(
                "{} SELECTs on World for {COUNTED} requests of {TFB_QUERIES} rows, {expected} \
                 expected (pg_stat_statements): reads are batched (IN (...), ANY) or cached; only \
                 updates may be batched",
                n.selects
            ),
        ),
        Ok(n) if n.updates < COUNTED || (n.rows_updated as f64) < 0.95 * expected as f64 => {
            Finding::fail(
                "queries",
                format!(
                    "{} UPDATEs changing {} rows of World for {COUNTED} requests of {TFB_QUERIES} \
                     rows, {expected} rows expected (pg_stat_statements): updates are not sent",
                    n.updates, n.rows_updated
                ),
            )
        }
        Ok(n) => Finding::pass(
            "queries",
            format!(
                "{} SELECTs and {} UPDATEs ({} rows) on World for {COUNTED} requests of \
                 {TFB_QUERIES} rows (pg_stat_statements)",
                n.selects, n.updates, n.rows_updated
            ),
        ),
        Err(e) => Finding::warn("queries", format!("could not count queries: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::FindingLevel;

    #[test]
    fn persistence_is_read_from_the_table() {
        let before = [(1, 10), (2, 20), (3, 30)];
        let after = [(1, 11), (2, 21), (3, 30)];
        let ok = persisted(&[(1, 11), (2, 21)], &before, &after);
        assert_eq!(ok.level, FindingLevel::Pass, "{ok:?}");
        // Answered new numbers that never reached the table.
        let lost = persisted(&[(1, 99), (2, 98)], &before, &before);
        assert!(
            lost.level == FindingLevel::Fail && lost.message.contains("not persisted"),
            "{lost:?}"
        );
        // Answered the old numbers and changed nothing.
        let same = persisted(&[(3, 30)], &before, &after);
        assert!(
            same.level == FindingLevel::Fail && same.message.contains("only 0"),
            "{same:?}"
        );
    }
}
