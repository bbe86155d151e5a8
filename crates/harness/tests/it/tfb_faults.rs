//! TechEmpower's test types against a small real server of this test's own (a Rust server over
//! the `postgres` driver and a real cluster), right and with one fault at a time: the right one
//! passes every type, and each fault (unescaped fortunes, unsorted fortunes, no added row,
//! `IN (...)` batching, a frozen Date, updates not persisted, a clamp ignored) fails with its
//! reason. Then the Rust, the Go and the Python subjects, built as `restbench verify` builds
//! them, pass every type.
//!
//! These need the PostgreSQL server binaries, so they are `#[ignore]`d with the reason; each
//! test has its own cluster and port, and every wait is bounded.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use restbench_db::{Cluster, Database};
use restbench_harness::serve::{StartOptions, start_subject};
use restbench_host::cgroup::Backend;
use restbench_host::placement::{Placement, available_cpus};
use restbench_model::Scenario;
use restbench_model::vocabulary::time::format_epoch;
use restbench_model::{Finding, Workload};
use restbench_subject::{Subject, prepare};
use restbench_testkit::{TinyServer, turn};
use restbench_verify as verify;

use crate::support::{failed_checks, passed_checks, subjects_root};

/// TechEmpower's six types, as restbench names them.
const TFB: [Workload; 6] = [
    Workload::Json,
    Workload::Db,
    Workload::Queries,
    Workload::Fortunes,
    Workload::Updates,
    Workload::CachedQueries,
];

/// HttpArena's profiles as restbench serves them: every subject serves each or says why not.
const HTTPARENA: [Workload; 5] = [
    Workload::Delay,
    Workload::Static,
    Workload::JsonGzip,
    Workload::Upload,
    Workload::Download,
];

/// What the server gets wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    UnescapedFortunes,
    UnsortedFortunes,
    NoAddedRow,
    InBatching,
    FrozenDate,
    UpdatesNotPersisted,
    ClampIgnored,
}

