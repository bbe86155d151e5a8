//! The history of runs, the same on SQLite and on PostgreSQL: migrations from an empty file or
//! database, a run imported twice stored once, and the queries a timeline and a gate ask.

use restbench_history::History;
use restbench_model::statistics::ab_ratios::Measure;
use restbench_model::{Environment, RunResults};
use restbench_testkit::{fixtures, turn};

fn run(started_at: &str, kernel: &str, rps: f64) -> RunResults {
    let mut run = fixtures::run_results(vec![
        fixtures::cell("rust-hyper", rps),
        fixtures::cell("go-nethttp", rps / 2.0),
    ]);
    run.started_at = started_at.into();
    run.environment = Environment {
        cpu_model: "Test CPU".into(),
        cores: 2,
        kernel: kernel.into(),
        backend: "cgroup-v2".into(),
        restbench_version: "0.1.0".into(),
        ..Environment::default()
    };
    run
}

/// The same queries and assertions, whatever the database.
fn exercise(h: &mut History) {
    assert_eq!(
        h.versions().unwrap(),
        vec![1, 2],
        "every migration applied once"
    );
    let first = run("2026-01-01T00:00:00Z", "6.1", 1000.0);
    let done = h.import(&first, "/runs/1", None, Some("abc1")).unwrap();
    assert!(done.stored);
    assert_eq!(done.cells, 2);
    let again = h.import(&first, "/runs/1-copy", None, None).unwrap();
    assert!(!again.stored, "a run imported twice is stored once");
    assert_eq!(again.key, done.key);
    h.import(
        &run("2026-01-02T00:00:00Z", "6.8", 1100.0),
        "/runs/2",
        None,
        None,
    )
    .unwrap();
    assert_eq!(h.counts().unwrap(), (2, 4));
    let hyper = h.points(Some("rust-hyper"), Some("plaintext")).unwrap();
    assert_eq!(hyper.len(), 2);
    assert_eq!(hyper[0].started_at, "2026-01-01T00:00:00Z", "oldest first");
    assert_eq!(hyper[0].revision.as_deref(), Some("abc1"));
    assert_eq!(hyper[1].revision, None);
    assert_eq!(hyper[0].machine.kernel, "6.1");
    assert_eq!(hyper[1].machine.kernel, "6.8");
    let rps = hyper[1].figure(Measure::Rps).unwrap();
    assert_eq!(rps.value, 1100.0);
    assert_eq!(rps.low, None, "no repeats, no interval");
    assert_eq!(h.points(None, None).unwrap().len(), 4);
    assert!(h.points(Some("nobody"), None).unwrap().is_empty());
    assert!(hyper.iter().all(|p| !p.duet));
    let mut duet = run("2026-01-03T00:00:00Z", "6.8", 600.0);
    duet.protocol.rounds = Some(restbench_model::RoundsPolicy {
        seed: 1,
        min_rounds: 3,
        max_rounds: 6,
        target_ci: None,
        rewarm_s: 1.0,
        duet: true,
        beside_reference: false,
        solo_rounds: None,
    });
    h.import(&duet, "/runs/3", None, None).unwrap();
    let hyper = h.points(Some("rust-hyper"), None).unwrap();
    assert_eq!(
        hyper.iter().map(|p| p.duet).collect::<Vec<_>>(),
        [false, false, true],
        "a duet is kept as one"
    );
}

#[test]
fn sqlite_migrates_an_empty_file_and_keeps_a_run_once() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep/history.sqlite");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, b"").unwrap();
    let mut h = History::open(file.to_str().unwrap()).unwrap();
    exercise(&mut h);
    drop(h);
    // Opened again: nothing migrates twice, nothing is lost.
    let mut h = History::open(file.to_str().unwrap()).unwrap();
    assert_eq!(h.versions().unwrap(), vec![1, 2]);
    assert_eq!(h.counts().unwrap(), (3, 6));
}

