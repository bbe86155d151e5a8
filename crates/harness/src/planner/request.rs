//! What a measuring command asks for, typed: the binary fills these from its flags and the
//! planner ([`super::resolve()`]) decides everything else.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use restbench_model::{Protocol, Scenario, Workload};

use crate::HarnessError;
use crate::runner::Mode;
use crate::serve::remote_server::ServerHost;
use restbench_host::placement::{Placement, available_cpus};
use restbench_remote::{RemoteGenerators, SshHost};
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
    /// Requests in flight per connection for plaintext (`--pipeline`; TechEmpower's is 16).
    pub pipeline: Option<u32>,
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
    /// Measure one after another (`--interleaved`), not in duets beside a reference.
    pub interleaved: bool,
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
    /// `--memory-limit`: every server's memory limit (bytes) in every scenario, over what each
    /// subject.toml says.
    pub memory_limit: Option<u64>,
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

/// Generators and/or the server on other hosts, as asked (`--loadgen-hosts`, `--server-host`):
/// parsed and checked, never connected here. The run connects them when it begins
/// ([`RemoteRequest::connect`], from `Resolved::run`), so every flag is resolved and refused
/// before the slow network step, and a plan holds no live connection.
pub struct RemoteRequest {
    /// One shard of every load per host.
    pub generator_hosts: Vec<SshHost>,
    /// The host that serves the subjects.
    pub server_host: Option<SshHost>,
    /// `--server-address`: what the servers bind and are loaded at; with a server host, its
    /// address as resolved here when not given.
    pub server_address: Option<IpAddr>,
    /// `--server-cache`: the server host keeps its build cache for the next run.
    pub server_cache: bool,
    /// restbench's own binary, copied to each host.
    pub binary: PathBuf,
    /// The hosts once connected: every run of a study shares one connection per host.
    connected: OnceLock<Connected>,
}

/// The hosts of a [`RemoteRequest`], connected.
#[derive(Clone)]
pub struct Connected {
    pub generators: Option<Arc<RemoteGenerators>>,
    pub server: Option<Arc<ServerHost>>,
    /// Where the servers bind and are loaded at.
    pub address: IpAddr,
    /// A sentence for the report.
    pub note: String,
}

impl RemoteRequest {
    pub fn new(
        generator_hosts: Vec<SshHost>,
        server_host: Option<SshHost>,
        server_address: Option<IpAddr>,
        server_cache: bool,
        binary: PathBuf,
    ) -> Self {
        Self {
            generator_hosts,
            server_host,
            server_address,
            server_cache,
            binary,
            connected: OnceLock::new(),
        }
    }

    /// The local CPUs: every one to the server with remote generators, every one to the
    /// generator (or `loadgen_cpus` of them) when only the server is remote.
    pub fn placement(&self, loadgen_cpus: Option<&str>) -> Result<Placement, String> {
        let available = available_cpus();
        match (self.generator_hosts.is_empty(), &self.server_host) {
            (true, Some(_)) => match loadgen_cpus {
                Some(list) => Placement::with_loadgen(&available, list)
                    .map_err(|e| format!("--loadgen-cpus {list}: {e}")),
                None => Ok(Placement::loadgen_only(&available)),
            },
            _ => Ok(Placement::server_only(&available)),
        }
    }

    /// Connects the hosts once (restbench copied to each, cached by hash), saying what it does
    /// through `note`; later calls return the same connections.
    pub fn connect(&self, note: &dyn Fn(&str)) -> Result<&Connected, HarnessError> {
        if let Some(c) = self.connected.get() {
            return Ok(c);
        }
        let server = match &self.server_host {
            Some(host) => {
                let server = ServerHost::connect(
                    host.clone(),
                    &self.binary,
                    self.server_address,
                    self.server_cache,
                    note,
                )?;
                note(&format!(
                    "subjects served on {} at {} (copied, built and started there)",
                    server.name(),
                    server.address
                ));
                Some(Arc::new(server))
            }
            None => None,
        };
        let address = match (&server, self.server_address) {
            (Some(s), _) => s.address,
            (None, Some(a)) => a,
            (None, None) => IpAddr::from([127, 0, 0, 1]),
        };
        let generators = if self.generator_hosts.is_empty() {
            None
        } else {
            let g = RemoteGenerators::connect(self.generator_hosts.clone(), &self.binary, note)?;
            note(&format!(
                "generators on {} (one shard each, merged); servers at {address}",
                g.names().join(", ")
            ));
            Some(Arc::new(g))
        };
        let mut notes = Vec::new();
        if let Some(g) = &generators {
            notes.push(format!(
                "Load generated on {} hosts over SSH ({}), one shard each, started together and \
                 merged; the server had every local CPU.",
                g.names().len(),
                g.names().join(", ")
            ));
        }
        if let Some(s) = &server {
            notes.push(format!(
                "The servers ran on {} over SSH (built and measured there).",
                s.name()
            ));
        }
        let connected = Connected {
            generators,
            server,
            address,
            note: notes.join(" "),
        };
        Ok(self.connected.get_or_init(|| connected))
    }
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
    pub remote: Option<Arc<RemoteRequest>>,
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
    /// `--explain`: profile every cell (as `profile` does) and compare each pair of neighbours
    /// in a group's ranking in the report.
    pub explain: bool,
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
