//! PostgreSQL for the database workloads: a client ([`Database`]), throwaway clusters
//! ([`Cluster`]), the seed data ([`seed_rows`], TechEmpower's tables) and provisioning for a run
//! ([`provide`]).
//!
//! - `client`: queries over one connection, and URLs shown without their password ([`redact`]).
//! - `cluster`: a throwaway cluster (initdb as `postgres` when root), its server a child that
//!   never outlives restbench, its folder removed by a janitor even if restbench is killed.
//! - `seed`: the fixed rows of table `"user"`, the same on every machine ([`SEED_DIGEST`]).
//! - `tfb`: TechEmpower's World, Fortune and CachedWorld, seeded as its schema seeds them, and
//!   the statements a server ran on each, counted by `pg_stat_statements`.
//! - `provision`: the one way `run`, `study`, `verify` and `serve` get a database: the URL given,
//!   or a cluster started on the CPUs given.
//! - `error`: [`DbError`], and [`DbCause`], a driver's error shown once on one line.

mod client;
mod cluster;
mod error;
mod provision;
mod seed;
mod tfb;

pub use client::{Database, redact};
pub use cluster::{
    Cluster, DEFAULT_MAX_CONNECTIONS, KEEP_MARKER, MB_PER_CONNECTION, SERVER_PACKAGE,
    SHARED_BUFFERS_MB, find_server_binaries,
};
pub use error::{DbCause, DbError};
pub use provision::{Provision, provide, provide_sized};
pub use seed::{SEED_DIGEST, UserRow, seed_digest, seed_rows};
pub use tfb::{
    ADDED_FORTUNE, FORTUNES, StatementCounts, WORLD_ROWS, WorldTable, world_seed_numbers,
};
