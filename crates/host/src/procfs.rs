//! What /proc says about processes and sockets, read within limits: a process's parent, state,
//! command line and inherited environment, and who listens on a TCP port. The kernel's files are
//! read as every file restbench reads, with a stated size limit.

use std::path::Path;

/// The most a file of the kernel's (/proc, cgroupfs) is read to: a busy host's
/// /proc/net/tcp is the largest, at ~150 bytes a socket.
pub const KERNEL_FILE_LIMIT: u64 = 64 << 20;

/// A /proc or cgroup file as text, within [`KERNEL_FILE_LIMIT`]; the same `io::Result` as
/// `std::fs::read_to_string`.
pub fn read_kernel_text(path: impl AsRef<Path>) -> std::io::Result<String> {
    use restbench_model::documents::io::{LimitedReadError, read_limited_string};
    read_limited_string(path.as_ref(), KERNEL_FILE_LIMIT, "the kernel's file").map_err(
        |e| match e {
            LimitedReadError::Read { source, .. } => source,
            e => std::io::Error::other(e.to_string()),
        },
    )
}

/// Every process id in /proc.
pub fn pids() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// A process's parent and state letter (`R`, `S`, `Z`…), from /proc/PID/stat.
pub fn parent_and_state(pid: i32) -> Option<(i32, char)> {
    stat(pid).map(|(parent, state, _)| (parent, state))
}

/// A process's parent, state letter and process group, from /proc/PID/stat.
pub fn stat(pid: i32) -> Option<(i32, char, i32)> {
    let stat = read_kernel_text(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold anything: fields follow the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some((parent, state, group))
}

/// The process's name (`comm`).
pub fn comm(pid: i32) -> String {
    read_kernel_text(format!("/proc/{pid}/comm"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The command line, space-separated and cut to 120 characters, for messages.
pub fn command_line(pid: i32) -> String {
    let bytes = restbench_model::documents::io::read_limited(
        Path::new(&format!("/proc/{pid}/cmdline")),
        KERNEL_FILE_LIMIT,
        "the command line",
    )
    .unwrap_or_default();
    let line: String = String::from_utf8_lossy(&bytes)
        .split('\0')
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if line.is_empty() {
        return comm(pid);
    }
    let mut short: String = line.chars().take(120).collect();
    if short.len() < line.len() {
        short.push('…');
    }
    short
}

/// True when the process was started with `entry` (`NAME=value`) in its environment: what it
/// inherited, however many forks and `setsid`s away from the one that set it.
pub fn environ_has(pid: i32, entry: &str) -> bool {
    restbench_model::documents::io::read_limited(
        Path::new(&format!("/proc/{pid}/environ")),
        KERNEL_FILE_LIMIT,
        "the environment",
    )
    .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == entry.as_bytes()))
}

/// Who listens on TCP `port` (IPv4 or IPv6): `None` when nobody does, `Some(None)` when
/// someone does but no process of those visible holds the socket.
pub fn listeners(port: u16) -> Option<Option<i32>> {
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = read_kernel_text(table) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.len() < 10 || cols[3] != "0A" {
                continue; // not LISTEN
            }
            let local_port = cols[1]
                .rsplit(':')
                .next()
                .and_then(|p| u16::from_str_radix(p, 16).ok());
            if local_port == Some(port) {
                inodes.push(format!("socket:[{}]", cols[9]));
            }
        }
    }
    if inodes.is_empty() {
        return None;
    }
    for pid in pids() {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path())
                && inodes.iter().any(|i| target.as_os_str() == i.as_str())
            {
                return Some(Some(pid));
            }
        }
    }
    Some(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_described() {
        let me = std::process::id() as i32;
        let (parent, state) = parent_and_state(me).unwrap();
        assert_eq!(parent, std::os::unix::process::parent_id() as i32);
        assert_ne!(state, 'Z');
        assert!(pids().contains(&me));
        assert!(!command_line(me).is_empty());
        assert!(!environ_has(me, "RESTBENCH_NO_SUCH_VARIABLE=1"));
    }

    #[test]
    fn a_listener_is_found_by_its_port() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert_eq!(listeners(port), Some(Some(std::process::id() as i32)));
        drop(l);
        assert_eq!(listeners(port), None);
    }
}
