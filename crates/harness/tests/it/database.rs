//! PostgreSQL as the users workload meets it, against real clusters each test starts itself:
//! clusters leave nothing behind, the seed data is the same in every cluster, the verifier tells
//! a server that reads the table on every request from one that caches it, and the Rust subjects
//! answer 503 (never hang) while the database is down or their pool is exhausted, then recover.
//!
//! These tests need the PostgreSQL server binaries (`apt-get install postgresql`) and built
//! subjects, so they are `#[ignore]`d with the reason; `cargo test -- --include-ignored` runs them,
//! as CI does. Every test has its own cluster, ports and folders, so they run in parallel; every
//! wait is bounded.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use restbench_db::{self as db, Cluster, Database, UserRow};
use restbench_harness::serve::{RunningSubject, StartOptions, start_subject};
use restbench_host::cgroup::Backend;
use restbench_host::placement::{Placement, available_cpus};
use restbench_model::{Finding, Scenario};
use restbench_subject::Subject;
use restbench_subject::prepare;
use restbench_verify as verify;
use restbench_verify::http;
use restbench_verify::payloads as fixtures;
use restbench_verify::requests::Workload;
use serde_json::Value;

use crate::support::{failed_checks, lock_waiters, passed_checks, subjects_root};
use restbench_testkit::procs::{accepts, postgres_processes, wait_gone};
use restbench_testkit::{TinyServer, closed_port, turn};

/// The longest any single `/users` request may take while the database is down or busy: the
/// contract's pool acquire timeout is ~2 s.
const ANSWER_BOUND: Duration = Duration::from_secs(5);

fn start_cluster(logs: &Path) -> Cluster {
    Cluster::start(None, logs).unwrap_or_else(|e| panic!("cannot start PostgreSQL: {e}"))
}

// ---------------------------------------------------------------------------------------------
// 1. Clusters clean up

/// A run places its cluster (`Placement::with_database`): the server process is pinned there.
#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_provided_cluster_runs_on_the_cpus_it_is_given() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cpu = available_cpus()[0];
    let provision = db::provide(true, None, logs.path(), Some(vec![cpu])).unwrap();
    let cluster = provision
        .cluster
        .as_ref()
        .unwrap_or_else(|| panic!("no cluster: {:?}", provision.problem));
    let pid = cluster.server_pid().expect("a running server");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let allowed = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim();
    assert_eq!(allowed, cpu.to_string(), "{status}");
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_cluster_leaves_no_folder_and_no_process_after_stop_or_drop() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    for how in ["stop", "drop"] {
        let started = Instant::now();
        let mut cluster = start_cluster(logs.path());
        let startup = started.elapsed();
        let root = cluster.root().to_path_buf();
        let port = cluster.port;
        assert!(cluster.data_dir.join("PG_VERSION").is_file());
        assert!(cluster.data_dir.starts_with(&root));
        let db = Database::connect(&cluster.url).unwrap();
        assert_eq!(db.users().unwrap().len(), 100);
        drop(db);
        let procs = postgres_processes(cluster.server_pid().unwrap());
        assert!(
            procs.len() >= 3,
            "expected the postmaster and its helpers: {procs:?}"
        );
        let stopping = Instant::now();
        match how {
            "stop" => {
                cluster.stop();
                assert!(!root.exists(), "{} left behind", root.display());
                cluster.stop(); // stopping twice is harmless
                drop(cluster);
            }
            _ => drop(cluster),
        }
        let stop_took = stopping.elapsed();
        assert!(!root.exists(), "{how}: {} left behind", root.display());
        assert_eq!(wait_gone(&procs), Vec::<u32>::new(), "{how}: left running");
        assert!(!accepts(port), "{how}: port {port} still accepts");
        eprintln!("{how}: started in {startup:.1?}, stopped in {stop_took:.1?}");
    }
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_kept_cluster_keeps_its_folder_and_starts_again_from_it() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let keep = tempfile::tempdir().unwrap();
    let dir = keep.path().join("pg");
    let mut cluster = Cluster::start(Some(&dir), logs.path()).unwrap();
    let db = Database::connect(&cluster.url).unwrap();
    db.set_mail(5, "changed@example.org").unwrap();
    drop(db);
    let procs = postgres_processes(cluster.server_pid().unwrap());
    cluster.stop();
    assert_eq!(wait_gone(&procs), Vec::<u32>::new());
    assert!(
        dir.join("data/PG_VERSION").is_file(),
        "the kept folder is gone"
    );
    drop(cluster);
    assert!(dir.join("data/PG_VERSION").is_file(), "dropping removed it");

    // Again on the same folder (no initdb): the rows are seeded back to the seed data.
    let cluster = Cluster::start(Some(&dir), logs.path()).unwrap();
    let rows = Database::connect(&cluster.url).unwrap().users().unwrap();
    assert_eq!(rows, db::seed_rows());
    drop(cluster);
    assert!(dir.join("data/PG_VERSION").is_file());
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_restarted_server_keeps_its_port_folder_and_data() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let mut cluster = start_cluster(logs.path());
    let (url, port, root) = (
        cluster.url.clone(),
        cluster.port,
        cluster.root().to_path_buf(),
    );
    Database::connect(&url)
        .unwrap()
        .set_mail(3, "restarted@example.org")
        .unwrap();

    let procs = postgres_processes(cluster.server_pid().unwrap());
    cluster.stop_server();
    assert!(!cluster.is_running());
    assert_eq!(wait_gone(&procs), Vec::<u32>::new());
    assert!(!accepts(port));
    let err = Database::connect(&url)
        .err()
        .expect("connected to a stopped server");
    assert!(err.to_string().contains("cannot connect"), "{err}");
    // Longer than the guards take to act: the folder must survive a stopped server.
    thread::sleep(Duration::from_millis(600));
    assert!(
        cluster.data_dir.join("PG_VERSION").is_file(),
        "data removed"
    );

    let t = Instant::now();
    cluster.start_server().unwrap();
    eprintln!("server started again in {:.1?}", t.elapsed());
    assert!(cluster.is_running());
    assert_eq!((cluster.url.as_str(), cluster.port), (url.as_str(), port));
    let rows = Database::connect(&url).unwrap().users().unwrap();
    assert_eq!(rows[2].mail, "restarted@example.org", "data lost");

    cluster.restart().unwrap();
    assert_eq!(Database::connect(&url).unwrap().users().unwrap().len(), 100);
    let procs = postgres_processes(cluster.server_pid().unwrap());
    drop(cluster);
    assert_eq!(wait_gone(&procs), Vec::<u32>::new());
    assert!(!root.exists());
}

