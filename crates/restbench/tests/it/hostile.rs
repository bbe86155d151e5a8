//! Hostile servers, files and flags against the binary, as a hostile user would try them
//! (issue 13). Every hostile party is made inside its test: a tiny server on 127.0.0.1:0 that
//! writes the hostile bytes, a closed pipe, an endless file, a lowered open-file limit.
//!
//! Memory is bounded through the child's peak RSS: [`run_measured`] starts `restbench` through
//! this test binary acting as a one-child wrapper ([`wrapped_child`]), which reads
//! `getrusage(RUSAGE_CHILDREN)` after the wait, so the figure is exactly that one process's
//! high-water mark. Every run has a wall-clock limit after which it is killed (and fails).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use restbench_testkit::fixtures::run_results;
use restbench_testkit::{TinyServer, closed_port};

use crate::support::restbench;
use restbench_testkit::turn;
use serde_json::{Value, json};

/// Peak RSS a `restbench load` may reach against any hostile server (a debug build against one or
/// two connections needs ~10 MiB; a flood would need far more).
const LOAD_RSS_CAP_MIB: u64 = 64;

// ---------------------------------------------------------------------------------------------
// The table: hostile behaviour → expected verdict.
// ---------------------------------------------------------------------------------------------

/// A verdict: how the client must end, within what limits.
#[derive(Debug, Clone, Copy)]
struct Expect {
    /// Exit status (for the harness client: 0 = an answer, 1 = an error).
    exit: i32,
    /// An error class that must be counted (`errors.<class>` of load's --json); for the harness
    /// client, its error's kind (`a|b`: either, where a race decides which comes first).
    class: Option<&'static str>,
    /// Wall-clock limit; the run is killed (and the case fails) beyond it.
    within: Duration,
}

/// One hostile behaviour and what each client must make of it.
struct Case {
    name: &'static str,
    /// Serves one accepted connection, hostilely; returns when the client goes away.
    server: fn(TcpStream),
    /// `restbench load` flags (the URL and `--json` are added).
    load_args: &'static [&'static str],
    load: Expect,
    /// The harness's client (`restbench_verify::http`: readiness probe, verifier, `serve`)
    /// against the same server; `class` is the client error's kind. `None`: not applicable.
    harness: Option<Expect>,
}

const fn expect(exit: i32, class: Option<&'static str>, secs: u64) -> Expect {
    Expect {
        exit,
        class,
        within: Duration::from_secs(secs),
    }
}

const CASES: &[Case] = &[
    Case {
        name: "silent server, counted run: the give-up guard fires (reconnects are no progress)",
        server: silent,
        load_args: &["-n", "100000", "-c", "2", "-t", "1", "--timeout", "200ms"],
        load: expect(3, Some("timeout"), 45),
        harness: Some(expect(1, Some("timeout"), 10)),
    },
    Case {
        name: "silent server, timed run: nothing answered is not a success",
        server: silent,
        load_args: &["-d", "1", "-c", "2", "-t", "1"],
        load: expect(3, None, 20),
        harness: Some(expect(1, Some("timeout"), 10)),
    },
    Case {
        name: "answers before it is asked: the unsolicited response is counted",
        server: answers_before_asked,
        load_args: &["-n", "20", "-c", "1", "-t", "1"],
        load: expect(3, Some("protocol"), 20),
        harness: Some(expect(0, None, 10)),
    },
    Case {
        name: "chunk size ffffffffffffffff",
        server: huge_chunk_size,
        load_args: &["-n", "5", "-c", "1", "-t", "1"],
        load: expect(3, Some("parse"), 20),
        harness: Some(expect(1, Some("body-too-large"), 10)),
    },
    Case {
        name: "Content-Length of 20 digits",
        server: huge_content_length,
        load_args: &["-n", "5", "-c", "1", "-t", "1"],
        load: expect(3, Some("parse"), 20),
        harness: Some(expect(1, Some("body-too-large"), 10)),
    },
    Case {
        name: "garbage status line",
        server: garbage_status_line,
        load_args: &["-n", "5", "-c", "1", "-t", "1"],
        load: expect(3, Some("parse"), 20),
        harness: Some(expect(1, Some("malformed"), 10)),
    },
    Case {
        name: "endless head",
        server: endless_head,
        load_args: &["-n", "3", "-c", "1", "-t", "1"],
        load: expect(3, Some("parse"), 20),
        harness: Some(expect(1, Some("head-too-large"), 10)),
    },
    Case {
        name: "endless body with a Content-Length",
        server: endless_body,
        load_args: &["-d", "1", "-c", "1", "-t", "1", "--timeout", "300ms"],
        load: expect(3, Some("timeout"), 20),
        harness: Some(expect(1, Some("body-too-large"), 10)),
    },
    Case {
        name: "endless chunked body",
        server: endless_chunks,
        load_args: &["-d", "1", "-c", "1", "-t", "1", "--timeout", "300ms"],
        load: expect(3, Some("timeout"), 20),
        harness: Some(expect(1, Some("body-too-large"), 10)),
    },
    Case {
        name: "endless body until close",
        server: endless_until_close,
        load_args: &["-d", "1", "-c", "1", "-t", "1", "--timeout", "300ms"],
        load: expect(3, Some("timeout"), 20),
        harness: Some(expect(1, Some("body-too-large"), 10)),
    },
    Case {
        name: "closes every connection at once",
        server: drop,
        load_args: &["-n", "5", "-c", "1", "-t", "1"],
        load: expect(3, None, 20),
        harness: Some(expect(1, Some("closed|io"), 10)),
    },
];

