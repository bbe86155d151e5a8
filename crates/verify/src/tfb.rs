//! The rules every TechEmpower test type shares, as TechEmpower's verifier applies them
//! (`toolset/test_types/verifications.py` in TechEmpower/FrameworkBenchmarks: `verify_headers`,
//! `verify_randomnumber_object`, `verify_query_cases`), each a finding with the rule and the
//! evidence: Server, Date and Content-Type present, a length or chunked framing, Date spelled as
//! an HTTP date and changing between two requests seconds apart, the Content-Type of the type,
//! World rows as `{"id", "randomNumber"}` in range, and the clamp of the row count.

use std::time::{Duration, Instant};

use restbench_model::Finding;
use serde_json::Value;

use super::answer::{TIMEOUT, snippet};
use super::transport;
use crate::http::{Endpoint, Response};

/// How far apart the two requests of the Date check are (TechEmpower sleeps 3 s).
pub const DATE_GAP: Duration = Duration::from_secs(3);

/// The answer's kind, for its Content-Type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Json,
    Html,
}

/// `GET path`; no answer is a failed `answer` check.
pub fn get(to: Endpoint, path: &str, f: &mut Vec<Finding>) -> Option<Response> {
    match transport::send(to, "GET", path, &[], b"", TIMEOUT) {
        Ok(r) => Some(r),
        Err(e) => {
            f.push(Finding::fail(
                "answer",
                format!("GET {path}: no answer ({e})"),
            ));
            None
        }
    }
}

/// Status 200, then TechEmpower's header rules; false when the status is not 200 (nothing
/// else is worth checking then).
pub fn envelope(r: &Response, path: &str, kind: Kind, f: &mut Vec<Finding>) -> bool {
    if r.status != 200 {
        f.push(Finding::fail(
            "status",
            format!(
                "GET {path} → {} (expected 200): {}",
                r.status,
                snippet(&r.body_text())
            ),
        ));
        return false;
    }
    f.push(Finding::pass("status", format!("GET {path} → 200")));
    headers(r, path, kind, f);
    true
}

/// Server, Date (and its spelling), Content-Type (by kind) and framing.
fn headers(r: &Response, path: &str, kind: Kind, f: &mut Vec<Finding>) {
    match r.header("server") {
        Some(s) if !s.trim().is_empty() => f.push(Finding::pass("server", format!("Server: {s}"))),
        _ => f.push(Finding::fail(
            "server",
            format!("GET {path}: no Server header (TechEmpower requires Server and Date)"),
        )),
    }
    match r.header("date") {
        None => f.push(Finding::fail(
            "date",
            format!("GET {path}: no Date header (TechEmpower requires Server and Date)"),
        )),
        Some(d) if is_http_date(d) => f.push(Finding::pass("date", format!("Date: {d}"))),
        Some(d) => f.push(Finding::fail(
            "date",
            format!(
                "GET {path}: Date {d:?} is not an HTTP date (`%a, %d %b %Y %H:%M:%S GMT`, \
                 as in Sun, 06 Nov 1994 08:49:37 GMT)"
            ),
        )),
    }
    let (expected, ok): (&str, fn(&str) -> bool) = match kind {
        Kind::Json => (
            "application/json, optionally with ; charset=utf-8",
            json_type,
        ),
        Kind::Html => ("text/html; charset=utf-8", html_type),
    };
    match r.header("content-type") {
        Some(ct) if ok(ct) => f.push(Finding::pass("content-type", format!("Content-Type: {ct}"))),
        Some(ct) => f.push(Finding::fail(
            "content-type",
            format!("GET {path}: Content-Type {ct:?}, expected {expected}"),
        )),
        None => f.push(Finding::fail(
            "content-type",
            format!("GET {path}: no Content-Type header"),
        )),
    }
    if r.framing == "close" {
        f.push(Finding::fail(
            "framing",
            format!("GET {path}: neither Content-Length nor Transfer-Encoding"),
        ));
    }
}

/// The Date checks of one or more answers, each finished by a second request [`DATE_GAP`]
/// after its first: a server must not send a Date it rendered once. The second halves wait
/// together, so a group of cells verified one after another sleeps one gap, not one each.
#[derive(Debug, Default)]
pub struct DateChecks {
    pending: Vec<DateProbe>,
}

/// A first answer's Date, where it came from and when.
#[derive(Debug)]
struct DateProbe {
    to: Endpoint,
    path: String,
    before: String,
    at: Instant,
}

impl DateChecks {
    /// Remembers `first`'s Date for a second request to `path` later; an answer without a Date
    /// has failed its envelope already and is not probed.
    pub fn probe(&mut self, to: Endpoint, path: &str, first: &Response) {
        if let Some(before) = first.header("date") {
            self.pending.push(DateProbe {
                to,
                path: path.to_string(),
                before: before.to_string(),
                at: Instant::now(),
            });
        }
    }

