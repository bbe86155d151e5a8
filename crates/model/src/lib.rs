//! The documents restbench writes to disk, and nothing else.
//!
//! Every engine converts its own types into these explicitly, so the on-disk schema changes only
//! here. Each top-level document carries [`SCHEMA_VERSION`]. Latency lives in HdrHistograms with the
//! bounds of [`histogram`]; percentiles are always read from a (merged) histogram, never averaged.

pub mod histogram;
pub mod load;
pub mod published;
pub mod run;

pub use histogram::{HistogramError, LatencySummary};
pub use load::{ErrorCounts, LoadResult, LoadSettings, LoadgenCpu, SecondSample, ThreadRps};
pub use published::{
    PlannedCell, PublishedFigure, PublishedLatency, PublishedStudy, StudyInfo, UnavailableSystem,
    published_studies, published_study,
};
pub use run::{
    Cell, CellPlacement, CellStatus, Environment, Finding, FindingLevel, LoadgenUsage,
    RepeatResult, RpsStats, RunProtocol, RunResults, ServerUsage, UsageSource,
};

/// Version of every document in this crate; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;
