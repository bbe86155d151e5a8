//! What a document must hold before anything is computed or allocated from it: documents come
//! from other machines and other hands (`merge` takes shards from every generator), so every
//! count, bound, index and time is checked here, with the field it failed at. The limits are
//! generous for any real run and small enough that nothing sized by them can exhaust memory.

use std::path::Path;

use crate::{ErrorCounts, LoadResult, RunResults, SecondSample, Shard};

/// The longest series of seconds a document may hold or a merge may build: one week.
pub const MAX_SERIES_SECONDS: u64 = 7 * 24 * 3600;
/// The most generators one load may be split over (`--shard I/N`).
pub const MAX_SHARDS: u32 = 10_000;
/// The latest wall-clock start a document may claim: 9999-12-31, in Unix milliseconds (a
/// larger number is no time restbench wrote).
pub const MAX_UNIX_MS: u64 = 253_402_300_799_999;

/// A field that failed, before it is known which file it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// A JSON path: `timeseries[3].second`.
    pub field: String,
    pub problem: String,
}

impl Invalid {
    fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            problem: problem.into(),
        }
    }

    /// The error naming the file it was read from.
    pub fn at(self, path: &Path) -> crate::DocumentError {
        crate::DocumentError::Invalid {
            path: path.to_path_buf(),
            field: self.field,
            problem: self.problem,
        }
    }

    /// The field as seen from its container: `cells[2].` + `histogram`.
    fn within(mut self, prefix: &str) -> Self {
        self.field = format!("{prefix}.{}", self.field);
        self
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.field, self.problem)
    }
}

/// Checks a `load --json` document (a merged one too).
pub fn load(r: &LoadResult) -> Result<(), Invalid> {
    duration("duration_s", r.duration_s)?;
    if let Some(d) = r.settings.duration_s {
        duration("settings.duration_s", d)?;
    }
    start("started_at_unix_ms", r.started_at_unix_ms)?;
    if let Some(s) = r.shard {
        shard("shard", s)?;
    }
    for (i, s) in r.shards.iter().enumerate() {
        let field = format!("shards[{i}]");
        if let Some(sh) = s.shard {
            shard(&format!("{field}.shard"), sh)?;
        }
        duration(&format!("{field}.duration_s"), s.duration_s)?;
        start(&format!("{field}.started_at_unix_ms"), s.started_at_unix_ms)?;
    }
    error_total("errors", &r.errors)?;
    let accounted = r
        .requests
        .checked_add(r.errors.unanswered())
        .and_then(|n| n.checked_add(r.in_flight));
    if accounted.is_none() {
        return Err(Invalid::new(
            "requests",
            "with the unanswered and in-flight requests adds up to more than 2^64",
        ));
    }
    sum("status_counts", r.status_counts.values().copied())?;
    series("timeseries", &r.timeseries)?;
    histogram_text("histogram", &r.histogram)?;
    if let Some(text) = &r.uncorrected_histogram {
        histogram_text("uncorrected_histogram", text)?;
    }
    Ok(())
}

/// Checks a run's `results.json`: each cell's counts, histogram and repeats' seconds.
pub fn run(r: &RunResults) -> Result<(), Invalid> {
    for (i, c) in r.cells.iter().enumerate() {
        let within = |e: Invalid| e.within(&format!("cells[{i}]"));
        error_total("errors", &c.errors).map_err(within)?;
        if let Some(text) = &c.histogram {
            histogram_text("histogram", text).map_err(within)?;
        }
        duration("warmup_s", c.warmup_s).map_err(within)?;
        for (j, rep) in c.repeats.iter().enumerate() {
            let within = |e: Invalid| e.within(&format!("cells[{i}].repeats[{j}]"));
            duration("duration_s", rep.duration_s).map_err(within)?;
            error_total("errors", &rep.errors).map_err(within)?;
            series("timeseries", &rep.timeseries).map_err(within)?;
        }
        for (j, g) in c.generators.iter().enumerate() {
            let within = |e: Invalid| e.within(&format!("cells[{i}].generators[{j}]"));
            if let Some(s) = g.shard {
                shard("shard", s).map_err(within)?;
            }
            duration("duration_s", g.duration_s).map_err(within)?;
        }
    }
    Ok(())
}

/// `I/N` with `1 <= N <= MAX_SHARDS` and `I < N`, as `--shard` takes it.
pub fn shard(field: &str, s: Shard) -> Result<(), Invalid> {
    if s.count == 0 || s.count > MAX_SHARDS {
        return Err(Invalid::new(
            format!("{field}.count"),
            format!(
                "is {}: a load is split over 1 to {MAX_SHARDS} shards",
                s.count
            ),
        ));
    }
    if s.index >= s.count {
        return Err(Invalid::new(
            format!("{field}.index"),
            format!(
                "is {} of {}: shards count from 0, below the count",
                s.index, s.count
            ),
        ));
    }
    Ok(())
}

/// A length of time in seconds: finite, not negative, at most [`MAX_SERIES_SECONDS`].
fn duration(field: &str, s: f64) -> Result<(), Invalid> {
    if s.is_finite() && (0.0..=MAX_SERIES_SECONDS as f64).contains(&s) {
        Ok(())
    } else {
        Err(Invalid::new(
            field,
            format!("is {s}: a duration is 0 to {MAX_SERIES_SECONDS} seconds"),
        ))
    }
}

fn start(field: &str, ms: Option<u64>) -> Result<(), Invalid> {
    match ms {
        Some(ms) if ms > MAX_UNIX_MS => Err(Invalid::new(
            field,
            format!("is {ms}: later than the year 9999 in Unix milliseconds"),
        )),
        _ => Ok(()),
    }
}

/// Seconds within [`MAX_SERIES_SECONDS`], and counts whose sums fit.
fn series(field: &str, seconds: &[SecondSample]) -> Result<(), Invalid> {
    for (i, s) in seconds.iter().enumerate() {
        if u64::from(s.second) >= MAX_SERIES_SECONDS {
            return Err(Invalid::new(
                format!("{field}[{i}].second"),
                format!(
                    "is {}: a series holds at most {MAX_SERIES_SECONDS} seconds (one week)",
                    s.second
                ),
            ));
        }
    }
    sum(
        &format!("{field}[].requests"),
        seconds.iter().map(|s| s.requests),
    )?;
    sum(
        &format!("{field}[].errors"),
        seconds.iter().map(|s| s.errors),
    )
}

fn error_total(field: &str, e: &ErrorCounts) -> Result<(), Invalid> {
    let ErrorCounts {
        connect,
        read,
        write,
        timeout,
        status,
        parse,
        protocol,
        tls,
        reset,
    } = *e;
    sum(
        field,
        [
            connect, read, write, timeout, status, parse, protocol, tls, reset,
        ],
    )
}

fn sum(field: &str, counts: impl IntoIterator<Item = u64>) -> Result<(), Invalid> {
    counts
        .into_iter()
        .try_fold(0u64, u64::checked_add)
        .map(|_| ())
        .ok_or_else(|| Invalid::new(field, "add up to more than 2^64"))
}

/// Decodes, within [`crate::histogram::decode`]'s limits (its header is checked before anything
/// is allocated from it); an empty text is no histogram.
fn histogram_text(field: &str, text: &str) -> Result<(), Invalid> {
    if text.is_empty() {
        return Ok(());
    }
    crate::histogram::decode(text)
        .map(|_| ())
        .map_err(|e| Invalid::new(field, format!("cannot be read: {e}")))
}
