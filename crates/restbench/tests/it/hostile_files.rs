//! Hostile files, folders and flags against `run`, `study`, `report`, `compare`, `verify` and
//! `db start` (issue 13): a finished run in `--out`, a results.json from the future, a checkout
//! path with spaces, quotes and `$`, passwords in every spelling of a connection string, CPU lists
//! far beyond the machine, a user's own folder given to `db start --keep`. Every hostile party is
//! made inside its test, in a temporary folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use restbench_testkit::fixtures::run_results;
use restbench_testkit::{closed_port, turn};

use crate::support::restbench;

/// A folder name a shell would split, unquote and expand (`$HOME`, `$(…)`), if it were ever
/// pasted into a command unquoted: the `$(touch …)` would leave a file behind.
const WEIRD: &str = "with space 'q' $HOME $(touch pwned)";

/// Runs `cmd` to its end, killing it after `limit` (a test fails rather than hangs).
fn run_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn restbench_within(args: &[&str], limit: Duration) -> Output {
    run_within(restbench().args(args), limit)
}

/// stderr's lines that say something.
fn error_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// Exit `code` with one line on stderr containing every one of `needles`.
fn assert_refused(o: &Output, code: i32, needles: &[&str]) {
    let lines = error_lines(o);
    assert_eq!(o.status.code(), Some(code), "{lines:?}");
    assert_eq!(lines.len(), 1, "{lines:?}");
    for n in needles {
        assert!(lines[0].contains(n), "{n:?} missing from {lines:?}");
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// An empty subjects folder: nothing to build or start, so a command gets only as far as its
/// checks.
fn empty_subjects(t: &Path) -> PathBuf {
    let d = t.join("subjects");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every path under `dir`, for "nothing stray was made".
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() && !p.is_symlink() {
            out.extend(tree(&p));
        }
        out.push(p);
    }
    out.sort();
    out
}

// ---------------------------------------------------------------------------------------------
// Item 4: a finished run is never replaced without --force.
// ---------------------------------------------------------------------------------------------

const FINISHED: &str = "{\"a finished run\": true}";

#[test]
fn run_refuses_an_out_folder_holding_a_run_unless_forced() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let subjects = empty_subjects(t.path());
    let out = t.path().join(WEIRD);
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("results.json"), FINISHED).unwrap();
    let args = [
        "run",
        "--subjects-dir",
        s(&subjects),
        "--out",
        s(&out),
        "--no-calibrate",
        "--no-cgroups",
    ];
    let o = restbench_within(&args, Duration::from_secs(30));
    assert_refused(&o, 2, &[s(&out), "--force"]);
    assert_eq!(
        std::fs::read_to_string(out.join("results.json")).unwrap(),
        FINISHED
    );
    // With --force the check is passed; the run then ends for its own reason (no subjects).
    let forced = [&args[..], &["--force"]].concat();
    let o = restbench_within(&forced, Duration::from_secs(30));
    let lines = error_lines(&o);
    assert_eq!(o.status.code(), Some(1), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("nothing to run")),
        "{lines:?}"
    );
}

#[test]
fn study_refuses_an_out_folder_holding_a_run() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let subjects = empty_subjects(t.path());
    let out = t.path().join("study-out");
    std::fs::create_dir_all(out.join("c")).unwrap();
    std::fs::write(out.join("results.json"), FINISHED).unwrap();
    std::fs::write(out.join("c").join("results.json"), FINISHED).unwrap();
    for (study, named) in [
        ("a", out.clone()),
        ("all", out.join("c")),
        ("tfb", out.clone()),
    ] {
        let o = restbench_within(
            &[
                "study",
                study,
                "--subjects-dir",
                s(&subjects),
                "--out",
                s(&out),
                "--no-cgroups",
            ],
            Duration::from_secs(30),
        );
        assert_refused(&o, 2, &[s(&named), "--force"]);
    }
    assert_eq!(
        std::fs::read_to_string(out.join("c").join("results.json")).unwrap(),
        FINISHED
    );
    assert_eq!(
        std::fs::read_to_string(out.join("results.json")).unwrap(),
        FINISHED
    );
    assert!(!out.join("a").exists() && !out.join("report.md").exists());
}

