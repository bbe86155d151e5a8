//! Where the load generator and the server run: disjoint CPU sets whenever there are two or more
//! CPUs, so that neither steals the other's cycles: a generator sharing cores with the server
//! takes CPU time and cache from it, and the figure would measure that contention
//! (`docs/workloads.md`, "Placement").

use std::fmt;

/// The CPUs each side may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub loadgen: Vec<usize>,
    pub server: Vec<usize>,
    /// True when both share the only CPU.
    pub shared: bool,
}

impl Placement {
    /// Splits `available` CPUs: a quarter (at least one) to the generator, the rest to the server;
    /// with one CPU both share it.
    pub fn split(available: &[usize]) -> Self {
        match available.len() {
            0 => Self {
                loadgen: vec![0],
                server: vec![0],
                shared: true,
            },
            1 => Self {
                loadgen: available.to_vec(),
                server: available.to_vec(),
                shared: true,
            },
            n => {
                let k = (n / 4).max(1);
                Self {
                    loadgen: available[..k].to_vec(),
                    server: available[k..].to_vec(),
                    shared: false,
                }
            }
        }
    }

    /// Every CPU to the server: the generators run on other hosts (`--loadgen-hosts`).
    pub fn server_only(available: &[usize]) -> Self {
        Self {
            loadgen: Vec::new(),
            server: if available.is_empty() {
                vec![0]
            } else {
                available.to_vec()
            },
            shared: false,
        }
    }

    /// The generator on `loadgen` (a list like `0` or `0-1,4`); the server on the other CPUs.
    ///
    /// The list is checked range by range against `available` before it is expanded, so a
    /// hostile `0-4000000000` is refused in one line instead of allocating the range.
    pub fn with_loadgen(available: &[usize], loadgen: &str) -> Result<Self, String> {
        let ranges = parse_cpu_ranges(loadgen)?;
        // A run of present CPUs is at most `available.len()` long, so each search stops early.
        if let Some(c) = ranges
            .iter()
            .find_map(|&(a, b)| (a..=b).find(|c| !available.contains(c)))
        {
            return Err(format!(
                "CPU {c} is not available to restbench (available: {})",
                format_cpu_list(available)
            ));
        }
        let wanted: Vec<usize> = ranges.into_iter().flat_map(|(a, b)| a..=b).collect();
        let server: Vec<usize> = available
            .iter()
            .copied()
            .filter(|c| !wanted.contains(c))
            .collect();
        if server.is_empty() {
            return Ok(Self {
                loadgen: wanted,
                server: available.to_vec(),
                shared: true,
            });
        }
        Ok(Self {
            loadgen: wanted,
            server,
            shared: false,
        })
    }

    pub fn describe(&self) -> String {
        if self.loadgen.is_empty() {
            format!(
                "server on CPU {}, generators on other hosts",
                format_cpu_list(&self.server)
            )
        } else if self.shared {
            format!(
                "generator and server share CPU {}",
                format_cpu_list(&self.server)
            )
        } else {
            format!(
                "generator on CPU {}, server on CPU {}",
                format_cpu_list(&self.loadgen),
                format_cpu_list(&self.server)
            )
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// The CPUs this process may run on.
pub fn available_cpus() -> Vec<usize> {
    match nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)) {
        Ok(set) => (0..nix::sched::CpuSet::count())
            .filter(|&c| set.is_set(c).unwrap_or(false))
            .collect(),
        Err(_) => (0..std::thread::available_parallelism().map_or(1, |n| n.get())).collect(),
    }
}

/// Pins the calling thread (and the threads it starts later) to `cpus`.
pub fn pin_current_thread(cpus: &[usize]) -> Result<(), String> {
    let mut set = nix::sched::CpuSet::new();
    for &c in cpus {
        set.set(c).map_err(|e| format!("CPU {c}: {e}"))?;
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)
        .map_err(|e| format!("cannot pin to CPUs {cpus:?}: {e}"))
}

pub use restbench_model::cpus::{format_cpu_list, parse_cpu_list, parse_cpu_ranges};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_for_one_two_and_sixteen_cores() {
        let one = Placement::split(&[0]);
        assert!(one.shared);
        assert_eq!(
            (one.loadgen.clone(), one.server.clone()),
            (vec![0], vec![0])
        );
        let two = Placement::split(&[0, 1]);
        assert_eq!(
            (two.loadgen.clone(), two.server.clone(), two.shared),
            (vec![0], vec![1], false)
        );
        let sixteen: Vec<usize> = (0..16).collect();
        let p = Placement::split(&sixteen);
        assert_eq!(p.loadgen, vec![0, 1, 2, 3]);
        assert_eq!(p.server, (4..16).collect::<Vec<_>>());
        assert_eq!(p.describe(), "generator on CPU 0-3, server on CPU 4-15");
    }

    #[test]
    fn explicit_loadgen_cpus() {
        let p = Placement::with_loadgen(&[0, 1, 2, 3], "3").unwrap();
        assert_eq!((p.loadgen, p.server), (vec![3], vec![0, 1, 2]));
        assert!(Placement::with_loadgen(&[0, 1], "5").is_err());
        assert!(Placement::with_loadgen(&[0, 1], "0-1").unwrap().shared);
    }

    #[test]
    fn a_huge_range_is_refused_at_the_first_missing_cpu() {
        let e = Placement::with_loadgen(&[0, 1], "0-4000000000").unwrap_err();
        assert_eq!(e, "CPU 2 is not available to restbench (available: 0-1)");
        let e = Placement::with_loadgen(&[0, 1], "4000000000").unwrap_err();
        assert!(e.starts_with("CPU 4000000000 is not available"), "{e}");
        assert!(Placement::with_loadgen(&[0, 1], "99999999999999999999999").is_err());
    }
}
