//! The rows every export format shares: columns named once, values typed, nothing formatted for
//! reading (seconds, microseconds, bytes and plain counts, so that a spreadsheet can compute).

use restbench_model::{Cell, CellStatus, LoadResult, RunResults};
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::cells::{cell_labels, first_line, per_cpu_second, per_mb, single_repeat, status_word};

/// One value of a row. `Empty` where a figure does not exist (a failed cell's req/s, the cv of a
/// single repeat): JSON `null`, an empty CSV field.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    Text(String),
    Int(u64),
    Float(f64),
    Bool(bool),
    List(Vec<String>),
    Empty,
}

impl From<&str> for Field {
    fn from(s: &str) -> Self {
        Field::Text(s.to_string())
    }
}
impl From<String> for Field {
    fn from(s: String) -> Self {
        Field::Text(s)
    }
}
impl From<u64> for Field {
    fn from(v: u64) -> Self {
        Field::Int(v)
    }
}
impl From<u32> for Field {
    fn from(v: u32) -> Self {
        Field::Int(v.into())
    }
}
impl From<f64> for Field {
    fn from(v: f64) -> Self {
        if v.is_finite() {
            Field::Float(v)
        } else {
            Field::Empty
        }
    }
}
impl From<bool> for Field {
    fn from(v: bool) -> Self {
        Field::Bool(v)
    }
}
impl<T: Into<Field>> From<Option<T>> for Field {
    fn from(v: Option<T>) -> Self {
        v.map_or(Field::Empty, Into::into)
    }
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Text(t) => s.serialize_str(t),
            Field::Int(v) => s.serialize_u64(*v),
            Field::Float(v) => s.serialize_f64(*v),
            Field::Bool(v) => s.serialize_bool(*v),
            Field::List(v) => v.serialize(s),
            Field::Empty => s.serialize_none(),
        }
    }
}

/// Rows under named columns: what `load` (one row) or `run`/`study` (a row per cell) exports.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// `load` or `cells`: what a row stands for.
    pub rows_are: &'static str,
    pub columns: Vec<&'static str>,
    pub rows: Vec<Vec<Field>>,
}

/// One row with its column names, serialized as a JSON object in column order.
pub struct Row<'a> {
    pub columns: &'a [&'static str],
    pub fields: &'a [Field],
}

impl Serialize for Row<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.columns.len()))?;
        for (k, v) in self.columns.iter().zip(self.fields) {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Table {
    /// Rows named column by column; every row must name exactly `columns`, in order.
    fn new(
        rows_are: &'static str,
        columns: &[&'static str],
        named: Vec<Vec<(&'static str, Field)>>,
    ) -> Self {
        let rows = named
            .into_iter()
            .map(|r| {
                debug_assert!(r.iter().map(|(k, _)| k).eq(columns.iter()));
                r.into_iter().map(|(_, v)| v).collect()
            })
            .collect();
        Self {
            rows_are,
            columns: columns.to_vec(),
            rows,
        }
    }

    /// Each row with its column names.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.rows.iter().map(|fields| Row {
            columns: &self.columns,
            fields,
        })
    }
}

/// The columns of [`load`], in order.
pub const LOAD_COLUMNS: &[&str] = &[
    "url",
    "method",
    "connections",
    "threads",
    "rate",
    "duration_s",
    "sent",
    "requests",
    "rps",
    "bytes_per_s",
    "latency_mean_us",
    "latency_stdev_us",
    "latency_min_us",
    "latency_p50_us",
    "latency_p75_us",
    "latency_p90_us",
    "latency_p99_us",
    "latency_p999_us",
    "latency_max_us",
    "errors",
    "errors_connect",
    "errors_read",
    "errors_write",
    "errors_timeout",
    "errors_status",
    "errors_parse",
    "thread_rps_mean",
    "thread_rps_stdev",
    "thread_rps_max",
    "loadgen_cpu_cores",
];