// ---------------------------------------------------------------------------------------------
// 2. The seed data

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn seed_data_is_identical_in_two_clusters_and_matches_the_pinned_digest() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    // On this thread: a child's death signal fires when the thread that spawned it ends.
    let a = start_cluster(logs.path());
    let b = start_cluster(logs.path());
    assert_ne!(a.port, b.port);
    let rows_a = Database::connect(&a.url).unwrap().users().unwrap();
    let rows_b = Database::connect(&b.url).unwrap().users().unwrap();
    assert_eq!(rows_a.len(), 100);
    assert_eq!(rows_a, rows_b, "two clusters hold different rows");
    assert_eq!(rows_a, db::seed_rows(), "the table is not the seed data");
    assert_eq!(
        db::seed_digest(&rows_a),
        db::SEED_DIGEST,
        "seed data changed"
    );
    assert_eq!(
        rows_a.iter().map(|r| r.id).collect::<Vec<_>>(),
        (1..=100).collect::<Vec<_>>()
    );
    assert!(rows_a.iter().all(|r| r.address.contains('\n')));

    // Seeding again is a no-op; after a change it restores the seed data.
    let db = Database::connect(&a.url).unwrap();
    db.seed().unwrap();
    assert_eq!(db.users().unwrap(), rows_a);
    db.set_mail(7, "tampered@example.org").unwrap();
    assert_ne!(db.users().unwrap(), rows_a);
    db.seed().unwrap();
    assert_eq!(db.users().unwrap(), rows_a);
}

// ---------------------------------------------------------------------------------------------
// 3. The verifier against a correct and a caching server

/// How an in-test users server answers.
#[derive(Clone, Copy, PartialEq)]
enum Users {
    /// Reads the table on every request.
    Fresh,
    /// Reads the table once at start and answers from memory.
    Cached,
}

const SELECT_USERS: &str =
    "SELECT id::int8, username, name, sex, address, mail, birthdate::text FROM \"user\"";