// ---------------------------------------------------------------------------------------------
// Item 15: a results.json of an unknown schema version is refused, not rendered.
// ---------------------------------------------------------------------------------------------

fn run_document(version: u32) -> String {
    let mut run = run_results(Vec::new());
    run.schema_version = version;
    serde_json::to_string_pretty(&run).unwrap()
}

#[test]
fn report_and_compare_refuse_an_unknown_schema_version() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let future = t.path().join("future");
    let good = t.path().join("good");
    for (dir, version) in [
        (&future, 999),
        (
            &good,
            <restbench_model::RunResults as restbench_model::Document>::SCHEMA_VERSION,
        ),
    ] {
        std::fs::create_dir(dir).unwrap();
        std::fs::write(dir.join("results.json"), run_document(version)).unwrap();
    }
    let o = restbench_within(&["report", s(&future)], Duration::from_secs(30));
    assert_refused(&o, 1, &["schema version 999", "results.json"]);
    assert!(o.stdout.is_empty());
    assert!(!future.join("report.md").exists() && !future.join("report.html").exists());
    for (a, b) in [(&good, &future), (&future, &good)] {
        let o = restbench_within(&["compare", s(a), s(b)], Duration::from_secs(30));
        assert_refused(&o, 1, &["schema version 999"]);
        assert!(o.stdout.is_empty());
    }
    // The current version still renders.
    let o = restbench_within(&["compare", s(&good), s(&good)], Duration::from_secs(30));
    assert_eq!(o.status.code(), Some(0), "{:?}", error_lines(&o));
}

// ---------------------------------------------------------------------------------------------
// --loadgen-cpus and the load shape: refused at once, exit 2, as `load` does.
// ---------------------------------------------------------------------------------------------

#[test]
fn loadgen_cpus_that_do_not_exist_are_refused_at_once() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let subjects = empty_subjects(t.path());
    for list in [
        "0-4000000000",
        "4000000000",
        "99999999999999999999999",
        "1-0",
    ] {
        let out = t.path().join("out");
        let run = restbench_within(
            &[
                "run",
                "--subjects-dir",
                s(&subjects),
                "--out",
                s(&out),
                "--no-calibrate",
                "--no-cgroups",
                "--loadgen-cpus",
                list,
            ],
            Duration::from_secs(30),
        );
        assert_refused(&run, 2, &["--loadgen-cpus"]);
        let study = restbench_within(
            &[
                "study",
                "a",
                "--subjects-dir",
                s(&subjects),
                "--out",
                s(&out),
                "--no-cgroups",
                "--loadgen-cpus",
                list,
            ],
            Duration::from_secs(30),
        );
        assert_refused(&study, 2, &["--loadgen-cpus"]);
        assert!(!out.exists());
    }
}

#[test]
fn run_and_study_exit_2_for_a_load_shape_the_engine_refuses() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let subjects = empty_subjects(t.path());
    let out = t.path().join("out");
    let base = [
        "--subjects-dir",
        s(&subjects),
        "--out",
        s(&out),
        "--no-cgroups",
    ];
    for (extra, needle) in [
        (&["run", "--no-calibrate", "-c", "0"][..], "--connections"),
        (
            &["run", "--no-calibrate", "--duration", "0"][..],
            "--duration",
        ),
        (&["study", "a", "--duration", "0"][..], "--duration"),
    ] {
        let o = restbench_within(&[extra, &base[..]].concat(), Duration::from_secs(30));
        assert_refused(&o, 2, &[needle]);
    }
    assert!(!out.exists());
}

// ---------------------------------------------------------------------------------------------
// Item 11: a checkout path with spaces, quotes and `$` works end to end.
// ---------------------------------------------------------------------------------------------

