//! Planning a seed study's run from its published figures (`restbench_model::documents::published`): the
//! cells every figure needs, the Rust contenders beside them, and the seed's load shape; and
//! `study tfb`'s: every subject that declares a TechEmpower workload, over TFB's seven test types
//! (`restbench_model::documents::tfb`), in the `all-cores` scenario, with TFB's load.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use restbench_loadgen::{HttpVersion, StopAt};
use restbench_model::documents::published::{PublishedStudy, TFB_STUDY_ID, published_study};
use restbench_model::documents::tfb::TfbTest;
use restbench_model::vocabulary::cpus::format_cpu_list;
use restbench_model::{Protocol, Scenario, StudyInfo, UnknownName, Workload};

use super::request::{
    ConformanceStep, DatabaseRequest, Length, Machine, OpenLoopRequest, RemoteRequest,
};
use super::resolve::{self, Parts, PlanError, Resolved, Site, assemble, place};
use crate::runner::{LoadShape, RunEntry, RunPlan};
use restbench_host::placement::Placement;
use restbench_subject::Subject;

/// A run of one or more seed studies, asked for by `restbench study`.
pub struct StudyRequest {
    pub length: Length,
    /// Only these subjects of each study (all of the study's when empty).
    pub only: Vec<String>,
    /// Every subject of the subjects folder.
    pub subjects: Vec<Subject>,
    pub protocols: Vec<Protocol>,
    /// `--duration`: the measuring time of the timed studies (a, d, tfb); the counted ones keep theirs.
    pub duration: Option<Duration>,
    pub repeats: Option<u32>,
    pub restarts: Option<u32>,
    pub rounds: super::request::RoundsRequest,
    pub machine: Machine,
    /// The pool is [`resolve::DEFAULT_DB_POOL`], seed 003's.
    pub database: DatabaseRequest,
    pub open_loop: OpenLoopRequest,
    pub remote: Option<Arc<RemoteRequest>>,
    /// The build cache (`prepare::cache_dir` of the subjects folder).
    pub cache: PathBuf,
    pub conformance: ConformanceStep,
    /// `--profile`: a profiling slice after each cell's repeats.
    pub profile: bool,
}

/// One study planned: the published figures it is set against, the subjects it names that the
/// subjects folder lacks, and the plan (`None`: no cell to run).
pub struct StudyRun {
    /// The seed study's published figures; `None` for `study tfb`, whose figures are Round 23's.
    pub study: Option<PublishedStudy>,
    /// The study's title and what it re-runs (`seed 000`, `TFB Round 23`), for the terminal.
    pub title: String,
    pub seed: String,
    pub missing: Vec<String>,
    pub resolved: Option<Resolved>,
}

impl StudyRequest {
    /// The load shape study `id` runs with on `site`, and how it differs from the seed's: the
    /// one computation behind both the check before any study starts and the run itself.
    pub fn shape(&self, id: &str, site: &Site) -> (LoadShape, String) {
        let (mut shape, shortening) = study_shape(id, self.length, site.placement.loadgen.len());
        if let Some(d) = self.duration
            && let StopAt::Duration(_) = shape.stop
        {
            shape.stop = StopAt::Duration(d);
        }
        (shape, shortening)
    }

    /// Refuses study `id`'s shape as the load engine would, before anything is built.
    pub fn check(&self, id: &str, site: &Site) -> Result<(), PlanError> {
        self.shape(id, site).0.check().map_err(PlanError::from_load)
    }

    /// Plans study `id` into `out_dir`: its cells, shape, repeats, then its database.
    pub fn resolve(&self, id: &str, site: &Site, out_dir: PathBuf) -> Result<StudyRun, PlanError> {
        if id == TFB_STUDY_ID {
            let (entries, missing) = tfb_entries(&self.subjects, &self.only, self.length);
            let workloads = TfbTest::SITE_ORDER.map(TfbTest::workload).to_vec();
            return self.plan(id, site, out_dir, entries, workloads, missing, None);
        }
        let study = published_study(id)
            .ok_or_else(|| PlanError::BadArgument(format!("unknown study {id:?}")))?;
        let (entries, missing) = study_entries(&study, &self.subjects, &self.only);
        let workload: Workload =
            study
                .workload
                .parse()
                .map_err(|source: UnknownName| PlanError::StudyWorkload {
                    id: id.to_string(),
                    source,
                })?;
        self.plan(
            id,
            site,
            out_dir,
            entries,
            vec![workload],
            missing,
            Some(study),
        )
    }

