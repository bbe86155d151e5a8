//! `restbench doctor`: what this machine can run and enforce, before a run finds out.

use std::process::ExitCode;

use restbench_harness::cgroup::Backend;
use restbench_harness::environment::command_version;
use restbench_harness::placement::{Placement, available_cpus, format_cpu_list};
use restbench_harness::subject::{self, find_on_path};

use crate::cli::DoctorArgs;

/// Tools worth knowing about: (name, version command, what needs it, Debian package).
const TOOLS: [(&str, &str, &str, &str); 14] = [
    ("cargo", "cargo --version", "Rust subjects", "rustup"),
    ("go", "go version", "Go subjects", "golang"),
    ("node", "node --version", "Node.js subjects", "nodejs"),
    ("npm", "npm --version", "Node.js subjects", "npm"),
    (
        "python3",
        "python3 --version",
        "Python subjects",
        "python3-venv",
    ),
    (
        "java",
        "java -version 2>&1",
        "Java subjects",
        "openjdk-17-jdk",
    ),
    ("mvn", "mvn --version", "Java subjects", "maven"),
    ("ghc", "ghc --version", "haskell-warp", "ghc"),
    (
        "initdb",
        "initdb --version",
        "the users workload",
        "postgresql",
    ),
    (
        "wrk",
        "wrk --version 2>&1 | head -1",
        "bench/ comparisons",
        "wrk",
    ),
    (
        "h2load",
        "h2load --version",
        "cross-checks of study b",
        "nghttp2-client",
    ),
    ("ab", "ab -V", "cross-checks of study c", "apache2-utils"),
    (
        "chromium",
        "chromium --version",
        "the report's browser test",
        "chromium",
    ),
    ("jq", "jq --version", "bench/ scripts", "jq"),
];

pub fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let cpus = available_cpus();
    let placement = Placement::split(&cpus);
    let backend = Backend::probe();
    let mut lines = vec![
        format!(
            "cores: {} available to restbench (CPUs {})",
            cpus.len(),
            format_cpu_list(&cpus)
        ),
        format!("placement: {}", placement.describe()),
    ];
    lines.extend(backend.describe());
    lines.push(format!(
        "scenarios: single-thread (runtime knob) yes; one-cpu {}; all-cores yes ({} server CPU{})",
        if backend.enforces_quota() {
            "by CFS quota"
        } else {
            "by pinning to one CPU (no quota)"
        },
        placement.server.len(),
        if placement.server.len() == 1 { "" } else { "s" }
    ));
    let mut json_tools = serde_json::Map::new();
    lines.push("tools:".into());
    for (name, version, purpose, package) in TOOLS {
        let found = find_on_path(name).or_else(|| {
            (name == "initdb")
                .then(|| restbench_harness::db::find_server_binaries().ok())
                .flatten()
                .map(|dir| dir.join("initdb"))
        });
        let line = match &found {
            Some(path) => {
                let cmd = version.replacen(name, &path.display().to_string(), 1);
                let v = command_version(std::path::Path::new("/"), &cmd);
                json_tools.insert(name.into(), serde_json::Value::String(v.clone()));
                format!("  {name:<9} {v}  ({purpose})")
            }
            None => {
                json_tools.insert(name.into(), serde_json::Value::Null);
                format!("  {name:<9} missing: apt-get install {package}  ({purpose})")
            }
        };
        lines.push(line);
    }
    if let Ok(root) = super::subjects_root(&args.dir)
        && let Ok(subjects) = subject::discover(&root)
    {
        let unavailable: Vec<String> = subjects
            .iter()
            .filter_map(|s| s.unavailable_reason().map(|r| format!("  {}: {r}", s.id)))
            .collect();
        lines.push(format!(
            "subjects: {} found, {} can run here",
            subjects.len(),
            subjects.len() - unavailable.len()
        ));
        lines.extend(unavailable);
    }
    if args.json {
        let doc = serde_json::json!({
            "cores": cpus.len(),
            "loadgen_cpus": placement.loadgen,
            "server_cpus": placement.server,
            "backend": backend.kind.name(),
            "backend_reason": backend.reason,
            "cpu_quota": backend.capabilities.cpu_quota,
            "cpuset": backend.capabilities.cpuset,
            "cpu_accounting": backend.capabilities.cpu_accounting,
            "memory_accounting": backend.capabilities.memory_accounting,
            "tools": json_tools,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        for l in lines {
            println!("{l}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
