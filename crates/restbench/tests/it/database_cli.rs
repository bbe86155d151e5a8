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
    accepts, pids, postgres_processes, stat, still_running, within_10s,
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