/// A subject whose build and start commands use `{dir}` and `{cache}`; its server checks that
/// its folder arrived as one word (it exits otherwise) and serves plaintext by the contract.
const TINY_MANIFEST: &str = r#"
id = "tiny"
language = "python"
framework = "http.server"
framework_version = "3"
workloads = ["plaintext", "users"]
[requires]
tools = ["python3"]
[build]
commands = ["mkdir -p {cache}/tiny-bin", "cp {dir}/server.py {cache}/tiny-bin/server.py"]
[start]
command = "exec python3 {cache}/tiny-bin/server.py {dir}"
ready_timeout = "20s"
[scenarios.single-thread]
env = {}
"#;

const TINY_SERVER: &str = r#"
import os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

if len(sys.argv) != 2 or not os.path.isfile(os.path.join(sys.argv[1], "subject.toml")):
    sys.exit("the subject folder did not arrive as one word: %r" % sys.argv[1:])

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path == "/api/test":
            self.answer(200, b"Hello, World!")
        else:
            self.answer(404, b"not found")
    def log_message(self, *args):
        pass

HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
"#;

/// `T/<WEIRD>/subjects/tiny` and a cache `T/<WEIRD> cache`; returns (subjects, cache).
fn tiny_subject(t: &Path) -> (PathBuf, PathBuf) {
    let subjects = t.join(WEIRD).join("subjects");
    let tiny = subjects.join("tiny");
    std::fs::create_dir_all(&tiny).unwrap();
    std::fs::write(tiny.join("subject.toml"), TINY_MANIFEST).unwrap();
    std::fs::write(tiny.join("server.py"), TINY_SERVER).unwrap();
    (subjects, t.join(format!("{WEIRD} cache")))
}

#[test]
fn a_checkout_path_with_spaces_quotes_and_dollar_builds_and_serves() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let (subjects, cache) = tiny_subject(t.path());
    let o = run_within(
        restbench()
            .args([
                "verify",
                "tiny",
                "--workloads",
                "plaintext",
                "--subjects-dir",
                s(&subjects),
                "-v",
            ])
            .env("RESTBENCH_CACHE", &cache),
        Duration::from_secs(120),
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}\n{:?}", error_lines(&o));
    assert!(
        cache.join("tiny-bin").join("server.py").is_file(),
        "{:?}",
        tree(t.path())
    );
    // Nothing split, unquoted or expanded: no stray folder, no `$(touch pwned)` result.
    let stray: Vec<PathBuf> = tree(t.path())
        .into_iter()
        .filter(|p| {
            !(p.starts_with(t.path().join(WEIRD)) || p.starts_with(&cache))
                || p.file_name().is_some_and(|n| n == "pwned")
        })
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

// ---------------------------------------------------------------------------------------------
// Item 12: passwords are never printed, whatever the connection string's spelling; the URL may
// come from DATABASE_URL.
// ---------------------------------------------------------------------------------------------

#[test]
fn database_passwords_are_never_printed() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let (subjects, cache) = tiny_subject(t.path());
    let port = closed_port();
    let urls = [
        format!("host=127.0.0.1 port={port} user=u password=topsecret dbname=x"),
        format!("host=127.0.0.1 port={port} user=u password = 'top secret' dbname=x"),
        format!("postgres://u@127.0.0.1:{port}/x?password=topsecret&connect_timeout=5"),
        format!("postgres://u:topsecret@127.0.0.1:{port}/x"),
    ];
    for url in &urls {
        for from_env in [false, true] {
            let mut cmd = restbench();
            cmd.args([
                "run",
                "--subjects-dir",
                s(&subjects),
                "--workloads",
                "users",
                "--out",
                s(&t.path().join("out")),
                "--no-calibrate",
                "--no-cgroups",
            ])
            .env("RESTBENCH_CACHE", &cache)
            .env_remove("DATABASE_URL");
            if from_env {
                cmd.env("DATABASE_URL", url);
            } else {
                cmd.args(["--database-url", url]);
            }
            let o = run_within(&mut cmd, Duration::from_secs(60));
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(o.status.code(), Some(1), "{url} (env {from_env}): {all}");
            assert!(
                all.contains("cannot connect") && all.contains("***"),
                "{url} (env {from_env}): {all}"
            );
            assert!(!all.contains("secret"), "{url} (env {from_env}): {all}");
        }
    }
    // --help names the variable but never shows its value.
    for command in ["run", "study", "verify", "conformance", "serve"] {
        let o = run_within(
            restbench()
                .args([command, "--help"])
                .env("DATABASE_URL", &urls[3]),
            Duration::from_secs(30),
        );
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(help.contains("DATABASE_URL"), "{command}: {help}");
        assert!(!help.contains("secret"), "{command}: {help}");
    }
}

