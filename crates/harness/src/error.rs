use std::io;
use std::path::PathBuf;

/// What can go wrong in the harness; messages say what failed and what to do.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    #[error("{file}: {field}: {reason}")]
    Manifest {
        file: PathBuf,
        field: String,
        reason: String,
    },
    #[error("no subject named {0:?} (see `restbench subjects`)")]
    UnknownSubject(String),
    #[error("cannot read the subjects folder {path}: {source}")]
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
    #[error("{subject} is not available here: {reason}")]
    Unavailable { subject: String, reason: String },
    #[error("cannot start {what}: {source}")]
    Spawn { what: String, source: io::Error },
    #[error("port {port} is already in use{holder}")]
    PortInUse { port: u16, holder: String },
    #[error(
        "{subject} did not answer on port {port} within {waited_s:.0}s{exit}; last output:\n{tail}"
    )]
    NotReady {
        subject: String,
        port: u16,
        waited_s: f64,
        exit: String,
        tail: String,
    },
    #[error("PostgreSQL: {0}")]
    Database(String),
    #[error("{0}")]
    Load(#[from] restbench_loadgen::LoadError),
    #[error("cannot write results to {path}: {source}")]
    Results { path: PathBuf, source: io::Error },
    #[error("{context}: {source}")]
    Io { context: String, source: io::Error },
    /// `restbench new` / `subjects --install` refused: a bad name, an existing folder.
    #[error("{0}")]
    Scaffold(String),
}

impl HarnessError {
    pub fn io(context: impl Into<String>, source: io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}
