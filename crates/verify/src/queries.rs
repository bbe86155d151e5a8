//! `queries`: GET /queries?queries=N answers N World rows, N clamped to 1..500, each row read
//! by its own query (TechEmpower's multiple queries, `toolset/test_types/query/query.py`): the
//! clamp cases, the rows as the table holds them, and one SELECT per row counted by the
//! database, so that `WHERE id IN (...)`, `= ANY(...)` or a cache fails with that reason.

use restbench_db::{Database, WorldTable};
use restbench_model::{Finding, TFB_QUERIES, Workload};

use super::tfb::{self, DateChecks, Kind};
use super::transport;
use crate::answer::TIMEOUT;
use crate::http::Endpoint;

/// Requests whose statements are counted.
pub(crate) const COUNTED: u64 = 5;

pub fn check(to: Endpoint, db: &Database, dates: &mut DateChecks) -> Vec<Finding> {
    let mut f = Vec::new();
    let path = Workload::Queries.path();
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
        Ok(table) => {
            let wrong = tfb::against_table(&rows, &table);
            if wrong.is_empty() {
                f.push(Finding::pass(
                    "rows",
                    format!("{} rows as World holds them", rows.len()),
                ));
            } else {
                f.push(Finding::fail(
                    "rows",
                    format!("GET {path}: {}", wrong.join("; ")),
                ));
            }
        }
        Err(e) => f.push(Finding::fail("database", format!("cannot read World: {e}"))),
    }
    tfb::clamps(to, Workload::Queries.route(), "queries", &mut f);
    f.push(one_select_per_row(to, db, path));
    dates.probe(to, path, &r);
    f
}

/// [`COUNTED`] requests of [`TFB_QUERIES`] rows: a SELECT on World for every row.
pub(crate) fn one_select_per_row(to: Endpoint, db: &Database, path: &str) -> Finding {
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
                "{} SELECTs on World (reading {} rows) for {COUNTED} requests of {TFB_QUERIES} rows, \
                 {expected} expected (pg_stat_statements): rows are batched (IN (...), ANY) or \
                 cached, not read one query each",
                n.selects, n.rows_read
            ),
        ),
        Ok(n) => Finding::pass(
            "queries",
            format!(
                "{} SELECTs on World for {COUNTED} requests of {TFB_QUERIES} rows (pg_stat_statements)",
                n.selects
            ),
        ),
        Err(e) => Finding::warn("queries", format!("could not count queries: {e}")),
    }
}