/// Every row against `restbench load`, in parallel; all failures are reported together.
#[test]
fn hostile_servers_against_load() {
    let _turn = turn::take(module_path!());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = CASES
            .iter()
            .map(|case| scope.spawn(move || check_load(case).err()))
            .collect();
        runs.into_iter()
            .filter_map(|h| h.join().unwrap_or_else(|_| Some("panicked".into())))
            .collect()
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Every row against the harness's HTTP client, in parallel; all failures reported together.
#[test]
fn hostile_servers_against_the_harness_client() {
    let _turn = turn::take(module_path!());
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = CASES
            .iter()
            .filter(|case| case.harness.is_some())
            .map(|case| scope.spawn(move || check_harness(case).err()))
            .collect();
        runs.into_iter()
            .filter_map(|h| h.join().unwrap_or_else(|_| Some("panicked".into())))
            .collect()
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The harness client in a thread of its own, so that a hang is a failure, not a stuck test.
/// Its memory bounds are asserted in `restbench_verify::http`'s own tests (the bytes it reads).
fn check_harness(case: &Case) -> Result<(), String> {
    let Some(expect) = case.harness else {
        return Ok(());
    };
    let server = TinyServer::serving(case.server);
    let addr = server.addr();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| {
            restbench_verify::http::get(addr, "/", Duration::from_secs(1))
                .map(|r| r.status)
                .map_err(|e| e.kind())
        });
        let _ = tx.send(outcome);
    });
    let fail = |why: String| Err(format!("{} (harness client): {why}", case.name));
    let outcome = match rx.recv_timeout(expect.within) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(_)) => return fail("panicked".into()),
        Err(_) => return fail(format!("not done within {:?}", expect.within)),
    };
    match (outcome, expect.exit, expect.class) {
        (Ok(_), 0, None) => Ok(()),
        (Err(kind), 1, Some(class)) if class.split('|').any(|c| c == kind) => Ok(()),
        (got, _, _) => fail(format!(
            "got {got:?}, expected {}",
            expect.class.unwrap_or("an answer")
        )),
    }
}

fn check_load(case: &Case) -> Result<(), String> {
    let server = TinyServer::serving(case.server);
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("result.json");
    let mut args: Vec<String> = vec!["load".into()];
    args.extend(case.load_args.iter().map(|a| a.to_string()));
    args.extend([
        "--json".into(),
        json_path.display().to_string(),
        server.url("/"),
    ]);
    let ran = run_measured(&args, case.load.within, None);
    let fail = |why: String| Err(format!("{}: {why}\n{ran}", case.name));
    if ran.timed_out {
        return fail(format!("not done within {:?}", case.load.within));
    }
    if ran.stderr.contains("panicked") {
        return fail("panicked".into());
    }
    if ran.code != Some(case.load.exit) {
        return fail(format!("exit {:?}, expected {}", ran.code, case.load.exit));
    }
    if ran.peak_rss_mib() > LOAD_RSS_CAP_MIB {
        return fail(format!(
            "peak RSS {} MiB above {LOAD_RSS_CAP_MIB} MiB",
            ran.peak_rss_mib()
        ));
    }
    let doc: Value = match std::fs::read(&json_path) {
        Ok(b) => serde_json::from_slice(&b).map_err(|e| format!("{}: --json: {e}", case.name))?,
        Err(e) => return fail(format!("no --json document: {e}")),
    };
    if let Some(class) = case.load.class
        && doc["errors"][class].as_u64().unwrap_or(0) == 0
    {
        return fail(format!("no {class} error counted: {}", doc["errors"]));
    }
    Ok(())
}

