//! Load generators on other machines over SSH: restbench copies itself to each host, runs one
//! `restbench load` shard there through the system `ssh` client, starts every shard at one
//! wall-clock time and merges the results exactly (`restbench_model::documents::merge`).
//!
//! - [`hosts`]: `user@host[:port]` lists and hosts files.
//! - [`ssh`]: one host's connection (a ControlMaster reused by every command), the binary copy
//!   cached by hash, and the commands run there.
//! - [`shards`]: a load split over the hosts, watched until every shard answers; one failing
//!   shard stops the others and fails with its host's stderr.
//! - [`k8s`]: the same shards as a Kubernetes Indexed Job, and their results collected.
//! - `error`: [`RemoteError`], each naming the host and what to do.
//!
//! No daemon of restbench's own: what a lab already has (sshd, keys, an agent) is all it takes.

pub mod hosts;
pub mod k8s;
pub mod shards;
pub mod ssh;

pub use hosts::{SshHost, parse_hosts};
pub use shards::{RemoteGenerators, ShardedLoad, combine_generators};

mod error;
pub use error::RemoteError;
