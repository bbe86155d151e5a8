//! What can go wrong on the machine itself, and [`chain`], the one way every restbench error is
//! printed (each cause once), which every crate above this one uses.

use std::error::Error;
use std::io;

/// A child that would not start, a port that is taken, a file or folder of the machine's that
/// could not be used; each message says what failed.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("cannot start {what}")]
    Spawn { what: String, source: io::Error },
    #[error("port {port} is already in use{holder}")]
    PortInUse { port: u16, holder: String },
    #[error("{context}")]
    Io { context: String, source: io::Error },
}

impl HostError {
    pub fn io(context: impl Into<String>, source: io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_prints_each_cause_once() {
        let refused = io::Error::from_raw_os_error(libc::ECONNREFUSED);
        let cause = refused.to_string();
        let e = HostError::Spawn {
            what: "demo".into(),
            source: refused,
        };
        assert_eq!(chain(&e), format!("cannot start demo: {cause}"));
        assert_eq!(e.to_string(), "cannot start demo");
    }
}
