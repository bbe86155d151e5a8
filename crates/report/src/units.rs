//! Numbers for people: units as wrk prints them, and the shorter forms tables and charts use.
//! A leaf.

/// `793.29us`, `1.40ms`, `2.01s`.
pub fn micros(us: f64) -> String {
    if us < 1_000.0 {
        format!("{us:.2}us")
    } else if us < 1_000_000.0 {
        format!("{:.2}ms", us / 1_000.0)
    } else if us < 60_000_000.0 {
        format!("{:.2}s", us / 1_000_000.0)
    } else {
        format!("{:.2}m", us / 60_000_000.0)
    }
}

/// `564.55MB`, `28.09KB` (binary multiples, as wrk).
pub fn bytes(n: f64) -> String {
    let (v, unit) = binary_scale(n);
    format!("{v:.2}{unit}")
}

/// `n` bytes as a value below 1024 and its binary unit (`B` … `TB`).
pub fn binary_scale(n: f64) -> (f64, &'static str) {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    (v, UNITS[i])
}

/// `6.36k`, `513.96`, `1.20M`.
pub fn count(n: f64) -> String {
    if n >= 1_000_000.0 {
        format!("{:.2}M", n / 1_000_000.0)
    } else if n >= 1_000.0 {
        format!("{:.2}k", n / 1_000.0)
    } else {
        format!("{n:.2}")
    }
}

/// A count and its noun, plural unless one: `1 thread`, `2 threads`, `0 streams`.
pub fn plural(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Thousands separated by commas: `12,619`.
pub fn thousands(n: f64) -> String {
    let s = format!("{:.0}", n.abs());
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0.0 { format!("-{out}") } else { out }
}

/// A ratio: `1.76×`, `12.4×`, `0.05×`.
pub fn ratio(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}×")
    } else if x >= 10.0 {
        format!("{x:.1}×")
    } else {
        format!("{x:.2}×")
    }
}

/// A latency for reading, with three significant digits: `793 µs`, `1.40 ms`, `12.3 ms`, `1.05 s`.
pub fn micros_short(us: f64) -> String {
    fn three(v: f64, unit: &str) -> String {
        if v >= 100.0 {
            format!("{v:.0} {unit}")
        } else if v >= 10.0 {
            format!("{v:.1} {unit}")
        } else {
            format!("{v:.2} {unit}")
        }
    }
    if us < 1_000.0 {
        if us < 10.0 {
            format!("{us:.1} µs")
        } else {
            format!("{us:.0} µs")
        }
    } else if us < 1_000_000.0 {
        three(us / 1_000.0, "ms")
    } else {
        three(us / 1_000_000.0, "s")
    }
}

/// A compact count for chart axes: `0`, `500`, `1.5k`, `20k`, `1.2M`.
pub fn si(n: f64) -> String {
    fn trim(v: f64) -> String {
        let s = format!("{v:.1}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    }
    let a = n.abs();
    if a >= 1_000_000_000.0 {
        format!("{}G", trim(n / 1_000_000_000.0))
    } else if a >= 1_000_000.0 {
        format!("{}M", trim(n / 1_000_000.0))
    } else if a >= 1_000.0 {
        format!("{}k", trim(n / 1_000.0))
    } else {
        trim(n)
    }
}

/// A size for reading, three significant digits at most: `812 B`, `12.0 MB`, `564 MB`.
pub fn bytes_short(n: f64) -> String {
    let (v, unit) = binary_scale(n);
    if v >= 100.0 || unit == "B" {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// Three significant digits: `812`, `9.80k`, `40.6k`, `398k`, `1.23M`.
pub fn compact(v: f64) -> String {
    let (x, unit) = if v >= 1_000_000.0 {
        (v / 1_000_000.0, "M")
    } else if v >= 1_000.0 {
        (v / 1_000.0, "k")
    } else {
        return format!("{v:.0}");
    };
    if x >= 100.0 {
        format!("{x:.0}{unit}")
    } else if x >= 10.0 {
        format!("{x:.1}{unit}")
    } else {
        format!("{x:.2}{unit}")
    }
}

/// A rate beside a bar: `12.6k`, `475.6k`, `1.23M`, `812`.
pub fn si_precise(v: f64) -> String {
    if v >= 1_000_000.0 {
        format!("{:.2}M", v / 1_000_000.0)
    } else if v >= 1_000.0 {
        format!("{:.1}k", v / 1_000.0)
    } else {
        format!("{v:.0}")
    }
}

/// At most two decimals, without trailing zeros: `1`, `0.5`, `2.25`.
pub fn trimmed(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_wrk() {
        assert_eq!(micros(793.29), "793.29us");
        assert_eq!(micros(1_400.0), "1.40ms");
        assert_eq!(bytes(591_979_315.0), "564.56MB");
        assert_eq!(count(6_360.0), "6.36k");
        assert_eq!(thousands(1_234_567.0), "1,234,567");
        assert_eq!(thousands(12.0), "12");
    }

    #[test]
    fn formats_for_reading() {
        assert_eq!(ratio(1.7612), "1.76×");
        assert_eq!(ratio(25.94), "25.9×");
        assert_eq!(micros_short(793.29), "793 µs");
        assert_eq!(micros_short(1_400.0), "1.40 ms");
        assert_eq!(micros_short(12_340.0), "12.3 ms");
        assert_eq!(micros_short(1_050_000.0), "1.05 s");
        assert_eq!(si(0.0), "0");
        assert_eq!(si(1_500.0), "1.5k");
        assert_eq!(si(20_000.0), "20k");
        assert_eq!(si(1_200_000.0), "1.2M");
        assert_eq!(compact(812.0), "812");
        assert_eq!(compact(9_800.0), "9.80k");
        assert_eq!(compact(1_234_567.0), "1.23M");
        assert_eq!(si_precise(12_618.86), "12.6k");
        assert_eq!(bytes_short(12.0 * 1024.0 * 1024.0), "12.0 MB");
        assert_eq!(bytes_short(812.0), "812 B");
        assert_eq!(trimmed(1.0), "1");
        assert_eq!(trimmed(2.250), "2.25");
    }
}
