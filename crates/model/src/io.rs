//! Reading and writing `results.json`: the only place that knows the file's name and how it is
//! replaced, so `report` and `compare` read runs without the harness. Every read checks
//! `schema_version` first: a document of a newer restbench is refused in one line rather than
//! rendered with fields silently misread.

use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::{LoadResult, RunResults, SCHEMA_VERSION};

/// The file a run writes into its folder.
pub const RESULTS_FILE: &str = "results.json";

/// Why a results document could not be read or written. The message names the file; the cause
/// is the error's source.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path} is not a restbench results document")]
    Parse {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "{path} has schema version {found}; this restbench reads version {SCHEMA_VERSION} (use the restbench that wrote it, or a newer one)"
    )]
    Version { path: PathBuf, found: u32 },
    #[error("{path}: {field} {problem}")]
    Invalid {
        path: PathBuf,
        /// Where in the document, as a JSON path: `timeseries[3].second`.
        field: String,
        problem: String,
    },
    #[error("cannot write results to {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Writes `dir/results.json` atomically (a temporary file renamed over the old one), so a reader
/// or an interrupt never sees half a document.
pub fn write_results(dir: &Path, results: &RunResults) -> Result<(), DocumentError> {
    let path = dir.join(RESULTS_FILE);
    let tmp = dir.join(format!(".{RESULTS_FILE}.tmp"));
    let text = serde_json::to_string_pretty(results).map_err(|e| DocumentError::Write {
        path: path.clone(),
        source: e.into(),
    })?;
    std::fs::write(&tmp, text).map_err(|source| DocumentError::Write {
        path: tmp.clone(),
        source,
    })?;
    std::fs::rename(&tmp, &path).map_err(|source| DocumentError::Write { path, source })
}

/// Reads a `results.json`.
pub fn read_results(path: &Path) -> Result<RunResults, DocumentError> {
    parse_results(&read_text(path)?, path)
}

/// Reads the JSON document of `restbench load --json`.
pub fn read_load(path: &Path) -> Result<LoadResult, DocumentError> {
    parse_load(&read_text(path)?, path)
}

/// A results document read from `path` (named in errors): parsed and validated.
pub fn parse_results(text: &str, path: &Path) -> Result<RunResults, DocumentError> {
    let results: RunResults = parse_versioned(text, path)?;
    crate::validate::run(&results).map_err(|e| e.at(path))?;
    Ok(results)
}

/// A `load --json` document read from `path` (named in errors): parsed and validated.
pub fn parse_load(text: &str, path: &Path) -> Result<LoadResult, DocumentError> {
    let load: LoadResult = parse_versioned(text, path)?;
    crate::validate::load(&load).map_err(|e| e.at(path))?;
    Ok(load)
}

fn read_text(path: &Path) -> Result<String, DocumentError> {
    std::fs::read_to_string(path).map_err(|source| DocumentError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Parses a document after checking its `schema_version` (0 and versions above ours are
/// refused; a missing one is left to the full parse, which names the field).
fn parse_versioned<T: DeserializeOwned>(text: &str, path: &Path) -> Result<T, DocumentError> {
    /// Only the version: serde skips every other field, so a document of another shape still
    /// gets the version message rather than a parse error about a field.
    #[derive(Deserialize)]
    struct Probe {
        schema_version: Option<u32>,
    }
    let parse_error = |source| DocumentError::Parse {
        path: path.to_path_buf(),
        source,
    };
    let probe: Probe = serde_json::from_str(text).map_err(parse_error)?;
    if let Some(found) = probe.schema_version
        && !(1..=SCHEMA_VERSION).contains(&found)
    {
        return Err(DocumentError::Version {
            path: path.to_path_buf(),
            found,
        });
    }
    serde_json::from_str(text).map_err(parse_error)
}

/// Reads a run given its folder or its `results.json`.
pub fn read_run(path: &Path) -> Result<RunResults, DocumentError> {
    if path.is_dir() {
        read_results(&path.join(RESULTS_FILE))
    } else {
        read_results(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("restbench-model-io-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn results_round_trip_and_errors_name_the_file_once() {
        let d = dir();
        let results = RunResults {
            schema_version: crate::SCHEMA_VERSION,
            kind: "run".into(),
            started_at: crate::time::utc_now(),
            finished_at: None,
            interrupted: false,
            environment: Default::default(),
            protocol: Default::default(),
            cells: Vec::new(),
            study: None,
            noisy_machine: None,
            conformance: Vec::new(),
        };
        write_results(&d, &results).unwrap();
        assert_eq!(read_run(&d).unwrap(), results);
        assert_eq!(read_run(&d.join(RESULTS_FILE)).unwrap(), results);
        std::fs::write(d.join("bad.json"), "{").unwrap();
        let e = read_results(&d.join("bad.json")).unwrap_err();
        assert!(matches!(e, DocumentError::Parse { .. }), "{e}");
        let missing = read_results(&d.join("missing.json")).unwrap_err();
        let source = std::error::Error::source(&missing).unwrap().to_string();
        assert!(!missing.to_string().contains(&source), "{missing}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn unknown_schema_versions_are_refused_in_one_line() {
        let d = std::env::temp_dir().join(format!(
            "restbench-model-io-versions-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        // Another shape entirely: the version is what is reported, not a missing field.
        for (file, text) in [
            (
                "future.json",
                r#"{"schema_version": 999, "cells": "new shape"}"#,
            ),
            ("zero.json", r#"{"schema_version": 0}"#),
        ] {
            let path = d.join(file);
            std::fs::write(&path, text).unwrap();
            for e in [
                read_results(&path).unwrap_err(),
                read_load(&path).unwrap_err(),
            ] {
                assert!(matches!(e, DocumentError::Version { .. }), "{e}");
                let msg = e.to_string();
                assert!(
                    !msg.contains('\n') && msg.contains("schema version"),
                    "{msg}"
                );
            }
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
