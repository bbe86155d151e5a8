//! Command-line arguments. Clap types stop here; commands turn them into library specs.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use restbench_model::{Protocol, Scenario, Workload};

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
                    && let Some(hint) = habit_hint(&args)
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

/// A one-line hint for a habit of another load tool that clap refuses with a misleading error:
/// hey's `-q N` (a per-worker rate) reads here as `--quiet` and then an unexpected argument.
pub fn habit_hint(args: &[String]) -> Option<&'static str> {
    if args.get(1).map(String::as_str) != Some("load") {
        return None;
    }
    let rate_after_q = args
        .windows(2)
        .any(|w| w[0] == "-q" && w[1].parse::<f64>().is_ok());
    rate_after_q.then_some("-q is --quiet here; use -R/--rate for requests per second")
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
    /// and report it against the published figures.
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

/// `restbench remote-agent`: the other end of `--server-host`
/// (`restbench_harness::serve::agent`).
#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Build the copied subject in DIR.
    Build {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        cache: PathBuf,
    },
    /// Start it, print one ready line, and stop it when the ssh session ends.
    Serve {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        cache: PathBuf,
        #[arg(long)]
        scenario: String,
        #[arg(long)]
        address: std::net::IpAddr,
        #[arg(long, default_value_t = 16)]
        db_pool: u32,
        /// A file holding DATABASE_URL (never on a command line).
        #[arg(long)]
        database_url_file: Option<PathBuf>,
    },
    /// The CPU and memory of process group PGID (and its cgroup, given as JSON) as JSON.
    Sample {
        #[arg(long)]
        pgid: i32,
        #[arg(long)]
        cgroup: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum K8sCommand {
    /// Print (JSON, which kubectl applies as it does YAML) an Indexed Job whose N pods each run
    /// one shard of this load, all starting at one time: `… | kubectl apply -f -`.
    Load(Box<K8sLoadArgs>),
    /// Read each pod's result of a Job through `kubectl logs` and merge them.
    Collect(K8sCollectArgs),
}

/// `restbench k8s load`.
#[derive(Debug, Args)]
pub struct K8sLoadArgs {
    /// Pods (generators), one shard each; -c and -n must divide by it.
    #[arg(long, default_value_t = 2)]
    pub shards: u32,
    /// The container image with restbench on its PATH.
    #[arg(long, default_value = "restbench:latest")]
    pub image: String,
    /// When the pods start loading, from now: time for the cluster to schedule and pull them
    /// (a pod that starts more than 1 s late fails rather than measure a different window).
    #[arg(long, value_parser = parse_duration, default_value = "30s")]
    pub start_in: Duration,
    /// The Job's name (default restbench-load-<UTC stamp>).
    #[arg(long)]
    pub name: Option<String>,
    /// The Job's namespace (default: kubectl's).
    #[arg(long)]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub load: LoadArgs,
}

/// `restbench k8s collect`.
#[derive(Debug, Args)]
pub struct K8sCollectArgs {
    /// The Job's name.
    pub job: String,
    #[arg(long)]
    pub namespace: Option<String>,
    /// Write the merged result (JSON) to PATH, or to stdout with '-'.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Print the latency distribution.
    #[arg(long)]
    pub latency: bool,
    /// Merge results of different loads anyway.
    #[arg(long)]
    pub force: bool,
}

/// `restbench merge`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Counts and error classes are summed and the HdrHistograms added (percentiles
are read from the sum, never averaged); the time series are aligned by
wall-clock second; the rate is the total answered over the window from the
earliest start to the latest end. Results of different loads (URL, method,
body size, keep-alive, HTTP version, pipeline, timeout, warm-up, duration,
open or closed loop) or the same shard twice are refused with what differs,
unless --force.")]
pub struct MergeArgs {
    /// The `restbench load --json` results to merge.
    #[arg(required = true, value_name = "RESULT")]
    pub results: Vec<PathBuf>,
    /// Write the merged result (JSON) to PATH, or to stdout with '-'.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Merge results of different loads anyway.
    #[arg(long)]
    pub force: bool,
    /// Print the latency distribution.
    #[arg(long)]
    pub latency: bool,
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
Every study adds rust-hyper, rust-axum, rust-actix and rust-reference. By
default durations are shortened so that `study all` finishes in reasonable
time (the report says how); --faithful keeps the seeds' own (study d then
takes 10 minutes per cell). Ratios against each study's first system are set
beside the published ones, with every reversal of order marked.")]
pub struct StudyArgs {
    /// a, b, c, d or all.
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
    /// Measuring time per repeat for the timed studies (a, d).
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

/// The flags `run`, `study` and `bench` share: protocols, repeats, the machine, the database,
/// the open-loop measures, and where the results go besides the results folder.
#[derive(Debug, Args, Clone)]
pub struct MeasureArgs {
    /// Protocols, comma-separated: h1, h2c (HTTP/2 with prior knowledge).
    ///
    /// The protocol is part of the cell; a subject gets cells only for those its subject.toml
    /// declares (`protocols`).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAMES",
        default_value = "h1",
        value_parser = vocabulary::<Protocol>
    )]
    pub protocols: Vec<Protocol>,
    /// Rounds every cell gets [default: 3].
    ///
    /// In each round every cell of a group (same workload, scenario, protocol) is measured
    /// once, beside a calibration of the generator: in a fresh random order, then that order
    /// backwards in the next round.
    #[arg(value_name = "N", help_heading = LOAD_SHAPE, long)]
    pub repeats: Option<u32>,
    /// Add rounds until every paired ratio of a group is within ± this width, such as 3%.
    ///
    /// Or until --max-rounds. [default: 3%; --quick and --faithful take a fixed count]
    #[arg(long, value_name = "PCT", help_heading = LOAD_SHAPE, value_parser = parse_percent)]
    pub target_ci: Option<f64>,
    /// The most rounds a group gets [default: 6; the repeats + 2 with --quick].
    #[arg(long, value_name = "N", help_heading = LOAD_SHAPE, hide_short_help = true, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_rounds: Option<u32>,
    /// Seed of the rounds' random orders, to repeat a run's orders.
    ///
    /// [default: from the clock; results.json records it]
    #[arg(long, value_name = "N", help_heading = LOAD_SHAPE, hide_short_help = true)]
    pub seed: Option<u64>,
    /// Server processes the rounds of a group are split over [default: 2; 1 with --quick].
    ///
    /// 2 or more stop and start the servers afresh (new cgroup, readiness wait, warm-up)
    /// between groups of rounds, and record the variance between processes beside the CV
    /// within one; 1 keeps one process per cell (also the default with a single repeat).
    #[arg(value_name = "N", help_heading = LOAD_SHAPE, hide_short_help = true, long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub restarts: Option<u32>,
    /// A profiling slice after each cell's rounds: flame graph, CPU split, system calls.
    ///
    /// Under the same load (perf, 5 s; 3 s with --quick); never part of the ranked figures;
    /// without perf the run says why and goes on.
    #[arg(long, help_heading = OUTPUT)]
    pub profile: bool,
    /// Replace the run already in --out (its results.json) instead of refusing.
    #[arg(help_heading = OUTPUT, long)]
    pub force: bool,
    /// An existing PostgreSQL server for the users workload [default: a throwaway one].
    ///
    /// Also from the environment (DATABASE_URL), which `ps` does not show; the value is never
    /// printed unredacted.
    #[arg(help_heading = DATABASE, long, value_name = "URL", env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// CPUs for the load generator (such as 0 or 0-1); the server gets the others.
    ///
    /// [default: a quarter of the CPUs, at least one]
    #[arg(help_heading = PLACEMENT, long, value_name = "CPUS")]
    pub loadgen_cpus: Option<String>,
    /// CPUs for the PostgreSQL cluster restbench starts for users cells (such as 3 or 2-3).
    ///
    /// [default: the generator's CPUs below four CPUs; else a quarter of the server's, taken
    /// from the server].
    #[arg(help_heading = PLACEMENT, hide_short_help = true, long, value_name = "CPUS")]
    pub db_cpus: Option<String>,
    /// Enforce and account with CPU affinity only, even where cgroups are usable.
    #[arg(help_heading = PLACEMENT, long)]
    pub no_cgroups: bool,
    #[command(flatten)]
    pub open_loop: OpenLoopArgs,
    #[command(flatten)]
    pub dir: SubjectsDir,
    #[command(flatten)]
    pub export: ExportArgs,
    #[command(flatten)]
    pub remote: RemoteRunArgs,
}

