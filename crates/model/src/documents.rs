//! The smaller documents the CLI prints with `--json`: verification findings, the subject
//! catalogue, and an envelope that gives another crate's document a schema version.

use serde::{Deserialize, Serialize};

use crate::{Finding, SCHEMA_VERSION, Scenario, Workload};

/// A document of another crate (a comparison) with [`SCHEMA_VERSION`] beside its fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versioned<T> {
    pub schema_version: u32,
    #[serde(flatten)]
    pub document: T,
}

impl<T> Versioned<T> {
    pub fn new(document: T) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
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
    pub scenarios: Vec<Scenario>,
    /// False when a tool it needs is missing here.
    pub available: bool,
    /// Why it is not available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub description: String,
}
