//! Planning a run: what `run`, `bench` and `study` ask for ([`request`]), turned into the
//! runner's [`RunPlan`](crate::runner::RunPlan) by one set of rules ([`resolve()`]): the length
//! policy (`--quick`, `--faithful`), the load shape, the machine's placement, the database and
//! where it runs, and whether the generator is calibrated. [`study`] adds a seed study's cells and
//! shape from its published figures. [`ab`] makes the two sides of `restbench ab` (two folders,
//! or two git revisions of one subject) into two subjects of one run.

pub mod ab;
pub mod request;
pub mod resolve;
pub mod study;

pub use request::{
    ConformanceStep, DatabaseRequest, Length, Machine, OpenLoopRequest, RemoteRequest,
    RoundsRequest, RunRequest, Selection, ShapeOverrides,
};
pub use resolve::{DEFAULT_DB_POOL, PlanError, Resolved, Site, resolve};
