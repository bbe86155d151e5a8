//! The workload contract as checks (DESIGN.md §3). Each returns findings, never errors: a wrong
//! answer is data about the subject, not a failure of restbench.
//!
//! JSON is compared by meaning. Known cross-language differences (key order, `\u003e` escapes,
//! `null` vs an absent field, date spellings) are normalised and reported as warnings.

use std::net::SocketAddr;
use std::time::Duration;

use restbench_model::{Finding, FindingLevel};
use serde_json::Value;

use crate::db::Database;
use crate::fixtures::{self, HELLO, TODO_TITLES};
use crate::http::{self, Response};
use crate::workload::Workload;

const TIMEOUT: Duration = Duration::from_secs(10);
/// The body limit of the contract.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// True when no finding failed.
pub fn passed(findings: &[Finding]) -> bool {
    findings.iter().all(|f| f.level != FindingLevel::Fail)
}

/// Checks that apply to the whole server: an unknown path gets 404.
pub fn common(addr: SocketAddr) -> Vec<Finding> {
    let mut f = Vec::new();
    for path in ["/no/such/path", "/api/test/extra"] {
        match http::get(addr, path, TIMEOUT) {
            Ok(r) if r.status == 404 => f.push(Finding::pass("unknown-path", format!("GET {path} → 404"))),
            Ok(r) => f.push(Finding::fail(
                "unknown-path",
                format!("GET {path} → {} (an unknown path must get 404; the server answers paths it does not serve)", r.status),
            )),
            Err(e) => f.push(Finding::fail("unknown-path", format!("GET {path}: no answer ({e})"))),
        }
    }
    f
}

/// The checks of one workload.
pub fn workload(addr: SocketAddr, w: Workload, db: Option<&Database>) -> Vec<Finding> {
    match w {
        Workload::Plaintext => plaintext(addr),
        Workload::Todo => todo(addr),
        Workload::Echo => echo(addr),
        Workload::Users => match db {
            Some(db) => users(addr, db),
            None => vec![Finding::fail(
                "database",
                "the users workload needs a database (none was started)",
            )],
        },
    }
}

fn fetch(addr: SocketAddr, w: Workload, f: &mut Vec<Finding>) -> Option<Response> {
    let raw = http::request(
        w.method(),
        w.path(),
        &w.headers()
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect::<Vec<_>>(),
        &w.body(),
    );
    match http::exchange(addr, &raw, TIMEOUT) {
        Ok(r) => Some(r),
        Err(e) => {
            f.push(Finding::fail(
                "answer",
                format!("{} {}: no answer ({e})", w.method(), w.path()),
            ));
            None
        }
    }
}

/// Status, `Content-Type`, framing and `Date`.
fn envelope(r: &Response, what: &str, content_type: &str, f: &mut Vec<Finding>) -> bool {
    if r.status != 200 {
        f.push(Finding::fail(
            "status",
            format!(
                "{what} → {} (expected 200): {}",
                r.status,
                snippet(&r.body_text())
            ),
        ));
        return false;
    }
    f.push(Finding::pass("status", format!("{what} → 200")));
    match r.header("content-type") {
        None => f.push(Finding::fail(
            "content-type",
            format!("{what}: no Content-Type header"),
        )),
        Some(ct) if ct.to_ascii_lowercase().starts_with(content_type) => {
            f.push(Finding::pass("content-type", format!("Content-Type: {ct}")))
        }
        Some(ct) => f.push(Finding::fail(
            "content-type",
            format!("{what}: Content-Type {ct:?}, expected {content_type}"),
        )),
    }
    if r.framing == "close" {
        f.push(Finding::fail(
            "framing",
            format!(
                "{what}: neither Content-Length nor chunked; the body ends only with the connection"
            ),
        ));
    } else {
        f.push(Finding::pass("framing", format!("framed by {}", r.framing)));
    }
    if r.header("date").is_none() {
        f.push(Finding::warn("date", format!("{what}: no Date header")));
    }
    true
}

