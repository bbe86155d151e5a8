//! What a document must hold before anything is computed or allocated from it: documents come
//! from other machines and other hands (`merge` takes shards from every generator), so every
//! count, bound, index and time is checked, with the field it failed at. The checks live here;
//! which of them a document runs stands beside its type, in its
//! [`Document::validate`](super::Document::validate). The limits are
//! generous for any real run and small enough that nothing sized by them can exhaust memory.

use std::path::Path;

use crate::{ErrorCounts, SecondSample, Shard};

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
    pub(crate) fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
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
    pub(crate) fn within(mut self, prefix: &str) -> Self {
        self.field = format!("{prefix}.{}", self.field);
        self
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.field, self.problem)
    }
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
pub(crate) fn duration(field: &str, s: f64) -> Result<(), Invalid> {
    if s.is_finite() && (0.0..=MAX_SERIES_SECONDS as f64).contains(&s) {
        Ok(())
    } else {
        Err(Invalid::new(
            field,
            format!("is {s}: a duration is 0 to {MAX_SERIES_SECONDS} seconds"),
        ))
    }
}

pub(crate) fn start(field: &str, ms: Option<u64>) -> Result<(), Invalid> {
    match ms {
        Some(ms) if ms > MAX_UNIX_MS => Err(Invalid::new(
            field,
            format!("is {ms}: later than the year 9999 in Unix milliseconds"),
        )),
        _ => Ok(()),
    }
}

/// Seconds within [`MAX_SERIES_SECONDS`], and counts whose sums fit.
pub(crate) fn series(field: &str, seconds: &[SecondSample]) -> Result<(), Invalid> {
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

pub(crate) fn error_total(field: &str, e: &ErrorCounts) -> Result<(), Invalid> {
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

pub(crate) fn sum(field: &str, counts: impl IntoIterator<Item = u64>) -> Result<(), Invalid> {
    counts
        .into_iter()
        .try_fold(0u64, u64::checked_add)
        .map(|_| ())
        .ok_or_else(|| Invalid::new(field, "add up to more than 2^64"))
}

/// Decodes, within [`crate::documents::histogram::decode`]'s limits (its header is checked before anything
/// is allocated from it); an empty text is no histogram.
pub(crate) fn histogram_text(field: &str, text: &str) -> Result<(), Invalid> {
    if text.is_empty() {
        return Ok(());
    }
    crate::documents::histogram::decode(text)
        .map(|_| ())
        .map_err(|e| Invalid::new(field, format!("cannot be read: {e}")))
}
