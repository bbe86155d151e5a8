//! The argument groups several commands flatten, so that a flag they share is spelled, documented
//! and defaulted once.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use restbench_model::{Protocol, Scenario, Workload};

use super::{
    DATABASE, LOAD_SHAPE, OPEN_LOOP, OUTPUT, PLACEMENT, SEVERAL_MACHINES, parse_duration,
    parse_percent, vocabulary,
};

/// The flags `run` and `bench` share: each cell's workloads, scenarios and load, the results
/// folder, and the calibration; with the flags `study` shares too.
#[derive(Debug, Args)]
pub struct CellArgs {
    /// A short pass for a first look: 3 rounds of 2 s slices, 1 s warm-up.
    #[arg(long)]
    pub quick: bool,
    /// Workloads, comma-separated (docs/workloads.md) [default: all each subject serves].
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
    #[arg(value_name = "N", help_heading = LOAD_SHAPE, short = 'c', long, default_value_t = restbench_harness::planner::resolve::DEFAULT_CONNECTIONS)]
    pub connections: u32,
    /// Plaintext requests in flight per connection (HTTP/1.1 pipelining; TechEmpower's plaintext
    /// is 16) [default: 1].
    ///
    /// Only plaintext is pipelined; its cells are labelled plaintext-pipelined-N, reported
    /// apart from unpipelined plaintext.
    #[arg(value_name = "N", help_heading = LOAD_SHAPE, hide_short_help = true, long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub pipeline: Option<u32>,
    /// Threads of the load generator [default: one per CPU it is given].
    #[arg(value_name = "N", help_heading = LOAD_SHAPE, short = 't', long)]
    pub threads: Option<u32>,
    /// Where to write results.json and the reports [default: results/<UTC stamp>].
    #[arg(help_heading = OUTPUT, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Database connections in total over all server processes.
    #[arg(value_name = "N", help_heading = DATABASE, hide_short_help = true, long, default_value_t = restbench_harness::planner::DEFAULT_DB_POOL)]
    pub db_pool: u32,
    /// Skip measuring the generator's ceiling at the start.
    ///
    /// client_bound then relies on the generator's CPU alone.
    #[arg(help_heading = PLACEMENT, hide_short_help = true, long)]
    pub no_calibrate: bool,
    #[command(flatten)]
    pub measure: MeasureArgs,
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
    /// Rounds every cell gets alone [default: 3].
    ///
    /// In each round every cell of a group (same workload, scenario, protocol) is measured,
    /// beside a calibration of the generator: alone in these first rounds (its own figures),
    /// and in a duet beside the group's reference in every round (the verdicts), in a fresh
    /// random order, then that order backwards in the next round. --quick adds one duet round.
    #[arg(value_name = "N", help_heading = LOAD_SHAPE, long)]
    pub repeats: Option<u32>,
    /// Add rounds until every paired ratio of a group is within ± this width, such as 3%.
    ///
    /// Or until --max-rounds. [default: 3%; --quick and --faithful take a fixed count]
    #[arg(long, value_name = "PCT", help_heading = LOAD_SHAPE, value_parser = parse_percent)]
    pub target_ci: Option<f64>,
    /// The most rounds a group gets [default: 6; the duet rounds + 2 with --quick].
    #[arg(long, value_name = "N", help_heading = LOAD_SHAPE, hide_short_help = true, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_rounds: Option<u32>,
    /// Measure a group's cells one after the other in every round, not in duets.
    ///
    /// By default each cell is measured in a duet beside the group's reference (`ab`: A beside
    /// B): both at once, their servers sharing the server CPUs, each driven by its own
    /// generator, so a drift of the machine lands on both alike; the verdicts come from the
    /// duets, each cell's own figures from slices alone. A remote server or generator host,
    /// and the one-cpu scenario, always measure interleaved.
    #[arg(long, help_heading = LOAD_SHAPE)]
    pub interleaved: bool,
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
    /// Profile every cell (as --profile does) and compare each pair of neighbours in a ranking.
    ///
    /// The report sets the two profiles side by side, per request: CPU split, system calls,
    /// context switches, faults, top symbols, a differential flame graph and one sentence
    /// drawn from the figures.
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub explain: bool,
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
    /// Limit every server's memory to this (such as 512MiB or 1GiB), over each subject.toml's
    /// `memory_limit`: its cgroup's memory.max. A server killed there fails its cell with that
    /// reason; without a cgroup memory controller the limit is not enforced, and said so.
    ///
    /// [default: none, or each subject.toml's `memory_limit`]
    #[arg(help_heading = PLACEMENT, hide_short_help = true, long, value_name = "SIZE", value_parser = restbench_model::documents::io::parse_size)]
    pub memory_limit: Option<u64>,
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
