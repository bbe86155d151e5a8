//! Child processes that never outlive restbench.
//!
//! Each child gets its own process group (so cluster workers and other grandchildren are reached
//! with one signal), `PR_SET_PDEATHSIG` (so it dies with restbench even on SIGKILL), and a guard:
//! a tiny shell in another group that waits on a pipe from restbench and, when the pipe closes
//! because restbench ended in any way, kills the whole group and removes what it was told to
//! remove. Dropping a [`ManagedChild`] stops the group: SIGTERM, a grace period, SIGKILL.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::net::{SocketAddr, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::procfs;
use crate::error::HostError;

/// How to start a child.
#[derive(Debug, Clone, Default)]
pub struct SpawnSpec {
    /// A short name for messages.
    pub name: String,
    /// Run through `/bin/sh -c`.
    pub shell_command: String,
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
    /// CPUs the child (and everything it starts) may run on.
    pub cpus: Option<Vec<usize>>,
    /// Run as this user and group (PostgreSQL refuses to run as root).
    pub user: Option<(u32, u32)>,
    /// Where stdout and stderr go.
    pub log: PathBuf,
    /// A folder the guard removes if restbench dies before cleaning up.
    pub remove_on_death: Option<PathBuf>,
    /// Cgroup folders the child joins before exec (one per v1 hierarchy); the guard empties and
    /// removes them if restbench dies.
    pub cgroup_dirs: Vec<PathBuf>,
    /// The TCP port the child serves on: a listener still there once the group is stopped is
    /// an escapee (stopped when restbench started it, named either way).
    pub port: Option<u16>,
}

/// The variable every child starts with, set to a value of its own: what the child starts
/// inherits it (a double fork and a `setsid` keep the environment), so whatever left the
/// process group is still found by it, in /proc, when the child is stopped.
pub const SPAWN_TOKEN_ENV: &str = "RESTBENCH_SPAWN";

/// A running child and its process group.
pub struct ManagedChild {
    name: String,
    child: Child,
    pgid: Pid,
    guard: Option<(Child, ChildStdin)>,
    log: PathBuf,
    /// Set once the log's copier has written everything (the child's output pipe closed).
    log_done: Option<Arc<LogDone>>,
    /// `RESTBENCH_SPAWN=…`, as it appears in the environment of everything the child started.
    token: String,
    port: Option<u16>,
    /// What the stop found outside the group, one sentence each.
    escapees: Vec<String>,
    stopped: bool,
}