    /// How many second requests are still to be sent.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The second requests, each once [`DATE_GAP`] has passed since its first: the findings in
    /// the order the probes were taken.
    pub fn finish(self) -> Vec<Finding> {
        let mut f = Vec::new();
        for p in self.pending {
            if let Some(wait) = DATE_GAP.checked_sub(p.at.elapsed()) {
                std::thread::sleep(wait);
            }
            p.second(&mut f);
        }
        f
    }
}

impl DateProbe {
    fn second(self, f: &mut Vec<Finding>) {
        let DateProbe {
            to,
            path,
            before,
            at,
        } = self;
        let mut ignored = Vec::new();
        let Some(later) = get(to, &path, &mut ignored) else {
            f.extend(ignored);
            return;
        };
        let apart = at.elapsed().as_secs_f64();
        match later.header("date") {
            Some(after) if after != before => f.push(Finding::pass(
                "date-changes",
                format!("Date moved from {before:?} to {after:?} in {apart:.0} s"),
            )),
            after => f.push(Finding::fail(
                "date-changes",
                format!(
                    "GET {path}: two requests {apart:.0} s apart both got Date {before:?} (then \
                     {after:?}): the Date is frozen, not rendered at least once a second"
                ),
            )),
        }
    }
}

/// `^application/json(; ?charset=(UTF|utf)-8)?$`, TechEmpower's rule.
fn json_type(ct: &str) -> bool {
    match ct.strip_prefix("application/json") {
        Some("") => true,
        Some(rest) => charset_utf8(rest),
        None => false,
    }
}

/// `^text/html; ?charset=(UTF|utf)-8$`, TechEmpower's rule.
fn html_type(ct: &str) -> bool {
    ct.strip_prefix("text/html").is_some_and(charset_utf8)
}

