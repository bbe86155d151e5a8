//! The two databases behind one small interface: statements with `$1` parameters, values of
//! three types, and the migrations with `{int}`/`{real}` for each dialect's column types.

use std::path::Path;

use super::HistoryError;

/// The migrations, in order; each runs once and is recorded in `schema_migrations`.
pub const MIGRATIONS: &[(i64, &str)] = &[
    (
        1,
        "CREATE TABLE runs (key TEXT PRIMARY KEY, started_at TEXT NOT NULL, kind TEXT NOT NULL, \
     restbench_version TEXT NOT NULL, cpu_model TEXT NOT NULL, cores {int} NOT NULL, \
     kernel TEXT NOT NULL, backend TEXT NOT NULL, hostname TEXT NOT NULL, source TEXT NOT NULL, \
     revision TEXT);
     CREATE TABLE cells (run_key TEXT NOT NULL REFERENCES runs (key), idx {int} NOT NULL, \
     subject TEXT NOT NULL, subject_id TEXT NOT NULL, revision TEXT, source_hash TEXT NOT NULL, \
     workload TEXT NOT NULL, scenario TEXT NOT NULL, protocol TEXT NOT NULL, \
     rps {real}, rps_low {real}, rps_high {real}, p50 {real}, p50_low {real}, p50_high {real}, \
     p99 {real}, p99_low {real}, p99_high {real}, \
     cpu_us_per_req {real}, cpu_us_per_req_low {real}, cpu_us_per_req_high {real}, \
     rss {real}, rss_low {real}, rss_high {real}, PRIMARY KEY (run_key, idx));
     CREATE INDEX cells_by_cell ON cells (subject, workload, scenario, protocol);",
    ),
    // A duet's servers share the server CPUs: its figures compare only with other duets.
    (
        2,
        "ALTER TABLE runs ADD COLUMN duet {int} NOT NULL DEFAULT 0;",
    ),
];

/// The key of the PostgreSQL advisory lock the migrations are run under ("rbhist" in ASCII).
const MIGRATION_LOCK: i64 = 0x7262_6869_7374;

/// A parameter or a column's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    I(Option<i64>),
    F(Option<f64>),
    T(Option<String>),
}

impl Value {
    pub fn text(s: &str) -> Self {
        Value::T(Some(s.to_string()))
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::I(v) => *v,
            Value::F(v) => v.map(|f| f as i64),
            Value::T(_) => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F(v) => *v,
            Value::I(v) => v.map(|i| i as f64),
            Value::T(_) => None,
        }
    }

    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::T(v) => v.clone(),
            _ => None,
        }
    }
}

pub enum Backend {
    Sqlite(rusqlite::Connection),
    Postgres(Box<postgres::Client>),
}

fn lite(what: &str) -> impl FnOnce(rusqlite::Error) -> HistoryError + '_ {
    move |e| HistoryError::Sqlite(what.to_string(), e)
}

fn pg(what: &str) -> impl FnOnce(postgres::Error) -> HistoryError + '_ {
    move |e| HistoryError::Postgres(what.to_string(), e)
}

impl Backend {
    pub fn sqlite(path: &Path) -> Result<Self, HistoryError> {
        let c = rusqlite::Connection::open(path).map_err(lite("cannot open the file"))?;
        c.execute_batch("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;")
            .map_err(lite("cannot set up the file"))?;
        Ok(Backend::Sqlite(c))
    }

    pub fn postgres(url: &str) -> Result<Self, HistoryError> {
        let mut config: postgres::Config = url.parse().map_err(pg("invalid URL"))?;
        config.connect_timeout(std::time::Duration::from_secs(5));
        let client = config
            .connect(postgres::NoTls)
            .map_err(pg("cannot connect"))?;
        Ok(Backend::Postgres(Box::new(client)))
    }

