//! Timestamps as subjects and PostgreSQL spell them, normalised so two spellings of one instant
//! compare equal. A leaf: the verifier and the database code both use it, and neither the other.

use restbench_model::time::{days_from_civil, format_epoch};

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
}
