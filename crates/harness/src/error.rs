use std::error::Error;
use std::fmt;
use std::io;
use std::path::PathBuf;

/// What can go wrong in the harness; messages say what failed and what to do.
///
/// Each cause is printed once: a variant either names its cause in its message or exposes it
/// as [`Error::source`], never both. [`chain`] prints an error with its causes on one line.
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
    #[error("{subject} is not available here: {reason}")]
    Unavailable { subject: String, reason: String },
    #[error("cannot start {what}")]
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
    #[error("{subject} exited during the load ({status}); last output:\n{tail}")]
    ExitedDuringLoad {
        subject: String,
        status: String,
        tail: String,
    },
    /// PostgreSQL: what failed, and the driver's error when there is one (kept whole, shown on
    /// one line with each cause once).
    #[error("PostgreSQL: {context}{}", .cause.as_ref().map(|c| format!(": {c}")).unwrap_or_default())]
    Database {
        context: String,
        cause: Option<DbCause>,
    },
    #[error(transparent)]
    Load(#[from] restbench_loadgen::LoadError),
    #[error(transparent)]
    Document(#[from] restbench_model::DocumentError),
    #[error(transparent)]
    Remote(#[from] RemoteError),
    #[error("{context}")]
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

    /// A PostgreSQL failure without an underlying driver error.
    pub fn database(context: impl Into<String>) -> Self {
        Self::Database {
            context: context.into(),
            cause: None,
        }
    }
}

/// A database driver's error, kept whole for callers that inspect it ([`DbCause::error`]).
///
/// It is shown rather than exposed as a source because the driver's own `Display` already
/// repeats its cause ("error connecting to server: Connection refused" whose source is
/// "Connection refused"), and a server's message may span lines (`DETAIL:`, `HINT:`); shown
/// here, each cause appears once, on one line.
#[derive(Debug)]
pub struct DbCause(Box<dyn Error + Send + Sync + 'static>);

impl DbCause {
    pub fn new(e: impl Error + Send + Sync + 'static) -> Self {
        Self(Box::new(e))
    }

    /// The driver's error, with its own source chain.
    pub fn error(&self) -> &(dyn Error + Send + Sync + 'static) {
        self.0.as_ref()
    }
}

impl fmt::Display for DbCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = chain(self.0.as_ref())
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("; ");
        f.write_str(&line)
    }
}

/// An error and its causes as `error: cause: cause`, each cause once: a cause whose text the
/// message already holds (a library that prints its source in its own message) is left out.
pub fn chain(e: &(dyn Error + 'static)) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !text.is_empty() && !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// What went wrong with a remote generator; each names the host and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("--loadgen-hosts: {0}")]
    Hosts(String),
    #[error("cannot reach {host} over ssh: {detail}")]
    Unreachable { host: String, detail: String },
    #[error("{host}: {what} failed: {detail}")]
    Command {
        host: String,
        what: String,
        detail: String,
    },
    #[error(
        "{host} is {remote}, this restbench is built for {local}: a generator host must have the \
         same OS and CPU architecture"
    )]
    Architecture {
        host: String,
        remote: String,
        local: String,
    },
    #[error("the generator on {host} failed ({status}); its stderr:\n{stderr}")]
    ShardFailed {
        host: String,
        status: String,
        stderr: String,
    },
    #[error("{0}")]
    Shape(String),
    #[error(transparent)]
    Merge(#[from] restbench_model::MergeError),
    #[error("{context}: {reason}")]
    Io {
        context: String,
        reason: std::io::Error,
    },
}

impl RemoteError {
    pub(crate) fn io(context: impl Into<String>, reason: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused() -> io::Error {
        io::Error::from_raw_os_error(libc::ECONNREFUSED)
    }

    #[test]
    fn a_chain_prints_each_cause_once() {
        let e = HarnessError::Load(restbench_loadgen::LoadError::Unreachable {
            addr: "127.0.0.1:1".into(),
            source: refused(),
        });
        let text = chain(&e);
        let cause = refused().to_string();
        assert_eq!(text.matches(&cause).count(), 1, "{text}");
        assert!(text.starts_with("cannot connect to 127.0.0.1:1"), "{text}");

        let e = HarnessError::Spawn {
            what: "demo".into(),
            source: refused(),
        };
        assert_eq!(chain(&e), format!("cannot start demo: {cause}"));
        assert_eq!(e.to_string(), "cannot start demo");
    }

    #[test]
    fn a_driver_error_that_repeats_its_cause_shows_it_once() {
        #[derive(Debug)]
        struct Driver(io::Error);
        impl fmt::Display for Driver {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "error connecting to server: {}", self.0)
            }
        }
        impl Error for Driver {
            fn source(&self) -> Option<&(dyn Error + 'static)> {
                Some(&self.0)
            }
        }
        let e = HarnessError::Database {
            context: "cannot connect to 127.0.0.1:1".into(),
            cause: Some(DbCause::new(Driver(refused()))),
        };
        let text = chain(&e);
        assert_eq!(text.matches(&refused().to_string()).count(), 1, "{text}");
        assert!(
            matches!(&e, HarnessError::Database { cause: Some(c), .. } if c.error().source().is_some())
        );
    }
}