/// What each cell measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// Closed loop at saturation (the seeds' measure).
    Throughput,
    /// The capacity under --slo, open loop.
    Capacity,
    /// Throughput, then capacity.
    Both,
}

/// Open-loop measures of `run` and `study`: capacity under an SLO, and equal-load rates.
#[derive(Debug, Args, Clone)]
pub struct OpenLoopArgs {
    /// What each cell measures [default: throughput; both when --slo is given].
    #[arg(help_heading = OPEN_LOOP, long, value_enum)]
    pub mode: Option<ModeArg>,
    /// An SLO clause (repeatable): p50|p90|p99|p99.9<=DURATION or errors<=PERCENT%.
    ///
    /// The capacity is the highest rate meeting every clause.
    #[arg(help_heading = OPEN_LOOP, long, value_name = "CLAUSE")]
    pub slo: Vec<String>,
    /// Load every cell at these open-loop rates too (req/s, comma-separated).
    ///
    /// The server's CPU per request is recorded at each; a rate a cell cannot hold is recorded as
    /// not held.
    #[arg(help_heading = OPEN_LOOP, long, value_delimiter = ',', value_name = "RATES")]
    pub at_rate: Vec<f64>,
    /// Measured time of each open-loop step [default: 3s; 1s with --quick].
    #[arg(value_name = "D", help_heading = OPEN_LOOP, hide_short_help = true, long, value_parser = parse_duration)]
    pub step_duration: Option<Duration>,
    /// Stop the capacity search when a passing and a failing rate are this close.
    #[arg(value_name = "PCT", help_heading = OPEN_LOOP, hide_short_help = true, long, value_parser = parse_percent, default_value = "2%")]
    pub resolution: f64,
}

