//! PostgreSQL for the users workload: a client ([`Database`]), throwaway clusters ([`Cluster`]),
//! the seed data ([`seed_rows`]) and provisioning for a run ([`provide`]).

mod client;
mod cluster;
mod error;
mod provision;
mod seed;

pub use client::{Database, redact};
pub use error::{DbCause, DbError};
pub use cluster::{Cluster, KEEP_MARKER, SERVER_PACKAGE, find_server_binaries};
pub use provision::{Provision, provide};
pub use seed::{SEED_DIGEST, UserRow, seed_digest, seed_rows};
