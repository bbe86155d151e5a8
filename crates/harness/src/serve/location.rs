//! Where a run's servers run: here, or on a server host over ssh (`--server-host`). Chosen once
//! for a run, so the run loop never asks again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use restbench_loadgen::LoadOutcome;
use restbench_model::ShardSummary;

use crate::HarnessError;
use crate::serve::remote_server::ServerHost;
use crate::serve::start::{RunningSubject, StartOptions};
use restbench_host::sample::{MemorySampler, MemoryStats, ServerSample, group_usage};
use restbench_subject::Subject;
use restbench_subject::prepare::{self, Prepared};

/// A load's outcome, with each remote generator's share.
pub type Loaded = (LoadOutcome, Vec<ShardSummary>);
/// A load's outcome, the server's usage over it, and each remote generator's share.
pub type Sampled = (LoadOutcome, ServerSample, Vec<ShardSummary>);

/// Where subjects are built, started and sampled, and what is left to clean up there.
pub trait ServerLocation {
    /// Why `subject` cannot be served there before anything is tried, if so.
    fn unavailable(&self, subject: &Subject) -> Option<String>;
    /// Builds the subject there (cached by its folder's hash).
    fn prepare(&self, subject: &Subject, options: &StartOptions) -> Result<Prepared, HarnessError>;
    /// The options servers start with there ([`start_subject`](crate::serve::start_subject)
    /// reads from them where to start).
    fn start_options<'a>(&'a self, here: StartOptions<'a>) -> StartOptions<'a>;
    /// Runs `load` with the server's CPU and memory read over the same interval: from its
    /// window's start (once `warmup` has passed) to its end. `None` when `load` was interrupted.
    fn sampled_load(
        &self,
        server: &RunningSubject,
        warmup: Duration,
        stop: &AtomicBool,
        load: &mut dyn FnMut() -> Result<Option<Loaded>, HarnessError>,
    ) -> Result<Option<Sampled>, HarnessError>;
    /// Removes what the subject left there once it is done, however it ended.
    fn cleanup(&self, subject: &Subject);
    /// The host's name, recorded in every cell served elsewhere.
    fn host_name(&self) -> Option<String>;
}

/// This machine: the subject's toolchain must be here.
pub struct Here;

impl ServerLocation for Here {
    fn unavailable(&self, subject: &Subject) -> Option<String> {
        subject.unavailable_reason()
    }
    fn prepare(&self, subject: &Subject, options: &StartOptions) -> Result<Prepared, HarnessError> {
        Ok(prepare::prepare(subject, options.cache)?)
    }
    fn start_options<'a>(&'a self, here: StartOptions<'a>) -> StartOptions<'a> {
        StartOptions {
            remote: None,
            ..here
        }
    }
    /// The CPU from the server's cgroup when it has one, else from /proc; memory sampled
    /// throughout.
    fn sampled_load(
        &self,
        server: &RunningSubject,
        warmup: Duration,
        stop: &AtomicBool,
        load: &mut dyn FnMut() -> Result<Option<Loaded>, HarnessError>,
    ) -> Result<Option<Sampled>, HarnessError> {
        let pgid = server.child.pgid();
        let cgroup = server.cgroup.as_ref();
        let cgroup_cpu = move || cgroup.and_then(|c| c.cpu_usage());
        let sampler = MemorySampler::start(pgid, cgroup.and_then(|c| c.memory()));
        let (before, loaded) =
            at_measure_start(warmup, stop, || (group_usage(pgid).cpu, cgroup_cpu()), load);
        let Some((outcome, hosts)) = loaded? else {
            return Ok(None);
        };
        let after = (group_usage(pgid).cpu, cgroup_cpu());
        let sample =
            ServerSample::between((before.0, after.0), (before.1, after.1), sampler.finish());
        Ok(Some((outcome, sample, hosts)))
    }
    fn cleanup(&self, _subject: &Subject) {}
    fn host_name(&self) -> Option<String> {
        None
    }
}

/// A server host over ssh: the subject is copied there, built with the toolchain there (its
/// build step says when one is missing), started, sampled and removed.
pub struct OverSsh(pub Arc<ServerHost>);

