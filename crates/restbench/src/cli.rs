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
    /// Load an HTTP server, as wrk (closed loop) or wrk2 (--rate, open loop) would.
    Load(LoadArgs),
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

Exit status: 0 when every request got a 2xx/3xx answer; 3 when the run finished with errors
(they are printed and written); 1 when it could not run; 2 for bad arguments.")]
pub struct LoadArgs {
    /// The server, as http://host[:port]/path (loopback or a test namespace only).
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
    #[arg(long = "http1.0")]
    pub http10: bool,
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

/// Durations as wrk takes them: `10s`, `1m`, `250ms`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return if secs.is_finite() && secs >= 0.0 {
            Ok(Duration::from_secs_f64(secs))
        } else {
            Err(format!("{text:?} is not a duration"))
        };
    }
    humantime::parse_duration(t).map_err(|e| format!("{text:?} is not a duration such as 10s, 1m or 250ms ({e})"))
}

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
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