// The hostile servers. Each returns when the client goes away (a read sees EOF or a write fails).

const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

/// Accepts and reads, never answers.
fn silent(mut s: TcpStream) {
    let mut buf = [0u8; 4096];
    while matches!(s.read(&mut buf), Ok(n) if n > 0) {}
}

/// Two answers before any request (in one write, so they arrive together), then one per request.
fn answers_before_asked(mut s: TcpStream) {
    if s.write_all(&[OK, OK].concat()).is_ok() {
        answer_each(s, OK);
    }
}

fn huge_chunk_size(s: TcpStream) {
    answer_each(
        s,
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nabc",
    );
}

fn huge_content_length(s: TcpStream) {
    answer_each(
        s,
        b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nabc",
    );
}

fn garbage_status_line(s: TcpStream) {
    answer_each(s, b"SSH-2.0-OpenSSH_9.6 \x00\xff\r\n\r\n");
}

fn endless_head(mut s: TcpStream) {
    if read_request(&mut s) && s.write_all(b"HTTP/1.1 200 OK\r\n").is_ok() {
        endless(
            s,
            b"X-Padding: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n",
        );
    }
}

fn endless_body(mut s: TcpStream) {
    if read_request(&mut s)
        && s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 999999999999999999\r\n\r\n")
            .is_ok()
    {
        endless(s, &[b'z'; 16 * 1024]);
    }
}

fn endless_chunks(mut s: TcpStream) {
    if read_request(&mut s)
        && s.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            .is_ok()
    {
        let mut chunk = b"4000\r\n".to_vec();
        chunk.extend_from_slice(&[b'z'; 0x4000]);
        chunk.extend_from_slice(b"\r\n");
        endless(s, &chunk);
    }
}

fn endless_until_close(mut s: TcpStream) {
    if read_request(&mut s)
        && s.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            .is_ok()
    {
        endless(s, &[b'z'; 16 * 1024]);
    }
}

/// Writes `bytes` again and again until the client goes away.
fn endless(mut s: TcpStream, bytes: &[u8]) {
    while s.write_all(bytes).is_ok() {}
}

/// Answers every request with `bytes`.
fn answer_each(mut s: TcpStream, bytes: &[u8]) {
    while read_request(&mut s) {
        if s.write_all(bytes).is_err() {
            return;
        }
    }
}

/// Reads one request head (the requests here have no body); false when the client went away.
fn read_request(s: &mut TcpStream) -> bool {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    true
}

// ---------------------------------------------------------------------------------------------
// Files, flags and pipes.
// ---------------------------------------------------------------------------------------------

/// A listener nobody accepts from: after a run, an empty backlog proves no connection was tried.
struct Untouched(TcpListener);

impl Untouched {
    fn new() -> Self {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        Self(l)
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.0.local_addr().unwrap())
    }

    fn assert_untouched(&self, what: &str) {
        assert!(
            self.0.accept().is_err(),
            "{what}: a connection reached the server, so the load started"
        );
    }
}

