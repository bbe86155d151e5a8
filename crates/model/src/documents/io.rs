//! Reading and writing `results.json`: the only place that knows the file's name and how it is
//! replaced, so `report` and `compare` read runs without the harness. Every read checks
//! `schema_version` first: a document of a newer restbench is refused in one line rather than
//! rendered with fields silently misread.

use std::io;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::Document;
use crate::{LoadResult, RunResults};

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
        "{path} has schema version {found}; this restbench reads version {reads} (use the restbench that wrote it, or a newer one)"
    )]
    Version {
        path: PathBuf,
        found: u32,
        /// The highest version of this document this restbench reads.
        reads: u32,
    },
    #[error(transparent)]
    Limited(#[from] LimitedReadError),
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
    let text = serde_json::to_string_pretty(results).map_err(|e| DocumentError::Write {
        path: path.clone(),
        source: e.into(),
    })?;
    write_atomic(&path, text.as_bytes()).map_err(|source| DocumentError::Write { path, source })
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
    results.validate().map_err(|e| e.at(path))?;
    Ok(results)
}

/// A `load --json` document read from `path` (named in errors): parsed and validated.
pub fn parse_load(text: &str, path: &Path) -> Result<LoadResult, DocumentError> {
    let load: LoadResult = parse_versioned(text, path)?;
    load.validate().map_err(|e| e.at(path))?;
    Ok(load)
}

fn read_text(path: &Path) -> Result<String, DocumentError> {
    Ok(read_limited_string(path, DOCUMENT_LIMIT, "the document")?)
}

