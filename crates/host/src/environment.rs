//! Facts about the machine, recorded with every run.

use std::collections::BTreeMap;

use restbench_model::Environment;

use crate::cgroup::Backend;
use crate::placement::Placement;

/// Reads CPU model, cores, kernel, host and memory.
pub fn describe(placement: &Placement, backend: &Backend) -> Environment {
    let cpuinfo = super::procfs::read_kernel_text("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let uname = nix::sys::utsname::uname().ok();
    let kernel = uname
        .as_ref()
        .map(|u| u.release().to_string_lossy().into_owned())
        .unwrap_or_default();
    let hostname = uname
        .as_ref()
        .map(|u| u.nodename().to_string_lossy().into_owned())
        .unwrap_or_default();
    let memory_bytes = super::procfs::read_kernel_text("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines().find_map(|l| {
                l.strip_prefix("MemTotal:")
                    .map(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
            })
        })
        .flatten()
        .map_or(0, |kb| kb * 1024);
    Environment {
        restbench_version: env!("CARGO_PKG_VERSION").to_string(),
        cpu_model,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        kernel,
        hostname,
        memory_bytes,
        backend: backend.kind.name().into(),
        backend_reason: format!("{}; {}", backend.reason, placement.describe()),
        loadgen_cpus: placement.loadgen.iter().map(|&c| c as u32).collect(),
        server_cpus: placement.server.iter().map(|&c| c as u32).collect(),
        toolchains: BTreeMap::new(),
        loadgen_ceiling_rps: None,
        loadgen_ceiling_start_rps: None,
        loadgen_ceiling_end_rps: None,
    }
}

/// First line of a command's output, or why it failed.
pub fn command_version(cwd: &std::path::Path, command: &str) -> String {
    match std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .output()
    {
        Ok(out) if out.status.success() => {
            let text = if out.stdout.is_empty() {
                out.stderr
            } else {
                out.stdout
            };
            strip_ansi(
                String::from_utf8_lossy(&text)
                    .lines()
                    .next()
                    .unwrap_or_default(),
            )
            .trim()
            .to_string()
        }
        Ok(out) => format!("unknown ({} exited {})", command, out.status),
        Err(e) => format!("unknown ({e})"),
    }
}

/// Removes terminal colour sequences (`ESC [ … letter`), which some tools print even into pipes.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.next() == Some('[') {
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Memory the kernel says is available now (`MemAvailable` of /proc/meminfo), MiB; `None` when
/// it cannot tell.
pub fn available_memory_mb() -> Option<u64> {
    let text = super::procfs::read_kernel_text("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_sequences_are_removed() {
        assert_eq!(
            strip_ansi("\u{1b}[1mApache Maven 3.8.7\u{1b}[m"),
            "Apache Maven 3.8.7"
        );
        assert_eq!(strip_ansi("go version go1.26"), "go version go1.26");
    }
}