/// `restbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline: a run's folder or its results.json, or a `restbench load --json` result.
    pub a: PathBuf,
    /// The run (or load result) compared with it.
    pub b: PathBuf,
    /// Markdown instead of aligned text.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// The comparison as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// The regression gate's flags (`ab`, `compare`, `history check`).
#[derive(Debug, Args, Clone, Default)]
pub struct GateArgs {
    /// Exit 1 when the 95 % interval of a ratio lies wholly beyond this change, such as
    /// cpu_us_per_req>+5%, p99>+10%, rps<-5% (repeatable; measures: rps, p50, p99,
    /// cpu_us_per_req, rss). Within noise it passes and says so.
    #[arg(long, value_name = "EXPR", value_parser = parse_threshold)]
    pub fail_if: Vec<restbench_model::Threshold>,
    /// Compare runs from different machines (CPU model, cores, kernel, cgroup backend) instead
    /// of refusing; what differs is printed.
    #[arg(long)]
    pub across_machines: bool,
}

/// A `--fail-if` expression.
pub fn parse_threshold(text: &str) -> Result<restbench_model::Threshold, String> {
    text.parse()
        .map_err(|e: restbench_model::ThresholdError| e.reason)
}

/// `restbench ab`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  restbench ab subjects/my-server /tmp/my-server-patched --quick
  restbench ab my-server --rev origin/main --rev HEAD --fail-if 'cpu_us_per_req>+5%'

The two versions are two subjects of one run (ids <id>@a and <id>@b, or <id>@<commit>), with
the same plan, measured at once in every round (a duet) or, with --interleaved, one after the
other. Exit 1 only when a --fail-if interval lies wholly beyond its
threshold.")]
pub struct AbArgs {
    /// Two folders of one subject, or one subject id with --rev twice.
    #[arg(value_name = "DIR_OR_ID", num_args = 1..=2, required = true)]
    pub targets: Vec<PathBuf>,
    /// A git revision of the checkout (twice: A then B); the subject's folder at each is built
    /// from `git archive`, cached by its tree hash.
    #[arg(long, value_name = "REV")]
    pub rev: Vec<String>,
    /// Markdown instead of aligned text.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// The A/B as JSON.
    #[arg(long)]
    pub json: bool,
    /// Measure without the conformance cases first.
    #[arg(long)]
    pub no_conformance: bool,
    /// Measure A and B one after the other in every round (A B, then B A), not at once.
    ///
    /// By default they are a duet: both at once in every round, their servers sharing the
    /// server CPUs, each driven by its own generator, so a drift of the machine lands on both
    /// alike (latencies then include waiting for the other server's turn on the CPU). A remote
    /// server or generator host always measures interleaved.
    #[arg(long)]
    pub interleaved: bool,
    #[command(flatten)]
    pub gate: GateArgs,
    #[command(flatten)]
    pub cells: CellArgs,
}

/// `restbench history`.
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Store runs (folders or results.json files); a run already stored is kept once.
    Import(HistoryImportArgs),
    /// A self-contained HTML timeline of every measure with its interval.
    Show(HistoryShowArgs),
    /// The gate (--fail-if) of a run against the recent history of its cells.
    Check(HistoryCheckArgs),
}

/// Where the history is.
#[derive(Debug, Args, Clone)]
pub struct HistoryStoreArgs {
    /// A PostgreSQL URL (postgres://…) or a SQLite file [default:
    /// $XDG_DATA_HOME/restbench/history.sqlite, else ~/.local/share/restbench/history.sqlite].
    #[arg(
        long,
        value_name = "URL_OR_FILE",
        env = "RESTBENCH_HISTORY",
        hide_env_values = true
    )]
    pub history: Option<String>,
}

/// `restbench history import`.
#[derive(Debug, Args)]
pub struct HistoryImportArgs {
    /// Runs: their folders or results.json files.
    #[arg(value_name = "RUN", required = true)]
    pub runs: Vec<PathBuf>,
    /// The git revision the runs measured (for subjects without one in their id).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    #[command(flatten)]
    pub store: HistoryStoreArgs,
}

/// `restbench history show`.
#[derive(Debug, Args)]
pub struct HistoryShowArgs {
    /// Only this subject (a revision's id such as rust-hyper@1a2b3c4 counts as rust-hyper).
    #[arg(long)]
    pub subject: Option<String>,
    /// Only this workload.
    #[arg(long)]
    pub workload: Option<String>,
    /// Where to write the page.
    #[arg(long, value_name = "FILE", default_value = "history.html")]
    pub out: PathBuf,
    /// A revision's page: points link to this URL with {rev} replaced (such as
    /// https://github.com/me/my-server/commit/{rev}).
    #[arg(long, value_name = "URL")]
    pub commit_url: Option<String>,
    #[command(flatten)]
    pub store: HistoryStoreArgs,
}