    /// `study tfb`'s plan before its database and placement are settled: its cells, shape,
    /// repeats and rounds, as `resolve` runs it (nothing built, started or connected).
    pub fn tfb_plan(&self, site: &Site, out_dir: PathBuf) -> Result<RunPlan, PlanError> {
        let (entries, _) = tfb_entries(&self.subjects, &self.only, self.length);
        let workloads = TfbTest::SITE_ORDER.map(TfbTest::workload).to_vec();
        Ok(self
            .assembled(TFB_STUDY_ID, site, out_dir, entries, workloads)?
            .0)
    }

    /// A study's plan from its chosen cells: shape, repeats, rounds; its database not yet
    /// placed. Also the sentence on its shortening and its repeats, for `study_info`.
    fn assembled(
        &self,
        id: &str,
        site: &Site,
        out_dir: PathBuf,
        entries: Vec<RunEntry>,
        workloads: Vec<Workload>,
    ) -> Result<(RunPlan, String, u32), PlanError> {
        let (shape, shortening) = self.shape(id, site);
        let tfb_quick = id == TFB_STUDY_ID && self.length.is_quick();
        let repeats = match (self.repeats, tfb_quick) {
            (None, true) => TFB_QUICK_REPEATS,
            (given, _) => resolve::repeats(given, self.length),
        };
        let open_loop = resolve::open_loop(&self.open_loop, self.length)?;
        let mut asked = self.rounds;
        if tfb_quick && asked.max_rounds.is_none() {
            asked.max_rounds = Some(repeats + 2);
        }
        let mut rounds = resolve::rounds(&asked, self.length, repeats, &open_loop)?;
        let method_note = resolve::duets_here(&mut rounds, self.remote.as_deref());
        let parts = Parts {
            kind: format!("study {id}"),
            entries,
            workloads,
            protocols: self.protocols.clone(),
            shape,
            repeats,
            restarts: resolve::restarts(self.restarts, self.length, repeats),
            out_dir,
            cache: self.cache.clone(),
            note: method_note,
            study: study_info(id, self.length, &shortening, &site.placement, repeats),
            open_loop,
            rounds,
            db_pool: self.database.pool,
            conformance: self.conformance,
        };
        let mut plan = assemble(parts, site.clone(), self.remote.as_deref());
        plan.profile = resolve::profile_slice(self.profile, self.length);
        Ok((plan, shortening, repeats))
    }

    /// The plan of a study whose cells are chosen, then its database.
    #[allow(clippy::too_many_arguments)]
    fn plan(
        &self,
        id: &str,
        site: &Site,
        out_dir: PathBuf,
        entries: Vec<RunEntry>,
        workloads: Vec<Workload>,
        missing: Vec<String>,
        study: Option<PublishedStudy>,
    ) -> Result<StudyRun, PlanError> {
        let (plan, shortening, repeats) = self.assembled(id, site, out_dir, entries, workloads)?;
        let (title, seed) = plan
            .study
            .as_ref()
            .map(|i| match study {
                Some(_) => (i.title.clone(), format!("seed {}", i.seed)),
                None => (i.title.clone(), i.seed.clone()),
            })
            .unwrap_or_default();
        if plan.cells() == 0 {
            return Ok(StudyRun {
                study,
                title,
                seed,
                missing,
                resolved: None,
            });
        }
        let remote = self.remote.as_ref();
        let mut resolved = place(
            plan,
            &self.machine,
            &self.database,
            remote,
            true,
            self.length,
        )?;
        if resolved.plan.placement != site.placement {
            let placement = &resolved.plan.placement;
            resolved.plan.study = study_info(id, self.length, &shortening, placement, repeats);
        }
        Ok(StudyRun {
            study,
            title,
            seed,
            missing,
            resolved: Some(resolved),
        })
    }
}

