//! The shared vocabulary as reports need it: flags and what they mean, the order of workloads and
//! scenarios, CPU lists. Everything here is read from `restbench_model`'s types (`Flag`,
//! `Workload`, `Scenario`, the CPU-list formatter), so a renamed flag or a new workload reaches
//! every report. A leaf.

use restbench_model::vocabulary::cpus::format_cpu_list;
use restbench_model::vocabulary::flag::{Flag, Severity};
use restbench_model::{Scenario, Workload};

/// Every flag with its legend text, in legend order.
pub fn flags() -> impl Iterator<Item = (&'static str, &'static str)> {
    Flag::ALL.into_iter().map(|f| (f.name(), f.legend()))
}

/// How serious a flag is, as the HTML badge class: `bad` (the figure is wrong or incomplete) or
/// `warn` (read it with care, or a flag this version does not know).
pub fn flag_severity(flag: &str) -> &'static str {
    match Flag::parse(flag).map(Flag::severity) {
        Some(Severity::Severe) => "bad",
        _ => "warn",
    }
}

/// What a flag means (the legend text), or "" for a flag this version does not know.
pub fn flag_legend(flag: &str) -> &'static str {
    Flag::parse(flag).map_or("", Flag::legend)
}

/// The flag legend at the end of `report.md`: one sentence, a clause per flag.
pub fn markdown_flag_legend() -> String {
    let clauses: Vec<String> = Flag::ALL
        .into_iter()
        .map(|f| format!("`{}` {}", f.name(), f.summary()))
        .collect();
    format!("Flags: {}.", clauses.join("; "))
}

/// One line on what a workload asks of a server, under its heading ("" for an unknown one).
pub fn workload_about(w: &str) -> &'static str {
    Workload::parse(w).map_or("", Workload::about)
}

/// Sorts workload names as reports show them (known workloads first, in their order).
pub fn workload_rank(w: &str) -> usize {
    Workload::rank(w)
}

/// Sorts scenario names as reports show them.
pub fn scenario_rank(s: &str) -> usize {
    Scenario::rank(s)
}

/// `0-3,6,8-9`, or `–` for none.
pub fn cpu_list(cpus: &[u32]) -> String {
    if cpus.is_empty() {
        "–".into()
    } else {
        format_cpu_list(cpus)
    }
}

/// What a closed-loop latency is the latency of: a saturated queue, set by the connection count
/// as much as by the server (p99 ≈ connections ÷ rate). Said wherever such a latency appears.
pub fn closed_loop_latency(connections: u32) -> String {
    format!(
        "at saturation, closed loop, {}",
        crate::units::plural(connections, "connection")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_are_compact() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[]), "–");
    }

    #[test]
    fn every_flag_has_a_legend_and_orders_are_stable() {
        let markdown = markdown_flag_legend();
        for (f, _) in flags() {
            assert!(!flag_legend(f).is_empty());
            assert!(markdown.contains(&format!("`{f}`")), "{f}");
        }
        assert_eq!(flag_severity("errors"), "bad");
        assert_eq!(flag_severity("noisy"), "warn");
        assert_eq!(flag_severity("from_the_future"), "warn");
        assert!(workload_rank("plaintext") < workload_rank("users"));
        assert_eq!(workload_rank("zzz"), Workload::ALL.len());
    }
}
