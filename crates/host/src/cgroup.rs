//! CPU limits and accounting through Linux control groups, with CPU affinity as the fallback;
//! a memory limit, and the OOM kills it caused, where the memory controller is usable.
//!
//! The backend is found by probing, not assumed: cgroup v2 when restbench's own cgroup can give
//! its children the `cpu` controller; cgroup v1 when the `cpu` and `cpuacct` hierarchies are
//! mounted and writable (`cpuset` and `memory` are used when present); otherwise affinity only.
//! Each started server gets its own cgroup under restbench's own, so limits of the surrounding
//! container still apply. The cgroup is removed when the server stops, by the process guard when
//! restbench dies (see [`crate::process`]), and by [`Backend::probe`] for leftovers of a
//! restbench that is gone.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::error::HostError;
use crate::placement::format_cpu_list;

/// The CFS period restbench sets with a quota (the kernel's default).
const CFS_PERIOD_US: u64 = 100_000;

/// Which mechanism limits and accounts a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    CgroupV2,
    CgroupV1,
    AffinityOnly,
}

impl BackendKind {
    /// The kind a [`BackendKind::name`] names.
    pub fn from_name(name: &str) -> Option<Self> {
        [Self::CgroupV2, Self::CgroupV1, Self::AffinityOnly]
            .into_iter()
            .find(|k| k.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::CgroupV2 => "cgroup-v2",
            Self::CgroupV1 => "cgroup-v1",
            Self::AffinityOnly => "affinity-only",
        }
    }
}

/// What a backend can enforce and measure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Capabilities {
    pub cpu_quota: bool,
    pub cpuset: bool,
    pub cpu_accounting: bool,
    pub memory_accounting: bool,
}

/// The folders new cgroups are created in.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Bases {
    V2(PathBuf),
    V1 {
        cpu: PathBuf,
        cpuacct: PathBuf,
        cpuset: Option<PathBuf>,
        memory: Option<PathBuf>,
    },
    None,
}

/// The backend found on this machine.
#[derive(Debug, Clone)]
pub struct Backend {
    pub kind: BackendKind,
    /// Why this backend, and why not the better ones.
    pub reason: String,
    pub capabilities: Capabilities,
    bases: Bases,
}

impl Backend {
    /// Finds the best backend and removes cgroups left by restbench processes that are gone.
    pub fn probe() -> Self {
        let mounts = super::procfs::read_kernel_text("/proc/self/mountinfo").unwrap_or_default();
        let own = super::procfs::read_kernel_text("/proc/self/cgroup").unwrap_or_default();
        let backend = Self::probe_from(&parse_mounts(&mounts), &parse_own_cgroups(&own));
        backend.sweep_stale();
        backend
    }

    /// Affinity only, whatever the machine has.
    pub fn affinity_only(reason: &str) -> Self {
        Self {
            kind: BackendKind::AffinityOnly,
            reason: reason.into(),
            capabilities: Capabilities::default(),
            bases: Bases::None,
        }
    }

    fn probe_from(mounts: &[CgroupMount], own: &[OwnCgroup]) -> Self {
        let mut why_not = Vec::new();
        match probe_v2(mounts, own) {
            Ok(b) => return b,
            Err(e) => why_not.push(format!("cgroup v2: {e}")),
        }
        match probe_v1(mounts, own) {
            Ok(mut b) => {
                b.reason = format!("{}; {}", b.reason, why_not.join("; "));
                return b;
            }
            Err(e) => why_not.push(format!("cgroup v1: {e}")),
        }
        Self::affinity_only(&format!(
            "no usable cgroup ({}); CPU sets by sched_setaffinity, usage from /proc",
            why_not.join("; ")
        ))
    }

    /// True when the server can be given a CPU quota.
    pub fn enforces_quota(&self) -> bool {
        self.capabilities.cpu_quota
    }

