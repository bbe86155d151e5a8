//! `restbench load` ended by a signal, and `--start-at` far ahead (issue 26 item 10). A load
//! stopped by SIGINT, SIGTERM or SIGHUP keeps its `--json` document, marked interrupted, even
//! when its terminal is gone (stdout and stderr are pipes nobody reads) and when SIGHUP comes
//! twice (a closing terminal sends one, the shell another).

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use restbench_testkit::TinyServer;
use restbench_testkit::turn;
use serde_json::Value;

use crate::support::restbench;

const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

/// A wall-clock backstop: the child is killed (and the test fails) beyond it.
const BACKSTOP: Duration = Duration::from_secs(60);

/// (the signals sent one after the other, the case's name).
const CASES: &[(&[Signal], &str)] = &[
    (&[Signal::SIGINT], "SIGINT"),
    (&[Signal::SIGTERM], "SIGTERM"),
    (&[Signal::SIGHUP], "SIGHUP"),
    (&[Signal::SIGHUP, Signal::SIGHUP], "SIGHUP twice"),
];

#[test]
fn a_signal_keeps_the_json_even_without_a_terminal() {
    let _turn = turn::take(module_path!());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = CASES
            .iter()
            .map(|&(signals, name)| {
                scope.spawn(move || interrupted(signals).err().map(|e| format!("{name}: {e}")))
            })
            .collect();
        runs.into_iter()
            .filter_map(|h| h.join().unwrap_or_else(|_| Some("panicked".into())))
            .collect()
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Starts a long load whose stdout and stderr nobody reads, sends `signals` once it is
/// answered, and checks the exit status and the document.
fn interrupted(signals: &[Signal]) -> Result<(), String> {
    let server = TinyServer::answering(OK);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("load.json");
    let (out_reader, out) = std::io::pipe().unwrap();
    let (err_reader, err) = std::io::pipe().unwrap();
    drop((out_reader, err_reader));
    let mut child = restbench()
        .args(["load", "-c", "1", "-t", "1", "-d", "50s", "--json"])
        .arg(&json)
        .arg(server.url("/"))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap();
    let started = Instant::now();
    while server.answered() == 0 {
        if started.elapsed() > BACKSTOP || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            return Err("the load never got an answer".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for &signal in signals {
        kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    }
    let code = wait(&mut child)?;
    if code != Some(130) {
        return Err(format!("exit {code:?}, expected 130"));
    }
    let doc: Value = std::fs::read(&json)
        .map_err(|e| format!("no --json document: {e}"))
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| format!("--json: {e}")))?;
    if doc["interrupted"] != Value::Bool(true) || doc["requests"].as_u64().unwrap_or(0) == 0 {
        return Err(format!(
            "the document is not an interrupted load with answers: interrupted {}, requests {}",
            doc["interrupted"], doc["requests"]
        ));
    }
    Ok(())
}

/// The child's exit code, killing it beyond [`BACKSTOP`].
fn wait(child: &mut Child) -> Result<Option<i32>, String> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Ok(status.code());
        }
        if started.elapsed() > BACKSTOP {
            let _ = child.kill();
            return Err(format!("not ended within {BACKSTOP:?} of the signal"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_start_more_than_a_day_ahead_is_refused_before_any_load() {
    let _turn = turn::take(module_path!());
    let server = TinyServer::answering(OK);
    let ahead = (std::time::SystemTime::now() + Duration::from_secs(25 * 3600))
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        .to_string();
    for at in ["2099-01-01T00:00:00Z", ahead.as_str()] {
        let mut child = restbench()
            .args(["load", "-d", "1", "--start-at", at])
            .arg(server.url("/"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A start accepted would sleep for years: the backstop ends it.
        let code = wait(&mut child);
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err);
        assert_eq!(code, Ok(Some(2)), "--start-at {at}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "--start-at {at}: {err}");
        assert!(err.contains("more than 24 h"), "--start-at {at}: {err}");
    }
    assert_eq!(
        server.connections(),
        0,
        "a refused start reached the server"
    );
    let help = restbench().args(["load", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("24 h ahead is refused"), "{help}");
}
