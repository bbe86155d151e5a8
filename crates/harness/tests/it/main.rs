//! The harness's integration tests, one binary (it links once, as ripgrep's do): a module per
//! file (`tfb_faults`: TechEmpower's test types against a server with one fault at a time;
//! `verifier_bodies`: HttpArena's static, json-gzip, upload and download the same way), what
//! they share in `support` and in `restbench-testkit`. The slow ones (real subjects,
//! PostgreSQL, package registries) are `#[ignore]`d with their reason.

mod ab_sides;
mod conformance;
mod database;
mod enforcement;
mod escapees;
mod go_one_cpu;
mod locked_table;
mod prepare_failure;
mod profile;
mod rounds;
mod subject_copies;
mod support;
mod tfb_faults;
mod verifier;
mod verifier_bodies;
mod verifier_h2c;
mod versions;
