//! One generator host over the system `ssh` client: a ControlMaster opened once and reused by
//! every later command (the copy check, the copy, each shard), restbench's binary copied there
//! and cached by hash, and the master closed again at the end.
//!
//! Options, stated once: `BatchMode=yes` (no prompt can hang a run: keys or an agent must
//! work), `ConnectTimeout=5`, `ServerAliveInterval=5` × `ServerAliveCountMax=3` (a host gone
//! silent fails its shard within ~15 s), `ControlPersist=60`. The master is opened explicitly
//! (`ControlMaster=yes`, `-N -f`, its stderr to a file) and every other command uses
//! `ControlMaster=no`: an `auto` client that became a persisting master would hold the pipes of
//! the command that started it open for a minute.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::{RemoteError, SshHost};

/// `RESTBENCH_SSH_CONFIG`: an ssh_config passed to every ssh and scp as `-F` (keys, known hosts,
/// jump hosts), beside the user's own defaults when unset.
pub const SSH_CONFIG_ENV: &str = "RESTBENCH_SSH_CONFIG";
/// `RESTBENCH_REMOTE_DIR`: where the binary goes on each host (default `.cache/restbench/bin`
/// under the remote user's home).
pub const REMOTE_DIR_ENV: &str = "RESTBENCH_REMOTE_DIR";
const DEFAULT_REMOTE_DIR: &str = ".cache/restbench/bin";

/// What every ssh of one run shares: the config, the folder of the control sockets (removed
/// with it), and where binaries go on the hosts.
#[derive(Debug)]
pub struct SshOptions {
    pub config: Option<PathBuf>,
    control_dir: tempfile::TempDir,
    pub remote_dir: String,
}

impl SshOptions {
    /// From the environment ([`SSH_CONFIG_ENV`], [`REMOTE_DIR_ENV`]).
    pub fn from_env() -> Result<Self, RemoteError> {
        let control_dir = tempfile::Builder::new()
            .prefix("rb-ssh-")
            .tempdir()
            .map_err(|e| RemoteError::io("cannot create a folder for ssh control sockets", e))?;
        let config = std::env::var_os(SSH_CONFIG_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        if let Some(c) = &config
            && !c.is_file()
        {
            return Err(RemoteError::Hosts(format!(
                "{SSH_CONFIG_ENV}={} is not a file",
                c.display()
            )));
        }
        let remote_dir = std::env::var(REMOTE_DIR_ENV)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_REMOTE_DIR.into());
        Ok(Self {
            config,
            control_dir,
            remote_dir,
        })
    }

    /// Options every ssh and scp gets.
    fn common(&self) -> Vec<String> {
        let mut args = Vec::new();
        if let Some(c) = &self.config {
            args.push("-F".into());
            args.push(c.display().to_string());
        }
        for o in [
            "BatchMode=yes".to_string(),
            "ConnectTimeout=5".into(),
            "ServerAliveInterval=5".into(),
            "ServerAliveCountMax=3".into(),
            "ControlPersist=60".into(),
            "LogLevel=ERROR".into(),
            format!("ControlPath={}/%C", self.control_dir.path().display()),
        ] {
            args.push("-o".into());
            args.push(o);
        }
        args
    }
}

