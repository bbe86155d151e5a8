//! The generator's ceiling on this machine: the rate it reaches against a server that does
//! almost nothing, with the run's own load shape and CPU placement. A cell whose rate comes near
//! it measured the generator, not the subject: such a cell is flagged `client_bound`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restbench_loadgen::trivial_server::TrivialServer;
use restbench_loadgen::{LoadSpec, Progress, StopAt, Target};

use crate::HarnessError;
use crate::host::placement::{Placement, pin_current_thread};
use crate::runner::LoadShape;

/// What the calibration measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ceiling {
    pub rps: f64,
    /// CPU cores the generator used; near its CPU count, the figure is the generator's limit.
    pub loadgen_cores: f64,
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
        server.serve(&server_stop)
    });
    let mut spec = LoadSpec::get(Target::parse(&format!("http://{addr}/"))?);
    spec.connections = shape.connections;
    spec.threads = shape.threads;
    spec.keepalive = shape.keepalive;
    spec.http_version = shape.http_version;
    spec.timeout = shape.timeout;
    spec.pipeline = shape.pipeline;
    spec.warmup = Duration::from_millis(300).min(duration / 4);
    spec.stop = StopAt::Duration(duration);
    let loadgen_cpus = placement.loadgen.clone();
    let outcome = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let _ = pin_current_thread(&loadgen_cpus);
                restbench_loadgen::run(&spec, stop, Arc::new(Progress::default()))
            })
            .join()
    });
    serving.store(true, Ordering::Relaxed);
    let _ = handle.join();
    let outcome =
        outcome.map_err(|_| HarnessError::Load(restbench_loadgen::LoadError::ThreadPanicked))??;
    let secs = outcome.duration.as_secs_f64().max(1e-9);
    Ok(Ceiling {
        rps: outcome.rps(),
        loadgen_cores: (outcome.cpu_user + outcome.cpu_system).as_secs_f64() / secs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_is_a_real_rate() {
        let placement = Placement::split(&crate::host::placement::available_cpus());
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
        let placement = Placement::split(&crate::host::placement::available_cpus());
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
