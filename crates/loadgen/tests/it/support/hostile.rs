//! The hostile-server tables' runner: one row per hostile behaviour with its expected verdict,
//! each row served by a [`TinyServer`] made in the test and loaded through the engine in a
//! thread of its own, so that a load that never returns fails its row instead of hanging the
//! test. No row asserts on time: the watchdog only tells "returned" from "never returned".

use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restbench_loadgen::{LoadOutcome, LoadSpec, Progress, Target};
use restbench_model::ErrorCounts;
use restbench_testkit::TinyServer;

/// How long a row may take before it counts as "never returned": generous, as the loads asked
/// for are one or two seconds.
const NEVER_RETURNED: Duration = Duration::from_secs(60);

/// What the engine must make of a hostile server.
#[derive(Debug, Clone, Copy)]
pub struct Verdict {
    /// The error class (`ErrorCounts` field) that must be counted.
    pub class: &'static str,
    /// At most this many connections opened (a server that refuses every one is backed off).
    pub max_connections: Option<u64>,
    /// At most this many bytes in an HTTP/2 connection's write queue.
    pub max_write_queue: Option<usize>,
}

/// One hostile behaviour: the server, the load against it, and the verdict.
pub struct Case {
    pub name: &'static str,
    /// Serves one accepted connection, hostilely; returns when the client goes away.
    pub server: fn(TcpStream),
    /// The load, given the server's URL.
    pub spec: fn(&str) -> LoadSpec,
    pub expect: Verdict,
}

/// Runs every row side by side; all failures are reported together.
pub fn check_all(cases: &[Case]) {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = cases
            .iter()
            .map(|case| scope.spawn(move || check(case).err()))
            .collect();
        runs.into_iter()
            .filter_map(|h| h.join().unwrap_or_else(|_| Some("panicked".into())))
            .collect()
    });
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

fn check(case: &Case) -> Result<(), String> {
    let server = TinyServer::serving(case.server);
    let spec = (case.spec)(&server.url("/"));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let flag = stop.clone();
    std::thread::spawn(move || {
        let _ = tx.send(restbench_loadgen::run(
            &spec,
            &flag,
            Arc::new(Progress::default()),
        ));
    });
    let fail = |why: String| Err(format!("{}: {why}", case.name));
    let outcome: LoadOutcome = match rx.recv_timeout(NEVER_RETURNED) {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(e)) => return fail(format!("the load failed: {e}")),
        Err(_) => {
            stop.store(true, Ordering::SeqCst);
            return fail(format!("the load never returned ({NEVER_RETURNED:?})"));
        }
    };
    let e = &outcome.errors;
    if count(e, case.expect.class) == 0 {
        return fail(format!("no {} error counted: {e:?}", case.expect.class));
    }
    if let Some(max) = case.expect.max_connections
        && outcome.connections_opened > max
    {
        return fail(format!(
            "{} connections opened, more than {max}",
            outcome.connections_opened
        ));
    }
    if let Some(max) = case.expect.max_write_queue
        && outcome.peak_write_queue > max
    {
        return fail(format!(
            "the write queue held {} bytes, more than {max}",
            outcome.peak_write_queue
        ));
    }
    Ok(())
}

fn count(e: &ErrorCounts, class: &str) -> u64 {
    match class {
        "connect" => e.connect,
        "read" => e.read,
        "write" => e.write,
        "timeout" => e.timeout,
        "parse" => e.parse,
        "protocol" => e.protocol,
        "reset" => e.reset,
        other => panic!("no error class {other}"),
    }
}

/// One thread, `connections` connections, `secs` seconds, a `timeout_ms` per request.
pub fn short_load(url: &str, connections: u32, secs: u64, timeout_ms: u64) -> LoadSpec {
    let mut s = LoadSpec::get(Target::parse(url).expect("a test URL"));
    s.threads = 1;
    s.connections = connections;
    s.stop = restbench_loadgen::StopAt::Duration(Duration::from_secs(secs));
    s.timeout = Duration::from_millis(timeout_ms);
    s
}