fn read_users(client: &mut postgres::Client) -> Vec<u8> {
    let rows = client.query(SELECT_USERS, &[]).unwrap();
    let users: Vec<Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.get::<_, i64>(0),
                "username": r.get::<_, String>(1),
                "name": r.get::<_, String>(2),
                "sex": r.get::<_, String>(3),
                "address": fixtures::caesar(&r.get::<_, String>(4)),
                "mail": r.get::<_, String>(5),
                "birthdate": r.get::<_, String>(6).replace(' ', "T"),
            })
        })
        .collect();
    serde_json::to_vec(&users).unwrap()
}

fn start_users_server(url: &str, mode: Users) -> TinyServer {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let cached = (mode == Users::Cached).then(|| read_users(&mut client));
    let client = Mutex::new(client);
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
        let (status, body) = if head.starts_with("GET /users ") {
            let body = match &cached {
                Some(body) => body.clone(),
                None => read_users(&mut client.lock().unwrap()),
            };
            ("200 OK", body)
        } else {
            ("404 Not Found", b"[]".to_vec())
        };
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Date: Sun, 29 Nov 2026 19:01:24 GMT\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(&body);
    })
}

fn verify_users(addr: SocketAddr, db: &Database) -> Vec<Finding> {
    let mut findings = verify::common(addr);
    findings.extend(verify::workload(addr, Workload::Users, Some(db)));
    findings
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn the_verifier_passes_a_server_that_reads_the_table_on_every_request() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = start_cluster(logs.path());
    let db = Database::connect(&cluster.url).unwrap();
    let server = start_users_server(&cluster.url, Users::Fresh);
    let f = verify_users(server.addr(), &db);
    assert!(verify::passed(&f), "{:?}", failed_checks(&f));
    let passed = passed_checks(&f);
    for check in ["body:", "no-cache:", "queries:"] {
        assert!(
            passed.iter().any(|p| p.starts_with(check)),
            "{check} {passed:?}"
        );
    }
    // Exact counting is available in the clusters restbench starts.
    assert!(
        passed.iter().any(|p| p.contains("pg_stat_statements")),
        "{passed:?}"
    );
    // The verifier puts back the row it changes.
    assert_eq!(db.users().unwrap(), db::seed_rows());
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn the_verifier_fails_a_server_that_caches_the_users() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = start_cluster(logs.path());
    let db = Database::connect(&cluster.url).unwrap();
    let server = start_users_server(&cluster.url, Users::Cached);
    let f = verify_users(server.addr(), &db);
    let failed = failed_checks(&f);
    assert!(!verify::passed(&f));
    // The first answer is right: only the caching checks catch it.
    assert!(
        passed_checks(&f)
            .iter()
            .any(|p| p.starts_with("body: 100 users match")),
        "{f:?}"
    );
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("no-cache:") && m.contains("cached")),
        "a changed row went unnoticed: {failed:?}"
    );
    assert!(
        failed
            .iter()
            .any(|m| m.starts_with("queries:") && m.contains("only 0 queries")),
        "the query count did not catch it: {failed:?}"
    );
    assert_eq!(db.users().unwrap(), db::seed_rows());
}

// ---------------------------------------------------------------------------------------------
// Real subjects

/// Loads and builds a subject (cached: a second prepare of an unchanged folder is instant).
fn prepared(id: &str) -> (Subject, PathBuf) {
    let root = subjects_root();
    let subject = Subject::load(&root.join(id)).unwrap();
    assert_eq!(subject.unavailable_reason(), None, "{id}");
    let cache = prepare::cache_dir(&root);
    let started = Instant::now();
    prepare::prepare(&subject, &cache).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{id}: prepared in {:.1?}", started.elapsed());
    (subject, cache)
}

/// Starts a subject in the single-thread scenario with `DB_POOL_SIZE=pool`.
fn start(id: &str, url: &str, pool: u32) -> RunningSubject {
    let (subject, cache) = prepared(id);
    let placement = Placement::split(&available_cpus());
    let backend = Backend::affinity_only("not requested");
    let options = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: &cache,
        database_url: Some(url),
        db_pool_total: pool,
        address: None,
        remote: None,
    };
    start_subject(&subject, Scenario::SingleThread, &options, None)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `Ok(())` when `body` is the users table as the contract wants it, else what differs.