/// An HTTP date for `epoch` (1970-01-01 was a Thursday).
fn http_date(epoch: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let stamp = format_epoch(epoch); // YYYY-MM-DD HH:MM:SS
    let month: usize = stamp[5..7].parse().unwrap();
    format!(
        "{}, {} {} {} {} GMT",
        DAYS[(epoch.div_euclid(86_400) % 7) as usize],
        &stamp[8..10],
        MONTHS[month - 1],
        &stamp[0..4],
        &stamp[11..]
    )
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// The server's state: one connection, a random generator, the cache and the frozen date.
struct Server {
    fault: Fault,
    client: Mutex<postgres::Client>,
    random: AtomicU64,
    cache: HashMap<i32, i32>,
    started: String,
}

impl Server {
    fn random(&self) -> i32 {
        let mut x = self
            .random
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((x ^ (x >> 31)) % 10_000) as i32 + 1
    }

    fn count(&self, query: &str, name: &str) -> usize {
        let value = query
            .split('&')
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(1);
        if self.fault == Fault::ClampIgnored {
            value.max(0) as usize
        } else {
            value.clamp(1, 500) as usize
        }
    }

    fn worlds(&self, n: usize) -> Vec<(i32, i32)> {
        let ids: Vec<i32> = (0..n).map(|_| self.random()).collect();
        let mut c = self.client.lock().unwrap();
        if self.fault == Fault::InBatching {
            let rows = c
                .query(
                    "SELECT id, randomNumber FROM World WHERE id = ANY($1)",
                    &[&ids],
                )
                .unwrap();
            let found: HashMap<i32, i32> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
            return ids.iter().map(|id| (*id, found[id])).collect();
        }
        let select = c
            .prepare("SELECT id, randomNumber FROM World WHERE id = $1")
            .unwrap();
        ids.iter()
            .map(|id| {
                let r = c.query_one(&select, &[id]).unwrap();
                (r.get(0), r.get(1))
            })
            .collect()
    }

    fn fortunes(&self) -> String {
        let rows = self
            .client
            .lock()
            .unwrap()
            .query("SELECT id, message FROM Fortune", &[])
            .unwrap();
        let mut fortunes: Vec<(i32, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        if self.fault != Fault::NoAddedRow {
            fortunes.push((0, "Additional fortune added at request time.".into()));
        }
        if self.fault == Fault::UnsortedFortunes {
            fortunes.sort();
        } else {
            fortunes.sort_by(|a, b| a.1.cmp(&b.1));
        }
        let mut page = String::from(
            "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>",
        );
        for (id, message) in fortunes {
            let message = if self.fault == Fault::UnescapedFortunes {
                message
            } else {
                message
                    .replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;")
                    .replace('"', "&quot;")
                    .replace('\'', "&#39;")
            };
            page.push_str(&format!("<tr><td>{id}</td><td>{message}</td></tr>"));
        }
        page + "</table></body></html>"
    }

    fn json_rows(rows: &[(i32, i32)]) -> String {
        let items: Vec<String> = rows
            .iter()
            .map(|(id, n)| format!("{{\"id\":{id},\"randomNumber\":{n}}}"))
            .collect();
        format!("[{}]", items.join(","))
    }

    /// The answer to `target`: status, content type and body.
    fn answer(&self, target: &str) -> (&'static str, &'static str, String) {
        const JSON: &str = "application/json";
        let (route, query) = target.split_once('?').unwrap_or((target, ""));
        match route {
            "/json" => ("200 OK", JSON, r#"{"message":"Hello, World!"}"#.into()),
            "/db" => {
                let (id, n) = self.worlds(1)[0];
                (
                    "200 OK",
                    JSON,
                    format!("{{\"id\":{id},\"randomNumber\":{n}}}"),
                )
            }
            "/queries" => (
                "200 OK",
                JSON,
                Self::json_rows(&self.worlds(self.count(query, "queries"))),
            ),
            "/updates" => {
                let mut rows = self.worlds(self.count(query, "queries"));
                for row in &mut rows {
                    row.1 = self.random();
                }
                if self.fault != Fault::UpdatesNotPersisted {
                    let mut c = self.client.lock().unwrap();
                    for (id, n) in &rows {
                        c.execute("UPDATE World SET randomNumber = $1 WHERE id = $2", &[n, id])
                            .unwrap();
                    }
                }
                ("200 OK", JSON, Self::json_rows(&rows))
            }
            "/cached-queries" => {
                let rows: Vec<(i32, i32)> = (0..self.count(query, "count"))
                    .map(|_| {
                        let id = self.random();
                        (id, self.cache[&id])
                    })
                    .collect();
                ("200 OK", JSON, Self::json_rows(&rows))
            }
            "/fortunes" => ("200 OK", "text/html; charset=utf-8", self.fortunes()),
            _ => ("404 Not Found", "text/plain", "not found".into()),
        }
    }
}

fn start_server(url: &str, fault: Fault) -> TinyServer {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let cache = client
        .query("SELECT id, randomNumber FROM CachedWorld", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let server = Server {
        fault,
        client: Mutex::new(client),
        random: AtomicU64::new(now() as u64),
        cache,
        started: http_date(now()),
    };
    TinyServer::serving(move |mut stream| {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            match stream.read(&mut byte) {
                Ok(1) => head.push(byte[0]),
                _ => return,
            }
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        let target = head.split(' ').nth(1).unwrap_or("/").to_string();
        let (status, content_type, body) = server.answer(&target);
        let date = if fault == Fault::FrozenDate {
            server.started.clone()
        } else {
            http_date(now())
        };
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\nServer: tfb-test\r\nDate: {date}\r\nContent-Type: {content_type}\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    })
}

fn check(addr: SocketAddr, w: Workload, db: &Database) -> Vec<Finding> {
    verify::workload(addr, w, Some(db))
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_server_that_follows_techempowers_rules_passes_every_type() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(None, logs.path()).unwrap();
    let db = Database::connect(&cluster.url).unwrap();
    let server = start_server(&cluster.url, Fault::None);
    for w in TFB {
        let f = check(server.addr(), w, &db);
        assert!(verify::passed(&f), "{w}: {:?}", failed_checks(&f));
        let passed = passed_checks(&f);
        for rule in ["server:", "date:", "date-changes:", "content-type:"] {
            assert!(
                passed.iter().any(|p| p.starts_with(rule)),
                "{w}: {rule} {passed:?}"
            );
        }
        if w != Workload::Json && w != Workload::CachedQueries {
            assert!(
                passed
                    .iter()
                    .any(|p| p.starts_with("queries:") && p.contains("pg_stat_statements")),
                "{w}: counted on the database side: {passed:?}"
            );
        }
    }
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn each_fault_fails_with_its_reason() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(None, logs.path()).unwrap();
    let db = Database::connect(&cluster.url).unwrap();
    let cases: [(Fault, Workload, &str, &str); 8] = [
        (
            Fault::UnescapedFortunes,
            Workload::Fortunes,
            "escape:",
            "not HTML-escaped",
        ),
        (
            Fault::UnsortedFortunes,
            Workload::Fortunes,
            "sort:",
            "not sorted by message",
        ),
        (
            Fault::NoAddedRow,
            Workload::Fortunes,
            "added-row:",
            "added at request time",
        ),
        (
            Fault::InBatching,
            Workload::Queries,
            "queries:",
            "batched (IN (...), ANY)",
        ),
        (
            Fault::InBatching,
            Workload::Updates,
            "queries:",
            "reads are batched",
        ),
        (Fault::FrozenDate, Workload::Json, "date-changes:", "frozen"),
        (
            Fault::UpdatesNotPersisted,
            Workload::Updates,
            "persisted:",
            "not persisted",
        ),
        (
            Fault::ClampIgnored,
            Workload::Queries,
            "clamp:",
            "queries=501",
        ),
    ];
    for (fault, w, rule, reason) in cases {
        let server = start_server(&cluster.url, fault);
        let f = check(server.addr(), w, &db);
        let failed = failed_checks(&f);
        assert!(!verify::passed(&f), "{fault:?} on {w} passed: {f:?}");
        assert!(
            failed
                .iter()
                .any(|m| m.starts_with(rule) && m.contains(reason)),
            "{fault:?} on {w}: no {rule} …{reason}… in {failed:?}"
        );
    }
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_groups_date_checks_wait_one_gap_together_and_keep_each_servers_verdict() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(None, logs.path()).unwrap();
    let db = Database::connect(&cluster.url).unwrap();
    let good = start_server(&cluster.url, Fault::None);
    let frozen = start_server(&cluster.url, Fault::FrozenDate);
    // Every type over both servers, as the runner verifies a group: each cell's own checks
    // first (its queries counted), the Dates' second requests after all of them.
    let mut cells = Vec::new();
    for w in TFB {
        for (name, server) in [("good", &good), ("frozen", &frozen)] {
            let mut dates = verify::DateChecks::default();
            let f = verify::workload_deferring(
                server.addr(),
                w,
                restbench_model::Protocol::H1,
                Some(&db),
                &mut dates,
            );
            assert_eq!(dates.len(), 1, "{name} {w}: one Date probe");
            assert!(
                !f.iter().any(|x| x.check == "date-changes"),
                "{name} {w}: the second request waits for the group"
            );
            cells.push((name, w, f, dates));
        }
    }
    let began = std::time::Instant::now();
    for (name, w, mut f, dates) in cells {
        f.extend(dates.finish());
        let changes: Vec<_> = f.iter().filter(|x| x.check == "date-changes").collect();
        assert_eq!(changes.len(), 1, "{name} {w}: {f:?}");
        match name {
            "good" => assert!(verify::passed(&f), "{w}: {:?}", failed_checks(&f)),
            _ => assert!(
                changes[0].level == restbench_model::FindingLevel::Fail
                    && changes[0].message.contains("frozen"),
                "{w}: {changes:?}"
            ),
        }
    }
    // Twelve probes taken one after another wait about one gap in all, not twelve.
    let waited = began.elapsed();
    assert!(
        waited < verify::tfb::DATE_GAP * 3,
        "12 Date checks took {waited:?}: each waited its own gap"
    );
}

#[test]
#[ignore = "slow: builds the Rust subjects and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn the_rust_subjects_pass_techempowers_types_and_httparenas_profiles() {
    pass_techempower_and_httparena(
        module_path!(),
        &[
            "rust-hyper",
            "rust-axum",
            "rust-actix",
            "rust-iron",
            "rust-reference",
        ],
    );
}

#[test]
#[ignore = "slow: builds the Go subjects (needs go) and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn the_go_subjects_pass_techempowers_types_and_httparenas_profiles() {
    pass_techempower_and_httparena(
        module_path!(),
        &[
            "go-nethttp",
            "go-chi",
            "go-gorilla",
            "go-fasthttp",
            "go-easyjson",
            "go-nethttp-dynamic",
        ],
    );
}

#[test]
#[ignore = "slow: builds java-spring-boot (needs java and mvn) and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn java_spring_boot_passes_techempowers_types_and_httparenas_profiles() {
    pass_techempower_and_httparena(module_path!(), &["java-spring-boot"]);
}

#[test]
#[ignore = "slow: builds java-light4j (needs java and mvn) and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn java_light4j_passes_techempowers_types_and_httparenas_profiles() {
    pass_techempower_and_httparena(module_path!(), &["java-light4j"]);
}