/// `; ?charset=(UTF|utf)-8` exactly.
fn charset_utf8(rest: &str) -> bool {
    let rest = rest
        .strip_prefix(';')
        .map(|r| r.strip_prefix(' ').unwrap_or(r));
    matches!(rest, Some("charset=UTF-8" | "charset=utf-8"))
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the spelling of HTTP's Date (RFC 9110
/// §5.6.7) and of TechEmpower's `%a, %d %b %Y %H:%M:%S %Z` (which also takes UTC).
pub fn is_http_date(d: &str) -> bool {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let parts: Vec<&str> = d.split(' ').collect();
    let [day, date, month, year, time, zone] = parts[..] else {
        return false;
    };
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let clock: Vec<&str> = time.split(':').collect();
    day.strip_suffix(',').is_some_and(|d| DAYS.contains(&d))
        && digits(date, 2)
        && MONTHS.contains(&month)
        && digits(year, 4)
        && clock.len() == 3
        && clock.iter().all(|c| digits(c, 2))
        && matches!(zone, "GMT" | "UTC")
}

/// A World row as TechEmpower's `verify_randomnumber_object` reads it (keys case-insensitive):
/// `(id, randomNumber)`, or why not. An id outside 1..=10,000 or a number above 10,000 is a
/// failure here (TechEmpower only warns): the table holds no such row.
pub fn world_row(v: &Value) -> Result<(i64, i64), String> {
    let Some(obj) = v.as_object() else {
        return Err(format!("{} is not a JSON object", snippet(&v.to_string())));
    };
    let field = |name: &str| {
        obj.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    };
    let (Some(id), Some(number)) = (field("id"), field("randomNumber")) else {
        return Err(format!(
            "{} lacks id or randomNumber",
            snippet(&v.to_string())
        ));
    };
    let (Some(id), Some(number)) = (id.as_i64(), number.as_i64()) else {
        return Err(format!(
            "{} has a non-integer id or randomNumber",
            snippet(&v.to_string())
        ));
    };
    if !(1..=10_000).contains(&id) || !(1..=10_000).contains(&number) {
        return Err(format!(
            "{} is out of range (id and randomNumber are 1..10,000)",
            snippet(&v.to_string())
        ));
    }
    if obj.len() > 2 {
        return Err(format!(
            "{} has keys beyond id and randomNumber",
            snippet(&v.to_string())
        ));
    }
    Ok((id, number))
}

/// The answer as a JSON array of `len` World rows, or a failed `rows` check saying why.
pub fn world_list(
    r: &Response,
    len: usize,
    what: &str,
    f: &mut Vec<Finding>,
) -> Option<Vec<(i64, i64)>> {
    let v: Value = match serde_json::from_slice(&r.body) {
        Ok(v) => v,
        Err(e) => {
            f.push(Finding::fail(
                "rows",
                format!("{what}: not JSON ({e}): {}", snippet(&r.body_text())),
            ));
            return None;
        }
    };
    let Some(items) = v.as_array() else {
        f.push(Finding::fail(
            "rows",
            format!(
                "{what}: the answer is not a JSON array: {}",
                snippet(&r.body_text())
            ),
        ));
        return None;
    };
    if items.len() != len {
        f.push(Finding::fail(
            "rows",
            format!("{what}: {} rows, expected {len}", items.len()),
        ));
        return None;
    }
    match items.iter().map(world_row).collect::<Result<Vec<_>, _>>() {
        Ok(rows) => Some(rows),
        Err(e) => {
            f.push(Finding::fail("rows", format!("{what}: {e}")));
            None
        }
    }
}

/// TechEmpower's clamp cases for `?queries=` and `?count=`: the value sent and the rows
/// expected (1..500; missing, zero or not a number → 1).
pub const CLAMPS: [(&str, usize); 5] = [("2", 2), ("0", 1), ("foo", 1), ("501", 500), ("", 1)];

/// Each clamp case of `route?param=`: the rows answered must be the clamped count, each a
/// World row in range. Returns the rows of each case that passed, by value sent.
pub fn clamps(
    to: Endpoint,
    route: &str,
    param: &str,
    f: &mut Vec<Finding>,
) -> Vec<(&'static str, Vec<(i64, i64)>)> {
    let mut answered = Vec::new();
    for (value, len) in CLAMPS {
        let path = format!("{route}?{param}={value}");
        let mut case = Vec::new();
        let Some(r) = get(to, &path, &mut case) else {
            f.extend(case.into_iter().map(|c| Finding::fail("clamp", c.message)));
            continue;
        };
        if r.status != 200 {
            f.push(Finding::fail(
                "clamp",
                format!(
                    "GET {path} → {} (expected 200 with {len} rows: {param} is clamped to 1..500, \
                         missing or not a number → 1)",
                    r.status
                ),
            ));
            continue;
        }
        match world_list(&r, len, &format!("GET {path}"), &mut case) {
            Some(rows) => {
                f.push(Finding::pass(
                    "clamp",
                    format!("{param}={value:?} → {len} rows"),
                ));
                answered.push((value, rows));
            }
            None => f.extend(case.into_iter().map(|c| {
                Finding::fail(
                    "clamp",
                    format!(
                        "{} ({param} is clamped to 1..500, missing or not a number → 1)",
                        c.message
                    ),
                )
            })),
        }
    }
    answered
}

/// Rows of an answer against the table's rows now, by id: the first mismatches, or none.
pub fn against_table(rows: &[(i64, i64)], table: &[(i32, i32)]) -> Vec<String> {
    rows.iter()
        .filter_map(|(id, number)| {
            let have = table
                .get((*id - 1) as usize)
                .filter(|(tid, _)| i64::from(*tid) == *id)
                .map(|(_, n)| i64::from(*n));
            (have != Some(*number)).then(|| match have {
                Some(n) => format!("id {id}: randomNumber {number}, the table has {n}"),
                None => format!("id {id} is not in the table"),
            })
        })
        .take(3)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_types_follow_techempowers_patterns() {
        for ok in [
            "application/json",
            "application/json; charset=utf-8",
            "application/json;charset=UTF-8",
        ] {
            assert!(json_type(ok), "{ok}");
        }
        for bad in [
            "application/json; charset=latin-1",
            "text/json",
            "application/jsonx",
            "application/json;  charset=utf-8",
        ] {
            assert!(!json_type(bad), "{bad}");
        }
        assert!(html_type("text/html; charset=utf-8") && html_type("text/html;charset=UTF-8"));
        assert!(!html_type("text/html") && !html_type("text/html; charset=iso-8859-1"));
    }

    #[test]
    fn http_dates_are_imf_fixdates() {
        assert!(is_http_date("Sun, 06 Nov 1994 08:49:37 GMT"));
        assert!(is_http_date("Tue, 01 Dec 2026 23:12:28 UTC"));
        for bad in [
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "2026-12-01T23:12:28Z",
            "",
            "Sun, 06 Nov 1994 08:49:3é GMT",
        ] {
            assert!(!is_http_date(bad), "{bad}");
        }
    }

    #[test]
    fn world_rows_are_read_as_techempower_reads_them() {
        assert_eq!(
            world_row(&json!({"id": 5, "randomNumber": 77})),
            Ok((5, 77))
        );
        assert_eq!(
            world_row(&json!({"id": 5, "randomnumber": 77})),
            Ok((5, 77))
        );
        for bad in [
            json!([5, 77]),
            json!({"id": 5}),
            json!({"id": "5", "randomNumber": 77}),
            json!({"id": 0, "randomNumber": 77}),
            json!({"id": 5, "randomNumber": 10_001}),
            json!({"id": 5, "randomNumber": 7, "extra": 1}),
        ] {
            assert!(world_row(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rows_are_compared_with_the_table_by_id() {
        let table = [(1, 10), (2, 20), (3, 30)];
        assert!(against_table(&[(2, 20), (3, 30)], &table).is_empty());
        let wrong = against_table(&[(2, 21), (4, 1)], &table);
        assert_eq!(wrong.len(), 2, "{wrong:?}");
        assert!(wrong[0].contains("the table has 20"), "{wrong:?}");
    }
}
