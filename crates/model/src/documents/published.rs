//! The four seed studies as data: what each measured, how, and the figures it published, mapped to
//! restbench's subject ids and scenarios. Data and lookups only; planning a study run from it is
//! the harness's job (`restbench_harness::planner::study`).
//!
//! Figures are copied exactly from the studies' public repositories (READMEs and result logs, at
//! the revisions named in each study's `source`; `docs/workloads.md` describes the studies);
//! every figure carries a `source`. Absolute numbers belong to the seed's machine: a report
//! compares *ratios* between systems, never req/s across machines.
//!
//! A run that reproduces a study stores a [`StudyInfo`] in `results.json`; the figures themselves
//! are looked up here by id when the report is rendered, so a correction here reaches old runs too.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The scenarios, in the order reports show them.
pub use crate::vocabulary::scenario::SCENARIO_ORDER;

/// The id of `study tfb`, whose figures are Round 23's (`documents::tfb`), not a seed's.
pub const TFB_STUDY_ID: &str = "tfb";

/// What `results.json` records about a study run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyInfo {
    /// `a`, `b`, `c` or `d`: the key of [`published_study`].
    pub id: String,
    pub title: String,
    /// The seed file number: `000`, `002`, `003`, `004`.
    pub seed: String,
    /// True when the run was shorter or smaller than the seed's own load (fewer requests, a shorter
    /// duration, fewer repeats …).
    pub shortened: bool,
    /// What differs from the seed, in a sentence or two ("20 s instead of 10 min per run").
    pub note: String,
}

impl StudyInfo {
    /// The info for a study id, with the title and seed filled in from [`published_study`].
    pub fn new(id: &str, shortened: bool, note: impl Into<String>) -> Option<Self> {
        if id == TFB_STUDY_ID {
            return Some(Self {
                id: TFB_STUDY_ID.into(),
                title: "TechEmpower's seven test types beside Round 23".into(),
                seed: "TFB Round 23".into(),
                shortened,
                note: note.into(),
            });
        }
        let s = published_study(id)?;
        Some(Self {
            id: s.id,
            title: s.title,
            seed: s.seed,
            shortened,
            note: note.into(),
        })
    }
}

/// Latency as the seed published it, in microseconds. Which fields are present depends on the
/// load generator: wrk gives avg/stdev/max (and p50–p99 with `--latency`), h2load min/max/mean/sd
/// of "time for request", ab nothing per request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PublishedLatency {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdev_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p75_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p90_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<f64>,
}

/// One published figure: one system in one setup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishedFigure {
    /// The system as the seed named it.
    pub system: String,
    /// The restbench subject standing for it; `None` when it cannot run here (see
    /// [`PublishedStudy::unavailable`]).
    pub subject: Option<String>,
    /// The restbench scenario closest to the seed's setup: `single-thread`, `one-cpu`, `all-cores`.
    pub scenario: String,
    /// A label for a variant measured twice in one scenario (`GOMAXPROCS=1`).
    pub variant: Option<String>,
    /// Environment a study run gives the subject for this figure, on top of the scenario's own;
    /// values may use the harness placeholders `{cores}` and `{machine_cores}`. A measured cell
    /// matches the figure when its `settings` contain these keys (with these values, unless the
    /// value is a placeholder).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
    /// Requests per second as published.
    pub rps: f64,
    pub latency: Option<PublishedLatency>,
    /// CPU and memory as the seed reported them (often read by eye from `top`).
    pub resources: Option<String>,
    /// Where the figure comes from.
    pub source: String,
    /// What a reader must know about this figure.
    pub note: Option<String>,
}

impl PublishedFigure {
    /// True when a measured cell's settings identify this figure's variant.
    pub fn settings_match(&self, cell_settings: &BTreeMap<String, String>) -> bool {
        self.settings
            .iter()
            .all(|(k, v)| match cell_settings.get(k) {
                None => false,
                Some(got) => v.contains('{') || got == v,
            })
    }

