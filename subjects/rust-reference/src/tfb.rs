//! TechEmpower's types on this worker's clients: each World row its own query, sent pipelined
//! on one connection (each with its own Sync, which TechEmpower allows), fortunes rendered by an
//! askama template (HTML-escaped), updates written in one statement, and cached-queries through
//! a quick_cache cache shared by the workers and filled from CachedWorld on a miss.

use std::cell::Cell;

use askama::Template;
use futures_util::future::try_join_all;
use serde::Serialize;
use tokio::time::timeout;

use crate::db::{Db, QUERY_TIMEOUT, Unavailable};

pub const WORLD_SQL: &str = "SELECT id, randomNumber FROM World WHERE id = $1";
pub const FORTUNES_SQL: &str = "SELECT id, message FROM Fortune";
pub const CACHED_SQL: &str = "SELECT id, randomNumber FROM CachedWorld WHERE id = $1";
/// One statement for all the rows of a request (TechEmpower allows batched updates, not reads).
pub const UPDATE_SQL: &str = "UPDATE World SET randomNumber = v.r \
    FROM (SELECT * FROM UNNEST($1::int4[], $2::int4[]) AS t(id, r)) AS v WHERE World.id = v.id";

/// The CachedWorld rows, shared by every worker.
pub type WorldCache = quick_cache::sync::Cache<i32, World>;

#[derive(Debug, Clone, Copy, Serialize)]
pub struct World {
    pub id: i32,
    #[serde(rename = "randomNumber")]
    pub random_number: i32,
}

#[derive(Serialize)]
pub struct Message {
    pub message: &'static str,
}

pub struct Fortune {
    pub id: i32,
    pub message: String,
}

#[derive(Template)]
#[template(path = "fortunes.html")]
struct FortunesPage<'a> {
    fortunes: &'a [Fortune],
}

thread_local! {
    static RANDOM: Cell<u64> = Cell::new(seed());
}

fn seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    t ^ (&t as *const u64 as u64) | 1
}

/// A random id or number in 1..=10,000 (xorshift per thread).
fn random() -> i32 {
    RANDOM.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        (x % 10_000) as i32 + 1
    })
}

impl Db {
    /// `n` random World rows, each its own query, pipelined on one client.
    pub async fn worlds(&self, n: usize) -> Result<Vec<World>, Unavailable> {
        let session = self.next_session().await?;
        let queries = (0..n).map(|_| {
            let session = &session;
            async move {
                let row = session.client.query_one(&session.world, &[&random()]).await?;
                Ok::<_, Unavailable>(World { id: row.try_get(0)?, random_number: row.try_get(1)? })
            }
        });
        timeout(QUERY_TIMEOUT, try_join_all(queries)).await.map_err(|_| Unavailable)?
    }

    /// The fortunes page: every row, one added, sorted by message here.
    pub async fn fortunes_html(&self, out: &mut Vec<u8>) -> Result<(), Unavailable> {
        let session = self.next_session().await?;
        let rows = timeout(QUERY_TIMEOUT, session.client.query(&session.fortunes, &[]))
            .await
            .map_err(|_| Unavailable)??;
        let mut fortunes = rows
            .iter()
            .map(|row| Ok(Fortune { id: row.try_get(0)?, message: row.try_get(1)? }))
            .collect::<Result<Vec<_>, tokio_postgres::Error>>()?;
        fortunes.push(Fortune { id: 0, message: "Additional fortune added at request time.".into() });
        fortunes.sort_by(|a, b| a.message.cmp(&b.message));
        let page = FortunesPage { fortunes: &fortunes }.render().map_err(|_| Unavailable)?;
        out.extend_from_slice(page.as_bytes());
        Ok(())
    }

    /// `n` rows read one query each, given new numbers, written in one statement before the
    /// answer (an id drawn twice keeps its last number).
    pub async fn updates(&self, n: usize) -> Result<Vec<World>, Unavailable> {
        let mut rows = self.worlds(n).await?;
        for row in &mut rows {
            row.random_number = random();
        }
        let mut last = std::collections::BTreeMap::new();
        for row in &rows {
            last.insert(row.id, row.random_number);
        }
        let (ids, numbers): (Vec<i32>, Vec<i32>) = last.into_iter().unzip();
        let session = self.next_session().await?;
        timeout(QUERY_TIMEOUT, session.client.execute(&session.update, &[&ids, &numbers]))
            .await
            .map_err(|_| Unavailable)??;
        Ok(rows)
    }

    /// `n` random CachedWorld rows from `cache`, a miss read once from the table.
    pub async fn cached(&self, cache: &WorldCache, n: usize) -> Result<Vec<World>, Unavailable> {
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            let id = random();
            let row = match cache.get(&id) {
                Some(row) => row,
                None => {
                    let session = self.next_session().await?;
                    let row = timeout(QUERY_TIMEOUT, session.client.query_one(&session.cached, &[&id]))
                        .await
                        .map_err(|_| Unavailable)??;
                    let row = World { id: row.try_get(0)?, random_number: row.try_get(1)? };
                    cache.insert(id, row);
                    row
                }
            };
            rows.push(row);
        }
        Ok(rows)
    }
}
