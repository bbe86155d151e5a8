//! `load --timeseries FILE`: one NDJSON line per second of the measured run, written while it
//! goes (`-` streams to stdout), as zrk writes its time series. Each line is the difference of
//! two readings of the engine's live counters a second apart; its percentiles come from the
//! coarse live histogram (about 12 % wide buckets, added by each thread when its second ends),
//! while the exact per-second figures are in the result's `timeseries`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use serde::Serialize;

/// One second (or the last, partial interval) of the run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Line {
    /// Seconds since measuring started, at the end of this interval.
    pub t_s: f64,
    /// The interval's length in seconds (about 1; the last one may be shorter).
    pub interval_s: f64,
    pub requests: u64,
    pub errors: u64,
    pub rps: f64,
    pub sent: u64,
    pub shed: u64,
    /// Open loop: requests due by now but not yet sent, at the end of the interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backlog: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p50_us: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p90_us: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p999_us: Option<u64>,
}

/// Where the lines go, opened before the load.
pub struct Timeseries {
    out: Box<dyn Write + Send>,
    path: String,
}

impl Timeseries {
    pub fn open(path: Option<&Path>) -> anyhow::Result<Option<Self>> {
        let Some(path) = path else {
            return Ok(None);
        };
        if path.as_os_str() == "-" {
            return Ok(Some(Self {
                out: Box::new(io::stdout()),
                path: "stdout".into(),
            }));
        }
        let file = File::create(path).with_context(|| {
            format!(
                "cannot write --timeseries to {} (checked before the load)",
                path.display()
            )
        })?;
        Ok(Some(Self {
            out: Box::new(BufWriter::new(file)),
            path: path.display().to_string(),
        }))
    }

    /// True when the lines go to stdout (the text report then goes to stderr).
    pub fn is_stdout(path: Option<&Path>) -> bool {
        path.is_some_and(|p| p.as_os_str() == "-")
    }

    /// Writes one line and flushes it, so that a reader sees each second as it ends.
    pub fn write(&mut self, line: &Line) -> io::Result<()> {
        serde_json::to_writer(&mut self.out, line).map_err(io::Error::from)?;
        self.out.write_all(b"\n")?;
        self.out.flush()
    }

    pub fn path(&self) -> &str {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_one_json_object_without_absent_figures() {
        let line = Line {
            t_s: 2.0,
            interval_s: 1.0,
            requests: 10,
            errors: 0,
            rps: 10.0,
            sent: 10,
            shed: 0,
            backlog: None,
            p50_us: Some(100),
            p90_us: None,
            p99_us: None,
            p999_us: None,
        };
        let text = serde_json::to_string(&line).unwrap();
        assert!(!text.contains('\n'));
        assert!(
            text.contains("\"p50_us\":100") && !text.contains("p99_us"),
            "{text}"
        );
    }
}
