//! Who else used the server's CPUs, or the generator's, during a slice: the time the CPUs spent
//! busy beyond the side's own, the time the hypervisor gave to another machine (steal), and,
//! when /proc can tell, the process that took the most. A closed-loop slice where neither the server nor the
//! generator saturated is only *contended* when something did take the CPU; otherwise the
//! server limited itself (one thread, a lock, a wait).

use std::collections::HashMap;
use std::time::Instant;

/// Clock ticks per second of /proc/stat and /proc/PID/stat (`sysconf(_SC_CLK_TCK)`).
fn ticks_per_second() -> f64 {
    match nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK) {
        Ok(Some(t)) if t > 0 => t as f64,
        _ => 100.0,
    }
}

/// The state of the machine at the start of a slice.
pub struct Snapshot {
    cpus: Vec<usize>,
    /// What the CPUs are, in words (`the server's CPUs`).
    role: &'static str,
    at: Instant,
    busy: u64,
    steal: u64,
    processes: HashMap<i32, ProcessTime>,
}

/// A process's CPU ticks (user + system), its process group and its command.
#[derive(Debug, Clone, PartialEq)]
struct ProcessTime {
    ticks: u64,
    pgrp: i32,
    comm: String,
}

/// What the slice's CPUs gave to others.
#[derive(Debug, Clone, PartialEq)]
pub struct Taken {
    /// Cores of the server's CPUs busy with anything but the server (user + system time beyond
    /// its own), averaged over the slice.
    pub others_cores: f64,
    /// Cores the hypervisor took from these CPUs (steal).
    pub steal_cores: f64,
    /// The busiest process other than the server and restbench over the slice, with its cores
    /// (it may have run on any CPU).
    pub top: Option<(i32, String, f64)>,
    /// Whose CPUs these are, in words.
    pub role: &'static str,
    /// The share of these CPUs' time nobody used (neither a process nor the hypervisor).
    pub idle_share: f64,
    /// Whether a small intrusion counts only when it displaced someone (the generator's CPUs:
    /// see [`Taken::someone_took_it`]).
    pub idle_forgives: bool,
}

/// What others must take of a set's CPUs, in cores, for the slice to be contended.
pub const TAKEN_CORES: f64 = 0.10;

/// On the generator's CPUs, what others may take while the set still has
/// [`IDLE_LEFT`] of its time idle, without the slice being contended.
pub const FORGIVEN_CORES: f64 = 0.25;

/// The idle share of the generator's CPUs that shows an intruder there displaced nobody.
pub const IDLE_LEFT: f64 = 0.10;

impl Taken {
    /// Another process or the hypervisor took at least [`TAKEN_CORES`]. On the server's CPUs
    /// that is always so: the server's figure is what it does with its CPU. On the generator's
    /// (`idle_forgives`), an intrusion under [`FORGIVEN_CORES`] into CPUs left at least
    /// [`IDLE_LEFT`] idle took only time nobody wanted: on this machine DAMON's `kdamond.0`
    /// takes 0.06–0.16 of a core during database loads, beside a generator and PostgreSQL that
    /// leave a third of their CPU idle.
    pub fn someone_took_it(&self) -> bool {
        let taken = self.others_cores + self.steal_cores;
        if taken < TAKEN_CORES {
            return false;
        }
        !(self.idle_forgives && taken < FORGIVEN_CORES && self.idle_share >= IDLE_LEFT)
    }

    /// In a few words, for the cell's note.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{:.2} cores of {} went to others, {:.2} to the hypervisor (steal)",
            self.others_cores, self.role, self.steal_cores
        );
        if let Some((pid, comm, cores)) = &self.top {
            s.push_str(&format!(
                "; busiest other process: {comm} (pid {pid}, {cores:.2} cores)"
            ));
        }
        s
    }
}

impl Snapshot {
    /// Reads the CPU times of `cpus` (the server's) and of every process now.
    pub fn take(cpus: &[usize]) -> Snapshot {
        Self::take_of(cpus, "the server's CPUs")
    }

    /// The same for CPUs of another `role` (`the generator's CPUs`).
    pub fn take_of(cpus: &[usize], role: &'static str) -> Snapshot {
        let (busy, steal) = cpu_times(cpus);
        Snapshot {
            cpus: cpus.to_vec(),
            role,
            at: Instant::now(),
            busy,
            steal,
            processes: process_times(),
        }
    }

