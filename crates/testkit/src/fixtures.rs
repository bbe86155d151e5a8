//! Result documents as `run` writes them, built in one place so that a new field of the model is
//! filled once for every test.

use restbench_model::{
    Cell, CellSubject, RpsStats, RunResults, SCHEMA_VERSION, Scenario, Workload,
};

/// A finished run of `cells`, started 2026-01-01T00:00:00Z and finished a minute later.
pub fn run_results(cells: Vec<Cell>) -> RunResults {
    RunResults {
        schema_version: SCHEMA_VERSION,
        kind: "run".into(),
        started_at: "2026-01-01T00:00:00Z".into(),
        finished_at: Some("2026-01-01T00:01:00Z".into()),
        interrupted: false,
        environment: Default::default(),
        protocol: Default::default(),
        cells,
        study: None,
        noisy_machine: None,
        conformance: Vec::new(),
        groups: Vec::new(),
    }
}

/// An ok plaintext single-thread cell of the Rust subject `subject` (its framework named after
/// it, version 1) that served 1000 requests at `rps`, the same in every repeat.
pub fn cell(subject: &str, rps: f64) -> Cell {
    let who = CellSubject {
        id: subject.into(),
        language: "rust".into(),
        framework: subject.into(),
        framework_version: "1".into(),
    };
    let mut c = Cell::new(&who, Workload::Plaintext, Scenario::SingleThread);
    c.rps = RpsStats {
        median: rps,
        min: rps,
        max: rps,
        cv: 0.0,
        ci95: None,
    };
    c.requests = 1_000;
    c
}

/// A plaintext server in Python's standard library, for tests that need a real server process
/// (`python3 hello.py PORT`): `GET /api/test` → `Hello, World!` as text/plain, 404 elsewhere,
/// one write per answer.
pub const PYTHON_PLAINTEXT_SERVER: &str = r#"
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Hello(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One write per answer, sent at once (else Nagle and delayed ACKs add 40 ms to each).
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def do_GET(self):
        if self.path == "/api/test":
            status, body = 200, b"Hello, World!"
        else:
            status, body = 404, b"not found"
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Hello).serve_forever()
"#;
