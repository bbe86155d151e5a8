//! `cached-queries`: GET /cached-queries?count=N answers N CachedWorld rows from a cache
//! (TechEmpower's cached queries, `toolset/test_types/cached-query/cached-query.py`): the clamp
//! cases and the rows as CachedWorld holds them. Reads are not counted: a cache is the point
//! (that it is a cache library, not a plain map, is the subject's to declare and a reviewer's to
//! read).

use restbench_db::{Database, WorldTable};
use restbench_model::{Finding, TFB_CACHED_COUNT, Workload};

use super::tfb::{self, DateChecks, Kind};
use crate::http::Endpoint;

pub fn check(to: Endpoint, db: &Database, dates: &mut DateChecks) -> Vec<Finding> {
    let mut f = Vec::new();
    let path = Workload::CachedQueries.path();
    let Some(r) = tfb::get(to, path, &mut f) else {
        return f;
    };
    if !tfb::envelope(&r, path, Kind::Json, &mut f) {
        return f;
    }
    let Some(rows) = tfb::world_list(
        &r,
        TFB_CACHED_COUNT as usize,
        &format!("GET {path}"),
        &mut f,
    ) else {
        return f;
    };
    let table = match db.worlds(WorldTable::CachedWorld) {
        Ok(table) => table,
        Err(e) => {
            f.push(Finding::fail(
                "database",
                format!("cannot read CachedWorld: {e}"),
            ));
            return f;
        }
    };
    let mut answered = vec![rows];
    answered.extend(
        tfb::clamps(to, Workload::CachedQueries.route(), "count", &mut f)
            .into_iter()
            .map(|(_, rows)| rows),
    );
    let wrong: Vec<String> = answered
        .iter()
        .flat_map(|rows| tfb::against_table(rows, &table))
        .take(3)
        .collect();
    if wrong.is_empty() {
        f.push(Finding::pass(
            "rows",
            "every row answered is as CachedWorld holds it",
        ));
    } else {
        f.push(Finding::fail(
            "rows",
            format!("rows that are not CachedWorld's: {}", wrong.join("; ")),
        ));
    }
    dates.probe(to, path, &r);
    f
}
