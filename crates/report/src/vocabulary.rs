//! The shared vocabulary the reports need and the model does not yet define: flags and what they
//! mean, the order of workloads and scenarios, CPU lists. A leaf.
//!
//! Each item is one small function or constant so that it can be replaced by the model's own
//! type (`Flag`, `Workload`, `Scenario`, the CPU-list formatter) with a one-line change.

use restbench_model::published::SCENARIO_ORDER;

/// What each flag means, for the legend.
pub const FLAGS: [(&str, &str); 6] = [
    (
        "client_bound",
        "The load generator saturated its CPUs or came within 10 % of its calibrated ceiling: the server might have done more, so the figure is a floor.",
    ),
    (
        "warmup_unsettled",
        "The rate was still climbing when the warm-up reached its cap (a JIT still compiling): the figure understates the warmed-up server.",
    ),
    (
        "noisy",
        "The repeats vary by more than 10 % (coefficient of variation): read the median with care.",
    ),
    (
        "limit_not_held",
        "The scenario's CPU limit was not held: the server used more CPU than its cap, or the cap could not be enforced.",
    ),
    (
        "verification_warnings",
        "The verifier found deviations from the workload contract that do not fail the cell (see the findings).",
    ),
    (
        "errors",
        "Some requests failed (connect, read, write, timeout, status or parse errors).",
    ),
];

/// How serious a flag is, as the HTML badge class: `bad` (the figure is wrong or incomplete) or
/// `warn` (read it with care).
pub fn flag_severity(flag: &str) -> &'static str {
    match flag {
        "errors" | "limit_not_held" => "bad",
        _ => "warn",
    }
}

/// What a flag means (the legend text), or "" for a flag the legend does not know.
pub fn flag_legend(flag: &str) -> &'static str {
    FLAGS
        .iter()
        .find(|(f, _)| *f == flag)
        .map_or("", |(_, why)| *why)
}

/// The flag legend at the end of `report.md`: one sentence, shorter than [`FLAGS`].
pub const MARKDOWN_FLAG_LEGEND: &str = "Flags: \
    `client_bound` the load generator saturated its CPUs or came within 10 % of its calibrated \
    ceiling, so the figure is a floor for the server; \
    `warmup_unsettled` the rate was still climbing when the warm-up reached its cap; \
    `noisy` the repeats vary by more than 10 %; \
    `limit_not_held` the scenario's CPU limit was not held; \
    `errors` some requests failed; \
    `verification_warnings` see the findings.";

/// Known workloads in the order reports show them.
pub const WORKLOAD_ORDER: [&str; 4] = ["plaintext", "todo", "echo", "users"];

/// One line on what a workload asks of a server, under its heading.
pub fn workload_about(w: &str) -> &'static str {
    match w {
        "plaintext" => "GET /api/test → the 13-byte text Hello, World! (seed d)",
        "todo" => "GET /rest/todo → 8 todo items serialized as JSON on every request (seed b)",
        "echo" => "POST /echo of the 4.2 KB colors JSON, parsed and serialized back (seed a)",
        "users" => "GET /users → 100 rows read from PostgreSQL through a pool, as JSON (seed c)",
        _ => "",
    }
}

/// Sorts workload names as reports show them (known workloads first, in this order).
pub fn workload_rank(w: &str) -> usize {
    WORKLOAD_ORDER
        .iter()
        .position(|x| *x == w)
        .unwrap_or(WORKLOAD_ORDER.len())
}

/// Sorts scenario names as reports show them.
pub fn scenario_rank(s: &str) -> usize {
    SCENARIO_ORDER
        .iter()
        .position(|x| *x == s)
        .unwrap_or(SCENARIO_ORDER.len())
}

/// `0-3,6,8-9`.
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", v[i], v[j])
        } else {
            v[i].to_string()
        });
        i = j + 1;
    }
    if parts.is_empty() {
        "–".into()
    } else {
        parts.join(",")
    }
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
        for (f, _) in FLAGS {
            assert!(!flag_legend(f).is_empty());
            assert!(MARKDOWN_FLAG_LEGEND.contains(&format!("`{f}`")), "{f}");
        }
        assert_eq!(flag_severity("errors"), "bad");
        assert_eq!(flag_severity("noisy"), "warn");
        assert!(workload_rank("plaintext") < workload_rank("users"));
        assert_eq!(workload_rank("zzz"), WORKLOAD_ORDER.len());
    }
}
