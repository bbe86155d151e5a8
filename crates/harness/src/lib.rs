//! restbench's harness: everything between "these subjects" and "these figures".
//!
//! - [`subject`]: `subjects/<id>/subject.toml`, loaded and checked, with errors that name the file,
//!   the field and the reason; whether a subject's toolchain is here.
//! - [`toolchain`]: toolchain versions against each subject's minimums, with the fixing command.
//! - [`prepare`]: builds with each ecosystem's own tool, cached by a hash of the subject's folder.
//! - [`process`]: every child in its own process group, killed on drop, when restbench dies
//!   (PR_SET_PDEATHSIG plus a guard process), and on Ctrl-C.
//! - [`verify`]: the workload contract as checks that return findings.
//! - [`scaffold`]: a new subject copied from an existing one; the catalogue copied to a data folder.
//! - [`sample`]: CPU and memory of a server's whole process tree.
//! - [`db`]: throwaway PostgreSQL clusters and the seed data of the users workload.
//! - [`runner`]: the run loop (prepare → start → ready → verify → warm up → measure → stop).
//!
//! The harness never does hot-path HTTP: load goes through `restbench_loadgen::run`.

pub mod calibrate;
pub mod cgroup;
pub mod db;
pub mod environment;
pub mod error;
pub mod fixtures;
pub mod http;
pub mod placement;
pub mod prepare;
pub mod process;
pub mod runner;
pub mod sample;
pub mod scaffold;
pub mod stats;
pub mod subject;
pub mod toolchain;
pub mod verify;
pub mod workload;

pub use error::HarnessError;
