//! Command-line arguments. Clap types stop here; commands turn them into library specs.
//!
//! `Cli` and `Command` are here with the parsers of values many commands take; the argument
//! groups several commands flatten are in `shared`, and each command's own arguments in the file
//! of its family, so that a flag is found beside the command that takes it. Every type is
//! re-exported here: the rest of the binary names it `cli::X`, whichever file holds it.
//!
//! The families: `load` (load and its shards), `run` (run, bench, study), `ab`, `history`,
//! `report` (report, compare, merge), `verify` (verify, conformance), `catalogue` (subjects,
//! new, serve, doctor), `profile`, `db`, `k8s`, `agent` (remote-agent).

// The doc comments here are `--help` text, written for a terminal: `[:port]` and `<UTC stamp>`
// are placeholders a reader types, not links or HTML, so rustdoc's link and markup lints do not
// apply (the rest of the crate keeps them).
#![allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls,
    rustdoc::redundant_explicit_links
)]

mod ab;
mod agent;
mod catalogue;
mod db;
mod history;
mod k8s;
mod load;
mod profile;
mod report;
mod run;
mod shared;
mod verify;

pub use ab::AbArgs;
pub use agent::AgentCommand;
pub use catalogue::{DoctorArgs, NewArgs, ServeArgs, SubjectsArgs};
pub use db::{DbCommand, DbStartArgs};
pub use history::{
    HistoryCheckArgs, HistoryCommand, HistoryImportArgs, HistoryShowArgs, HistoryStoreArgs,
};
pub use k8s::{K8sCollectArgs, K8sCommand, K8sLoadArgs};
pub use load::LoadArgs;
pub use profile::ProfileArgs;
pub use report::{CompareArgs, MergeArgs, ReportArgs};
pub use run::{BenchArgs, RunArgs, StudyArgs, StudyId};
pub use shared::{
    CellArgs, ExportArgs, LoadgenHostsArgs, MeasureArgs, ModeArg, OpenLoopArgs, RemoteRunArgs,
    SubjectsDir,
};
pub use verify::{ConformanceArgs, VerifyArgs};

use std::str::FromStr;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

// The headings `--help` groups options under, so that the everyday flags are not lost among the
// rare ones (docs/cli.md follows the same groups).
const LOAD_SHAPE: &str = "Load shape";
const OUTPUT: &str = "Output";
const PLACEMENT: &str = "Placement";
const DATABASE: &str = "Database";
const OPEN_LOOP: &str = "Open loop";
const SEVERAL_MACHINES: &str = "Several machines";
const REQUEST: &str = "Request";
const CONNECTION: &str = "Connection";
const CAPACITY: &str = "Capacity search";

#[derive(Debug, Parser)]
#[command(
    name = "restbench",
    version,
    about = "A benchmark suite for REST and HTTP servers: builds each contender, runs it under a fair \
             CPU budget, verifies its answers, loads it honestly and reports with tables and charts.",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parses the arguments. Help wraps at `COLUMNS` when it is set, else at the terminal's
    /// width; anywhere else (a pipe, a file) it keeps the lines as written.
    pub fn parse_args() -> Self {
        use clap::{CommandFactory, FromArgMatches};
        use std::io::IsTerminal;
        let mut cmd = Self::command();
        let columns = std::env::var("COLUMNS").ok();
        if let Some(width) = columns.and_then(|c| c.trim().parse::<usize>().ok()) {
            cmd = cmd.term_width(width);
        } else if !std::io::stdout().is_terminal() {
            cmd = cmd.term_width(0);
        }
        let matches = match cmd.try_get_matches() {
            Ok(matches) => matches,
            Err(e) => {
                let args: Vec<String> = std::env::args().collect();
                if e.use_stderr()
                    && let Some(hint) = load::habit_hint(&args)
                {
                    let _ = e.print();
                    eprintln!("hint: {hint}");
                    std::process::exit(2);
                }
                e.exit()
            }
        };
        Self::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The main job: build, verify and measure every subject × workload × scenario.
    Run(RunArgs),
    /// Load an HTTP server, as wrk (closed loop) or wrk2 (--rate, open loop) would.
    Load(LoadArgs),
    /// Check subjects against the workload contract, without measuring.
    Verify(VerifyArgs),
    /// Check how subjects read HTTP/1.1 (requests split at every byte, pipelined, Connection:
    /// close, HTTP/1.0, chunked bodies, odd headers), without measuring.
    Conformance(ConformanceArgs),
    /// List the subjects: language, framework, seeds, workloads, whether they can run here.
    Subjects(SubjectsArgs),
    /// Start a new subject from an existing one: its folder copied, build outputs left out, the
    /// id renamed.
    New(NewArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the manual page (roff) on stdout: `restbench man | man -l -`.
    Man,
    /// Build a subject if needed and run it in the foreground as `run` would (Ctrl-C stops it).
    Serve(ServeArgs),
    /// Where a subject's CPU goes under one workload's load: perf samples folded into a flame
    /// graph, the kernel / own code / runtime split, system calls per request; or, with
    /// --diff, a differential flame graph of two profiles.
    Profile(ProfileArgs),
    /// A throwaway PostgreSQL server for the users workload.
    #[command(subcommand)]
    Db(DbCommand),
    /// Render report.md and report.html again from a run's results.json (its folder or the file).
    Report(ReportArgs),
    /// What this machine can run and enforce: cores, cgroup backend, toolchains, PostgreSQL.
    Doctor(DoctorArgs),
    /// Re-run a seed study (a: JSON echo, b: todo list, c: users from PostgreSQL, d: plaintext)
    /// or TechEmpower's seven test types (tfb), and report it against the published figures.
    Study(StudyArgs),
    /// Set two runs (or two `load` results) side by side as ratios and name what got faster or
    /// slower beyond the noise.
    Compare(CompareArgs),
    /// Two versions of one subject (two folders, or one subject at two git revisions) measured
    /// in one run, and the ratio of every measure with its interval; a gate with --fail-if.
    Ab(Box<AbArgs>),
    /// Runs kept in a database (SQLite, or PostgreSQL): import, a timeline, a gate against the
    /// recent past.
    #[command(subcommand)]
    History(HistoryCommand),
    /// Your own server as a subject, from its command line: started, verified, measured and
    /// reported as `run` does, without writing a subject folder.
    Bench(BenchArgs),
    /// Merge the `load --json` results of several generators (shards of one load) into one:
    /// counts summed, histograms added, seconds aligned by wall clock.
    Merge(MergeArgs),
    /// Generator shards on Kubernetes: print an Indexed Job, then collect and merge its results.
    #[command(subcommand)]
    K8s(K8sCommand),
    /// What restbench runs on a --server-host over ssh (not for people).
    #[command(subcommand, hide = true)]
    RemoteAgent(AgentCommand),
}

/// `restbench completions`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Install, for example:
  restbench completions bash > ~/.local/share/bash-completion/completions/restbench
  restbench completions zsh > ~/.zfunc/_restbench        # with fpath+=~/.zfunc before compinit
  restbench completions fish > ~/.config/fish/completions/restbench.fish")]
pub struct CompletionsArgs {
    /// The shell.
    pub shell: clap_complete::Shell,
}

/// One name of a closed vocabulary (workload, scenario, protocol), spaces around it ignored:
/// clap refuses any other with the known names (exit 2).
pub fn vocabulary<T: FromStr>(text: &str) -> Result<T, T::Err> {
    text.trim().parse()
}

/// `2%` or `2` as the fraction 0.02.
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let number = t.strip_suffix('%').unwrap_or(t).trim();
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 100.0 => Ok(v / 100.0),
        _ => Err(format!(
            "{text:?} is not a percentage such as 2% (more than 0, at most 100)"
        )),
    }
}

