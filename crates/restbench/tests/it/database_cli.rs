//! `restbench db start` and `--database-url` as users meet them: Ctrl-C stops the server and
//! removes its folder, a killed restbench leaves no PostgreSQL process and no folder behind, and
//! a wrong password is reported at once in one line.
//!
//! These tests start real PostgreSQL servers, so they are `#[ignore]`d with the reason;
//! `cargo test -- --include-ignored` runs them, as CI does. They find their processes by pid and their folders by path, never by name, so
//! they run in parallel with each other and with the other tests.

use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::support::restbench;
use restbench_testkit::cli::lines;
use restbench_testkit::procs::{
    accepts, pids, postgres_processes, stat, still_running, wait_gone, within_10s,
};
use restbench_testkit::turn;

// ---------------------------------------------------------------------------------------------
// Processes

/// Running processes whose command line mentions `needle` (the cluster's folder: the
/// postmaster's `-D` and the guards' `rm -rf`).
fn processes_mentioning(needle: &str) -> Vec<String> {
    pids()
        .into_iter()
        .filter(|pid| stat(*pid).is_some_and(|(_, _, state)| state != 'Z'))
        .filter_map(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            cmd.contains(needle).then(|| format!("{pid}: {cmd}"))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// restbench db start

/// A running `restbench db start`.
struct DbStart {
    child: Child,
    url: String,
    port: u16,
    root: PathBuf,
    postgres: Vec<(u32, u64)>,
    stderr: Receiver<String>,
}

impl Drop for DbStart {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn db_start() -> DbStart {
    let mut child = restbench()
        .args(["db", "start"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let stderr = lines(child.stderr.take().unwrap());
    let url = stdout
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("no URL on stdout within 60 s"));
    // "PostgreSQL on 127.0.0.1:PORT (DATA_DIR); Ctrl-C stops it and removes it"
    let about = stderr.recv_timeout(Duration::from_secs(10)).unwrap();
    let data_dir = about
        .split_once(" (")
        .and_then(|(_, rest)| rest.split_once("); "))
        .map(|(dir, _)| PathBuf::from(dir))
        .unwrap_or_else(|| panic!("no data folder in {about:?}"));
    assert!(about.contains("removes it"), "{about}");
    let port: u16 = url
        .rsplit_once(':')
        .and_then(|(_, rest)| rest.split('/').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url:?}"));
    assert!(about.contains(&format!("127.0.0.1:{port}")), "{about}");
    let pid_file = std::fs::read_to_string(data_dir.join("postmaster.pid")).unwrap();
    let postmaster: u32 = pid_file.lines().next().unwrap().trim().parse().unwrap();
    let postgres = postgres_processes(postmaster);
    assert!(postgres.len() >= 3, "postmaster and helpers: {postgres:?}");
    let root = data_dir.parent().unwrap().to_path_buf();
    DbStart {
        child,
        url,
        port,
        root,
        postgres,
        stderr,
    }
}

/// The server answers with the seed data.
fn check_seeded(url: &str) {
    let db = restbench_db::Database::connect(url).unwrap();
    assert_eq!(db.users().unwrap(), restbench_db::seed_rows());
}

/// Nothing of the cluster is left: no process, no folder, no listener.
fn assert_cleaned_up(db: &DbStart, how: &str) -> Duration {
    let root = db.root.display().to_string();
    let took = within_10s(|| {
        still_running(&db.postgres).is_empty()
            && !db.root.exists()
            && processes_mentioning(&root).is_empty()
    });
    assert_eq!(
        still_running(&db.postgres),
        Vec::<u32>::new(),
        "{how}: PostgreSQL processes left running"
    );
    assert!(!db.root.exists(), "{how}: {root} left behind");
    assert_eq!(
        processes_mentioning(&root),
        Vec::<String>::new(),
        "{how}: processes left behind"
    );
    assert!(!accepts(db.port), "{how}: port {} still accepts", db.port);
    took.unwrap_or_default()
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn db_start_stops_postgres_and_removes_its_folder_on_ctrl_c() {
    let _turn = turn::take(module_path!());
    let mut db = db_start();
    check_seeded(&db.url);
    kill(Pid::from_raw(db.child.id() as i32), Signal::SIGINT).unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = db.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "db start did not exit within 20 s of Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let exited_after = started.elapsed();
    assert!(status.success(), "{status}");
    let said: Vec<String> = db.stderr.try_iter().collect();
    assert!(said.iter().any(|l| l == "stopped"), "{said:?}");
    // Cleaned up before it exited: nothing to wait for.
    assert!(!db.root.exists(), "{} left behind", db.root.display());
    let cleaned = assert_cleaned_up(&db, "Ctrl-C");
    eprintln!("Ctrl-C: exited after {exited_after:.2?}, cleaned up {cleaned:.2?} later");
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_killed_db_start_leaves_no_postgres_and_no_folder() {
    let _turn = turn::take(module_path!());
    let mut db = db_start();
    check_seeded(&db.url);
    // A client connection: its backend must go too.
    let _client = restbench_db::Database::connect(&db.url).unwrap();
    let postmaster = db.postgres.iter().map(|p| p.0).min().unwrap();
    db.postgres = postgres_processes(postmaster);
    assert!(db.postgres.iter().any(|p| p.0 == postmaster));
    db.child.kill().unwrap(); // SIGKILL: no handler runs
    let _ = db.child.wait();
    let cleaned = assert_cleaned_up(&db, "SIGKILL");
    eprintln!("SIGKILL: cleaned up {cleaned:.2?} after restbench died");
}

// ---------------------------------------------------------------------------------------------
// A wrong password

#[test]
#[ignore = "slow: builds rust-hyper and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn run_with_a_wrong_password_fails_at_once_in_one_line() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = restbench_db::Cluster::start(None, logs.path()).unwrap();
    let url = format!(
        "postgres://restbench:wrong-secret-zz9@127.0.0.1:{}/restbench",
        cluster.port
    );
    let out = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let o = restbench()
        .args([
            "run",
            "--quick",
            "--subjects",
            "rust-hyper",
            "--workloads",
            "users",
        ])
        .args(["--scenarios", "single-thread", "--database-url", &url])
        .arg("--out")
        .arg(out.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    eprintln!(
        "--- exit {:?} after {took:.1?}\n--- stdout\n{stdout}--- stderr\n{stderr}",
        o.status
    );
    assert_eq!(o.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        !stderr.contains("wrong-secret-zz9"),
        "the password leaks: {stderr}"
    );
    assert!(
        !stdout.contains("wrong-secret-zz9"),
        "the password leaks: {stdout}"
    );
    let reason: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("password authentication failed"))
        .collect();
    assert!(
        !reason.is_empty(),
        "the server's reason is missing: {stderr}"
    );
    assert!(
        stderr.lines().filter(|l| !l.trim().is_empty()).count() == 1,
        "expected one line on stderr: {stderr}"
    );
    assert!(
        reason[0].contains(&cluster.port.to_string()),
        "{}",
        reason[0]
    );
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(
        !out.path().join("results.json").exists(),
        "a run without a usable database was started anyway"
    );
}

// ---------------------------------------------------------------------------------------------
// `serve`'s database URL

/// A users subject that only needs to be ready: `serve` starts a throwaway cluster for it.
const USERS_MANIFEST: &str = r#"
id = "tiny-users"
language = "python"
framework = "http.server"
framework_version = "3"
workloads = ["plaintext", "users"]
[requires]
tools = ["python3"]
[start]
command = "exec python3 server.py"
ready_timeout = "20s"
[scenarios.single-thread]
env = {}
"#;

const USERS_SERVER: &str = r#"
import os
from http.server import BaseHTTPRequestHandler, HTTPServer

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "13")
        self.end_headers()
        self.wfile.write(b"Hello, World!")
    def log_message(self, *args):
        pass

HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
"#;

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn serve_writes_the_usable_database_url_to_a_private_file_and_prints_only_its_path() {
    use std::os::unix::fs::PermissionsExt;
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("subjects/tiny-users");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("subject.toml"), USERS_MANIFEST).unwrap();
    std::fs::write(dir.join("server.py"), USERS_SERVER).unwrap();
    let mut child = restbench()
        .args(["serve", "tiny-users", "--subjects-dir"])
        .arg(t.path().join("subjects"))
        .env("RESTBENCH_CACHE", t.path().join("cache"))
        .env_remove("DATABASE_URL")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = lines(child.stderr.take().unwrap());
    let mut said = Vec::new();
    let line = loop {
        match stderr.recv_timeout(Duration::from_secs(90)) {
            Ok(l) if l.starts_with("database: ") => break l,
            Ok(l) => said.push(l),
            Err(_) => {
                let _ = child.kill();
                panic!("no database line: {said:?}");
            }
        }
    };
    // "database: postgres://…:***@…", then "  the usable URL, with its password, is in FILE"
    let next = stderr
        .recv_timeout(Duration::from_secs(5))
        .unwrap_or_default();
    let file = next
        .split_once(" is in ")
        .map(|(_, rest)| PathBuf::from(rest))
        .unwrap_or_else(|| panic!("no file in {next:?}"));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{}", file.display());
    let url = std::fs::read_to_string(&file).unwrap().trim().to_string();
    let password = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('@'))
        .and_then(|(user, _)| user.split_once(':'))
        .map(|(_, p)| p.to_string())
        .unwrap_or_else(|| panic!("no password in the file's URL"));
    let shown = line.split_once(" (").map_or(line.as_str(), |(url, _)| url);
    assert!(
        shown.contains(":***@") && !shown.contains(&format!(":{password}@")),
        "{line}"
    );
    check_seeded(&url);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(!file.exists(), "{} outlived the cluster", file.display());
}

// ---------------------------------------------------------------------------------------------
// The run's own cluster killed mid-run

/// The postmaster of the cluster the run `restbench` (pid `run`) started: its child (restbench
/// is its subreaper too) whose command is `postgres`.
fn postmaster_of(run: u32) -> Option<u32> {
    pids().into_iter().find(|&pid| {
        stat(pid).is_some_and(|(ppid, _, state)| ppid == run && state != 'Z')
            && std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == "postgres")
    })
}

/// A `restbench run` of rust-hyper on plaintext then users, whose throwaway PostgreSQL
/// cluster's postmaster the test kills (SIGKILL) once the plaintext cell is done and the users
/// cell is under load: the users cell fails with "the database went away (PostgreSQL killed by
/// SIGKILL)" and what its slices saw, instead of standing "ok" on its errors; the plaintext cell
/// finished before stays in results.json, ok; the run ends on its own, leaving no PostgreSQL
/// process behind.
#[test]
#[ignore = "slow: builds rust-hyper and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_postmaster_killed_mid_run_fails_the_users_cell_naming_the_database_and_keeps_the_rest() {
    let _turn = turn::take(module_path!());
    let out = tempfile::tempdir().unwrap();
    let mut run = Run(restbench()
        .args(["run", "--subjects", "rust-hyper"])
        .args([
            "--workloads",
            "plaintext,users",
            "--scenarios",
            "single-thread",
        ])
        .args(["--warmup", "0s", "--duration", "2s", "--repeats", "4"])
        .args([
            "--max-rounds",
            "4",
            "-c",
            "4",
            "--no-calibrate",
            "--no-conformance",
        ])
        .arg("--out")
        .arg(out.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap());
    let child = &mut run.0;
    let stderr = lines(child.stderr.take().unwrap());
    let mut said = Vec::new();
    // Building rust-hyper the first time takes minutes; the plaintext cell then a few seconds.
    let deadline = Instant::now() + Duration::from_secs(900);
    while !said
        .iter()
        .any(|l: &String| l.contains("[1/2]") && l.contains("plaintext"))
    {
        let left = deadline.saturating_duration_since(Instant::now());
        match stderr.recv_timeout(left) {
            Ok(line) => said.push(line),
            Err(_) => panic!("no plaintext cell within 15 min: {said:#?}"),
        }
    }
    let postmaster = postmaster_of(child.id())
        .unwrap_or_else(|| panic!("no postmaster among restbench's children: {said:#?}"));
    let postgres = postgres_processes(postmaster);
    // Into the users cell's first slices (verified, then measured without a warm-up).
    std::thread::sleep(Duration::from_millis(2500));
    kill(Pid::from_raw(postmaster as i32), Signal::SIGKILL).unwrap();
    let status = child.wait().unwrap();
    said.extend(stderr.try_iter());
    let results: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.path().join("results.json"))
            .unwrap_or_else(|e| panic!("{e}: {status:?} {said:#?}")),
    )
    .unwrap();
    let cells = results["cells"].as_array().unwrap();
    let cell = |workload: &str| {
        cells
            .iter()
            .find(|c| c["workload"] == workload)
            .unwrap_or_else(|| panic!("no {workload} cell: {results}"))
    };
    let plaintext = cell("plaintext");
    assert_eq!(plaintext["status"], "ok", "{plaintext}");
    assert!(plaintext["requests"].as_u64().unwrap() > 0, "{plaintext}");
    let users = cell("users");
    assert_eq!(users["status"], "failed", "{users}\n{said:#?}");
    let reason = users["reason"].as_str().unwrap_or_default();
    eprintln!("users: {reason}");
    assert!(
        reason.starts_with("the database went away (PostgreSQL killed by SIGKILL): "),
        "{reason}"
    );
    assert!(
        reason.contains("requests failed") || reason.contains("had no answer"),
        "{reason}"
    );
    assert!(
        status.code().is_some(),
        "restbench itself was killed: {status:?}"
    );
    let left = wait_gone(&postgres);
    assert!(left.is_empty(), "PostgreSQL processes left: {left:?}");
}

/// A `restbench run`, killed and reaped when the test ends however it ends (a no-op once
/// waited for: the handle never signals a reaped pid).
struct Run(Child);

impl Drop for Run {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
