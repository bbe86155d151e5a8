//! The history of runs in a real database: an embedded SQLite file by default, or PostgreSQL
//! (`postgres://…`) so that several machines share one history.
//!
//! One set of SQL serves both (`$1` parameters, `ON CONFLICT DO NOTHING`); only the column
//! types of the migrations differ (`sql`). Migrations are numbered and recorded in
//! `schema_migrations`, so an old file is brought up to date and a new one starts from nothing.
//! A run's key is a hash of its document, so a run imported twice is stored once.

mod sql;

use std::path::{Path, PathBuf};

use restbench_model::documents::history::{
    HistoryPoint, MachineFacts, StoredFigure, split_revision,
};
use restbench_model::statistics::ab_ratios::{Measure, cell_figure, repeat_figures};
use restbench_model::statistics::interval::log_interval;
use restbench_model::{AbReport, Cell, CellStatus, RunResults};
use sha2::{Digest, Sha256};

pub use sql::Value;
use sql::{Backend, MIGRATIONS};

/// What went wrong with the history.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("history {0}: {1}")]
    Sqlite(String, #[source] rusqlite::Error),
    #[error("history {0}: {1}")]
    Postgres(String, #[source] postgres::Error),
    #[error("cannot create {0}: {1}")]
    Folder(PathBuf, #[source] std::io::Error),
    #[error("cannot hash the run: {0}")]
    Hash(#[from] serde_json::Error),
}

/// An open history.
pub struct History {
    backend: Backend,
    /// Where it is, for messages (a URL without its password).
    pub location: String,
}

/// `$XDG_DATA_HOME/restbench/history.sqlite` (when absolute), else
/// `~/.local/share/restbench/history.sqlite`; `None` without a home folder.
pub fn default_file() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    std::env::var_os("XDG_DATA_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".local/share"))
        })
        .map(|d| d.join("restbench").join("history.sqlite"))
}

/// What an import did with one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    pub key: String,
    /// False when the run was stored already.
    pub stored: bool,
    pub cells: usize,
}