/// `restbench history check`.
#[derive(Debug, Args)]
pub struct HistoryCheckArgs {
    /// The run to check (its folder or results.json).
    #[arg(value_name = "RUN")]
    pub run: PathBuf,
    /// The baseline: the last N runs of each cell on this machine (last:5).
    #[arg(long, value_name = "last:N", default_value = "last:5", value_parser = parse_last)]
    pub against: u32,
    #[command(flatten)]
    pub gate: GateArgs,
    #[command(flatten)]
    pub store: HistoryStoreArgs,
}

/// `last:N` with N at least 2.
pub fn parse_last(text: &str) -> Result<u32, String> {
    text.strip_prefix("last:")
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|n| *n >= 2)
        .ok_or_else(|| format!("{text:?} is not last:N with N at least 2 (such as last:5)"))
}

/// `restbench doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// A JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// Options shared by commands that start subjects.
#[derive(Debug, Args, Clone)]
pub struct SubjectsDir {
    /// The folder of subjects [default: the checkout's subjects/, else the installed ones].
    ///
    /// The default is `subjects/` of the checkout around the current folder or the executable,
    /// else the catalogue installed with `restbench subjects --install`.
    #[arg(long, env = "RESTBENCH_SUBJECTS", value_name = "DIR", global = true)]
    pub subjects_dir: Option<PathBuf>,
}

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

/// The flags `run` and `bench` share: each cell's workloads, scenarios and load, the results
/// folder, and the calibration; with the flags `study` shares too.
#[derive(Debug, Args)]
pub struct CellArgs {
    /// A short pass for a first look: 3 rounds of 2 s slices, 1 s warm-up.
    #[arg(long)]
    pub quick: bool,
    /// Workloads, comma-separated: plaintext, todo, echo, users [default: all each subject serves].
    #[arg(long, value_delimiter = ',', value_name = "NAMES", value_parser = vocabulary::<Workload>)]
    pub workloads: Vec<Workload>,
    /// Scenarios, comma-separated: single-thread, one-cpu, all-cores.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAMES",
        default_value = "single-thread,all-cores",
        value_parser = vocabulary::<Scenario>
    )]
    pub scenarios: Vec<Scenario>,
    /// Measuring time per slice (one cell in one round) [default: 5s; 2s with --quick].
    #[arg(value_name = "D", help_heading = LOAD_SHAPE, long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Warm-up per cell, discarded [default: 3s; 1s with --quick].
    ///
    /// Repeated until two in a row agree within 7 % (JIT runtimes), for at most 8 s with --quick
    /// and 30 s otherwise.
    #[arg(value_name = "D", help_heading = LOAD_SHAPE, long, value_parser = parse_duration)]
    pub warmup: Option<Duration>,
    /// Connections of the load generator.
    #[arg(value_name = "N", help_heading = LOAD_SHAPE, short = 'c', long, default_value_t = restbench_harness::plan::resolve::DEFAULT_CONNECTIONS)]
    pub connections: u32,
    /// Threads of the load generator [default: one per CPU it is given].
    #[arg(value_name = "N", help_heading = LOAD_SHAPE, short = 't', long)]
    pub threads: Option<u32>,
    /// Where to write results.json and the reports [default: results/<UTC stamp>].
    #[arg(help_heading = OUTPUT, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Database connections in total over all server processes.
    #[arg(value_name = "N", help_heading = DATABASE, hide_short_help = true, long, default_value_t = restbench_harness::plan::DEFAULT_DB_POOL)]
    pub db_pool: u32,
    /// Skip measuring the generator's ceiling at the start.
    ///
    /// client_bound then relies on the generator's CPU alone.
    #[arg(help_heading = PLACEMENT, hide_short_help = true, long)]
    pub no_calibrate: bool,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

/// `run` and `study` with their generators on other hosts.
#[derive(Debug, Args, Clone, Default)]
pub struct RemoteRunArgs {
    #[command(flatten)]
    pub hosts: LoadgenHostsArgs,
    /// The address the servers bind (their HOST) and are loaded at.
    ///
    /// One of this machine's that the --loadgen-hosts reach, or with --server-host one of that
    /// host's [default: 127.0.0.1; with --server-host, its name resolved here].
    #[arg(help_heading = SEVERAL_MACHINES, long, value_name = "ADDR")]
    pub server_address: Option<std::net::IpAddr>,
    /// Run the subjects on this host over SSH instead of here: user@host[:port].
    ///
    /// restbench copies itself (cached by hash) and each subject's folder there, builds it there
    /// with its own build commands, starts it there (in a cgroup when the host allows one), reads
    /// its CPU and memory there, and stops it and removes what it copied at the end, on Ctrl-C or a
    /// failing cell. The load goes there from here (or from --loadgen-hosts) [default: the subjects
    /// run here].
    #[arg(help_heading = SEVERAL_MACHINES, long, value_name = "HOST")]
    pub server_host: Option<String>,
    /// Keep the build cache on the --server-host between runs.
    ///
    /// It is ~/.cache/restbench/work/cache there, so an unchanged subject is not built again; the
    /// copied folders still go.
    #[arg(help_heading = SEVERAL_MACHINES, hide_short_help = true, long, requires = "server_host")]
    pub server_cache: bool,
}

