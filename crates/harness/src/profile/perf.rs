//! Running `perf`: whether it can profile here, `perf record` of `cpu-clock` with call graphs
//! and `perf stat` of `raw_syscalls:sys_enter` over the server (its cgroup on cgroup v2, else its
//! pids), and `perf script` of what was recorded.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::ProfileError;
use restbench_host::cgroup::BackendKind;

/// Samples per second per CPU: enough for a flame graph over a few seconds, little overhead.
pub const FREQUENCY_HZ: u32 = 499;

/// The perf binary (`RESTBENCH_PERF` overrides, for a perf elsewhere or none at all).
pub fn perf_binary() -> String {
    std::env::var("RESTBENCH_PERF").unwrap_or_else(|_| "perf".into())
}

/// What the profiler is limited to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// A cgroup v2 path relative to the unified hierarchy's mount (`perf --cgroup`, with `-a`).
    Cgroup(String),
    /// The server's processes (every thread each has when the recording starts).
    Pids(Vec<u32>),
}

impl Scope {
    /// The cgroup of `dirs` when it lives in a cgroup v2 hierarchy perf can filter by, else the
    /// pids.
    pub fn of(dirs: &[PathBuf], pids: Vec<u32>) -> Scope {
        let unified = unified_mount();
        let relative = dirs.iter().find_map(|dir| {
            let rel = dir.strip_prefix(unified.as_ref()?).ok()?;
            Some(rel.to_string_lossy().into_owned())
        });
        match relative {
            Some(rel) if !rel.is_empty() => Scope::Cgroup(rel),
            _ => Scope::Pids(pids),
        }
    }

    fn args(&self) -> Vec<String> {
        match self {
            Scope::Cgroup(path) => vec!["-a".into(), format!("--cgroup={path}")],
            Scope::Pids(pids) => {
                let list: Vec<String> = pids.iter().map(u32::to_string).collect();
                vec!["-p".into(), list.join(",")]
            }
        }
    }

    /// How the recording was limited, in the profile's words.
    pub fn describe(&self) -> String {
        match self {
            Scope::Cgroup(path) => format!("--cgroup {path}"),
            Scope::Pids(pids) => format!("the server's {} pids", pids.len()),
        }
    }
}

/// The mount point of the cgroup v2 (unified) hierarchy, when there is one.
fn unified_mount() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    text.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        if !right.starts_with("cgroup2 ") {
            return None;
        }
        left.split_whitespace().nth(4).map(PathBuf::from)
    })
}

/// Whether profiling works here, and if not, why: perf present, allowed, and whether the
/// cgroup filter is available (else profiles follow the server's pids).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Availability {
    pub usable: bool,
    pub detail: String,
}

/// Probes perf: its version, `perf_event_paranoid`, and whether servers started by `backend`
/// can be filtered by cgroup (cgroup v2) or are followed by pid.
pub fn availability(backend: BackendKind) -> Availability {
    let perf = perf_binary();
    let version = Command::new(&perf)
        .arg("--version")
        .stderr(Stdio::null())
        .output();
    let version = match version {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        _ => {
            return Availability {
                usable: false,
                detail: format!(
                    "`{perf}` not found: install linux-perf (Debian) or linux-tools to profile"
                ),
            };
        }
    };
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()
        .and_then(|t| t.trim().parse::<i32>().ok());
    let root = nix::unistd::geteuid().is_root();
    if !root && paranoid.is_some_and(|p| p > 1) {
        return Availability {
            usable: false,
            detail: format!(
                "{version}, but perf_event_paranoid is {} and restbench is not root: run as root \
                 or `sysctl kernel.perf_event_paranoid=1`",
                paranoid.unwrap_or_default()
            ),
        };
    }
    let filter = match (backend, unified_mount()) {
        (BackendKind::CgroupV2, Some(mount)) => format!("cgroup filter on {}", mount.display()),
        (kind, _) => format!(
            "no cgroup filter with the {} backend: perf follows the server's pids",
            kind.name()
        ),
    };
    let paranoid = paranoid.map_or("unknown".into(), |p| p.to_string());
    Availability {
        usable: true,
        detail: format!("{version}, perf_event_paranoid {paranoid}, {filter}"),
    }
}

/// A `perf record` and a `perf stat` running over the server until [`Recording::finish`].
pub struct Recording {
    record: Child,
    stat: Option<Child>,
    data: PathBuf,
    stat_out: PathBuf,
}

