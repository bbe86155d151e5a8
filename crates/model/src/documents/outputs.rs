//! The smaller documents the CLI prints with `--json`: verification findings, the subject
//! catalogue, what `doctor` found, and an envelope that gives another crate's document a schema
//! version.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Document;
use super::validate::Invalid;
use crate::{Finding, Scenario, Workload};

/// A document without a `schema_version` field of its own (a comparison, an A/B) with its
/// [`Document::SCHEMA_VERSION`] beside its fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versioned<T> {
    pub schema_version: u32,
    #[serde(flatten)]
    pub document: T,
}

impl<T: Document> Document for Versioned<T> {
    const SCHEMA_VERSION: u32 = T::SCHEMA_VERSION;

    fn validate(&self) -> Result<(), Invalid> {
        self.document.validate()
    }
}

impl<T: Document> Versioned<T> {
    pub fn new(document: T) -> Self {
        Self {
            schema_version: T::SCHEMA_VERSION,
            document,
        }
    }
}

/// `restbench verify --json`: the contract checks per subject and workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyReport {
    pub schema_version: u32,
    pub results: Vec<VerifyOutcome>,
}

impl Document for VerifyReport {
    const SCHEMA_VERSION: u32 = 1;
}

/// The checks of one subject × workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyOutcome {
    pub subject: String,
    pub workload: Workload,
    /// True when no finding failed.
    pub passed: bool,
    pub findings: Vec<Finding>,
}

/// `restbench subjects --json`: the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectCatalogue {
    pub schema_version: u32,
    pub subjects: Vec<SubjectEntry>,
}

impl Document for SubjectCatalogue {
    const SCHEMA_VERSION: u32 = 1;
}

/// One subject as the catalogue lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectEntry {
    pub id: String,
    pub language: String,
    pub framework: String,
    pub framework_version: String,
    /// The seed studies it takes part in (`000`, `002`, `003`, `004`).
    pub seeds: Vec<String>,
    pub workloads: Vec<Workload>,
    /// Workloads it states it does not serve (`[unserved]`), each with why.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unserved: BTreeMap<Workload, String>,
    pub scenarios: Vec<Scenario>,
    /// False when a tool it needs is missing here.
    pub available: bool,
    /// Why it is not available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub description: String,
}

/// `restbench doctor --json`: what this machine can run and enforce. The fields are in
/// alphabetical order, as the document has always listed them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DoctorReport {
    /// The cgroup backend's name (`v2`, `v1`, `affinity`).
    pub backend: String,
    /// Why this backend, and why not the better ones.
    pub backend_reason: String,
    /// CPUs available to restbench.
    pub cores: usize,
    pub cpu_accounting: bool,
    pub cpu_quota: bool,
    pub cpuset: bool,
    /// The generator's CPUs of the default placement.
    pub loadgen_cpus: Vec<usize>,
    pub memory_accounting: bool,
    pub schema_version: u32,
    /// The server's CPUs of the default placement.
    pub server_cpus: Vec<usize>,
    pub subjects: Vec<DoctorSubject>,
    /// Each toolchain judged against what the subjects need.
    pub toolchains: Vec<ToolCheck>,
    /// Each tool's version line, `null` when missing.
    pub tools: BTreeMap<String, Option<String>>,
    /// The .NET toolchain that `dotnet-aspnetcore`'s build fetches into the cache, when there
    /// is a cache to look in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dotnet: Option<DotnetToolchain>,
    /// Whether `--profile` and `restbench profile` can sample servers here, and why (absent in
    /// documents from before profiles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiling: Option<ProfilingCheck>,
}

impl Document for DoctorReport {
    const SCHEMA_VERSION: u32 = 1;
}

/// perf as `doctor` found it: usable or not, with its version, `perf_event_paranoid` and
/// whether the cgroup filter applies, or the fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfilingCheck {
    pub available: bool,
    pub detail: String,
}

/// Where the .NET toolchain stands on this machine (`doctor`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum DotnetToolchain {
    /// Both parts are in the cache, verified against the pinned checksums.
    Cached {
        sdk: std::path::PathBuf,
        openssl: std::path::PathBuf,
    },
    /// Not (all) in the cache, and npm, node and pip are here to fetch it at the first build.
    Fetchable { missing: Vec<String> },
    /// Not in the cache and cannot be fetched.
    Unavailable { reason: String, fix: String },
}

/// A subject in `doctor`'s document: whether it can run here, and why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DoctorSubject {
    pub available: bool,
    pub id: String,
    pub reason: Option<String>,
}

/// One toolchain as `doctor` judges it against the subjects' minimums (fields in alphabetical
/// order, as the document has always listed them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCheck {
    /// What else was checked and found in order (the venv module, GHC libraries).
    pub also: Vec<String>,
    pub fix: Option<String>,
    pub found: bool,
    /// Found, new enough, nothing missing.
    pub ok: bool,
    pub problems: Vec<String>,
    /// The strictest minimum over the subjects, with the subjects that state it and where.
    pub required: Option<String>,
    pub required_by: Vec<String>,
    pub source: Option<String>,
    pub tool: String,
    /// The version read from the tool's output.
    pub version: Option<String>,
}
