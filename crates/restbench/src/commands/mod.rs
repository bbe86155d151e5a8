//! One module per subcommand. A command turns its flags into a library request, calls the
//! library and prints; it never imports another command (what two share lives in the crate's
//! helper modules: `options`, `common`, `output`, `remote`, or in a library).
//!
//! Measuring: `run`, `bench` (one ad-hoc server), `study` (a seed study), `ab` (two versions
//! of one subject, and the gate), `load` (the generator alone), `profile` (one cell under
//! perf). Checking: `verify` (the contract), `conformance` (how a subject reads HTTP/1.1),
//! `doctor` (this machine). Reading results: `report`, `compare`, `merge` (shards), `history`.
//! Subjects and servers: `subjects`, `new`, `serve`, `db` (a throwaway PostgreSQL), `agent`
//! (`remote-agent`, run on a server host), `k8s` (Indexed Jobs). And `completions` (shell
//! completions and the man page).

mod ab;
mod agent;
mod bench;
mod compare;
mod completions;
mod conformance;
mod db;
mod doctor;
mod history;
mod k8s;
mod load;
mod merge;
mod new;
mod profile;
mod report;
mod run;
mod serve;
mod study;
mod subjects;
mod verify;

use std::process::ExitCode;

use crate::cli::{Cli, Command, DbCommand, HistoryCommand, K8sCommand};

/// Runs the chosen subcommand and returns the process exit code.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Load(args) => load::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Conformance(args) => conformance::run(args),
        Command::Subjects(args) => subjects::run(args),
        Command::New(args) => new::run(args),
        Command::Completions(args) => completions::completions(args),
        Command::Man => completions::man(),
        Command::Serve(args) => serve::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Db(DbCommand::Start(args)) => db::start(args),
        Command::Report(args) => report::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Study(args) => study::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Ab(args) => ab::run(*args),
        Command::History(HistoryCommand::Import(args)) => history::import(args),
        Command::History(HistoryCommand::Show(args)) => history::show(args),
        Command::History(HistoryCommand::Check(args)) => history::check(args),
        Command::Bench(args) => bench::run(args),
        Command::Merge(args) => merge::run(args),
        Command::K8s(K8sCommand::Load(args)) => k8s::load(*args),
        Command::K8s(K8sCommand::Collect(args)) => k8s::collect(args),
        Command::RemoteAgent(command) => agent::run(command),
    }
}