fn check_users(body: &[u8], rows: &[UserRow]) -> Result<(), String> {
    let items: Vec<BTreeMap<String, Value>> =
        serde_json::from_slice(body).map_err(|e| format!("not a JSON array of objects: {e}"))?;
    if items.len() != rows.len() {
        return Err(format!("{} users, expected {}", items.len(), rows.len()));
    }
    let by_id: BTreeMap<i64, &BTreeMap<String, Value>> = items
        .iter()
        .filter_map(|u| Some((u.get("id")?.as_i64()?, u)))
        .collect();
    for r in rows {
        let u = by_id.get(&r.id).ok_or(format!("id {} missing", r.id))?;
        let text = |k: &str| u.get(k).and_then(Value::as_str).unwrap_or_default();
        let birthdate = verify::normalise_timestamp(text("birthdate")).map(|(t, _)| t);
        if text("username") != r.username
            || text("name") != r.name
            || text("sex") != r.sex
            || text("mail") != r.mail
            || text("address") != fixtures::caesar(&r.address)
            || birthdate.as_deref() != Some(r.birthdate.as_str())
        {
            return Err(format!("id {}: {u:?} is not {r:?}", r.id));
        }
    }
    Ok(())
}

/// One `GET /users`, bounded by [`ANSWER_BOUND`]: `(status or error, how long it took)`.
fn get_users(addr: SocketAddr) -> (Result<http::Response, String>, Duration) {
    let t = Instant::now();
    let r = http::get(addr, "/users", ANSWER_BOUND).map_err(|e| e.to_string());
    (r, t.elapsed())
}

/// Polls `GET /users` until `done` holds for an answer (each request bounded), or `within`
/// passes; returns how long it took. Panics with the last answer when it never holds.
fn wait_for(
    addr: SocketAddr,
    within: Duration,
    what: &str,
    done: impl Fn(&http::Response) -> bool,
) -> Duration {
    let started = Instant::now();
    let mut last = String::new();
    while started.elapsed() < within {
        let (r, took) = get_users(addr);
        assert!(took < ANSWER_BOUND, "GET /users took {took:?}");
        match r {
            Ok(r) if done(&r) => return started.elapsed(),
            Ok(r) => {
                last = format!(
                    "{} {}",
                    r.status,
                    r.body_text().chars().take(80).collect::<String>()
                )
            }
            Err(e) => panic!("GET /users got no answer while waiting for {what}: {e}"),
        }
        thread::sleep(Duration::from_millis(100));
    }
    panic!("no {what} within {within:?}; last answer: {last}");
}

/// A thread that keeps asking `/users` (one request at a time) and records every answer.
struct Prober {
    stop: Arc<AtomicBool>,
    handle: thread::JoinHandle<Vec<(Result<u16, String>, Duration)>>,
}

impl Prober {
    fn start(addr: SocketAddr) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = thread::spawn(move || {
            let mut seen = Vec::new();
            while !flag.load(Ordering::SeqCst) {
                let (r, took) = get_users(addr);
                seen.push((r.map(|r| r.status), took));
                thread::sleep(Duration::from_millis(25));
            }
            seen
        });
        Self { stop, handle }
    }

    fn finish(self) -> Vec<(Result<u16, String>, Duration)> {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().unwrap()
    }
}

// ---------------------------------------------------------------------------------------------
// 3b. The real Rust subjects pass the users checks

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn the_verifier_passes_the_rust_subjects_on_users() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = start_cluster(logs.path());
    let db = Database::connect(&cluster.url).unwrap();
    for id in ["rust-hyper", "rust-axum", "rust-actix", "rust-reference"] {
        let mut server = start(id, &cluster.url, 100);
        let f = verify_users(server.addr, &db);
        assert!(verify::passed(&f), "{id}: {:?}", failed_checks(&f));
        let passed = passed_checks(&f);
        for check in ["body:", "no-cache:", "queries:"] {
            assert!(
                passed.iter().any(|p| p.starts_with(check)),
                "{id}: {check} {passed:?}"
            );
        }
        server.child.stop(Duration::from_secs(5));
    }
    assert_eq!(db.users().unwrap(), db::seed_rows());
}

// ---------------------------------------------------------------------------------------------
// 4. The database stops and starts again under a running subject