/// `restbench verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Subjects to verify [default: all available].
    pub subjects: Vec<String>,
    /// Workloads, comma-separated [default: all each subject serves].
    #[arg(long, value_delimiter = ',', value_name = "NAMES", value_parser = vocabulary::<Workload>)]
    pub workloads: Vec<Workload>,
    /// The scenario to start subjects in.
    #[arg(long, default_value = "single-thread", value_parser = vocabulary::<Scenario>)]
    pub scenario: Scenario,
    /// An existing PostgreSQL server [default: a throwaway one when users is verified].
    /// Also from the environment (DATABASE_URL), which `ps` does not show; the value is never
    /// printed unredacted.
    #[arg(long, value_name = "URL", env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Print passing checks too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Write the findings as JSON to stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench conformance`.
#[derive(Debug, Args)]
pub struct ConformanceArgs {
    /// Subjects to check [default: all available].
    pub subjects: Vec<String>,
    /// Workloads whose requests are split and pipelined, comma-separated [default: all each
    /// subject serves].
    #[arg(long, value_delimiter = ',', value_name = "NAMES", value_parser = vocabulary::<Workload>)]
    pub workloads: Vec<Workload>,
    /// An existing PostgreSQL server for subjects that serve users [default: a throwaway one].
    /// Also from the environment (DATABASE_URL); the value is never printed unredacted.
    #[arg(long, value_name = "URL", env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Run the cases even for a build whose result is cached.
    #[arg(long)]
    pub fresh: bool,
    /// Print every case, passing ones too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Write the conformance document as JSON to stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench subjects`.
#[derive(Debug, Args)]
pub struct SubjectsArgs {
    /// A JSON document (an object: schema_version and the subjects) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Copy the subjects folder in use (this checkout's, or --subjects-dir) to DIR [default:
    /// $XDG_DATA_HOME/restbench/subjects, or ~/.local/share/restbench/subjects], where an installed
    /// restbench finds it from any folder. Build outputs are left out; subjects made there with
    /// `restbench new` are kept.
    #[arg(long, value_name = "DIR", num_args = 0..=1)]
    pub install: Option<Option<PathBuf>>,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench new`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
The copy goes to --subjects-dir (or RESTBENCH_SUBJECTS) when given, else to
./subjects. Every whole-word occurrence of the old id in the copied text files
becomes the new name (subject.toml's id and start command, Cargo.toml and
Cargo.lock, package.json and package-lock.json, go.mod and its imports,
pom.xml); seeds is emptied. Then edit the sources and check the copy:
  restbench verify my-server --subjects-dir subjects
  restbench run --subjects my-server --subjects-dir subjects")]
pub struct NewArgs {
    /// The new subject's id: lowercase letters, digits and '-' (such as my-server).
    pub name: String,
    /// The subject to start from (see `restbench subjects`).
    #[arg(long, value_name = "ID")]
    pub from: String,
    #[command(flatten)]
    pub dir: SubjectsDir,
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

/// `restbench serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The subject's id (see `restbench subjects`).
    pub id: String,
    /// Port to listen on [default: a free one, printed].
    #[arg(long)]
    pub port: Option<u16>,
    /// The scenario to start it in: single-thread, one-cpu, all-cores.
    #[arg(long, default_value = "single-thread", value_parser = vocabulary::<Scenario>)]
    pub scenario: Scenario,
    /// PostgreSQL for the users workload [default: a throwaway one when the subject serves users].
    /// Also from the environment (DATABASE_URL), which `ps` does not show; the value is never
    /// printed unredacted.
    #[arg(long, value_name = "URL", env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Database connections in total over all server processes.
    #[arg(long, default_value_t = restbench_harness::plan::DEFAULT_DB_POOL)]
    pub db_pool: u32,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The subject's id (see `restbench subjects`); not with --diff.
    #[arg(required_unless_present = "diff", conflicts_with = "diff")]
    pub id: Option<String>,
    /// The workload whose load the subject is profiled under.
    #[arg(long, default_value = "plaintext", value_parser = vocabulary::<Workload>)]
    pub workload: Workload,
    /// The scenario to start it in: single-thread, one-cpu, all-cores.
    #[arg(long, default_value = "single-thread", value_parser = vocabulary::<Scenario>)]
    pub scenario: Scenario,
    /// How long perf samples the server.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub duration: Duration,
    /// A discarded load before the slice, so JIT runtimes are profiled warm.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub warmup: Duration,
    /// Concurrent connections of the load.
    #[arg(short, long, default_value_t = 10)]
    pub connections: u32,
    /// The folder written: stacks.folded, flamegraph.svg, profile.html, profile.json
    /// [default: profiles/SUBJECT-WORKLOAD-SCENARIO, or profiles/diff with --diff].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A differential flame graph of two profiles, A then B (red: more of B's samples): each a
    /// folded-stacks file, a `restbench profile` folder, or RUN_DIR:SUBJECT/WORKLOAD/SCENARIO for
    /// a profiled cell of a run.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub diff: Vec<String>,
    /// Also write perf's own text (perf.script) in the folder, for other tools.
    #[arg(long)]
    pub keep_script: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Start a throwaway PostgreSQL cluster with the seed data; prints its URL and runs until
    /// Ctrl-C or SIGTERM, then removes it.
    Start(DbStartArgs),
}

#[derive(Debug, Args)]
pub struct DbStartArgs {
    /// Keep the cluster in DIR: a new folder (restbench creates it and hands it to the postgres
    /// user), or one an earlier --keep made, which is reused [default: a temporary folder, removed
    /// at the end].
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Listen on ADDR too (beside 127.0.0.1), for servers on other hosts: clients on this
    /// machine's own subnets may connect with the password, and the printed URL names ADDR
    /// [default: 127.0.0.1 only; with --host, the host's address].
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<std::net::IpAddr>,
    /// Start the cluster on this host over SSH instead (user@host[:port]): restbench copies
    /// itself there (cached by hash), runs `db start --listen` there, and prints a URL reachable
    /// from here (the host's address, or --listen's); Ctrl-C stops and removes it there
    /// [default: on this machine].
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Stop when stdin closes: how a cluster started over SSH ends with its session.
    #[arg(long, hide = true)]
    pub exit_with_stdin: bool,
}

/// `restbench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A run's folder or its results.json; report.md and report.html are written beside it.
    #[arg(value_name = "DIR|RESULTS")]
    pub dir: PathBuf,
    /// Also print report.md to stdout (the paths written then go to stderr).
    #[arg(long)]
    pub stdout: bool,
}