#[test]
#[ignore = "slow: builds the Node subjects (needs node and npm) and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn the_node_subjects_pass_techempowers_types_and_httparenas_profiles() {
    pass_techempower_and_httparena(
        module_path!(),
        &[
            "node-http",
            "node-express",
            "node-fastify",
            "node-koa",
            "node-hapi",
            "node-pm2",
        ],
    );
}

#[test]
#[ignore = "slow: builds the Python subjects (needs python3 with venv, pip reaching PyPI) and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn the_python_subjects_pass_techempowers_types_and_httparenas_profiles() {
    pass_techempower_and_httparena(
        module_path!(),
        &[
            "python-uvicorn",
            "python-uvicorn-uvloop",
            "python-aiohttp",
            "python-sanic",
            "python-flask",
            "python-gunicorn",
        ],
    );
}

#[test]
#[ignore = "slow: builds haskell-warp (needs ghc and Debian's libghc packages) and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn haskell_warp_passes_techempowers_types_and_httparenas_profiles() {
    pass_techempower_and_httparena(module_path!(), &["haskell-warp"]);
}

#[test]
#[ignore = "slow: builds java-jersey-grizzly (needs java and mvn) and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn java_jersey_grizzly_passes_techempowers_types_and_httparenas_profiles() {
    pass_techempower_and_httparena(module_path!(), &["java-jersey-grizzly"]);
}