/// The scenario `study tfb` runs in: TFB ran every framework in its production configuration, a
/// worker per core of its 56-core server, which is restbench's `all-cores` (a worker per core
/// the server is given, one core on a two-core machine).
pub const TFB_SCENARIO: Scenario = Scenario::AllCores;

/// The cells of `study tfb`: every subject that declares at least one of TFB's own six workloads
/// (plaintext alone does not count: every subject serves it, for the seeds), over the seven types
/// it declares, in the subjects folder's order, in
/// [`TFB_SCENARIO`]. `--quick` keeps the subjects the comparison is about: those Round 23
/// published a figure for, and the reference (the machine's ceiling). `only` names the subjects
/// wanted (at any length); one it names that does not exist, or that declares no TFB workload,
/// is returned as missing.
pub fn tfb_entries(
    subjects: &[Subject],
    only: &[String],
    length: Length,
) -> (Vec<RunEntry>, Vec<String>) {
    let declares_tfb = |s: &Subject| s.workloads.iter().any(|w| w.is_tfb());
    let round23 = restbench_model::documents::tfb::round23().ok();
    let compared = |s: &Subject| {
        s.framework == REFERENCE_FRAMEWORK
            || round23
                .as_ref()
                .and_then(|r| r.subject(&s.id))
                .is_some_and(|r| !r.figures.is_empty())
    };
    let wanted = |s: &Subject| match only.is_empty() {
        false => only.contains(&s.id),
        true => !length.is_quick() || compared(s),
    };
    let entries: Vec<RunEntry> = subjects
        .iter()
        .filter(|s| declares_tfb(s) && wanted(s))
        .map(|s| RunEntry {
            subject: s.clone(),
            scenarios: vec![TFB_SCENARIO],
        })
        .collect();
    let missing = only
        .iter()
        .filter(|o| !entries.iter().any(|e| &e.subject.id == *o))
        .cloned()
        .collect();
    (entries, missing)
}

/// `study tfb --quick`'s rounds: 2 alone and 3 beside the reference, one more at most for a
/// contended cell, so that its 79 cells in seven groups take under half an hour here (25 minutes
/// measured; three and four, with two more, took about 40).
const TFB_QUICK_REPEATS: u32 = 2;

/// The `framework` of the subject that shows the machine's ceiling (`rust-reference`).
const REFERENCE_FRAMEWORK: &str = "reference";

/// A plan's cells as `(subject, workload label, scenario)`, in the order of its entries and
/// workloads, labelled as the runner labels them (`plaintext-pipelined-16` under a pipelined
/// shape): what [`StudyRequest::tfb_plan`] will measure, without starting anything.
pub fn planned_cell_labels(plan: &RunPlan) -> Vec<(String, String, Scenario)> {
    let mut out = Vec::new();
    for e in &plan.entries {
        for (workload, _) in plan.cells_of(&e.subject) {
            for scenario in &e.scenarios {
                out.push((
                    e.subject.id.clone(),
                    workload.cell_label(plan.shape.pipeline),
                    *scenario,
                ));
            }
        }
    }
    out
}

/// A subject × scenario (× settings) a study run needs so that every figure has a measured
/// counterpart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedCell {
    pub subject: String,
    pub scenario: Scenario,
    /// Extra environment for this cell (placeholders allowed), empty for the scenario's own.
    pub settings: BTreeMap<String, String>,
    pub variant: Option<String>,
}

/// The cells a study run needs so that every figure has a measured counterpart, in the order of
/// the figures (a figure whose scenario this version does not know is left out).
pub fn planned_cells(study: &PublishedStudy) -> Vec<PlannedCell> {
    let mut out: Vec<PlannedCell> = Vec::new();
    for f in &study.figures {
        let Some(subject) = &f.subject else { continue };
        let Some(scenario) = Scenario::parse(&f.scenario) else {
            continue;
        };
        let cell = PlannedCell {
            subject: subject.clone(),
            scenario,
            settings: f.settings.clone(),
            variant: f.variant.clone(),
        };
        if !out.iter().any(|c| {
            c.subject == cell.subject && c.scenario == cell.scenario && c.settings == cell.settings
        }) {
            out.push(cell);
        }
    }
    out
}