fn plaintext(addr: SocketAddr) -> Vec<Finding> {
    let mut f = Vec::new();
    let Some(r) = fetch(addr, Workload::Plaintext, &mut f) else {
        return f;
    };
    if envelope(&r, "GET /api/test", "text/plain", &mut f) {
        if r.body == HELLO.as_bytes() {
            f.push(Finding::pass("body", "body is exactly \"Hello, World!\""));
        } else if r.body_text().trim_end() == HELLO {
            f.push(Finding::warn(
                "body",
                format!("body has trailing whitespace: {:?}", r.body_text()),
            ));
        } else {
            f.push(Finding::fail(
                "body",
                format!(
                    "body {:?}, expected \"Hello, World!\"",
                    snippet(&r.body_text())
                ),
            ));
        }
    }
    f
}

fn todo(addr: SocketAddr) -> Vec<Finding> {
    let mut f = Vec::new();
    let Some(first) = fetch(addr, Workload::Todo, &mut f) else {
        return f;
    };
    if !envelope(&first, "GET /rest/todo", "application/json", &mut f) {
        return f;
    }
    let Some(items) = parse_json(&first, &mut f) else {
        return f;
    };
    let Some(items) = items.as_array() else {
        f.push(Finding::fail("body", "the answer is not a JSON array"));
        return f;
    };
    if items.len() != TODO_TITLES.len() {
        f.push(Finding::fail(
            "body",
            format!("{} items, expected 8", items.len()),
        ));
        return f;
    }
    let mut ok = true;
    let mut created = Vec::new();
    for (i, (item, title)) in items.iter().zip(TODO_TITLES).enumerate() {
        let Some(obj) = item.as_object() else {
            f.push(Finding::fail("body", format!("item {i} is not an object")));
            return f;
        };
        if obj.get("title").and_then(Value::as_str) != Some(title) {
            ok = false;
            f.push(Finding::fail(
                "body",
                format!(
                    "item {i}: title {:?}, expected {title:?} (keys: {:?})",
                    obj.get("title"),
                    obj.keys().collect::<Vec<_>>()
                ),
            ));
        }
        match obj.get("createdAt") {
            Some(Value::String(s)) => {
                match normalise_timestamp(s) {
                    Some((_, exact)) => {
                        created.push(s.clone());
                        if !exact {
                            f.push(Finding::warn("date", format!("item {i}: createdAt {s:?} has no time zone; RFC 3339 UTC expected")));
                        }
                    }
                    None => {
                        ok = false;
                        f.push(Finding::fail(
                            "date",
                            format!("item {i}: createdAt {s:?} is not an RFC 3339 timestamp"),
                        ));
                    }
                }
            }
            other => {
                ok = false;
                f.push(Finding::fail(
                    "body",
                    format!("item {i}: createdAt is {other:?}, expected an RFC 3339 string"),
                ));
            }
        }
        let extra: Vec<_> = obj
            .keys()
            .filter(|k| *k != "title" && *k != "createdAt")
            .collect();
        if !extra.is_empty() {
            f.push(Finding::warn(
                "body",
                format!("item {i}: extra keys {extra:?}"),
            ));
        }
    }
    if ok {
        f.push(Finding::pass(
            "body",
            "8 todo items with the seed's titles, in order",
        ));
    }
    // createdAt is fixed at server start.
    let mut again = Vec::new();
    if let Some(second) = fetch(addr, Workload::Todo, &mut again)
        && let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(&second.body)
    {
        let later: Vec<String> = items
            .iter()
            .filter_map(|i| i.get("createdAt")?.as_str().map(String::from))
            .collect();
        if later != created {
            f.push(Finding::warn(
                "date",
                "createdAt changed between two requests (it should be fixed at server start)",
            ));
        }
    }
    f
}

