//! Processes and ports as the tests that start servers check them: processes by pid and start
//! time from /proc, never by name, so that tests running in parallel never mistake each other's
//! processes for leftovers. The harness's and the binary's tests check cleanup the same way.

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// `(parent pid, start time, state)` of a process, from /proc/PID/stat.
pub fn stat(pid: u32) -> Option<(u32, u64, char)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = text[text.rfind(')')? + 2..].split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    Some((
        fields.get(1)?.parse().ok()?,
        fields.get(19)?.parse().ok()?,
        state,
    ))
}

/// Every pid in /proc.
pub fn pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse().ok())
        .collect()
}

/// `(pid, start time)` of the postmaster and of every process it started.
pub fn postgres_processes(postmaster: u32) -> Vec<(u32, u64)> {
    pids()
        .into_iter()
        .filter_map(|pid| {
            let (ppid, start, _) = stat(pid)?;
            (pid == postmaster || ppid == postmaster).then_some((pid, start))
        })
        .collect()
}

/// Those of `procs` still running (a zombie has ended; a reused pid is another process).
pub fn still_running(procs: &[(u32, u64)]) -> Vec<u32> {
    procs
        .iter()
        .filter(|(pid, start)| {
            stat(*pid).is_some_and(|(_, s, state)| s == *start && state != 'Z' && state != 'X')
        })
        .map(|(pid, _)| *pid)
        .collect()
}

/// Polls (10 s at most) until `done` holds; returns how long it took, or `None`.
pub fn within_10s(mut done: impl FnMut() -> bool) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if done() {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done().then(|| started.elapsed())
}

/// Polls (10 s at most) until none of `procs` runs; returns those that still do.
pub fn wait_gone(procs: &[(u32, u64)]) -> Vec<u32> {
    within_10s(|| still_running(procs).is_empty());
    still_running(procs)
}

/// Whether something accepts connections on 127.0.0.1:`port` (within a second).
pub fn accepts(port: u16) -> bool {
    TcpStream::connect_timeout(
        &SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_secs(1),
    )
    .is_ok()
}