/// The scenarios a study's figures use, in report order.
pub fn study_scenarios(study: &PublishedStudy) -> Vec<Scenario> {
    Scenario::ALL
        .into_iter()
        .filter(|s| study.figures.iter().any(|f| f.scenario == s.name()))
        .collect()
}

/// What `results.json` records about a study run: how it differs from the seed, where the
/// generator and server ran, how often each cell was repeated.
pub fn study_info(
    id: &str,
    length: Length,
    shortening: &str,
    placement: &Placement,
    repeats: u32,
) -> Option<StudyInfo> {
    StudyInfo::new(
        id,
        length != Length::Faithful,
        format!(
            "{shortening} restbench's generator on CPU {} and the server on CPU {}; {repeats} repeat(s) per cell.",
            format_cpu_list(&placement.loadgen),
            format_cpu_list(&placement.server),
        ),
    )
}

/// The concurrency of `study tfb`: TFB's highest level for json, db, fortunes, and the one it
/// ran queries, updates and cached-queries at.
pub const TFB_CONNECTIONS: u32 = 512;

/// `study tfb --quick`'s concurrency: at 512 connections a 20-query request's wave takes over a
/// second on one core, so a slice short enough for a first look would hold one or two of them
/// (see `MIN_WAVES` in the runner); 64 keeps eight waves within a few seconds.
pub const TFB_QUICK_CONNECTIONS: u32 = 64;

/// The contenders restbench adds to every study.
const RUST_CONTENDERS: [&str; 4] = ["rust-hyper", "rust-axum", "rust-actix", "rust-reference"];

/// The load shape of a study, and a sentence on how it differs from the seed's.
pub fn study_shape(id: &str, length: Length, loadgen_cpus: usize) -> (LoadShape, String) {
    use Length::*;
    let secs = |f: u64, d: u64, q: u64| {
        Duration::from_secs(match length {
            Faithful => f,
            Default => d,
            Quick => q,
        })
    };
    let warmup = secs(3, 3, 1);
    let warmup_max = secs(30, 30, 8);
    match id {
        TFB_STUDY_ID => (
            LoadShape {
                connections: match length {
                    Quick => TFB_QUICK_CONNECTIONS,
                    _ => TFB_CONNECTIONS,
                },
                threads: 8.max(loadgen_cpus as u32),
                stop: StopAt::Duration(secs(15, 15, 1)),
                warmup,
                warmup_max,
                pipeline: restbench_model::TFB_PIPELINE,
                ..LoadShape::default()
            },
            format!(
                "{} per repeat at concurrency {}; plaintext pipelined {} deep as TFB's pipeline.lua, the other types one request at a time; queries and updates {} rows per request, cached-queries {}; in the all-cores scenario.",
                match length {
                    Quick =>
                        "1 s, stretched to hold 8 closed-loop waves up to 10 s (--quick; TFB's sample was 15 s),",
                    _ => "15 s (TFB's sample)",
                },
                match length {
                    Quick => format!(
                        "{TFB_QUICK_CONNECTIONS} (--quick: TFB ran {TFB_CONNECTIONS}, but at {TFB_CONNECTIONS} a 20-query request's wave takes over a second on one core)"
                    ),
                    _ => format!(
                        "{TFB_CONNECTIONS}, TFB's highest level but for plaintext (TFB's best of 256 to 16,384 connections)"
                    ),
                },
                restbench_model::TFB_PIPELINE,
                restbench_model::TFB_QUERIES,
                restbench_model::TFB_CACHED_COUNT,
            ) + match length {
                Quick => {
                    " --quick measures the subjects Round 23 published a figure for, and the reference, in 2 rounds alone and 3 beside the reference (one more for a contended cell); name others with --subjects, or leave out --quick for every subject that declares a type."
                }
                _ => "",
            },
        ),
        "a" => (
            LoadShape {
                connections: 10,
                threads: 2,
                stop: StopAt::Duration(secs(20, 10, 2)),
                warmup,
                warmup_max,
                ..LoadShape::default()
            },
            match length {
                Faithful => "20 s per repeat as the seed (wrk -d 20s -t2 -c10).".into(),
                Default => "10 s per repeat instead of the seed's 20 s.".into(),
                Quick => "2 s per repeat instead of the seed's 20 s (--quick).".into(),
            },
        ),
        "b" => {
            let (warm, measure) = match length {
                Faithful => (100_000, 100_000),
                Default => (20_000, 100_000),
                Quick => (5_000, 20_000),
            };
            (
                LoadShape {
                    connections: 32,
                    threads: 4,
                    stop: StopAt::Requests(measure),
                    warmup: Duration::ZERO,
                    warmup_requests: Some(warm),
                    ..LoadShape::default()
                },
                if length == Faithful {
                    "100,000 warm-up requests on 1 connection, then 100,000 on 32 connections with 4 threads, as the seed.".into()
                } else {
                    format!(
                        "{warm} warm-up requests on 1 connection (seed: 100,000), then {measure} on 32 connections with 4 threads (seed: 100,000)."
                    )
                },
            )
        }
        "c" => {
            let requests = if length == Quick { 2_000 } else { 10_000 };
            (
                LoadShape {
                    connections: 128,
                    threads: 1,
                    stop: StopAt::Requests(requests),
                    warmup: secs(5, 2, 1),
                    warmup_max,
                    keepalive: false,
                    http_version: HttpVersion::Http10,
                    timeout: Duration::from_secs(30),
                    ..LoadShape::default()
                },
                if length == Quick {
                    "2,000 requests at concurrency 128 (seed: 10,000), one connection per request as ab; a time warm-up instead of ab's four earlier runs.".into()
                } else {
                    "10,000 requests at concurrency 128, one connection per request as ab; a time warm-up instead of ab's four earlier runs.".into()
                },
            )
        }
        _ => (
            LoadShape {
                connections: 512,
                threads: 8.max(loadgen_cpus as u32),
                stop: StopAt::Duration(secs(600, 15, 3)),
                warmup,
                warmup_max,
                timeout: Duration::from_secs(60),
                ..LoadShape::default()
            },
            match length {
                Faithful => {
                    "10 min per repeat as the seed (wrk -t8 -c512 -d10m --timeout 1m).".into()
                }
                Default => "15 s per repeat instead of the seed's 10 min.".into(),
                Quick => "3 s per repeat instead of the seed's 10 min (--quick).".into(),
            },
        ),
    }
}

