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

/// A point in time as `--start-at` takes it, in Unix milliseconds: RFC 3339
/// (`2026-11-29T19:01:24Z`, `2026-11-29T19:01:24.250+01:00`) or a bare number of Unix
/// milliseconds (`date +%s%3N`).
pub fn parse_time_ms(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || {
        format!(
            "{text:?} is not a time: give RFC 3339 (2026-11-29T19:01:24Z) or Unix milliseconds \
             (date +%s%3N)"
        )
    };
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        let ms: u64 = t.parse().map_err(|_| bad())?;
        if ms < 100_000_000_000 {
            return Err(format!(
                "{text:?} looks like Unix seconds, not milliseconds: append 000 (date +%s%3N)"
            ));
        }
        return Ok(ms);
    }
    let b = t.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Result<i64, String> {
        let s = t.get(r).ok_or_else(bad)?;
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        s.parse().map_err(|_| bad())
    };
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(bad());
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return Err(bad());
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b[i] == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(bad());
        }
        let frac = &t[start..i.min(start + 3)];
        millis = frac.parse::<i64>().map_err(|_| bad())? * 10i64.pow(3 - frac.len() as u32);
    }
    let offset_s = match &t[i..] {
        "Z" | "z" => 0,
        zone if zone.len() == 6
            && matches!(zone.as_bytes()[0], b'+' | b'-')
            && zone.as_bytes()[3] == b':' =>
        {
            let (zh, zm) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            sign * (zh * 3600 + zm * 60)
        }
        _ => return Err(bad()),
    };
    let epoch = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset_s;
    u64::try_from(epoch * 1000 + millis).map_err(|_| bad())
}

/// Now, in Unix milliseconds.
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// RFC 3339 UTC with milliseconds of a Unix-millisecond time: `2026-11-29T19:01:24.250Z`.
pub fn rfc3339_ms(ms: u64) -> String {
    let secs = (ms / 1000) as i64;
    format!("{}.{:03}Z", format_epoch(secs).replace(' ', "T"), ms % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_times_in_rfc3339_or_unix_milliseconds() {
        let ms = (days_from_civil(2026, 11, 29) * 86_400 + 19 * 3600 + 60 + 24) as u64 * 1000;
        assert_eq!(parse_time_ms("2026-11-29T19:01:24Z").unwrap(), ms);
        assert_eq!(parse_time_ms("2026-11-29T19:01:24.25Z").unwrap(), ms + 250);
        assert_eq!(
            parse_time_ms("2026-11-29t20:01:24.250123+01:00").unwrap(),
            ms + 250
        );
        assert_eq!(parse_time_ms("2026-11-29T18:31:24-00:30").unwrap(), ms);
        assert_eq!(parse_time_ms(&ms.to_string()).unwrap(), ms);
        assert_eq!(rfc3339_ms(ms + 5), "2026-11-29T19:01:24.005Z");
        assert_eq!(parse_time_ms(&rfc3339_ms(ms + 5)).unwrap(), ms + 5);
        let secs = parse_time_ms("1764442884").unwrap_err();
        assert!(secs.contains("Unix seconds"), "{secs}");
        for bad in [
            "",
            "soon",
            "2026-11-29",
            "2026-13-01T00:00:00Z",
            "2026-11-29T19:01:24",
            "2026-11-29T19:01:24+1",
        ] {
            assert!(parse_time_ms(bad).is_err(), "{bad}");
        }
    }

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