    /// Creates a cgroup for one server: `cpus` as its cpuset (when the backend has one) and an
    /// optional CPU quota in cores.
    pub fn create(
        &self,
        label: &str,
        cpus: &[usize],
        quota_cores: Option<f64>,
    ) -> Result<Option<ServerCgroup>, HostError> {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let safe: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let name = format!(
            "restbench-{}-{}-{safe}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut group = ServerCgroup {
            kind: self.kind,
            dirs: Vec::new(),
            cpu_usage_file: None,
            memory_dir: None,
            quota_cores,
        };
        let fail = cgroup_error;
        match &self.bases {
            Bases::None => return Ok(None),
            Bases::V2(base) => {
                let dir = base.join(&name);
                make_dir(&dir).map_err(|e| fail(format!("cannot create {}", dir.display()), e))?;
                group.dirs.push(dir.clone());
                if self.capabilities.cpuset && !cpus.is_empty() {
                    write(&dir.join("cpuset.cpus"), &format_cpu_list(cpus))?;
                }
                if let Some(q) = quota_cores {
                    let quota = (q * CFS_PERIOD_US as f64).round() as u64;
                    write(&dir.join("cpu.max"), &format!("{quota} {CFS_PERIOD_US}"))?;
                }
                group.cpu_usage_file = Some(dir.join("cpu.stat"));
                if self.capabilities.memory_accounting {
                    group.memory_dir = Some(dir);
                }
            }
            Bases::V1 {
                cpu,
                cpuacct,
                cpuset,
                memory,
            } => {
                let mut wanted = vec![cpu.clone()];
                if cpuacct != cpu {
                    wanted.push(cpuacct.clone());
                }
                for base in cpuset.iter().chain(memory.iter()) {
                    if !wanted.contains(base) {
                        wanted.push(base.clone());
                    }
                }
                for base in &wanted {
                    let dir = base.join(&name);
                    make_dir(&dir)
                        .map_err(|e| fail(format!("cannot create {}", dir.display()), e))?;
                    group.dirs.push(dir);
                }
                if let Some(base) = cpuset {
                    let dir = base.join(&name);
                    // A v1 cpuset takes no task before it has CPUs and memory nodes.
                    let mems =
                        super::procfs::read_kernel_text(base.join("cpuset.mems")).map_err(|e| {
                            fail(format!("cannot read {}/cpuset.mems", base.display()), e)
                        })?;
                    write(&dir.join("cpuset.mems"), mems.trim())?;
                    let all =
                        super::procfs::read_kernel_text(base.join("cpuset.cpus")).map_err(|e| {
                            fail(format!("cannot read {}/cpuset.cpus", base.display()), e)
                        })?;
                    let list = if cpus.is_empty() {
                        all.trim().to_string()
                    } else {
                        format_cpu_list(cpus)
                    };
                    write(&dir.join("cpuset.cpus"), &list)?;
                }
                let cpu_dir = cpu.join(&name);
                if let Some(q) = quota_cores {
                    let quota = (q * CFS_PERIOD_US as f64).round() as u64;
                    write(
                        &cpu_dir.join("cpu.cfs_period_us"),
                        &CFS_PERIOD_US.to_string(),
                    )?;
                    write(&cpu_dir.join("cpu.cfs_quota_us"), &quota.to_string())?;
                }
                group.cpu_usage_file = Some(cpuacct.join(&name).join("cpuacct.usage"));
                group.memory_dir = memory.as_ref().map(|m| m.join(&name));
            }
        }
        Ok(Some(group))
    }

    /// Removes `restbench-PID-*` cgroups whose restbench process no longer exists.
    fn sweep_stale(&self) {
        let bases: Vec<&PathBuf> = match &self.bases {
            Bases::None => return,
            Bases::V2(b) => vec![b],
            Bases::V1 {
                cpu,
                cpuacct,
                cpuset,
                memory,
            } => [Some(cpu), Some(cpuacct), cpuset.as_ref(), memory.as_ref()]
                .into_iter()
                .flatten()
                .collect(),
        };
        for base in bases {
            let Ok(entries) = std::fs::read_dir(base) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                let Some(pid) = name
                    .strip_prefix("restbench-")
                    .and_then(|r| r.split('-').next())
                    .and_then(|p| p.parse::<u32>().ok())
                else {
                    continue;
                };
                if !Path::new(&format!("/proc/{pid}")).exists() {
                    remove_dir(&entry.path(), Duration::from_secs(1));
                }
            }
        }
    }

    /// Lines for `restbench doctor`.
    pub fn describe(&self) -> Vec<String> {
        let c = self.capabilities;
        let yes = |b: bool| if b { "yes" } else { "no" };
        vec![
            format!("backend: {} ({})", self.kind.name(), self.reason),
            format!("CPU quota (one-cpu): {}", yes(c.cpu_quota)),
            format!("cpuset: {} (affinity is always set)", yes(c.cpuset)),
            format!(
                "CPU accounting of the whole tree: {}",
                yes(c.cpu_accounting)
            ),
            format!("memory accounting: {}", yes(c.memory_accounting)),
        ]
    }
}