fn survives_a_database_outage(id: &str) {
    let logs = tempfile::tempdir().unwrap();
    let mut cluster = start_cluster(logs.path());
    let rows = Database::connect(&cluster.url).unwrap().users().unwrap();

    // Down at start-up: the subject starts anyway and answers 503 until the database is up.
    cluster.stop_server();
    let mut server = start(id, &cluster.url, 100);
    let addr = server.addr;
    let pid = server.child.pid();
    let (r, took) = get_users(addr);
    let r = r.unwrap_or_else(|e| panic!("{id}: no answer with the database down: {e}"));
    assert_eq!(r.status, 503, "{id}: {}", r.body_text());
    assert!(took < ANSWER_BOUND, "{id}: 503 took {took:?}");
    cluster.start_server().unwrap();
    let up_after_start = wait_for(addr, Duration::from_secs(10), "200 after start-up", |r| {
        r.status == 200 && check_users(&r.body, &rows).is_ok()
    });

    // Down under load: 503 within a bounded wait, never a hang; back to correct answers
    // without a restart once the database is.
    let prober = Prober::start(addr);
    thread::sleep(Duration::from_millis(300));
    cluster.stop_server();
    let to_503 = wait_for(addr, Duration::from_secs(15), "503", |r| r.status == 503);
    for _ in 0..3 {
        let (r, took) = get_users(addr);
        let r = r.unwrap_or_else(|e| panic!("{id}: no answer with the database down: {e}"));
        assert_eq!(r.status, 503, "{id}");
        assert!(took < ANSWER_BOUND, "{id}: 503 took {took:?}");
    }
    cluster.start_server().unwrap();
    let back = wait_for(addr, Duration::from_secs(10), "correct 200s", |r| {
        r.status == 200 && check_users(&r.body, &rows).is_ok()
    });
    let (r, _) = get_users(addr);
    let r = r.unwrap();
    assert_eq!(r.status, 200, "{id}");
    check_users(&r.body, &rows).unwrap_or_else(|e| panic!("{id}: {e}"));
    thread::sleep(Duration::from_millis(300));
    let seen = prober.finish();

    assert!(server.child.exited().is_none(), "{id} exited");
    assert_eq!(server.child.pid(), pid);
    let slowest = seen.iter().map(|(_, t)| *t).max().unwrap_or_default();
    for (r, took) in &seen {
        match r {
            Ok(200 | 503) => {}
            other => panic!("{id}: a request during the outage got {other:?} after {took:?}"),
        }
    }
    assert!(slowest < ANSWER_BOUND, "{id}: a request took {slowest:?}");
    assert!(seen.iter().any(|(r, _)| *r == Ok(503)), "{id}: {seen:?}");
    assert_eq!(seen.last().map(|(r, _)| r.clone()), Some(Ok(200)), "{id}");
    eprintln!(
        "{id}: 200 {up_after_start:.1?} after the database came up at start-up; 503 {to_503:.1?} \
         after it stopped; 200 again {back:.1?} after it restarted; {} probes, slowest {slowest:.1?}",
        seen.len()
    );
    server.child.stop(Duration::from_secs(5));
}

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_hyper_survives_a_database_outage() {
    let _turn = turn::take(module_path!());
    survives_a_database_outage("rust-hyper");
}

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_axum_survives_a_database_outage() {
    let _turn = turn::take(module_path!());
    survives_a_database_outage("rust-axum");
}

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_actix_survives_a_database_outage() {
    let _turn = turn::take(module_path!());
    survives_a_database_outage("rust-actix");
}

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_reference_survives_a_database_outage() {
    let _turn = turn::take(module_path!());
    survives_a_database_outage("rust-reference");
}

// ---------------------------------------------------------------------------------------------
// 5. An exhausted pool

