//! The PostgreSQL pool behind `/users`: r2d2 over the synchronous `postgres` client,
//! with the statement prepared once per connection and bounded waits, so a dead
//! database costs at most ~2 s per request and broken connections are replaced.

use std::time::Duration;

use postgres::{Client, NoTls, Row, Statement};

use crate::model::{caesar, User};

const USERS_SQL: &str = r#"SELECT id, username, name, sex, address, mail, birthdate FROM "user""#;

/// How long a request may wait for a pooled connection, and a connection attempt may take.
const POOL_TIMEOUT: Duration = Duration::from_secs(2);

pub type Pool = r2d2::Pool<Manager>;

/// Builds the pool at start-up without waiting for the database: r2d2 opens the
/// connections in the background and keeps retrying while the database is down.
pub fn pool(url: &str, size: usize) -> Result<Pool, String> {
    let mut config: postgres::Config = url.parse().map_err(|e| format!("DATABASE_URL: {e}"))?;
    config.connect_timeout(POOL_TIMEOUT);
    // The server cancels a query stuck on a lock after the same bound: 503, and the
    // connection is free again.
    config.options(&format!("-c statement_timeout={}", POOL_TIMEOUT.as_millis()));
    let size = u32::try_from(size).unwrap_or(u32::MAX);
    Ok(r2d2::Pool::builder()
        .max_size(size)
        .connection_timeout(POOL_TIMEOUT)
        .error_handler(Box::new(r2d2::NopErrorHandler))
        .build_unchecked(Manager { config }))
}

/// An open connection with its prepared statements.
pub struct Session {
    pub(crate) client: Client,
    users: Statement,
    /// TechEmpower's statements (`crate::tfb`).
    pub(crate) world: Statement,
    pub(crate) fortunes: Statement,
    pub(crate) update: Statement,
    pub(crate) cached: Statement,
}

/// Opens sessions for r2d2 and tells it which ones are dead.
#[derive(Debug)]
pub struct Manager {
    config: postgres::Config,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Session;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Session, postgres::Error> {
        let mut client = self.config.connect(NoTls)?;
        let users = client.prepare(USERS_SQL)?;
        let world = client.prepare(crate::tfb::WORLD_SQL)?;
        let fortunes = client.prepare(crate::tfb::FORTUNES_SQL)?;
        let update = client.prepare(crate::tfb::UPDATE_SQL)?;
        let cached = client.prepare(crate::tfb::CACHED_SQL)?;
        Ok(Session { client, users, world, fortunes, update, cached })
    }

    /// r2d2's check on checkout: one empty round trip.
    fn is_valid(&self, session: &mut Session) -> Result<(), postgres::Error> {
        session.client.simple_query("").map(|_| ())
    }

    fn has_broken(&self, session: &mut Session) -> bool {
        session.client.is_closed()
    }
}

/// Any failure to read the users: the caller answers 503.
#[derive(Debug)]
pub struct Unavailable;

impl<E: std::error::Error> From<E> for Unavailable {
    fn from(_: E) -> Self {
        Unavailable
    }
}

/// Reads all users through a pooled connection.
pub fn users(pool: &Pool) -> Result<Vec<User>, Unavailable> {
    let mut session = pool.get()?;
    let Session { client, users, .. } = &mut *session;
    let rows = client.query(&*users, &[])?;
    Ok(rows.iter().map(user).collect::<Result<_, _>>()?)
}

fn user(row: &Row) -> Result<User, postgres::Error> {
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