/// One server's cgroup; removed (its processes killed) on drop.
#[derive(Debug)]
pub struct ServerCgroup {
    kind: BackendKind,
    dirs: Vec<PathBuf>,
    cpu_usage_file: Option<PathBuf>,
    memory_dir: Option<PathBuf>,
    quota_cores: Option<f64>,
}

impl ServerCgroup {
    /// The folders of this cgroup (one per v1 hierarchy); a child joins each before exec.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    pub fn quota_cores(&self) -> Option<f64> {
        self.quota_cores
    }

    /// CPU time used by every process that ever ran in the cgroup.
    pub fn cpu_usage(&self) -> Option<Duration> {
        let file = self.cpu_usage_file.as_ref()?;
        let text = super::procfs::read_kernel_text(file).ok()?;
        match self.kind {
            BackendKind::CgroupV2 => text.lines().find_map(|l| {
                l.strip_prefix("usage_usec ")
                    .and_then(|v| v.trim().parse().ok())
                    .map(Duration::from_micros)
            }),
            _ => text.trim().parse().ok().map(Duration::from_nanos),
        }
    }

    /// A reader of the cgroup's memory, for a sampling thread.
    pub fn memory(&self) -> Option<CgroupMemory> {
        self.memory_dir.as_ref().map(|dir| CgroupMemory {
            kind: self.kind,
            dir: dir.clone(),
        })
    }

    /// Limits the memory of the cgroup's processes to `bytes` (`memory.max` on v2,
    /// `memory.limit_in_bytes` on v1): past it the kernel reclaims, then its OOM killer ends a
    /// process of the group, which [`ServerCgroup::oom_kills`] counts. Returns the file it
    /// wrote; `Ok(None)` when the cgroup has no memory controller (nothing is enforced).
    pub fn limit_memory(&self, bytes: u64) -> Result<Option<&'static str>, HostError> {
        let Some(dir) = &self.memory_dir else {
            return Ok(None);
        };
        let file = match self.kind {
            BackendKind::CgroupV2 => "memory.max",
            _ => "memory.limit_in_bytes",
        };
        write(&dir.join(file), &bytes.to_string())?;
        Ok(Some(file))
    }

    /// How many processes of the cgroup the kernel's OOM killer ended (`oom_kill` of
    /// `memory.events` on v2, of `memory.oom_control` on v1); `None` without a memory
    /// controller or on kernels that do not count them.
    pub fn oom_kills(&self) -> Option<u64> {
        let dir = self.memory_dir.as_ref()?;
        let file = match self.kind {
            BackendKind::CgroupV2 => "memory.events",
            _ => "memory.oom_control",
        };
        let text = super::procfs::read_kernel_text(dir.join(file)).ok()?;
        parse_oom_kills(&text)
    }

    /// Periods in which the quota throttled the server, and for how long in all.
    pub fn throttling(&self) -> Option<(u64, Duration)> {
        let dir = self.dirs.first()?;
        let text = super::procfs::read_kernel_text(dir.join("cpu.stat")).ok()?;
        let field = |name: &str| {
            text.lines().find_map(|l| {
                l.strip_prefix(name)
                    .and_then(|v| v.trim().parse::<u64>().ok())
            })
        };
        let periods = field("nr_throttled ")?;
        let time = match self.kind {
            BackendKind::CgroupV2 => Duration::from_micros(field("throttled_usec ")?),
            _ => Duration::from_nanos(field("throttled_time ")?),
        };
        Some((periods, time))
    }
}

