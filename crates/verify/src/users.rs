//! `users`: GET /users answers the 100 rows of table `"user"` read from PostgreSQL on every
//! request, addresses Caesar-ciphered, dates in any ISO 8601 spelling.

use crate::http::Endpoint;
use restbench_model::{Finding, Workload};
use serde_json::Value;

use super::answer::{TIMEOUT, envelope, fetch, parse_json};
use super::transport;
use crate::dates::{date_shape, normalise_timestamp};
use crate::payloads;
use restbench_db::{Database, UserRow};

pub fn check(to: Endpoint, db: &Database) -> Vec<Finding> {
    let mut f = Vec::new();
    let rows = match db.users() {
        Ok(rows) => rows,
        Err(e) => {
            f.push(Finding::fail(
                "database",
                format!("cannot read the users table: {e}"),
            ));
            return f;
        }
    };
    let Some(r) = fetch(to, Workload::Users, &mut f) else {
        return f;
    };
    if !envelope(&r, "GET /users", "application/json", &mut f) {
        return f;
    }
    let Some(answer) = parse_json(&r, &mut f) else {
        return f;
    };
    let Some(items) = answer.as_array() else {
        f.push(Finding::fail("body", "the answer is not a JSON array"));
        return f;
    };
    if items.len() != rows.len() {
        f.push(Finding::fail(
            "body",
            format!("{} users, expected {}", items.len(), rows.len()),
        ));
        return f;
    }
    let rows_seen = compare_rows(items, &rows);
    f.extend(rows_seen.findings(items.len()));
    f.push(no_cache(to, db, &rows));
    f.push(queries_per_request(to, db));
    f
}

/// What the answer's items showed against the table's rows.
#[derive(Default)]
struct RowsSeen {
    failures: Vec<String>,
    date_spellings: std::collections::BTreeSet<String>,
    ids: Vec<i64>,
}

/// Every item against its row: the keys, the fields, the ciphered address, the birthdate.
fn compare_rows(items: &[Value], rows: &[UserRow]) -> RowsSeen {
    let mut seen = RowsSeen::default();
    for item in items {
        if let Err(failure) = compare_row(item, rows, &mut seen) {
            seen.failures.push(failure);
        }
    }
    seen
}

fn compare_row(item: &Value, rows: &[UserRow], seen: &mut RowsSeen) -> Result<(), String> {
    let Some(obj) = item.as_object() else {
        return Err("an item is not an object".to_string());
    };
    let keys = [
        "id",
        "username",
        "name",
        "sex",
        "address",
        "mail",
        "birthdate",
    ];
    let missing: Vec<_> = keys.iter().filter(|k| !obj.contains_key(**k)).collect();
    if !missing.is_empty() {
        return Err(format!(
            "missing keys {missing:?} (has {:?})",
            obj.keys().collect::<Vec<_>>()
        ));
    }
    let Some(id) = obj["id"].as_i64() else {
        return Err(format!("id {:?} is not an integer", obj["id"]));
    };
    seen.ids.push(id);
    let Some(row) = rows.iter().find(|r| r.id == id) else {
        return Err(format!("id {id} is not in the table"));
    };
    for (key, expected) in [
        ("username", &row.username),
        ("name", &row.name),
        ("sex", &row.sex),
        ("mail", &row.mail),
    ] {
        if obj[key].as_str() != Some(expected) {
            seen.failures.push(format!(
                "id {id}: {key} {:?}, expected {expected:?}",
                obj[key]
            ));
        }
    }
    let ciphered = payloads::caesar(&row.address);
    if obj["address"].as_str() != Some(ciphered.as_str()) {
        seen.failures.push(format!(
            "id {id}: address {:?} is not the Caesar cipher of {:?} ({ciphered:?})",
            obj["address"], row.address
        ));
    }
    match obj["birthdate"].as_str().and_then(normalise_timestamp) {
        Some((ts, _)) if ts == row.birthdate => {
            seen.date_spellings
                .insert(date_shape(obj["birthdate"].as_str().unwrap_or_default()));
        }
        Some((ts, _)) => seen.failures.push(format!(
            "id {id}: birthdate {ts} is not {} (a time-zone shift?)",
            row.birthdate
        )),
        None => seen.failures.push(format!(
            "id {id}: birthdate {:?} is not an ISO 8601 timestamp",
            obj["birthdate"]
        )),
    }
    Ok(())
}

impl RowsSeen {
    /// The body's verdict (the first three failures), the date spelling, the order.
    fn findings(&self, items: usize) -> Vec<Finding> {
        let mut f = Vec::new();
        let (failures, date_spellings, ids) = (&self.failures, &self.date_spellings, &self.ids);
        if failures.is_empty() {
            f.push(Finding::pass(
                "body",
                format!(
                    "{} users match the database (cipher and dates checked)",
                    items
                ),
            ));
        } else {
            let more = if failures.len() > 3 {
                format!(" (and {} more)", failures.len() - 3)
            } else {
                String::new()
            };
            f.push(Finding::fail(
                "body",
                format!("{}{more}", failures[..failures.len().min(3)].join("; ")),
            ));
        }
        if date_spellings.len() == 1 && !date_spellings.contains("YYYY-MM-DDTHH:MM:SS") {
            f.push(Finding::warn(
                "date",
                format!(
                    "birthdate spelled {} (normalised)",
                    date_spellings.iter().next().cloned().unwrap_or_default()
                ),
            ));
        }
        if ids.windows(2).any(|w| w[0] > w[1]) {
            f.push(Finding::pass(
                "order",
                "rows are not ordered by id (allowed)",
            ));
        }
        f
    }
}

/// A changed row must show in the next answer.
fn no_cache(to: Endpoint, db: &Database, rows: &[UserRow]) -> Finding {
    let marker = format!(
        "verify-{}@example.com",
        std::process::id() as u64 * 7919 % 100_000 + rows.len() as u64
    );
    match db.set_mail(1, &marker) {
        Ok(old) => {
            let mut tmp = Vec::new();
            let fresh = fetch(to, Workload::Users, &mut tmp)
                .and_then(|r| serde_json::from_slice::<Value>(&r.body).ok())
                .and_then(|v| v.as_array().cloned())
                .is_some_and(|a| {
                    a.iter()
                        .any(|u| u["id"] == 1 && u["mail"] == marker.as_str())
                });
            let _ = db.set_mail(1, &old);
            if fresh {
                Finding::pass(
                    "no-cache",
                    "a row changed in the database shows in the next answer",
                )
            } else {
                Finding::fail(
                    "no-cache",
                    "a row changed in the database did not show in the next answer: the answer is cached",
                )
            }
        }
        Err(e) => Finding::warn(
            "no-cache",
            format!("could not change a row to check for caching: {e}"),
        ),
    }
}

/// Every request reads the table.
fn queries_per_request(to: Endpoint, db: &Database) -> Finding {
    const REQUESTS: u64 = 5;
    match db.count_user_queries(|| {
        for _ in 0..REQUESTS {
            let _ = transport::send(to, "GET", "/users", &[], b"", TIMEOUT);
        }
    }) {
        Ok((n, how)) if n >= REQUESTS => Finding::pass(
            "queries",
            format!("{n} queries for {REQUESTS} requests ({how})"),
        ),
        Ok((n, how)) => Finding::fail(
            "queries",
            format!("only {n} queries for {REQUESTS} requests ({how}): answers are cached"),
        ),
        Err(e) => Finding::warn("queries", format!("could not count queries: {e}")),
    }
}
