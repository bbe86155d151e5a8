//! The binary's integration tests, one binary (it links once, as ripgrep's do): a module per
//! file, the binary as `support::restbench()`, the rest in `restbench-testkit`. The slow ones
//! (real subjects, PostgreSQL, network namespaces) are `#[ignore]`d with their reason.

mod ab_cli;
mod architecture;
mod bench;
mod bodies_cli;
mod cli;
mod cli_doc;
mod database_cli;
mod db_leftovers;
mod delay_cli;
mod exports;
mod gate_cli;
mod history_cli;
mod hostile;
mod hostile_documents;
mod hostile_files;
mod large_documents;
mod live;
mod load_habits;
mod load_signals;
mod memory_limits;
mod merge_cli;
mod profile_cli;
mod readme;
mod reproducibility;
mod scaleout;
mod setup;
mod support;
mod targets;
mod widths;