impl History {
    /// Opens (and migrates) `spec`: a `postgres://` or `postgresql://` URL, else a SQLite file.
    pub fn open(spec: &str) -> Result<Self, HistoryError> {
        let (backend, location) =
            if spec.starts_with("postgres://") || spec.starts_with("postgresql://") {
                (Backend::postgres(spec)?, restbench_db::redact(spec))
            } else {
                let path = Path::new(spec);
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| HistoryError::Folder(dir.to_path_buf(), e))?;
                }
                (Backend::sqlite(path)?, path.display().to_string())
            };
        let mut h = Self { backend, location };
        h.migrate()?;
        Ok(h)
    }

    /// Applies the migrations not yet recorded, each with its version, all in one transaction
    /// under the write lock: two first opens at once migrate once.
    fn migrate(&mut self) -> Result<(), HistoryError> {
        self.backend.transaction(true, migrate)
    }

    /// The migration versions applied, in order.
    pub fn versions(&mut self) -> Result<Vec<i64>, HistoryError> {
        Ok(self
            .backend
            .query(
                "SELECT version FROM schema_migrations ORDER BY version",
                &[],
            )?
            .into_iter()
            .filter_map(|r| r.first().and_then(Value::as_i64))
            .collect())
    }

    /// Stores `run` (from `source`) unless a run with the same content is stored already. `ab`
    /// is the A/B beside it (its sides' commits and source hashes); `revision` the git revision
    /// for cells whose id names none.
    pub fn import(
        &mut self,
        run: &RunResults,
        source: &str,
        ab: Option<&AbReport>,
        revision: Option<&str>,
    ) -> Result<Imported, HistoryError> {
        let key = run_key(run)?;
        let cells: Vec<&Cell> = run
            .cells
            .iter()
            .filter(|c| c.status == CellStatus::Ok)
            .collect();
        // One transaction: a run is stored with all its cells or not at all (a full disk
        // halfway leaves nothing, and the next import stores it whole).
        self.backend.transaction(false, |backend| {
            store_run(backend, run, key, source, ab, revision, &cells)
        })
    }

    /// Every stored cell, oldest first; only `subject` (the id without its revision) and
    /// `workload` when given.
    pub fn points(
        &mut self,
        subject: Option<&str>,
        workload: Option<&str>,
    ) -> Result<Vec<HistoryPoint>, HistoryError> {
        let columns = Measure::ALL
            .iter()
            .map(|m| format!("c.{m}, c.{m}_low, c.{m}_high"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows = self.backend.query(
            &format!(
                "SELECT r.key, r.started_at, c.subject, c.revision, c.source_hash, c.workload, c.scenario, c.protocol, \
                 r.cpu_model, r.cores, r.kernel, r.backend, r.restbench_version, r.duet, {columns} \
                 FROM cells c JOIN runs r ON r.key = c.run_key \
                 WHERE ($1 = '' OR c.subject = $1) AND ($2 = '' OR c.workload = $2) \
                 ORDER BY r.started_at, r.key, c.idx"
            ),
            &[
                Value::text(subject.unwrap_or("")),
                Value::text(workload.unwrap_or("")),
            ],
        )?;
        Ok(rows.iter().map(|r| point(r)).collect())
    }

    /// How many runs and cells are stored.
    pub fn counts(&mut self) -> Result<(i64, i64), HistoryError> {
        let count = |b: &mut Backend, t: &str| -> Result<i64, HistoryError> {
            Ok(b.query(&format!("SELECT COUNT(*) FROM {t}"), &[])?
                .first()
                .and_then(|r| r.first())
                .and_then(Value::as_i64)
                .unwrap_or(0))
        };
        Ok((
            count(&mut self.backend, "runs")?,
            count(&mut self.backend, "cells")?,
        ))
    }
}

/// The run's row and its cells' rows, inside the import's transaction; nothing when the key
/// is stored already.
fn store_run(
    backend: &mut Backend,
    run: &RunResults,
    key: String,
    source: &str,
    ab: Option<&AbReport>,
    revision: Option<&str>,
    cells: &[&Cell],
) -> Result<Imported, HistoryError> {
    let e = &run.environment;
    let inserted = backend.execute(
            "INSERT INTO runs (key, started_at, kind, restbench_version, cpu_model, cores, kernel, backend, hostname, source, revision, duet) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (key) DO NOTHING",
            &[
                Value::text(&key),
                Value::text(&run.started_at),
                Value::text(&run.kind),
                Value::text(&e.restbench_version),
                Value::text(&e.cpu_model),
                Value::I(Some(i64::from(e.cores))),
                Value::text(&e.kernel),
                Value::text(&e.backend),
                Value::text(&e.hostname),
                Value::text(source),
                Value::T(revision.map(str::to_string)),
                Value::I(Some(i64::from(is_duet(run)))),
            ],
        )?;
    if inserted == 0 {
        return Ok(Imported {
            key,
            stored: false,
            cells: cells.len(),
        });
    }
    for (i, cell) in cells.iter().enumerate() {
        insert_cell(backend, &key, i, cell, ab, revision)?;
    }
    Ok(Imported {
        key,
        stored: true,
        cells: cells.len(),
    })
}

/// One cell of the run `key`, inside the import's transaction.
fn insert_cell(
    backend: &mut Backend,
    key: &str,
    index: usize,
    cell: &Cell,
    ab: Option<&AbReport>,
    revision: Option<&str>,
) -> Result<(), HistoryError> {
    let (base, rev_in_id) = split_revision(&cell.subject);
    let side = ab.and_then(|r| [&r.a, &r.b].into_iter().find(|s| s.id == cell.subject));
    let revision = side
        .and_then(|s| s.commit.clone())
        .or(rev_in_id.filter(|_| ab.is_none()).map(str::to_string))
        .or(revision.map(str::to_string));
    let source_hash = side.map(|s| s.source_hash.clone()).unwrap_or_default();
    let mut values = vec![
        Value::text(key),
        Value::I(Some(index as i64)),
        Value::text(base),
        Value::text(&cell.subject),
        Value::T(revision),
        Value::text(&source_hash),
        Value::text(&cell.workload),
        Value::text(&cell.scenario),
        Value::text(&cell.protocol),
    ];
    for measure in Measure::ALL {
        let (value, interval) = figure_of(cell, measure);
        values.push(Value::F(value));
        values.push(Value::F(interval.map(|i| i.0)));
        values.push(Value::F(interval.map(|i| i.1)));
    }
    let columns = Measure::ALL
        .iter()
        .map(|m| format!("{m}, {m}_low, {m}_high"))
        .collect::<Vec<_>>()
        .join(", ");
    let params = (1..=values.len())
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ");
    backend.execute(
            &format!(
                "INSERT INTO cells (run_key, idx, subject, subject_id, revision, source_hash, workload, scenario, protocol, {columns}) VALUES ({params})"
            ),
            &values,
        )?;
    Ok(())
}

/// The migrations not yet recorded in `backend`, applied (inside [`History::migrate`]'s
/// transaction).
fn migrate(backend: &mut Backend) -> Result<(), HistoryError> {
    backend.batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version {int} PRIMARY KEY, applied_at TEXT NOT NULL)",
    )?;
    let applied: Vec<i64> = backend
        .query("SELECT version FROM schema_migrations", &[])?
        .into_iter()
        .filter_map(|r| r.first().and_then(Value::as_i64))
        .collect();
    for (version, ddl) in MIGRATIONS {
        if applied.contains(version) {
            continue;
        }
        backend.batch(ddl)?;
        backend.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
            &[
                Value::I(Some(*version)),
                Value::T(Some(restbench_model::vocabulary::time::utc_stamp())),
            ],
        )?;
    }
    Ok(())
}

