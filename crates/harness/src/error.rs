use std::io;

use restbench_db::DbError;
use restbench_host::error::HostError;
use restbench_remote::RemoteError;
use restbench_subject::SubjectError;

/// What can go wrong while running subjects; messages say what failed and what to do.
///
/// Each cause is printed once: a variant either names its cause in its message or exposes it
/// as [`std::error::Error::source`], never both; [`restbench_host::error::chain`] prints an
/// error with its causes on one line. The crates below the harness have their own errors,
/// carried here whole.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    #[error("{subject} is not available here: {reason}")]
    Unavailable { subject: String, reason: String },
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
    #[error(transparent)]
    Host(#[from] HostError),
    #[error(transparent)]
    Subject(#[from] SubjectError),
    #[error(transparent)]
    Database(#[from] DbError),
    #[error(transparent)]
    Load(#[from] restbench_loadgen::LoadError),
    #[error(transparent)]
    Document(#[from] restbench_model::DocumentError),
    #[error(transparent)]
    Remote(#[from] RemoteError),
    #[error("{context}")]
    Io { context: String, source: io::Error },
}

impl HarnessError {
    pub fn io(context: impl Into<String>, source: io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_host::error::chain;

    #[test]
    fn a_chain_prints_each_cause_once() {
        let refused = io::Error::from_raw_os_error(libc::ECONNREFUSED);
        let cause = refused.to_string();
        let e = HarnessError::Load(restbench_loadgen::LoadError::Unreachable {
            addr: "127.0.0.1:1".into(),
            source: refused,
        });
        let text = chain(&e);
        assert_eq!(text.matches(&cause).count(), 1, "{text}");
        assert!(text.starts_with("cannot connect to 127.0.0.1:1"), "{text}");
    }
}
