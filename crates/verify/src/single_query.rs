//! `db`: GET /db answers one random World row (TechEmpower's single database query,
//! `toolset/test_types/db/db.py`): an object `{"id", "randomNumber"}` in range, the row as the
//! table holds it, answers that vary, and one SELECT per request counted by the database.

use std::collections::BTreeSet;

use restbench_db::{Database, WorldTable};
use restbench_model::{Finding, Workload};
use serde_json::Value;

use super::answer::snippet;
use super::tfb::{self, DateChecks, Kind};
use super::transport;
use crate::answer::TIMEOUT;
use crate::http::Endpoint;

/// Requests whose statements are counted.
const COUNTED: u64 = 20;

pub fn check(to: Endpoint, db: &Database, dates: &mut DateChecks) -> Vec<Finding> {
    let mut f = Vec::new();
    let path = Workload::Db.path();
    let Some(r) = tfb::get(to, path, &mut f) else {
        return f;
    };
    if !tfb::envelope(&r, path, Kind::Json, &mut f) {
        return f;
    }
    let row = match serde_json::from_slice::<Value>(&r.body) {
        Ok(v) if v.is_array() => Err(format!(
            "an array, not one object: {}",
            snippet(&r.body_text())
        )),
        Ok(v) => tfb::world_row(&v),
        Err(e) => Err(format!("not JSON ({e}): {}", snippet(&r.body_text()))),
    };
    let row = match row {
        Ok(row) => row,
        Err(e) => {
            f.push(Finding::fail("rows", format!("GET {path}: {e}")));
            return f;
        }
    };
    match db.worlds(WorldTable::World) {
        Ok(table) => match tfb::against_table(&[row], &table).first() {
            None => f.push(Finding::pass(
                "rows",
                format!("{{id {}, randomNumber {}}} as World holds it", row.0, row.1),
            )),
            Some(wrong) => f.push(Finding::fail("rows", format!("GET {path}: {wrong}"))),
        },
        Err(e) => f.push(Finding::fail("database", format!("cannot read World: {e}"))),
    }
    f.push(statements(to, db));
    dates.probe(to, path, &r);
    f
}

/// [`COUNTED`] requests: at least one SELECT on World each, and ids that vary.
fn statements(to: Endpoint, db: &Database) -> Finding {
    let path = Workload::Db.path();
    let mut ids = BTreeSet::new();
    let counted = db.count_statements(WorldTable::World.name(), || {
        for _ in 0..COUNTED {
            if let Ok(r) = transport::send(to, "GET", path, &[], b"", TIMEOUT)
                && let Ok(v) = serde_json::from_slice::<Value>(&r.body)
                && let Ok((id, _)) = tfb::world_row(&v)
            {
                ids.insert(id);
            }
        }
    });
    match counted {
        Ok(n) if n.selects < COUNTED => Finding::fail(
            "queries",
            format!(
                "{} SELECTs on World for {COUNTED} requests (pg_stat_statements): rows are cached, \
                 not read per request",
                n.selects
            ),
        ),
        Ok(_) if ids.len() < 2 => Finding::fail(
            "queries",
            format!("{COUNTED} requests all answered the same id: the row is not random"),
        ),
        Ok(n) => Finding::pass(
            "queries",
            format!(
                "{} SELECTs on World for {COUNTED} requests, {} distinct ids (pg_stat_statements)",
                n.selects,
                ids.len()
            ),
        ),
        Err(e) => Finding::warn("queries", format!("could not count queries: {e}")),
    }
}