/// A `load` result as one row.
pub fn load(r: &LoadResult) -> Table {
    let s = &r.settings;
    let l = &r.latency_us;
    let e = &r.errors;
    let row: Vec<(&'static str, Field)> = vec![
        ("url", s.url.as_str().into()),
        ("method", s.method.as_str().into()),
        ("connections", s.connections.into()),
        ("threads", s.threads.into()),
        ("rate", s.rate.into()),
        ("duration_s", r.duration_s.into()),
        ("sent", r.sent.into()),
        ("requests", r.requests.into()),
        ("rps", r.rps.into()),
        ("bytes_per_s", r.bytes_per_s.into()),
        ("latency_mean_us", l.mean.into()),
        ("latency_stdev_us", l.stdev.into()),
        ("latency_min_us", l.min.into()),
        ("latency_p50_us", l.p50.into()),
        ("latency_p75_us", l.p75.into()),
        ("latency_p90_us", l.p90.into()),
        ("latency_p99_us", l.p99.into()),
        ("latency_p999_us", l.p999.into()),
        ("latency_max_us", l.max.into()),
        ("errors", e.total().into()),
        ("errors_connect", e.connect.into()),
        ("errors_read", e.read.into()),
        ("errors_write", e.write.into()),
        ("errors_timeout", e.timeout.into()),
        ("errors_status", e.status.into()),
        ("errors_parse", e.parse.into()),
        ("thread_rps_mean", r.thread_rps.mean.into()),
        ("thread_rps_stdev", r.thread_rps.stdev.into()),
        ("thread_rps_max", r.thread_rps.max.into()),
        ("loadgen_cpu_cores", r.loadgen_cpu.cores.into()),
    ];
    Table::new("load", LOAD_COLUMNS, vec![row])
}

/// The columns of [`cells`], in order.
pub const CELL_COLUMNS: &[&str] = &[
    "run",
    "subject",
    "variant",
    "language",
    "framework",
    "framework_version",
    "workload",
    "scenario",
    "status",
    "reason",
    "repeats",
    "rps_median",
    "rps_min",
    "rps_max",
    "rps_cv",
    "rps_ci95_low",
    "rps_ci95_high",
    "latency_p50_us",
    "latency_p90_us",
    "latency_p99_us",
    "latency_p999_us",
    "latency_max_us",
    "requests",
    "errors",
    "bytes_per_s",
    "server_cpu_cores",
    "server_cpu_us_per_req",
    "server_rss_peak_bytes",
    "req_per_cpu_s",
    "rps_per_mb",
    "loadgen_cpu_cores",
    "client_bound",
    "flags",
];

/// A row per cell of each run, in the runs' order.
pub fn cells(runs: &[&RunResults]) -> Table {
    let mut named = Vec::new();
    for run in runs {
        let cells: Vec<&Cell> = run.cells.iter().collect();
        for (c, label) in cells.iter().zip(cell_labels(&cells)) {
            named.push(cell_row(&run.kind, c, label.variant));
        }
    }
    Table::new("cells", CELL_COLUMNS, named)
}

