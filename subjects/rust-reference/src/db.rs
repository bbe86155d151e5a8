//! PostgreSQL for `/users` without a pool checkout on the hot path: each worker thread
//! owns a few `tokio_postgres` clients with the statement prepared once per connection.
//! Concurrent requests share a client, which pipelines their queries (tokio-postgres sends a
//! query without waiting for the previous answer: see its docs on pipelining).
//! A closed client is replaced on demand; while the database is down, requests fail fast.

use std::cell::{Cell, RefCell};
use std::pin::pin;
use std::rc::Rc;
use std::time::Duration;

use futures_util::TryStreamExt;
use tokio::sync::Mutex;
use tokio::time::{timeout, Instant};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, NoTls, Row, Statement};

use crate::model::{caesar_into, User};

const USERS_SQL: &str = r#"SELECT id, username, name, sex, address, mail, birthdate FROM "user""#;

/// Longest wait for a connection (TCP connect, start-up and prepare) or for another
/// request's connection attempt.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// After a failed attempt, requests answer 503 at once for this long instead of retrying.
const RETRY_AFTER: Duration = Duration::from_millis(250);
/// Longest wait for the rows once the request has a connection. A query queues behind the
/// others pipelined on the same client (this server's "pool acquire"), and may wait on a lock;
/// past this the request answers 503 instead of hanging, like a pool's acquire timeout.
pub(crate) const QUERY_TIMEOUT: Duration = Duration::from_secs(2);

/// The database could not serve the request: answer 503.
#[derive(Debug)]
pub struct Unavailable;

impl From<tokio_postgres::Error> for Unavailable {
    fn from(_: tokio_postgres::Error) -> Self {
        Unavailable
    }
}

/// One open connection with its prepared statements.
pub(crate) struct Session {
    pub(crate) client: Client,
    users: Statement,
    /// TechEmpower's statements (`crate::tfb`).
    pub(crate) world: Statement,
    pub(crate) fortunes: Statement,
    pub(crate) update: Statement,
    pub(crate) cached: Statement,
}

/// A place for one connection, refilled when its connection dies.
#[derive(Default)]
struct Slot {
    session: RefCell<Option<Rc<Session>>>,
    /// Serializes connection attempts, so a burst of requests opens one connection.
    connecting: Mutex<()>,
    failed_at: Cell<Option<Instant>>,
}

/// This worker thread's database clients.
pub struct Db {
    config: Option<tokio_postgres::Config>,
    slots: Vec<Slot>,
    next: Cell<usize>,
}

impl Db {
    /// `config: None` (no `DATABASE_URL`) makes every users request answer 503.
    pub fn new(config: Option<tokio_postgres::Config>, clients: usize) -> Self {
        let slots = (0..clients.max(1)).map(|_| Slot::default()).collect();
        Self { config, slots, next: Cell::new(0) }
    }

    /// Opens every connection now, so the first requests do not pay for it.
    pub async fn connect_all(&self) {
        for slot in &self.slots {
            let _ = self.session(slot).await;
        }
    }

    /// The next client in turn, connected.
    pub(crate) async fn next_session(&self) -> Result<Rc<Session>, Unavailable> {
        let index = self.next.get();
        self.next.set((index + 1) % self.slots.len());
        self.session(&self.slots[index]).await
    }

    /// Streams the users straight from the rows into `out` as a JSON array.
    pub async fn users_json(&self, out: &mut Vec<u8>) -> Result<(), Unavailable> {
        let session = self.next_session().await?;
        // A dropped query is safe: the connection reads and discards its answer.
        timeout(QUERY_TIMEOUT, write_users(&session, out)).await.map_err(|_| Unavailable)?
    }

    /// The slot's live session, connecting first if there is none.
    async fn session(&self, slot: &Slot) -> Result<Rc<Session>, Unavailable> {
        if let Some(session) = slot.live() {
            return Ok(session);
        }
        let config = self.config.as_ref().ok_or(Unavailable)?;
        let recently_failed = || slot.failed_at.get().is_some_and(|at| at.elapsed() < RETRY_AFTER);
        if recently_failed() {
            return Err(Unavailable);
        }
        let _attempt = timeout(CONNECT_TIMEOUT, slot.connecting.lock()).await.map_err(|_| Unavailable)?;
        // Another request may have connected (or failed) while this one waited.
        if let Some(session) = slot.live() {
            return Ok(session);
        }
        if recently_failed() {
            return Err(Unavailable);
        }
        match timeout(CONNECT_TIMEOUT, connect(config)).await {
            Ok(Ok(session)) => {
                let session = Rc::new(session);
                slot.session.replace(Some(session.clone()));
                slot.failed_at.set(None);
                Ok(session)
            }
            _ => {
                slot.session.replace(None);
                slot.failed_at.set(Some(Instant::now()));
                Err(Unavailable)
            }
        }
    }
}

impl Slot {
    fn live(&self) -> Option<Rc<Session>> {
        self.session.borrow().as_ref().filter(|session| !session.client.is_closed()).cloned()
    }
}

/// Writes the rows of one query into `out` as a JSON array.
async fn write_users(session: &Session, out: &mut Vec<u8>) -> Result<(), Unavailable> {
    let no_params: [&(dyn ToSql + Sync); 0] = [];
    let mut rows = pin!(session.client.query_raw(&session.users, no_params).await?);
    let mut address = Vec::new();
    let mut first = true;
    out.push(b'[');
    while let Some(row) = rows.try_next().await? {
        if !std::mem::take(&mut first) {
            out.push(b',');
        }
        let user = user(&row, &mut address)?;
        sonic_rs::to_writer(&mut *out, &user).map_err(|_| Unavailable)?;
    }
    out.push(b']');
    Ok(())
}

async fn connect(config: &tokio_postgres::Config) -> Result<Session, tokio_postgres::Error> {
    let (client, connection) = config.connect(NoTls).await?;
    // The connection task lives on this worker's runtime; it ends when the socket does,
    // which marks the client closed and makes the next request reconnect.
    tokio::task::spawn_local(async move {
        let _ = connection.await;
    });
    let users = client.prepare(USERS_SQL).await?;
    let world = client.prepare(crate::tfb::WORLD_SQL).await?;
    let fortunes = client.prepare(crate::tfb::FORTUNES_SQL).await?;
    let update = client.prepare(crate::tfb::UPDATE_SQL).await?;
    let cached = client.prepare(crate::tfb::CACHED_SQL).await?;
    Ok(Session { client, users, world, fortunes, update, cached })
}

fn user<'r>(row: &'r Row, address: &'r mut Vec<u8>) -> Result<User<'r>, tokio_postgres::Error> {
    let address = caesar_into(row.try_get(4)?, address);
    Ok(User {
        id: row.try_get(0)?,
        username: row.try_get(1)?,
        name: row.try_get(2)?,
        sex: row.try_get(3)?,
        address,
        mail: row.try_get(5)?,
        birthdate: row.try_get(6)?,
    })
}
