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
    pub fn io(context: impl Into<String>, reason: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            reason,
        }
    }
}