impl ManagedChild {
    /// Starts the child. Its death signal fires when the *thread* that called this ends (that is
    /// how `PR_SET_PDEATHSIG` works), so spawn from a thread that outlives the child.
    pub fn spawn(spec: &SpawnSpec) -> Result<Self, HostError> {
        let spawn_err = |source| HostError::Spawn {
            what: spec.name.clone(),
            source,
        };
        let log = if spec.log == Path::new("/dev/null") {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&spec.log)
                .map_err(spawn_err)?
        } else {
            if let Some(dir) = spec.log.parent() {
                std::fs::create_dir_all(dir).map_err(spawn_err)?;
            }
            create_afresh(&spec.log).map_err(|e| {
                HostError::io(
                    format!(
                        "cannot create the log of {} at {}",
                        spec.name,
                        spec.log.display()
                    ),
                    e,
                )
            })?
        };
        // A real log is fed through a pipe and capped (its head and its tail kept); /dev/null
        // takes everything as it is. stdout and stderr share it, in the order written.
        let (out, err, log_done) = if spec.log == Path::new("/dev/null") {
            let err = log.try_clone().map_err(spawn_err)?;
            (Stdio::from(log), Stdio::from(err), None)
        } else {
            let (reader, writer) = std::io::pipe().map_err(spawn_err)?;
            let err = writer.try_clone().map_err(spawn_err)?;
            let done = Arc::new(LogDone::default());
            let capped = CappedLog::new(log, LOG_KEEP, LOG_KEEP);
            let flag = done.clone();
            std::thread::Builder::new()
                .name(format!("log-{}", spec.name))
                .spawn(move || copy_capped(reader, capped, &flag))
                .map_err(spawn_err)?;
            (Stdio::from(writer), Stdio::from(err), Some(done))
        };
        become_subreaper();
        let token = spawn_token();
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(&spec.shell_command)
            .current_dir(&spec.cwd)
            .envs(&spec.env)
            .env(SPAWN_TOKEN_ENV, &token[SPAWN_TOKEN_ENV.len() + 1..])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        let cpus = spec.cpus.clone();
        let user = spec.user;
        let cgroup_procs = spec
            .cgroup_dirs
            .iter()
            .map(|d| std::ffi::CString::new(d.join("cgroup.procs").as_os_str().as_encoded_bytes()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| spawn_err(std::io::Error::other(e)))?;
        install_pre_exec(&mut cmd, cpus, user, cgroup_procs);
        let child = cmd.spawn().map_err(spawn_err)?;
        let pgid = Pid::from_raw(child.id() as i32);
        let guard = spawn_guard(
            pgid,
            &token,
            spec.remove_on_death.as_deref(),
            &spec.cgroup_dirs,
        )
        .ok();
        Ok(Self {
            name: spec.name.clone(),
            child,
            pgid,
            guard,
            log: spec.log.clone(),
            log_done,
            token,
            port: spec.port,
            escapees: Vec::new(),
            stopped: false,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn pgid(&self) -> i32 {
        self.pgid.as_raw()
    }

    pub fn log_path(&self) -> &Path {
        &self.log
    }

    /// The exit status if the child has ended.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// The last `lines` lines of the child's output. A child that just exited may have output
    /// still in the pipe: the copier gets a moment to write it.
    pub fn log_tail(&self, lines: usize) -> String {
        if let Some(done) = &self.log_done {
            done.wait(Duration::from_millis(300));
        }
        tail(&self.log, lines)
    }

    /// SIGTERM to the group, up to `grace` to exit, then SIGKILL; waits for the child.
    pub fn stop(&mut self, grace: Duration) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let _ = killpg(self.pgid, Signal::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() && !group_alive(self.pgid) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = killpg(self.pgid, Signal::SIGKILL);
        let _ = self.child.wait();
        // Wait (bounded) for grandchildren to be gone too, so ports are free for the next cell.
        let deadline = Instant::now() + Duration::from_secs(2);
        while group_alive(self.pgid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.stop_escapees();
        if let Some(done) = &self.log_done {
            // Bounded: an escapee that could not be stopped may hold the pipe open.
            done.wait(Duration::from_secs(1));
        }
        if let Some((mut guard, mut stdin)) = self.guard.take() {
            // The guard wakes, finds the group gone, and removes what it was given (a folder,
            // cgroups): a stopped child's folder is gone too, so data that must survive a stop
            // belongs to another child's guard (see `db::Cluster`'s janitor). "stopped" tells it
            // the escapees were seen to already.
            use std::io::Write;
            let _ = stdin.write_all(b"stopped\n");
            drop(stdin);
            let _ = guard.wait();
        }
    }

    /// What the last stop found outside the process group — processes the child started that
    /// left it (a `setsid` daemon, a server that daemonised itself, a listener left on its
    /// port) — one sentence each, saying whether it was stopped. Each was also said on stderr.
    pub fn escapees(&self) -> &[String] {
        &self.escapees
    }

    /// Finds what the child started outside its group (by the inherited [`SPAWN_TOKEN_ENV`], and
    /// the listener on its port), stops it (SIGTERM, a moment, SIGKILL; reaped when it is ours,
    /// as orphans are with the subreaper), and says what was found.
    fn stop_escapees(&mut self) {
        let found = find_escapees(&self.token, self.port);
        if found.is_empty() {
            return;
        }
        let pids: Vec<i32> = found.iter().filter(|e| e.ours).map(|e| e.pid).collect();
        let survivors = terminate(&pids);
        for e in found {
            let what = format!("{}: pid {} ({}) {}", self.name, e.pid, e.command, e.how);
            let note = if !e.ours {
                format!("{what}; restbench did not start it, so it is left running")
            } else if let Some(error) = survivors.iter().find(|(p, _)| *p == e.pid) {
                format!("{what} and could not be stopped: {}", error.1)
            } else {
                format!("{what}; stopped")
            };
            eprintln!("warning: {note}");
            self.escapees.push(note);
        }
    }

    /// Sends a signal to the whole group.
    pub fn signal(&self, signal: Signal) {
        let _ = killpg(self.pgid, signal);
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for ManagedChild {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(3));
    }
}

/// `RESTBENCH_SPAWN=<pid>-<n>-<nanoseconds>`: unique to one child of one restbench.
fn spawn_token() -> String {
    static SPAWNED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SPAWNED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{SPAWN_TOKEN_ENV}={}-{n}-{nanos}", std::process::id())
}

/// Makes restbench the child subreaper (`PR_SET_CHILD_SUBREAPER`, once): a process its children
/// orphan (the middle of a double fork exits) is reparented to restbench instead of init, so it
/// stays ours to find, stop and reap. Without it (an old kernel) escapees are still found by
/// their environment.
fn become_subreaper() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = nix::sys::prctl::set_child_subreaper(true);
    });
}

/// A process found outside a stopped child's group.
#[derive(Debug)]
struct Escapee {
    pid: i32,
    command: String,
    /// `started outside its process group`, `holds port N`.
    how: String,
    /// Started by the child (its environment says so, or it is restbench's own orphan):
    /// restbench stops it; another's listener is only named.
    ours: bool,
}

/// The live processes carrying `token`, and the holder of `port` if something still listens
/// there. Zombies of ours among them are reaped, not reported: they have ended.
fn find_escapees(token: &str, port: Option<u16>) -> Vec<Escapee> {
    let me = std::process::id() as i32;
    let mut found = Vec::new();
    for pid in procfs::pids() {
        if pid == me || !procfs::environ_has(pid, token) {
            continue;
        }
        match procfs::parent_and_state(pid) {
            Some((parent, 'Z')) if parent == me => reap(pid),
            Some((_, 'Z')) => {}
            Some(_) => found.push(Escapee {
                pid,
                command: procfs::command_line(pid),
                how: "was started outside its process group and outlived it".into(),
                ours: true,
            }),
            None => {}
        }
    }
    if let Some(port) = port
        && let Some(Some(holder)) = procfs::listeners(port)
    {
        if let Some(e) = found.iter_mut().find(|e| e.pid == holder) {
            e.how.push_str(&format!(", holding port {port}"));
        } else if holder != me {
            let parent = procfs::parent_and_state(holder).map(|(p, _)| p);
            found.push(Escapee {
                pid: holder,
                command: procfs::command_line(holder),
                how: format!("still holds port {port} after the stop"),
                ours: parent == Some(me),
            });
        }
    }
    found
}

/// SIGTERM to each, up to a second to end, then SIGKILL and another second; ours are reaped.
/// Returns those still alive, with why.
fn terminate(pids: &[i32]) -> Vec<(i32, String)> {
    use nix::sys::signal::kill;
    let alive = |pid: i32| {
        reap(pid);
        procfs::parent_and_state(pid).is_some_and(|(_, state)| state != 'Z')
    };
    let mut errors: Vec<(i32, String)> = Vec::new();
    for signal in [Signal::SIGTERM, Signal::SIGKILL] {
        for &pid in pids.iter().filter(|&&p| alive(p)) {
            if let Err(e) = kill(Pid::from_raw(pid), signal) {
                errors.retain(|(p, _)| *p != pid);
                errors.push((pid, format!("{signal}: {}", e.desc())));
            }
        }
        let deadline = Instant::now() + Duration::from_secs(1);
        while pids.iter().any(|&p| alive(p)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    pids.iter()
        .filter(|&&p| alive(p))
        .map(|&p| {
            let why = errors.iter().find(|(e, _)| *e == p).map_or_else(
                || "it is still running after SIGKILL".into(),
                |e| e.1.clone(),
            );
            (p, why)
        })
        .collect()
}

/// Collects `pid`'s exit status if it is restbench's child (an orphan reparented to us) and has
/// ended; any other pid is left alone (`waitpid` fails on it and nothing changes).
fn reap(pid: i32) {
    use nix::sys::wait::{WaitPidFlag, waitpid};
    let _ = waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG));
}

/// How much of a child's output its log keeps: this many bytes from its start and as many from
/// its end, with one line saying how much was cut between them. A server writing 200 MiB in a
/// cell leaves a log of about 2 MiB.
pub const LOG_KEEP: u64 = 1 << 20;

/// Set when a log's copier has written all there was.
#[derive(Default)]
pub struct LogDone {
    done: Mutex<bool>,
    changed: Condvar,
}

impl LogDone {
    fn set(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.changed.notify_all();
    }

