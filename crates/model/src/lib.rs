//! The documents restbench writes to disk and the vocabulary they are written in, and nothing
//! else: no planning, no processes, no rendering.
//!
//! - Documents: [`load`] (`restbench load --json`), [`run`] (`results.json`, with [`io`] to read
//!   and write it), [`documents`] (the smaller `--json` outputs: verify, subjects, doctor),
//!   [`comparison`] (`compare --json`), [`conformance`] (how each subject reads HTTP), [`profile`] (a cell's profiling slice: CPU split, top symbols, folded stacks), and [`published`], the seed studies' published figures as
//!   data.
//! - Vocabulary: [`Workload`], [`Scenario`], [`Protocol`] and [`Flag`], each a closed set whose
//!   names, `Display` and `FromStr` come from one macro ([`vocabulary!`], in [`names`], with
//!   [`UnknownName`]); CPU lists ([`cpus`]) and UTC timestamps ([`time`]).
//! - Verdicts under noise: [`interval`] (intervals on figures and on ratios, paired by round)
//!   and [`rounds`] (interleaved rounds, contended slices, rankings with ties, the stop rule).
//! - A/B and the regression gate: [`ratios`] (the ratio of every measure between two cells,
//!   paired by round within a run, unpaired across runs), [`gate`] (`--fail-if` thresholds,
//!   checked against those intervals; which machine facts must match), [`ab`] (`ab --json`) and
//!   [`history`] (a stored cell read back: figures, intervals, machine, revision).
//! - [`merge`]: several generators' load results (shards of one load) merged into one, exactly.
//! - [`validate`]: the bounds every document read is checked against before anything is
//!   computed or allocated from it (the error names the file and the field).
//!
//! Every engine converts its own types into these explicitly, so the on-disk schema changes only
//! here. Each top-level document carries [`SCHEMA_VERSION`]. Latency lives in HdrHistograms with the
//! bounds of [`histogram`]; percentiles are always read from a (merged) histogram, never averaged.

pub mod ab;
pub mod capacity;
pub mod comparison;
pub mod conformance;
pub mod cpus;
pub mod documents;
pub mod flag;
pub mod gate;
pub mod histogram;
pub mod history;
pub mod interval;
pub mod io;
pub mod load;
pub mod merge;
pub mod names;
pub mod profile;
pub mod protocol;
pub mod published;
pub mod ratios;
pub mod rounds;
pub mod run;
pub mod scenario;
pub mod time;
pub mod validate;
pub mod workload;

pub use ab::{AbReport, AbSide};
pub use capacity::{
    BoundBy, Capacity, CapacityProbe, Percentile, RateStep, Slo, SloClause, SloParseError,
    StepServer,
};
pub use comparison::{Comparison, LoadComparison};
pub use conformance::{CaseLevel, CaseResult, CaseVerdict, ConformanceReport, SubjectConformance};
pub use documents::{
    DoctorReport, DoctorSubject, DotnetToolchain, ProfilingCheck, SubjectCatalogue, SubjectEntry,
    ToolCheck, VerifyOutcome, VerifyReport, Versioned,
};
pub use flag::{Flag, Severity};
pub use gate::{Check, GateCheck, GateReport, Threshold, ThresholdError};
pub use histogram::{HistogramError, LatencySummary};
pub use interval::Interval;
pub use io::{DocumentError, read_load, read_results, read_run, write_results};
pub use load::{
    ErrorCounts, LoadResult, LoadSettings, LoadgenCpu, SecondSample, Shard, ShardSummary, ThreadRps,
};
pub use merge::{MergeError, merge_load_results};
pub use names::UnknownName;
pub use profile::{CellProfile, CpuSplit, FoldedError, TopSymbol, decode_folded, encode_folded};
pub use protocol::{PROTOCOL_ORDER, Protocol};
pub use published::{
    PublishedFigure, PublishedLatency, PublishedStudy, StudyInfo, UnavailableSystem,
    published_studies, published_study,
};
pub use ratios::{Measure, MeasureRatio, RatioRow, Verdict};
pub use rounds::{GroupRounds, PairRatio, RankEntry, Round, RoundsPolicy, Saturation};
pub use run::{
    Cell, CellIntervals, CellPlacement, CellStatus, CellSubject, Environment, Finding,
    FindingLevel, LoadgenUsage, RepeatResult, RestartSpread, RpsStats, RunProtocol, RunResults,
    ServerUsage, UsageSource,
};
pub use scenario::{SCENARIO_ORDER, Scenario};
pub use workload::Workload;

/// Version of every document in this crate; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;
