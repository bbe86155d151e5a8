//! CPU time and memory of a server's whole process tree, from /proc.
//!
//! A subject's processes share one process group (see [`crate::process`]), so cluster workers
//! and helper processes are all counted. Sampling runs on the load generator's CPUs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use restbench_model::UsageSource;

use crate::cgroup::CgroupMemory;

/// A reading of the group: CPU time so far and resident memory now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupUsage {
    pub cpu: Duration,
    pub rss_bytes: u64,
    pub processes: u32,
}

/// Sums utime + stime and RSS over every process whose process group is `pgid`.
pub fn group_usage(pgid: i32) -> GroupUsage {
    let ticks = clock_ticks();
    let page = page_size();
    let mut usage = GroupUsage::default();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return usage;
    };
    let mut cpu_ticks = 0u64;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(stat) = super::procfs::read_kernel_text(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name may contain spaces; fields resume after the last ')'.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        // After ')': state(0) ppid(1) pgrp(2) ... utime(11) stime(12) ... rss(21)
        if f.len() < 22 || f[2].parse::<i32>().ok() != Some(pgid) {
            continue;
        }
        cpu_ticks += f[11].parse::<u64>().unwrap_or(0) + f[12].parse::<u64>().unwrap_or(0);
        usage.rss_bytes += f[21].parse::<u64>().unwrap_or(0) * page;
        usage.processes += 1;
    }
    usage.cpu = Duration::from_secs_f64(cpu_ticks as f64 / ticks as f64);
    usage
}

fn clock_ticks() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .map_or(100, |v| v as u64)
}

fn page_size() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .map_or(4096, |v| v as u64)
}

/// Peak and mean memory over a sampled window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryStats {
    pub rss_peak: u64,
    pub rss_mean: u64,
    /// From the server's cgroup, when it has one with memory accounting.
    pub cgroup_peak: Option<u64>,
    pub cgroup_mean: Option<u64>,
}

/// Samples RSS (and the cgroup's memory) every 100 ms until stopped; reports peak and mean.
pub struct MemorySampler {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<MemoryStats>>,
}

impl MemorySampler {
    pub fn start(pgid: i32, cgroup: Option<CgroupMemory>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let (mut peak, mut sum, mut n) = (0u64, 0u64, 0u64);
            let (mut cg_peak, mut cg_sum, mut cg_n) = (0u64, 0u64, 0u64);
            while !flag.load(Ordering::Relaxed) {
                let rss = group_usage(pgid).rss_bytes;
                peak = peak.max(rss);
                sum += rss;
                n += 1;
                if let Some(m) = cgroup.as_ref().and_then(|c| c.current()) {
                    cg_peak = cg_peak.max(m);
                    cg_sum += m;
                    cg_n += 1;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            MemoryStats {
                rss_peak: peak,
                rss_mean: sum.checked_div(n).unwrap_or(0),
                cgroup_peak: (cg_n > 0).then_some(cg_peak),
                cgroup_mean: cg_sum.checked_div(cg_n),
            }
        });
        Self {
            stop,
            handle: Some(handle),
        }
    }

    /// Stops sampling.
    pub fn finish(mut self) -> MemoryStats {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for MemorySampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Server usage during one repeat.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerSample {
    /// From the cgroup when the server has one, else from /proc.
    pub cpu: Duration,
    pub cpu_source: UsageSource,
    /// From /proc, the cross-check.
    pub proc_cpu: Duration,
    pub memory: MemoryStats,
}

impl ServerSample {
    /// The CPU between two readings: the cgroup's when both have it, else /proc's.
    pub fn between(
        proc_cpu: (Duration, Duration),
        cgroup_cpu: (Option<Duration>, Option<Duration>),
        memory: MemoryStats,
    ) -> Self {
        let proc_cpu = proc_cpu.1.saturating_sub(proc_cpu.0);
        let (cpu, cpu_source) = match cgroup_cpu {
            (Some(b), Some(a)) => (a.saturating_sub(b), UsageSource::Cgroup),
            _ => (proc_cpu, UsageSource::Proc),
        };
        Self {
            cpu,
            cpu_source,
            proc_cpu,
            memory,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cpu_and_memory_of_a_busy_group() {
        let dir = tempfile::tempdir().unwrap();
        let spec = crate::process::SpawnSpec {
            name: "spinner".into(),
            shell_command: "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done".into(),
            cwd: dir.path().into(),
            log: dir.path().join("log"),
            ..Default::default()
        };
        let child = crate::process::ManagedChild::spawn(&spec).unwrap();
        // Waits for CPU time to accrue rather than for a fixed wall time: on a busy machine the
        // spinner may get little of a CPU, and what is tested is the reading, not the speed.
        let started = std::time::Instant::now();
        let mut u = group_usage(child.pgid());
        while u.cpu < Duration::from_millis(200) && started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(100));
            u = group_usage(child.pgid());
        }
        assert!(u.processes >= 1);
        assert!(u.cpu >= Duration::from_millis(200), "{u:?}");
        assert!(u.rss_bytes > 100_000, "{u:?}");
    }

    #[test]
    fn a_sample_takes_the_cgroups_cpu_only_when_both_readings_have_it() {
        let ms = Duration::from_millis;
        let s = ServerSample::between(
            (ms(100), ms(400)),
            (Some(ms(1_000)), Some(ms(1_350))),
            MemoryStats::default(),
        );
        assert_eq!(
            (s.cpu, s.cpu_source, s.proc_cpu),
            (ms(350), UsageSource::Cgroup, ms(300))
        );
        let s = ServerSample::between(
            (ms(100), ms(400)),
            (None, Some(ms(9))),
            MemoryStats::default(),
        );
        assert_eq!((s.cpu, s.cpu_source), (ms(300), UsageSource::Proc));
    }
}