impl ServerLocation for OverSsh {
    fn unavailable(&self, _subject: &Subject) -> Option<String> {
        None
    }
    fn prepare(&self, subject: &Subject, _: &StartOptions) -> Result<Prepared, HarnessError> {
        match self.0.prepare(subject)? {
            Some(seconds) => Ok(Prepared::Built { seconds }),
            None => Ok(Prepared::Cached),
        }
    }
    fn start_options<'a>(&'a self, here: StartOptions<'a>) -> StartOptions<'a> {
        StartOptions {
            remote: Some(&self.0),
            ..here
        }
    }
    /// Read there at the start and the end of the load (the cgroup's CPU when it has one, else
    /// /proc's; memory is the two readings' peak and mean).
    fn sampled_load(
        &self,
        server: &RunningSubject,
        warmup: Duration,
        stop: &AtomicBool,
        load: &mut dyn FnMut() -> Result<Option<Loaded>, HarnessError>,
    ) -> Result<Option<Sampled>, HarnessError> {
        // Every server started there has its process there; without one, it is read here.
        let Some(remote) = &server.remote else {
            return Here.sampled_load(server, warmup, stop, load);
        };
        let (before, loaded) = at_measure_start(warmup, stop, || remote.sample(), load);
        let Some((outcome, hosts)) = loaded? else {
            return Ok(None);
        };
        let before = before?;
        let after = remote.sample()?;
        let us = Duration::from_micros;
        let both = |a: Option<u64>, b: Option<u64>| a.zip(b);
        let memory = MemoryStats {
            rss_peak: before.rss_bytes.max(after.rss_bytes),
            rss_mean: (before.rss_bytes + after.rss_bytes) / 2,
            cgroup_peak: both(before.cgroup_memory, after.cgroup_memory).map(|(a, b)| a.max(b)),
            cgroup_mean: both(before.cgroup_memory, after.cgroup_memory).map(|(a, b)| (a + b) / 2),
        };
        let sample = ServerSample::between(
            (us(before.proc_cpu_us), us(after.proc_cpu_us)),
            (before.cgroup_cpu_us.map(us), after.cgroup_cpu_us.map(us)),
            memory,
        );
        Ok(Some((outcome, sample, hosts)))
    }
    fn cleanup(&self, subject: &Subject) {
        self.0.remove_subject(&subject.id);
    }
    fn host_name(&self) -> Option<String> {
        Some(self.0.name())
    }
}

/// Runs `load` and takes the server's `before` reading when its measuring window opens: at the
/// start, or once a load's own warm-up (an open-loop step's) has passed, so that the server's
/// CPU is charged over the same interval as the answers counted. Charging the warm-up too made
/// a one-CPU server look like 1.5 cores at a 1 s warm-up and a 2 s step.
fn at_measure_start<B: Send, L>(
    warmup: Duration,
    stop: &AtomicBool,
    before: impl FnOnce() -> B + Send,
    load: impl FnOnce() -> L,
) -> (B, L) {
    if warmup.is_zero() {
        let b = before();
        return (b, load());
    }
    std::thread::scope(|scope| {
        let started = Instant::now();
        let reader = scope.spawn(move || {
            // Sleeps in slices so that an interrupted load does not keep the run waiting.
            while started.elapsed() < warmup && !stop.load(Ordering::Relaxed) {
                std::thread::sleep(
                    (warmup - started.elapsed().min(warmup)).min(Duration::from_millis(50)),
                );
            }
            before()
        });
        let loaded = load();
        let b = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (b, loaded)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    #[test]
    fn the_servers_reading_is_taken_when_the_measuring_window_opens() {
        let stop = AtomicBool::new(false);
        let t0 = Instant::now();
        // A load with a 150 ms warm-up: the reading waits for it, the load runs meanwhile.
        let (read_at, load_ended) = at_measure_start(
            Duration::from_millis(150),
            &stop,
            || t0.elapsed(),
            || {
                std::thread::sleep(Duration::from_millis(300));
                t0.elapsed()
            },
        );
        assert!(read_at >= Duration::from_millis(150), "{read_at:?}");
        assert!(read_at < load_ended, "{read_at:?} {load_ended:?}");
        // No warm-up: read before the load starts.
        let (read_at, load_started) =
            at_measure_start(Duration::ZERO, &stop, Instant::now, Instant::now);
        assert!(read_at <= load_started);
        // An interrupt does not keep the reading waiting out a long warm-up.
        stop.store(true, Ordering::Relaxed);
        let t1 = Instant::now();
        at_measure_start(Duration::from_secs(60), &stop, || (), || ());
        assert!(t1.elapsed() < Duration::from_secs(5));
    }
}
