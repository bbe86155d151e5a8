//! restbench's harness: from "these subjects" to "these figures", over the crates below it
//! (`restbench-host` the machine, `restbench-subject` a subject on disk, `restbench-remote`
//! generators elsewhere, `restbench-db` PostgreSQL, `restbench-verify` the contract), which
//! Cargo keeps from importing this one.
//!
//! - [`serve`]: a subject running, here or on a server host over ssh.
//! - [`sessions`]: `restbench verify`'s and `restbench conformance`'s prepare → start → check
//!   loops over subjects (the checks themselves are `restbench-verify`'s).
//! - [`profile`]: a cell's profiling slice (perf over the server, folded by inferno, split into
//!   kernel network / kernel / own code / runtime / libc), outside the measured repeats.
//! - [`runner`]: a run as cells (prepare → start → verify → warm up → measure → stop), reported
//!   as [`events`].
//! - [`planner`]: what `run`, `bench` and `study` ask for, made a runner plan by one set of rules
//!   (length defaults, shape, placement, database, calibration), and a seed study's cells and
//!   shape from its published figures (`planner::study`).
//! - Leaves: [`error`] (what can go wrong here, each cause printed once), [`events`] (what a
//!   run or a verify session says as it goes, with its time, for the terminal and the results
//!   file alike), [`stats`] (median, spread, bootstrap interval over repeats).
//!
//! The harness never does hot-path HTTP: load goes through `restbench_loadgen::run`.

pub mod error;
pub mod events;
pub mod planner;
pub mod profile;
pub mod runner;
pub mod serve;
pub mod sessions;
pub mod stats;

pub use error::HarnessError;