fn cell_row(run: &str, c: &Cell, variant: Option<String>) -> Vec<(&'static str, Field)> {
    let ok = c.status == CellStatus::Ok;
    let measured = |v: Field| if ok { v } else { Field::Empty };
    let l = &c.latency_us;
    vec![
        ("run", run.into()),
        ("subject", c.subject.as_str().into()),
        ("variant", variant.into()),
        ("language", c.language.as_str().into()),
        ("framework", c.framework.as_str().into()),
        ("framework_version", c.framework_version.as_str().into()),
        ("workload", c.workload.as_str().into()),
        ("scenario", c.scenario.as_str().into()),
        ("status", status_word(c.status).into()),
        ("reason", c.reason.as_deref().map(first_line).into()),
        ("repeats", (c.repeats.len() as u64).into()),
        ("rps_median", measured(c.rps.median.into())),
        ("rps_min", measured(c.rps.min.into())),
        ("rps_max", measured(c.rps.max.into())),
        (
            "rps_cv",
            measured(if single_repeat(c) {
                Field::Empty
            } else {
                c.rps.cv.into()
            }),
        ),
        ("rps_ci95_low", measured(c.rps.ci95.map(|x| x[0]).into())),
        ("rps_ci95_high", measured(c.rps.ci95.map(|x| x[1]).into())),
        ("latency_p50_us", measured(l.p50.into())),
        ("latency_p90_us", measured(l.p90.into())),
        ("latency_p99_us", measured(l.p99.into())),
        ("latency_p999_us", measured(l.p999.into())),
        ("latency_max_us", measured(l.max.into())),
        ("requests", measured(c.requests.into())),
        ("errors", measured(c.errors.total().into())),
        ("bytes_per_s", measured(c.bytes_per_s.into())),
        ("server_cpu_cores", measured(c.server.cpu_cores.into())),
        (
            "server_cpu_us_per_req",
            measured(c.server.cpu_us_per_req.into()),
        ),
        (
            "server_rss_peak_bytes",
            measured(c.server.rss_peak_bytes.into()),
        ),
        ("req_per_cpu_s", measured(per_cpu_second(c).into())),
        ("rps_per_mb", measured(per_mb(c).into())),
        ("loadgen_cpu_cores", measured(c.loadgen.cpu_cores.into())),
        ("client_bound", c.loadgen.client_bound.into()),
        ("flags", Field::List(c.flags.clone())),
    ]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_support::cell;
    use restbench_model::{LatencySummary, RepeatResult};

    /// A run of three cells: measured with three repeats, measured once, and failed.
    pub(crate) fn fixture_run() -> RunResults {
        let mut three = cell("rust-axum", "plaintext", "all-cores", 120_000.0);
        three.latency_us = LatencySummary {
            p50: 442,
            p99: 1_830,
            ..Default::default()
        };
        three.flags = vec!["client_bound".into(), "noisy".into()];
        let repeat = RepeatResult {
            rps: 120_000.0,
            requests: 1,
            duration_s: 1.0,
            latency_us: LatencySummary::default(),
            errors: Default::default(),
            server_cpu_cores: 1.0,
            loadgen_cpu_cores: 1.0,
            round: None,
            saturation: None,
            timeseries: Vec::new(),
        };
        three.repeats = vec![repeat.clone(), repeat.clone(), repeat.clone()];
        let mut once = cell(
            "go-nethttp, \"std\"",
            "plaintext",
            "single-thread",
            40_000.0,
        );
        once.rps.cv = 0.0;
        once.rps.ci95 = None;
        once.repeats = vec![repeat];
        let mut failed = cell("node-http", "plaintext", "all-cores", 0.0);
        failed.status = CellStatus::Failed;
        failed.reason = Some("build failed: npm ci\nexit status 1".into());
        RunResults {
            schema_version: <RunResults as restbench_model::Document>::SCHEMA_VERSION,
            kind: "run".into(),
            started_at: "2026-01-01T00:00:00Z".into(),
            finished_at: None,
            interrupted: false,
            environment: Default::default(),
            protocol: Default::default(),
            cells: vec![three, once, failed],
            study: None,
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
            unserved: Vec::new(),
        }
    }

    #[test]
    fn a_row_per_cell_with_every_column() {
        let run = fixture_run();
        let t = cells(&[&run]);
        assert_eq!(t.rows.len(), 3);
        assert!(t.rows.iter().all(|r| r.len() == CELL_COLUMNS.len()));
        let named = cell_row("run", &run.cells[0], None);
        let names: Vec<&str> = named.iter().map(|(k, _)| *k).collect();
        assert_eq!(names, CELL_COLUMNS);
        let col = |name: &str| CELL_COLUMNS.iter().position(|c| *c == name).unwrap();
        assert_eq!(t.rows[0][col("rps_median")], Field::Float(120_000.0));
        assert_eq!(t.rows[0][col("latency_p50_us")], Field::Int(442));
        // One repeat: no spread; a failed cell: no figures, its reason's first line.
        assert_eq!(t.rows[1][col("rps_cv")], Field::Empty);
        assert_eq!(t.rows[2][col("rps_median")], Field::Empty);
        assert_eq!(t.rows[2][col("reason")], "build failed: npm ci".into());
    }

    #[test]
    fn a_load_result_is_one_row() {
        let names: Vec<&str> = LOAD_COLUMNS.to_vec();
        let t = load(&crate::test_support::load_result());
        assert_eq!(t.columns, names);
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0].len(), LOAD_COLUMNS.len());
    }
}
