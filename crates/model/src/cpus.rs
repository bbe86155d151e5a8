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

/// Parses `0-3,6,8-9` into sorted CPUs without repeats.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || format!("{part:?} is not a CPU number or range (such as 0 or 0-3)");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (
                    a.trim().parse().map_err(|_| bad())?,
                    b.trim().parse().map_err(|_| bad())?,
                );
                if a > b {
                    return Err(bad());
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    if out.is_empty() {
        return Err("an empty CPU list".into());
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
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
    }
}
