//! `restbench load`'s arguments, with the parsers and hints that read wrk's, hey's and ab's
//! habits (counts such as 100k, `-d` mistaken for a body, `-q` mistaken for a rate).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::shared::{ExportArgs, LoadgenHostsArgs};
use super::{
    CAPACITY, CONNECTION, OUTPUT, REQUEST, SEVERAL_MACHINES, parse_duration, parse_percent,
};

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
    /// Open loop: send at this constant total rate (requests/s), or ramp A:B.
    ///
    /// Latency counts from each request's intended send time (coordinated omission corrected,
    /// as wrk2). A:B moves the rate linearly from A to B over the duration (zrk's ramp).
    #[arg(value_name = "RPS", short = 'R', long, value_parser = parse_rate)]
    pub rate: Option<RateArg>,
    /// Open loop: shed a request already later than D at its send time [default: none].
    ///
    /// A shed request is counted apart (`pacing.shed`), never sent.
    #[arg(value_name = "D", hide_short_help = true, long, value_parser = parse_duration, requires = "rate")]
    pub deadline: Option<Duration>,
    /// A ramp (-R A:B) breaks where a stretch's p99 passes this.
    ///
    /// The ramp is read in at most 20 stretches as latency against the offered rate; the first
    /// whose p99 passes D, that answers under 90 % of its rate or fails over 1 % of its
    /// requests is where it broke (the output's "Broke at", `overload.knee` in the JSON).
    #[arg(value_name = "D", hide_short_help = true, long, value_parser = parse_duration, default_value = "100ms", requires = "rate")]
    pub knee_p99: Duration,
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
    /// Run a wrk Lua script: wrk.method/headers/body, init, request, response, setup, done.
    ///
    /// Its init(args) gets the URL at 0 and the arguments after `--`. A script that only sets
    /// the wrk table is evaluated once into the request (no cost per request); delay(),
    /// wrk.lookup and several requests from one request() are refused.
    #[arg(value_name = "FILE", help_heading = REQUEST, short = 's', long, conflicts_with_all = ["slo", "method", "headers", "body"])]
    pub script: Option<PathBuf>,
    /// The script's arguments, after `--` (as wrk takes them).
    #[arg(
        value_name = "ARGS",
        hide_short_help = true,
        last = true,
        requires = "script"
    )]
    pub script_args: Vec<String>,
    /// Requests in flight per connection (HTTP/1.1 pipelining).
    #[arg(value_name = "N", help_heading = CONNECTION, long, default_value_t = 1)]
    pub pipeline: u32,
    /// Open a new connection for every request (Connection: close).
    #[arg(help_heading = CONNECTION, long, alias = "disable-keepalive")]
    pub no_keepalive: bool,
    /// Close each connection after N answers and open a new one (HttpArena's limited-conn)
    /// [default: none, a connection lasts the run].
    ///
    /// HTTP/1.1 keep-alive only. Requests' latency starts when each is written on an open
    /// connection; the connects are timed apart ("Connects" in the output, `connect_us` in the
    /// JSON), and `connections_opened` counts them.
    #[arg(value_name = "N", help_heading = CONNECTION, hide_short_help = true, long)]
    pub requests_per_connection: Option<u32>,
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
    /// The plain live line instead of the dashboard on a terminal.
    #[arg(help_heading = OUTPUT, hide_short_help = true, long)]
    pub plain: bool,
    /// Print the uncorrected latency distribution too (wrk2's -U).
    #[arg(help_heading = OUTPUT, hide_short_help = true, short = 'U', long = "u-latency")]
    pub u_latency: bool,
    /// Write one NDJSON line per second to FILE while the run goes ('-': stdout).
    #[arg(help_heading = OUTPUT, hide_short_help = true, long, value_name = "FILE")]
    pub timeseries: Option<PathBuf>,
    /// Write the latency percentile distribution as an HdrHistogram .hgrm file (as wrk2's).
    #[arg(help_heading = OUTPUT, hide_short_help = true, long, value_name = "FILE")]
    pub hdr: Option<PathBuf>,
    /// Write the result document (JSON) to PATH, or to stdout with '-'.
    #[arg(help_heading = OUTPUT, long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Search the capacity under this SLO clause (repeatable), such as p99<=10ms.
    ///
    /// A clause is p50|p90|p99|p99.9<=DURATION (p99<=10ms) or errors<=PERCENT% (errors<=0.1%).
    #[arg(help_heading = CAPACITY, long, value_name = "CLAUSE", conflicts_with_all = ["duration", "requests", "rate", "timeseries", "hdr"])]
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

/// `-R`: a constant rate, or a ramp `A:B` from A to B over the duration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateArg {
    pub from: f64,
    pub to: Option<f64>,
}

/// `-R 5000`, `-R 10k` or `-R 1000:50000`.
pub fn parse_rate(text: &str) -> Result<RateArg, String> {
    let one = |t: &str| -> Result<f64, String> {
        let t = t.trim();
        match parse_count(t) {
            Ok(n) => Ok(n as f64),
            Err(_) => t
                .parse::<f64>()
                .ok()
                .filter(|r| r.is_finite() && *r > 0.0)
                .ok_or_else(|| format!("{t:?} is not a rate such as 5000, 10k or 1000:50000")),
        }
    };
    match text.split_once(':') {
        Some((a, b)) => Ok(RateArg {
            from: one(a)?,
            to: Some(one(b)?),
        }),
        None => Ok(RateArg {
            from: one(text)?,
            to: None,
        }),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

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
    fn a_rate_is_a_number_or_a_ramp() {
        assert_eq!(
            parse_rate("5000").unwrap(),
            RateArg {
                from: 5000.0,
                to: None
            }
        );
        assert_eq!(parse_rate("0.5").unwrap().from, 0.5);
        assert_eq!(
            parse_rate("1k:50k").unwrap(),
            RateArg {
                from: 1000.0,
                to: Some(50_000.0)
            }
        );
        for bad in ["", "x", "1:", ":2", "-5", "1:2:3", "nan"] {
            assert!(parse_rate(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn script_arguments_follow_the_url_after_a_double_dash() {
        let args = Cli::try_parse_from(["restbench", "load", "-s", "a.lua", "u", "--", "x", "-y"])
            .unwrap();
        let Command::Load(load) = args.command else {
            panic!("load")
        };
        assert_eq!(load.script_args, ["x", "-y"]);
    }

    #[test]
    fn q_with_a_number_is_heys_rate() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(habit_hint(&argv(&["restbench", "load", "-q", "100", "u"])).is_some());
        assert!(habit_hint(&argv(&["restbench", "load", "-q", "u"])).is_none());
    }
}
