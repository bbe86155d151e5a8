//! The generator's ceiling on this machine: the rate it reaches against a server that does
//! almost nothing, with the run's own load shape and CPU placement. A cell whose rate comes near
//! it measured the generator, not the subject: such a cell is flagged `client_bound`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restbench_loadgen::trivial_server::TrivialServer;
use restbench_loadgen::{Progress, StopAt, Target};

use super::plan::{LoadShape, RunPlan};
use crate::HarnessError;
use crate::events::{Drift, Events};
use restbench_host::placement::{Placement, pin_current_thread};

/// What the calibration measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Ceiling {
    pub rps: f64,
    /// CPU cores the generator used; near its CPU count, the figure is the generator's limit.
    pub loadgen_cores: f64,
    /// Who else took the CPUs while it ran, when someone did: such a ceiling is no ceiling,
    /// and no slice is judged client-bound from it.
    pub contended: Option<String>,
}

/// Loads a trivial server on the server CPUs for `duration` with the run's shape.
pub fn loadgen_ceiling(
    placement: &Placement,
    shape: &LoadShape,
    duration: Duration,
    stop: &AtomicBool,
) -> Result<Ceiling, HarnessError> {
    let server = TrivialServer::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .map_err(|e| HarnessError::io("cannot start the calibration server", e))?;
    let addr = server
        .local_addr()
        .map_err(|e| HarnessError::io("cannot start the calibration server", e))?;
    let server_cpus = placement.server.clone();
    let serving = Arc::new(AtomicBool::new(false));
    let server_stop = serving.clone();
    let handle = std::thread::spawn(move || {
        let _ = pin_current_thread(&server_cpus[..1.min(server_cpus.len())]);
        let _ = server.serve(&server_stop);
        // The server's own CPU time, for the contention check of the calibration.
        nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
            .map_or(0.0, |t| Duration::from(t).as_secs_f64())
    });
    let mut spec = shape.spec(Target::parse(&format!("http://{addr}/"))?);
    spec.warmup = Duration::from_millis(300).min(duration / 4);
    spec.stop = StopAt::Duration(duration);
    let loadgen_cpus = placement.loadgen.clone();
    let watch = restbench_host::contention::Watch::take(placement);
    let outcome = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let _ = pin_current_thread(&loadgen_cpus);
                restbench_loadgen::run(&spec, stop, Arc::new(Progress::default()))
            })
            .join()
    });
    serving.store(true, Ordering::Relaxed);
    let server_cpu_s = handle.join().unwrap_or(0.0);
    let outcome =
        outcome.map_err(|_| HarnessError::Load(restbench_loadgen::LoadError::ThreadPanicked))??;
    let secs = outcome.duration.as_secs_f64().max(1e-9);
    // The trivial server is a thread of restbench with its own CPU time; the run's database may
    // share the generator's CPUs.
    let loadgen_cpu_s = (outcome.cpu_user + outcome.cpu_system).as_secs_f64();
    let contended = watch
        .finish(
            server_cpu_s,
            loadgen_cpu_s,
            &|comm, _| comm == "postgres",
            &|pid, _| restbench_host::contention::is_restbench(pid),
        )
        .map(|t| t.describe());
    Ok(Ceiling {
        rps: outcome.rps(),
        loadgen_cores: (outcome.cpu_user + outcome.cpu_system).as_secs_f64() / secs,
        contended,
    })
}

/// A run's calibration as it goes: the best ceiling so far. A cell faster than it proves it
/// wrong, so the generator is calibrated again; at the end once more, to measure the drift.
pub struct Calibration<'a> {
    plan: &'a RunPlan,
    ceiling: Option<f64>,
}

impl<'a> Calibration<'a> {
    pub fn of(plan: &'a RunPlan) -> Self {
        Self {
            plan,
            ceiling: plan.loadgen_ceiling_rps,
        }
    }

    pub fn ceiling(&self) -> Option<f64> {
        self.ceiling
    }

