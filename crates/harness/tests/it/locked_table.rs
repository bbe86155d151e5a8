//! A query stuck on a lock: the Rust subjects answer 503 within a bounded wait, and the database
//! cancels the stuck query (a statement timeout) instead of leaving it to hold a connection until
//! the lock goes.
//!
//! These tests need the PostgreSQL server binaries (`apt-get install postgresql`) and build the
//! Rust subjects, so they are ignored by default (`cargo test -- --include-ignored` runs them, as
//! CI does). Every test has its own cluster, ports and folders, so they run in parallel; every
//! wait is bounded.

use std::thread;
use std::time::{Duration, Instant};

use restbench_db::Cluster;
use restbench_harness::serve::{StartOptions, start_subject};
use restbench_host::cgroup::Backend;
use restbench_host::placement::{Placement, available_cpus};
use restbench_model::Scenario;
use restbench_subject::Subject;
use restbench_subject::prepare;
use restbench_verify::http;

use crate::support::{lock_waiters, subjects_root};
use restbench_testkit::turn;

/// The longest a `/users` request may take while the table is locked: the subjects' statement
/// timeout is 2 s.
const ANSWER_BOUND: Duration = Duration::from_secs(5);

fn answers_503_while_the_table_is_locked(id: &str) {
    let logs = tempfile::tempdir().unwrap();
    let cluster = Cluster::start(None, logs.path())
        .unwrap_or_else(|e| panic!("cannot start PostgreSQL: {e}"));
    let root = subjects_root();
    let subject = Subject::load(&root.join(id)).unwrap();
    let cache = prepare::cache_dir(&root);
    prepare::prepare(&subject, &cache).unwrap_or_else(|e| panic!("{e}"));
    let placement = Placement::split(&available_cpus());
    let backend = Backend::affinity_only("not requested");
    let options = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: &cache,
        database_url: Some(&cluster.url),
        db_pool_total: 4,
        address: None,
        remote: None,
    };
    let mut server = start_subject(&subject, Scenario::SingleThread, &options, None)
        .unwrap_or_else(|e| panic!("{e}"));
    let addr = server.addr;
    let started = Instant::now();
    while http::get(addr, "/users", ANSWER_BOUND)
        .map(|r| r.status)
        .ok()
        != Some(200)
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{id}: no first 200"
        );
        thread::sleep(Duration::from_millis(100));
    }

    // Hold the table for as long as the test lasts: only the statement timeout can end a query.
    let mut locker = postgres::Client::connect(&cluster.url, postgres::NoTls).unwrap();
    let mut watcher = postgres::Client::connect(&cluster.url, postgres::NoTls).unwrap();
    let mut tx = locker.transaction().unwrap();
    tx.batch_execute("LOCK TABLE \"user\" IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let t = Instant::now();
    let r = http::get(addr, "/users", Duration::from_secs(30));
    let took = t.elapsed();
    let r =
        r.unwrap_or_else(|e| panic!("{id}: no answer within 30 s while the table was locked: {e}"));
    assert_eq!(r.status, 503, "{id}: {}", r.body_text());
    assert!(took < ANSWER_BOUND, "{id}: the 503 took {took:?}");
    // The database cancelled the query: no backend is left waiting on the lock.
    let started = Instant::now();
    while lock_waiters(&mut watcher) > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{id}: the query still waits on the lock after the 503 (no statement timeout)"
        );
        thread::sleep(Duration::from_millis(50));
    }

    tx.rollback().unwrap();
    let started = Instant::now();
    while http::get(addr, "/users", ANSWER_BOUND)
        .map(|r| r.status)
        .ok()
        != Some(200)
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{id}: no 200 after the release"
        );
        thread::sleep(Duration::from_millis(100));
    }
    assert!(server.child.exited().is_none(), "{id} exited");
    eprintln!("{id}: locked table → 503 after {took:.2?}; the query was cancelled");
    server.child.stop(Duration::from_secs(5));
}

#[test]
#[ignore = "slow: builds the subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_axum_answers_503_while_the_table_is_locked() {
    let _turn = turn::take(module_path!());
    answers_503_while_the_table_is_locked("rust-axum");
}

#[test]
#[ignore = "slow: builds the subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_actix_answers_503_while_the_table_is_locked() {
    let _turn = turn::take(module_path!());
    answers_503_while_the_table_is_locked("rust-actix");
}

#[test]
#[ignore = "slow: builds the subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_hyper_answers_503_while_the_table_is_locked() {
    let _turn = turn::take(module_path!());
    answers_503_while_the_table_is_locked("rust-hyper");
}

#[test]
#[ignore = "slow: builds the subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_iron_answers_503_while_the_table_is_locked() {
    let _turn = turn::take(module_path!());
    answers_503_while_the_table_is_locked("rust-iron");
}

#[test]
#[ignore = "slow: builds the subject and starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn rust_reference_answers_503_while_the_table_is_locked() {
    let _turn = turn::take(module_path!());
    answers_503_while_the_table_is_locked("rust-reference");
}
