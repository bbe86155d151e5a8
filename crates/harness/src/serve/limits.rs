//! How each scenario limits the server with the backend at hand, and whether it held.
//!
//! `single-thread` tells the runtime to use one thread or process; `one-cpu` gives runtime
//! defaults a budget of one core (a CFS quota when cgroups are available, as `docker run
//! --cpus=1`, else pinning to one CPU); `all-cores` runs one worker per server CPU.

use restbench_model::vocabulary::cpus::format_cpu_list;
use restbench_model::{CellPlacement, Scenario};

use restbench_host::cgroup::Backend;
use restbench_host::placement::Placement;

/// How a scenario limits the server with a given backend.
pub fn scenario_limit(
    scenario: Scenario,
    placement: &Placement,
    backend: &Backend,
) -> CellPlacement {
    let server = &placement.server;
    let cpus = |c: &[usize]| c.iter().map(|&c| c as u32).collect::<Vec<u32>>();
    let on = format_cpu_list(server);
    let mut limit = CellPlacement {
        backend: backend.kind.name().into(),
        loadgen_cpus: cpus(&placement.loadgen),
        server_cpus: cpus(server),
        cpu_quota_cores: None,
        allowed_cores: server.len().max(1) as f64,
        enforcement: String::new(),
        db_cpus: Vec::new(),
        database: String::new(),
        server_host: String::new(),
        memory_limit_bytes: None,
    };
    match scenario {
        Scenario::SingleThread => {
            limit.allowed_cores = 1.0;
            limit.enforcement =
                format!("runtime told to use one thread or process; server CPUs {on}");
        }
        Scenario::OneCpu if backend.enforces_quota() => {
            limit.allowed_cores = 1.0;
            limit.cpu_quota_cores = Some(1.0);
            limit.enforcement = format!(
                "runtime defaults; CFS quota of 1 CPU ({}) over server CPUs {on}",
                backend.kind.name()
            );
        }
        Scenario::OneCpu => {
            limit.allowed_cores = 1.0;
            limit.server_cpus = cpus(&server[..1.min(server.len())]);
            limit.enforcement = format!(
                "runtime defaults; pinned to CPU {} (no cgroup quota here: {})",
                server.first().copied().unwrap_or(0),
                backend.reason
            );
        }
        Scenario::AllCores => {
            limit.enforcement = format!("one worker per server CPU ({on})");
        }
    }
    if placement.shared {
        limit
            .enforcement
            .push_str("; generator and server share the CPU");
    }
    limit
}

/// The server stayed within what its scenario allows (5 % and 0.05 cores of slack for
/// accounting granularity).
pub fn limit_held(cpu_cores: f64, allowed_cores: f64) -> bool {
    cpu_cores <= allowed_cores * 1.05 + 0.05
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_held_with_accounting_slack() {
        assert!(limit_held(1.0, 1.0));
        assert!(limit_held(1.09, 1.0));
        assert!(!limit_held(1.3, 1.0));
        assert!(limit_held(3.9, 4.0));
        assert!(!limit_held(4.5, 4.0));
    }

    #[test]
    fn scenarios_limit_the_server_as_designed() {
        let p = Placement::split(&(0..16).collect::<Vec<_>>());
        let affinity = Backend::affinity_only("test");
        let single = scenario_limit(Scenario::SingleThread, &p, &affinity);
        assert_eq!(single.allowed_cores, 1.0);
        assert_eq!(single.server_cpus.len(), 12);
        let all = scenario_limit(Scenario::AllCores, &p, &affinity);
        assert_eq!(all.allowed_cores, 12.0);
        assert_eq!(all.cpu_quota_cores, None);
        // Without a quota, one-cpu pins to one CPU.
        let one = scenario_limit(Scenario::OneCpu, &p, &affinity);
        assert_eq!(one.server_cpus, vec![4]);
        assert_eq!(one.allowed_cores, 1.0);
        assert!(one.enforcement.contains("pinned"), "{}", one.enforcement);
        assert_eq!(one.loadgen_cpus, vec![0, 1, 2, 3]);
    }
}
