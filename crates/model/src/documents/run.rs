//! The result document of `restbench run` / `restbench study`: `results.json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Document;
use super::validate::{Invalid, duration, error_total, histogram_text, series, shard};

use crate::{
    Capacity, ErrorCounts, Flag, LatencySummary, RateStep, Scenario, SecondSample, StudyInfo,
    Workload,
};

/// A whole run: the machine it ran on and one entry per cell (subject × workload × scenario).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResults {
    pub schema_version: u32,
    /// `run`, or `study a` … `study d`.
    pub kind: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// True when the run was cut short (Ctrl-C); the cells present are complete.
    pub interrupted: bool,
    pub environment: Environment,
    /// The load shape and protocol used for every cell.
    pub protocol: RunProtocol,
    pub cells: Vec<Cell>,
    /// Set when the run reproduces a seed study (`restbench study …`); the published figures are
    /// looked up by its id in [`crate::documents::published`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub study: Option<StudyInfo>,
    /// The machine's own speed changed during the run (the generator's ceiling drifted beyond
    /// 10 % between start and end): every figure carries that noise. Why, in a sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noisy_machine: Option<String>,
    /// How each subject of the run reads HTTP (`restbench conformance`), checked before its
    /// cells were measured; empty in documents from before conformance checks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conformance: Vec<crate::SubjectConformance>,
    /// Each group's rounds (same workload, scenario, protocol) and what they decided: the
    /// paired ratios, the rankings with ties. Empty in documents from before rounds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<crate::GroupRounds>,
    /// Workloads of the run that a subject of it states it does not serve (subject.toml's
    /// `[unserved]`), each with its reason: `study tfb`'s report names them under each type's table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unserved: Vec<Unserved>,
}

/// A workload a subject states it does not serve, and why (`[unserved]` in its subject.toml).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unserved {
    pub subject: String,
    pub workload: String,
    pub reason: String,
}

impl RunResults {
    /// The subjects that state they do not serve `workload` (by its name), with why.
    pub fn unserved_of<'a>(&'a self, workload: &'a str) -> impl Iterator<Item = &'a Unserved> {
        self.unserved.iter().filter(move |u| u.workload == workload)
    }
}

/// `results.json` is read back by `report`, `compare` and `history`, from any machine: each
/// cell's counts, histogram and repeats' seconds are checked before a report is sized by them.
impl Document for RunResults {
    const SCHEMA_VERSION: u32 = 1;

    fn validate(&self) -> Result<(), Invalid> {
        for (i, c) in self.cells.iter().enumerate() {
            let within = |e: Invalid| e.within(&format!("cells[{i}]"));
            error_total("errors", &c.errors).map_err(within)?;
            if let Some(text) = &c.histogram {
                histogram_text("histogram", text).map_err(within)?;
            }
            duration("warmup_s", c.warmup_s).map_err(within)?;
            for (j, rep) in c.repeats.iter().enumerate() {
                let within = |e: Invalid| e.within(&format!("cells[{i}].repeats[{j}]"));
                duration("duration_s", rep.duration_s).map_err(within)?;
                error_total("errors", &rep.errors).map_err(within)?;
                series("timeseries", &rep.timeseries).map_err(within)?;
            }
            for (j, g) in c.generators.iter().enumerate() {
                let within = |e: Invalid| e.within(&format!("cells[{i}].generators[{j}]"));
                if let Some(s) = g.shard {
                    shard("shard", s).map_err(within)?;
                }
                duration("duration_s", g.duration_s).map_err(within)?;
            }
        }
        Ok(())
    }
}

