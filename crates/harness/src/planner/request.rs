//! What a measuring command asks for, typed: the binary fills these from its flags and the
//! planner ([`super::resolve`]) decides everything else.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use restbench_model::{Protocol, Scenario, Workload};

use restbench_host::placement::Placement;
use restbench_remote::RemoteGenerators;
use crate::runner::Mode;
use crate::serve::remote_server::ServerHost;
use restbench_subject::Subject;

/// How long a run (or study) runs: the seed's own figures, the default, or a first look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    Faithful,
    Default,
    Quick,
}

impl Length {
    /// `--quick` and `--faithful` as a length (clap keeps them apart).
    pub fn from_flags(quick: bool, faithful: bool) -> Self {
        if faithful {
            Length::Faithful
        } else if quick {
            Length::Quick
        } else {
            Length::Default
        }
    }

    pub fn is_quick(self) -> bool {
        self == Length::Quick
    }
}

/// The cells asked for: subjects × workloads × scenarios × protocols, in the order given (the
/// command line gives each value once).
#[derive(Debug, Clone)]
pub struct Selection {
    pub subjects: Vec<Subject>,
    pub workloads: Vec<Workload>,
    pub scenarios: Vec<Scenario>,
    pub protocols: Vec<Protocol>,
}

/// The load shape's flags; `None` keeps the length's default.
#[derive(Debug, Clone, Default)]
pub struct ShapeOverrides {
    pub connections: Option<u32>,
    pub threads: Option<u32>,
    pub duration: Option<Duration>,
    pub warmup: Option<Duration>,
    pub repeats: Option<u32>,
    pub restarts: Option<u32>,
    pub rounds: RoundsRequest,
}

/// How the rounds are taken (`--target-ci`, `--max-rounds`, `--seed`); `None` keeps the
/// length's default.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundsRequest {
    /// A fraction: `0.03` adds rounds until every paired ratio is within ±3 %.
    pub target_ci: Option<f64>,
    pub max_rounds: Option<u32>,
    pub seed: Option<u64>,
    /// Measure the cells of a group at once in every round (duet), not one after another.
    pub duet: bool,
}

/// Where the generator, the server and the database run on this machine, and how limits hold.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    /// CPU list for the generator (`--loadgen-cpus`); the server gets the others.
    pub loadgen_cpus: Option<String>,
    /// CPU list for the run's own PostgreSQL cluster (`--db-cpus`).
    pub db_cpus: Option<String>,
    /// False with `--no-cgroups`: CPU affinity only.
    pub cgroups: bool,
}

/// The database of a run: an external one by URL, else a throwaway cluster when a cell needs one.
#[derive(Debug, Clone)]
pub struct DatabaseRequest {
    pub url: Option<String>,
    /// Connections in total over all server processes.
    pub pool: u32,
}

/// The open-loop measures asked for (`--mode`, `--slo`, `--at-rate`, `--step-duration`,
/// `--resolution`), checked by the planner.
#[derive(Debug, Clone, Default)]
pub struct OpenLoopRequest {
    pub mode: Option<Mode>,
    pub slo: Vec<String>,
    pub at_rates: Vec<f64>,
    pub step_duration: Option<Duration>,
    pub resolution: f64,
}

/// Generators and/or the server on other hosts, already connected (`--loadgen-hosts`,
/// `--server-host`).
pub struct Remote {
    pub generators: Option<Arc<RemoteGenerators>>,
    pub server: Option<Arc<ServerHost>>,
    /// Where the servers bind and are loaded at.
    pub address: IpAddr,
    /// The local CPUs: every one to the server with remote generators, every one to the
    /// generator with a remote server.
    pub placement: Placement,
    /// A sentence for the report.
    pub note: String,
}

/// A run asked for by `run` or `bench`.
pub struct RunRequest {
    /// `kind` of the results document (`run`, `bench`).
    pub kind: String,
    pub selection: Selection,
    pub length: Length,
    pub shape: ShapeOverrides,
    pub machine: Machine,
    pub database: DatabaseRequest,
    pub open_loop: OpenLoopRequest,
    pub remote: Option<Remote>,
    /// False with `--no-calibrate`.
    pub calibrate: bool,
    pub out_dir: PathBuf,
    /// The build cache (`prepare::cache_dir` of the subjects folder).
    pub cache: PathBuf,
    /// A sentence for the report about what was measured.
    pub note: Option<String>,
    pub conformance: ConformanceStep,
    /// `--profile`: a profiling slice after each cell's repeats.
    pub profile: bool,
}

/// Whether a subject's conformance cases run before its cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConformanceStep {
    /// Checked (cached per build).
    Check,
    /// `--no-conformance`: not checked, and the results say so.
    Skip,
    /// An ad-hoc command (`bench`): no subject folder, no contract to hold it to.
    NotApplicable,
}

impl ConformanceStep {
    /// `Check` unless `--no-conformance` was given.
    pub fn unless_skipped(no_conformance: bool) -> Self {
        if no_conformance {
            Self::Skip
        } else {
            Self::Check
        }
    }

    /// The sentence the run's note gains, if any.
    pub(crate) fn note(self) -> Option<String> {
        (self == Self::Skip).then(|| "Conformance not checked (--no-conformance).".to_string())
    }
}
