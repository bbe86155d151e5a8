//! A subject made from a command line (`restbench bench --cmd …`): no folder, no manifest, no
//! build. It is started, verified and measured as a catalogued subject is, in every scenario with
//! the command as given (`{port}` and the other placeholders are filled in; `PORT`, `HOST` and
//! `RESTBENCH_SCENARIO` are in its environment as for every subject).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use restbench_model::{Scenario, Workload};

use crate::{ScenarioSettings, Subject};

/// What `language` and `framework` say of a command restbench knows nothing about.
pub const AD_HOC: &str = "ad hoc";
/// The name of an ad-hoc subject when none is given.
pub const DEFAULT_NAME: &str = "ad-hoc";
/// How long the command may take to answer its first request: it may compile or warm a cache.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a command cannot be a subject.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AdHocError {
    #[error(
        "the command is empty: pass the server's command line, such as --cmd 'my-server --port {{port}}'"
    )]
    EmptyCommand,
    #[error(
        "the name {0:?} is not usable: use lowercase letters, digits and '-' only (it names logs and results)"
    )]
    BadName(String),
    #[error("no workload given: pass --workloads, such as plaintext,todo")]
    NoWorkload,
}

/// A subject that runs `command` in `cwd` (where restbench was started, so relative paths in the
/// command work), serving `workloads`, known in the results as `name`.
pub fn subject(
    command: &str,
    name: &str,
    workloads: &[Workload],
    cwd: PathBuf,
) -> Result<Subject, AdHocError> {
    if command.trim().is_empty() {
        return Err(AdHocError::EmptyCommand);
    }
    if name.is_empty()
        || name.starts_with('-')
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(AdHocError::BadName(name.to_string()));
    }
    if workloads.is_empty() {
        return Err(AdHocError::NoWorkload);
    }
    let mut unique = Vec::new();
    for w in workloads {
        if !unique.contains(w) {
            unique.push(*w);
        }
    }
    let scenarios = Scenario::ALL
        .into_iter()
        .map(|s| {
            (
                s,
                ScenarioSettings {
                    env: BTreeMap::new(),
                    processes: "1".into(),
                    limits_itself: None,
                    memory_limit: None,
                },
            )
        })
        .collect();
    Ok(Subject {
        id: name.to_string(),
        manifest_path: PathBuf::new(),
        dir: cwd,
        language: AD_HOC.into(),
        framework: AD_HOC.into(),
        framework_version: "-".into(),
        seeds: Vec::new(),
        workloads: unique,
        unserved: BTreeMap::new(),
        description: format!("the command `{command}`"),
        tools: Vec::new(),
        hint: String::new(),
        build_commands: Vec::new(),
        build_outputs: Vec::new(),
        start_command: command.to_string(),
        ready_timeout: READY_TIMEOUT,
        env: BTreeMap::new(),
        versions: BTreeMap::new(),
        min_versions: BTreeMap::new(),
        ghc_packages: Vec::new(),
        protocols: vec![restbench_model::Protocol::H1],
        scenarios,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_becomes_a_subject_of_every_scenario_with_nothing_to_build() {
        let s = subject(
            "my-server --port {port}",
            "mine",
            &[Workload::Plaintext, Workload::Todo, Workload::Plaintext],
            PathBuf::from("/tmp"),
        )
        .unwrap();
        assert_eq!(s.id, "mine");
        assert_eq!(
            (s.language.as_str(), s.framework.as_str()),
            (AD_HOC, AD_HOC)
        );
        assert_eq!(s.workloads, vec![Workload::Plaintext, Workload::Todo]);
        assert!(s.build_commands.is_empty() && s.unavailable_reason().is_none());
        assert_eq!(s.scenarios.len(), Scenario::ALL.len());
        assert!(s.scenarios.values().all(|v| v.env.is_empty()));
        assert_eq!(s.start_command, "my-server --port {port}");
        assert_eq!(s.dir, PathBuf::from("/tmp"));
    }

    #[test]
    fn refusals_say_what_to_pass() {
        let w = [Workload::Plaintext];
        let cwd = || PathBuf::from(".");
        assert_eq!(
            subject(" ", "x", &w, cwd()).unwrap_err(),
            AdHocError::EmptyCommand
        );
        for bad in ["", "My Server", "a/b", "-x", "ünï"] {
            assert_eq!(
                subject("srv", bad, &w, cwd()).unwrap_err(),
                AdHocError::BadName(bad.into())
            );
        }
        assert_eq!(
            subject("srv", "x", &[], cwd()).unwrap_err(),
            AdHocError::NoWorkload
        );
        assert!(
            AdHocError::EmptyCommand
                .to_string()
                .contains("--cmd 'my-server --port {port}'")
        );
    }
}