    /// Waits up to `limit` for the copier to finish; true when it has.
    fn wait(&self, limit: Duration) -> bool {
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let (done, _) = self
            .changed
            .wait_timeout_while(done, limit, |d| !*d)
            .unwrap_or_else(|e| e.into_inner());
        *done
    }
}

/// A log file that keeps the first `head` bytes written to it and the last `keep`, and says
/// how many bytes between them were cut. The head is written as it comes; the tail is held in
/// memory and rewritten after the head now and then (and at the end).
struct CappedLog {
    file: File,
    head: u64,
    keep: usize,
    /// Bytes of the head on disk.
    written: u64,
    tail: std::collections::VecDeque<u8>,
    cut: u64,
    dirty: bool,
}

impl CappedLog {
    fn new(file: File, head: u64, keep: u64) -> Self {
        Self {
            file,
            head,
            keep: keep as usize,
            written: 0,
            tail: std::collections::VecDeque::new(),
            cut: 0,
            dirty: false,
        }
    }

    fn take(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        if self.written < self.head {
            let n = bytes.len().min((self.head - self.written) as usize);
            self.file.write_all_at(&bytes[..n], self.written)?;
            self.written += n as u64;
            bytes = &bytes[n..];
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.tail.extend(bytes);
        let over = self.tail.len().saturating_sub(self.keep);
        if over > 0 {
            self.tail.drain(..over);
            self.cut += over as u64;
        }
        self.dirty = true;
        Ok(())
    }

    /// Writes the tail (and the line saying what was cut) after the head.
    fn flush(&mut self) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        if !self.dirty {
            return Ok(());
        }
        let mut out = Vec::with_capacity(self.tail.len() + 160);
        if self.cut > 0 {
            out.extend_from_slice(
                format!(
                    "\n[restbench: {} bytes of output cut here; a log keeps the first {} and the \
                     last {}]\n",
                    self.cut,
                    restbench_model::documents::io::size_words(self.head),
                    restbench_model::documents::io::size_words(self.keep as u64)
                )
                .as_bytes(),
            );
        }
        let (a, b) = self.tail.as_slices();
        out.extend_from_slice(a);
        out.extend_from_slice(b);
        self.file.write_all_at(&out, self.written)?;
        self.file.set_len(self.written + out.len() as u64)?;
        self.dirty = false;
        Ok(())
    }
}

/// Copies a child's output from `from` into `log` until every writer has closed the pipe (the
/// child and whatever it started that kept it). The tail is rewritten at most every 250 ms while
/// output flows, and when it pauses, so a flood costs a bounded amount of writing.
fn copy_capped(mut from: std::io::PipeReader, mut log: CappedLog, done: &LogDone) {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use std::os::fd::AsFd;
    const EVERY: Duration = Duration::from_millis(250);
    let mut buf = vec![0u8; 64 * 1024];
    let mut flushed = Instant::now();
    loop {
        let mut fds = [PollFd::new(from.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, PollTimeout::from(250u16)) {
            Ok(0) => {
                let _ = log.flush();
                continue;
            }
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => break,
        }
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if log.take(&buf[..n]).is_err() {
                    break;
                }
                if flushed.elapsed() >= EVERY {
                    let _ = log.flush();
                    flushed = Instant::now();
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = log.flush();
    // A log that cannot be written any more (a full disk) still drains the pipe, so the child
    // never blocks on its output.
    let _ = std::io::copy(&mut from, &mut std::io::sink());
    done.set();
}

/// How a child of this process ended, if it has, read without reaping it (`waitid` with
/// `WNOWAIT`), so the owner of its handle still reaps it: `exited with 1`, `killed by SIGKILL`.
/// `None` while it runs (or when `pid` is not a child of this process).
pub fn exit_of_child(pid: u32) -> Option<String> {
    use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    match waitid(Id::Pid(Pid::from_raw(i32::try_from(pid).ok()?)), flags).ok()? {
        WaitStatus::Exited(_, code) => Some(format!("exited with {code}")),
        WaitStatus::Signaled(_, signal, _) => Some(format!("killed by {signal}")),
        _ => None,
    }
}

/// True while any process of the group exists. Members that ended as orphans of restbench (the
/// subreaper) are reaped first, so their zombies do not count; the leader, a `Child` whose
/// status its owner collects, is left to it.
pub fn group_alive(pgid: Pid) -> bool {
    if killpg(pgid, None).is_err() {
        return false;
    }
    let me = std::process::id() as i32;
    for pid in procfs::pids() {
        if pid != pgid.as_raw()
            && procfs::stat(pid).is_some_and(|(parent, state, group)| {
                parent == me && state == 'Z' && group == pgid.as_raw()
            })
        {
            reap(pid);
        }
    }
    killpg(pgid, None).is_ok()
}

#[expect(
    unsafe_code,
    reason = "pre_exec runs between fork and exec to set the death signal, affinity and user"
)]
fn install_pre_exec(
    cmd: &mut Command,
    cpus: Option<Vec<usize>>,
    user: Option<(u32, u32)>,
    cgroup_procs: Vec<std::ffi::CString>,
) {
    let parent = std::process::id() as libc::pid_t;
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if let Some(cpus) = &cpus {
        for &c in cpus {
            unsafe { libc::CPU_SET(c, &mut set) };
        }
    }
    let pin = cpus.is_some();
    // SAFETY: only async-signal-safe calls (open, write, close, prctl, getppid,
    // sched_setaffinity, setgroups, setgid, setuid) on values prepared before the fork.
    unsafe {
        cmd.pre_exec(move || {
            // Join the cgroups first: "0" names the writing process, and a cpuset must admit us
            // before the affinity below is narrowed to its CPUs.
            for procs in &cgroup_procs {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let written = libc::write(fd, b"0".as_ptr().cast(), 1);
                let error = std::io::Error::last_os_error();
                libc::close(fd);
                if written != 1 {
                    return Err(error);
                }
            }
            if pin && libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            if let Some((uid, gid)) = user
                && (libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(gid) != 0
                    || libc::setuid(uid) != 0)
            {
                return Err(std::io::Error::last_os_error());
            }
            // After setuid: a change of credentials clears the death signal.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(std::io::Error::other(
                    "restbench exited while starting a child",
                ));
            }
            Ok(())
        });
    }
}

