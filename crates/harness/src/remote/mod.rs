//! Load generators on other machines over SSH: restbench copies itself to each host, runs one
//! `restbench load` shard there through the system `ssh` client, starts every shard at one
//! wall-clock time and merges the results exactly (`restbench_model::merge`).
//!
//! - [`hosts`]: `user@host[:port]` lists and hosts files.
//! - [`ssh`]: one host's connection (a ControlMaster reused by every command), the binary copy
//!   cached by hash, and the commands run there.
//! - [`shards`]: a load split over the hosts, watched until every shard answers; one failing
//!   shard stops the others and fails with its host's stderr.
//!
//! No daemon of restbench's own: what a lab already has (sshd, keys, an agent) is all it takes.

pub mod hosts;
pub mod shards;
pub mod ssh;

pub use hosts::{SshHost, parse_hosts};
pub use shards::{RemoteGenerators, ShardedLoad, combine_generators};

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