/// Quotes a word for the remote user's POSIX shell.
pub fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@,+%".contains(&b))
    {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// A host with its master connection open.
#[derive(Debug)]
pub struct Connection {
    pub host: SshHost,
    opts: Arc<SshOptions>,
}

impl Connection {
    /// Opens the master connection; an unreachable host or refused key is one clear error.
    pub fn open(host: SshHost, opts: Arc<SshOptions>) -> Result<Self, RemoteError> {
        let log = opts
            .control_dir
            .path()
            .join(format!("master-{}.log", sanitize(&host.to_string())));
        let err_file = std::fs::File::create(&log)
            .map_err(|e| RemoteError::io(format!("cannot create {}", log.display()), e))?;
        let status = Command::new("ssh")
            .args(opts.common())
            .args(["-o", "ControlMaster=yes", "-N", "-f"])
            .args(port_args("-p", &host))
            .arg("--")
            .arg(host.destination())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err_file)
            .status()
            .map_err(|e| RemoteError::io("cannot run ssh (is openssh-client installed?)", e))?;
        if !status.success() {
            // ssh's own stderr: only its end says why, and only the end is read.
            let text = restbench_host::process::tail(&log, 20);
            return Err(RemoteError::Unreachable {
                host: host.to_string(),
                detail: last_line(&text).unwrap_or_else(|| format!("ssh exited with {status}")),
            });
        }
        Ok(Self { host, opts })
    }

    /// `ssh … host -- <remote>` through the master (or directly, should it be gone).
    pub fn command(&self, remote: &str) -> Command {
        let mut c = Command::new("ssh");
        c.args(self.opts.common())
            .args(["-o", "ControlMaster=no"])
            .args(port_args("-p", &self.host))
            .arg("--")
            .arg(self.host.destination())
            .arg(remote);
        c
    }

    /// The same command as one line for a local `/bin/sh` (how a [`restbench_host::process::ManagedChild`]
    /// starts it): every word quoted.
    pub fn shell_line(&self, remote: &str) -> String {
        let c = self.command(remote);
        std::iter::once(c.get_program())
            .chain(c.get_args())
            .map(|w| quote(&w.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Where binaries go on this host (`RESTBENCH_REMOTE_DIR`).
    pub fn remote_dir(&self) -> &str {
        &self.opts.remote_dir
    }

    /// Runs a short remote command; its stdout, or an error with its stderr.
    pub fn run(&self, what: &str, remote: &str) -> Result<String, RemoteError> {
        self.run_with_input(what, remote, Stdio::null())
    }

    /// [`Connection::run`] with `input` as the remote command's stdin.
    pub fn run_with_input(
        &self,
        what: &str,
        remote: &str,
        input: Stdio,
    ) -> Result<String, RemoteError> {
        let out = self
            .command(remote)
            .stdin(input)
            .output()
            .map_err(|e| RemoteError::io("cannot run ssh", e))?;
        if !out.status.success() {
            return Err(RemoteError::Command {
                host: self.host.to_string(),
                what: what.into(),
                detail: last_line(&String::from_utf8_lossy(&out.stderr))
                    .unwrap_or_else(|| format!("exit {}", out.status)),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Makes sure `local` (restbench itself) is on the host as `<remote dir>/restbench-<hash>`,
    /// copying it only when missing. Returns the remote path and whether it was copied.
    pub fn ensure_binary(&self, local: &Path, hash: &str) -> Result<(String, bool), RemoteError> {
        let dir = &self.opts.remote_dir;
        let path = format!("{dir}/restbench-{hash}");
        let probe = format!(
            "mkdir -p {d} && uname -sm && if test -x {p}; then echo have; else echo missing; fi",
            d = quote(dir),
            p = quote(&path)
        );
        let out = self.run("checking for restbench", &probe)?;
        let mut lines = out.lines();
        let arch = lines.next().unwrap_or("").trim().to_string();
        let local_arch = format!("Linux {}", std::env::consts::ARCH);
        if arch != local_arch {
            return Err(RemoteError::Architecture {
                host: self.host.to_string(),
                remote: arch,
                local: local_arch,
            });
        }
        if lines.next().map(str::trim) == Some("have") {
            return Ok((path, false));
        }
        // Copied under a temporary name and renamed: two runs copying at once, or a copy cut
        // short, never leave a half-written binary under the final name.
        let tmp = format!(
            "{path}.tmp-{}-{}",
            std::process::id(),
            sanitize(&self.host.to_string())
        );
        let out = Command::new("scp")
            .args(self.opts.common())
            .args(["-o", "ControlMaster=no", "-q"])
            .args(port_args("-P", &self.host))
            .arg("--")
            .arg(local)
            .arg(format!("{}{tmp}", self.host.scp_prefix()))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| RemoteError::io("cannot run scp", e))?;
        if !out.status.success() {
            return Err(RemoteError::Command {
                host: self.host.to_string(),
                what: "copying restbench".into(),
                detail: last_line(&String::from_utf8_lossy(&out.stderr))
                    .unwrap_or_else(|| format!("scp exited with {}", out.status)),
            });
        }
        self.run(
            "installing restbench",
            &format!(
                "chmod 755 {t} && mv -f {t} {p}",
                t = quote(&tmp),
                p = quote(&path)
            ),
        )?;
        Ok((path, true))
    }

    /// Closes the master connection (`ssh -O exit`).
    pub fn close(&self) {
        let _ = Command::new("ssh")
            .args(self.opts.common())
            .args(port_args("-p", &self.host))
            .args(["-O", "exit", "--"])
            .arg(self.host.destination())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.close();
    }
}

fn port_args(flag: &str, host: &SshHost) -> Vec<String> {
    host.port
        .map(|p| vec![flag.to_string(), p.to_string()])
        .unwrap_or_default()
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The last non-empty line of a command's stderr: ssh puts its reason there.
pub fn last_line(text: &str) -> Option<String> {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// The first 16 hex digits of the SHA-256 of a file: the name of its copy on the hosts, so a
/// rebuilt restbench is copied again and an unchanged one never.
pub fn file_hash(path: &Path) -> Result<String, RemoteError> {
    let mut file = std::fs::File::open(path)
        .map_err(|e| RemoteError::io(format!("cannot read {}", path.display()), e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| RemoteError::io(format!("cannot read {}", path.display()), e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let digest = hasher.finalize();
    Ok(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_for_the_remote_shell() {
        assert_eq!(quote("-c"), "-c");
        assert_eq!(
            quote("http://10.0.0.1:80/a?b=1"),
            "'http://10.0.0.1:80/a?b=1'"
        );
        assert_eq!(quote("Content-Type: x"), "'Content-Type: x'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("$(rm -rf /)"), "'$(rm -rf /)'");
    }

    #[test]
    fn hashes_name_the_contents() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        std::fs::write(&f, "abc").unwrap();
        // SHA-256("abc") starts ba7816bf8f01cfea.
        assert_eq!(file_hash(&f).unwrap(), "ba7816bf8f01cfea");
    }
}