/// A shell that waits for its stdin to close, then kills the group, empties and removes the
/// cgroups, and removes `dir`.
fn spawn_guard(
    pgid: Pid,
    token: &str,
    dir: Option<&Path>,
    cgroups: &[PathBuf],
) -> std::io::Result<(Child, ChildStdin)> {
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', "'\\''"));
    // Unless restbench said it stopped the child itself (escapees included), restbench ended:
    // whatever carries the child's token outside the group is killed too.
    let mut script = format!(
        "read _why; kill -KILL -{pgid} 2>/dev/null; \
         if [ \"$_why\" != stopped ]; then for _env in /proc/[0-9]*/environ; do \
         grep -qxzF {token} \"$_env\" 2>/dev/null || continue; \
         _pid=${{_env#/proc/}}; kill -KILL \"${{_pid%/environ}}\" 2>/dev/null; done; fi",
        pgid = pgid.as_raw(),
        token = quote(Path::new(token)),
    );
    for cg in cgroups {
        // Processes that left the group are still in the cgroup; rmdir succeeds once it is empty.
        script.push_str(&format!(
            "; for _try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do \
             kill -KILL $(cat {procs} 2>/dev/null) 2>/dev/null; \
             rmdir {cg} 2>/dev/null && break; [ -d {cg} ] || break; sleep 0.1; done",
            procs = quote(&cg.join("cgroup.procs")),
            cg = quote(cg),
        ));
    }
    if let Some(dir) = dir {
        script.push_str("; sleep 0.2");
        // A PostgreSQL server in the folder keeps a small System V segment as its interlock
        // (even with `shared_memory_type = mmap`); killed, it cannot release it, and once its
        // folder is gone nothing else would: the id is on line 7 of its postmaster.pid. Only a
        // segment owned by the pid file's owner is released.
        script.push_str(&format!(
            "; for _pidfile in {dir}/postmaster.pid {dir}/*/postmaster.pid; do \
             [ -f \"$_pidfile\" ] || continue; \
             _shm=$({{ read _l; read _l; read _l; read _l; read _l; read _l; read _key _id; \
             echo \"$_id\"; }} < \"$_pidfile\"); \
             _owner=$(stat -c %u \"$_pidfile\"); \
             [ -n \"$_shm\" ] && ipcs -m -i \"$_shm\" 2>/dev/null | grep -q \"^uid=$_owner[^0-9]\" \
             && ipcrm -m \"$_shm\" 2>/dev/null; done",
            dir = quote(dir),
        ));
        script.push_str(&format!("; rm -rf -- {}", quote(dir)));
    }
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("guard has no stdin"))?;
    Ok((child, stdin))
}