    /// Calibrates again when `median` (a cell of `subject`) beats the ceiling, and keeps the
    /// higher ceiling ([`RunEvent::Calibrated`](crate::events::RunEvent::Calibrated)).
    pub fn check(&mut self, median: f64, subject: &str, stop: &AtomicBool, observer: &Events) {
        let (Some(c), Some(d)) = (self.ceiling, self.plan.calibration) else {
            return;
        };
        if median <= c {
            return;
        }
        observer.note(&format!(
            "{subject} measured {median:.0} req/s, above the generator's ceiling of {c:.0}: \
             calibrating again"
        ));
        if let Ok(again) = loadgen_ceiling(&self.plan.placement, &self.plan.shape, d, stop)
            && again.contended.is_none()
        {
            let ceiling_rps = c.max(again.rps);
            self.ceiling = Some(ceiling_rps);
            observer.emit(crate::events::RunEvent::Calibrated { ceiling_rps });
        }
    }

    /// A round's calibration, at most a second long: the ceiling now, beside the round's
    /// slices (the best uncontended ceiling is kept), and who took the CPU when someone did;
    /// `None` when the run does not calibrate.
    pub fn round(&mut self, stop: &AtomicBool) -> Option<(f64, Option<String>)> {
        let d = self.plan.calibration?.min(Duration::from_secs(1));
        let now = loadgen_ceiling(&self.plan.placement, &self.plan.shape, d, stop).ok()?;
        if now.contended.is_none() {
            self.ceiling = Some(self.ceiling.map_or(now.rps, |c| c.max(now.rps)));
        }
        Some((now.rps, now.contended))
    }

    /// Calibrates once more at the end of a run that calibrated at its start.
    pub fn drift(&self, stop: &AtomicBool, observer: &Events) -> Option<Drift> {
        let (Some(start), Some(d)) = (self.plan.loadgen_ceiling_rps, self.plan.calibration) else {
            return None;
        };
        observer.note("calibrating the generator again, to measure the machine's drift");
        let end = loadgen_ceiling(&self.plan.placement, &self.plan.shape, d, stop).ok()?;
        let noisy_machine = restbench_model::documents::run::ceiling_drift(start, end.rps);
        if let Some(why) = &noisy_machine {
            observer.note(&format!("noisy machine: {why}"));
        }
        Some(Drift {
            end_rps: end.rps,
            ceiling_rps: self.ceiling.map(|c| c.max(end.rps)),
            noisy_machine,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_is_a_real_rate() {
        let placement = Placement::split(&restbench_host::placement::available_cpus());
        let shape = LoadShape {
            connections: 4,
            threads: 1,
            ..LoadShape::default()
        };
        let c = loadgen_ceiling(
            &placement,
            &shape,
            Duration::from_millis(400),
            &AtomicBool::new(false),
        )
        .unwrap();
        // A rate measured, not a speed: a busy machine may make it small, never zero.
        assert!(c.rps.is_finite() && c.rps > 0.0, "{c:?}");
        assert!(c.loadgen_cores > 0.0, "{c:?}");
    }

    #[test]
    #[ignore = "slow: a load measure that needs the machine to itself; cargo test -- --include-ignored runs it (CI does)"]
    fn a_load_on_the_trivial_server_is_flagged_client_bound() {
        let placement = Placement::split(&restbench_host::placement::available_cpus());
        if placement.shared {
            eprintln!("skipped: one CPU, generator and server share it");
            return;
        }
        let shape = LoadShape {
            connections: 32,
            threads: placement.loadgen.len() as u32,
            ..LoadShape::default()
        };
        // The generator is the limit here; a busy neighbour on its CPU can hide that in one
        // short window, so up to three tries.
        let mut seen = Vec::new();
        for _ in 0..3 {
            let c = loadgen_ceiling(
                &placement,
                &shape,
                Duration::from_millis(600),
                &AtomicBool::new(false),
            )
            .unwrap();
            if crate::runner::is_client_bound(c.rps, c.loadgen_cores, &placement, None) {
                return;
            }
            seen.push(c);
        }
        panic!("never flagged: {seen:?}");
    }
}