/// Facts about the machine and restbench, for reading figures later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub restbench_version: String,
    pub cpu_model: String,
    pub cores: u32,
    pub kernel: String,
    pub hostname: String,
    pub memory_bytes: u64,
    /// How CPU limits and accounting are done: `cgroup-v2`, `cgroup-v1`, `affinity-only`.
    pub backend: String,
    /// Why that backend was chosen.
    pub backend_reason: String,
    /// The CPUs the load generator ran on, and the server's.
    pub loadgen_cpus: Vec<u32>,
    pub server_cpus: Vec<u32>,
    /// Toolchain versions, by language (`rust`: `rustc 1.95.0 …`).
    pub toolchains: BTreeMap<String, String>,
    /// The generator's own ceiling on this machine (req/s against a trivial server), when calibrated.
    /// The best of every calibration of the run: a cell faster than the ceiling proves a
    /// calibration wrong and calls for another.
    pub loadgen_ceiling_rps: Option<f64>,
    /// The ceiling measured at the start and at the end of the run: a drift beyond 10 % marks the
    /// run [`RunResults::noisy_machine`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loadgen_ceiling_start_rps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loadgen_ceiling_end_rps: Option<f64>,
}

/// How each cell was loaded and repeated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunProtocol {
    pub connections: u32,
    pub threads: u32,
    pub duration_s: Option<f64>,
    pub requests: Option<u64>,
    pub warmup_s: f64,
    pub warmup_requests: Option<u64>,
    pub repeats: u32,
    pub keepalive: bool,
    pub http_version: String,
    pub timeout_s: f64,
    pub db_pool_total: u32,
    pub note: Option<String>,
    /// Server processes each cell's repeats were split over (`--restarts`), when 2 or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarts: Option<u32>,
    /// How the repeats were taken as interleaved rounds; absent in documents from before rounds
    /// (each cell's repeats then ran back to back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<crate::RoundsPolicy>,
    /// `run --explain`: the report compares the profiles of each pair of neighbours in every
    /// group's ranking. Absent (false) in documents from before it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub explain: bool,
}

/// Whether a cell was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellStatus {
    Ok,
    Failed,
    Skipped,
    /// Not measured because the run was interrupted (Ctrl-C, SIGTERM, SIGHUP): not the
    /// subject's fault. Documents before this variant never hold it, so they read as before.
    Interrupted,
}

/// One subject × workload × scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub subject: String,
    pub language: String,
    pub framework: String,
    pub framework_version: String,
    pub workload: String,
    pub scenario: String,
    pub status: CellStatus,
    /// Why a cell failed or was skipped.
    pub reason: Option<String>,
    pub rps: RpsStats,
    pub latency_us: LatencySummary,
    pub errors: ErrorCounts,
    pub requests: u64,
    pub bytes_per_s: f64,
    pub server: ServerUsage,
    pub loadgen: LoadgenUsage,
    pub findings: Vec<Finding>,
    /// Flags a reader must see beside the figures: the names of [`Flag`]s. Strings, so that a
    /// document with a flag this version does not know still reads.
    pub flags: Vec<String>,
    /// The environment the subject was started with (scenario settings only, no secrets).
    pub settings: BTreeMap<String, String>,
    /// Each repeat's figures, in order.
    pub repeats: Vec<RepeatResult>,
    /// Base64 V2+DEFLATE HdrHistogram of all repeats merged.
    pub histogram: Option<String>,
    /// Where the server and generator ran, and what limited the server.
    #[serde(default)]
    pub placement: CellPlacement,
    /// Seconds of time warm-up before measuring: slices repeat until the rate settles.
    #[serde(default)]
    pub warmup_s: f64,
    /// The capacity under the run's SLO (`--mode capacity|both`), open loop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Capacity>,
    /// One open-loop step per `--at-rate`, in the order asked: what the server spent at a load
    /// every cell is given alike. A rate it could not hold is kept, with `pass: false`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub at_rate: Vec<RateStep>,
    /// With remote generators (`--loadgen-hosts`): each host's share and its own CPU, over all
    /// repeats.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<crate::ShardSummary>,
    /// `h1` or `h2c`: part of the cell's identity (documents from before protocols read `h1`).
    #[serde(default = "crate::vocabulary::protocol::default_protocol")]
    pub protocol: String,
    /// With `--restarts 2` or more: the repeats ran in that many fresh server processes, and
    /// this is their spread within and between processes (absent with one process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarts: Option<RestartSpread>,
    /// The 95 % intervals over the rounds that counted (two or more).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intervals: Option<CellIntervals>,
    /// With `--profile`: the profiling slice run after the measured rounds (never part of the
    /// figures above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::CellProfile>,
    /// What was still waiting when its counted slices ended, and what each connection got;
    /// `None` when nothing waited beyond the usual (or a document from before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight_at_end: Option<InFlightAtEnd>,
    /// The connections its load held, when its workload holds other than the run's
    /// (`delay` holds 10,000); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<u32>,
    /// Response bytes read per answer (heads and bodies) over its counted slices: what
    /// HttpArena scores compressed JSON by, and what a static or download cell moves per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_answer: Option<f64>,
}