/// Creates `path` as a new, empty file of restbench's own. Whatever was there is unlinked, never
/// followed or written through: restbench runs as root, and a symlink (or a hard link) planted at
/// a log's path by another user must not turn into root writing over the file it points at. If
/// something is planted again between the unlink and the create, the create fails (`O_EXCL`).
pub fn create_afresh(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// A new folder in the system's temporary folder that only restbench's user may enter (0700),
/// removed when dropped. Files restbench writes under the shared temporary folder go in one: a
/// fixed path there is a place where anyone can plant a symlink first.
pub fn private_temp_dir(prefix: &str) -> Result<tempfile::TempDir, HostError> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix(prefix)
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir()
        .map_err(|e| {
            HostError::io(
                format!(
                    "cannot create a folder in {} (set TMPDIR to a writable folder)",
                    std::env::temp_dir().display()
                ),
                e,
            )
        })
}

/// Writes `bytes` to `path` through [`create_afresh`].
pub fn write_afresh(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    create_afresh(path)?.write_all(bytes)
}

/// The last lines of a file (its last 16 KiB at most, however long it grows meanwhile).
pub fn tail(path: &Path, lines: usize) -> String {
    const TAIL_BYTES: u64 = 16 * 1024;
    let Ok(mut f) = File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(TAIL_BYTES)));
    let mut s = String::new();
    let mut bytes = Vec::new();
    let _ = f.take(TAIL_BYTES).read_to_end(&mut bytes);
    s.push_str(&String::from_utf8_lossy(&bytes));
    let all: Vec<&str> = s.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// A port nothing listens on right now (bound and released).