/// A well-behaved server (restbench's own trivial one), stopped on drop.
struct Good {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Good {
    fn start() -> Self {
        let server =
            restbench_loadgen::trivial_server::TrivialServer::bind("127.0.0.1:0".parse().unwrap())
                .unwrap();
        let addr = server.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let _ = server.serve(&flag);
        });
        Self {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

impl Drop for Good {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

#[test]
fn json_write_errors_are_reported_not_swallowed() {
    let _turn = turn::take(module_path!());
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    let good = Good::start();
    let ran = run_measured(
        &strings(&[
            "load",
            "-n",
            "10",
            "-c",
            "1",
            "--json",
            "/dev/full",
            &good.url(),
        ]),
        Duration::from_secs(30),
        None,
    );
    assert_eq!(ran.code, Some(1), "{ran}");
    let last = ran.stderr.trim().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: cannot write the result to /dev/full"),
        "{ran}"
    );
}

#[test]
fn json_path_is_checked_before_the_load() {
    let _turn = turn::take(module_path!());
    let server = Untouched::new();
    let ran = run_measured(
        &strings(&[
            "load",
            "-d",
            "5",
            "--json",
            "/nonexistent/dir/x.json",
            &server.url("/"),
        ]),
        Duration::from_secs(30),
        None,
    );
    assert_eq!(ran.code, Some(1), "{ran}");
    assert_eq!(ran.stderr.trim().lines().count(), 1, "{ran}");
    assert!(ran.stderr.contains("/nonexistent/dir/x.json"), "{ran}");
    server.assert_untouched("--json into a missing folder");
}

#[test]
fn a_failed_run_keeps_the_previous_json_and_leaves_no_new_file() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.json");
    std::fs::write(&old, "previous").unwrap();
    let new = dir.path().join("new.json");
    let closed = format!("127.0.0.1:{}", closed_port());
    for path in [&old, &new] {
        let o = restbench()
            .args(["load", "-d", "1", "--json"])
            .arg(path)
            .arg(format!("http://{closed}/"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
    }
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "previous");
    assert!(!new.exists(), "an empty result file was left behind");
}

/// Out-of-range and malformed values: exit 2 with one line, before any connection, without a
/// panic or an allocation the size of the value.
#[test]
fn refused_flags_exit_2_before_any_load() {
    let _turn = turn::take(module_path!());
    let server = Untouched::new();
    let url = server.url("/");
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.bin");
    std::fs::write(&body, vec![b'x'; 200_000]).unwrap();
    let body = format!("@{}", body.display());
    let cases: Vec<Vec<String>> = [
        &["-c", "0"][..],
        &["-c", "4294967295", "-t", "1"],
        &["-c", "65536"],
        &["-t", "0"],
        &["-t", "4294967295"],
        &["--pipeline", "0"],
        &["--pipeline", "4294967295"],
        &["--pipeline", "1024", "-b", &body], // 200 MB to send at once
        &["-d", "0"],
        &["-d", "1e20"],
        &["-d", "30d"],
        &["--timeout", "1e19"],
        &["--timeout", "2h"],
        &["--warmup", "1e19"],
        &["-n", "0"],
        &["-R", "1e-30"],
        &["-R", "1e-17", "-c", "200"],
        &["-R", "0"],
        &["-R", "inf"],
        &["-R", "1e300"],
        &["-m", "GE T"],
        &["-H", "X-Bad\r\nInjected: 1"],
    ]
    .iter()
    .map(|flags| {
        let mut a = strings(&["load"]);
        a.extend(strings(flags));
        a.push(url.clone());
        a
    })
    .chain(
        ["/a b", "/x\r\nX-Injected: 1", "/\t", "/\u{7f}", "/a\nb"]
            .iter()
            .map(|path| strings(&["load", "-d", "1", &server.url(path)])),
    )
    .collect();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = cases
            .iter()
            .map(|args| {
                scope.spawn(move || {
                    let ran = run_measured(args, Duration::from_secs(30), None);
                    let shown: Vec<String> =
                        args.iter().map(|a| a.chars().take(40).collect()).collect();
                    let ok = ran.code == Some(2)
                        && ran.error_lines() == 1
                        && !ran.stderr.contains("panicked")
                        && ran.peak_rss_mib() < LOAD_RSS_CAP_MIB;
                    (!ok).then(|| format!("{shown:?}\n{ran}"))
                })
            })
            .collect();
        runs.into_iter().filter_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    server.assert_untouched("refused flags");
}

#[test]
fn connections_beyond_the_open_file_limit_are_refused_up_front() {
    let _turn = turn::take(module_path!());
    let server = Untouched::new();
    let ran = run_measured(
        &strings(&["load", "-c", "1000", "-d", "1", &server.url("/")]),
        Duration::from_secs(30),
        Some((256, 256)),
    );
    assert_eq!(ran.code, Some(2), "{ran}");
    assert_eq!(ran.stderr.trim().lines().count(), 1, "{ran}");
    assert!(ran.stderr.contains("open files"), "{ran}");
    server.assert_untouched("-c above the open-file limit");
}

#[test]
fn the_soft_open_file_limit_is_raised_to_the_hard_one() {
    let _turn = turn::take(module_path!());
    let good = Good::start();
    let ran = run_measured(
        &strings(&["load", "-c", "200", "-t", "1", "-n", "400", &good.url()]),
        Duration::from_secs(60),
        Some((64, 1024)),
    );
    assert_eq!(ran.code, Some(0), "{ran}");
}

#[test]
fn an_endless_body_file_is_refused_with_bounded_memory() {
    let _turn = turn::take(module_path!());
    let server = Untouched::new();
    if Path::new("/dev/zero").exists() {
        let ran = run_measured(
            &strings(&["load", "-b", "@/dev/zero", &server.url("/")]),
            Duration::from_secs(60),
            None,
        );
        assert_eq!(ran.code, Some(2), "{ran}");
        assert!(ran.stderr.contains("64 MiB"), "{ran}");
        // 64 MiB read, then refused.
        assert!(ran.peak_rss_mib() < 64 + 48, "{ran}");
    }
    // A regular file over the cap is refused from its size, without being read.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(65 * 1024 * 1024)
        .unwrap();
    let ran = run_measured(
        &strings(&[
            "load",
            "-b",
            &format!("@{}", big.display()),
            &server.url("/"),
        ]),
        Duration::from_secs(30),
        None,
    );
    assert_eq!(ran.code, Some(2), "{ran}");
    assert!(ran.stderr.contains("64 MiB"), "{ran}");
    assert!(ran.peak_rss_mib() < 32, "{ran}");
    server.assert_untouched("an oversized body");
}

/// Endless files (`/dev/zero`) given wherever restbench reads a file whole (issue 26 item 8):
/// each is refused at its stated limit in one line naming the file, with bounded memory.
/// (`-b @/dev/zero` is the test above.)
const ENDLESS_FILES: &[(&[&str], &str)] = &[
    (&["merge", "/dev/zero", "/dev/zero"], "larger than 128 MiB"),
    (&["report", "/dev/zero"], "larger than 128 MiB"),
    (
        &["compare", "/dev/zero", "/dev/zero"],
        "larger than 128 MiB",
    ),
    (
        &[
            "load",
            "--loadgen-hosts",
            "@/dev/zero",
            "http://127.0.0.1:9/",
        ],
        "larger than 1 MiB",
    ),
    (
        &["load", "--cacert", "/dev/zero", "https://127.0.0.1:9/"],
        "larger than 16 MiB",
    ),
];

#[test]
fn endless_files_are_refused_at_their_limit_with_bounded_memory() {
    let _turn = turn::take(module_path!());
    if !Path::new("/dev/zero").exists() {
        eprintln!("skipped: no /dev/zero");
        return;
    }
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = ENDLESS_FILES
            .iter()
            .map(|(args, needle)| {
                scope.spawn(move || {
                    let ran = run_measured(&strings(args), Duration::from_secs(60), None);
                    let ok = matches!(ran.code, Some(1 | 2))
                        && ran.error_lines() == 1
                        && ran.stderr.contains("/dev/zero")
                        && ran.stderr.contains(needle)
                        && ran.peak_rss_mib() < 128 + 64;
                    (!ok).then(|| format!("{args:?} (expected {needle:?})\n{ran}"))
                })
            })
            .collect();
        runs.into_iter().filter_map(|h| h.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Runs `restbench args` with stdout going into a pipe whose reader is already gone.
fn with_closed_stdout(args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = restbench()
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let _turn = turn::take(module_path!());
    let good = Good::start();
    let url = good.url();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results.json");
    std::fs::write(
        &results,
        serde_json::to_vec(&run_results(Vec::new())).unwrap(),
    )
    .unwrap();
    let results = results.display().to_string();
    let dir_arg = dir.path().display().to_string();
    let mut failures = Vec::new();
    for args in [
        vec!["load", "-n", "20", "-c", "1", url.as_str()],
        vec!["load", "-n", "20", "-c", "1", "--json", "-", url.as_str()],
        vec!["subjects", "--json"],
        vec!["subjects"],
        vec!["report", dir_arg.as_str()],
        vec!["compare", results.as_str(), results.as_str()],
        vec!["compare", "--json", results.as_str(), results.as_str()],
    ] {
        let o = with_closed_stdout(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        if o.status.code() != Some(0) || err.contains("error") || err.contains("panicked") {
            failures.push(format!("{args:?}: exit {:?}: {err}", o.status.code()));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Peak RSS: this test binary as a wrapper around one restbench process.
// ---------------------------------------------------------------------------------------------

const WRAP_ENV: &str = "RESTBENCH_HOSTILE_WRAP";

/// How one measured run ended.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    peak_rss_kib: u64,
    timed_out: bool,
}

impl Ran {
    fn peak_rss_mib(&self) -> u64 {
        self.peak_rss_kib.div_ceil(1024)
    }

    /// Lines of stderr that say something (clap adds a blank line and a hint to its one line).
    fn error_lines(&self) -> usize {
        self.stderr
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("For more information"))
            .count()
    }
}

impl std::fmt::Display for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tail = |s: &str| {
            s.chars()
                .rev()
                .take(1500)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<String>()
        };
        write!(
            f,
            "  exit {:?}, peak RSS {} MiB, timed out {}\n  stderr: {}\n  stdout: {}",
            self.code,
            self.peak_rss_mib(),
            self.timed_out,
            tail(&self.stderr),
            tail(&self.stdout)
        )
    }
}

/// Runs `restbench args` (from the checkout) through [`wrapped_child`], killing it after `limit`,
/// optionally with `RLIMIT_NOFILE` set to `(soft, hard)`.
fn run_measured(args: &[String], limit: Duration, nofile: Option<(u64, u64)>) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name);
    let plan = json!({
        "args": args,
        "stdout": file("stdout"),
        "stderr": file("stderr"),
        "report": file("report.json"),
        "limit_ms": limit.as_millis() as u64,
        "nofile": nofile.map(|(s, h)| [s, h]),
    });
    let o = Command::new(std::env::current_exe().unwrap())
        .args([
            "hostile::wrapped_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRAP_ENV, plan.to_string())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let read =
        |p: PathBuf| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let report: Value = serde_json::from_str(&read(file("report.json"))).unwrap_or_else(|e| {
        panic!(
            "the wrapper wrote no report ({e}): {}",
            String::from_utf8_lossy(&o.stderr)
        )
    });
    Ran {
        code: report["code"].as_i64().map(|c| c as i32),
        stdout: read(file("stdout")),
        stderr: read(file("stderr")),
        peak_rss_kib: report["peak_rss_kib"].as_u64().unwrap_or(u64::MAX),
        timed_out: report["timed_out"].as_bool().unwrap_or(true),
    }
}

/// Not a test of its own: when [`WRAP_ENV`] is set, this process is the wrapper of one
/// `restbench` run (see [`run_measured`]); otherwise it does nothing.
#[test]
fn wrapped_child() {
    let Ok(plan) = std::env::var(WRAP_ENV) else {
        return;
    };
    let plan: Value = serde_json::from_str(&plan).unwrap();
    let path = |key: &str| PathBuf::from(plan[key].as_str().unwrap());
    if let Some([soft, hard]) = plan["nofile"]
        .as_array()
        .map(|a| [a[0].as_u64().unwrap(), a[1].as_u64().unwrap()])
    {
        nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, soft, hard)
            .unwrap();
    }
    let args: Vec<String> = serde_json::from_value(plan["args"].clone()).unwrap();
    let mut child = restbench()
        .args(&args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(path("stdout")).unwrap())
        .stderr(std::fs::File::create(path("stderr")).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_millis(plan["limit_ms"].as_u64().unwrap());
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    let report = json!({
        "code": status.code(),
        "peak_rss_kib": usage.max_rss(),
        "timed_out": timed_out,
    });
    std::fs::write(path("report"), report.to_string()).unwrap();
    std::process::exit(0);
}
