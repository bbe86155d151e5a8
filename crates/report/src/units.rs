//! Human units as wrk prints them.

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
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n;
    let mut i = 0;
    while v >= 1024.0 && i < UNITS.len() - 1 {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.2}{}", UNITS[i])
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
}
