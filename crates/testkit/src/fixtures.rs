//! Result documents as `run` writes them, built in one place so that a new field of the model is
//! filled once for every test.

use restbench_model::{Cell, CellSubject, Document, RpsStats, RunResults, Scenario, Workload};

/// A finished run of `cells`, started 2026-01-01T00:00:00Z and finished a minute later.
pub fn run_results(cells: Vec<Cell>) -> RunResults {
    RunResults {
        schema_version: RunResults::SCHEMA_VERSION,
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
        unserved: Vec::new(),
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

/// A poll(2) HTTP/1.1 plaintext server in C for tests that need a native server process with
/// known work per request (`PORT` from the environment): `GET /api/test` → `Hello, World!`,
/// 404 elsewhere. `prelude` goes before `main` (functions), `per_request` runs before each
/// answer.
pub fn c_plaintext_server(prelude: &str, per_request: &str) -> String {
    format!(
        r#"
#include <arpa/inet.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char answer[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!";
static const char missing[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
{prelude}
int main(void) {{
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {{.sin_family = AF_INET, .sin_port = htons(atoi(getenv("PORT")))}};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 128)) return 1;
    struct pollfd fds[256] = {{{{.fd = s, .events = POLLIN}}}};
    int n = 1;
    char buf[8192];
    for (;;) {{
        poll(fds, n, -1);
        if ((fds[0].revents & POLLIN) && n < 256) {{
            fds[n].fd = accept(s, 0, 0);
            fds[n++].events = POLLIN;
        }}
        for (int i = 1; i < n; i++) {{
            if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
            ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got <= 0) {{ close(fds[i].fd); fds[i--] = fds[--n]; continue; }}
            if (strncmp(buf, "GET /api/test ", 14) != 0) {{
                write(fds[i].fd, missing, sizeof missing - 1);
                continue;
            }}
            {per_request}
            write(fds[i].fd, answer, sizeof answer - 1);
        }}
    }}
}}
"#
    )
}