/// Requests still unanswered when a cell's slices ended, counted as censored latencies (each
/// took at least its age), and the connections that got no answer in a slice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InFlightAtEnd {
    /// Requests waiting at the ends of the counted slices, summed.
    pub requests: u64,
    /// The oldest of them, µs.
    pub oldest_us: u64,
    /// The p99 with them counted at their age: a floor (`≥`) of the true p99 when they reach it.
    pub p99_floor_us: u64,
    /// Whether the waiting requests reach the p99: the cell's p99 is then shown as a floor.
    pub p99_is_floor: bool,
    /// Connections that got no answer in at least one counted slice, at most (of
    /// `connections`).
    pub starved_connections: u32,
    pub connections: u32,
}

/// A cell's figures with their 95 % intervals over its rounds (geometric mean, t on logs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellIntervals {
    pub rps: crate::Interval,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<crate::Interval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us_per_req: Option<crate::Interval>,
    /// Rounds whose slice counted, and rounds whose slice was contended.
    pub rounds: u32,
    #[serde(default)]
    pub contended_rounds: u32,
}

/// How the repeats of a cell spread within one server process and between processes: one
/// process's repeats share its JIT, heap layout and placement luck, so their CV alone misses the
/// variance a fresh start brings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RestartSpread {
    /// Server processes the repeats were split over.
    pub processes: u32,
    /// The mean CV of the rate among the repeats of one process (processes with two or more
    /// repeats; 0 when none has).
    pub within_cv: f64,
    /// The CV of the per-process median rates.
    pub between_cv: f64,
    /// Each process's median rate, in start order.
    pub process_medians: Vec<f64>,
}

impl RestartSpread {
    /// The spread of `rates` (one per repeat) whose repeat `i` ran in process `process[i]`;
    /// `None` with fewer than two processes or mismatched lengths.
    pub fn of(rates: &[f64], process: &[u32]) -> Option<Self> {
        if rates.len() != process.len() {
            return None;
        }
        let mut ids: Vec<u32> = process.to_vec();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() < 2 {
            return None;
        }
        let groups: Vec<Vec<f64>> = ids
            .iter()
            .map(|id| {
                rates
                    .iter()
                    .zip(process)
                    .filter(|(_, p)| *p == id)
                    .map(|(r, _)| *r)
                    .collect()
            })
            .collect();
        let within: Vec<f64> = groups
            .iter()
            .filter(|g| g.len() >= 2)
            .map(|g| sample_cv(g))
            .collect();
        let process_medians: Vec<f64> = groups.iter().map(|g| median(g)).collect();
        Some(Self {
            processes: ids.len() as u32,
            within_cv: if within.is_empty() {
                0.0
            } else {
                within.iter().sum::<f64>() / within.len() as f64
            },
            between_cv: sample_cv(&process_medians),
            process_medians,
        })
    }
}

/// Median (mean of the middle two for even sizes); 0 when empty.
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// Sample standard deviation over mean, as the cell's own `rps.cv`; 0 with fewer than two values.
fn sample_cv(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    if m == 0.0 {
        return 0.0;
    }
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
    var.sqrt() / m
}

/// Who a cell measured, as the subject's manifest names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellSubject {
    pub id: String,
    pub language: String,
    pub framework: String,
    pub framework_version: String,
}

impl CellSubject {
    /// A subject known only by its id (tests, synthetic cells).
    pub fn named(id: &str) -> Self {
        Self {
            id: id.into(),
            ..Self::default()
        }
    }
}