pub fn free_port() -> Result<u16, HostError> {
    let l = TcpListener::bind("127.0.0.1:0")
        .map_err(|e| HostError::io("cannot find a free port", e))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| HostError::io("cannot find a free port", e))
}

/// Fails with the holder's name when `port` is taken.
pub fn ensure_port_free(port: u16) -> Result<(), HostError> {
    match TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port))) {
        Ok(_) => Ok(()),
        Err(_) => Err(HostError::PortInUse {
            port,
            holder: port_holder(port)
                .map(|h| format!(" by {h}"))
                .unwrap_or_default(),
        }),
    }
}

/// `pid NNN (name)` of the process listening on a TCP port, from /proc.
pub fn port_holder(port: u16) -> Option<String> {
    match procfs::listeners(port)? {
        Some(pid) => Some(format!("pid {pid} ({})", procfs::comm(pid))),
        None => Some("another process".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(cmd: &str, dir: &Path) -> SpawnSpec {
        SpawnSpec {
            name: "test".into(),
            shell_command: cmd.into(),
            cwd: dir.into(),
            log: dir.join("log.txt"),
            ..Default::default()
        }
    }

    #[test]
    fn a_capped_log_keeps_its_head_and_tail_and_says_what_was_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut log = CappedLog::new(create_afresh(&path).unwrap(), 4, 6);
        log.take(b"head").unwrap();
        log.take(b"0123456789").unwrap();
        log.take(b"ab").unwrap();
        log.flush().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "head\n[restbench: 6 bytes of output cut here; a log keeps the first 4 bytes and \
             the last 6 bytes]\n6789ab"
        );
        // Below the cap nothing is cut and nothing is said.
        let mut log = CappedLog::new(create_afresh(&path).unwrap(), 4, 6);
        log.take(b"headtail").unwrap();
        log.flush().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "headtail");
    }

    #[test]
    fn a_flooding_child_leaves_a_capped_log_ending_in_its_last_words() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = ManagedChild::spawn(&spec(
            "head -c 5000000 /dev/zero; echo last words",
            dir.path(),
        ))
        .unwrap();
        let _ = child.child.wait();
        assert_eq!(child.log_tail(1).trim_start_matches('\0'), "last words");
        child.stop(Duration::from_millis(100));
        let size = std::fs::metadata(child.log_path()).unwrap().len();
        assert!(size <= 2 * LOG_KEEP + 200, "{size} bytes");
        let text = String::from_utf8_lossy(&std::fs::read(child.log_path()).unwrap()).into_owned();
        let cut = 5_000_000 + "last words\n".len() as u64 - 2 * LOG_KEEP;
        assert!(text.contains(&format!("[restbench: {cut} bytes of output cut here")));
    }

    /// Live processes (not zombies) started with `token` in their environment.
    fn carrying(token: &str) -> Vec<i32> {
        procfs::pids()
            .into_iter()
            .filter(|&p| procfs::environ_has(p, token))
            .filter(|&p| procfs::parent_and_state(p).is_some_and(|(_, s)| s != 'Z'))
            .collect()
    }

    #[test]
    fn a_setsid_escapee_is_stopped_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut child =
            ManagedChild::spawn(&spec("(setsid sleep 600 &); exec sleep 600", dir.path())).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let token = child.token.clone();
        assert_eq!(carrying(&token).len(), 2, "the child and its escapee");
        child.stop(Duration::from_millis(500));
        assert!(carrying(&token).is_empty(), "{:?}", carrying(&token));
        let notes = child.escapees();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("sleep 600") && notes[0].ends_with("stopped"),
            "{notes:?}"
        );
    }

    #[test]
    fn the_guard_kills_escapees_when_restbench_ends_without_a_stop() {
        let dir = tempfile::tempdir().unwrap();
        let mut child =
            ManagedChild::spawn(&spec("(setsid sleep 600 &); exec sleep 600", dir.path())).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let token = child.token.clone();
        assert_eq!(carrying(&token).len(), 2);
        // restbench's end as the guard sees it: its pipe closes with nothing said.
        let (mut guard, stdin) = child.guard.take().unwrap();
        drop(stdin);
        let _ = guard.wait();
        let deadline = Instant::now() + Duration::from_secs(5);
        while !carrying(&token).is_empty() && Instant::now() < deadline {
            for p in carrying(&token) {
                reap(p);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(carrying(&token).is_empty(), "{:?}", carrying(&token));
        child.stop(Duration::from_millis(100));
    }

    #[test]
    fn stop_kills_the_whole_group_including_grandchildren() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = ManagedChild::spawn(&spec(
            "sleep 60 & sleep 60 & echo started; wait",
            dir.path(),
        ))
        .unwrap();
        let pgid = Pid::from_raw(child.pgid());
        std::thread::sleep(Duration::from_millis(200));
        assert!(group_alive(pgid));
        assert!(child.log_tail(5).contains("started"));
        child.stop(Duration::from_millis(500));
        assert!(!group_alive(pgid), "a grandchild survived");
    }

    /// A victim file outside the log folder, and a symlink and a hard link to it planted where
    /// restbench will write.
    fn plant(dir: &Path, symlinked: &Path, hardlinked: &Path) -> PathBuf {
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, symlinked).unwrap();
        std::fs::hard_link(&victim, hardlinked).unwrap();
        victim
    }

    #[test]
    fn logs_are_not_written_through_planted_links() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        std::fs::create_dir(&logs).unwrap();
        let victim = plant(dir.path(), &logs.join("a.log"), &logs.join("b.log"));
        for name in ["a.log", "b.log"] {
            let mut s = spec("echo written", dir.path());
            s.log = logs.join(name);
            let mut child = ManagedChild::spawn(&s).unwrap();
            let _ = child.child.wait();
            assert_eq!(child.log_tail(1), "written", "{name}");
            assert!(s.log.symlink_metadata().unwrap().file_type().is_file());
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn create_afresh_replaces_links_and_never_follows_them() {
        let dir = tempfile::tempdir().unwrap();
        let (sym, hard) = (dir.path().join("sym"), dir.path().join("hard"));
        let victim = plant(dir.path(), &sym, &hard);
        write_afresh(&sym, b"mine").unwrap();
        write_afresh(&hard, b"mine").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&sym).unwrap(), "mine");
        assert!(!sym.symlink_metadata().unwrap().file_type().is_symlink());
        // A file of restbench's own is replaced as File::create would truncate it.
        write_afresh(&sym, b"again").unwrap();
        assert_eq!(std::fs::read_to_string(&sym).unwrap(), "again");
    }

    #[test]
    fn private_temp_dirs_are_fresh_and_closed_to_others() {
        use std::os::unix::fs::PermissionsExt;
        let (a, b) = (
            private_temp_dir("restbench-test-").unwrap(),
            private_temp_dir("restbench-test-").unwrap(),
        );
        assert_ne!(a.path(), b.path());
        for d in [&a, &b] {
            let meta = d.path().symlink_metadata().unwrap();
            assert!(meta.is_dir());
            assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        }
    }

    #[test]
    fn drop_stops_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let child =
            ManagedChild::spawn(&spec("trap '' TERM; sleep 60 & wait", dir.path())).unwrap();
        let pgid = Pid::from_raw(child.pgid());
        std::thread::sleep(Duration::from_millis(100));
        drop(child);
        assert!(!group_alive(pgid));
    }

    #[test]
    fn port_in_use_names_the_holder() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let err = ensure_port_free(port).unwrap_err().to_string();
        assert!(
            err.contains(&port.to_string()) && err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(l);
        assert!(ensure_port_free(port).is_ok());
    }

    #[test]
    fn children_are_pinned_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = spec("grep Cpus_allowed_list /proc/self/status", dir.path());
        s.cpus = Some(vec![0]);
        let mut child = ManagedChild::spawn(&s).unwrap();
        let _ = child.child.wait();
        assert!(
            child.log_tail(1).trim().ends_with("\t0"),
            "{}",
            child.log_tail(1)
        );
    }
}