/// Where a cgroup's figures live: what the agent of a remote server reports, so that later
/// commands on that host can read them ([`ServerCgroup::reader`]) and remove them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CgroupFiles {
    /// [`BackendKind::name`].
    pub kind: String,
    pub dirs: Vec<PathBuf>,
    pub cpu_usage_file: Option<PathBuf>,
    pub memory_dir: Option<PathBuf>,
}

impl ServerCgroup {
    /// Where this cgroup's figures are read.
    pub fn files(&self) -> CgroupFiles {
        CgroupFiles {
            kind: self.kind.name().into(),
            dirs: self.dirs.clone(),
            cpu_usage_file: self.cpu_usage_file.clone(),
            memory_dir: self.memory_dir.clone(),
        }
    }

    /// A reader of a cgroup another process made: it owns nothing, so dropping it removes
    /// nothing. `None` for an unknown kind.
    pub fn reader(files: &CgroupFiles) -> Option<Self> {
        Some(Self {
            kind: BackendKind::from_name(&files.kind)?,
            dirs: Vec::new(),
            cpu_usage_file: files.cpu_usage_file.clone(),
            memory_dir: files.memory_dir.clone(),
            quota_cores: None,
        })
    }
}

impl Drop for ServerCgroup {
    fn drop(&mut self) {
        for dir in &self.dirs {
            remove_dir(dir, Duration::from_secs(2));
        }
    }
}

/// Reads the memory charged to a cgroup.
#[derive(Debug, Clone)]
pub struct CgroupMemory {
    kind: BackendKind,
    dir: PathBuf,
}

impl CgroupMemory {
    /// Usage without inactive file cache (the figure `docker stats` shows).
    pub fn current(&self) -> Option<u64> {
        let (usage_file, inactive_key) = match self.kind {
            BackendKind::CgroupV2 => ("memory.current", "inactive_file "),
            _ => ("memory.usage_in_bytes", "total_inactive_file "),
        };
        let usage: u64 = super::procfs::read_kernel_text(self.dir.join(usage_file))
            .ok()?
            .trim()
            .parse()
            .ok()?;
        let inactive = super::procfs::read_kernel_text(self.dir.join("memory.stat"))
            .ok()
            .and_then(|s| {
                s.lines().find_map(|l| {
                    l.strip_prefix(inactive_key)
                        .and_then(|v| v.trim().parse::<u64>().ok())
                })
            })
            .unwrap_or(0);
        Some(usage.saturating_sub(inactive))
    }
}

/// The `oom_kill N` line of `memory.events` (v2) or `memory.oom_control` (v1).
fn parse_oom_kills(text: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        l.strip_prefix("oom_kill ")
            .and_then(|v| v.trim().parse().ok())
    })
}

/// Kills what is left in a cgroup folder and removes it, retrying for up to `wait`.
fn remove_dir(dir: &Path, wait: Duration) {
    let deadline = Instant::now() + wait;
    loop {
        if let Ok(procs) = super::procfs::read_kernel_text(dir.join("cgroup.procs")) {
            for pid in procs.lines().filter_map(|p| p.trim().parse::<i32>().ok()) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        match std::fs::remove_dir(dir) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => return,
        }
    }
}

fn make_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

fn write(path: &Path, value: &str) -> Result<(), HostError> {
    std::fs::write(path, value)
        .map_err(|e| cgroup_error(format!("cannot write {value:?} to {}", path.display()), e))
}

/// A cgroup operation failed after the probe said it would work; say how to run without them.
fn cgroup_error(what: String, e: std::io::Error) -> HostError {
    HostError::io(
        format!(
            "{what} (--no-cgroups runs with CPU affinity only; `restbench doctor` shows why cgroups were chosen)"
        ),
        e,
    )
}

/// A cgroup file system mounted somewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CgroupMount {
    version: u8,
    /// The folder of the hierarchy this mount shows at its mount point.
    root: String,
    mount_point: PathBuf,
    /// v1 controllers of the hierarchy.
    controllers: Vec<String>,
}

/// One line of /proc/self/cgroup.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OwnCgroup {
    /// Empty for the v2 hierarchy.
    controllers: Vec<String>,
    path: String,
}

