//! `restbench doctor`: what this machine can run and enforce, before a run finds out; `versions`
//! reads each toolchain's version.

use std::process::ExitCode;

use restbench_host::cgroup::Backend;
use restbench_host::environment::command_version;
use restbench_host::placement::{Placement, available_cpus, format_cpu_list};
use restbench_host::shell::find_on_path;
use restbench_model::{DoctorReport, DoctorSubject, Document, DotnetToolchain, ToolCheck};
use restbench_subject::dotnet;
use restbench_subject::{self as subject, Subject};

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
    let machine = Machine::probe(&args);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&machine.document())?);
    } else {
        let width = crate::output::table_width();
        for l in machine.lines() {
            // A tool's continuation lines start under its version, the others under their text.
            let indent = if l.starts_with("  ") { 12 } else { 2 };
            for part in crate::width::hanging(&l, width, indent) {
                println!("{part}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One tool of [`TOOLS`] as found here.
struct Tool {
    name: &'static str,
    purpose: &'static str,
    /// Its version line, `None` when missing.
    version: Option<String>,
    check: ToolCheck,
}

/// What `doctor` found, computed once and then printed as lines or as its document.
struct Machine {
    cpus: Vec<usize>,
    placement: Placement,
    backend: Backend,
    tools: Vec<Tool>,
    /// The build cache's folder, or why there is none.
    cache: String,
    /// The .NET toolchain in that cache (none without a cache).
    dotnet: Option<DotnetToolchain>,
    subjects: Vec<Subject>,
    /// Whether `--profile` and `restbench profile` can sample servers here.
    profiling: restbench_harness::profile::Availability,
}

impl Machine {
    fn probe(args: &DoctorArgs) -> Self {
        let cpus = available_cpus();
        let root = crate::common::subjects_root(&args.dir);
        let subjects = root
            .as_ref()
            .ok()
            .and_then(|root| subject::discover(root).ok())
            .unwrap_or_default();
        let tools = TOOLS
            .into_iter()
            .map(|(name, version, purpose, package)| {
                Tool::probe(name, version, purpose, package, &subjects)
            })
            .collect();
        let cache = root.map(|root| restbench_subject::prepare::cache_dir(&root));
        let backend = Backend::probe();
        Self {
            profiling: restbench_harness::profile::availability(backend.kind),
            placement: Placement::split(&cpus),
            cpus,
            backend,
            tools,
            dotnet: cache.as_deref().ok().map(dotnet::status),
            cache: cache
                .map(|c| c.display().to_string())
                .unwrap_or_else(|_| "(no subjects folder found)".into()),
            subjects,
        }
    }

    /// The text report, one line each.
    fn lines(&self) -> Vec<String> {
        let (cpus, placement, backend) = (&self.cpus, &self.placement, &self.backend);
        let mut lines = vec![
            format!(
                "cores: {} available to restbench (CPUs {})",
                cpus.len(),
                format_cpu_list(cpus)
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
        lines.push("tools:".into());
        for tool in &self.tools {
            tool.lines(&mut lines);
        }
        lines.push(format!(
            "profiling (--profile, restbench profile): {} — {}",
            if self.profiling.usable { "yes" } else { "no" },
            self.profiling.detail
        ));
        lines.push(format!("build cache: {}", self.cache));
        lines.extend(self.dotnet.as_ref().map(dotnet::describe));
        if !self.subjects.is_empty() {
            let unavailable: Vec<String> = self
                .subjects
                .iter()
                .filter_map(|s| {
                    let r = s.unavailable_reason()?;
                    Some(format!("  {}: unavailable: {r}", s.id))
                })
                .collect();
            lines.push(format!(
                "subjects: {} found, {} can run here",
                self.subjects.len(),
                self.subjects.len() - unavailable.len()
            ));
            lines.extend(unavailable);
        }
        lines
    }

    /// The `--json` document.
    fn document(&self) -> DoctorReport {
        let caps = &self.backend.capabilities;
        DoctorReport {
            backend: self.backend.kind.name().into(),
            backend_reason: self.backend.reason.clone(),
            cores: self.cpus.len(),
            cpu_accounting: caps.cpu_accounting,
            cpu_quota: caps.cpu_quota,
            cpuset: caps.cpuset,
            loadgen_cpus: self.placement.loadgen.clone(),
            memory_accounting: caps.memory_accounting,
            schema_version: DoctorReport::SCHEMA_VERSION,
            server_cpus: self.placement.server.clone(),
            subjects: self
                .subjects
                .iter()
                .map(|s| {
                    let reason = s.unavailable_reason();
                    DoctorSubject {
                        available: reason.is_none(),
                        id: s.id.clone(),
                        reason,
                    }
                })
                .collect(),
            toolchains: self.tools.iter().map(|t| t.check.clone()).collect(),
            tools: self
                .tools
                .iter()
                .map(|t| (t.name.to_string(), t.version.clone()))
                .collect(),
            dotnet: self.dotnet.clone(),
            profiling: Some(restbench_model::ProfilingCheck {
                available: self.profiling.usable,
                detail: self.profiling.detail.clone(),
            }),
        }
    }
}

impl Tool {
    fn probe(
        name: &'static str,
        version: &str,
        purpose: &'static str,
        package: &str,
        subjects: &[Subject],
    ) -> Self {
        let found = find_on_path(name).or_else(|| {
            (name == "initdb")
                .then(|| restbench_db::find_server_binaries().ok())
                .flatten()
                .map(|dir| dir.join("initdb"))
        });
        let check = versions::check(name, found.is_some(), package, subjects);
        let version = found.map(|path| {
            let cmd = version.replacen(name, &path.display().to_string(), 1);
            // The toolchains were just probed for their versions: their first line is reused.
            versions::first_line(name)
                .unwrap_or_else(|| command_version(std::path::Path::new("/"), &cmd))
        });
        Self {
            name,
            purpose,
            version,
            check,
        }
    }

    /// Its line, then its problems and the fix.
    fn lines(&self, lines: &mut Vec<String>) {
        let (name, purpose, check) = (self.name, self.purpose, &self.check);
        match &self.version {
            Some(v) => {
                let mut parts: Vec<String> =
                    check.required.iter().map(|r| format!(">= {r}")).collect();
                parts.extend(check.also.iter().cloned());
                let verdict = if check.problems.is_empty() && !parts.is_empty() {
                    format!("  ok: {}", parts.join(", "))
                } else {
                    String::new()
                };
                lines.push(format!("  {name:<9} {v}{verdict}  ({purpose})"));
            }
            None => lines.push(format!("  {name:<9} missing  ({purpose})")),
        }
        for p in &check.problems {
            lines.push(format!("  {:<9} {p}", ""));
        }
        if let Some(fix) = &check.fix {
            lines.push(format!("  {:<9} fix: {fix}", ""));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_versioned_and_names_every_tool_the_lines_name() {
        let args = DoctorArgs {
            json: true,
            dir: crate::cli::SubjectsDir { subjects_dir: None },
        };
        let machine = Machine::probe(&args);
        let doc = machine.document();
        assert_eq!(doc.schema_version, DoctorReport::SCHEMA_VERSION);
        assert_eq!(doc.tools.len(), TOOLS.len());
        let text = machine.lines().join("\n");
        for (name, ..) in TOOLS {
            assert!(text.contains(&format!("  {name:<9} ")), "{name}: {text}");
        }
        let json = serde_json::to_value(&doc).unwrap();
        assert_eq!(json["schema_version"], DoctorReport::SCHEMA_VERSION);
    }
}
