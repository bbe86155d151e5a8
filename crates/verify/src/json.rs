//! `json`: GET /json answers `{"message":"Hello, World!"}` (TechEmpower's JSON serialization
//! test, `toolset/test_types/json/json.py`): one key, that message, 27 bytes without spaces,
//! with TechEmpower's headers.

use restbench_model::{Finding, Workload};
use serde_json::Value;

use super::answer::snippet;
use super::tfb::{self, DateChecks, Kind};
use crate::http::Endpoint;

pub fn check(to: Endpoint, dates: &mut DateChecks) -> Vec<Finding> {
    let mut f = Vec::new();
    let path = Workload::Json.path();
    let Some(r) = tfb::get(to, path, &mut f) else {
        return f;
    };
    if !tfb::envelope(&r, path, Kind::Json, &mut f) {
        return f;
    }
    f.extend(body(&r.body));
    dates.probe(to, path, &r);
    f
}

/// The body as TechEmpower's `verify_helloworld_object` reads it, keys and message compared
/// without case; a different case, another key or extra bytes are warnings.
fn body(bytes: &[u8]) -> Vec<Finding> {
    let text = String::from_utf8_lossy(bytes);
    let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(bytes) else {
        return vec![Finding::fail(
            "body",
            format!("not a JSON object: {}", snippet(&text)),
        )];
    };
    let Some((key, message)) = obj.iter().find(|(k, _)| k.eq_ignore_ascii_case("message")) else {
        return vec![Finding::fail(
            "body",
            format!("no key \"message\": {}", snippet(&text)),
        )];
    };
    let Some(message) = message
        .as_str()
        .filter(|m| m.eq_ignore_ascii_case("Hello, World!"))
    else {
        return vec![Finding::fail(
            "body",
            format!("message {message}, expected \"Hello, World!\""),
        )];
    };
    let mut f = vec![Finding::pass("body", format!("{{{key:?}: {message:?}}}"))];
    if key != "message" || message != "Hello, World!" {
        f.push(Finding::warn(
            "body",
            format!("spelled {key:?}: {message:?}, not \"message\": \"Hello, World!\""),
        ));
    }
    if obj.len() > 1 {
        f.push(Finding::warn(
            "body",
            format!("keys beyond message: {}", snippet(&text)),
        ));
    }
    if bytes.len() > 27 {
        f.push(Finding::warn(
            "body",
            format!(
                "{} bytes where 27 do (whitespace?): {}",
                bytes.len(),
                snippet(&text)
            ),
        ));
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::FindingLevel;

    fn levels(b: &str) -> Vec<FindingLevel> {
        body(b.as_bytes()).into_iter().map(|f| f.level).collect()
    }

    #[test]
    fn the_message_is_checked_as_techempower_checks_it() {
        use FindingLevel::*;
        assert_eq!(levels(r#"{"message":"Hello, World!"}"#), [Pass]);
        assert_eq!(levels(r#"{"message": "Hello, World!"}"#), [Pass, Warn]);
        assert_eq!(levels(r#"{"Message":"hello, world!"}"#), [Pass, Warn]);
        assert_eq!(levels(r#"{"message":"Hello"}"#), [Fail]);
        assert_eq!(levels(r#"["Hello, World!"]"#), [Fail]);
        assert_eq!(levels(r#"{"msg":"Hello, World!"}"#), [Fail]);
    }
}
