//! The documents restbench writes to disk and the vocabulary they are written in, and nothing
//! else: no planning, no processes, no rendering. Three parts, each a folder:
//!
//! - [`vocabulary`](mod@vocabulary): the closed sets the documents are written in, [`Workload`], [`Scenario`],
//!   [`Protocol`] and [`Flag`] (in [`workload`](vocabulary::workload),
//!   [`scenario`](vocabulary::scenario), [`protocol`](vocabulary::protocol) and
//!   [`flag`](vocabulary::flag)), each with names, `Display` and `FromStr` from one macro
//!   ([`vocabulary!`], in [`names`](vocabulary::names), with [`UnknownName`]); CPU lists
//!   ([`cpus`](vocabulary::cpus)) and UTC timestamps ([`time`](vocabulary::time)).
//! - [`documents`]: what is written, and read back. [`run`](documents::run) (`results.json`),
//!   [`load`](documents::load) (`restbench load --json`), [`ab`](documents::ab) (`ab --json`),
//!   [`history`](documents::history) (a stored cell read back: figures, intervals, machine,
//!   revision), [`comparison`](documents::comparison) (`compare --json`),
//!   [`conformance`](documents::conformance) (how each subject reads HTTP),
//!   [`profile`](documents::profile) (a cell's profiling slice: CPU split, top symbols, folded
//!   stacks), [`outputs`](documents::outputs) (the smaller `--json` outputs: verify, subjects,
//!   doctor, and the [`Versioned`] envelope), [`capacity`](documents::capacity) (an open-loop
//!   search and its SLO) and [`published`](documents::published) (the seed studies' published
//!   figures, as data); [`io`](documents::io) reads and writes them (bounded reads, atomic
//!   writes), [`validate`](documents::validate) holds the bounds every document read is checked
//!   against before anything is computed or allocated from it (the error names the file and the
//!   field), [`merge`](documents::merge) merges several generators' load results (shards of one
//!   load) into one, exactly, and [`histogram`](documents::histogram) encodes latency
//!   histograms and decodes them within bounds.
//! - [`statistics`]: verdicts under noise. [`interval`](statistics::interval) (intervals on
//!   figures and on ratios, paired by round), [`rounds`](statistics::rounds) (interleaved rounds,
//!   contended slices, rankings with ties, the stop rule), [`ab_ratios`](statistics::ab_ratios)
//!   (the A/B ratio of every measure between two cells, paired by round within a run, unpaired
//!   across runs) and [`gate`](statistics::gate) (`--fail-if` thresholds, checked against those
//!   intervals; which machine facts must match).
//!
//! Every engine converts its own types into these explicitly, so the on-disk schema changes only
//! here. Each top-level document is a [`Document`]: it carries its own
//! [`SCHEMA_VERSION`](Document::SCHEMA_VERSION) and its own checks. Latency lives in
//! HdrHistograms with the bounds of [`histogram`](documents::histogram); percentiles are always
//! read from a (merged) histogram, never averaged.
//!
//! The central types are re-exported here, flat (`restbench_model::Cell`); everything else is
//! reached by its module's path (`restbench_model::documents::io::read_limited`). The documents
//! hold the statistics' value types (a cell's intervals, a run's rounds) and the statistics read
//! the documents (ratios of cells), so the two parts name each other's types through these
//! re-exports.

pub mod documents;
pub mod statistics;
pub mod vocabulary;

pub use documents::Document;
pub use documents::ab::{AbReport, AbSide};
pub use documents::capacity::{
    BoundBy, Capacity, CapacityProbe, Percentile, RateStep, Slo, SloClause, SloParseError,
    StepServer,
};
pub use documents::comparison::{Comparison, LoadComparison};
pub use documents::conformance::{
    CaseLevel, CaseResult, CaseVerdict, ConformanceReport, SubjectConformance,
};
pub use documents::histogram::{HistogramError, LatencySummary};
pub use documents::io::{DocumentError, read_load, read_results, read_run, write_results};
pub use documents::load::{
    ErrorCounts, LoadResult, LoadSettings, LoadgenCpu, Pacing, ScriptCost, SecondSample, Shard,
    ShardSummary, ThreadRps, WakeError,
};
pub use documents::merge::{MergeError, merge_load_results};
pub use documents::outputs::{
    DoctorReport, DoctorSubject, DotnetToolchain, ProfilingCheck, SubjectCatalogue, SubjectEntry,
    ToolCheck, VerifyOutcome, VerifyReport, Versioned,
};
pub use documents::profile::{
    CellProfile, CpuSplit, FoldedError, TopSymbol, decode_folded, encode_folded,
};
pub use documents::published::{
    PublishedFigure, PublishedLatency, PublishedStudy, StudyInfo, UnavailableSystem,
    published_studies, published_study,
};
pub use documents::run::{
    Cell, CellIntervals, CellPlacement, CellStatus, CellSubject, Environment, Finding,
    FindingLevel, InFlightAtEnd, LoadgenUsage, RepeatResult, RestartSpread, RpsStats, RunProtocol,
    RunResults, ServerUsage, Unserved, UsageSource,
};
pub use statistics::ab_ratios::{Measure, MeasureRatio, RatioRow, Verdict};
pub use statistics::gate::{Check, GateCheck, GateReport, Threshold, ThresholdError};
pub use statistics::interval::Interval;
pub use statistics::rounds::{
    ExcludedSlice, GroupRounds, PairRatio, RankEntry, Round, RoundsPolicy, Saturation, SliceWindow,
};
pub use vocabulary::flag::{Flag, Severity};
pub use vocabulary::names::UnknownName;
pub use vocabulary::protocol::{PROTOCOL_ORDER, Protocol};
pub use vocabulary::scenario::{SCENARIO_ORDER, Scenario};
pub use vocabulary::static_files::{
    STATIC_MTIME_EPOCH, STATIC_TREE_VERSION, StaticFile, download_bytes, pseudo_random_bytes,
};
pub use vocabulary::workload::{
    BODY_BYTES, DELAY_CONNECTIONS, DELAY_MAX_MS, DELAY_MS, DELAY_TIMER_SLACK_US,
    DOWNLOAD_MAX_BYTES, JSON_GZIP_ACCEPT, TFB_CACHED_COUNT, TFB_PIPELINE, TFB_QUERIES, Workload,
};