/// Builds each subject as `restbench verify` does, starts it single-threaded on a fresh
/// cluster, and asserts that it declares and passes every TechEmpower type, and every HttpArena
/// profile it does not say (in `[unserved]`) why it leaves out.
fn pass_techempower_and_httparena(module: &'static str, ids: &[&str]) {
    let _turn = turn::take(module);
    let logs = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(None, logs.path()).unwrap();
    let db = Database::connect(&cluster.url).unwrap();
    let root = subjects_root();
    let cache = prepare::cache_dir(&root);
    let placement = Placement::split(&available_cpus());
    let backend = Backend::affinity_only("not requested");
    for id in ids {
        let subject = Subject::load(&root.join(id)).unwrap();
        assert!(
            TFB.iter().all(|w| subject.supports(*w)),
            "{id} declares every type"
        );
        prepare::prepare(&subject, &cache).unwrap_or_else(|e| panic!("{e}"));
        let options = StartOptions {
            placement: &placement,
            backend: &backend,
            cache: &cache,
            database_url: Some(&cluster.url),
            db_pool_total: 16,
            address: None,
            remote: None,
        };
        let mut server = start_subject(&subject, Scenario::SingleThread, &options, None)
            .unwrap_or_else(|e| panic!("{e}"));
        for w in TFB {
            let f = check(server.addr, w, &db);
            assert!(verify::passed(&f), "{id} {w}: {:?}", failed_checks(&f));
        }
        for w in HTTPARENA {
            if !subject.supports(w) {
                assert!(
                    subject.unserved.contains_key(&w),
                    "{id} neither serves {w} nor says why in [unserved]"
                );
                continue;
            }
            let f = check(server.addr, w, &db);
            assert!(verify::passed(&f), "{id} {w}: {:?}", failed_checks(&f));
        }
        server.child.stop(Duration::from_secs(5));
    }
}