fn echo(addr: SocketAddr) -> Vec<Finding> {
    let mut f = Vec::new();
    let sent = fixtures::colors_document();
    let Some(r) = fetch(addr, Workload::Echo, &mut f) else {
        return f;
    };
    if envelope(&r, "POST /echo", "application/json", &mut f)
        && let Some(answer) = parse_json(&r, &mut f)
    {
        compare_echo(
            &serde_json::from_str(&sent).unwrap_or(Value::Null),
            &answer,
            &mut f,
        );
        if String::from_utf8_lossy(&r.body) == sent {
            f.push(Finding::warn(
                "echo",
                "the answer is byte-for-byte the request: is the body parsed at all?",
            ));
        }
    }

    // Varying bodies: a cached or canned answer would not follow.
    for round in 0..2 {
        let doc =
            fixtures::colors_document_with(1 + round, |i, name| format!("{name}-{round}-{i}"));
        let raw = http::request(
            "POST",
            "/echo",
            &[("Content-Type", "application/json")],
            doc.as_bytes(),
        );
        match http::exchange(addr, &raw, TIMEOUT) {
            Ok(r) if r.status == 200 => {
                let expected: Value = serde_json::from_str(&doc).unwrap_or(Value::Null);
                match serde_json::from_slice::<Value>(&r.body) {
                    Ok(v) if same_ignoring_nulls(&expected, &v) => {}
                    _ => {
                        f.push(Finding::fail("no-cache", format!("a different body ({} colours) got a different echo: the answer is cached or canned", 6 * (1 + round))));
                        break;
                    }
                }
            }
            Ok(r) => {
                f.push(Finding::fail(
                    "no-cache",
                    format!("a varied body got {}", r.status),
                ));
                break;
            }
            Err(e) => {
                f.push(Finding::fail(
                    "no-cache",
                    format!("a varied body got no answer ({e})"),
                ));
                break;
            }
        }
        if round == 1 {
            f.push(Finding::pass(
                "no-cache",
                "varied bodies are echoed as sent",
            ));
        }
    }

    // Malformed JSON → 400.
    let raw = http::request(
        "POST",
        "/echo",
        &[("Content-Type", "application/json")],
        b"{\"colors\": [{\"color\": ",
    );
    match http::exchange(addr, &raw, TIMEOUT) {
        Ok(r) if r.status == 400 => f.push(Finding::pass("malformed-json", "malformed JSON → 400")),
        Ok(r) if (400..500).contains(&r.status) => f.push(Finding::warn(
            "malformed-json",
            format!("malformed JSON → {} (400 expected)", r.status),
        )),
        Ok(r) => f.push(Finding::fail(
            "malformed-json",
            format!("malformed JSON → {} (400 expected)", r.status),
        )),
        Err(e) => f.push(Finding::fail(
            "malformed-json",
            format!("malformed JSON: no answer ({e})"),
        )),
    }

    // A body over 1 MiB → 413.
    let big = oversized_json();
    let raw = http::request(
        "POST",
        "/echo",
        &[("Content-Type", "application/json")],
        &big,
    );
    match http::exchange(addr, &raw, TIMEOUT) {
        Ok(r) if r.status == 413 => f.push(Finding::pass(
            "body-limit",
            format!("{} byte body → 413", big.len()),
        )),
        Ok(r) => f.push(Finding::fail(
            "body-limit",
            format!("{} byte body → {} (413 expected)", big.len(), r.status),
        )),
        Err(e) => f.push(Finding::warn(
            "body-limit",
            format!(
                "{} byte body: connection closed without a 413 ({e})",
                big.len()
            ),
        )),
    }

    // Still up after bad input.
    let mut after = Vec::new();
    match fetch(addr, Workload::Echo, &mut after) {
        Some(r) if r.status == 200 => f.push(Finding::pass(
            "stays-up",
            "still answers after malformed and oversized bodies",
        )),
        Some(r) => f.push(Finding::fail(
            "stays-up",
            format!("after bad input, a good request got {}", r.status),
        )),
        None => f.push(Finding::fail(
            "stays-up",
            "the server stopped answering after malformed or oversized bodies",
        )),
    }
    f
}

/// A valid JSON colours document just over the body limit.
pub fn oversized_json() -> Vec<u8> {
    let entry =
        br##"{"color":"black","category":"hue","code":{"rgba":[255,255,255,1],"hex":"#000"}}"##;
    let mut out = b"{\"colors\":[".to_vec();
    while out.len() <= BODY_LIMIT + 1024 {
        if out.len() > 11 {
            out.push(b',');
        }
        out.extend_from_slice(entry);
    }
    out.extend_from_slice(b"]}");
    out
}

fn compare_echo(sent: &Value, answer: &Value, f: &mut Vec<Finding>) {
    if sent == answer {
        f.push(Finding::pass("echo", "the same JSON value came back"));
    } else if same_ignoring_nulls(sent, answer) {
        f.push(Finding::warn(
            "echo",
            "the same value except `null` for absent fields (as Jackson writes \"type\": null)",
        ));
    } else {
        f.push(Finding::fail(
            "echo",
            format!(
                "a different JSON value came back: {}",
                snippet(&answer.to_string())
            ),
        ));
    }
}

