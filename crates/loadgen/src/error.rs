use std::io;

/// Why a load run could not start or finish. Each cause is printed once: the message says what
/// failed, the operating system's reason is the error's source.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("cannot resolve {host:?}")]
    Resolve { host: String, source: io::Error },
    #[error("cannot connect to {addr} (is the server running?)")]
    Unreachable { addr: String, source: io::Error },
    #[error("TLS: {0}")]
    Tls(String),
    #[error("invalid load settings: {0}")]
    InvalidSpec(String),
    /// A wrk script that cannot run, or a call it makes that restbench refuses: one line that
    /// names the script.
    #[error("{0}")]
    Script(String),
    #[error("load generator failed")]
    Io(#[from] io::Error),
    #[error("a load thread panicked")]
    ThreadPanicked,
}