fn parse_mounts(mountinfo: &str) -> Vec<CgroupMount> {
    let mut out = Vec::new();
    for line in mountinfo.lines() {
        let Some((pre, post)) = line.split_once(" - ") else {
            continue;
        };
        let pre: Vec<&str> = pre.split(' ').collect();
        let post: Vec<&str> = post.split(' ').collect();
        if pre.len() < 5 || post.len() < 3 {
            continue;
        }
        let version = match post[0] {
            "cgroup2" => 2,
            "cgroup" => 1,
            _ => continue,
        };
        let controllers = post[2]
            .split(',')
            .filter(|o| ["cpu", "cpuacct", "cpuset", "memory"].contains(o))
            .map(String::from)
            .collect();
        out.push(CgroupMount {
            version,
            root: pre[3].to_string(),
            mount_point: PathBuf::from(pre[4]),
            controllers,
        });
    }
    out
}

fn parse_own_cgroups(text: &str) -> Vec<OwnCgroup> {
    text.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            let _id = parts.next()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            Some(OwnCgroup {
                controllers: controllers
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(String::from)
                    .collect(),
                path: path.to_string(),
            })
        })
        .collect()
}

/// The folder of restbench's own cgroup in `mount`.
fn own_dir(mount: &CgroupMount, own_path: &str) -> PathBuf {
    let relative = own_path
        .strip_prefix(mount.root.as_str())
        .unwrap_or(own_path)
        .trim_start_matches('/');
    if relative.is_empty() {
        mount.mount_point.clone()
    } else {
        mount.mount_point.join(relative)
    }
}

fn probe_v2(mounts: &[CgroupMount], own: &[OwnCgroup]) -> Result<Backend, String> {
    let mount = mounts
        .iter()
        .find(|m| m.version == 2)
        .ok_or("not mounted")?;
    let own_path = own
        .iter()
        .find(|o| o.controllers.is_empty())
        .map_or("/", |o| o.path.as_str());
    let base = own_dir(mount, own_path);
    let available = super::procfs::read_kernel_text(base.join("cgroup.controllers"))
        .map_err(|e| format!("cannot read {}/cgroup.controllers: {e}", base.display()))?;
    let available: Vec<&str> = available.split_whitespace().collect();
    if !available.contains(&"cpu") {
        return Err(format!(
            "{} offers no cpu controller (it has: {})",
            base.display(),
            if available.is_empty() {
                "none".to_string()
            } else {
                available.join(" ")
            }
        ));
    }
    let wanted: Vec<&str> = ["cpu", "cpuset", "memory"]
        .into_iter()
        .filter(|c| available.contains(c))
        .collect();
    let enabling = wanted
        .iter()
        .map(|c| format!("+{c}"))
        .collect::<Vec<_>>()
        .join(" ");
    std::fs::write(base.join("cgroup.subtree_control"), &enabling).map_err(|e| {
        format!(
            "cannot enable {enabling} for children of {} ({e}; a cgroup with processes of its \
             own cannot delegate controllers)",
            base.display()
        )
    })?;
    let probe = base.join(format!("restbench-{}-probe", std::process::id()));
    make_dir(&probe).map_err(|e| format!("cannot create {}: {e}", probe.display()))?;
    let has = |f: &str| probe.join(f).exists();
    let caps = Capabilities {
        cpu_quota: has("cpu.max"),
        cpuset: has("cpuset.cpus"),
        cpu_accounting: has("cpu.stat"),
        memory_accounting: has("memory.current"),
    };
    remove_dir(&probe, Duration::from_secs(1));
    if !caps.cpu_quota {
        return Err(format!("{} has no cpu.max", probe.display()));
    }
    Ok(Backend {
        kind: BackendKind::CgroupV2,
        reason: format!("cgroups created under {}", base.display()),
        capabilities: caps,
        bases: Bases::V2(base),
    })
}

