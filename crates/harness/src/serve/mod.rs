//! A subject running, here or on a server host over ssh: its start (own process group, own
//! cgroup, ready probe), what a scenario allows it, and the agent that runs it on the other end.
//! `restbench run`, `verify` and `serve` all start servers through this wing.
//!
//! - [`start`]: a subject started for one scenario and probed until it answers.
//! - [`limits`]: a scenario's CPU and memory limits, and whether the server held to them.
//! - [`location`]: where a run's servers run ([`ServerLocation`]: here, or over ssh).
//! - [`remote_server`]: the server host: the subject copied, built and started there over ssh.
//! - [`agent`]: the other end of [`remote_server`] (`restbench agent`): prepare, serve, sample.
//! - [`static_tree`]: the `static` workload's files on disk, given to every server as `STATIC_DIR`.

pub mod agent;
pub mod limits;
pub mod location;
pub mod remote_server;
pub mod start;
pub mod static_tree;

pub use limits::{limit_held, scenario_limit};
pub use location::ServerLocation;
pub use start::{RunningSubject, StartOptions, start_subject};