/// The cells of a study: every published figure that maps to a subject, then the Rust
/// contenders in each of the study's scenarios.
pub fn study_entries(
    study: &PublishedStudy,
    subjects: &[Subject],
    only: &[String],
) -> (Vec<RunEntry>, Vec<String>) {
    let wanted = |id: &str| only.is_empty() || only.iter().any(|o| o == id);
    let mut entries: Vec<RunEntry> = Vec::new();
    let mut missing = Vec::new();
    for cell in planned_cells(study) {
        if !wanted(&cell.subject) {
            continue;
        }
        let Some(subject) = subjects.iter().find(|s| s.id == cell.subject) else {
            missing.push(cell.subject.clone());
            continue;
        };
        // Consecutive scenarios of one subject without extra settings share an entry.
        if cell.settings.is_empty()
            && let Some(last) = entries.last_mut()
            && last.subject.id == subject.id
            && !last.scenarios.contains(&cell.scenario)
            && last.subject.scenarios == subject.scenarios
        {
            last.scenarios.push(cell.scenario);
            continue;
        }
        entries.push(RunEntry::with_settings(
            subject.clone(),
            cell.scenario,
            &cell.settings,
        ));
    }
    for id in RUST_CONTENDERS {
        if !wanted(id) || entries.iter().any(|e| e.subject.id == id) {
            continue;
        }
        match subjects.iter().find(|s| s.id == id) {
            Some(s) => entries.push(RunEntry {
                subject: s.clone(),
                scenarios: study_scenarios(study),
            }),
            None => missing.push(id.to_string()),
        }
    }
    (entries, missing)
}

#[cfg(test)]
mod tests {
    use restbench_model::documents::published::published_study;

    use super::*;

    fn subjects() -> Vec<Subject> {
        let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
        restbench_subject::discover(&root).unwrap()
    }

