//! The contract's payloads as typed Rust values: todo items, the colors document
//! and the users rows with their Caesar-ciphered address.

use chrono::{Datelike, NaiveDateTime, SecondsFormat, SubsecRound, Timelike, Utc};
use serde::{Deserialize, Serialize, Serializer};

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
    /// The start-up time as RFC 3339 UTC with milliseconds, e.g. `2026-11-29T19:01:24.123Z`.
    /// The contract fixes it at start-up, so it is formatted once there: chrono's `format`
    /// re-reads its pattern and allocates on every call, which was most of a todo answer's cost.
    pub created_at: String,
}

/// The 8 todo items, all stamped with the start-up time (truncated to milliseconds).
pub fn todos() -> Vec<Todo> {
    let created_at = Utc::now().trunc_subsecs(3).to_rfc3339_opts(SecondsFormat::Millis, true);
    TODO_TITLES
        .iter()
        .map(|&title| Todo { title, created_at: created_at.clone() })
        .collect()
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
    #[serde(serialize_with = "iso8601_seconds")]
    pub birthdate: NaiveDateTime,
}

/// Writes `1956-01-09T00:00:00` (what chrono's own `Serialize` writes for whole seconds in
/// years 0–9999) from the fields into a stack buffer. chrono's `Serialize` goes through
/// `Display` and `collect_str`, which escapes the text one `char` at a time: about 2,000
/// instructions per row, a fifth of a users answer. Other values keep chrono's spelling.
fn iso8601_seconds<S: Serializer>(at: &NaiveDateTime, serializer: S) -> Result<S::Ok, S::Error> {
    let year = at.year();
    if !(0..=9999).contains(&year) || at.nanosecond() != 0 {
        return at.serialize(serializer);
    }
    let mut text = *b"0000-00-00T00:00:00";
    let mut put = |at: usize, digits: usize, mut value: u32| {
        for i in (at..at + digits).rev() {
            text[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year.unsigned_abs());
    put(5, 2, at.month());
    put(8, 2, at.day());
    put(11, 2, at.hour());
    put(14, 2, at.minute());
    put(17, 2, at.second());
    // Only ASCII digits and separators were written.
    serializer.serialize_str(std::str::from_utf8(&text).unwrap_or_default())
}

/// Seed (c)'s Caesar cipher: code points up to 127 move 14 forward, wrapping back by 26;
/// all others are kept.
///
/// It works on bytes, not `char`s: a code point up to 127 is one ASCII byte and becomes one,
/// and every byte of a longer UTF-8 sequence is above 127 and is kept, so the result is the
/// same text as shifting `char` by `char` at a fraction of the cost (no decoding and
/// re-encoding per character, and the loop vectorizes).
pub fn caesar(text: &str) -> String {
    let bytes: Vec<u8> = text.bytes().map(shift).collect();
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn shift(n: u8) -> u8 {
    if n > 127 {
        return n;
    }
    let shifted = n + 14;
    if shifted > 127 { shifted - 26 } else { shifted }
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
        assert_eq!(caesar("\u{7f}\u{0}ü€😀q"), "s\u{e}ü€😀\u{7f}");
    }

    #[test]
    fn birthdates_are_spelled_as_chrono_spells_them() {
        let date = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
        for at in [
            date(1956, 1, 9).and_hms_opt(0, 0, 0).unwrap(),
            date(2001, 12, 31).and_hms_opt(23, 59, 58).unwrap(),
            date(33, 2, 3).and_hms_opt(4, 5, 6).unwrap(),
            date(1999, 7, 1).and_hms_milli_opt(1, 2, 3, 456).unwrap(),
            date(12345, 1, 1).and_hms_opt(0, 0, 0).unwrap(),
        ] {
            let ours = serde_json::to_string(&User {
                id: 1,
                username: String::new(),
                name: String::new(),
                sex: String::new(),
                address: String::new(),
                mail: String::new(),
                birthdate: at,
            })
            .unwrap();
            let chrono = serde_json::to_string(&at).unwrap();
            assert!(ours.ends_with(&format!("\"birthdate\":{chrono}}}")), "{ours} vs {chrono}");
        }
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
