//! CPU lists in the kernel's notation (`0-3,6,8-9`), as `cpuset.cpus` and `taskset -c` write them.

/// Formats CPUs as `0-3,6,8-9`: sorted, without repeats, runs joined. An empty list gives an
/// empty string (what `cpuset.cpus` takes for "none").
pub fn format_cpu_list<T: Copy + TryInto<u64>>(cpus: &[T]) -> String {
    let mut v: Vec<u64> = cpus.iter().filter_map(|&c| c.try_into().ok()).collect();
    v.sort_unstable();
    v.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", v[i], v[j])
        } else {
            v[i].to_string()
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The highest CPU number a list may name: well above the kernel's own limit (`NR_CPUS` is at
/// most 8192), and low enough that an expanded list stays small (`0-4000000000` would otherwise
/// ask for 32 GB).
pub const MAX_CPU: usize = 65_535;

/// Parses `0-3,6,8-9` into sorted CPUs without repeats; numbers above [`MAX_CPU`] are refused.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, String> {
    let ranges = parse_cpu_ranges(text)?;
    if let Some(&(_, last)) = ranges.last()
        && last > MAX_CPU
    {
        return Err(format!(
            "CPU {last} does not exist (CPU numbers go up to {MAX_CPU})"
        ));
    }
    Ok(ranges.into_iter().flat_map(|(a, b)| a..=b).collect())
}

/// Parses `0-3,6,8-9` into sorted, merged, inclusive ranges without expanding them, so a caller
/// can check a hostile `0-4000000000` against the CPUs that exist before it costs anything.
pub fn parse_cpu_ranges(text: &str) -> Result<Vec<(usize, usize)>, String> {
    let mut ranges = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("{part:?} is not a CPU number or range (such as 0 or 0-3)");
        let number = |t: &str| -> Result<usize, String> {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            t.parse().map_err(|_| bad())
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if a > b {
            return Err(bad());
        }
        ranges.push((a, b));
    }
    if ranges.is_empty() {
        return Err("an empty CPU list".into());
    }
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (a, b) in ranges {
        match merged.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(
            parse_cpu_list("0-3,6, 8-9").unwrap(),
            vec![0, 1, 2, 3, 6, 8, 9]
        );
        assert_eq!(format_cpu_list(&[0usize, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(format_cpu_list(&[9u32, 8, 8, 0]), "0,8-9");
        assert_eq!(format_cpu_list(&[5u32]), "5");
        assert_eq!(format_cpu_list::<u32>(&[]), "");
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list("").is_err());
        assert!(parse_cpu_list("+1").is_err());
    }

    #[test]
    fn huge_lists_are_refused_without_expanding_them() {
        let e = parse_cpu_list("0-4000000000").unwrap_err();
        assert!(e.contains("4000000000") && e.contains("65535"), "{e}");
        assert!(parse_cpu_list("99999999999999999999999").is_err());
        // Repeated and overlapping ranges are merged before anything is expanded.
        let many = vec!["0-65535"; 10_000].join(",");
        assert_eq!(parse_cpu_list(&many).unwrap().len(), 65_536);
        assert_eq!(
            parse_cpu_ranges("8-9,0-3,2-4,5,7").unwrap(),
            vec![(0, 5), (7, 9)]
        );
        assert_eq!(
            parse_cpu_ranges("0-4000000000").unwrap(),
            vec![(0, 4_000_000_000)]
        );
    }
}
