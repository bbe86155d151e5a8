use std::error::Error;
use std::fmt;
use std::io;

use restbench_host::error::{HostError, chain};

/// What can go wrong with PostgreSQL: what failed, and the driver's error when there is one
/// (kept whole, shown on one line with each cause once).
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("PostgreSQL: {context}{}", .cause.as_ref().map(|c| format!(": {c}")).unwrap_or_default())]
    Database {
        context: String,
        cause: Option<DbCause>,
    },
    #[error("{context}")]
    Io { context: String, source: io::Error },
    #[error(transparent)]
    Document(#[from] restbench_model::DocumentError),
    #[error(transparent)]
    Host(#[from] HostError),
}

impl DbError {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn refused() -> io::Error {
        io::Error::from_raw_os_error(libc::ECONNREFUSED)
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
        let e = DbError::Database {
            context: "cannot connect to 127.0.0.1:1".into(),
            cause: Some(DbCause::new(Driver(refused()))),
        };
        let text = chain(&e);
        assert_eq!(text.matches(&refused().to_string()).count(), 1, "{text}");
        assert!(
            matches!(&e, DbError::Database { cause: Some(c), .. } if c.error().source().is_some())
        );
    }
}
