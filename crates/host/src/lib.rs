//! The machine the harness runs on, with no subject in sight: processes, cgroups, CPU placement,
//! resource samples and the host's description.
//!
//! - [`process`]: every child in its own process group, killed on drop, when restbench dies
//!   (PR_SET_PDEATHSIG plus a guard process), and on Ctrl-C; free ports and private temp folders.
//! - [`cgroup`]: a cgroup v2 group per server, with its CPU and memory limits and usage.
//! - [`placement`]: which CPUs the server, the generator and the database are pinned to.
//! - [`sample`]: CPU and memory of a server's whole process tree, and a server's usage over one
//!   load ([`sample::ServerSample`]).
//! - [`contention`]: who else used the server's CPUs during a slice (busy time beyond the
//!   server's, steal, the busiest other process), so a contended slice is told from a server
//!   that limited itself.
//! - [`procfs`]: what /proc says of a process (parent, state, command line, inherited
//!   environment) and who listens on a port, each file read within a limit.
//! - [`environment`]: the host's facts recorded in every result (CPU, kernel, versions).
//! - [`shell`]: `/bin/sh` quoting and `PATH` look-ups, for every command restbench runs.
//! - [`error`]: [`error::HostError`], and [`error::chain`], how every error restbench prints is
//!   put on one line with each cause once.
//!
//! Nothing here knows what a subject is: the crates above pass in commands, folders and CPU
//! sets.

pub mod cgroup;
pub mod contention;
pub mod environment;
pub mod error;
pub mod placement;
pub mod process;
pub mod procfs;
pub mod sample;
pub mod shell;
