//! What a run is asked to do: the load shape, the entries (subject × scenarios) and where it
//! runs, and what it reports while it goes.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use restbench_loadgen::{HttpVersion, StopAt};
use restbench_model::{Cell, Scenario, StudyInfo, Workload};

use crate::cgroup::Backend;
use crate::placement::Placement;
use crate::remote::RemoteGenerators;
use crate::subject::Subject;

/// The load shape of every cell.
#[derive(Debug, Clone)]
pub struct LoadShape {
    pub connections: u32,
    pub threads: u32,
    pub stop: StopAt,
    pub warmup: Duration,
    /// Time warm-ups repeat `warmup` until the rate settles, for at most this long in all: a JIT
    /// runtime is still speeding up well after the first seconds.
    pub warmup_max: Duration,
    /// A warm-up by request count on one connection (h2load's `-n100000 -c1`), instead of time.
    pub warmup_requests: Option<u64>,
    pub keepalive: bool,
    pub http_version: HttpVersion,
    pub timeout: Duration,
    pub pipeline: u32,
}

impl Default for LoadShape {
    fn default() -> Self {
        Self {
            connections: 10,
            threads: 2,
            stop: StopAt::Duration(Duration::from_secs(10)),
            warmup: Duration::from_secs(3),
            warmup_max: Duration::from_secs(30),
            warmup_requests: None,
            keepalive: true,
            http_version: HttpVersion::Http11,
            timeout: Duration::from_secs(2),
            pipeline: 1,
        }
    }
}

/// Everything a run needs, resolved.
pub struct RunPlan {
    pub kind: String,
    /// Subjects in order, each with its scenarios.
    pub entries: Vec<RunEntry>,
    pub workloads: Vec<Workload>,
    /// Load shape per workload (a study may differ from the default).
    pub shape: LoadShape,
    pub repeats: u32,
    pub out_dir: PathBuf,
    pub cache: PathBuf,
    pub placement: Placement,
    /// How scenarios are enforced and servers accounted.
    pub backend: Backend,
    /// The generator's ceiling (req/s against a trivial server on the server CPUs), if calibrated.
    pub loadgen_ceiling_rps: Option<f64>,
    pub database_url: Option<String>,
    pub db_pool_total: u32,
    /// A sentence for the report about how this run differs from the defaults.
    pub note: Option<String>,
    /// Set when the run is a seed study.
    pub study: Option<StudyInfo>,
    /// Load generators on other hosts (`--loadgen-hosts`): every load is split over them and
    /// merged; the server then has every local CPU.
    pub remote: Option<std::sync::Arc<RemoteGenerators>>,
    /// The address servers bind and are loaded at (default 127.0.0.1); remote generators need
    /// one they reach.
    pub server_address: Option<IpAddr>,
}

impl RunPlan {
    /// How many cells the plan has.
    pub fn cells(&self) -> usize {
        self.entries
            .iter()
            .map(|e| {
                self.workloads
                    .iter()
                    .filter(|w| e.subject.supports(**w))
                    .count()
                    * e.scenarios.len()
            })
            .sum()
    }
}

/// A subject and the scenarios to run it in; a study may list one subject twice with different
/// settings (seed 000's GOMAXPROCS unset and =1).
#[derive(Debug, Clone)]
pub struct RunEntry {
    pub subject: Subject,
    pub scenarios: Vec<Scenario>,
}

impl RunEntry {
    /// Every subject in every scenario, the plain `restbench run`.
    pub fn all(subjects: Vec<Subject>, scenarios: &[Scenario]) -> Vec<Self> {
        subjects
            .into_iter()
            .map(|subject| Self {
                subject,
                scenarios: scenarios.to_vec(),
            })
            .collect()
    }

    /// The subject with `env` added to one scenario's environment.
    pub fn with_settings(
        mut subject: Subject,
        scenario: Scenario,
        env: &BTreeMap<String, String>,
    ) -> Self {
        if let Some(s) = subject.scenarios.get_mut(&scenario) {
            s.env
                .extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        Self {
            subject,
            scenarios: vec![scenario],
        }
    }
}

/// What a run reports while it goes.
pub trait Observer: Sync {
    /// A new step of a cell (`building`, `starting`, `verifying`, `warming up`, `measuring 2/3`);
    /// no scenario while building.
    fn step(
        &self,
        subject: &str,
        scenario: Option<Scenario>,
        workload: Option<Workload>,
        step: &str,
    );
    /// Progress of the current load, as a fraction 0..1.
    fn load_progress(&self, _fraction: f64) {}
    fn cell_done(&self, cell: &Cell, done: usize, total: usize);
    fn note(&self, message: &str);
}