    /// Runs `work` in one transaction: all of it is stored, or (on any error, a full disk
    /// included) none of it. SQLite takes the write lock at once (`BEGIN IMMEDIATE`, waiting
    /// out another writer within the busy timeout), so two writers never both read and then
    /// collide; with `migrating`, PostgreSQL takes an advisory lock held to the commit, so two
    /// first opens never both create the tables.
    pub fn transaction<T>(
        &mut self,
        migrating: bool,
        work: impl FnOnce(&mut Self) -> Result<T, HistoryError>,
    ) -> Result<T, HistoryError> {
        match self {
            Backend::Sqlite(c) => c
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(lite("cannot begin a transaction"))?,
            Backend::Postgres(c) => {
                c.batch_execute("BEGIN")
                    .map_err(pg("cannot begin a transaction"))?;
                if migrating {
                    c.batch_execute(&format!("SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
                        .map_err(pg("cannot lock the migrations"))?;
                }
            }
        }
        let done = work(self);
        let end = if done.is_ok() { "COMMIT" } else { "ROLLBACK" };
        let ended = match self {
            Backend::Sqlite(c) => c.execute_batch(end).map_err(lite("cannot commit")),
            Backend::Postgres(c) => c.batch_execute(end).map_err(pg("cannot commit")),
        };
        match (done, ended) {
            (Ok(v), Ok(())) => Ok(v),
            (Err(e), _) | (Ok(_), Err(e)) => Err(e),
        }
    }

    /// DDL with the dialect's types.
    pub fn batch(&mut self, ddl: &str) -> Result<(), HistoryError> {
        match self {
            Backend::Sqlite(c) => c
                .execute_batch(&ddl.replace("{int}", "INTEGER").replace("{real}", "REAL"))
                .map_err(lite("cannot migrate")),
            Backend::Postgres(c) => c
                .batch_execute(
                    &ddl.replace("{int}", "BIGINT")
                        .replace("{real}", "DOUBLE PRECISION"),
                )
                .map_err(pg("cannot migrate")),
        }
    }

    /// A statement; the rows it changed.
    pub fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, HistoryError> {
        match self {
            Backend::Sqlite(c) => c
                .execute(&sql.replace('$', "?"), rusqlite::params_from_iter(params))
                .map(|n| n as u64)
                .map_err(lite("cannot write")),
            Backend::Postgres(c) => {
                let boxed = pg_params(params);
                let refs: Vec<&(dyn postgres::types::ToSql + Sync)> =
                    boxed.iter().map(|b| b.as_ref()).collect();
                c.execute(sql, &refs).map_err(pg("cannot write"))
            }
        }
    }

    /// A query's rows.
    pub fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, HistoryError> {
        match self {
            Backend::Sqlite(c) => {
                let mut stmt = c
                    .prepare(&sql.replace('$', "?"))
                    .map_err(lite("cannot read"))?;
                let n = stmt.column_count();
                let rows = stmt
                    .query_map(rusqlite::params_from_iter(params), |row| {
                        (0..n).map(|i| lite_value(row.get_ref(i)?)).collect()
                    })
                    .map_err(lite("cannot read"))?;
                rows.collect::<Result<_, _>>().map_err(lite("cannot read"))
            }
            Backend::Postgres(c) => {
                let boxed = pg_params(params);
                let refs: Vec<&(dyn postgres::types::ToSql + Sync)> =
                    boxed.iter().map(|b| b.as_ref()).collect();
                let rows = c.query(sql, &refs).map_err(pg("cannot read"))?;
                rows.iter()
                    .map(|row| (0..row.len()).map(|i| pg_value(row, i)).collect())
                    .collect::<Result<_, _>>()
                    .map_err(pg("cannot read"))
            }
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        match self {
            Value::I(v) => v.to_sql(),
            Value::F(v) => v.to_sql(),
            Value::T(v) => v.to_sql(),
        }
    }
}

fn lite_value(v: rusqlite::types::ValueRef<'_>) -> rusqlite::Result<Value> {
    use rusqlite::types::ValueRef;
    Ok(match v {
        ValueRef::Null => Value::T(None),
        ValueRef::Integer(i) => Value::I(Some(i)),
        ValueRef::Real(f) => Value::F(Some(f)),
        ValueRef::Text(t) => Value::T(Some(String::from_utf8_lossy(t).into_owned())),
        ValueRef::Blob(_) => Value::T(None),
    })
}

fn pg_params(params: &[Value]) -> Vec<Box<dyn postgres::types::ToSql + Sync>> {
    params
        .iter()
        .map(|v| -> Box<dyn postgres::types::ToSql + Sync> {
            match v {
                Value::I(x) => Box::new(*x),
                Value::F(x) => Box::new(*x),
                Value::T(x) => Box::new(x.clone()),
            }
        })
        .collect()
}

fn pg_value(row: &postgres::Row, i: usize) -> Result<Value, postgres::Error> {
    use postgres::types::Type;
    let ty = row.columns()[i].type_().clone();
    Ok(if ty == Type::INT8 {
        Value::I(row.try_get(i)?)
    } else if ty == Type::INT4 {
        Value::I(row.try_get::<_, Option<i32>>(i)?.map(i64::from))
    } else if ty == Type::FLOAT8 {
        Value::F(row.try_get(i)?)
    } else {
        Value::T(row.try_get(i)?)
    })
}
