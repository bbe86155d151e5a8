//! `restbench ab --json`: two versions of one subject measured in one run, the ratio of every
//! measure per workload ([`crate::statistics::ab_ratios`]) and the gate's checks ([`crate::statistics::gate`]).

use serde::{Deserialize, Serialize};

use super::Document;

use crate::statistics::ab_ratios::RatioRow;
use crate::statistics::gate::GateReport;

/// One side of an A/B: what was measured and where it came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AbSide {
    /// The subject id in the run (`rust-hyper@1a2b3c4`).
    pub id: String,
    /// The folder it was built from.
    pub folder: String,
    /// The git revision asked for and the commit it named (`--rev`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// A hash of the subject's sources (the git tree, or the folder's build hash).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source_hash: String,
}

/// `restbench ab --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbReport {
    pub a: AbSide,
    pub b: AbSide,
    /// `duet` (both at once in every round, sharing the server CPUs) or `interleaved` (one
    /// after the other, A B then B A).
    pub mode: String,
    /// Why that mode, in a sentence.
    pub mode_reason: String,
    /// The run's results folder.
    pub results: String,
    pub rows: Vec<RatioRow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateReport>,
}

/// Printed inside [`crate::Versioned`], which carries this version.
impl Document for AbReport {
    const SCHEMA_VERSION: u32 = 1;
}