impl Recording {
    /// Starts both over `scope`, writing into `dir`.
    pub fn start(scope: &Scope, call_graph: &str, dir: &Path) -> Result<Recording, ProfileError> {
        let data = dir.join("perf.data");
        let stat_out = dir.join("syscalls.csv");
        let mut record = Command::new(perf_binary());
        record
            .args([
                "record",
                "-e",
                "cpu-clock",
                "--call-graph",
                call_graph,
                "-F",
            ])
            .arg(FREQUENCY_HZ.to_string())
            .arg("-o")
            .arg(&data)
            .args(scope.args());
        let record = spawn_quiet(record, dir.join("perf-record.log"))?;
        let mut stat = Command::new(perf_binary());
        stat.args(["stat", "-e", "raw_syscalls:sys_enter", "-x", ",", "-o"])
            .arg(&stat_out)
            .args(scope.args());
        // Counting system calls is a bonus: a kernel without the tracepoint still profiles.
        let stat = spawn_quiet(stat, dir.join("perf-stat.log")).ok();
        Ok(Recording {
            record,
            stat,
            data,
            stat_out,
        })
    }

    /// Stops both (SIGINT, as Ctrl-C stops perf) and returns the samples' `perf script` text
    /// and the system calls counted, when they were.
    pub fn finish(mut self, dir: &Path) -> Result<(PathBuf, Option<u64>), ProfileError> {
        let syscalls = self.stat.take().and_then(|child| {
            stop(child);
            parse_stat(&std::fs::read_to_string(&self.stat_out).ok()?)
        });
        let status = stop(self.record);
        if !self.data.exists() {
            let log = std::fs::read_to_string(dir.join("perf-record.log")).unwrap_or_default();
            return Err(ProfileError::Record {
                status,
                log: log.lines().last().unwrap_or("").to_string(),
            });
        }
        Ok((self.data, syscalls))
    }
}

/// `perf script` of `data`, reading the perf maps JIT runtimes wrote in /tmp.
pub fn script(data: &Path) -> Result<String, ProfileError> {
    let out = Command::new(perf_binary())
        .arg("script")
        .arg("-i")
        .arg(data)
        .stderr(Stdio::null())
        .output()
        .map_err(|e| ProfileError::Spawn {
            what: "perf script".into(),
            source: e,
        })?;
    if !out.status.success() {
        return Err(ProfileError::Script(out.status.to_string()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The samples of `perf script` text: one header line (`comm pid time: period event:`) each,
/// its frames indented below it.
pub fn sample_count(script: &str) -> u64 {
    script
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with(char::is_whitespace))
        .count() as u64
}

/// The count of the first event of `perf stat -x ,` output.
pub fn parse_stat(text: &str) -> Option<u64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .find_map(|l| l.split(',').next()?.trim().parse().ok())
}

fn spawn_quiet(mut command: Command, log: PathBuf) -> Result<Child, ProfileError> {
    let what = "perf".to_string();
    let file = std::fs::File::create(&log).map_err(|e| ProfileError::Spawn {
        what: what.clone(),
        source: e,
    })?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(file)
        .spawn()
        .map_err(|e| ProfileError::Spawn { what, source: e })
}

/// SIGINT, then a bounded wait (perf writes its file on SIGINT), then SIGKILL.
fn stop(mut child: Child) -> String {
    let pid = Pid::from_raw(child.id() as i32);
    let _ = kill(pid, Signal::SIGINT);
    for _ in 0..200 {
        if let Ok(Some(status)) = child.try_wait() {
            return status.to_string();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    child
        .wait()
        .map_or("killed".into(), |status| status.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_count_perf_stat_wrote() {
        let text = "# started on Tue Dec  1 12:55:54 2026\n\n1720328,,raw_syscalls:sys_enter,465021068,100.00,,\n";
        assert_eq!(parse_stat(text), Some(1_720_328));
        assert_eq!(
            parse_stat("<not counted>,,raw_syscalls:sys_enter,0,100.00,,\n"),
            None
        );
    }

    #[test]
    fn pids_are_the_scope_outside_a_unified_hierarchy() {
        let scope = Scope::of(&[PathBuf::from("/nowhere/restbench-x")], vec![3, 4]);
        assert_eq!(scope, Scope::Pids(vec![3, 4]));
        assert_eq!(scope.args(), vec!["-p".to_string(), "3,4".into()]);
    }
}
