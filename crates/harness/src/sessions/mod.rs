//! The commands' loops that start subjects only to check them: [`verify`] (`restbench verify`:
//! the workload contract) and [`conformance`] (`restbench conformance`: how a subject reads
//! HTTP/1.1, and the per-build cache the run's conformance step shares).

pub mod conformance;
pub mod verify;