fn answers_503_when_its_pool_is_exhausted(id: &str) {
    let logs = tempfile::tempdir().unwrap();
    let cluster = start_cluster(logs.path());
    let rows = Database::connect(&cluster.url).unwrap().users().unwrap();
    let mut server = start(id, &cluster.url, 1); // DB_POOL_SIZE=1
    let addr = server.addr;
    assert_eq!(
        server.settings.get("DB_POOL_SIZE").map(String::as_str),
        Some("1")
    );
    wait_for(addr, Duration::from_secs(10), "a first 200", |r| {
        r.status == 200 && check_users(&r.body, &rows).is_ok()
    });

    // Hold the table: the next query waits inside the database, holding the only connection.
    let mut locker = postgres::Client::connect(&cluster.url, postgres::NoTls).unwrap();
    let mut watcher = postgres::Client::connect(&cluster.url, postgres::NoTls).unwrap();
    let mut tx = locker.transaction().unwrap();
    tx.batch_execute("LOCK TABLE \"user\" IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let locked_at = Instant::now();
    let first = thread::spawn(move || {
        let t = Instant::now();
        let r = http::get(addr, "/users", Duration::from_secs(60)).map(|r| r.status);
        (r.map_err(|e| e.to_string()), t.elapsed())
    });
    let started = Instant::now();
    while lock_waiters(&mut watcher) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{id}: the first request never reached the database"
        );
        thread::sleep(Duration::from_millis(20));
    }
    // The second request finds no free connection: 503 within the pool's acquire timeout.
    let t = Instant::now();
    let second = http::get(addr, "/users", Duration::from_secs(15));
    let second_took = t.elapsed();
    let second = second.unwrap_or_else(|e| {
        panic!("{id}: no answer within 15 s while the pool was exhausted: {e}")
    });
    assert_eq!(second.status, 503, "{id}: {}", second.body_text());
    assert!(
        second_took < ANSWER_BOUND,
        "{id}: the 503 took {second_took:?}"
    );

    // Release: the first request ends (with the rows, or 503 if it gave up waiting), and the
    // pool serves again.
    tx.rollback().unwrap();
    let held = locked_at.elapsed();
    let (first_status, first_took) = first.join().unwrap();
    assert!(
        matches!(first_status, Ok(200 | 503)),
        "{id}: the first request got {first_status:?}"
    );
    assert!(
        first_took < held + ANSWER_BOUND,
        "{id}: the first request ended {first_took:?} after it started (lock held {held:?})"
    );
    let back = wait_for(
        addr,
        Duration::from_secs(10),
        "a 200 after the release",
        |r| r.status == 200 && check_users(&r.body, &rows).is_ok(),
    );
    for _ in 0..3 {
        let (r, _) = get_users(addr);
        assert_eq!(r.map(|r| r.status), Ok(200), "{id}");
    }
    assert!(server.child.exited().is_none(), "{id} exited");
    eprintln!(
        "{id}: pool of 1 busy → second request 503 after {second_took:.2?}; first request \
         {first_status:?} after {first_took:.2?} (lock held {held:.2?}); 200 {back:.2?} after release"
    );
    server.child.stop(Duration::from_secs(5));
}

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_hyper_answers_503_when_its_pool_is_exhausted() {
    let _turn = turn::take(module_path!());
    answers_503_when_its_pool_is_exhausted("rust-hyper");
}

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_axum_answers_503_when_its_pool_is_exhausted() {
    let _turn = turn::take(module_path!());
    answers_503_when_its_pool_is_exhausted("rust-axum");
}

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_actix_answers_503_when_its_pool_is_exhausted() {
    let _turn = turn::take(module_path!());
    answers_503_when_its_pool_is_exhausted("rust-actix");
}

#[test]
#[ignore = "slow: builds a Rust subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_reference_answers_503_when_its_pool_is_exhausted() {
    let _turn = turn::take(module_path!());
    answers_503_when_its_pool_is_exhausted("rust-reference");
}

// ---------------------------------------------------------------------------------------------
// 6. Wrong credentials

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn wrong_credentials_fail_at_once_with_the_servers_reason_and_no_password() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = start_cluster(logs.path());
    let wrong = format!(
        "postgres://restbench:wrong-secret-zz9@127.0.0.1:{}/restbench",
        cluster.port
    );
    let t = Instant::now();
    let err = Database::connect(&wrong)
        .err()
        .expect("connected with a wrong password")
        .to_string();
    let took = t.elapsed();
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("password authentication failed"),
        "no reason: {err}"
    );
    assert!(err.contains(&cluster.port.to_string()), "{err}");
    assert!(
        !err.contains("wrong-secret-zz9"),
        "the password leaks: {err}"
    );

    // A port nothing listens on: as fast, and as clear.
    let closed = closed_port();
    let t = Instant::now();
    let refused = Database::connect(&format!(
        "postgres://restbench:bench@127.0.0.1:{closed}/restbench"
    ))
    .err()
    .expect("connected to a closed port")
    .to_string();
    assert!(
        t.elapsed() < Duration::from_secs(6),
        "took {:?}",
        t.elapsed()
    );
    assert!(
        refused.contains("cannot connect") && refused.contains(&closed.to_string()),
        "{refused}"
    );
    eprintln!("wrong password, after {took:.2?}: {err}");
    eprintln!("closed port: {refused}");
}