/// `restbench load`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  restbench load -d 20s -T application/json -b @docs/colors.json \\
      http://127.0.0.1:3000/echo                            # wrk -s post.lua
  restbench load -n 100k -c 32 -t 4 http://127.0.0.1:8080/rest/todo    # h2load
  restbench load -n 10k -c 128 --http1.0 http://127.0.0.1:8000/users   # ab
  restbench load -t 8 -c 512 -d 10m --timeout 1m --latency \\
      http://127.0.0.1:8080/api/test
  restbench load -R 5000 -d 30s --latency --json result.json \\
      http://127.0.0.1:8080/api/test
  restbench load -c 64 --slo 'p99<=10ms' --slo 'errors<=0.1%' \\
      http://127.0.0.1:8080/plaintext

With --slo: a closed-loop probe, then open-loop steps (each with --warmup,
default 1s, and --step-duration) that bracket and bisect the highest rate
meeting every clause, to --resolution. A capacity the generator could not push
past is printed as a floor (bound by the generator). Give enough connections
(-c) for the rates and latencies in question: one request is in flight per
connection.

Exit status: 0 when every request got a 2xx/3xx answer; 3 when the run
finished with errors or no answer at all (they are printed and written), or
with --slo when no rate met the SLO; 130 when Ctrl-C cut it short (the figures
so far are printed and written, marked interrupted); 1 when it could not run
(server unreachable, file unreadable or unwritable); 2 for bad arguments (out
of range, malformed, or more connections than this process may open). Limits:
-c 65535, -t 1024, --pipeline 1024, body 64 MiB, --timeout 1h, -d and --warmup
7 days, -R 0.001 to 100000000.")]
pub struct LoadArgs {
    /// The server, as http[s]://host[:port]/path: loopback only unless --allow-remote.
    pub url: String,
    /// Load a server that is not on this machine's loopback.
    ///
    /// Loopback is 127.0.0.0/8, ::1, localhost or a name resolving only to those, or a Unix
    /// socket; a load elsewhere is refused without this flag, so that a typo never floods
    /// someone else's server. Shards (--shard, --loadgen-hosts) are not checked.
    #[arg(long)]
    pub allow_remote: bool,
    /// Connections kept open in total.
    #[arg(value_name = "N", short = 'c', long, default_value = "10", value_parser = parse_count_u32)]
    pub connections: u32,
    /// Threads, each with its own event loop over its share of the connections.
    #[arg(value_name = "N", short = 't', long, default_value = "2", value_parser = parse_count_u32)]
    pub threads: u32,
    /// How long to measure: 10s, 1m, 500ms, a bare number is seconds [default: 10s].
    ///
    /// -z is the same (oha's). Without -d and -n, 10s.
    #[arg(value_name = "D", short = 'd', short_alias = 'z', long, value_parser = parse_load_duration, conflicts_with = "requests")]
    pub duration: Option<Duration>,
    /// Send exactly this many requests in total, then stop (100k and 1m are accepted).
    #[arg(value_name = "N", short = 'n', long, value_parser = parse_count_u64)]
    pub requests: Option<u64>,
    /// Open loop: send at this constant total rate (requests/s).
    ///
    /// Latency counts from each request's intended send time (coordinated omission corrected,
    /// as wrk2).
    #[arg(value_name = "RPS", short = 'R', long)]
    pub rate: Option<f64>,
    /// HTTP method [default: GET, or POST with -b as curl and ab send it].
    #[arg(value_name = "M", help_heading = REQUEST, short = 'm', long)]
    pub method: Option<String>,
    /// A request header, 'Name: value' (repeatable).
    #[arg(help_heading = REQUEST, short = 'H', long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
    /// The Content-Type header of every request (hey's -T) [default: none, or -H's].
    #[arg(help_heading = REQUEST, short = 'T', long, value_name = "TYPE")]
    pub content_type: Option<String>,
    /// The request body: TEXT, or @FILE to read it from a file.
    #[arg(value_name = "TEXT|@FILE", help_heading = REQUEST, short = 'b', long)]
    pub body: Option<String>,
    /// Requests in flight per connection (HTTP/1.1 pipelining).
    #[arg(value_name = "N", help_heading = CONNECTION, long, default_value_t = 1)]
    pub pipeline: u32,
    /// Open a new connection for every request (Connection: close).
    #[arg(help_heading = CONNECTION, long, alias = "disable-keepalive")]
    pub no_keepalive: bool,
    /// Send HTTP/1.0 requests as ab does (implies a new connection per request).
    #[arg(help_heading = CONNECTION, long = "http1.0", conflicts_with = "http2")]
    pub http10: bool,
    /// Speak HTTP/2: h2 by ALPN over https://, h2c with prior knowledge over http://.
    #[arg(help_heading = CONNECTION, long)]
    pub http2: bool,
    /// HTTP/2 streams in flight per connection (h2load's -m).
    #[arg(value_name = "N", help_heading = CONNECTION, hide_short_help = true, long, default_value_t = 1, requires = "http2")]
    pub max_streams: u32,
    /// Connect to this Unix domain socket; the URL still gives the Host header and the path.
    #[arg(help_heading = CONNECTION, hide_short_help = true, long, value_name = "PATH")]
    pub unix_socket: Option<PathBuf>,
    /// https://: accept any server certificate (self-signed test servers).
    #[arg(help_heading = CONNECTION, short = 'k', long, conflicts_with = "cacert")]
    pub insecure: bool,
    /// https://: trust the CA certificates of this PEM file instead of the built-in roots.
    #[arg(help_heading = CONNECTION, long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// A request without a complete answer after this long is a timeout; its connection is
    /// replaced.
    #[arg(value_name = "D", help_heading = CONNECTION, long, value_parser = parse_duration, default_value = "2s")]
    pub timeout: Duration,
    /// Load sent first and left out of every figure.
    #[arg(value_name = "D", long, value_parser = parse_duration)]
    pub warmup: Option<Duration>,
    /// Print the latency distribution.
    #[arg(help_heading = OUTPUT, long)]
    pub latency: bool,
    /// No live progress line on stderr (it is drawn only when stderr is a terminal anyway).
    #[arg(help_heading = OUTPUT, short = 'q', long)]
    pub quiet: bool,
    /// Write the result document (JSON) to PATH, or to stdout with '-'.
    #[arg(help_heading = OUTPUT, long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Search the capacity under this SLO clause (repeatable), such as p99<=10ms.
    ///
    /// A clause is p50|p90|p99|p99.9<=DURATION (p99<=10ms) or errors<=PERCENT% (errors<=0.1%).
    #[arg(help_heading = CAPACITY, long, value_name = "CLAUSE", conflicts_with_all = ["duration", "requests", "rate"])]
    pub slo: Vec<String>,
    /// With --slo: the measured time of each open-loop step.
    #[arg(value_name = "D", help_heading = CAPACITY, hide_short_help = true, long, value_parser = parse_duration, default_value = "5s", requires = "slo")]
    pub step_duration: Duration,
    /// With --slo: stop when a passing and a failing rate are this close.
    ///
    /// In percent of the failing one, such as 2% or 0.5.
    #[arg(value_name = "PCT", help_heading = CAPACITY, hide_short_help = true, long, value_parser = parse_percent, default_value = "2%", requires = "slo")]
    pub resolution: f64,
    /// With --slo: the most open-loop steps.
    #[arg(value_name = "N", help_heading = CAPACITY, hide_short_help = true, long, default_value_t = 14, requires = "slo")]
    pub max_steps: u32,
    #[command(flatten)]
    pub export: ExportArgs,
    #[command(flatten)]
    pub scaleout: ScaleoutArgs,
}

