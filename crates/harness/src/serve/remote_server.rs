//! The subject on another machine (`--server-host user@host[:port]`), driven over the system
//! `ssh` (the same ControlMaster connection as the generator hosts, [`restbench_remote::ssh`]).
//!
//! restbench copies itself to the host (cached by hash) and the subject's folder (tar over ssh,
//! build outputs left out) into a folder of this run there; `restbench remote-agent build`
//! builds it there with its own build commands, and `restbench remote-agent serve` starts it
//! there as a local run would ([`super::start_subject`]: its own process group, its own cgroup
//! when the host's probe finds a usable one, else affinity only, and the cell says so). The
//! agent prints one line when the subject answers ([`AgentReady`]) and stays in the ssh session:
//! the local ssh client is a [`ManagedChild`], so stopping it, Ctrl-C and restbench's death
//! all end the session, and the agent then stops the subject and removes its cgroup.
//!
//! The server's CPU and memory are read there, by `restbench remote-agent sample` over the
//! control connection, at the start and the end of each measurement. Whatever the agent did,
//! dropping a [`RemoteProcess`] kills what is left of the subject's process group and removes
//! its cgroup, and dropping the [`ServerHost`] removes the run's folder there.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use restbench_model::{CellPlacement, Scenario};
use serde::{Deserialize, Serialize};

use crate::HarnessError;
use restbench_host::cgroup::CgroupFiles;
use restbench_host::process::{ManagedChild, SpawnSpec};
use restbench_remote::hosts::resolve_address;
use restbench_remote::ssh::{Connection, SshOptions, file_hash, last_line, quote};
use restbench_remote::{RemoteError, SshHost};
use restbench_subject::Subject;
use restbench_subject::sources::source_files;

/// The line the agent prints once the subject answers, before its JSON.
pub const READY_MARK: &str = "restbench-agent-ready ";

/// What the agent reports once the subject answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentReady {
    pub port: u16,
    /// The agent's own pid, and the subject's process group there.
    pub agent_pid: i32,
    pub pgid: i32,
    pub settings: BTreeMap<String, String>,
    pub ready_after_ms: u64,
    /// The scenario's limit as the host enforces it (its CPUs, its backend).
    pub limit: CellPlacement,
    pub cgroup: Option<CgroupFiles>,
}

/// One reading of the subject there.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct AgentSample {
    /// utime + stime of the process group, from /proc.
    pub proc_cpu_us: u64,
    pub rss_bytes: u64,
    /// From the cgroup, when it has one.
    pub cgroup_cpu_us: Option<u64>,
    pub cgroup_memory: Option<u64>,
}

/// The host that serves the subjects of a run, connected, with restbench on it.
#[derive(Debug)]
pub struct ServerHost {
    conn: Connection,
    /// restbench's copy there.
    bin: String,
    /// This run's folder there: `subjects/<id>` and (unless kept) the build `cache`.
    work: String,
    /// The build cache there: in `work`, or beside it when kept between runs.
    cache: String,
    /// Where the subjects bind and are loaded at.
    pub address: IpAddr,
}

impl ServerHost {
    /// Connects, copies `binary` (restbench itself) where missing, and makes the run's folder.
    /// `address` is where the load goes; by default the ssh host's name resolved here.
    ///
    /// With `keep_cache` the build cache stays there between runs (`…/work/cache`), so an
    /// unchanged subject is not built again; otherwise it goes with the run's folder.
    pub fn connect(
        host: SshHost,
        binary: &Path,
        address: Option<IpAddr>,
        keep_cache: bool,
        note: &dyn Fn(&str),
    ) -> Result<Self, RemoteError> {
        let address = match address {
            Some(a) => a,
            None => resolve_address(&host.host).ok_or_else(|| {
                RemoteError::Hosts(format!(
                    "--server-host {host}: cannot resolve {} to an address here; give \
                     --server-address ADDR (the host's address the load goes to)",
                    host.host
                ))
            })?,
        };
        let opts = Arc::new(SshOptions::from_env()?);
        let conn = Connection::open(host, opts)?;
        let (bin, copied) = conn.ensure_binary(binary, &file_hash(binary)?)?;
        if copied {
            note(&format!("copied restbench to {}:{bin}", conn.host));
        }
        let base = match conn.remote_dir().rsplit_once('/') {
            Some((parent, _)) if !parent.is_empty() => format!("{parent}/work"),
            _ => "restbench-work".into(),
        };
        let work = format!(
            "{base}/run-{}-{}",
            std::process::id(),
            restbench_model::vocabulary::time::now_unix_ms()
        );
        let cache = if keep_cache {
            format!("{base}/cache")
        } else {
            format!("{work}/cache")
        };
        conn.run(
            "making the run's folder",
            &format!("mkdir -p {} {}", quote(&work), quote(&cache)),
        )?;
        Ok(Self {
            conn,
            bin,
            work,
            cache,
            address,
        })
    }

    /// `user@host[:port]` as given.
    pub fn name(&self) -> String {
        self.conn.host.to_string()
    }

    fn subject_dir(&self, id: &str) -> String {
        format!("{}/subjects/{id}", self.work)
    }

