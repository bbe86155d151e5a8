//! The contract's payloads as typed Rust values: todo items, the colors document
//! and the users rows with their Caesar-ciphered address.

use chrono::{DateTime, NaiveDateTime, SubsecRound, Utc};
use serde::{Deserialize, Serialize};

/// Titles of seed (b)'s todo list, in the order the contract requires.
const TODO_TITLES: [&str; 8] = [
    "Do some stuff",
    "Do more stuff",
    "Even more stuff",
    "Yihaa",
    "Java is great! Or isn't it?",
    "Foo Bar",
    "Lorem ipsum",
    "Dolor sit amet",
];

/// One todo item; kept in memory and serialized on every request.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    pub title: &'static str,
    /// Serialized as RFC 3339 UTC with milliseconds, e.g. `2026-11-29T19:01:24.123Z`.
    #[serde(serialize_with = "rfc3339_millis")]
    pub created_at: DateTime<Utc>,
}

fn rfc3339_millis<S: serde::Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&at.format("%Y-%m-%dT%H:%M:%S%.3fZ"))
}

/// The 8 todo items, all stamped with the start-up time (truncated to milliseconds).
pub fn todos() -> Vec<Todo> {
    let created_at = Utc::now().trunc_subsecs(3);
    TODO_TITLES.iter().map(|&title| Todo { title, created_at }).collect()
}

/// Seed (a)'s colors document. Every field is optional and skipped when absent,
/// like the seed's Go struct with `omitempty`, so a value round-trips unchanged.
#[derive(Debug, Serialize, Deserialize)]
pub struct Colors {
    pub colors: Vec<Color>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Color {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Code>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Code {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rgba: Option<Vec<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
}

/// One row of table `"user"`, as the users endpoint returns it.
#[derive(Debug, Serialize)]
pub struct User {
    pub id: i32,
    pub username: String,
    pub name: String,
    pub sex: String,
    /// Already ciphered with [`caesar`].
    pub address: String,
    pub mail: String,
    /// Serialized as ISO 8601 without offset, e.g. `1956-01-09T00:00:00`.
    pub birthdate: NaiveDateTime,
}

/// Seed (c)'s Caesar cipher: code points up to 127 move 14 forward, wrapping back by 26.
pub fn caesar(text: &str) -> String {
    text.chars().map(shift).collect()
}

fn shift(c: char) -> char {
    match u8::try_from(c) {
        Ok(n) if n <= 127 => {
            let shifted = n + 14;
            char::from(if shifted > 127 { shifted - 26 } else { shifted })
        }
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caesar_matches_the_contract_example() {
        assert_eq!(
            caesar("38908 Debra Neck\nNew Lisatown, OH 45098"),
            "AFG>F.Rspfo.\\sqy\u{18}\\sk.Zwgoh}k|:.]V.BC>GF"
        );
        assert_eq!(caesar("é"), "é");
    }

    #[test]
    fn colors_round_trip_keeps_absent_fields_absent() {
        let input = r##"{"colors":[{"color":"white","category":"value","code":{"rgba":[0,0,0,1],"hex":"#FFF"}}]}"##;
        let parsed: Colors = serde_json::from_str(input).unwrap();
        assert_eq!(serde_json::to_string(&parsed).unwrap(), input);
    }

    #[test]
    fn todo_dates_are_rfc3339_milliseconds() {
        let json = serde_json::to_string(&todos()[0]).unwrap();
        let created = json.split("\"createdAt\":\"").nth(1).unwrap();
        assert_eq!(created.len(), "2026-11-29T19:01:24.123Z\"}".len(), "{json}");
    }
}