/// `load` split over several generators: a synchronised start, the shard recorded, and the
/// generators on other hosts over SSH.
#[derive(Debug, Args, Clone, Default)]
pub struct ScaleoutArgs {
    /// Start at TIME: RFC 3339 (2026-05-01T12:00:00Z) or Unix milliseconds.
    ///
    /// Unix milliseconds as `date +%s%3N` prints them. Every generator given the same time starts
    /// together; a time more than 1 s past or more than 24 h ahead is refused.
    #[arg(help_heading = SEVERAL_MACHINES, long, value_name = "TIME")]
    pub start_at: Option<String>,
    /// This generator's part of a load split over N (I counts from 0).
    ///
    /// Recorded in the result for `restbench merge`.
    #[arg(help_heading = SEVERAL_MACHINES, long, value_name = "I/N")]
    pub shard: Option<restbench_model::Shard>,
    /// Stop at once when stdin closes: how a generator started over SSH dies with its session.
    #[arg(long, hide = true)]
    pub exit_with_stdin: bool,
    #[command(flatten)]
    pub hosts: LoadgenHostsArgs,
}

/// Remote generators over SSH, for `load`, `run` and `study`.
#[derive(Debug, Args, Clone, Default)]
pub struct LoadgenHostsArgs {
    /// Run the load generator on these hosts over SSH: user@host[:port],… or @FILE.
    ///
    /// One shard each, started together and merged; @FILE has one host per line. restbench copies
    /// itself to each (cached by hash); the system ssh client is used with BatchMode, so keys or
    /// an agent must work already. RESTBENCH_SSH_CONFIG names an ssh_config to use (-F).
    #[arg(help_heading = SEVERAL_MACHINES, long, value_name = "HOSTS")]
    pub loadgen_hosts: Option<String>,
}