/// Whether the run measured its cells as a duet (`restbench ab`): at once, sharing the server
/// CPUs, so its figures compare only with other duets.
pub fn is_duet(run: &RunResults) -> bool {
    run.protocol.rounds.as_ref().is_some_and(|r| r.duet)
}

/// The hash of a run's document: the same document, the same key.
pub fn run_key(run: &RunResults) -> Result<String, HistoryError> {
    let text = serde_json::to_vec(run)?;
    let digest = Sha256::digest(&text);
    Ok(digest.iter().take(16).map(|b| format!("{b:02x}")).collect())
}

/// A cell's figure of `measure` and its interval: the cell's own (rounds), else over its
/// repeats.
fn figure_of(cell: &Cell, measure: Measure) -> (Option<f64>, Option<(f64, f64)>) {
    let own = cell.intervals.as_ref().and_then(|i| match measure {
        Measure::Rps => Some(i.rps),
        Measure::P99 => i.p99_us,
        Measure::CpuUsPerReq => i.cpu_us_per_req,
        _ => None,
    });
    let interval = own.or_else(|| log_interval(&repeat_figures(cell, measure)));
    (
        cell_figure(cell, measure),
        interval.map(|i| (i.low, i.high)),
    )
}

/// A row of [`History::points`]' query read back as a point: any values (a history file is
/// anyone's to edit) give a point, never a panic (the fuzz target `history_rows`).
pub fn point(r: &[Value]) -> HistoryPoint {
    let t = |i: usize| r.get(i).and_then(Value::as_text).unwrap_or_default();
    let f = |i: usize| r.get(i).and_then(Value::as_f64);
    let figures = Measure::ALL
        .iter()
        .enumerate()
        .filter_map(|(k, &measure)| {
            let at = 14 + 3 * k;
            Some(StoredFigure {
                measure,
                value: f(at)?,
                low: f(at + 1),
                high: f(at + 2),
            })
        })
        .collect();
    HistoryPoint {
        run: t(0),
        started_at: t(1),
        subject: t(2),
        revision: r.get(3).and_then(Value::as_text).filter(|s| !s.is_empty()),
        source_hash: t(4),
        workload: t(5),
        scenario: t(6),
        protocol: t(7),
        machine: MachineFacts {
            cpu_model: t(8),
            cores: r.get(9).and_then(Value::as_i64).unwrap_or(0) as u32,
            kernel: t(10),
            backend: t(11),
        },
        restbench_version: t(12),
        duet: r.get(13).and_then(Value::as_i64).unwrap_or(0) != 0,
        figures,
    }
}
