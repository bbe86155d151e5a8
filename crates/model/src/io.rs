//! Reading and writing `results.json`: the only place that knows the file's name and how it is
//! replaced, so `report` and `compare` read runs without the harness.

use std::io;
use std::path::{Path, PathBuf};

use crate::RunResults;

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
    let text = std::fs::read_to_string(path).map_err(|source| DocumentError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| DocumentError::Parse {
        path: path.to_path_buf(),
        source,
    })
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
}
