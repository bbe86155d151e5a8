//! UTC timestamps without a date library: the clock for documents (`started_at`) and the
//! calendar arithmetic shared by everything that reads or writes dates.
//!
//! The day ↔ date conversions are Howard Hinnant's `days_from_civil` / `civil_from_days`
//! algorithms ("chrono-Compatible Low-Level Date Algorithms"), exact for the proleptic Gregorian
//! calendar.

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD HH:MM:SS` of a UTC epoch second.
pub fn format_epoch(t: i64) -> String {
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

/// RFC 3339 UTC of an epoch second: `2026-11-29T19:01:24Z`.
pub fn rfc3339(epoch: i64) -> String {
    format_epoch(epoch).replace(' ', "T") + "Z"
}

/// Now, as `2026-11-29T19:01:24Z`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    rfc3339(secs)
}

/// Now, as `20261129T190124Z`, for folder names.
pub fn utc_stamp() -> String {
    utc_now().replace(['-', ':'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(rfc3339(86_400 + 3_661), "1970-01-02T01:01:01Z");
    }

    #[test]
    fn stamps_have_the_documented_shapes() {
        let now = utc_now();
        assert_eq!(
            (now.len(), &now[10..11], &now[19..]),
            (20, "T", "Z"),
            "{now}"
        );
        let stamp = utc_stamp();
        assert_eq!(stamp.len(), 16, "{stamp}");
        assert!(!stamp.contains([':', '-']));
    }
}
