//! Command-line arguments. Clap types stop here; commands turn them into library specs.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The main job: build, verify and measure every subject × workload × scenario.
    Run(RunArgs),
    /// Load an HTTP server, as wrk (closed loop) or wrk2 (--rate, open loop) would.
    Load(LoadArgs),
    /// Check subjects against the workload contract, without measuring.
    Verify(VerifyArgs),
    /// List the subjects: language, framework, seeds, workloads, whether they can run here.
    Subjects(SubjectsArgs),
    /// Build a subject if needed and run it in the foreground as `run` would (Ctrl-C stops it).
    Serve(ServeArgs),
    /// A throwaway PostgreSQL server for the users workload.
    #[command(subcommand)]
    Db(DbCommand),
    /// Render report.md and report.html again from a run's results.json.
    Report(ReportArgs),
    /// What this machine can run and enforce: cores, cgroup backend, toolchains, PostgreSQL.
    Doctor(DoctorArgs),
    /// Re-run a seed study (a: JSON echo, b: todo list, c: users from PostgreSQL, d: plaintext)
    /// and report it against the published figures.
    Study(StudyArgs),
    /// Set two runs side by side as ratios and name what got faster or slower beyond the noise.
    Compare(CompareArgs),
}

/// `restbench study`.
#[derive(Debug, Args)]
#[command(after_help = "\
Studies:
  a  seed 000: ~4 KB JSON echo; wrk -t2 -c10 -d20s; single-thread, one-cpu (Go with GOMAXPROCS
     unset and =1), all-cores; Node, Go, Spring Boot
  b  seed 002: static todo list; 100,000 warm-up requests on 1 connection, then 100,000 on 32
     connections with 4 threads; Jersey/Grizzly, Go, Node and Express in cluster mode
  c  seed 003: 100 users from PostgreSQL with a Caesar cipher; 10,000 requests at concurrency 128,
     a new connection per request as ab; all cores; a pool of 100; Go, Node, Python stacks
  d  seed 004: plaintext hello; wrk -t8 -c512 --timeout 1m; eleven stacks
Every study adds rust-hyper, rust-axum, rust-actix and rust-reference. By default durations are
shortened so that `study all` finishes in reasonable time (the report says how); --faithful keeps
the seeds' own (study d then takes 10 minutes per cell). Ratios against each study's first system
are set beside the published ones, with every reversal of order marked.")]
pub struct StudyArgs {
    /// a, b, c, d or all.
    pub study: String,
    /// A first look: much shorter loads, one repeat.
    #[arg(long, conflicts_with = "faithful")]
    pub quick: bool,
    /// The seeds' full durations and request counts.
    #[arg(long)]
    pub faithful: bool,
    /// Only these subjects of the study, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub subjects: Vec<String>,
    /// Repeats per cell (default 3, 1 with --quick).
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Measuring time per repeat for the timed studies (a, d).
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Where to write (default: results/study-<id>-<UTC stamp>; `all` writes one folder per study
    /// and an index report).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// An existing PostgreSQL server for study c (default: a throwaway one).
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
    /// CPUs for the load generator; the server gets the others.
    #[arg(long, value_name = "CPUS")]
    pub loadgen_cpus: Option<String>,
    /// Enforce and account with CPU affinity only.
    #[arg(long)]
    pub no_cgroups: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline: a run's folder or its results.json.
    pub a: PathBuf,
    /// The run compared with it.
    pub b: PathBuf,
    /// Markdown instead of aligned text.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// The comparison as JSON.
    #[arg(long)]
    pub json: bool,
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
    /// The folder of subjects (default: `subjects/` of this checkout).
    #[arg(long, env = "RESTBENCH_SUBJECTS", value_name = "DIR", global = true)]
    pub subjects_dir: Option<PathBuf>,
}

/// `restbench run`.
#[derive(Debug, Args)]
#[command(after_help = "\
Every finished cell is written at once to OUT/results.json; Ctrl-C keeps them and stops every
subject. A subject whose toolchain is missing is skipped with the reason; one that fails to build
or start fails its own cells and the run goes on.")]
pub struct RunArgs {
    /// A short pass for a first look: 2 s per repeat, 1 repeat, 1 s warm-up.
    #[arg(long)]
    pub quick: bool,
    /// Subjects to run, comma-separated (default: all).
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub subjects: Vec<String>,
    /// Workloads, comma-separated: plaintext, todo, echo, users (default: all each subject serves).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub workloads: Vec<String>,
    /// Scenarios, comma-separated: single-thread, one-cpu, all-cores.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "NAMES",
        default_value = "single-thread,all-cores"
    )]
    pub scenarios: Vec<String>,
    /// Measuring time per repeat.
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Repeats per cell.
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Warm-up per cell, discarded; repeated until two in a row agree within 7 % (JIT runtimes),
    /// for at most 8 s with --quick and 30 s otherwise.
    #[arg(long, value_parser = parse_duration)]
    pub warmup: Option<Duration>,
    /// Connections of the load generator.
    #[arg(short = 'c', long, default_value_t = 64)]
    pub connections: u32,
    /// Threads of the load generator (default: one per CPU it is given).
    #[arg(short = 't', long)]
    pub threads: Option<u32>,
    /// Where to write results.json and report.md (default: results/<UTC stamp>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// An existing PostgreSQL server for the users workload (default: a throwaway one).
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
    /// Database connections in total over all server processes.
    #[arg(long, default_value_t = 100)]
    pub db_pool: u32,
    /// CPUs for the load generator (such as 0 or 0-1); the server gets the others.
    #[arg(long, value_name = "CPUS")]
    pub loadgen_cpus: Option<String>,
    /// Enforce and account with CPU affinity only, even where cgroups are usable.
    #[arg(long)]
    pub no_cgroups: bool,
    /// Skip measuring the generator's ceiling at the start (client_bound then relies on the
    /// generator's CPU alone).
    #[arg(long)]
    pub no_calibrate: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Subjects to verify (default: all available).
    pub subjects: Vec<String>,
    /// Workloads, comma-separated (default: all each subject serves).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub workloads: Vec<String>,
    /// The scenario to start subjects in.
    #[arg(long, default_value = "single-thread")]
    pub scenario: String,
    /// An existing PostgreSQL server (default: a throwaway one when users is verified).
    #[arg(long, value_name = "URL")]
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

