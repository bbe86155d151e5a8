//! `todo`: GET /rest/todo answers the 8 todo items of seed b, with a `createdAt` fixed at
//! server start.

use crate::http::{Endpoint, Response};
use restbench_model::{Finding, Workload};
use serde_json::Value;

use super::answer::{envelope, fetch, parse_json};
use crate::dates::normalise_timestamp;
use crate::payloads::TODO_TITLES;

pub fn check(to: Endpoint) -> Vec<Finding> {
    let mut f = Vec::new();
    let Some(first) = fetch(to, Workload::Todo, &mut f) else {
        return f;
    };
    if !envelope(&first, "GET /rest/todo", "application/json", &mut f) {
        return f;
    }
    let Some(created) = document(&first, &mut f) else {
        return f;
    };
    f.extend(created_at_fixed(to, &created));
    f
}

/// The body of an answer as todo's document: 8 items with the seed's titles, in order, each with
/// a `createdAt` (returned, as far as the items had one). `None` when it is no list of 8 objects
/// (the findings say why).
pub(super) fn document(r: &Response, f: &mut Vec<Finding>) -> Option<Vec<String>> {
    let items = parse_json(r, f)?;
    let Some(items) = items.as_array() else {
        f.push(Finding::fail("body", "the answer is not a JSON array"));
        return None;
    };
    if items.len() != TODO_TITLES.len() {
        f.push(Finding::fail(
            "body",
            format!("{} items, expected 8", items.len()),
        ));
        return None;
    }
    let mut ok = true;
    let mut created = Vec::new();
    for (i, (item, title)) in items.iter().zip(TODO_TITLES).enumerate() {
        let Some(obj) = item.as_object() else {
            f.push(Finding::fail("body", format!("item {i} is not an object")));
            return None;
        };
        ok &= check_item(i, obj, title, f, &mut created);
    }
    if ok {
        f.push(Finding::pass(
            "body",
            "8 todo items with the seed's titles, in order",
        ));
    }
    Some(created)
}

/// One item against its title: the title, a `createdAt` timestamp (kept in `created`), no
/// other key; false when it fails.
fn check_item(
    i: usize,
    obj: &serde_json::Map<String, Value>,
    title: &str,
    f: &mut Vec<Finding>,
    created: &mut Vec<String>,
) -> bool {
    let mut ok = true;
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
        Some(Value::String(s)) => match normalise_timestamp(s) {
            Some((_, exact)) => {
                created.push(s.clone());
                if !exact {
                    f.push(Finding::warn(
                        "date",
                        format!(
                            "item {i}: createdAt {s:?} has no time zone; RFC 3339 UTC expected"
                        ),
                    ));
                }
            }
            None => {
                ok = false;
                f.push(Finding::fail(
                    "date",
                    format!("item {i}: createdAt {s:?} is not an RFC 3339 timestamp"),
                ));
            }
        },
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
    ok
}

/// `createdAt` is fixed at server start: a second answer has the same.
fn created_at_fixed(to: Endpoint, created: &[String]) -> Option<Finding> {
    let mut again = Vec::new();
    if let Some(second) = fetch(to, Workload::Todo, &mut again)
        && let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(&second.body)
    {
        let later: Vec<String> = items
            .iter()
            .filter_map(|i| i.get("createdAt")?.as_str().map(String::from))
            .collect();
        if later != created {
            return Some(Finding::warn(
                "date",
                "createdAt changed between two requests (it should be fixed at server start)",
            ));
        }
    }
    None
}
