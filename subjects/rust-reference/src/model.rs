//! The contract's payloads as typed Rust values. Unlike the framework subjects, echo
//! borrows its strings from the request body and users from the database row, so
//! serializing them again costs no allocation per field.

use std::borrow::Cow;

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
pub struct Colors<'a> {
    #[serde(borrow)]
    pub colors: Vec<Color<'a>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Color<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Text<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Text<'a>>,
    #[serde(borrow, default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Text<'a>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Code<'a>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Code<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rgba: Option<Vec<i64>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<Text<'a>>,
}

/// A string of the colors document, borrowed from the request body whenever it has no escapes
/// (with simd-json, always: it unescapes in place). serde borrows a `Cow<str>` only when it is
/// the field's whole type; inside `Option` it went through `Cow`'s own `Deserialize`, which
/// allocates a `String` for every value (about 90 per echo request). The newtype puts the `Cow`
/// back at the top of a field.
#[derive(Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Text<'a>(#[serde(borrow)] pub Cow<'a, str>);

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

/// Seed (c)'s Caesar cipher into a reused buffer: code points up to 127 move 14
/// forward, wrapping back by 26; all others are kept.
///
/// It works on bytes, not `char`s: a code point up to 127 is one ASCII byte and becomes one,
/// and every byte of a longer UTF-8 sequence is above 127 and is kept, so the result is the
/// same text as shifting `char` by `char` at a fraction of the cost (no decoding and
/// re-encoding per character, and the loop vectorizes). Returns the ciphered text.
pub fn caesar_into<'a>(text: &str, out: &'a mut Vec<u8>) -> &'a str {
    out.clear();
    out.extend(text.bytes().map(shift));
    // Valid by construction (see above); the check is a fast ASCII scan.
    std::str::from_utf8(out).unwrap_or_default()
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
        let mut out = Vec::new();
        assert_eq!(
            caesar_into("38908 Debra Neck\nNew Lisatown, OH 45098", &mut out),
            "AFG>F.Rspfo.\\sqy\u{18}\\sk.Zwgoh}k|:.]V.BC>GF"
        );
        assert_eq!(caesar_into("é~", &mut out), "ér");
        assert_eq!(caesar_into("\u{7f}\u{0}ü€😀q", &mut out), "s\u{e}ü€😀\u{7f}");
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
            let user = User { id: 1, username: "", name: "", sex: "", address: "", mail: "", birthdate: at };
            let ours = serde_json::to_string(&user).unwrap();
            let chrono = serde_json::to_string(&at).unwrap();
            assert!(ours.ends_with(&format!("\"birthdate\":{chrono}}}")), "{ours} vs {chrono}");
        }
    }

    #[test]
    fn todo_dates_are_rfc3339_milliseconds() {
        let json = serde_json::to_string(&todos()[0]).unwrap();
        let created = json.split("\"createdAt\":\"").nth(1).unwrap();
        assert_eq!(created.len(), "2026-11-29T19:01:24.123Z\"}".len(), "{json}");
    }

    #[test]
    fn colors_strings_borrow_from_the_body() {
        let mut body = br##"{"colors":[{"color":"red","category":"hue","type":"primary","code":{"rgba":[255,0,0,1],"hex":"#FF0"}}]}"##.to_vec();
        let mut buffers = simd_json::Buffers::new(body.len());
        let parsed: Colors<'_> = simd_json::serde::from_slice_with_buffers(&mut body, &mut buffers).unwrap();
        let color = &parsed.colors[0];
        let code = color.code.as_ref().unwrap();
        for text in [&color.color, &color.category, &color.kind, &code.hex] {
            assert!(matches!(text, Some(Text(Cow::Borrowed(_)))), "{text:?}");
        }
        let parsed: Colors<'_> = serde_json::from_str(r#"{"colors":[{"color":"wh\"ite"}]}"#).unwrap();
        assert!(matches!(&parsed.colors[0].color, Some(Text(Cow::Owned(s))) if s == "wh\"ite"));
    }

    #[test]
    fn colors_round_trip_keeps_absent_fields_and_escapes() {
        let input = r##"{"colors":[{"color":"wh\"ite","category":"value","code":{"rgba":[0,0,0,1],"hex":"#FFF"}}]}"##;
        let parsed: Colors<'_> = serde_json::from_str(input).unwrap();
        assert_eq!(serde_json::to_string(&parsed).unwrap(), input);
    }
}