/// The first schema, as a history written before migration 2 holds it.
const SCHEMA_1: &str =
    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
    INSERT INTO schema_migrations VALUES (1, '2026-11-30T00:00:00Z');
    CREATE TABLE runs (key TEXT PRIMARY KEY, started_at TEXT NOT NULL, kind TEXT NOT NULL,
      restbench_version TEXT NOT NULL, cpu_model TEXT NOT NULL, cores INTEGER NOT NULL,
      kernel TEXT NOT NULL, backend TEXT NOT NULL, hostname TEXT NOT NULL, source TEXT NOT NULL,
      revision TEXT);
    INSERT INTO runs VALUES ('old', '2026-11-30T00:00:00Z', 'run', '0.1.0', 'Test CPU', 2, '6.1',
      'cgroup-v2', 'h', '/runs/old', NULL);
    CREATE TABLE cells (run_key TEXT NOT NULL REFERENCES runs (key), idx INTEGER NOT NULL,
      subject TEXT NOT NULL, subject_id TEXT NOT NULL, revision TEXT, source_hash TEXT NOT NULL,
      workload TEXT NOT NULL, scenario TEXT NOT NULL, protocol TEXT NOT NULL,
      rps REAL, rps_low REAL, rps_high REAL, p50 REAL, p50_low REAL, p50_high REAL,
      p99 REAL, p99_low REAL, p99_high REAL,
      cpu_us_per_req REAL, cpu_us_per_req_low REAL, cpu_us_per_req_high REAL,
      rss REAL, rss_low REAL, rss_high REAL, PRIMARY KEY (run_key, idx));
    INSERT INTO cells (run_key, idx, subject, subject_id, source_hash, workload, scenario,
      protocol, rps) VALUES ('old', 0, 'rust-hyper', 'rust-hyper', '', 'plaintext',
      'single-thread', 'h1', 1000.0);";

#[test]
fn a_history_of_the_first_schema_is_brought_up_to_date_and_keeps_its_runs() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("history.sqlite");
    rusqlite::Connection::open(&file)
        .unwrap()
        .execute_batch(SCHEMA_1)
        .unwrap();
    let mut h = History::open(file.to_str().unwrap()).unwrap();
    assert_eq!(h.versions().unwrap(), vec![1, 2]);
    let points = h.points(None, None).unwrap();
    assert_eq!(points.len(), 1, "the old run is kept");
    assert!(!points[0].duet, "and read as measured alone");
    assert_eq!(points[0].figure(Measure::Rps).unwrap().value, 1000.0);
}

#[test]
#[ignore = "slow: needs the PostgreSQL server binaries and starts a throwaway cluster"]
fn postgres_answers_the_same_queries() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = restbench_db::Cluster::start(None, logs.path())
        .unwrap_or_else(|e| panic!("cannot start PostgreSQL: {e}"));
    let mut h = History::open(&cluster.url).unwrap();
    exercise(&mut h);
    drop(h);
    let mut h = History::open(&cluster.url).unwrap();
    assert_eq!(h.versions().unwrap(), vec![1, 2]);
    assert_eq!(h.counts().unwrap(), (3, 6));
}

/// How many times each race is run: the issue saw 11 of 40 pairs lose an import on SQLite.
const RACES: usize = 40;

/// Two imports of two different runs at once into a history neither has opened before: both
/// are stored, every time.
fn race_pairs(mut spec: impl FnMut(usize) -> String) {
    for i in 0..RACES {
        let spec = spec(i);
        let imports: Vec<_> = (0..2)
            .map(|side| {
                let spec = spec.clone();
                std::thread::spawn(move || -> Result<bool, String> {
                    let mut h = History::open(&spec).map_err(|e| format!("open: {e}"))?;
                    let day = format!("2026-01-{:02}T00:00:00Z", side + 1);
                    h.import(&run(&day, "6.1", 1000.0 + side as f64), "/r", None, None)
                        .map(|d| d.stored)
                        .map_err(|e| format!("import: {e}"))
                })
            })
            .collect();
        for (side, t) in imports.into_iter().enumerate() {
            let stored = t.join().unwrap();
            assert_eq!(
                stored,
                Ok(true),
                "pair {i}, side {side}: an import was lost"
            );
        }
        let mut h = History::open(&spec).unwrap();
        assert_eq!(h.counts().unwrap(), (2, 4), "pair {i}");
        assert_eq!(h.versions().unwrap(), vec![1, 2], "pair {i}");
    }
}

#[test]
fn concurrent_first_imports_into_a_new_sqlite_file_all_land() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    race_pairs(|i| {
        dir.path()
            .join(format!("race-{i}.sqlite"))
            .display()
            .to_string()
    });
}

#[test]
#[ignore = "slow: needs the PostgreSQL server binaries and starts a throwaway cluster (40 databases)"]
fn concurrent_first_imports_into_a_new_postgres_database_all_land() {
    let _turn = turn::take(module_path!());
    let logs = tempfile::tempdir().unwrap();
    let cluster = restbench_db::Cluster::start(None, logs.path())
        .unwrap_or_else(|e| panic!("cannot start PostgreSQL: {e}"));
    let mut admin = postgres::Client::connect(&cluster.url, postgres::NoTls).unwrap();
    race_pairs(|i| {
        let name = format!("race_{i}");
        admin
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        with_database(&cluster.url, &name)
    });
}

/// `url` with its database replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let base = base.rsplit_once('/').map_or(base, |(b, _)| b);
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}