/// Exports as hyperfine writes them, for `load` (a row per run) and `run`/`study` (a row per
/// cell). The files are created before any load starts, so a bad path fails at once.
#[derive(Debug, Args, Clone, Default)]
pub struct ExportArgs {
    /// Write the figures as JSON rows ({"results": [...]}, base units) to PATH.
    #[arg(help_heading = OUTPUT, long, value_name = "PATH")]
    pub export_json: Option<PathBuf>,
    /// Write the figures as CSV (a header, then a row per load run or cell) to PATH.
    #[arg(help_heading = OUTPUT, hide_short_help = true, long, value_name = "PATH")]
    pub export_csv: Option<PathBuf>,
    /// Write the figures as a Markdown table to PATH.
    #[arg(help_heading = OUTPUT, hide_short_help = true, long, value_name = "PATH")]
    pub export_markdown: Option<PathBuf>,
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

/// `-d` of `load`: a duration as wrk takes it; a request body there (curl's and hey's `-d`)
/// gets a hint to `-b`.
pub fn parse_load_duration(text: &str) -> Result<Duration, String> {
    parse_duration(text).map_err(|e| {
        if looks_like_body(text) {
            format!("{e}; the body is -b/--body; -d is the duration as in wrk")
        } else {
            e
        }
    })
}

/// A value that can only have been meant as a request body: JSON, a form, a file reference.
fn looks_like_body(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with(['{', '[', '@', '"', '<']) || t.contains('=') || t.contains('&')
}

/// A count as wrk takes it: 1000, 1k or 1m (decimal: 1k = 1000).
pub fn parse_count(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, factor) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1_000),
        Some((i, 'm' | 'M')) => (&t[..i], 1_000_000),
        Some((i, 'g' | 'G')) => (&t[..i], 1_000_000_000),
        _ => (t, 1),
    };
    let refuse = || format!("{text:?} is not a count such as 10, 1k or 1m");
    if let Ok(n) = digits.parse::<u64>() {
        return n
            .checked_mul(factor)
            .ok_or_else(|| format!("{text:?} is too large"));
    }
    let x: f64 = digits.parse().map_err(|_| refuse())?;
    let n = x * factor as f64;
    if !(n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n < u64::MAX as f64) {
        return Err(refuse());
    }
    Ok(n as u64)
}

fn parse_count_u64(text: &str) -> Result<u64, String> {
    parse_count(text)
}

fn parse_count_u32(text: &str) -> Result<u32, String> {
    u32::try_from(parse_count(text)?).map_err(|_| format!("{text:?} is too large"))
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

    #[test]
    fn counts_take_wrk_suffixes() {
        assert_eq!(parse_count("1k"), Ok(1000));
        assert_eq!(parse_count("100k"), Ok(100_000));
        assert_eq!(parse_count("1.5k"), Ok(1500));
        assert_eq!(parse_count("2M"), Ok(2_000_000));
        assert_eq!(parse_count("12"), Ok(12));
        assert!(parse_count("zero").is_err());
        assert!(parse_count("1.5").is_err());
        let args =
            Cli::try_parse_from(["restbench", "load", "-c", "1k", "-n", "100k", "u"]).unwrap();
        let Command::Load(load) = args.command else {
            panic!("load")
        };
        assert_eq!((load.connections, load.requests), (1000, Some(100_000)));
    }

    #[test]
    fn z_is_the_duration_and_a_body_given_to_d_gets_a_hint() {
        let args = Cli::try_parse_from(["restbench", "load", "-z", "2s", "u"]).unwrap();
        let Command::Load(load) = args.command else {
            panic!("load")
        };
        assert_eq!(load.duration, Some(Duration::from_secs(2)));
        let e = parse_load_duration(r#"{"a":1}"#).unwrap_err();
        assert!(
            e.ends_with("; the body is -b/--body; -d is the duration as in wrk"),
            "{e}"
        );
        assert!(!parse_load_duration("soon").unwrap_err().contains("-b"));
    }

    #[test]
    fn q_with_a_number_is_heys_rate() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(habit_hint(&argv(&["restbench", "load", "-q", "100", "u"])).is_some());
        assert!(habit_hint(&argv(&["restbench", "load", "-q", "u"])).is_none());
    }

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