impl Cell {
    /// A measured-to-be cell with no figures yet: status `ok`, every figure zero, no findings,
    /// flags, settings or repeats. The one constructor, so a new field needs one default here.
    pub fn new(subject: &CellSubject, workload: Workload, scenario: Scenario) -> Self {
        Self {
            subject: subject.id.clone(),
            language: subject.language.clone(),
            framework: subject.framework.clone(),
            framework_version: subject.framework_version.clone(),
            workload: workload.name().into(),
            scenario: scenario.name().into(),
            status: CellStatus::Ok,
            reason: None,
            rps: RpsStats::default(),
            latency_us: LatencySummary::default(),
            errors: ErrorCounts::default(),
            requests: 0,
            bytes_per_s: 0.0,
            server: ServerUsage::default(),
            loadgen: LoadgenUsage::default(),
            findings: Vec::new(),
            flags: Vec::new(),
            settings: BTreeMap::new(),
            repeats: Vec::new(),
            histogram: None,
            placement: CellPlacement::default(),
            warmup_s: 0.0,
            capacity: None,
            at_rate: Vec::new(),
            generators: Vec::new(),
            protocol: crate::vocabulary::protocol::default_protocol(),
            restarts: None,
            intervals: None,
            profile: None,
            in_flight_at_end: None,
            connections: None,
            bytes_per_answer: None,
        }
    }

    /// The same cell, failed or skipped for `reason`.
    pub fn with_status(mut self, status: CellStatus, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        self.status = status;
        self.reason = (!reason.is_empty()).then_some(reason);
        self
    }

    /// Adds a flag (once).
    pub fn raise(&mut self, flag: Flag) {
        if !self.has_flag(flag) {
            self.flags.push(flag.name().into());
        }
    }

    pub fn has_flag(&self, flag: Flag) -> bool {
        self.flags.iter().any(|f| f == flag.name())
    }

    /// The flags this version knows, in the order raised (unknown names are left out).
    pub fn known_flags(&self) -> Vec<Flag> {
        self.flags.iter().filter_map(|f| Flag::parse(f)).collect()
    }
}

/// The CPUs and limits of one cell, stated beside its figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CellPlacement {
    /// `cgroup-v2`, `cgroup-v1` or `affinity-only`.
    pub backend: String,
    pub loadgen_cpus: Vec<u32>,
    pub server_cpus: Vec<u32>,
    /// The CPU quota enforced on the server (cores), if any.
    pub cpu_quota_cores: Option<f64>,
    /// The CPU the scenario allows the server (cores); more is flagged `limit_not_held`.
    pub allowed_cores: f64,
    /// How the scenario was enforced, in a sentence.
    pub enforcement: String,
    /// The CPUs of the PostgreSQL cluster the run started (users workload); empty with an
    /// external `--database-url` or without a database.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub db_cpus: Vec<u32>,
    /// Where the database ran, in a few words (`CPU 0, the generator's`, `external`); empty
    /// without a database.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub database: String,
    /// The host that ran the server (`--server-host user@host[:port]`); empty when it ran on
    /// this machine (and in documents from before remote servers).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub server_host: String,
    /// The memory limit the server's cgroup enforced (bytes; `memory.max`, or
    /// `memory.limit_in_bytes` on cgroup v1), when the scenario or `--memory-limit` asked for
    /// one and the backend could set it. One asked for and not enforced is said in
    /// `enforcement`, and absent here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit_bytes: Option<u64>,
}

/// Requests per second over the repeats.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RpsStats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Coefficient of variation (stdev / mean), 0 with one repeat.
    pub cv: f64,
    /// 95 % bootstrap confidence interval of the median, when there are at least 3 repeats.
    pub ci95: Option<[f64; 2]>,
}

/// One repeat of a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatResult {
    pub rps: f64,
    pub requests: u64,
    pub duration_s: f64,
    pub latency_us: LatencySummary,
    pub errors: ErrorCounts,
    pub server_cpu_cores: f64,
    pub loadgen_cpu_cores: f64,
    /// The repeat second by second (rate, errors, p50/p99), for charts over time. Empty in
    /// documents written before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeseries: Vec<SecondSample>,
    /// The round of the group this repeat was measured in (from 0); absent before rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u32>,
    /// What limited this slice; a `contended` slice does not count in the figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturation: Option<crate::Saturation>,
}

