//! Hostile subjects on the affinity backend (no cgroup to hold them, as with `--no-cgroups`):
//! one row per way a server outlives its process group or floods its log, each started with
//! `start_subject` from a subject made in a temporary folder and stopped as a run stops it.
//! After the stop nothing the subject started may be left, its port must be free, and what was
//! found outside the group is named (issue 26, items 5 and 8).

use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use restbench_harness::serve::{StartOptions, start_subject};
use restbench_host::cgroup::Backend;
use restbench_host::placement::{Placement, available_cpus};
use restbench_model::Scenario;
use restbench_subject::Subject;
use restbench_testkit::{procs, turn};

/// A plaintext server on `$PORT`; with `daemon` as its second argument it forks twice and
/// calls `setsid` after binding, as a self-daemonising server does. Its first argument is the
/// row's mark, so that what it leaves is found by its command line.
const SERVER: &str = r#"
import os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = b"Hello, World!"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass

server = HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
if len(sys.argv) > 2 and sys.argv[2] == "daemon":
    if os.fork():
        os._exit(0)
    os.setsid()
    if os.fork():
        os._exit(0)
print("serving", flush=True)
server.serve_forever()
"#;

/// One hostile subject and what its stop must leave.
struct Case {
    name: &'static str,
    /// The start command; `MARK` is replaced by the row's mark.
    start: &'static str,
    /// A phrase one of the stop's notes (`ManagedChild::escapees`) must hold; `None`: no note.
    note: Option<&'static str>,
    /// The most the server's log may hold afterwards, in bytes.
    log_at_most: Option<u64>,
}

/// Two MiB kept (head and tail) and the line saying what was cut.
const CAPPED_LOG: u64 = (2 << 20) + 256;

const CASES: &[Case] = &[
    Case {
        name: "a double-forked setsid daemon",
        start: "(setsid sh -c 'sleep 600; :' MARK &); exec python3 {dir}/server.py MARK",
        note: Some("outlived it; stopped"),
        log_at_most: None,
    },
    Case {
        name: "a server that daemonises itself and keeps its port",
        start: "python3 {dir}/server.py MARK daemon; exec sleep 600",
        note: Some("holding port"),
        log_at_most: None,
    },
    Case {
        name: "a daemonised server that clears its environment and keeps its port",
        start: "env -i PATH=\"$PATH\" PORT=\"$PORT\" python3 {dir}/server.py MARK daemon; \
                exec sleep 600",
        note: Some("still holds port"),
        log_at_most: None,
    },
    Case {
        name: "a server that writes 200 MiB to stdout",
        start: "head -c 209715200 /dev/zero; exec python3 {dir}/server.py MARK",
        note: None,
        log_at_most: Some(CAPPED_LOG),
    },
];

/// Every row; all failures are reported together.
#[test]
fn hostile_subjects_leave_nothing_after_the_stop_on_the_affinity_backend() {
    let _turn = turn::take(module_path!());
    if !python3() {
        eprintln!("skipped: python3 is not on PATH");
        return;
    }
    let failures: Vec<String> = CASES
        .iter()
        .enumerate()
        .filter_map(|(i, case)| check(i, case).err().map(|e| format!("{}: {e}", case.name)))
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn python3() -> bool {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn check(row: usize, case: &Case) -> Result<(), String> {
    let t = tempfile::tempdir().unwrap();
    let mark = format!("restbench-escapee-{}-{row}", std::process::id());
    let subject = subject(t.path(), row, &case.start.replace("MARK", &mark));
    let cpus = available_cpus();
    let placement = Placement {
        loadgen: vec![cpus[0]],
        server: cpus.clone(),
        shared: true,
    };
    let backend = Backend::affinity_only("--no-cgroups given");
    let cache = t.path().join("cache");
    let options = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: &cache,
        database_url: None,
        db_pool_total: 1,
        address: None,
        remote: None,
    };
    let mut server = start_subject(&subject, Scenario::SingleThread, &options, None)
        .map_err(|e| format!("did not start: {e}"))?;
    let port = server.addr.port();
    // The daemon's double fork may still be under way just after the first answer.
    std::thread::sleep(Duration::from_millis(300));
    server.child.stop(Duration::from_secs(2));
    let mut failures = Vec::new();
    let left = marked(&mark);
    if !left.is_empty() {
        failures.push(format!("left running: {left:?}"));
    }
    if TcpListener::bind(("127.0.0.1", port)).is_err() {
        failures.push(format!("port {port} is still taken"));
    }
    let notes = server.child.escapees().to_vec();
    match case.note {
        Some(phrase) if !notes.iter().any(|n| n.contains(phrase)) => {
            failures.push(format!("no note saying {phrase:?}: {notes:?}"));
        }
        None if !notes.is_empty() => failures.push(format!("unexpected notes: {notes:?}")),
        _ => {}
    }
    if let Some(most) = case.log_at_most {
        let log = server.child.log_path().to_path_buf();
        let size = std::fs::metadata(&log).map_or(u64::MAX, |m| m.len());
        let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap_or_default()).into_owned();
        if size > most {
            failures.push(format!("the log holds {size} bytes, more than {most}"));
        }
        if !text.contains("bytes of output cut here") || !text.ends_with("serving\n") {
            failures.push("the log does not say what was cut, or lost its end".into());
        }
    }
    drop(server);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// A subject `escapee-<row>` in `root` whose start command is `start`.
fn subject(root: &Path, row: usize, start: &str) -> Subject {
    let id = format!("escapee-{row}");
    let dir = root.join("subjects").join(&id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.py"), SERVER).unwrap();
    let manifest = format!(
        r#"
id = "{id}"
language = "python"
framework = "http.server"
framework_version = "3"
workloads = ["plaintext"]
[requires]
tools = ["python3"]
[start]
command = {start:?}
ready_timeout = "20s"
[scenarios.single-thread]
env = {{}}
"#
    );
    std::fs::write(dir.join("subject.toml"), manifest).unwrap();
    Subject::load(&dir).unwrap()
}

/// Processes whose command line or environment holds `mark` (`procs` reads /proc by pid).
fn marked(mark: &str) -> Vec<String> {
    // Give a process that was just killed a moment to be gone.
    let find = || -> Vec<String> {
        procs::pids()
            .into_iter()
            .filter(|&pid| procs::stat(pid).is_some_and(|(_, _, state)| state != 'Z'))
            .filter_map(|pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
                let holds = |b: &[u8]| b.windows(mark.len()).any(|w| w == mark.as_bytes());
                (holds(&cmdline) || holds(&environ)).then(|| {
                    format!(
                        "pid {pid}: {}",
                        String::from_utf8_lossy(&cmdline).replace('\0', " ")
                    )
                })
            })
            .collect()
    };
    let _ = procs::within_10s(|| find().is_empty());
    find()
}
