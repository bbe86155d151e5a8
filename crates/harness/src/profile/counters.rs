//! The server's context switches and page faults, read from /proc for every process of its
//! group before and after the slice.

use std::collections::BTreeMap;

/// The counters of one process group at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
    pub minor_faults: u64,
    pub major_faults: u64,
}

impl Counters {
    /// What happened between `self` (before) and `after`; a process that exited in between
    /// takes its counts with it, so a counter never goes below zero.
    pub fn delta(&self, after: &Counters) -> Counters {
        Counters {
            voluntary_switches: after
                .voluntary_switches
                .saturating_sub(self.voluntary_switches),
            involuntary_switches: after
                .involuntary_switches
                .saturating_sub(self.involuntary_switches),
            minor_faults: after.minor_faults.saturating_sub(self.minor_faults),
            major_faults: after.major_faults.saturating_sub(self.major_faults),
        }
    }
}

/// The pids whose process group is `pgid`.
pub fn group_pids(pgid: i32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| stat_fields(&format!("/proc/{pid}/stat")).is_some_and(|f| f.pgrp == pgid))
        .collect();
    pids.sort_unstable();
    pids
}

/// The counters summed over `pids`: context switches over every thread (a process's status
/// counts its main thread only), faults per process (they include its exited threads').
pub fn read(pids: &[u32]) -> Counters {
    let mut total = Counters::default();
    for pid in pids {
        if let Some(fields) = stat_fields(&format!("/proc/{pid}/stat")) {
            total.minor_faults += fields.minflt;
            total.major_faults += fields.majflt;
        }
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.filter_map(Result::ok) {
            let status = std::fs::read_to_string(task.path().join("status")).unwrap_or_default();
            let switches = status_switches(&status);
            total.voluntary_switches += switches.get("voluntary_ctxt_switches").unwrap_or(&0);
            total.involuntary_switches += switches.get("nonvoluntary_ctxt_switches").unwrap_or(&0);
        }
    }
    total
}

/// The `*_ctxt_switches` lines of a /proc status file.
pub fn status_switches(status: &str) -> BTreeMap<&str, u64> {
    status
        .lines()
        .filter_map(|l| {
            let (key, value) = l.split_once(':')?;
            key.ends_with("ctxt_switches")
                .then(|| Some((key, value.trim().parse().ok()?)))?
        })
        .collect()
}

struct StatFields {
    pgrp: i32,
    minflt: u64,
    majflt: u64,
}

/// Fields of /proc/PID/stat after the command name (which may hold spaces and parentheses).
fn stat_fields(path: &str) -> Option<StatFields> {
    let text = std::fs::read_to_string(path).ok()?;
    let after = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // After the name: state(3) ppid(4) pgrp(5) session tty tpgid flags minflt(10) cminflt
    // majflt(12), numbered as proc(5) numbers them.
    Some(StatFields {
        pgrp: fields.get(2)?.parse().ok()?,
        minflt: fields.get(7)?.parse().ok()?,
        majflt: fields.get(9)?.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process_and_its_switch_lines() {
        let pgid = nix::unistd::getpgrp().as_raw();
        let pids = group_pids(pgid);
        assert!(pids.contains(&std::process::id()));
        let counters = read(&[std::process::id()]);
        assert!(
            counters.minor_faults > 0,
            "a running test has faulted pages in"
        );
        let status = "Name:\tx\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n";
        let switches = status_switches(status);
        assert_eq!(switches["voluntary_ctxt_switches"], 12);
        assert_eq!(switches["nonvoluntary_ctxt_switches"], 3);
        let before = Counters {
            voluntary_switches: 10,
            ..Counters::default()
        };
        assert_eq!(before.delta(&Counters::default()).voluntary_switches, 0);
    }
}