    /// How specific the figure's settings are: exact values count more than placeholders, so
    /// that `GOMAXPROCS=1` claims its cell before `GOMAXPROCS={machine_cores}` does.
    pub fn specificity(&self) -> usize {
        self.settings
            .values()
            .map(|v| if v.contains('{') { 1 } else { 2 })
            .sum()
    }
}

/// A system a seed measured that restbench cannot run here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnavailableSystem {
    pub system: String,
    pub reason: String,
}

/// One seed study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishedStudy {
    /// `a` … `d`.
    pub id: String,
    /// `000`, `002`, `003`, `004`.
    pub seed: String,
    pub title: String,
    /// The restbench workload: `echo`, `todo`, `users`, `plaintext`.
    pub workload: String,
    /// The seed's load, as it ran it.
    pub load_shape: String,
    /// The seed's machine and versions.
    pub machine: String,
    /// The subject ratios are taken against (the seed's first system).
    pub baseline: String,
    pub figures: Vec<PublishedFigure>,
    pub unavailable: Vec<UnavailableSystem>,
    pub notes: Vec<String>,
    /// The seed's public repository and revision.
    pub source: String,
}

impl PublishedStudy {
    /// The scenarios the figures use, in [`SCENARIO_ORDER`].
    pub fn scenarios(&self) -> Vec<String> {
        SCENARIO_ORDER
            .iter()
            .filter(|s| self.figures.iter().any(|f| f.scenario == **s))
            .map(|s| s.to_string())
            .collect()
    }

    /// The subjects with figures, in the order of the seed (baseline first), without repeats.
    pub fn subjects(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for f in &self.figures {
            if let Some(s) = &f.subject
                && !out.contains(s)
            {
                out.push(s.clone());
            }
        }
        out
    }

    /// Why a system cannot run here, if it cannot.
    pub fn unavailable_reason(&self, system: &str) -> Option<&str> {
        self.unavailable
            .iter()
            .find(|u| u.system == system)
            .map(|u| u.reason.as_str())
    }
}

/// Every seed study, `a` to `d`.
pub fn published_studies() -> Vec<PublishedStudy> {
    vec![study_a(), study_b(), study_c(), study_d()]
}

/// One study by id (`a` … `d`; the seed number `000`, `002`, `003`, `004` works too).
pub fn published_study(id: &str) -> Option<PublishedStudy> {
    let id = id.trim().to_ascii_lowercase();
    published_studies()
        .into_iter()
        .find(|s| s.id == id || s.seed == id)
}

// ---------------------------------------------------------------------------------------------
// The data.

const MS: f64 = 1_000.0;
const S: f64 = 1_000_000.0;

struct Fig {
    system: &'static str,
    subject: Option<&'static str>,
    scenario: &'static str,
    variant: Option<&'static str>,
    settings: &'static [(&'static str, &'static str)],
    rps: f64,
    latency: Option<PublishedLatency>,
    resources: Option<&'static str>,
    source: &'static str,
    note: Option<&'static str>,
}

impl Fig {
    fn new(
        system: &'static str,
        subject: Option<&'static str>,
        scenario: &'static str,
        rps: f64,
    ) -> Self {
        Self {
            system,
            subject,
            scenario,
            variant: None,
            settings: &[],
            rps,
            latency: None,
            resources: None,
            source: "",
            note: None,
        }
    }
    fn variant(
        mut self,
        label: &'static str,
        settings: &'static [(&'static str, &'static str)],
    ) -> Self {
        self.variant = Some(label);
        self.settings = settings;
        self
    }
    fn latency(mut self, l: PublishedLatency) -> Self {
        self.latency = Some(l);
        self
    }
    fn resources(mut self, r: &'static str) -> Self {
        self.resources = Some(r);
        self
    }
    fn source(mut self, s: &'static str) -> Self {
        self.source = s;
        self
    }
    fn note(mut self, n: &'static str) -> Self {
        self.note = Some(n);
        self
    }
    fn build(self) -> PublishedFigure {
        PublishedFigure {
            system: self.system.into(),
            subject: self.subject.map(String::from),
            scenario: self.scenario.into(),
            variant: self.variant.map(String::from),
            settings: self
                .settings
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            rps: self.rps,
            latency: self.latency,
            resources: self.resources.map(String::from),
            source: self.source.into(),
            note: self.note.map(String::from),
        }
    }
}

