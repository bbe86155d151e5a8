//! Exports as hyperfine writes them (`--export-json`, `--export-csv`, `--export-markdown`): one
//! row per `load` run, or one row per cell of `run`/`study`, for spreadsheets, scripts and pages.
//!
//! [`table`] turns the model's documents into rows of typed fields (the columns are defined once,
//! here); [`json`], [`csv`] and [`markdown_table`] render them, one module per format as
//! hyperfine's `src/export/`. [`Exports`] opens every requested file before any load starts, so a path that
//! cannot be written fails the command at once instead of after minutes of measuring.
//! [`hgrm`] writes a latency histogram as HdrHistogram's percentile distribution (`--hdr`).

pub mod csv;
pub mod hgrm;
pub mod json;
pub mod markdown_table;
pub mod table;

use std::path::{Path, PathBuf};

use restbench_model::{LoadResult, RunResults};

pub use table::{Field, Table};

/// One export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
    Markdown,
}

impl Format {
    /// The option that asks for it, for messages.
    pub fn option(self) -> &'static str {
        match self {
            Format::Json => "--export-json",
            Format::Csv => "--export-csv",
            Format::Markdown => "--export-markdown",
        }
    }
}

/// Why an export could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{option}: cannot write {}: {cause} (choose a path in a folder you can write to)", path.display())]
    Open {
        option: &'static str,
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{option}: cannot write {}: {cause}", path.display())]
    Write {
        option: &'static str,
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("{} is given to both {first} and {second}: give each export its own file", path.display())]
    SamePath {
        first: &'static str,
        second: &'static str,
        path: PathBuf,
    },
}

/// The export files a command was asked for, created (and so checked) up front.
#[derive(Debug, Default)]
pub struct Exports {
    files: Vec<(Format, PathBuf)>,
}

impl Exports {
    /// Checks each requested file now (opened for writing, created if missing, an existing one
    /// left as it is), so that an unwritable path is an error before any load starts. The
    /// exports are written at the end, each replaced atomically: a full disk keeps the previous
    /// file whole.
    pub fn open(requests: &[(Format, Option<&Path>)]) -> Result<Self, ExportError> {
        let mut files: Vec<(Format, PathBuf)> = Vec::new();
        for (format, path) in requests {
            let Some(path) = path else { continue };
            if let Some((first, _)) = files.iter().find(|(_, p)| p == path) {
                return Err(ExportError::SamePath {
                    first: first.option(),
                    second: format.option(),
                    path: path.to_path_buf(),
                });
            }
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
                .map_err(|cause| ExportError::Open {
                    option: format.option(),
                    path: path.to_path_buf(),
                    cause,
                })?;
            files.push((*format, path.to_path_buf()));
        }
        Ok(Self { files })
    }

    /// True when no export was asked for.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Writes a `load` result: one row.
    pub fn write_load(self, r: &LoadResult) -> Result<Vec<PathBuf>, ExportError> {
        let table = table::load(r);
        self.write(|format| match format {
            Format::Json => json::render(&table),
            Format::Csv => csv::render(&table),
            Format::Markdown => markdown_table::load(r),
        })
    }

    /// Writes the cells of one or more runs (`study all` passes each study's): a row per cell.
    pub fn write_runs(self, runs: &[&RunResults]) -> Result<Vec<PathBuf>, ExportError> {
        let table = table::cells(runs);
        self.write(|format| match format {
            Format::Json => json::render(&table),
            Format::Csv => csv::render(&table),
            Format::Markdown => markdown_table::runs(runs),
        })
    }

    fn write(self, render: impl Fn(Format) -> String) -> Result<Vec<PathBuf>, ExportError> {
        let mut written = Vec::new();
        for (format, path) in self.files {
            restbench_model::documents::io::write_atomic(&path, render(format).as_bytes())
                .map_err(|cause| ExportError::Write {
                    option: format.option(),
                    path: path.clone(),
                    cause,
                })?;
            written.push(path);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unwritable_path_fails_when_opened() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("no/such/folder/out.csv");
        let err = Exports::open(&[(Format::Csv, Some(&bad))]).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("--export-csv") && text.contains("no/such/folder"),
            "{text}"
        );
        let same = dir.path().join("x");
        let err =
            Exports::open(&[(Format::Csv, Some(&same)), (Format::Json, Some(&same))]).unwrap_err();
        assert!(
            err.to_string()
                .contains("both --export-csv and --export-json")
        );
        assert!(Exports::open(&[(Format::Json, None)]).unwrap().is_empty());
    }

    #[test]
    fn each_format_lands_in_its_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let (j, c, m) = (
            dir.path().join("a.json"),
            dir.path().join("a.csv"),
            dir.path().join("a.md"),
        );
        let exports = Exports::open(&[
            (Format::Json, Some(&j)),
            (Format::Csv, Some(&c)),
            (Format::Markdown, Some(&m)),
        ])
        .unwrap();
        // Created up front, empty until written.
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "");
        let run = table::tests::fixture_run();
        let written = exports.write_runs(&[&run]).unwrap();
        assert_eq!(written, vec![j.clone(), c.clone(), m.clone()]);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
        assert_eq!(json["results"].as_array().unwrap().len(), run.cells.len());
        let csv = std::fs::read_to_string(&c).unwrap();
        assert_eq!(csv.lines().count(), run.cells.len() + 1);
        assert!(std::fs::read_to_string(&m).unwrap().contains("| subject |"));
    }
}
