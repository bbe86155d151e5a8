//! `load --start-at`: several generators given one time start together; and `--exit-with-stdin`,
//! how a generator started over SSH dies with its session.

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restbench_model::vocabulary::time::{now_unix_ms, parse_time_ms, rfc3339_ms};

use crate::cli::BadArgument;

/// How far in the past a start time may be and still be taken as "now": the generators of one
/// load are started by one orchestrator a moment apart, and clocks synchronised by NTP differ by
/// milliseconds. Beyond it the shards would not overlap and the merge would mislead.
pub const PAST_TOLERANCE_MS: u64 = 1_000;

/// How far ahead a start time may be: a synchronised start is seconds or minutes away, and a
/// time days ahead is a typo (a year, a date for a time) that would leave a generator asleep,
/// holding its host, long after anyone waits for it.
pub const MAX_AHEAD_MS: u64 = 24 * 60 * 60 * 1000;

/// Waits until `text` (RFC 3339 or Unix ms), saying so on stderr. A time further in the past
/// than [`PAST_TOLERANCE_MS`], or more than [`MAX_AHEAD_MS`] ahead, is a [`BadArgument`]
/// (exit 2). Returns false when `stop` was set while waiting.
pub fn wait_until(text: &str, stop: &AtomicBool) -> anyhow::Result<bool> {
    let at = parse_time_ms(text).map_err(|e| BadArgument(format!("--start-at: {e}")))?;
    let now = now_unix_ms();
    if now > at + PAST_TOLERANCE_MS {
        return Err(BadArgument(format!(
            "--start-at {} passed {:.1} s ago (more than {} s): give a time in the future, \
             such as $(( $(date +%s%3N) + 5000 ))",
            rfc3339_ms(at),
            (now - at) as f64 / 1000.0,
            PAST_TOLERANCE_MS / 1000
        ))
        .into());
    }
    if at > now.saturating_add(MAX_AHEAD_MS) {
        return Err(BadArgument(format!(
            "--start-at {} is {:.1} h ahead (more than {} h): give a time within the next {} h, \
             such as $(( $(date +%s%3N) + 5000 ))",
            rfc3339_ms(at),
            (at - now) as f64 / 3_600_000.0,
            MAX_AHEAD_MS / 3_600_000,
            MAX_AHEAD_MS / 3_600_000
        ))
        .into());
    }
    if at > now {
        eprintln!(
            "waiting until {} ({:.1} s) to start",
            rfc3339_ms(at),
            (at - now) as f64 / 1000.0
        );
    }
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let now = now_unix_ms();
        if now >= at {
            return Ok(true);
        }
        std::thread::sleep(Duration::from_millis((at - now).min(50)));
    }
}

/// Ends the process when stdin reaches its end: a `restbench load` started over SSH gets EOF
/// when its session goes (the orchestrator stopped it, died, or lost the network), and must not
/// go on loading a server nobody measures.
pub fn exit_when_stdin_closes() {
    std::thread::spawn(|| {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin().lock();
        loop {
            match stdin.read(&mut sink) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        eprintln!("error: stopped: the session that started this load closed");
        std::process::exit(1);
    });
}