/// What the server used while it was measured (its whole process tree).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerUsage {
    /// Average CPU cores busy.
    pub cpu_cores: f64,
    /// Server CPU microseconds per answered request.
    pub cpu_us_per_req: f64,
    pub rss_peak_bytes: u64,
    pub rss_mean_bytes: u64,
    /// The CPU cap the scenario enforced (cores), if any.
    pub cpu_limit_cores: Option<f64>,
    /// Where `cpu_cores` came from: `cgroup` (the whole tree, cluster workers included) or `proc`
    /// (the process group, from /proc).
    #[serde(default)]
    pub cpu_source: UsageSource,
    /// CPU of the process group from /proc, as a cross-check of the cgroup's figure.
    #[serde(default)]
    pub proc_cpu_cores: Option<f64>,
    /// Memory charged to the server's cgroup, without inactive file cache (as `docker stats`).
    #[serde(default)]
    pub cgroup_memory_peak_bytes: Option<u64>,
    #[serde(default)]
    pub cgroup_memory_mean_bytes: Option<u64>,
}

/// Which accounting a usage figure came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageSource {
    Cgroup,
    #[default]
    Proc,
}

/// What the load generator used, and whether it was the limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadgenUsage {
    pub cpu_cores: f64,
    pub cpu_us_per_req: f64,
    pub client_bound: bool,
}

/// How serious a verification finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FindingLevel {
    Pass,
    Warn,
    Fail,
}

/// One check of the workload contract and its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub level: FindingLevel,
    /// Short name of the check (`body`, `content-type`, `unknown-path`, …).
    pub check: String,
    pub message: String,
}

impl Finding {
    pub fn pass(check: &str, message: impl Into<String>) -> Self {
        Self {
            level: FindingLevel::Pass,
            check: check.into(),
            message: message.into(),
        }
    }
    pub fn warn(check: &str, message: impl Into<String>) -> Self {
        Self {
            level: FindingLevel::Warn,
            check: check.into(),
            message: message.into(),
        }
    }
    pub fn fail(check: &str, message: impl Into<String>) -> Self {
        Self {
            level: FindingLevel::Fail,
            check: check.into(),
            message: message.into(),
        }
    }
}

/// How far the generator's ceiling may drift between the start and the end of a run before the
/// run counts as made on a noisy machine.
pub const CEILING_DRIFT_LIMIT: f64 = 0.10;