    #[test]
    fn study_a_runs_go_twice_under_one_cpu_and_adds_the_contenders() {
        let a = published_study("a").unwrap();
        let (entries, missing) = study_entries(&a, &subjects(), &[]);
        assert!(missing.is_empty(), "{missing:?}");
        let go_one_cpu: Vec<&RunEntry> = entries
            .iter()
            .filter(|e| e.subject.id == "go-nethttp" && e.scenarios.contains(&Scenario::OneCpu))
            .collect();
        assert_eq!(go_one_cpu.len(), 2);
        let gomaxprocs: Vec<Option<&String>> = go_one_cpu
            .iter()
            .map(|e| e.subject.scenarios[&Scenario::OneCpu].env.get("GOMAXPROCS"))
            .collect();
        assert!(gomaxprocs.contains(&None) && gomaxprocs.contains(&Some(&"1".to_string())));
        for id in RUST_CONTENDERS {
            let e = entries.iter().find(|e| e.subject.id == id).unwrap();
            assert_eq!(e.scenarios, Scenario::ALL);
        }
        // Only what was asked for.
        let (only, _) = study_entries(&a, &subjects(), &["rust-hyper".into()]);
        assert_eq!(only.len(), 1);
    }

    #[test]
    fn planned_cells_tell_variants_apart() {
        let a = published_study("a").unwrap();
        let planned = planned_cells(&a);
        assert_eq!(
            planned
                .iter()
                .filter(|p| p.subject == "go-nethttp" && p.scenario == Scenario::OneCpu)
                .count(),
            2
        );
        assert_eq!(study_scenarios(&a), Scenario::ALL);
    }

    #[test]
    fn study_shapes_follow_the_seeds() {
        let (c, note) = study_shape("c", Length::Default, 1);
        assert_eq!((c.connections, c.keepalive), (128, false));
        assert_eq!(c.http_version, HttpVersion::Http10);
        assert!(matches!(c.stop, StopAt::Requests(10_000)), "{note}");
        let (b, _) = study_shape("b", Length::Faithful, 1);
        assert_eq!((b.connections, b.threads), (32, 4));
        assert_eq!(b.warmup_requests, Some(100_000));
        let (d, note) = study_shape("d", Length::Faithful, 1);
        assert_eq!((d.connections, d.threads), (512, 8));
        assert_eq!(d.timeout, Duration::from_secs(60));
        assert!(matches!(d.stop, StopAt::Duration(t) if t == Duration::from_secs(600)));
        assert!(note.contains("10 min"));
        let (a, note) = study_shape("a", Length::Quick, 1);
        assert_eq!((a.connections, a.threads), (10, 2));
        assert!(note.contains("--quick"));
    }

