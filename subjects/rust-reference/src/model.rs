//! The contract's payloads as typed Rust values. Unlike the framework subjects, echo
//! borrows its strings from the request body and users from the database row, so
//! serializing them again costs no allocation per field.

use std::borrow::Cow;

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
pub struct Colors<'a> {
    #[serde(borrow)]
    pub colors: Vec<Color<'a>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Color<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Code<'a>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Code<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rgba: Option<Vec<i64>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<Cow<'a, str>>,
}

/// One row of table `"user"`, borrowing its text from the database row.
#[derive(Debug, Serialize)]
pub struct User<'a> {
    pub id: i32,
    pub username: &'a str,
    pub name: &'a str,
    pub sex: &'a str,
    /// Already ciphered with [`caesar_into`].
    pub address: &'a str,
    pub mail: &'a str,
    /// Serialized as ISO 8601 without offset, e.g. `1956-01-09T00:00:00`.
    pub birthdate: NaiveDateTime,
}

/// Seed (c)'s Caesar cipher into a reused buffer: code points up to 127 move 14
/// forward, wrapping back by 26; all others are kept.
pub fn caesar_into(text: &str, out: &mut String) {
    out.clear();
    out.extend(text.chars().map(shift));
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
        let mut out = String::new();
        caesar_into("38908 Debra Neck\nNew Lisatown, OH 45098", &mut out);
        assert_eq!(out, "AFG>F.Rspfo.\\sqy\u{18}\\sk.Zwgoh}k|:.]V.BC>GF");
        caesar_into("é~", &mut out);
        assert_eq!(out, "ér");
    }

    #[test]
    fn colors_round_trip_keeps_absent_fields_and_escapes() {
        let input = r##"{"colors":[{"color":"wh\"ite","category":"value","code":{"rgba":[0,0,0,1],"hex":"#FFF"}}]}"##;
        let parsed: Colors<'_> = serde_json::from_str(input).unwrap();
        assert_eq!(serde_json::to_string(&parsed).unwrap(), input);
    }
}