/// A sentence when the ceiling drifted beyond [`CEILING_DRIFT_LIMIT`] between `start` and `end`.
pub fn ceiling_drift(start: f64, end: f64) -> Option<String> {
    if start <= 0.0 || end <= 0.0 {
        return None;
    }
    let drift = (end - start).abs() / start;
    (drift > CEILING_DRIFT_LIMIT).then(|| {
        format!(
            "the generator's ceiling moved {:.0} % during the run ({start:.0} req/s at the start, \
             {end:.0} at the end): the machine's speed changed under the figures",
            drift * 100.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interrupted_is_a_status_of_its_own_and_old_statuses_read() {
        for (status, name) in [
            (CellStatus::Ok, "\"ok\""),
            (CellStatus::Failed, "\"failed\""),
            (CellStatus::Skipped, "\"skipped\""),
            (CellStatus::Interrupted, "\"interrupted\""),
        ] {
            assert_eq!(serde_json::to_string(&status).unwrap(), name);
            assert_eq!(serde_json::from_str::<CellStatus>(name).unwrap(), status);
        }
    }

    #[test]
    fn the_server_host_is_kept_and_old_placements_read() {
        let old = r#"{"backend":"cgroup-v2","loadgen_cpus":[0],"server_cpus":[1],
            "cpu_quota_cores":null,"allowed_cores":1.0,"enforcement":"x"}"#;
        let p: CellPlacement = serde_json::from_str(old).unwrap();
        assert_eq!(p.server_host, "");
        assert!(!serde_json::to_string(&p).unwrap().contains("server_host"));
        let remote = CellPlacement {
            server_host: "bench@10.0.0.2".into(),
            ..p
        };
        let back: CellPlacement =
            serde_json::from_str(&serde_json::to_string(&remote).unwrap()).unwrap();
        assert_eq!(back.server_host, "bench@10.0.0.2");
    }

    #[test]
    fn a_new_cell_writes_the_names_of_its_vocabulary() {
        let subject = CellSubject {
            id: "demo".into(),
            language: "rust".into(),
            framework: "hyper".into(),
            framework_version: "1".into(),
        };
        let mut cell = Cell::new(&subject, Workload::Echo, Scenario::OneCpu);
        cell.raise(Flag::ClientBound);
        cell.raise(Flag::ClientBound);
        let json = serde_json::to_value(&cell).unwrap();
        assert_eq!(json["workload"], "echo");
        assert_eq!(json["scenario"], "one-cpu");
        assert_eq!(json["status"], "ok");
        assert_eq!(json["flags"], serde_json::json!(["client_bound"]));
        assert!(json["reason"].is_null());
        let failed = cell.clone().with_status(CellStatus::Failed, "it broke");
        assert_eq!(failed.reason.as_deref(), Some("it broke"));
        // A flag a later version added still reads; it is just not known here.
        let mut future = json.clone();
        future["flags"] = serde_json::json!(["client_bound", "from_the_future"]);
        let back: Cell = serde_json::from_value(future).unwrap();
        assert_eq!(back.known_flags(), vec![Flag::ClientBound]);
        assert!(back.has_flag(Flag::ClientBound) && !back.has_flag(Flag::Noisy));
    }

    #[test]
    fn restart_spread_separates_within_from_between_process_variance() {
        // Two processes, steady inside, far apart: the between-process CV shows what the
        // within-process one cannot.
        let rates = [82_000.0, 83_000.0, 120_000.0, 121_000.0];
        let s = RestartSpread::of(&rates, &[0, 0, 1, 1]).unwrap();
        assert_eq!(s.processes, 2);
        assert_eq!(s.process_medians, vec![82_500.0, 120_500.0]);
        assert!(s.within_cv < 0.01, "{}", s.within_cv);
        assert!(s.between_cv > 0.2, "{}", s.between_cv);
        // One repeat per process: nothing within, all between.
        let s = RestartSpread::of(&[100.0, 100.0, 100.0], &[0, 1, 2]).unwrap();
        assert_eq!((s.processes, s.within_cv, s.between_cv), (3, 0.0, 0.0));
        assert!(
            RestartSpread::of(&[1.0, 2.0], &[0, 0]).is_none(),
            "one process"
        );
        assert!(RestartSpread::of(&[1.0, 2.0], &[0]).is_none(), "mismatched");
        // Serialized only when present, read back from documents without it.
        let mut cell = Cell::new(&CellSubject::named("x"), Workload::Echo, Scenario::OneCpu);
        let json = serde_json::to_value(&cell).unwrap();
        assert!(json.get("restarts").is_none());
        assert!(json["placement"].get("db_cpus").is_none());
        cell.restarts = RestartSpread::of(&rates, &[0, 0, 1, 1]);
        cell.placement.db_cpus = vec![0];
        let back: Cell = serde_json::from_value(serde_json::to_value(&cell).unwrap()).unwrap();
        assert_eq!(back, cell);
    }

    #[test]
    fn a_ceiling_that_drifts_beyond_ten_percent_marks_a_noisy_machine() {
        assert!(ceiling_drift(100_000.0, 95_000.0).is_none());
        assert!(ceiling_drift(100_000.0, 109_000.0).is_none());
        let why = ceiling_drift(82_000.0, 123_000.0).unwrap();
        assert!(why.contains("50 %"), "{why}");
        assert!(ceiling_drift(100_000.0, 80_000.0).is_some());
        assert!(
            ceiling_drift(0.0, 80_000.0).is_none(),
            "no calibration, no verdict"
        );
    }
}