/// `restbench subjects`.
#[derive(Debug, Args)]
pub struct SubjectsArgs {
    /// A JSON list instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The subject's id (see `restbench subjects`).
    pub id: String,
    /// Port to listen on (default: a free one, printed).
    #[arg(long)]
    pub port: Option<u16>,
    #[arg(long, default_value = "single-thread")]
    pub scenario: String,
    /// PostgreSQL for the users workload.
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
    #[arg(long, default_value_t = 100)]
    pub db_pool: u32,
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
    /// Keep the cluster in DIR instead of a temporary folder (reused when it exists).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
}

/// `restbench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A run's folder (holding results.json); report.md and report.html are written beside it.
    pub dir: PathBuf,
}

/// `restbench load`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  restbench load -c 10 -d 20s -m POST -H 'Content-Type: application/json' -b @body.json http://127.0.0.1:3000/echo
  restbench load -n 100000 -c 32 -t 4 http://127.0.0.1:8080/rest/todo          # h2load -n100000 -c32 -t4 --h1
  restbench load -n 10000 -c 128 --http1.0 http://127.0.0.1:8000/users          # ab -n 10000 -c 128
  restbench load -t 8 -c 512 -d 10m --timeout 1m --latency http://127.0.0.1:8080/api/test
  restbench load -R 5000 -d 30s --latency --json result.json http://127.0.0.1:8080/api/test

Exit status: 0 when every request got a 2xx/3xx answer; 3 when the run finished with errors or
no answer at all (they are printed and written); 1 when it could not run (server unreachable,
file unreadable or unwritable); 2 for bad arguments (out of range, malformed, or more connections
than this process may open). Limits: -c 65535, -t 1024, --pipeline 1024, body 64 MiB, --timeout
1h, -d and --warmup 7 days, -R 0.001 to 100000000.")]
pub struct LoadArgs {
    /// The server, as http[s]://host[:port]/path (loopback or a test namespace only).
    pub url: String,
    /// Connections kept open in total.
    #[arg(short = 'c', long, default_value_t = 10)]
    pub connections: u32,
    /// Threads, each with its own event loop over its share of the connections.
    #[arg(short = 't', long, default_value_t = 2)]
    pub threads: u32,
    /// How long to measure (10s, 1m, 500ms; a bare number is seconds).
    #[arg(short = 'd', long, value_parser = parse_duration, conflicts_with = "requests")]
    pub duration: Option<Duration>,
    /// Send exactly this many requests in total, then stop.
    #[arg(short = 'n', long)]
    pub requests: Option<u64>,
    /// Open loop: send at this constant total rate (requests/s); latency counts from each
    /// request's intended send time (coordinated omission corrected, as wrk2).
    #[arg(short = 'R', long)]
    pub rate: Option<f64>,
    /// HTTP method.
    #[arg(short = 'm', long, default_value = "GET")]
    pub method: String,
    /// A request header, 'Name: value' (repeatable).
    #[arg(short = 'H', long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
    /// The request body: TEXT, or @FILE to read it from a file.
    #[arg(short = 'b', long)]
    pub body: Option<String>,
    /// Requests in flight per connection (HTTP/1.1 pipelining).
    #[arg(long, default_value_t = 1)]
    pub pipeline: u32,
    /// Open a new connection for every request (Connection: close).
    #[arg(long)]
    pub no_keepalive: bool,
    /// Send HTTP/1.0 requests as ab does (implies a new connection per request).
    #[arg(long = "http1.0", conflicts_with = "http2")]
    pub http10: bool,
    /// Speak HTTP/2: h2 by ALPN over https://, h2c with prior knowledge over http://.
    #[arg(long)]
    pub http2: bool,
    /// HTTP/2 streams in flight per connection (h2load's -m).
    #[arg(long, default_value_t = 1, requires = "http2")]
    pub max_streams: u32,
    /// Connect to this Unix domain socket; the URL still gives the Host header and the path.
    #[arg(long, value_name = "PATH")]
    pub unix_socket: Option<PathBuf>,
    /// https://: accept any server certificate (self-signed test servers).
    #[arg(short = 'k', long, conflicts_with = "cacert")]
    pub insecure: bool,
    /// https://: trust the CA certificates of this PEM file instead of the built-in roots.
    #[arg(long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// A request without a complete answer after this long is a timeout; its connection is replaced.
    #[arg(long, value_parser = parse_duration, default_value = "2s")]
    pub timeout: Duration,
    /// Load sent first and left out of every figure.
    #[arg(long, value_parser = parse_duration)]
    pub warmup: Option<Duration>,
    /// Print the latency distribution.
    #[arg(long)]
    pub latency: bool,
    /// Write the result document (JSON) to PATH, or to stdout with '-'.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
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
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
