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

    /// Every CPU to the generator: the server runs on another host (`--server-host`). The
    /// server's list names the same CPUs, for code that needs one; nothing runs on them here.
    pub fn loadgen_only(available: &[usize]) -> Self {
        let all = if available.is_empty() {
            vec![0]
        } else {
            available.to_vec()
        };
        Self {
            loadgen: all.clone(),
            server: all,
            shared: false,
        }
    }

    /// The generator on `loadgen` (a list like `0` or `0-1,4`, checked by `listed_cpus`); the server
    /// on the other CPUs.
    pub fn with_loadgen(available: &[usize], loadgen: &str) -> Result<Self, String> {
        let wanted = listed_cpus(available, loadgen)?;
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

impl Placement {
    /// The CPUs for the run's own PostgreSQL cluster, and the placement left to the server.
    ///
    /// With fewer than four CPUs, PostgreSQL shares the generator's CPUs: the generator needs
    /// little CPU against a database-bound workload (0.06–0.12 cores measured on two cores), while
    /// the server's CPUs stay the server's. With four or more it gets CPUs of its own, a quarter
    /// of the server's (at least one), carved from the server's side so the generator keeps its
    /// share. `requested` (`--db-cpus`, a list like `3` or `2-3`) chooses instead; the server
    /// then loses those CPUs unless that would leave it none.
    pub fn with_database(
        &self,
        available: &[usize],
        requested: Option<&str>,
    ) -> Result<(Vec<usize>, Placement), String> {
        if let Some(list) = requested {
            let db = listed_cpus(available, list)?;
            let server: Vec<usize> = self
                .server
                .iter()
                .copied()
                .filter(|c| !db.contains(c))
                .collect();
            let mut rest = self.clone();
            if !server.is_empty() {
                rest.server = server;
            }
            return Ok((db, rest));
        }
        let mut all: Vec<usize> = self.loadgen.iter().chain(&self.server).copied().collect();
        all.sort_unstable();
        all.dedup();
        if all.len() < 4 || self.server.len() < 2 {
            let db = if self.loadgen.is_empty() {
                self.server.clone()
            } else {
                self.loadgen.clone()
            };
            return Ok((db, self.clone()));
        }
        let k = (self.server.len() / 4).max(1);
        let cut = self.server.len() - k;
        let mut rest = self.clone();
        rest.server = self.server[..cut].to_vec();
        Ok((self.server[cut..].to_vec(), rest))
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

pub use restbench_model::vocabulary::cpus::{format_cpu_list, parse_cpu_list, parse_cpu_ranges};

/// The CPUs of a list like `0` or `0-1,4`, each one present in `available`. The list is checked
/// range by range before it is expanded, so a hostile `0-4000000000` is refused in one line
/// instead of allocating the range (a run of present CPUs is at most `available.len()` long, so
/// each search stops early).
fn listed_cpus(available: &[usize], list: &str) -> Result<Vec<usize>, String> {
    let ranges = parse_cpu_ranges(list)?;
    if let Some(c) = ranges
        .iter()
        .find_map(|&(a, b)| (a..=b).find(|c| !available.contains(c)))
    {
        return Err(format!(
            "CPU {c} is not available to restbench (available: {})",
            format_cpu_list(available)
        ));
    }
    Ok(ranges.into_iter().flat_map(|(a, b)| a..=b).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_shares_the_generators_cpus_below_four_and_gets_its_own_from_four() {
        let cpus = |n: usize| (0..n).collect::<Vec<usize>>();
        let one = Placement::split(&cpus(1));
        assert_eq!(
            one.with_database(&cpus(1), None).unwrap(),
            (vec![0], one.clone())
        );
        let two = Placement::split(&cpus(2));
        let (db, rest) = two.with_database(&cpus(2), None).unwrap();
        assert_eq!((db, rest.server), (vec![0], vec![1]), "the generator's CPU");
        let four = Placement::split(&cpus(4));
        let (db, rest) = four.with_database(&cpus(4), None).unwrap();
        assert_eq!(db, vec![3]);
        assert_eq!((rest.loadgen, rest.server), (vec![0], vec![1, 2]));
        let sixteen = Placement::split(&cpus(16));
        let (db, rest) = sixteen.with_database(&cpus(16), None).unwrap();
        assert_eq!(db, vec![13, 14, 15], "a quarter of the server's twelve");
        assert_eq!(rest.loadgen, cpus(4));
        assert_eq!(rest.server, (4..13).collect::<Vec<_>>());
        // Chosen by hand: carved from the server, unless that leaves it nothing.
        let (db, rest) = sixteen.with_database(&cpus(16), Some("14-15")).unwrap();
        assert_eq!(db, vec![14, 15]);
        assert_eq!(rest.server, (4..14).collect::<Vec<_>>());
        let (db, rest) = two.with_database(&cpus(2), Some("1")).unwrap();
        assert_eq!((db, rest.server), (vec![1], vec![1]));
        assert!(two.with_database(&cpus(2), Some("7")).is_err());
        assert!(two.with_database(&cpus(2), Some("0-4000000000")).is_err());
    }

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