/// The longest duration any flag takes: beyond it a value is a typo, and adding it to a clock
/// reading could overflow.
const MAX_FLAG_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// Durations as wrk takes them: `10s`, `1m`, `250ms`, or a bare number of seconds; at most a
/// year (commands bound their own flags further).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let d = if let Ok(secs) = t.parse::<f64>() {
        if !(secs.is_finite() && secs >= 0.0) {
            return Err(format!("{text:?} is not a duration"));
        }
        Duration::try_from_secs_f64(secs).map_err(|_| format!("{text:?} is too long"))?
    } else {
        humantime::parse_duration(t)
            .map_err(|e| format!("{text:?} is not a duration such as 10s, 1m or 250ms ({e})"))?
    };
    if d > MAX_FLAG_DURATION {
        return Err(format!("{text:?} is too long (at most a year)"));
    }
    Ok(d)
}

/// A flag value refused after parsing (out of range, malformed, too large for this machine):
/// the binary exits with 2, as for clap's own errors.
#[derive(Debug)]
pub struct BadArgument(pub String);

impl std::fmt::Display for BadArgument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadArgument {}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::{Protocol, Scenario};

    #[test]
    fn durations_as_wrk_takes_them() {
        assert_eq!(parse_duration("10").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("1m").unwrap(), Duration::from_secs(60));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1").is_err());
    }

    #[test]
    fn huge_durations_are_errors_not_panics() {
        for text in [
            "1e20",
            "1e19",
            "99999999999999999999999",
            "1e308",
            "400d",
            "inf",
            "NaN",
        ] {
            assert!(parse_duration(text).is_err(), "{text}");
        }
        assert_eq!(
            parse_duration("365d").unwrap(),
            Duration::from_secs(365 * 24 * 3600)
        );
    }

    #[test]
    fn list_flags_are_parsed_by_their_vocabulary_and_unknown_names_listed() {
        use clap::Parser;
        let cli = Cli::try_parse_from(["restbench", "run", "--protocols", "h1, h2c,h1"]).unwrap();
        let Command::Run(run) = cli.command else {
            panic!("not run")
        };
        assert_eq!(
            run.cells.measure.protocols,
            vec![Protocol::H1, Protocol::H2c, Protocol::H1],
            "clap keeps the list; the request drops repeats"
        );
        assert_eq!(
            run.cells.scenarios,
            vec![Scenario::SingleThread, Scenario::AllCores]
        );
        let e = Cli::try_parse_from(["restbench", "run", "--protocols", "h3"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("h1, h2c"), "{e}");
        let e = Cli::try_parse_from(["restbench", "study", "e"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        let e = Cli::try_parse_from(["restbench", "bench", "--cmd", "x", "--subjects", "a"])
            .unwrap_err();
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