/// Parses a document after checking its `schema_version` (0 and versions above ours are
/// refused; a missing one is left to the full parse, which names the field).
fn parse_versioned<T: Document + DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<T, DocumentError> {
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
        && !(1..=T::SCHEMA_VERSION).contains(&found)
    {
        return Err(DocumentError::Version {
            path: path.to_path_buf(),
            found,
            reads: T::SCHEMA_VERSION,
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

// ---------------------------------------------------------------------------------------------
// Files read and written whole, for every crate: a stated size limit on each read, and each
// write a replacement that is either whole or not there.
// ---------------------------------------------------------------------------------------------

/// The most a results or load document may hold: far beyond a full grid of cells.
pub const DOCUMENT_LIMIT: u64 = 128 << 20;

/// Why a file read with [`read_limited`] was refused.
#[derive(Debug, thiserror::Error)]
pub enum LimitedReadError {
    #[error("cannot read {what} {path}")]
    Read {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "{what} {path} is larger than {} (or endless, as a device or a pipe can be); restbench reads at most that",
        size_words(*limit)
    )]
    TooLarge {
        what: &'static str,
        path: PathBuf,
        limit: u64,
    },
    #[error("{what} {path} is not UTF-8 text")]
    NotText { what: &'static str, path: PathBuf },
    #[error("{what} {path} is not a regular file (a link, a pipe or a device): left unread")]
    NotRegular { what: &'static str, path: PathBuf },
}

/// `64 MiB`, `16 KiB`, `100 bytes`: a limit as a message says it.
pub fn size_words(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// The most [`parse_size`] accepts: 1 TiB, beyond any server restbench measures (and far from
/// an overflow when multiplied).
pub const SIZE_LIMIT: u64 = 1 << 40;

/// `512MiB`, `1 GiB`, `65536` (bytes): a memory size as subject.toml and `--memory-limit` write
/// it, in bytes, binary units only (`KiB`, `MiB`, `GiB`, `TiB`; a bare number is bytes), so
/// that `512MB` cannot be read as two different sizes. At least 1 MiB: below, no server starts.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    if number.is_empty() {
        return Err(format!("{text:?} is not a size such as 512MiB or 1GiB"));
    }
    let unit_bytes: u64 = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        other => {
            return Err(format!(
                "{text:?}: {other:?} is not a unit (use KiB, MiB, GiB or TiB, such as 512MiB)"
            ));
        }
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size such as 512MiB or 1GiB"))?;
    let bytes = n
        .checked_mul(unit_bytes)
        .filter(|&b| b <= SIZE_LIMIT)
        .ok_or_else(|| format!("{text:?} is more than the most allowed, 1 TiB"))?;
    if bytes < 1 << 20 {
        return Err(format!("{text:?} is less than the least allowed, 1 MiB"));
    }
    Ok(bytes)
}

/// Reads the whole of `path`, refusing it when it holds more than `limit` bytes. A regular
/// file is refused from its size without being read; a device or a pipe (whose size says
/// nothing: `/dev/zero` has none) is read up to `limit` + 1 bytes and refused there, so memory
/// stays bounded whatever the file is. `what` names the file in messages (`"the body file"`).
pub fn read_limited(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> Result<Vec<u8>, LimitedReadError> {
    use std::io::Read;
    let read_error = |source| LimitedReadError::Read {
        what,
        path: path.to_path_buf(),
        source,
    };
    let too_large = || LimitedReadError::TooLarge {
        what,
        path: path.to_path_buf(),
        limit,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let size = match file.metadata() {
        Ok(m) if m.is_file() => m.len(),
        _ => 0,
    };
    if size > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(size as usize + 1);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Reads a file restbench wrote itself into its cache (costs.json, a conformance entry, a build
/// stamp, the .NET SDK's marker), where no link, pipe or device belongs: opened without
/// following a link (`O_NOFOLLOW`) and without waiting for a writer (`O_NONBLOCK`, so a pipe in
/// its place never hangs the open), its type and size taken from the open descriptor (so
/// nothing can be swapped in between), refused unless a regular file of at most `limit`
/// bytes, and read with that cap.
pub fn read_own_file(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> Result<Vec<u8>, LimitedReadError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|source| match source.raw_os_error() {
            Some(libc::ELOOP) => LimitedReadError::NotRegular {
                what,
                path: path.to_path_buf(),
            },
            _ => LimitedReadError::Read {
                what,
                path: path.to_path_buf(),
                source,
            },
        })?;
    let meta = file.metadata().map_err(|source| LimitedReadError::Read {
        what,
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_file() {
        return Err(LimitedReadError::NotRegular {
            what,
            path: path.to_path_buf(),
        });
    }
    let too_large = || LimitedReadError::TooLarge {
        what,
        path: path.to_path_buf(),
        limit,
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize + 1);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| LimitedReadError::Read {
            what,
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_own_file`] for a text file.
pub fn read_own_string(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> Result<String, LimitedReadError> {
    String::from_utf8(read_own_file(path, limit, what)?).map_err(|_| LimitedReadError::NotText {
        what,
        path: path.to_path_buf(),
    })
}

/// [`read_limited`] for a text file.
pub fn read_limited_string(
    path: &Path,
    limit: u64,
    what: &'static str,
) -> Result<String, LimitedReadError> {
    String::from_utf8(read_limited(path, limit, what)?).map_err(|_| LimitedReadError::NotText {
        what,
        path: path.to_path_buf(),
    })
}

/// Replaces `path` with `bytes` atomically: written to a temporary file in the same folder,
/// flushed to disk, then renamed over `path`, so a full disk or an interrupt leaves the previous
/// file (or none) and never half of the new one; the temporary file is removed when anything
/// fails. A target that exists and is not a regular file (`/dev/stdout`, a pipe, `/dev/full`)
/// cannot be replaced, and is written in place.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |file| {
        use std::io::Write;
        file.write_all(bytes)
    })
}

/// [`write_atomic`] with the content written by `fill` (tests give a writer that fails).
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> io::Result<()> {
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
    {
        let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
        return fill(&mut file);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()));
    let written = (|| {
        // Never through a link planted at the temporary name: removed, then created anew.
        match std::fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        fill(&mut file)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)?;
        // The rename is durable once the folder is.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
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
    fn an_own_file_that_is_a_link_a_pipe_or_too_large_is_refused_without_waiting() {
        let d = tempfile_dir("own");
        let ok = d.join("costs.json");
        std::fs::write(&ok, "{}").unwrap();
        assert_eq!(read_own_string(&ok, 16, "costs").unwrap(), "{}");
        let link = d.join("link.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let e = read_own_file(&link, 1 << 20, "costs").unwrap_err();
        assert!(matches!(e, LimitedReadError::NotRegular { .. }), "{e}");
        let fifo = d.join("fifo.json");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        // Without a writer, a plain open would wait for ever.
        let (tx, rx) = std::sync::mpsc::channel();
        let f = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(read_own_file(&f, 1 << 20, "the entry").map(|_| ()));
        });
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a pipe must not hang the read");
        assert!(matches!(got, Err(LimitedReadError::NotRegular { .. })));
        let big = d.join("big.json");
        std::fs::write(&big, vec![b' '; 100]).unwrap();
        assert!(matches!(
            read_own_file(&big, 99, "costs"),
            Err(LimitedReadError::TooLarge { .. })
        ));
        std::fs::remove_dir_all(&d).unwrap();
    }

    fn tempfile_dir(tag: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("restbench-model-io-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn results_round_trip_and_errors_name_the_file_once() {
        let d = dir();
        let results = RunResults {
            schema_version: RunResults::SCHEMA_VERSION,
            kind: "run".into(),
            started_at: crate::vocabulary::time::utc_now(),
            finished_at: None,
            interrupted: false,
            environment: Default::default(),
            protocol: Default::default(),
            cells: Vec::new(),
            study: None,
            noisy_machine: None,
            conformance: Vec::new(),
            groups: Vec::new(),
            unserved: Vec::new(),
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

#[cfg(test)]
mod limited_tests {
    use super::*;

    #[test]
    fn sizes_are_read_in_binary_units_and_bounded() {
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size(" 1 GiB "), Ok(1 << 30));
        assert_eq!(parse_size("2097152"), Ok(2 << 20));
        assert_eq!(size_words(parse_size("1GiB").unwrap()), "1 GiB");
        assert_eq!(size_words(512 << 20), "512 MiB");
        for (bad, why) in [
            ("512MB", "not a unit"),
            ("lots", "not a size"),
            ("", "not a size"),
            ("-1MiB", "not a size"),
            ("1KiB", "least allowed"),
            ("99999999999999999999", "not a size"),
            ("2000000TiB", "most allowed"),
        ] {
            let e = parse_size(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn endless_and_oversized_files_are_refused_at_the_limit() {
        let dir = tempfile_dir("limited");
        if Path::new("/dev/zero").exists() {
            let e = read_limited(Path::new("/dev/zero"), 1 << 20, "the document").unwrap_err();
            assert!(matches!(e, LimitedReadError::TooLarge { .. }), "{e}");
            assert_eq!(
                e.to_string(),
                "the document /dev/zero is larger than 1 MiB (or endless, as a device or a pipe \
                 can be); restbench reads at most that"
            );
        }
        let big = dir.join("big");
        std::fs::File::create(&big).unwrap().set_len(5000).unwrap();
        let e = read_limited(&big, 4096, "the file").unwrap_err();
        assert!(e.to_string().contains("larger than 4 KiB"), "{e}");
        assert_eq!(read_limited(&big, 5000, "the file").unwrap().len(), 5000);
        std::fs::write(dir.join("bin"), [0xff, 0xfe]).unwrap();
        let e = read_limited_string(&dir.join("bin"), 10, "the file").unwrap_err();
        assert!(matches!(e, LimitedReadError::NotText { .. }), "{e}");
        let e = read_limited(&dir.join("missing"), 10, "the file").unwrap_err();
        assert!(e.to_string().starts_with("cannot read the file "), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("restbench-model-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Files in `dir` other than `keep`.
    fn others(dir: &Path, keep: &str) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != keep)
            .collect()
    }

    #[test]
    fn a_failed_atomic_write_keeps_the_old_file_and_leaves_no_temporary() {
        let dir = tempfile_dir("atomic");
        let path = dir.join("report.html");
        write_atomic(&path, b"the last good one").unwrap();
        let full = write_atomic_with(&path, |f| {
            use std::io::Write;
            f.write_all(b"half a rep")?;
            Err(io::Error::from_raw_os_error(libc_enospc()))
        })
        .unwrap_err();
        assert_eq!(full.raw_os_error(), Some(libc_enospc()));
        assert_eq!(std::fs::read(&path).unwrap(), b"the last good one");
        assert!(
            others(&dir, "report.html").is_empty(),
            "{:?}",
            others(&dir, "report.html")
        );
        // A new file is either whole or absent.
        let fresh = dir.join("fresh.json");
        assert!(write_atomic_with(&fresh, |_| Err(io::Error::other("no space"))).is_err());
        assert!(!fresh.exists());
        write_atomic(&fresh, b"{}").unwrap();
        assert_eq!(std::fs::read(&fresh).unwrap(), b"{}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// ENOSPC without a libc dependency (28 on every Linux architecture).
    fn libc_enospc() -> i32 {
        28
    }

    #[test]
    fn a_target_that_is_not_a_regular_file_is_written_in_place() {
        if !Path::new("/dev/null").exists() {
            return;
        }
        use std::os::unix::fs::FileTypeExt;
        write_atomic(Path::new("/dev/null"), b"discarded").unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(meta.file_type().is_char_device(), "/dev/null was replaced");
    }
}
