//! The PostgreSQL pool behind `/users`: deadpool-postgres with bounded waits, so a
//! dead database costs at most ~2 s per request and never poisons the pool.

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::{NoTls, Row};

use crate::model::{caesar, User};

const USERS_SQL: &str = r#"SELECT id, username, name, sex, address, mail, birthdate FROM "user""#;

/// How long a request may wait for a free connection, a new connection or a recycle check.
const POOL_TIMEOUT: Duration = Duration::from_secs(2);

/// Builds the pool at start-up. Connections are opened on demand, so a database that is
/// down now is simply retried by later requests (closed connections fail the recycle check).
pub fn pool(url: &str, size: usize) -> Result<Pool, String> {
    let mut pg: tokio_postgres::Config = url.parse().map_err(|e| format!("DATABASE_URL: {e}"))?;
    pg.connect_timeout(POOL_TIMEOUT);
    // The server cancels a query stuck on a lock after the same bound: 503, and the
    // connection is free again.
    pg.options(&format!("-c statement_timeout={}", POOL_TIMEOUT.as_millis()));
    let manager = Manager::from_config(
        pg,
        NoTls,
        ManagerConfig { recycling_method: RecyclingMethod::Fast },
    );
    Pool::builder(manager)
        .max_size(size)
        .wait_timeout(Some(POOL_TIMEOUT))
        .create_timeout(Some(POOL_TIMEOUT))
        .recycle_timeout(Some(POOL_TIMEOUT))
        .runtime(Runtime::Tokio1)
        .build()
        .map_err(|e| format!("pool: {e}"))
}

/// Any failure to read the users: the caller answers 503.
#[derive(Debug)]
pub struct Unavailable;

impl<E: std::error::Error> From<E> for Unavailable {
    fn from(_: E) -> Self {
        Unavailable
    }
}

/// Reads all users through a pooled connection, with the statement prepared once per connection.
pub async fn users(pool: &Pool) -> Result<Vec<User>, Unavailable> {
    let client = pool.get().await?;
    let statement = client.prepare_cached(USERS_SQL).await?;
    let rows = client.query(&statement, &[]).await?;
    Ok(rows.iter().map(user).collect::<Result<_, _>>()?)
}

fn user(row: &Row) -> Result<User, tokio_postgres::Error> {
    Ok(User {
        id: row.try_get(0)?,
        username: row.try_get(1)?,
        name: row.try_get(2)?,
        sex: row.try_get(3)?,
        address: caesar(row.try_get(4)?),
        mail: row.try_get(5)?,
        birthdate: row.try_get(6)?,
    })
}