    /// What others took since the snapshot, given the server's own CPU seconds over the same
    /// time and the processes (pid, process group) to leave out of the busiest (the server's,
    /// restbench's).
    pub fn finish(&self, server_cpu_s: f64, exclude: &dyn Fn(i32, i32) -> bool) -> Taken {
        self.finish_beyond(server_cpu_s, &|_, _| false, exclude)
    }

    /// [`Self::finish`], with the time of the processes `part_of_the_run` picks (by command and
    /// process group: the run's own database on the generator's CPUs) counted as the side's own.
    pub fn finish_beyond(
        &self,
        own_cpu_s: f64,
        part_of_the_run: &dyn Fn(&str, i32) -> bool,
        exclude: &dyn Fn(i32, i32) -> bool,
    ) -> Taken {
        let secs = self.at.elapsed().as_secs_f64().max(1e-3);
        let hz = ticks_per_second();
        let (busy, steal) = cpu_times(&self.cpus);
        let busy_s = busy.saturating_sub(self.busy) as f64 / hz;
        let steal_s = steal.saturating_sub(self.steal) as f64 / hz;
        let mut run_s = 0.0;
        let mut top = None::<(i32, String, f64)>;
        for (pid, p) in process_times() {
            let before = self.processes.get(&pid).map_or(0, |b| b.ticks);
            let spent = p.ticks.saturating_sub(before) as f64 / hz;
            if part_of_the_run(&p.comm, p.pgrp) {
                run_s += spent;
                continue;
            }
            let cores = spent / secs;
            if exclude(pid, p.pgrp) || cores < 0.05 {
                continue;
            }
            if top.as_ref().is_none_or(|t| cores > t.2) {
                top = Some((pid, p.comm, cores));
            }
        }
        let capacity = secs * self.cpus.len().max(1) as f64;
        Taken {
            others_cores: ((busy_s - own_cpu_s - run_s) / secs).max(0.0),
            steal_cores: steal_s / secs,
            top,
            role: self.role,
            idle_share: (1.0 - (busy_s + steal_s) / capacity).clamp(0.0, 1.0),
            idle_forgives: false,
        }
    }
}

/// Both CPU sets of a run watched over one slice: the server's and the generator's. Steal time
/// and other processes' time on either set mean the slice measured something else too.
pub struct Watch {
    server: Snapshot,
    loadgen: Option<Snapshot>,
    /// When the slice began, for the list of excluded slices.
    pub began: std::time::SystemTime,
}

impl Watch {
    /// Snapshots of `placement`'s server CPUs and, unless they are the same CPUs, its
    /// generator's.
    pub fn take(placement: &crate::placement::Placement) -> Watch {
        let loadgen = (!placement.shared && !placement.loadgen.is_empty())
            .then(|| Snapshot::take_of(&placement.loadgen, "the generator's CPUs"));
        Watch {
            began: std::time::SystemTime::now(),
            server: Snapshot::take(&placement.server),
            loadgen,
        }
    }

    /// Who took either set's CPU since the snapshots, when someone did (the set where more was
    /// taken). `server_cpu_s` and `loadgen_cpu_s` are each side's own time; `part_of_the_run`
    /// picks processes whose time counts as the run's on the generator's CPUs (its database,
    /// which shares them on small machines); `exclude` leaves processes out of the busiest.
    pub fn finish(
        &self,
        server_cpu_s: f64,
        loadgen_cpu_s: f64,
        part_of_the_run: &dyn Fn(&str, i32) -> bool,
        exclude: &dyn Fn(i32, i32) -> bool,
    ) -> Option<Taken> {
        let on_server = self
            .server
            .finish_beyond(server_cpu_s, &|_, _| false, exclude);
        let on_loadgen = self.loadgen.as_ref().map(|s| Taken {
            idle_forgives: true,
            ..s.finish_beyond(loadgen_cpu_s, part_of_the_run, exclude)
        });
        [Some(on_server), on_loadgen]
            .into_iter()
            .flatten()
            .filter(Taken::someone_took_it)
            .max_by(|a, b| {
                (a.others_cores + a.steal_cores).total_cmp(&(b.others_cores + b.steal_cores))
            })
    }
}

