//! Remote generators over SSH, on one machine: network namespaces stand for hosts (a server
//! namespace with a bridge, two generator namespaces each running Debian's sshd with keys made
//! here), and a counting HTTP server in the server namespace. Root only; every namespace, sshd
//! and remote process is removed by [`Lab`]'s Drop, panics included. Addresses exist only inside
//! the namespaces a test made.

use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use restbench_model::LoadResult;
use restbench_testkit::{Outcome, TinyServer, turn};

const SLOW: &str =
    "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)";
static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Three namespaces (srv at 10.231.0.1, g1 at .2, g2 at .3 on a bridge in srv) and an sshd in
/// each generator namespace.
struct Lab {
    names: Vec<String>,
    dir: tempfile::TempDir,
    sshd: Vec<Child>,
}

fn sh(cmd: &str) {
    let out = Command::new("sh").arg("-c").arg(cmd).output().unwrap();
    assert!(
        out.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Lab {
    fn new() -> Self {
        let tag = format!(
            "rb{}x{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        );
        let mut lab = Lab {
            names: Vec::new(),
            dir: tempfile::tempdir().unwrap(),
            sshd: Vec::new(),
        };
        for n in ["s", "g1", "g2"] {
            let name = format!("{tag}{n}");
            sh(&format!("ip netns add {name}"));
            lab.names.push(name.clone());
            sh(&format!("ip -n {name} link set lo up"));
        }
        let srv = lab.names[0].clone();
        sh(&format!(
            "ip -n {srv} link add br0 type bridge && ip -n {srv} link set br0 up && \
             ip -n {srv} addr add 10.231.0.1/24 dev br0"
        ));
        for (i, g) in lab.names[1..].to_vec().iter().enumerate() {
            sh(&format!(
                "ip -n {srv} link add v{i} type veth peer name eth0 netns {g} && \
                 ip -n {srv} link set v{i} master br0 up && \
                 ip -n {g} addr add 10.231.0.{}/24 dev eth0 && ip -n {g} link set eth0 up",
                i + 2
            ));
        }
        let d = lab.dir.path().to_path_buf();
        sh(&format!(
            "ssh-keygen -q -t ed25519 -N '' -f {d}/hostkey && ssh-keygen -q -t ed25519 -N '' -f {d}/id \
             && cp {d}/id.pub {d}/authorized_keys && mkdir -p /run/sshd",
            d = d.display()
        ));
        let host_key = std::fs::read_to_string(d.join("hostkey.pub")).unwrap();
        std::fs::write(
            d.join("known_hosts"),
            format!("10.231.0.2 {host_key}10.231.0.3 {host_key}"),
        )
        .unwrap();
        std::fs::write(
            d.join("sshd_config"),
            format!(
                "ListenAddress 0.0.0.0:22\nHostKey {d}/hostkey\nAuthorizedKeysFile {d}/authorized_keys\n\
                 PermitRootLogin prohibit-password\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPidFile none\n\
                 Subsystem sftp /usr/lib/openssh/sftp-server\n",
                d = d.display()
            ),
        )
        .unwrap();
        std::fs::write(
            d.join("ssh_config"),
            format!(
                "Host *\n  IdentityFile {d}/id\n  IdentitiesOnly yes\n  UserKnownHostsFile {d}/known_hosts\n  \
                 StrictHostKeyChecking yes\n",
                d = d.display()
            ),
        )
        .unwrap();
        for g in &lab.names[1..] {
            let child = Command::new("ip")
                .args(["netns", "exec", g, "/usr/sbin/sshd", "-D", "-e", "-f"])
                .arg(d.join("sshd_config"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("sshd (apt-get install openssh-server)");
            lab.sshd.push(child);
        }
        let ready = Instant::now();
        for host in ["10.231.0.2", "10.231.0.3"] {
            loop {
                let ok = lab
                    .in_srv("ssh")
                    .args([
                        "-F",
                        &lab.path("ssh_config"),
                        "-o",
                        "BatchMode=yes",
                        host,
                        "true",
                    ])
                    .output()
                    .unwrap()
                    .status
                    .success();
                if ok {
                    break;
                }
                assert!(
                    ready.elapsed() < Duration::from_secs(20),
                    "sshd on {host} never answered"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        lab
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn remote_dir(&self) -> PathBuf {
        self.dir.path().join("remote-bin")
    }

    /// `program` inside the server namespace.
    fn in_srv(&self, program: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.names[0], program]);
        c
    }

    /// `restbench ARGS` in the server namespace, with the lab's ssh config and remote folder.
    fn restbench(&self, args: &[&str]) -> Command {
        let mut c = self.in_srv(env!("CARGO_BIN_EXE_restbench"));
        c.args(args)
            .env("RESTBENCH_SSH_CONFIG", self.path("ssh_config"))
            .env("RESTBENCH_REMOTE_DIR", self.remote_dir());
        c
    }

    /// Processes running the copied binary ("on the hosts").
    fn remote_processes(&self) -> Vec<i32> {
        let dir = self.remote_dir();
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/exe"))
                    .is_ok_and(|exe| exe.starts_with(&dir))
            })
            .collect()
    }

    /// Waits until `n` remote processes run; returns them.
    fn wait_remote(&self, n: usize) -> Vec<i32> {
        let start = Instant::now();
        loop {
            let p = self.remote_processes();
            if p.len() >= n {
                return p;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the shards never started"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// True once no remote process is left (waiting up to 10 s for them to go).
    fn nothing_left(&self) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if self.remote_processes().is_empty() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// Processes using this lab's ssh config (clients, masters) other than the sshds.
    fn ssh_clients(&self) -> Vec<i32> {
        // The guards of restbench's ssh children kill them when restbench's pipe to them closes,
        // just after it exits: give them the same grace as `nothing_left`.
        let start = Instant::now();
        loop {
            let left = self.ssh_processes();
            if left.is_empty() || start.elapsed() > Duration::from_secs(10) {
                return left;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn ssh_processes(&self) -> Vec<i32> {
        let config = self.path("ssh_config");
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&config))
            })
            .collect()
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        for pid in self.remote_processes() {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        for c in &mut self.sshd {
            let _ = c.kill();
            let _ = c.wait();
        }
        for n in &self.names {
            let _ = Command::new("ip").args(["netns", "del", n]).status();
        }
    }
}

/// An HTTP/1.1 server in the server namespace that counts the answers it writes.
fn counting_server(lab: &Lab) -> TinyServer {
    let ns = std::fs::File::open(format!("/run/netns/{}", lab.names[0])).unwrap();
    std::thread::spawn(move || {
        // This thread now lives in the server namespace, and so does the socket it binds.
        nix::sched::setns(ns.as_fd(), nix::sched::CloneFlags::CLONE_NEWNET).unwrap();
        TinyServer::answering_on(
            "10.231.0.1:0",
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        )
    })
    .join()
    .unwrap()
}

/// `restbench load` from both generator hosts, 60 s at 40 requests a second: a run still going
/// when the test interrupts it.
fn long_load(lab: &Lab, url: &str) -> Child {
    lab.restbench(&[
        "load",
        "--loadgen-hosts",
        "root@10.231.0.2,root@10.231.0.3",
        "-d",
        "60s",
        "-R",
        "40",
        "-c",
        "2",
        "-t",
        "1",
        url,
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap()
}

/// Sends `signal` to process `pid`.
fn signal(pid: u32, signal: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), signal).unwrap();
}

fn text(o: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn two_remote_shards_merge_exactly_and_the_binary_is_copied_once() {
    let _turn = turn::take(module_path!());
    let _ = SLOW;
    let lab = Lab::new();
    let server = counting_server(&lab);
    let url = server.url("/");
    let out_file = lab.path("merged.json");
    let hosts = "root@10.231.0.2,root@10.231.0.3";
    let o = lab
        .restbench(&[
            "load",
            "--loadgen-hosts",
            hosts,
            "-n",
            "600",
            "-c",
            "4",
            "-t",
            "1",
            "--json",
            &out_file,
            &url,
        ])
        .output()
        .unwrap();
    o.assert_exit(0);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("copied restbench to root@10.231.0."),
        "{}",
        text(&o)
    );
    let copies: Vec<_> = std::fs::read_dir(lab.remote_dir())
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(copies.len(), 1, "one binary, named by its hash");

    let merged: LoadResult =
        serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(merged.requests, 600);
    assert_eq!(server.answered(), 600, "the server's own count");
    let h = restbench_model::documents::histogram::decode(&merged.histogram).unwrap();
    assert_eq!(h.len(), 600, "every answer in the merged histogram");
    assert_eq!(merged.shards.len(), 2);
    assert_eq!(
        merged.shards.iter().map(|s| s.requests).collect::<Vec<_>>(),
        [300, 300]
    );
    assert!(
        merged
            .shards
            .iter()
            .all(|s| s.loadgen_cpu.user_s + s.loadgen_cpu.system_s > 0.0)
    );
    assert_eq!(merged.settings.connections, 4);
    assert!(merged.totals_add_up());

    // Again: the copy is reused.
    let o = lab
        .restbench(&[
            "load",
            "--loadgen-hosts",
            hosts,
            "-n",
            "100",
            "-c",
            "2",
            "-t",
            "1",
            &url,
        ])
        .output()
        .unwrap();
    o.assert_exit(0);
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("copied"),
        "{}",
        text(&o)
    );
    assert!(lab.nothing_left());
    assert!(
        lab.ssh_clients().is_empty(),
        "ssh masters closed: {:?}",
        lab.ssh_clients()
    );
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn a_shard_killed_mid_run_fails_with_its_host_and_stops_the_other() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let server = counting_server(&lab);
    let url = server.url("/");
    let child = long_load(&lab, &url);
    let remote = lab.wait_remote(2);
    signal(remote[0] as u32, nix::sys::signal::Signal::SIGKILL);
    let o = child.wait_with_output().unwrap();
    o.assert_exit(1);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("error: the generator on root@10.231.0.") && stderr.contains("failed"),
        "{}",
        text(&o)
    );
    assert!(
        lab.nothing_left(),
        "a shard kept running: {:?}",
        lab.remote_processes()
    );
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn an_unreachable_host_is_one_clear_line() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let o = lab
        .restbench(&[
            "load",
            "--loadgen-hosts",
            "root@10.231.0.2:2222,root@10.231.0.3",
            "-d",
            "1s",
            "-c",
            "2",
            "http://10.231.0.1:9/",
        ])
        .output()
        .unwrap();
    o.assert_exit(1);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_default();
    assert!(
        line.contains("cannot reach root@10.231.0.2:2222 over ssh")
            && line.contains("Connection refused"),
        "{}",
        text(&o)
    );
    assert!(lab.nothing_left());
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn ctrl_c_stops_every_host() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let server = counting_server(&lab);
    let url = server.url("/");
    let child = long_load(&lab, &url);
    lab.wait_remote(2);
    // `ip netns exec` execs restbench: the child's pid is restbench's.
    signal(child.id(), nix::sys::signal::Signal::SIGINT);
    let o = child.wait_with_output().unwrap();
    o.assert_exit(130);
    assert!(
        lab.nothing_left(),
        "left running: {:?}",
        lab.remote_processes()
    );
    assert!(
        lab.ssh_clients().is_empty(),
        "ssh left: {:?}",
        lab.ssh_clients()
    );
}

// ---------------------------------------------------------------------------------------------
// --server-host: the subject copied, built, started, sampled and stopped in a namespace "host".
// ---------------------------------------------------------------------------------------------

/// A plaintext subject in Python's standard library, bound to the HOST it is given; its build
/// copies the server into the cache (so the build step runs there).
const REMOTE_MANIFEST: &str = r#"
id = "remote-tiny"
language = "python"
framework = "http.server"
framework_version = "3"
workloads = ["plaintext"]
[requires]
tools = ["python3"]
[build]
commands = ["mkdir -p {cache}/tiny-bin", "cp {dir}/server.py {cache}/tiny-bin/server.py"]
[start]
command = "exec python3 {cache}/tiny-bin/server.py"
ready_timeout = "20s"
[scenarios.single-thread]
env = {}
"#;

const REMOTE_SERVER: &str = r#"
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = b"Hello, World!" if self.path == "/api/test" else b"not found"
        self.send_response(200 if self.path == "/api/test" else 404)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass

ThreadingHTTPServer((os.environ["HOST"], int(os.environ["PORT"])), Handler).serve_forever()
"#;

impl Lab {
    /// A subjects folder with the remote subject (its build replaced by `build` when given).
    fn remote_subjects(&self, build: Option<&str>) -> PathBuf {
        let dir = self.dir.path().join("subjects").join("remote-tiny");
        std::fs::create_dir_all(dir.join("node_modules")).unwrap();
        // A build output: never copied.
        std::fs::write(dir.join("node_modules").join("big"), "x").unwrap();
        let manifest = match build {
            Some(b) => REMOTE_MANIFEST.replace(
                r#"commands = ["mkdir -p {cache}/tiny-bin", "cp {dir}/server.py {cache}/tiny-bin/server.py"]"#,
                &format!("commands = [{b:?}]"),
            ),
            None => REMOTE_MANIFEST.to_string(),
        };
        std::fs::write(dir.join("subject.toml"), manifest).unwrap();
        std::fs::write(dir.join("server.py"), REMOTE_SERVER).unwrap();
        self.dir.path().join("subjects")
    }

    /// `restbench run` of the remote subject served from g1 (10.231.0.2).
    fn remote_run(&self, subjects: &PathBuf) -> Command {
        let mut c = self.restbench(&[
            "run",
            "--quick",
            "--subjects",
            "remote-tiny",
            "--workloads",
            "plaintext",
            "--no-calibrate",
            "--connections",
            "2",
            "--threads",
            "1",
            "--server-host",
            "root@10.231.0.2",
        ]);
        c.arg("--subjects-dir")
            .arg(subjects)
            .arg("--out")
            .arg(self.dir.path().join("out"))
            .arg("--force")
            .env("RESTBENCH_CACHE", self.dir.path().join("cache"));
        c
    }

    /// The inode of a namespace's network namespace.
    fn netns_inode(&self, index: usize) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(format!("/run/netns/{}", self.names[index]))
            .unwrap()
            .ino()
    }

    /// Processes in namespace `index` other than its sshd listener.
    fn processes_in(&self, index: usize) -> Vec<(i32, String)> {
        use std::os::unix::fs::MetadataExt;
        let ino = self.netns_inode(index);
        let sshd: Vec<i32> = self.sshd.iter().map(|c| c.id() as i32).collect();
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| !sshd.contains(pid))
            .filter(|pid| {
                std::fs::metadata(format!("/proc/{pid}/ns/net")).is_ok_and(|m| m.ino() == ino)
            })
            .map(|pid| {
                let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                (pid, String::from_utf8_lossy(&cmd).replace('\0', " "))
            })
            .collect()
    }

    /// True once namespace `index` runs nothing but its sshd (waiting up to 10 s).
    fn namespace_empty(&self, index: usize) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if self.processes_in(index).is_empty() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// The remote subject's server in g1 (pid and command line), once it runs (2 minutes at most).
    fn wait_for_remote_server(&self) -> (i32, String) {
        let start = Instant::now();
        loop {
            let found = self
                .processes_in(1)
                .into_iter()
                .find(|(_, cmd)| cmd.contains("tiny-bin/server.py"));
            if let Some(found) = found {
                return found;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the server never ran in the host's namespace"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Processes in g1 other than sshd's sessions, once there are none or `limit` has passed.
    fn left_in_host(&self, limit: Duration) -> Vec<(i32, String)> {
        let ours = || {
            self.processes_in(1)
                .into_iter()
                .filter(|(_, cmd)| !cmd.starts_with("sshd: "))
                .collect::<Vec<_>>()
        };
        let start = Instant::now();
        while !ours().is_empty() && start.elapsed() < limit {
            std::thread::sleep(Duration::from_millis(100));
        }
        ours()
    }

    /// What is left of the runs' folders on the "host".
    fn remote_work_left(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.dir.path().join("work"))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    }
}

fn results(lab: &Lab) -> serde_json::Value {
    let text = std::fs::read_to_string(lab.dir.path().join("out").join("results.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn a_subject_served_from_another_host_is_measured_there_and_cleaned_up() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let subjects = lab.remote_subjects(None);
    let child = lab
        .remote_run(&subjects)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The server runs in g1's network namespace, from the copied folder's build.
    let (server_pid, cmd) = lab.wait_for_remote_server();
    let server_cgroup =
        std::fs::read_to_string(format!("/proc/{server_pid}/cgroup")).unwrap_or_default();
    eprintln!("server {server_pid} in the host: {cmd}");
    assert!(cmd.contains(&lab.path("work")), "{cmd}");
    let o = child.wait_with_output().unwrap();
    o.assert_exit(0);
    let r = results(&lab);
    let cell = &r["cells"][0];
    assert_eq!(cell["status"], "ok", "{cell}");
    eprintln!(
        "placement: {}\nserver: {}",
        cell["placement"], cell["server"]
    );
    assert_eq!(cell["placement"]["server_host"], "root@10.231.0.2");
    // Confined there when the host has a cgroup backend, and the cell says which.
    let backend = cell["placement"]["backend"].as_str().unwrap();
    let source = cell["server"]["cpu_source"].as_str().unwrap_or("");
    assert!(
        (backend.starts_with("cgroup") && source == "cgroup")
            || (backend == "affinity-only" && source == "proc"),
        "{backend} / {source}"
    );
    assert!(cell["requests"].as_u64().unwrap() > 0, "{cell}");
    assert!(
        cell["server"]["cpu_us_per_req"].as_f64().unwrap() > 0.0,
        "the server's CPU, read there: {}",
        cell["server"]
    );
    // Nothing left there: no process, no cgroup, no copied folder.
    assert!(
        lab.namespace_empty(1),
        "left in the host: {:?}",
        lab.processes_in(1)
    );
    assert!(!PathBuf::from(format!("/proc/{server_pid}")).exists());
    if let Some(path) = server_cgroup
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .filter(|p| p.contains("restbench-"))
    {
        assert!(
            !PathBuf::from(format!("/sys/fs/cgroup{path}")).exists(),
            "cgroup {path} left"
        );
    }
    assert!(lab.nothing_left(), "{:?}", lab.remote_processes());
    assert!(
        lab.remote_work_left().is_empty(),
        "{:?}",
        lab.remote_work_left()
    );
    assert!(lab.ssh_clients().is_empty(), "{:?}", lab.ssh_clients());
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn a_failing_remote_build_fails_its_cells_with_the_hosts_stderr() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let subjects = lab.remote_subjects(Some("echo remote build broke on purpose >&2; exit 7"));
    let o = lab.remote_run(&subjects).output().unwrap();
    o.assert_exit(1);
    let r = results(&lab);
    let cell = &r["cells"][0];
    assert_eq!(cell["status"], "failed", "{cell}");
    let reason = cell["reason"].as_str().unwrap();
    assert!(
        reason.contains("root@10.231.0.2: building remote-tiny failed")
            && reason.contains("remote build broke on purpose")
            && !reason.contains('\n'),
        "{reason}"
    );
    assert_eq!(cell["placement"]["server_host"], "root@10.231.0.2");
    assert!(lab.namespace_empty(1), "{:?}", lab.processes_in(1));
    assert!(
        lab.remote_work_left().is_empty(),
        "{:?}",
        lab.remote_work_left()
    );
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn ctrl_c_stops_and_cleans_the_server_host() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let subjects = lab.remote_subjects(None);
    let child = lab
        .remote_run(&subjects)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    lab.wait_for_remote_server();
    signal(child.id(), nix::sys::signal::Signal::SIGINT);
    let o = child.wait_with_output().unwrap();
    o.assert_exit(130);
    assert!(
        lab.namespace_empty(1),
        "left in the host: {:?}",
        lab.processes_in(1)
    );
    assert!(
        lab.remote_work_left().is_empty(),
        "{:?}",
        lab.remote_work_left()
    );
    assert!(lab.ssh_clients().is_empty(), "{:?}", lab.ssh_clients());
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn a_killed_restbench_still_stops_the_remote_server() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let subjects = lab.remote_subjects(None);
    let mut child = lab
        .remote_run(&subjects)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    lab.wait_for_remote_server();
    // SIGKILL: no handler runs; the ssh client dies with restbench, the session ends, and the
    // agent there stops the subject on its own.
    // (The ssh master's session there lingers until its ControlPersist ends: a connection,
    // not a process of the run.)
    child.kill().unwrap();
    let _ = child.wait();
    let left = lab.left_in_host(Duration::from_secs(10));
    assert!(left.is_empty(), "left in the host: {left:?}");
}

#[test]
#[ignore = "slow: network namespaces, sshd and PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn db_start_on_another_host_prints_a_url_reachable_from_here() {
    let _turn = turn::take(module_path!());
    use std::io::BufRead;
    let lab = Lab::new();
    let mut child = lab
        .restbench(&["db", "start", "--host", "root@10.231.0.2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim().to_string();
    assert!(
        url.starts_with("postgres://") && url.contains("@10.231.0.2:"),
        "{url:?}"
    );
    // The cluster runs in g1; the client connects from the server namespace, as restbench's
    // subjects would.
    assert!(
        lab.processes_in(1)
            .iter()
            .any(|(_, cmd)| cmd.contains("postgres")),
        "{:?}",
        lab.processes_in(1)
    );
    let ns = std::fs::File::open(format!("/run/netns/{}", lab.names[0])).unwrap();
    let rows = std::thread::spawn(move || {
        nix::sched::setns(ns.as_fd(), nix::sched::CloneFlags::CLONE_NEWNET).unwrap();
        restbench_db::Database::connect(&url)
            .and_then(|db| db.users())
            .map(|u| u.len())
    })
    .join()
    .unwrap();
    assert_eq!(rows.unwrap(), 100, "the seeded users, read from here");
    signal(child.id(), nix::sys::signal::Signal::SIGINT);
    let o = child.wait_with_output().unwrap();
    o.assert_exit(0);
    let left = lab.left_in_host(Duration::from_secs(15));
    assert!(left.is_empty(), "left in the host: {left:?}");
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn a_remote_server_loaded_by_a_remote_generator() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let subjects = lab.remote_subjects(None);
    let o = lab
        .remote_run(&subjects)
        .args(["--loadgen-hosts", "root@10.231.0.3"])
        .output()
        .unwrap();
    o.assert_exit(0);
    let r = results(&lab);
    let cell = &r["cells"][0];
    assert_eq!(cell["status"], "ok", "{cell}");
    assert_eq!(cell["placement"]["server_host"], "root@10.231.0.2");
    assert_eq!(cell["generators"][0]["generator"], "root@10.231.0.3");
    assert!(cell["server"]["cpu_us_per_req"].as_f64().unwrap() > 0.0);
    assert!(lab.namespace_empty(1), "{:?}", lab.processes_in(1));
    assert!(lab.namespace_empty(2), "{:?}", lab.processes_in(2));
    assert!(lab.remote_work_left().is_empty());
}

#[test]
#[ignore = "slow: network namespaces and sshd; cargo test -- --include-ignored runs it (CI does)"]
fn a_kept_server_cache_skips_the_second_build() {
    let _turn = turn::take(module_path!());
    let lab = Lab::new();
    let subjects = lab.remote_subjects(None);
    let mut stderrs = Vec::new();
    for _ in 0..2 {
        let o = lab
            .remote_run(&subjects)
            .arg("--server-cache")
            .output()
            .unwrap();
        o.assert_exit(0);
        stderrs.push(String::from_utf8_lossy(&o.stderr).into_owned());
    }
    assert!(stderrs[0].contains("built remote-tiny"), "{}", stderrs[0]);
    assert!(!stderrs[1].contains("built remote-tiny"), "{}", stderrs[1]);
    // The run folders went; the cache stayed.
    let left = lab.remote_work_left();
    assert_eq!(left, vec![lab.dir.path().join("work").join("cache")]);
    assert!(lab.namespace_empty(1), "{:?}", lab.processes_in(1));
}
