//! Timestamps as subjects and PostgreSQL spell them, normalised so two spellings of one instant
//! compare equal. A leaf: the verifier and the database code both use it, and neither the other.

use restbench_model::vocabulary::time::{days_from_civil, format_epoch};

/// Parses the ISO 8601 / RFC 3339 spellings subjects use into `YYYY-MM-DD HH:MM:SS` (UTC when a
/// zone is given); the flag says whether a zone was given.
///
/// The input comes from a subject's answer, so it may hold anything: every field is checked byte
/// by byte (ASCII digits only, no signs), and nothing is sliced except at ASCII positions already
/// checked, so multi-byte characters anywhere give `None`, never a panic.
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
    let (y, mo, d, h, mi, sec) = (
        digits(&b[0..4])?,
        digits(&b[5..7])?,
        digits(&b[8..10])?,
        digits(&b[11..13])?,
        digits(&b[14..16])?,
        digits(&b[17..19])?,
    );
    let mut rest = &b[19..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        rest = &frac[n..];
    }
    let (offset_minutes, zoned) = match rest {
        b"" => (0, false),
        b"Z" | b"z" => (0, true),
        [sign @ (b'+' | b'-'), zone @ ..] => {
            let sign = if *sign == b'+' { 1 } else { -1 };
            let (hh, mm) = match zone {
                [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => ([*h1, *h2], [*m1, *m2]),
                _ => return None,
            };
            let (hh, mm) = (digits(&hh)?, digits(&mm)?);
            if hh > 23 || mm > 59 {
                return None;
            }
            (sign * (hh * 60 + mm), true)
        }
        _ => return None,
    };
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let epoch = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset_minutes * 60;
    Some((format_epoch(epoch), zoned))
}

/// The value of a run of ASCII digits (at most 4 here), `None` for anything else — including the
/// `+`/`-` signs `str::parse` would accept.
fn digits(b: &[u8]) -> Option<i64> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0, |n, c| n * 10 + i64::from(c - b'0')))
}

/// Formats a UTC epoch second the way [`normalise_timestamp`] does (for the database side).
pub fn format_timestamp(epoch: i64) -> String {
    format_epoch(epoch)
}

/// The spelling of a timestamp with its digits replaced by the field letters
/// (`1956-01-09T00:00:00Z` → `YYYY-MM-DDTHH:MM:SSZ`), to report how a subject
/// writes dates.
pub fn date_shape(s: &str) -> String {
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
        assert_eq!(date_shape("1956-01-09T00:00:00Z"), "YYYY-MM-DDTHH:MM:SSZ");
    }

    #[test]
    fn non_ascii_anywhere_is_refused_not_a_panic() {
        for bad in [
            "2020-01-01T00:00:00+1é1",
            "2020-01-01T00:00:00+é:11",
            "2020-01-01T00:00:00+01:é",
            "2020-01-01T00:00:00-0é",
            "2020-01-01T00:00:00.5é",
            "2020-01-01T00:00:00é",
            "2020-01-01T00:00:0é",
            "2020-01-01T00:00:é0",
            "2020-01-01T00:00:00Zé",
            "é020-01-01T00:00:00Z",
            "20é0-01-01T00:00:00Z",
            "2020-0é-01T00:00:00Z",
            "2020-01-01é00:00:00Z",
            "2020-01-01T00:00:00+😀",
            "2020-01-01T00:00:00+0😀",
            "2020-01-01T00:00:00+01:0😀",
            "２０２０-01-01T00:00:00Z",
            "2020-01-01T00:00:00+\u{663}\u{661}:00",
        ] {
            assert_eq!(normalise_timestamp(bad), None, "{bad}");
            date_shape(bad);
        }
    }

    #[test]
    fn signs_and_out_of_range_offsets_are_refused() {
        for bad in [
            "+020-01-01T00:00:00Z",
            "2020-+1-01T00:00:00Z",
            "2020-01-01T00:00:00++1:00",
            "2020-01-01T00:00:00+0:100",
            "2020-01-01T00:00:00+24:00",
            "2020-01-01T00:00:00+01:60",
            "2020-01-01T00:00:00+01:000",
        ] {
            assert_eq!(normalise_timestamp(bad), None, "{bad}");
        }
        assert_eq!(
            normalise_timestamp("2020-01-01T01:00:00+0100"),
            Some(("2020-01-01 00:00:00".to_string(), true))
        );
    }

    /// Property-style: many random strings (printable ASCII, date-like prefixes with random
    /// tails, and arbitrary Unicode) never make the parser or the shape panic.
    #[test]
    fn random_strings_never_panic() {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet: Vec<char> = "0123456789-:+TZz. é😀\u{663}\u{0}".chars().collect();
        for round in 0..20_000 {
            let len = (next() % 32) as usize;
            let mut s = match round % 3 {
                0 => String::from("2020-01-01T00:00:00"),
                1 => String::from("2020-01-01T00:00:00+"),
                _ => String::new(),
            };
            for _ in 0..len {
                let r = next();
                let c = if r % 4 == 0 {
                    char::from_u32((r >> 8) as u32 % 0x11_0000).unwrap_or('\u{fffd}')
                } else {
                    alphabet[(r >> 8) as usize % alphabet.len()]
                };
                s.push(c);
            }
            let _ = normalise_timestamp(&s);
            let _ = date_shape(&s);
            // Random cuts of a valid stamp with a multi-byte character spliced in.
            let base = "1956-01-09T01:30:00.123+01:30";
            let cut = (next() % base.len() as u64) as usize;
            let spliced = format!("{}é{}", &base[..cut], &base[cut..]);
            assert_eq!(normalise_timestamp(&spliced), None, "{spliced}");
        }
    }
}