    #[test]
    fn study_tfb_plans_every_subject_that_declares_a_tfb_type_over_the_seven() {
        let (entries, missing) = tfb_entries(&subjects(), &[], Length::Default);
        assert!(missing.is_empty(), "{missing:?}");
        let ids: Vec<&str> = entries.iter().map(|e| e.subject.id.as_str()).collect();
        // Every subject of the catalogue serves at least one of TFB's own types now.
        assert_eq!(ids.len(), subjects().len(), "{ids:?}");
        // A subject declaring none of TFB's types (plaintext alone does not count) gets no entry.
        let mut bare = subjects()
            .into_iter()
            .find(|s| s.id == "java-jersey-grizzly")
            .unwrap();
        bare.id = "bare".into();
        bare.workloads = vec![Workload::Plaintext, Workload::Todo];
        let mut with_bare = subjects();
        with_bare.push(bare);
        let (all, _) = tfb_entries(&with_bare, &[], Length::Default);
        assert!(all.iter().all(|e| e.subject.id != "bare"));
        let request = StudyRequest {
            length: Length::Quick,
            only: Vec::new(),
            subjects: subjects(),
            protocols: vec![Protocol::H1],
            duration: None,
            repeats: None,
            restarts: None,
            rounds: Default::default(),
            machine: Default::default(),
            database: DatabaseRequest {
                url: None,
                pool: resolve::DEFAULT_DB_POOL,
            },
            open_loop: Default::default(),
            remote: None,
            cache: PathBuf::new(),
            conformance: ConformanceStep::Check,
            profile: false,
        };
        let site = Site {
            placement: Placement::split(&[0, 1]),
            backend: restbench_host::cgroup::Backend::affinity_only("test"),
        };
        let plan = request.tfb_plan(&site, PathBuf::new()).unwrap();
        assert_eq!(plan.kind, "study tfb");
        let rounds = plan.rounds.as_ref().unwrap();
        assert_eq!(
            (rounds.solo_rounds, rounds.min_rounds, rounds.max_rounds),
            (Some(2), 3, 4),
            "--quick: 2 rounds alone, 3 beside the reference, one more at most"
        );
        assert!(resolve::needs_database(&plan));
        let study = plan.study.as_ref().unwrap();
        assert!(
            study.shortened && study.note.contains("--quick"),
            "{study:?}"
        );
        let cells = planned_cell_labels(&plan);
        // --quick: the subjects Round 23 has a figure for, and the reference.
        let (quick, _) = tfb_entries(&subjects(), &[], Length::Quick);
        let quick_ids: Vec<&str> = quick.iter().map(|e| e.subject.id.as_str()).collect();
        let round23 = restbench_model::documents::tfb::round23().unwrap();
        for e in &entries {
            let figured = round23
                .subject(&e.subject.id)
                .is_some_and(|r| !r.figures.is_empty());
            assert_eq!(
                quick_ids.contains(&e.subject.id.as_str()),
                figured || e.subject.id == "rust-reference",
                "{}: {quick_ids:?}",
                e.subject.id
            );
        }
        assert!(quick_ids.contains(&"rust-reference") && quick_ids.contains(&"node-fastify"));
        assert!(!quick_ids.contains(&"java-light4j"), "{quick_ids:?}");
        // A cell for each type a subject declares, plaintext pipelined for every one of them.
        let declared: usize = quick
            .iter()
            .map(|e| {
                TfbTest::SITE_ORDER
                    .iter()
                    .filter(|t| e.subject.supports(t.workload()))
                    .count()
            })
            .sum();
        assert_eq!(cells.len(), declared, "{cells:?}");
        let of = |id: &str| -> Vec<String> {
            cells
                .iter()
                .filter(|c| c.0 == id)
                .map(|c| c.1.clone())
                .collect()
        };
        assert_eq!(
            of("rust-axum"),
            [
                "json",
                "db",
                "queries",
                "cached-queries",
                "fortunes",
                "updates",
                "plaintext-pipelined-16",
            ]
        );
        // dotnet-aspnetcore serves json alone of the types that need more than plaintext.
        assert_eq!(of("dotnet-aspnetcore"), ["json", "plaintext-pipelined-16"]);
        assert!(cells.iter().all(|c| c.2 == Scenario::AllCores));
        // Only the subjects asked for; one unknown or without TFB types is said to be missing.
        let (only, missing) = tfb_entries(
            &with_bare,
            &["rust-hyper".into(), "bare".into(), "nonesuch".into()],
            Length::Quick,
        );
        assert_eq!(only.len(), 1);
        assert_eq!(missing, ["bare", "nonesuch"]);
    }

    #[test]
    fn study_tfb_quick_loads_as_tfb_but_shorter_and_narrower() {
        let (quick, note) = study_shape(TFB_STUDY_ID, Length::Quick, 1);
        assert_eq!((quick.connections, quick.pipeline), (64, 16));
        assert!(note.contains("64 (--quick: TFB ran 512"), "{note}");
        assert!(matches!(quick.stop, StopAt::Duration(t) if t == Duration::from_secs(1)));
        assert!(
            note.contains("--quick") && note.contains("all-cores"),
            "{note}"
        );
        assert!(note.contains("20 rows"), "{note}");
        let (full, note) = study_shape(TFB_STUDY_ID, Length::Default, 1);
        assert!(matches!(full.stop, StopAt::Duration(t) if t == Duration::from_secs(15)));
        assert_eq!(full.connections, 512, "{note}");
        // Pipelining reaches plaintext alone: every other type stays one request at a time.
        for t in TfbTest::SITE_ORDER {
            let depth = t.workload().pipeline_under(quick.pipeline);
            assert_eq!(depth, if t == TfbTest::Plaintext { 16 } else { 1 }, "{t:?}");
        }
    }
}
