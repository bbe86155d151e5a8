use std::io;

/// Why a load run could not start or finish.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("invalid URL {url:?}: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("cannot resolve {host:?}: {source}")]
    Resolve { host: String, source: io::Error },
    #[error("cannot connect to {addr}: {source} (is the server running?)")]
    Unreachable { addr: String, source: io::Error },
    #[error("invalid load settings: {0}")]
    InvalidSpec(String),
    #[error("load generator failed: {0}")]
    Io(#[from] io::Error),
    #[error("a load thread panicked")]
    ThreadPanicked,
}
