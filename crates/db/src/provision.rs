//! The database of a run, `verify` or `serve`, provided one way: a given URL must work now (not
//! after the first subject was built); without one, a throwaway cluster is started.

use std::path::Path;

use super::client::Database;
use super::cluster::Cluster;
use crate::DbError;

/// The database a command uses, and the cluster to keep alive while it does.
#[derive(Default)]
pub struct Provision {
    /// The throwaway cluster, when one was started; dropping it stops and removes it.
    pub cluster: Option<Cluster>,
    /// The URL subjects get as `DATABASE_URL`.
    pub url: Option<String>,
    /// A connection to it, seeded.
    pub database: Option<Database>,
    /// Why there is no database although one was needed (the cluster could not start); the
    /// users cells fail with this reason.
    pub problem: Option<DbError>,
}

/// Provides a seeded database when `needed`: connects to `url` and seeds it (an error when that
/// fails), or starts a throwaway cluster with its logs in `log_dir` (a failure is kept in
/// [`Provision::problem`], since the other workloads can run without it). When not needed, the
/// given URL is passed on unchecked. A started cluster is pinned to `cpus` when given.
pub fn provide(
    needed: bool,
    url: Option<&str>,
    log_dir: &Path,
    cpus: Option<Vec<usize>>,
) -> Result<Provision, DbError> {
    provide_sized(needed, url, log_dir, cpus, None)
}

/// [`provide`], a started cluster allowing `max_connections` when given (a run's plan sizes it).
pub fn provide_sized(
    needed: bool,
    url: Option<&str>,
    log_dir: &Path,
    cpus: Option<Vec<usize>>,
    max_connections: Option<u32>,
) -> Result<Provision, DbError> {
    if let Some(url) = url {
        let database = if needed {
            let db = Database::connect(url)?;
            db.seed()?;
            Some(db)
        } else {
            None
        };
        return Ok(Provision {
            url: Some(url.to_string()),
            database,
            ..Provision::default()
        });
    }
    if !needed {
        return Ok(Provision::default());
    }
    let max_connections = max_connections.unwrap_or(super::cluster::DEFAULT_MAX_CONNECTIONS);
    let started = Cluster::with_connections(log_dir, cpus, max_connections)
        .and_then(|cluster| Database::connect(&cluster.url).map(|db| (cluster, db)));
    match started {
        Ok((cluster, database)) => Ok(Provision {
            url: Some(cluster.url.clone()),
            cluster: Some(cluster),
            database: Some(database),
            problem: None,
        }),
        Err(e) => Ok(Provision {
            problem: Some(e),
            ..Provision::default()
        }),
    }
}
