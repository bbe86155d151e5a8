//! restbench's harness: everything between "these subjects" and "these figures".
//!
//! The modules are grouped into wings by job, ranked bottom to top; a wing imports only from
//! its own rank or below (`crates/restbench/tests/it/architecture.rs` checks it):
//!
//! 1. Leaves: [`dates`] (timestamp normalisation shared by the verifier and the database code),
//!    [`error`] (what can go wrong, each cause printed once), [`events`] (what a run or a verify
//!    session says as it goes, for the terminal and the results file alike), [`fixtures`] (the
//!    seed studies' payloads), [`http`] and [`h2c`] (the verifier's own blocking clients, HTTP/1.1
//!    and h2c: one error type, the same caps over both), [`stats`] (median, spread, bootstrap
//!    interval over repeats), [`workload`] (what the harness sends for each workload).
//! 2. [`host`]: the machine: processes, cgroups, CPU placement, samples, the environment.
//! 3. [`subject`]: a subject on disk: manifest, toolchain (with the .NET SDK fetched into the
//!    cache), build, scaffold, ad-hoc subjects;
//!    [`remote`]: load generators on other hosts over SSH or Kubernetes, merged exactly.
//! 4. [`serve`]: a subject running, here or on a server host over ssh;
//!    [`db`]: a PostgreSQL client, throwaway clusters, the seed data, and provisioning for a run;
//!    [`history`]: runs kept in SQLite or PostgreSQL (`restbench history`), migrated by version.
//! 5. [`verify`]: the workload contract as checks that return findings, and `restbench verify`'s
//!    session over subjects; `verify::conformance`, how a subject reads HTTP/1.1 (the cases,
//!    `restbench conformance`'s session and the per-build cache).
//! 6. [`profile`]: a cell's profiling slice (perf over the server, folded by inferno, split into
//!    kernel network / kernel / own code / runtime / libc), outside the measured repeats.
//! 7. [`runner`]: a run as cells (prepare → start → verify → warm up → measure → stop), reported
//!    as events; [`plan`]: what `run`, `bench` and `study` ask for, made a runner plan by one set
//!    of rules (length defaults, shape, placement, database, calibration), and a seed study's
//!    cells and shape from its published figures (`plan::study`).
//!
//! The harness never does hot-path HTTP: load goes through `restbench_loadgen::run`.

pub mod dates;
pub mod db;
pub mod error;
pub mod events;
pub mod fixtures;
pub mod h2c;
pub mod history;
pub mod host;
pub mod http;
pub mod plan;
pub mod profile;
pub mod remote;
pub mod runner;
pub mod serve;
pub mod stats;
pub mod subject;
pub mod verify;
pub mod workload;

pub use error::HarnessError;