/// Equality after dropping object members whose value is `null`.
fn same_ignoring_nulls(a: &Value, b: &Value) -> bool {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(_, v)| !v.is_null())
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    strip(a) == strip(b)
}

fn users(addr: SocketAddr, db: &Database) -> Vec<Finding> {
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
    let Some(r) = fetch(addr, Workload::Users, &mut f) else {
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
    let mut failures = Vec::new();
    let mut date_spellings = std::collections::BTreeSet::new();
    let mut ids = Vec::new();
    for item in items {
        let Some(obj) = item.as_object() else {
            failures.push("an item is not an object".to_string());
            continue;
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
            failures.push(format!(
                "missing keys {missing:?} (has {:?})",
                obj.keys().collect::<Vec<_>>()
            ));
            continue;
        }
        let Some(id) = obj["id"].as_i64() else {
            failures.push(format!("id {:?} is not an integer", obj["id"]));
            continue;
        };
        ids.push(id);
        let Some(row) = rows.iter().find(|r| r.id == id) else {
            failures.push(format!("id {id} is not in the table"));
            continue;
        };
        for (key, expected) in [
            ("username", &row.username),
            ("name", &row.name),
            ("sex", &row.sex),
            ("mail", &row.mail),
        ] {
            if obj[key].as_str() != Some(expected) {
                failures.push(format!(
                    "id {id}: {key} {:?}, expected {expected:?}",
                    obj[key]
                ));
            }
        }
        let ciphered = fixtures::caesar(&row.address);
        if obj["address"].as_str() != Some(ciphered.as_str()) {
            failures.push(format!(
                "id {id}: address {:?} is not the Caesar cipher of {:?} ({ciphered:?})",
                obj["address"], row.address
            ));
        }
        match obj["birthdate"].as_str().and_then(normalise_timestamp) {
            Some((ts, _)) if ts == row.birthdate => {
                date_spellings.insert(date_shape(obj["birthdate"].as_str().unwrap_or_default()));
            }
            Some((ts, _)) => failures.push(format!(
                "id {id}: birthdate {ts} is not {} (a time-zone shift?)",
                row.birthdate
            )),
            None => failures.push(format!(
                "id {id}: birthdate {:?} is not an ISO 8601 timestamp",
                obj["birthdate"]
            )),
        }
    }
    if failures.is_empty() {
        f.push(Finding::pass(
            "body",
            format!(
                "{} users match the database (cipher and dates checked)",
                items.len()
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

    // A changed row must show in the next answer.
    let marker = format!(
        "verify-{}@example.com",
        std::process::id() as u64 * 7919 % 100_000 + rows.len() as u64
    );
    match db.set_mail(1, &marker) {
        Ok(old) => {
            let mut tmp = Vec::new();
            let fresh = fetch(addr, Workload::Users, &mut tmp)
                .and_then(|r| serde_json::from_slice::<Value>(&r.body).ok())
                .and_then(|v| v.as_array().cloned())
                .is_some_and(|a| {
                    a.iter()
                        .any(|u| u["id"] == 1 && u["mail"] == marker.as_str())
                });
            let _ = db.set_mail(1, &old);
            if fresh {
                f.push(Finding::pass(
                    "no-cache",
                    "a row changed in the database shows in the next answer",
                ));
            } else {
                f.push(Finding::fail("no-cache", "a row changed in the database did not show in the next answer: the answer is cached"));
            }
        }
        Err(e) => f.push(Finding::warn(
            "no-cache",
            format!("could not change a row to check for caching: {e}"),
        )),
    }

    // Every request reads the table.
    const REQUESTS: u64 = 5;
    match db.count_user_queries(|| {
        for _ in 0..REQUESTS {
            let _ = http::get(addr, "/users", TIMEOUT);
        }
    }) {
        Ok((n, how)) if n >= REQUESTS => f.push(Finding::pass(
            "queries",
            format!("{n} queries for {REQUESTS} requests ({how})"),
        )),
        Ok((n, how)) => f.push(Finding::fail(
            "queries",
            format!("only {n} queries for {REQUESTS} requests ({how}): answers are cached"),
        )),
        Err(e) => f.push(Finding::warn(
            "queries",
            format!("could not count queries: {e}"),
        )),
    }
    f
}

fn parse_json(r: &Response, f: &mut Vec<Finding>) -> Option<Value> {
    match serde_json::from_slice::<Value>(&r.body) {
        Ok(v) => {
            let text = r.body_text();
            if text.contains("\\u003e") || text.contains("\\u003c") || text.contains("\\u0026") {
                f.push(Finding::warn(
                    "escapes",
                    "HTML-safe escapes such as \\u003e in the JSON (normalised)",
                ));
            }
            Some(v)
        }
        Err(e) => {
            f.push(Finding::fail(
                "json",
                format!("the answer is not JSON ({e}): {}", snippet(&r.body_text())),
            ));
            None
        }
    }
}

/// Parses the ISO 8601 / RFC 3339 spellings subjects use into `YYYY-MM-DD HH:MM:SS` (UTC when a
/// zone is given); the flag says whether a zone was given.
pub fn normalise_timestamp(s: &str) -> Option<(String, bool)> {
    let b = s.as_bytes();
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !(b[10] == b'T' || b[10] == b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d, h, mi, sec) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let (offset_minutes, zoned) = match rest {
        "" => (0, false),
        "Z" | "z" => (0, true),
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let z = rest[1..].replace(':', "");
            if z.len() != 4 {
                return None;
            }
            (
                sign * (z[..2].parse::<i64>().ok()? * 60 + z[2..].parse::<i64>().ok()?),
                true,
            )
        }
    };
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let epoch = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset_minutes * 60;
    Some((format_epoch(epoch), zoned))
}

fn date_shape(s: &str) -> String {
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            if c.is_ascii_digit() {
                "YYYY-MM-DDTHH:MM:SS".chars().nth(i).unwrap_or('n')
            } else {
                c
            }
        })
        .collect()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn format_epoch(t: i64) -> String {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Formats a UTC epoch second the way [`normalise_timestamp`] does (for the database side).
pub fn format_timestamp(epoch: i64) -> String {
    format_epoch(epoch)
}

fn snippet(s: &str) -> String {
    let s: String = s.chars().take(120).collect();
    s.replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_normalised_across_spellings() {
        let want = "1956-01-09 00:00:00".to_string();
        assert_eq!(
            normalise_timestamp("1956-01-09T00:00:00"),
            Some((want.clone(), false))
        );
        assert_eq!(
            normalise_timestamp("1956-01-09T00:00:00Z"),
            Some((want.clone(), true))
        );
        assert_eq!(
            normalise_timestamp("1956-01-09T00:00:00.000Z"),
            Some((want.clone(), true))
        );
        assert_eq!(
            normalise_timestamp("1956-01-09T01:30:00+01:30"),
            Some((want.clone(), true))
        );
        assert_eq!(
            normalise_timestamp("1956-01-08T23:00:00-01:00"),
            Some((want, true))
        );
        for bad in [
            "1956-01-09",
            "yesterday",
            "1956-13-09T00:00:00Z",
            "1956-01-09T00:00:00+1",
        ] {
            assert_eq!(normalise_timestamp(bad), None, "{bad}");
        }
    }

    #[test]
    fn nulls_for_absent_fields_are_tolerated() {
        let a: Value = serde_json::from_str(r#"{"a":1,"b":[{"c":2}]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b":[{"c":2,"t":null}],"a":1}"#).unwrap();
        assert!(same_ignoring_nulls(&a, &b));
        let mut f = Vec::new();
        compare_echo(&a, &b, &mut f);
        assert_eq!(f[0].level, FindingLevel::Warn);
    }

    #[test]
    fn oversized_json_is_valid_and_over_the_limit() {
        let big = oversized_json();
        assert!(big.len() > BODY_LIMIT);
        assert!(serde_json::from_slice::<Value>(&big).is_ok());
    }

    #[test]
    fn epoch_formatting_round_trips() {
        assert_eq!(format_epoch(0), "1970-01-01 00:00:00");
        assert_eq!(
            format_epoch(days_from_civil(2000, 2, 29) * 86_400 + 61),
            "2000-02-29 00:01:01"
        );
        assert_eq!(
            format_epoch(days_from_civil(1940, 12, 31) * 86_400),
            "1940-12-31 00:00:00"
        );
    }
}
