//! `restbench doctor`: what this machine can run and enforce, before a run finds out.

use std::process::ExitCode;

use restbench_harness::cgroup::Backend;
use restbench_harness::environment::command_version;
use restbench_harness::placement::{Placement, available_cpus, format_cpu_list};
use restbench_harness::subject::{self, find_on_path};

use crate::cli::DoctorArgs;

mod versions;

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
    let subjects = super::subjects_root(&args.dir)
        .ok()
        .and_then(|root| subject::discover(&root).ok())
        .unwrap_or_default();
    let mut json_tools = serde_json::Map::new();
    let mut checks = Vec::new();
    lines.push("tools:".into());
    for (name, version, purpose, package) in TOOLS {
        let found = find_on_path(name).or_else(|| {
            (name == "initdb")
                .then(|| restbench_harness::db::find_server_binaries().ok())
                .flatten()
                .map(|dir| dir.join("initdb"))
        });
        let check = versions::check(name, found.is_some(), package, &subjects);
        match &found {
            Some(path) => {
                let cmd = version.replacen(name, &path.display().to_string(), 1);
                // The toolchains were just probed for their versions: their first line is reused.
                let v = versions::first_line(name)
                    .unwrap_or_else(|| command_version(std::path::Path::new("/"), &cmd));
                json_tools.insert(name.into(), serde_json::Value::String(v.clone()));
                let verdict = if check.problems.is_empty() {
                    let mut parts: Vec<String> =
                        check.required.iter().map(|r| format!(">= {r}")).collect();
                    parts.extend(check.also.iter().cloned());
                    if parts.is_empty() {
                        String::new()
                    } else {
                        format!("  ok: {}", parts.join(", "))
                    }
                } else {
                    String::new()
                };
                lines.push(format!("  {name:<9} {v}{verdict}  ({purpose})"));
            }
            None => {
                json_tools.insert(name.into(), serde_json::Value::Null);
                lines.push(format!("  {name:<9} missing  ({purpose})"));
            }
        }
        for p in &check.problems {
            lines.push(format!("  {:<9} {p}", ""));
        }
        if let Some(fix) = &check.fix {
            lines.push(format!("  {:<9} fix: {fix}", ""));
        }
        checks.push(check);
    }
    let cache =
        super::subjects_root(&args.dir).map(|root| restbench_harness::prepare::cache_dir(&root));
    lines.push(format!(
        "build cache: {}",
        cache
            .as_ref()
            .map(|c| c.display().to_string())
            .unwrap_or_else(|_| "(no subjects folder found)".into())
    ));
    let dotnet = cache.as_deref().ok().map(restbench_harness::dotnet::status);
    lines.extend(dotnet.as_ref().map(|d| d.describe()));
    let mut json_subjects = Vec::new();
    if !subjects.is_empty() {
        let mut unavailable = Vec::new();
        for s in &subjects {
            let reason = s.unavailable_reason();
            if let Some(r) = &reason {
                unavailable.push(format!("  {}: unavailable: {r}", s.id));
            }
            json_subjects.push(serde_json::json!({
                "id": s.id,
                "available": reason.is_none(),
                "reason": reason,
            }));
        }
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
            "toolchains": checks,
            "dotnet": dotnet,
            "subjects": json_subjects,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        for l in lines {
            println!("{l}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