// ---------------------------------------------------------------------------------------------
// Items 11 and 15: `db start --keep`.
// ---------------------------------------------------------------------------------------------

fn owner(p: &Path) -> (u32, u32) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(p).unwrap();
    (m.uid(), m.gid())
}

#[test]
fn db_start_keep_refuses_a_users_own_folder_and_chowns_nothing() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    for own in [t.path().join("empty"), t.path().join("full")] {
        std::fs::create_dir(&own).unwrap();
        if own.ends_with("full") {
            std::fs::write(own.join("notes.txt"), "mine").unwrap();
        }
        let before = (owner(&own), tree(&own));
        let o = restbench_within(&["db", "start", "--keep", s(&own)], Duration::from_secs(30));
        assert_refused(&o, 1, &[s(&own), "not made by restbench"]);
        assert_eq!((owner(&own), tree(&own)), before);
    }
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn db_start_keep_with_shell_characters_runs_nothing() {
    let _turn = turn::take(module_path!());
    use std::io::{BufRead, BufReader};
    let t = tempfile::tempdir().unwrap();
    let keep = t.path().join("DIR'$(id>pwned)'");
    let mut child = restbench()
        .args(["db", "start", "--keep", s(&keep)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    let read = BufReader::new(child.stdout.take().unwrap()).read_line(&mut url);
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    );
    let out = child.wait_with_output().unwrap();
    let pwned: Vec<PathBuf> = tree(t.path())
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "pwned"))
        .collect();
    assert!(pwned.is_empty(), "the folder name ran a command: {pwned:?}");
    assert!(
        read.is_ok() && url.starts_with("postgres://"),
        "no URL: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(keep.join("data").join("PG_VERSION").is_file());
    assert!(keep.join(restbench_db::KEEP_MARKER).is_file());
}

// ---------------------------------------------------------------------------------------------
// Issue 26 item 9: a full disk leaves the previous report whole and no temporary file.
// ---------------------------------------------------------------------------------------------

/// A tmpfs of `size` mounted on `dir`, unmounted when dropped.
struct TinyDisk(PathBuf);

impl TinyDisk {
    fn mount(dir: &Path, size: &str) -> Option<Self> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Self(dir.to_path_buf()))
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
#[ignore = "mounts a 16 KiB tmpfs, which needs root and touches the mount table; \
            cargo test -- --include-ignored runs it (CI does, as root)"]
fn a_full_disk_keeps_the_previous_report_whole() {
    let _turn = turn::take(module_path!());
    let t = tempfile::tempdir().unwrap();
    let Some(disk) = TinyDisk::mount(&t.path().join("disk"), "16k") else {
        eprintln!("skipped: cannot mount a tmpfs here (not root?)");
        return;
    };
    let results = serde_json::to_string(&run_results(vec![
        restbench_testkit::fixtures::cell("a", 1000.0),
        restbench_testkit::fixtures::cell("b", 2000.0),
    ]))
    .unwrap();
    std::fs::write(disk.0.join("results.json"), &results).unwrap();
    std::fs::write(disk.0.join("report.html"), "the previous report").unwrap();
    let o = restbench_within(&["report", s(&disk.0)], Duration::from_secs(30));
    let lines = error_lines(&o);
    assert_eq!(o.status.code(), Some(1), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("report.html") && l.contains("kept")),
        "{lines:?}"
    );
    assert_eq!(
        std::fs::read_to_string(disk.0.join("report.html")).unwrap(),
        "the previous report"
    );
    let stray: Vec<PathBuf> = tree(&disk.0)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}
