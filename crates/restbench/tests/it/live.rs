//! `load`'s live line and Ctrl-C, against a tiny HTTP server in the test (127.0.0.1, port 0):
//! no progress when stderr is not a terminal or with `--quiet`, a live line on a terminal (a
//! pseudo-terminal from util-linux `script`), and an interrupted run marked as such with exit 130.
//! No test asserts a speed.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use restbench_testkit::{Outcome, TinyServer};

use crate::support::restbench;
use restbench_testkit::turn;

/// A keep-alive HTTP/1.1 server answering every request `200 hello`, a thread per connection.
fn hello_server() -> TinyServer {
    TinyServer::answering(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
    )
}

/// What only the live line writes: its words, and the terminal control it draws with.
fn has_live_line(s: &str) -> bool {
    s.contains("so far") || s.contains('\x1b') || s.contains('\r')
}

#[test]
fn no_live_line_when_stderr_is_not_a_terminal_or_with_quiet() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let url = server.url("/hello");
    for quiet in [false, true] {
        let mut cmd = restbench();
        cmd.args(["load", "-d", "1s", "-c", "2", "-t", "1", &url]);
        if quiet {
            cmd.arg("--quiet");
        }
        let o = cmd.output().unwrap();
        let (out, err) = o.text();
        assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
        assert!(out.contains("Requests/sec:"), "{out}");
        assert!(!has_live_line(&err), "quiet {quiet}: {err:?}");
        assert!(!has_live_line(&out), "quiet {quiet}: {out:?}");
    }
}

/// util-linux `script`, which runs a command on a pseudo-terminal; `None` when it is missing.
fn script() -> Option<Command> {
    let ok = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Command::new("script"))
}

/// `restbench load ARGS` on a pseudo-terminal; everything it wrote to the terminal.
fn on_a_terminal(args: &str) -> Option<(Option<i32>, String)> {
    let mut script = script()?;
    let line = format!("{} load {args}", env!("CARGO_BIN_EXE_restbench"));
    let o = script
        .args(["-qfec", &line, "/dev/null"])
        .env("TERM", "xterm")
        .env("COLUMNS", "160")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Some((
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    ))
}

#[test]
fn a_live_line_on_a_terminal_and_none_with_quiet() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let url = server.url("/hello");
    let Some((code, shown)) = on_a_terminal(&format!("-d 2s -c 2 -t 1 --plain {url}")) else {
        eprintln!("skipped: util-linux `script` is not installed, so no pseudo-terminal");
        return;
    };
    assert_eq!(code, Some(0), "{shown}");
    assert!(
        shown.contains("so far") && shown.contains("req/s"),
        "{shown:?}"
    );
    assert!(
        shown.contains("/ 2.0 s"),
        "elapsed of the planned time: {shown:?}"
    );
    assert!(shown.contains("Requests/sec:"), "{shown:?}");

    let (code, shown) = on_a_terminal(&format!("-d 1s -c 2 -t 1 -q {url}")).unwrap();
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("Requests/sec:"), "{shown:?}");
    assert!(!shown.contains("so far"), "{shown:?}");
    assert!(!shown.contains(ALTERNATE_SCREEN), "{shown:?}");
}

/// The escape that switches a terminal to its alternate screen, where the dashboard draws.
const ALTERNATE_SCREEN: &str = "\x1b[?1049h";

#[test]
fn the_dashboard_on_a_terminal_and_the_report_after_it() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let url = server.url("/hello");
    let Some((code, shown)) = on_a_terminal(&format!("-d 2s -c 2 -t 1 -R 200 {url}")) else {
        eprintln!("skipped: util-linux `script` is not installed, so no pseudo-terminal");
        return;
    };
    assert_eq!(code, Some(0), "{shown}");
    let at = shown
        .find(ALTERNATE_SCREEN)
        .expect("the dashboard's screen");
    let left = shown
        .rfind("\x1b[?1049l")
        .expect("the dashboard's screen is left");
    let dashboard = &shown[at..left];
    // The terminal is written word by word, so each word is looked for on its own.
    for panel in [
        "Requests", "Latency", "Status", "second:", "backlog", "2xx", "p99.99", "target",
    ] {
        assert!(dashboard.contains(panel), "{panel}: {dashboard:?}");
    }
    assert!(
        !dashboard.contains("so far ·"),
        "not the plain line: {dashboard:?}"
    );
    assert!(
        shown[left..].contains("Requests/sec:"),
        "the report after it: {shown:?}"
    );

    // Where stdout carries the document, nothing is drawn into it.
    let (code, shown) = on_a_terminal(&format!("-d 1s -c 2 -t 1 --json - {url}")).unwrap();
    assert_eq!(code, Some(0), "{shown}");
    assert!(!shown.contains(ALTERNATE_SCREEN), "{shown:?}");
}

#[test]
fn ctrl_c_reports_the_run_as_interrupted_with_exit_130() {
    let _turn = turn::take(module_path!());
    let server = hello_server();
    let url = server.url("/hello");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let child = restbench()
        .args(["load", "-d", "30s", "-c", "2", "-t", "1", "--json"])
        .arg(&json)
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1_200));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let started = Instant::now();
    let o = child.wait_with_output().unwrap();
    let (out, err) = o.text();
    assert!(started.elapsed() < Duration::from_secs(10), "it stopped");
    assert_eq!(o.status.code(), Some(130), "{out}\n{err}");
    assert!(out.contains("Run interrupted after"), "{out}");
    assert!(out.contains("Requests/sec:"), "the figures so far: {out}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(r["interrupted"], true, "{r}");
    let after = r["interrupted_after_s"].as_f64().unwrap();
    assert!((1.0..10.0).contains(&after), "{after}");
    assert!(r["requests"].as_u64().unwrap() > 0);
    // Each second with answers carries its latency.
    let seconds = r["timeseries"].as_array().unwrap();
    assert!(!seconds.is_empty());
    for s in seconds.iter().filter(|s| s["requests"].as_u64() > Some(0)) {
        let (p50, p99) = (s["p50_us"].as_u64().unwrap(), s["p99_us"].as_u64().unwrap());
        assert!(p50 >= 1 && p99 >= p50, "{s}");
    }
}