/// User + nice + system ticks, and steal ticks, summed over `cpus` (from /proc/stat). Interrupt
/// time is left out: the loopback traffic's softirqs land there whoever runs.
fn cpu_times(cpus: &[usize]) -> (u64, u64) {
    let Ok(stat) = super::procfs::read_kernel_text("/proc/stat") else {
        return (0, 0);
    };
    let mut busy = 0;
    let mut steal = 0;
    for line in stat.lines() {
        let mut fields = line.split_whitespace();
        let Some(name) = fields.next() else { continue };
        let Some(n) = name
            .strip_prefix("cpu")
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if !cpus.contains(&n) {
            continue;
        }
        let v: Vec<u64> = fields.filter_map(|f| f.parse().ok()).collect();
        // user nice system idle iowait irq softirq steal
        if v.len() >= 8 {
            busy += v[0] + v[1] + v[2];
            steal += v[7];
        }
    }
    (busy, steal)
}

/// The CPU time of every process.
fn process_times() -> HashMap<i32, ProcessTime> {
    let mut out = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = super::procfs::read_kernel_text(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some(t) = parse_stat(&stat) {
            out.insert(pid, t);
        }
    }
    out
}

/// A /proc/PID/stat line read; the command may hold spaces and parentheses, so fields are
/// counted from the last `)`.
fn parse_stat(stat: &str) -> Option<ProcessTime> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    // After the command: state(0) ppid(1) pgrp(2) … utime(11) stime(12).
    let pgrp: i32 = rest.get(2)?.parse().ok()?;
    let utime: u64 = rest.get(11)?.parse().ok()?;
    let stime: u64 = rest.get(12)?.parse().ok()?;
    Some(ProcessTime {
        ticks: utime + stime,
        pgrp,
        comm,
    })
}

/// The pids of restbench itself and its threads' process: left out of "the busiest other".
pub fn is_restbench(pid: i32) -> bool {
    pid == std::process::id() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_a_strange_command_parses() {
        let line = "4242 (my (odd) server) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 4 0 100 1000 10 0";
        assert_eq!(
            parse_stat(line),
            Some(ProcessTime {
                ticks: 300,
                pgrp: 4242,
                comm: "my (odd) server".into()
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn a_small_intruder_on_idle_generator_cpus_is_forgiven_and_never_on_the_servers() {
        let taken = |others: f64, idle: f64, forgives: bool| Taken {
            others_cores: others,
            steal_cores: 0.0,
            top: None,
            role: "the generator's CPUs",
            idle_share: idle,
            idle_forgives: forgives,
        };
        // kdamond.0 at 0.15 cores beside a generator and PostgreSQL that left 30 % idle.
        assert!(!taken(0.15, 0.30, true).someone_took_it());
        // The same on CPUs with no idle time left, or a hog of a quarter core or more: counted.
        assert!(taken(0.15, 0.05, true).someone_took_it());
        assert!(taken(0.45, 0.30, true).someone_took_it());
        // On the server's CPUs a tenth of a core always counts; under it never does.
        assert!(taken(0.15, 0.30, false).someone_took_it());
        assert!(!taken(0.05, 0.0, false).someone_took_it());
    }

    #[test]
    fn a_busy_process_on_the_machine_is_seen() {
        let cpus: Vec<usize> = (0..crate::placement::available_cpus().len()).collect();
        let snapshot = Snapshot::take(&cpus);
        // Burn CPU in this process for a moment: it is excluded by pid, so whoever is seen is
        // someone else; the CPU time itself must show as busy time of the machine.
        let until = Instant::now() + std::time::Duration::from_millis(300);
        let mut x = 0u64;
        while Instant::now() < until {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let taken = snapshot.finish(0.0, &|pid, _| is_restbench(pid));
        assert!(taken.others_cores > 0.3, "{taken:?}");
        assert!(taken.someone_took_it());
        assert!(taken.describe().contains("cores of the server's CPUs"));
        // Saying the server used it all leaves nothing for others.
        let none = snapshot.finish(1e6, &|_, _| true);
        assert_eq!(none.others_cores, 0.0);
        assert!(none.top.is_none());
    }
}