fn probe_v1(mounts: &[CgroupMount], own: &[OwnCgroup]) -> Result<Backend, String> {
    let base_of = |controller: &str| -> Option<PathBuf> {
        let mount = mounts
            .iter()
            .find(|m| m.version == 1 && m.controllers.iter().any(|c| c == controller))?;
        let own_path = own
            .iter()
            .find(|o| o.controllers.iter().any(|c| c == controller))
            .map_or("/", |o| o.path.as_str());
        Some(own_dir(mount, own_path))
    };
    let cpu = base_of("cpu").ok_or("no cpu hierarchy mounted")?;
    let cpuacct = base_of("cpuacct").ok_or("no cpuacct hierarchy mounted")?;
    let probe = cpu.join(format!("restbench-{}-probe", std::process::id()));
    make_dir(&probe).map_err(|e| format!("cannot create {}: {e}", probe.display()))?;
    let quota = probe.join("cpu.cfs_quota_us").exists();
    remove_dir(&probe, Duration::from_secs(1));
    if !quota {
        return Err(format!("{} has no cpu.cfs_quota_us", cpu.display()));
    }
    let writable = |base: Option<PathBuf>| -> Option<PathBuf> {
        let base = base?;
        let probe = base.join(format!("restbench-{}-probe", std::process::id()));
        make_dir(&probe).ok()?;
        remove_dir(&probe, Duration::from_secs(1));
        Some(base)
    };
    let cpuset = writable(base_of("cpuset"));
    let memory = writable(base_of("memory"));
    let caps = Capabilities {
        cpu_quota: true,
        cpuset: cpuset.is_some(),
        cpu_accounting: true,
        memory_accounting: memory.is_some(),
    };
    let mut have = vec!["cpu", "cpuacct"];
    if cpuset.is_some() {
        have.push("cpuset");
    }
    if memory.is_some() {
        have.push("memory");
    }
    Ok(Backend {
        kind: BackendKind::CgroupV1,
        reason: format!(
            "v1 hierarchies {} writable under {}",
            have.join(", "),
            cpu.display()
        ),
        capabilities: caps,
        bases: Bases::V1 {
            cpu,
            cpuacct,
            cpuset,
            memory,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
30 25 0:26 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
31 25 0:27 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
32 25 0:28 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
33 25 0:29 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
34 25 0:30 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct
40 25 8:1 / / rw - ext4 /dev/sda1 rw
";

    #[test]
    fn oom_kills_are_read_from_either_version_s_file() {
        let v2 = "low 0\nhigh 0\nmax 17\noom 2\noom_kill 1\noom_group_kill 0\n";
        assert_eq!(parse_oom_kills(v2), Some(1));
        let v1 = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
        assert_eq!(parse_oom_kills(v1), Some(3));
        // Kernels before 4.13 do not count kills: unknown, not zero.
        assert_eq!(parse_oom_kills("oom_kill_disable 0\nunder_oom 0\n"), None);
    }

    #[test]
    fn mounts_and_own_cgroups_are_parsed() {
        let m = parse_mounts(MOUNTINFO);
        assert_eq!(m.len(), 5);
        assert_eq!(m[0].version, 2);
        assert_eq!(m[1].controllers, ["cpu"]);
        assert_eq!(m[4].controllers, ["cpu", "cpuacct"]);
        let own = parse_own_cgroups("4:memory:/docker/abc/x\n1:cpu:/\n0::/user.slice\n");
        assert_eq!(own[0].controllers, ["memory"]);
        assert_eq!(own[2].controllers, Vec::<String>::new());
        // The memory mount shows /docker/abc at its mount point.
        assert_eq!(
            own_dir(&m[3], &own[0].path),
            PathBuf::from("/sys/fs/cgroup/memory/x")
        );
        assert_eq!(own_dir(&m[1], "/"), PathBuf::from("/sys/fs/cgroup/cpu"));
    }

    #[test]
    fn nothing_mounted_falls_back_to_affinity_with_reasons() {
        let b = Backend::probe_from(&[], &[]);
        assert_eq!(b.kind, BackendKind::AffinityOnly);
        assert!(b.reason.contains("cgroup v2: not mounted"), "{}", b.reason);
        assert!(
            b.reason.contains("cgroup v1: no cpu hierarchy"),
            "{}",
            b.reason
        );
        assert!(b.create("x", &[0], Some(1.0)).unwrap().is_none());
    }
}
