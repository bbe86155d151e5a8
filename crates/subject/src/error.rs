use std::io;
use std::path::PathBuf;

use restbench_host::error::HostError;

/// What can go wrong with a subject on disk: its manifest, its folder, its build.
#[derive(Debug, thiserror::Error)]
pub enum SubjectError {
    #[error("{file}: {field}: {reason}")]
    Manifest {
        file: PathBuf,
        field: String,
        reason: String,
    },
    #[error("no subject named {0:?} (see `restbench subjects`)")]
    UnknownSubject(String),
    #[error("cannot read the subjects folder {path}")]
    SubjectsDir { path: PathBuf, source: io::Error },
    #[error(
        "building {subject} failed: `{command}` {status}; last output:\n{tail}\n(full log: {log})"
    )]
    Build {
        subject: String,
        command: String,
        status: String,
        tail: String,
        log: PathBuf,
    },
    #[error("cannot start {what}")]
    Spawn { what: String, source: io::Error },
    #[error("{context}")]
    Io { context: String, source: io::Error },
    /// `restbench new` / `subjects --install` refused: a bad name, an existing folder.
    #[error("{0}")]
    Scaffold(String),
    #[error(transparent)]
    Host(#[from] HostError),
}

impl SubjectError {
    pub fn io(context: impl Into<String>, source: io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}
