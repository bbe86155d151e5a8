//! The arguments of the commands that measure subjects into a results folder: `run` (the
//! catalogue's), `bench` (a server of one's own) and `study` (a seed study).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::shared::{CellArgs, MeasureArgs};
use super::{LOAD_SHAPE, OUTPUT, parse_duration};

/// `restbench run`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Every finished cell is written at once to OUT/results.json; Ctrl-C keeps them
and stops every subject. A subject whose toolchain is missing is skipped with
the reason; one that fails to build or start fails its own cells and the run
goes on.")]
pub struct RunArgs {
    /// Subjects to run (the same as --subjects).
    #[arg(value_name = "ID", value_delimiter = ',', conflicts_with = "subjects")]
    pub ids: Vec<String>,
    /// Subjects to run, comma-separated [default: all].
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub subjects: Vec<String>,
    /// Measure without the conformance cases first (the results say so).
    #[arg(long)]
    pub no_conformance: bool,
    #[command(flatten)]
    pub cells: CellArgs,
}

/// `restbench bench`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  restbench bench --cmd 'my-server --port {port}' --workloads plaintext,todo
  restbench bench --cmd './target/release/api' --name api --quick
  restbench bench --cmd 'python3 app.py' --workloads echo --scenarios single-thread --repeats 1

The command runs in the current folder through /bin/sh, in each scenario as
given, with PORT, HOST=127.0.0.1 and RESTBENCH_SCENARIO in its environment;
{port} and {cores} are filled in. It must serve the workloads' contract (GET
/api/test answers Hello, World! as text/plain; see subjects/README.md); a cell
whose checks fail is reported and not measured. Results go to
results/bench-NAME-<UTC stamp> (or --out) with report.md and report.html;
--workloads defaults to plaintext. The other options are run's.")]
pub struct BenchArgs {
    /// The server's command line; {port} is replaced by the port it must listen on.
    #[arg(long, value_name = "COMMAND")]
    pub cmd: String,
    /// The subject's name in the results (lowercase letters, digits and '-').
    #[arg(long, default_value = restbench_subject::ad_hoc::DEFAULT_NAME)]
    pub name: String,
    #[command(flatten)]
    pub cells: CellArgs,
}

/// `restbench study`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Studies:
  a  seed 000: ~4 KB JSON echo; wrk -t2 -c10 -d20s; single-thread, one-cpu (Go with GOMAXPROCS
     unset and =1), all-cores; Node, Go, Spring Boot
  b  seed 002: static todo list; 100,000 warm-up requests on 1 connection, then 100,000 on 32
     connections with 4 threads; Jersey/Grizzly, Go, Node and Express in cluster mode
  c  seed 003: 100 users from PostgreSQL with a Caesar cipher; 10,000 requests at concurrency 128,
     a new connection per request as ab; all cores; a pool of 100; Go, Node, Python stacks
  d  seed 004: plaintext hello; wrk -t8 -c512 --timeout 1m; eleven stacks
  tfb  TechEmpower's seven test types (json, db, queries at 20 per request,
     cached-queries, fortunes, updates at 20, plaintext pipelined 16 deep) for
     every subject that declares one, at concurrency 512 in the all-cores
     scenario (needs PostgreSQL), set beside Round 23's published figures as
     ratios, with Kendall's tau-b between the two orders; not part of `all`
Every seed study adds rust-hyper, rust-axum, rust-actix and rust-reference. By
default durations are shortened so that `study all` finishes in reasonable
time (the report says how); --faithful keeps the seeds' own (study d then
takes 10 minutes per cell). Ratios against each study's first system are set
beside the published ones, with every reversal of order marked.")]
pub struct StudyArgs {
    /// a, b, c, d, all (the four seeds) or tfb.
    #[arg(value_enum)]
    pub study: StudyId,
    /// A first look: much shorter loads, one repeat.
    #[arg(long, conflicts_with = "faithful")]
    pub quick: bool,
    /// The seeds' full durations and request counts.
    #[arg(long)]
    pub faithful: bool,
    /// Only these subjects of the study, comma-separated [default: all of the study's].
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub subjects: Vec<String>,
    /// Measuring time per repeat for the timed studies (a, d, tfb).
    ///
    /// [default: the study's, shortened unless --faithful]
    #[arg(value_name = "D", help_heading = LOAD_SHAPE, long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Where to write [default: results/study-<id>-<UTC stamp>].
    ///
    /// `all` writes one folder per study and an index report.
    #[arg(help_heading = OUTPUT, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Measure without the conformance cases first (the results say so).
    #[arg(long)]
    pub no_conformance: bool,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// The seed studies `restbench study` re-runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StudyId {
    A,
    B,
    C,
    D,
    All,
    Tfb,
}

impl StudyId {
    /// The name on the command line and in the results folder's name.
    pub fn name(self) -> &'static str {
        match self {
            StudyId::A => "a",
            StudyId::B => "b",
            StudyId::C => "c",
            StudyId::D => "d",
            StudyId::All => "all",
            StudyId::Tfb => "tfb",
        }
    }

    /// The studies it runs, in order.
    pub fn ids(self) -> Vec<&'static str> {
        match self {
            StudyId::All => vec!["a", "b", "c", "d"],
            one => vec![one.name()],
        }
    }
}