    fn cache_dir(&self) -> String {
        self.cache.clone()
    }

    fn error(&self, what: String, detail: String) -> RemoteError {
        RemoteError::Command {
            host: self.name(),
            what,
            detail,
        }
    }

    /// Copies the subject's folder there (tar over ssh) and builds it with its own commands.
    /// Returns the build's seconds when it built. A failing build fails with the host's stderr.
    pub fn prepare(&self, subject: &Subject) -> Result<Option<f64>, RemoteError> {
        let dir = self.subject_dir(&subject.id);
        // Exactly the files a build hashes (`sources`), named to tar one per NUL.
        let files = source_files(&subject.dir, &subject.build_outputs).map_err(|e| {
            RemoteError::Command {
                host: "this machine".into(),
                what: format!("listing {}'s sources", subject.id),
                detail: e.to_string(),
            }
        })?;
        let mut list = tempfile::NamedTempFile::new()
            .map_err(|e| RemoteError::io("cannot write the list of sources", e))?;
        for f in &files {
            use std::io::Write;
            list.write_all(f.as_os_str().as_encoded_bytes())
                .and_then(|()| list.write_all(b"\0"))
                .map_err(|e| RemoteError::io("cannot write the list of sources", e))?;
        }
        let mut tar = Command::new("tar")
            .arg("-C")
            .arg(&subject.dir)
            .args(["--null", "--no-recursion", "-T"])
            .arg(list.path())
            .args(["-cf", "-"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| RemoteError::io("cannot run tar", e))?;
        let input = tar.stdout.take().map_or_else(Stdio::null, Stdio::from);
        let copy = self.conn.run_with_input(
            &format!("copying {}", subject.id),
            &format!(
                "rm -rf {d} && mkdir -p {d} && tar -C {d} -xf -",
                d = quote(&dir)
            ),
            input,
        );
        let tar_out = tar
            .wait_with_output()
            .map_err(|e| RemoteError::io("cannot run tar", e))?;
        copy?;
        if !tar_out.status.success() {
            return Err(RemoteError::Command {
                host: "this machine".into(),
                what: format!("packing {} for {}", subject.id, self.name()),
                detail: last_line(&String::from_utf8_lossy(&tar_out.stderr))
                    .unwrap_or_else(|| format!("tar exited with {}", tar_out.status)),
            });
        }
        let out = self
            .conn
            .command(&format!(
                "exec {} remote-agent build --dir {} --cache {}",
                quote(&self.bin),
                quote(&dir),
                quote(&self.cache_dir())
            ))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| RemoteError::io("cannot run ssh", e))?;
        if !out.status.success() {
            return Err(self.error(
                format!("building {}", subject.id),
                one_line(&String::from_utf8_lossy(&out.stderr), 6)
                    .unwrap_or_else(|| format!("exit {}", out.status)),
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).lines().find_map(|l| {
            l.strip_prefix("built in ")?
                .trim_end_matches('s')
                .parse()
                .ok()
        }))
    }

    /// Starts the prepared subject there for `scenario` and waits for the agent's ready line.
    /// The local ssh client is the returned child; its log (`log`) holds what the agent wrote.
    pub fn start(
        self: &Arc<Self>,
        subject: &Subject,
        scenario: Scenario,
        database_url: Option<&str>,
        db_pool_total: u32,
        log: PathBuf,
    ) -> Result<(ManagedChild, RemoteProcess), HarnessError> {
        let dir = self.subject_dir(&subject.id);
        let mut remote = format!(
            "exec {} remote-agent serve --dir {} --cache {} --scenario {} --address {} --db-pool {}",
            quote(&self.bin),
            quote(&dir),
            quote(&self.cache_dir()),
            scenario.name(),
            self.address,
            db_pool_total
        );
        if let Some(url) = database_url {
            // In a file only the remote user reads: a command line is visible to every user.
            let file = format!("{}/database-url", self.work);
            let mut writer = Command::new("printf");
            writer
                .args(["%s", url])
                .stdout(Stdio::piped())
                .stderr(Stdio::null());
            let mut printf = writer
                .spawn()
                .map_err(|e| HarnessError::io("cannot run printf", e))?;
            let input = printf.stdout.take().map_or_else(Stdio::null, Stdio::from);
            let written = self.conn.run_with_input(
                "passing DATABASE_URL",
                &format!("umask 077 && cat > {}", quote(&file)),
                input,
            );
            let _ = printf.wait();
            written?;
            remote.push_str(&format!(" --database-url-file {}", quote(&file)));
        }
        let spec = SpawnSpec {
            name: format!("{} on {}", subject.id, self.name()),
            shell_command: format!("exec {}", self.conn.shell_line(&remote)),
            cwd: std::env::temp_dir(),
            env: BTreeMap::new(),
            cpus: None,
            user: None,
            log: log.clone(),
            remove_on_death: None,
            cgroup_dirs: Vec::new(),
            // The port is the other host's; the agent there looks after it.
            port: None,
        };
        let mut child = ManagedChild::spawn(&spec)?;
        // The agent builds nothing here (prepare did) but waits up to the subject's own ready
        // timeout; a minute more covers the ssh session.
        let deadline = Instant::now() + subject.ready_timeout + Duration::from_secs(60);
        loop {
            let text = agent_log(&log);
            if let Some(json) = text.lines().find_map(|l| l.strip_prefix(READY_MARK)) {
                let ready: AgentReady = serde_json::from_str(json).map_err(|e| {
                    self.error(
                        format!("starting {}", subject.id),
                        format!("the agent's ready line is not understood ({e}): {json}"),
                    )
                })?;
                return Ok((
                    child,
                    RemoteProcess {
                        host: self.clone(),
                        ready,
                    },
                ));
            }
            if child.exited().is_some() || Instant::now() > deadline {
                let text = agent_log(&log);
                child.stop(Duration::from_secs(2));
                return Err(self
                    .error(
                        format!("starting {}", subject.id),
                        one_line(&text, 6).unwrap_or_else(|| "the agent ended silently".into()),
                    )
                    .into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The subject's CPU and memory now, read there.
    pub fn sample(&self, p: &RemoteProcess) -> Result<AgentSample, RemoteError> {
        let mut remote = format!(
            "exec {} remote-agent sample --pgid {}",
            quote(&self.bin),
            p.ready.pgid
        );
        if let Some(cg) = &p.ready.cgroup {
            let json = serde_json::to_string(cg).unwrap_or_default();
            remote.push_str(&format!(" --cgroup {}", quote(&json)));
        }
        let out = self
            .conn
            .run("sampling the server's CPU and memory", &remote)?;
        serde_json::from_str(out.trim()).map_err(|e| {
            self.error(
                "sampling the server's CPU and memory".into(),
                format!("the agent's answer is not understood: {e}"),
            )
        })
    }

    /// Removes a subject's copied folder there (its build cache stays until the run ends).
    pub fn remove_subject(&self, id: &str) {
        let _ = self.conn.run(
            "removing the subject's folder",
            &format!("rm -rf {}", quote(&self.subject_dir(id))),
        );
    }

    /// The address `port` is loaded at.
    pub fn socket(&self, port: u16) -> SocketAddr {
        SocketAddr::new(self.address, port)
    }
}

impl Drop for ServerHost {
    fn drop(&mut self) {
        let _ = self.conn.run(
            "removing the run's folder",
            &format!("rm -rf {}", quote(&self.work)),
        );
    }
}

/// A subject running there. Dropping it makes sure nothing of it is left: the agent, the
/// subject's process group (given 3 s to go on its own) and its cgroup.
#[derive(Debug)]
pub struct RemoteProcess {
    host: Arc<ServerHost>,
    pub ready: AgentReady,
}

impl RemoteProcess {
    /// The host's name, for cells.
    pub fn host_name(&self) -> String {
        self.host.name()
    }

    pub fn sample(&self) -> Result<AgentSample, RemoteError> {
        self.host.sample(self)
    }
}

impl Drop for RemoteProcess {
    fn drop(&mut self) {
        let r = &self.ready;
        let mut script = format!(
            "for _try in $(seq 30); do kill -0 -{g} 2>/dev/null || break; sleep 0.1; done; \
             kill -KILL -{g} {a} 2>/dev/null",
            g = r.pgid,
            a = r.agent_pid
        );
        for dir in r.cgroup.iter().flat_map(|c| &c.dirs) {
            let d = quote(&dir.display().to_string());
            script.push_str(&format!(
                "; for _try in $(seq 20); do kill -KILL $(cat {d}/cgroup.procs 2>/dev/null) \
                 2>/dev/null; rmdir {d} 2>/dev/null && break; [ -d {d} ] || break; sleep 0.1; \
                 done"
            ));
        }
        script.push_str("; true");
        let _ = self.host.conn.run("cleaning up the server", &script);
    }
}

/// The last `lines` non-empty lines of `text` on one line (joined by ` | `).
fn one_line(text: &str, lines: usize) -> Option<String> {
    let all: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    (!all.is_empty()).then(|| all[all.len().saturating_sub(lines)..].join(" | "))
}

/// The agent's log as far as a ready line can be: its head, as capped logs keep it.
fn agent_log(log: &Path) -> String {
    restbench_model::documents::io::read_limited_string(log, 8 << 20, "the agent's log")
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_stderr_becomes_one_line() {
        assert_eq!(one_line("\n a \n\nb\nc\n", 2).as_deref(), Some("b | c"));
        assert_eq!(one_line(" \n", 2), None);
    }

    #[test]
    fn ready_lines_round_trip() {
        let r = AgentReady {
            port: 8080,
            agent_pid: 10,
            pgid: 11,
            settings: BTreeMap::new(),
            ready_after_ms: 300,
            limit: CellPlacement::default(),
            cgroup: None,
        };
        let line = format!("{READY_MARK}{}", serde_json::to_string(&r).unwrap());
        let back: AgentReady =
            serde_json::from_str(line.strip_prefix(READY_MARK).unwrap()).unwrap();
        assert_eq!((back.port, back.pgid), (8080, 11));
    }
}