/// wrk's Thread Stats latency line: avg, stdev, max (µs).
fn wrk(mean: f64, stdev: f64, max: f64) -> PublishedLatency {
    PublishedLatency {
        mean_us: Some(mean),
        stdev_us: Some(stdev),
        max_us: Some(max),
        ..Default::default()
    }
}

/// wrk with `--latency`: avg, stdev, max and the 50/75/90/99 % distribution (µs).
fn wrk_dist(mean: f64, stdev: f64, max: f64, p: [f64; 4]) -> PublishedLatency {
    PublishedLatency {
        p50_us: Some(p[0]),
        p75_us: Some(p[1]),
        p90_us: Some(p[2]),
        p99_us: Some(p[3]),
        ..wrk(mean, stdev, max)
    }
}

/// h2load's "time for request": min, max, mean, sd (µs).
fn h2load(min: f64, max: f64, mean: f64, sd: f64) -> PublishedLatency {
    PublishedLatency {
        mean_us: Some(mean),
        stdev_us: Some(sd),
        min_us: Some(min),
        max_us: Some(max),
        ..Default::default()
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn study_a() -> PublishedStudy {
    const SRC: &str = "seed 000 (dotchev/rest-bench README at 44ee000), wrk output";
    let figures = vec![
        Fig::new("Node.js http (node server.js)", Some("node-http"), "single-thread", 12_618.86)
            .latency(wrk(793.29, 221.36, 11.96 * MS))
            .resources("~100% CPU, ~70 MB (read from top)")
            .source(SRC),
        Fig::new("Go net/http (GOMAXPROCS=1 go run server.go)", Some("go-nethttp"), "single-thread", 7_124.41)
            .variant("GOMAXPROCS=1", &[("GOMAXPROCS", "1")])
            .latency(wrk(1.40 * MS, 735.96, 7.03 * MS))
            .resources("~100% CPU, ~10 MB (read from top)")
            .source(SRC),
        Fig::new("Go net/http, `var body interface{}` (GOMAXPROCS=1)", Some("go-nethttp-dynamic"), "single-thread", 4_943.11)
            .variant("GOMAXPROCS=1", &[("GOMAXPROCS", "1")])
            .latency(wrk(2.03 * MS, 1.08 * MS, 22.77 * MS))
            .source(SRC)
            .note("unstructured decoding: the README's variant of server.go"),
        Fig::new("Node.js http (docker run --cpus=1)", Some("node-http"), "one-cpu", 9_078.68)
            .latency(wrk(1.31 * MS, 1.96 * MS, 59.60 * MS))
            .source(SRC),
        Fig::new("Go net/http (docker run --cpus=1, GOMAXPROCS 4 = NumCPU)", Some("go-nethttp"), "one-cpu", 579.77)
            .variant("GOMAXPROCS unset", &[])
            .latency(wrk(25.13 * MS, 25.78 * MS, 179.49 * MS))
            .source(SRC)
            .note("run as the seed ran it, GOMAXPROCS unset: Go 1.10 took the host's 4 CPUs and the quota throttled it; Go ≥ 1.25 reads the cgroup quota (never below 2, at most the CPUs it may use), so this row shows what today's Go does"),
        Fig::new("Go net/http (docker run --cpus=1 -e GOMAXPROCS=1)", Some("go-nethttp"), "one-cpu", 6_209.90)
            .variant("GOMAXPROCS=1", &[("GOMAXPROCS", "1")])
            .latency(wrk(1.69 * MS, 1.70 * MS, 58.44 * MS))
            .source(SRC),
        Fig::new("Node.js http cluster (CLUSTER=1, 4 workers)", Some("node-http"), "all-cores", 21_938.23)
            .latency(wrk(546.62, 0.97 * MS, 44.91 * MS))
            .resources("4 × ~90% CPU, 4 × ~55 MB (read from top)")
            .source(SRC),
        Fig::new("Go net/http (go run server.go, GOMAXPROCS 4)", Some("go-nethttp"), "all-cores", 12_740.96)
            .latency(wrk(1.09 * MS, 1.58 * MS, 26.92 * MS))
            .resources("~360% CPU, ~11 MB (read from top)")
            .source(SRC),
        Fig::new("Java Spring Boot 2.0.5 (java -jar)", Some("java-spring-boot"), "all-cores", 10_993.65)
            .latency(wrk(2.14 * MS, 4.56 * MS, 70.13 * MS))
            .resources("~360% CPU, ~450 MB (read from top)")
            .source(SRC)
            .note("Jackson writes \"type\":null for the 4 white entries (2,248 B vs Go's 2,200 B)"),
    ];
    PublishedStudy {
        id: "a".into(),
        seed: "000".into(),
        title: "Node.js vs Go vs Java: JSON echo".into(),
        workload: "echo".into(),
        load_shape: "wrk -d 20s -s post.lua (wrk defaults: 2 threads, 10 connections, keep-alive): POST of the 4,266-byte colors JSON, parsed and serialized back".into(),
        machine: "Intel Core i7-7500U (2 cores, 4 threads), 16 GB, Ubuntu 16.04; Node.js 10.1, Go 1.10, Java 11; wrk on the same machine".into(),
        baseline: "node-http".into(),
        figures: figures.into_iter().map(Fig::build).collect(),
        unavailable: Vec::new(),
        notes: strings(&[
            "Three setups: one thread (node vs GOMAXPROCS=1), one CPU (docker --cpus=1, here a cgroup quota of one CPU), and all cores (Node cluster, Go default, Spring Boot).",
            "The GOMAXPROCS=1 comparison was disputed as unfair to Go (dotchev/rest-bench#3): Node's libuv thread pool and Go's syscall threads are not limited by it.",
            "CPU and memory were read by eye from top; restbench measures the server's whole process tree.",
            "Go ≥ 1.25 sets GOMAXPROCS from the cgroup CPU limit (golang/go#73193), but never below 2 on its own; the 580 req/s row is run as the seed ran it, GOMAXPROCS unset, and shows what today's Go does. On a machine whose server CPU set is one CPU, unset and =1 are the same program.",
        ]),
        source: "dotchev/rest-bench at 44ee000 (2020-01-19): README.md, post.lua, server.js, server.go, java/".into(),
    }
}

fn study_b() -> PublishedStudy {
    let figures = vec![
        Fig::new("Java Jersey on embedded Grizzly (SameThreadIOStrategy)", Some("java-jersey-grizzly"), "all-cores", 19_293.63)
            .latency(h2load(89.0, 42.38 * MS, 1.55 * MS, 2.23 * MS))
            .source("seed 002 (muety/http-server-benchmarks), results/result_grizzly.log at fad8f93 (2017-01-01): \"finished in 5.18s, 19293.63 req/s\"")
            .note("Jersey serializes java.util.Date as epoch milliseconds (418 B responses)"),
        Fig::new("Go net/http", Some("go-nethttp"), "all-cores", 33_113.61)
            .latency(h2load(67.0, 80.14 * MS, 927.0, 1.89 * MS))
            .source("seed 002 (muety/http-server-benchmarks), results/result_go.log at 5c41960 (2016-11-19, last complete run): \"finished in 3.02s, 33113.61 req/s\"; an earlier complete run in the same log: 32625.64 req/s")
            .note("Go's struct had no json tags: keys \"Title\"/\"CreatedAt\", RFC 3339 local time with nanoseconds (609 B responses)"),
        Fig::new("Node.js http (cluster, 4 workers)", Some("node-http"), "all-cores", 15_994.34)
            .latency(h2load(99.0, 50.56 * MS, 1.70 * MS, 1.43 * MS))
            .source("seed 002 (muety/http-server-benchmarks), results/result_node.log at fad8f93 (2017-01-01): \"finished in 6.25s, 15994.34 req/s\"")
            .note("the first version (2016-11-19) ran one process: 11,012.78 req/s"),
        Fig::new("Node.js Express 4 (cluster, 4 workers)", Some("node-express"), "all-cores", 7_543.65)
            .latency(h2load(208.0, 67.97 * MS, 3.52 * MS, 2.21 * MS))
            .source("seed 002 (muety/http-server-benchmarks), results/result_express.log at fad8f93 (2017-01-01): \"finished in 13.26s, 7543.65 req/s\""),
    ];
    PublishedStudy {
        id: "b".into(),
        seed: "002".into(),
        title: "Java (Jersey/Grizzly) vs Go vs Node.js: a static todo list".into(),
        workload: "todo".into(),
        load_shape: "h2load --h1 -n100000 -c32 -t4 (HTTP/1.1 keep-alive, 100,000 requests over 32 connections), after a warm-up of h2load -n100000 -c1; GET /rest/todo".into(),
        machine: "Intel Core i5-3317U (2 cores, 4 threads); Java 8u101, Node.js 6.5, Go 1.7.3; h2load on the same machine".into(),
        baseline: "java-jersey-grizzly".into(),
        figures: figures.into_iter().map(Fig::build).collect(),
        unavailable: Vec::new(),
        notes: strings(&[
            "The article (medium.com/@n1try) shows the figures as a chart; the numbers here are from the result logs in the repository.",
            "Every server used all cores: Go and Grizzly by default, Node.js and Express through cluster (added 2017-01-01, +45 %).",
            "h2load reports no percentiles: the latency shown is its \"time for request\" (min, max, mean, sd).",
            "The responses differ in shape across languages (key case, date format, 418–609 B); restbench's todo workload fixes one shape for all.",
        ]),
        source: "muety/http-server-benchmarks at 3af2da9 (2017-01-01): run-load.sh, results/*.log".into(),
    }
}

fn study_c() -> PublishedStudy {
    const SRC: &str = "seed 003 (yry99/web-benchmarks, fork of nDmitry/web-benchmarks) README results table (2020, fifth ab run)";
    let rows: [(&str, &str, f64); 14] = [
        ("Go 1.14 net/http, json", "go-nethttp", 6_955.0),
        ("Go 1.14 net/http, json, chi", "go-chi", 6_911.0),
        ("Go 1.14 net/http, easyjson", "go-easyjson", 8_841.0),
        ("Go 1.14 fasthttp, easyjson", "go-fasthttp", 9_015.0),
        ("node.js 14.4 cluster, http", "node-http", 3_961.0),
        ("node.js 14.4 pm2, http", "node-pm2", 3_856.0),
        ("node.js 14.4 cluster, express 4", "node-express", 3_734.0),
        ("node.js 14.4 cluster, koa 2", "node-koa", 3_611.0),
        ("node.js 14.4 cluster, hapi 19", "node-hapi", 2_673.0),
        ("Python 3.8 gunicorn", "python-gunicorn", 1_615.0),
        ("Python 3.8 gunicorn, flask", "python-flask", 1_509.0),
        ("Python 3.8 uvicorn, asyncio", "python-uvicorn", 2_685.0),
        (
            "Python 3.8 uvicorn, uvloop",
            "python-uvicorn-uvloop",
            2_917.0,
        ),
        ("Python 3.8 gunicorn, aiohttp", "python-aiohttp", 2_601.0),
    ];
    let figures = rows
        .iter()
        .map(|(system, subject, rps)| {
            Fig::new(system, Some(subject), "all-cores", *rps)
                .source(SRC)
                .build()
        })
        .collect();
    PublishedStudy {
        id: "c".into(),
        seed: "003".into(),
        title: "Go vs Node.js vs Python: 100 users from PostgreSQL".into(),
        workload: "users".into(),
        load_shape: "ab -n 10000 -c 128 (HTTP/1.0, a new connection per request); the fifth run is reported; GET / reading 100 rows through a pool of 100 connections in total".into(),
        machine: "AMD Ryzen 5 2600, VirtualBox VM with 6 of 12 threads and 8 GB, Ubuntu 20.04; Go 1.14, Node.js 14.4, Python 3.8, PostgreSQL 12.2; ab on the same machine".into(),
        baseline: "go-nethttp".into(),
        figures,
        unavailable: Vec::new(),
        notes: strings(&[
            "Every server used all cores: GOMAXPROCS=$(nproc), Node cluster or pm2 with one worker per CPU, gunicorn/uvicorn with $(nproc) workers (gunicorn also $(nproc) threads).",
            "ab's \"Time per request (mean, across all concurrent requests)\" is 1/throughput, not a latency, so no latency is listed.",
            "Fastify (cluster-fastify.js) is in the repository since 2022-01 but was never in the results table: it runs here without a published figure.",
            "A 2024 re-run on an M1 Air with ab -n 1000 -c 128 gave: fasthttp+easyjson 8054, net/http+easyjson 7384, net/http 6671, chi 6177, node cluster 3950, pm2 3949, express 3467, koa 3717, hapi 3349, gunicorn 1994, flask 1931, uvicorn 3486, uvicorn+uvloop 3664, aiohttp 3276 req/s.",
            "Outputs differ across languages (Go escapes > as \\u003e, dates with or without zone); restbench's verifier normalises these as warnings.",
        ]),
        source: "nDmitry/web-benchmarks (upstream of yry99/web-benchmarks), README up to 7e4a89b (2024-05-19) with ab -n 10000 -c 128".into(),
    }
}

fn study_d() -> PublishedStudy {
    const SRC: &str = "seed 004 (WilixLead/Abstract-Rest-Service-Benchmark README at 61635e0), results table and wrk --latency output";
    let figures = vec![
        Fig::new("Java Light-4J (Java 9.0.4)", Some("java-light4j"), "all-cores", 475_553.57)
            .latency(wrk_dist(5.79 * MS, 17.07 * MS, 361.51 * MS, [609.0, 3.33 * MS, 11.34 * MS, 92.78 * MS]))
            .source(SRC),
        Fig::new("Haskell Warp (GHC 7.10.3)", Some("haskell-warp"), "all-cores", 213_436.16)
            .latency(wrk_dist(7.10 * MS, 19.10 * MS, 444.99 * MS, [2.12 * MS, 3.23 * MS, 11.23 * MS, 102.01 * MS]))
            .source(SRC)
            .note("answered every path; the seed does not show its RTS options (stack's template builds with -threaded -N)"),
        Fig::new("Go gorilla/mux (Go 1.9.4)", Some("go-gorilla"), "all-cores", 153_889.88)
            .latency(wrk_dist(5.34 * MS, 7.32 * MS, 209.12 * MS, [3.46 * MS, 6.16 * MS, 13.90 * MS, 35.12 * MS]))
            .source(SRC),
        Fig::new("Java Spring Boot (Java 9.0.4)", Some("java-spring-boot"), "all-cores", 70_646.27)
            .latency(wrk_dist(12.30 * MS, 22.02 * MS, 1.05 * S, [7.42 * MS, 13.41 * MS, 25.77 * MS, 107.94 * MS]))
            .source(SRC),
        Fig::new("Python Sanic 0.7.0 (workers=8, uvloop)", Some("python-sanic"), "all-cores", 70_470.74)
            .latency(wrk_dist(11.26 * MS, 18.75 * MS, 258.58 * MS, [6.09 * MS, 10.06 * MS, 13.82 * MS, 103.43 * MS]))
            .source(SRC),
        Fig::new(".NET Core 2.1.4 (ASP.NET Core 2 MVC)", Some("dotnet-aspnetcore"), "all-cores", 57_162.40)
            .latency(wrk_dist(12.67 * MS, 17.50 * MS, 282.63 * MS, [7.71 * MS, 9.47 * MS, 20.57 * MS, 100.31 * MS]))
            .source(SRC)
            .note("`dotnet publish -c release` of the Web API tutorial (a TestController on MVC). restbench runs ASP.NET Core 2.2.2 on .NET Core 2.2.2 (SDK 2.2.104, from npm), the nearest release that can be had, with the publish defaults (server GC)"),
        Fig::new("Rust Iron 0.6.0 (Rust 1.24.1, debug build)", Some("rust-iron"), "all-cores", 24_573.25)
            .latency(wrk_dist(3.65 * MS, 23.55 * MS, 1.39 * S, [1.63 * MS, 2.28 * MS, 3.36 * MS, 49.96 * MS]))
            .source(SRC)
            .note("built and run with `cargo run` (a debug build) and answering every path; socket errors: read 187, write 1133. Upstream binakot later measured a release build at 186,726 req/s"),
        Fig::new("Node.js 8.9.4 http", Some("node-http"), "single-thread", 18_434.01)
            .latency(wrk_dist(27.76 * MS, 1.97 * MS, 291.39 * MS, [27.48 * MS, 28.09 * MS, 28.81 * MS, 33.67 * MS]))
            .source(SRC)
            .note("one process: cluster was added in 61635e0, after the figures were published (binakot later measured 94k with cluster)"),
        Fig::new("Node.js 8.9.4 Express 4.16.2", Some("node-express"), "single-thread", 9_897.75)
            .latency(wrk_dist(51.68 * MS, 4.00 * MS, 373.69 * MS, [51.44 * MS, 52.59 * MS, 53.93 * MS, 63.87 * MS]))
            .source(SRC)
            .note("one process, as Node.js above (binakot later measured 59k with cluster)"),
        Fig::new("Python aiohttp 2.3.7 (uvloop, one process)", Some("python-aiohttp"), "single-thread", 4_713.28)
            .latency(wrk_dist(108.61 * MS, 6.84 * MS, 235.63 * MS, [107.01 * MS, 110.69 * MS, 115.46 * MS, 124.29 * MS]))
            .source(SRC),
        Fig::new("Python Flask 0.12.2 (flask run dev server)", Some("python-flask"), "single-thread", 171.78)
            .latency(wrk_dist(1.01 * S, 3.45 * S, 0.92 * 60.0 * S, [68.82 * MS, 72.28 * MS, 1.04 * S, 17.41 * S]))
            .source(SRC)
            .note("Flask's development server (one thread in 0.12); socket errors: connect 512, read 711, write 609, timeout 1. restbench runs Flask under gunicorn with one worker and one thread"),
    ];
    PublishedStudy {
        id: "d".into(),
        seed: "004".into(),
        title: "Hello, World! across 11 stacks".into(),
        workload: "plaintext".into(),
        load_shape: "wrk -t8 -c512 -d10m --timeout 1m --latency (8 threads, 512 connections, 10 minutes, keep-alive); GET /api/test answering the 13-byte text/plain Hello, World!".into(),
        machine: "8 × Intel Xeon E5-2660 v3 @ 2.6 GHz, 16 GB, Ubuntu 16.04 (Linux 4.4); wrk on the same machine (~120 % CPU, binakot#24)".into(),
        baseline: "java-light4j".into(),
        figures: figures.into_iter().map(Fig::build).collect(),
        unavailable: Vec::new(),
        notes: strings(&[
            "Each service ran with its own defaults on the whole 8-CPU machine, wrk included. Node.js, Express, aiohttp and Flask ran as one process, so restbench compares them in the single-thread scenario; the others in all-cores.",
            "Rust Iron was a debug build, and Iron and Warp answered every path; restbench builds release and checks for 404 on unknown paths.",
            "Upstream binakot/Abstract-Rest-Service-Benchmark later re-ran with -d2m --timeout 10s (Iron release 186,726, Node cluster 94k, Express cluster 59k req/s).",
        ]),
        source: "WilixLead/Abstract-Rest-Service-Benchmark at 61635e0 (2018-03-05), fork of binakot/Abstract-Rest-Service-Benchmark".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The subject ids of the catalogue: the folders of `subjects/` with a manifest.
    fn catalogue() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
        let mut ids: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .flatten()
            .filter(|e| e.path().join("subject.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        ids.sort();
        assert!(ids.len() > 20, "{ids:?}");
        ids
    }

    #[test]
    fn every_study_is_consistent() {
        let all = published_studies();
        let subjects = catalogue();
        assert_eq!(
            all.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
        for s in &all {
            assert!(
                s.figures.first().and_then(|f| f.subject.as_deref()) == Some(s.baseline.as_str()),
                "study {}: the baseline is the first system",
                s.id
            );
            for f in &s.figures {
                assert!(SCENARIO_ORDER.contains(&f.scenario.as_str()), "{f:?}");
                assert!(f.rps > 0.0 && !f.source.is_empty(), "{f:?}");
                match &f.subject {
                    Some(sub) => assert!(subjects.contains(sub), "{sub}"),
                    None => assert!(s.unavailable_reason(&f.system).is_some(), "{f:?}"),
                }
            }
            // Two figures for one subject and scenario must be told apart by their settings.
            for (i, f) in s.figures.iter().enumerate() {
                for g in &s.figures[i + 1..] {
                    if f.subject.is_some() && f.subject == g.subject && f.scenario == g.scenario {
                        assert_ne!(f.settings, g.settings, "{f:?} / {g:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn figures_are_the_published_ones() {
        let a = published_study("a").unwrap();
        let rps = |s: &PublishedStudy, scenario: &str, subject: &str, variant: Option<&str>| {
            s.figures
                .iter()
                .find(|f| {
                    f.scenario == scenario
                        && f.subject.as_deref() == Some(subject)
                        && f.variant.as_deref() == variant
                })
                .map(|f| f.rps)
        };
        assert_eq!(rps(&a, "single-thread", "node-http", None), Some(12_618.86));
        assert_eq!(
            rps(&a, "one-cpu", "go-nethttp", Some("GOMAXPROCS=1")),
            Some(6_209.90)
        );
        assert_eq!(
            rps(&a, "all-cores", "java-spring-boot", None),
            Some(10_993.65)
        );
        let c = published_study("003").unwrap();
        assert_eq!(c.figures.len(), 14);
        assert_eq!(rps(&c, "all-cores", "go-fasthttp", None), Some(9_015.0));
        let d = published_study("d").unwrap();
        assert_eq!(d.figures.len(), 11);
        assert_eq!(rps(&d, "all-cores", "java-light4j", None), Some(475_553.57));
        assert_eq!(rps(&d, "single-thread", "python-flask", None), Some(171.78));
        assert!(published_study("e").is_none());
    }

    #[test]
    fn settings_tell_variants_apart() {
        let a = published_study("a").unwrap();
        let one_cpu: Vec<&PublishedFigure> = a
            .figures
            .iter()
            .filter(|f| f.scenario == "one-cpu" && f.subject.as_deref() == Some("go-nethttp"))
            .collect();
        let cell = |v: &str| BTreeMap::from([("GOMAXPROCS".to_string(), v.to_string())]);
        let exact = one_cpu
            .iter()
            .find(|f| f.variant.as_deref() == Some("GOMAXPROCS=1"))
            .unwrap();
        let unset = one_cpu
            .iter()
            .find(|f| f.variant.as_deref() == Some("GOMAXPROCS unset"))
            .unwrap();
        assert!(exact.settings_match(&cell("1")));
        assert!(!exact.settings_match(&cell("4")));
        assert!(!exact.settings_match(&BTreeMap::new()));
        // The unset row takes the cell the exact row leaves: it is tried last.
        assert!(unset.settings_match(&BTreeMap::new()));
        assert!(exact.specificity() > unset.specificity());
    }

    #[test]
    fn study_info_serializes_and_old_results_still_read() {
        let info = StudyInfo::new("b", true, "3 repeats instead of one").unwrap();
        assert_eq!(info.seed, "002");
        let json = serde_json::to_string(&info).unwrap();
        let back: StudyInfo = serde_json::from_str(&json).unwrap();
        assert_eq!(back, info);
    }
}
