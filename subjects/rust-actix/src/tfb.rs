//! TechEmpower's six test types over the same pool as `/users`: `json`, `db`, `queries`,
//! `fortunes`, `updates` and `cached-queries`, each answer a content type and a body, for the
//! framework's routes to send with a `Server` header. Every World row is its own prepared query
//! (`prepare_cached`); the fortunes page is an askama template (HTML-escaped, as askama escapes
//! `.html` templates); cached-queries read through a moka cache filled from CachedWorld.

use std::cell::Cell;

use askama::Template;
use deadpool_postgres::Pool;
use moka::future::Cache;
use serde::Serialize;

use crate::db::Unavailable;

pub const JSON: &str = "application/json";
pub const HTML: &str = "text/html; charset=utf-8";

const WORLD_SQL: &str = "SELECT id, randomNumber FROM World WHERE id = $1";
const FORTUNES_SQL: &str = "SELECT id, message FROM Fortune";
const CACHED_SQL: &str = "SELECT id, randomNumber FROM CachedWorld WHERE id = $1";
/// One statement for all the rows of a request (TechEmpower allows batched updates, not reads).
const UPDATE_SQL: &str = "UPDATE World SET randomNumber = v.r \
    FROM (SELECT * FROM UNNEST($1::int4[], $2::int4[]) AS t(id, r)) AS v WHERE World.id = v.id";

#[derive(Debug, Clone, Copy, Serialize)]
pub struct World {
    pub id: i32,
    #[serde(rename = "randomNumber")]
    pub random_number: i32,
}

#[derive(Serialize)]
struct Message {
    message: &'static str,
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

/// `{"message":"Hello, World!"}` from an object serialized now.
pub fn json() -> Vec<u8> {
    serde_json::to_vec(&Message { message: "Hello, World!" }).unwrap_or_default()
}

/// `name=N` of a query string, clamped to 1..=500; missing or not a number is 1.
pub fn count(query: Option<&str>, name: &str) -> usize {
    query
        .unwrap_or("")
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse::<i64>().ok())
        .unwrap_or(1)
        .clamp(1, 500) as usize
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

fn body<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Unavailable> {
    serde_json::to_vec(value).map_err(|_| Unavailable)
}

/// `n` random World rows, each its own query.
async fn worlds(pool: &Pool, n: usize) -> Result<Vec<World>, Unavailable> {
    let client = pool.get().await?;
    let statement = client.prepare_cached(WORLD_SQL).await?;
    let mut rows = Vec::with_capacity(n);
    for _ in 0..n {
        let row = client.query_one(&statement, &[&random()]).await?;
        rows.push(World { id: row.try_get(0)?, random_number: row.try_get(1)? });
    }
    Ok(rows)
}

pub async fn db(pool: &Pool) -> Result<Vec<u8>, Unavailable> {
    body(&worlds(pool, 1).await?[0])
}

pub async fn queries(pool: &Pool, n: usize) -> Result<Vec<u8>, Unavailable> {
    body(&worlds(pool, n).await?)
}

/// Every fortune, one added, sorted by message here, rendered by the template.
pub async fn fortunes(pool: &Pool) -> Result<Vec<u8>, Unavailable> {
    let client = pool.get().await?;
    let statement = client.prepare_cached(FORTUNES_SQL).await?;
    let mut fortunes = client
        .query(&statement, &[])
        .await?
        .iter()
        .map(|row| Ok(Fortune { id: row.try_get(0)?, message: row.try_get(1)? }))
        .collect::<Result<Vec<_>, tokio_postgres::Error>>()?;
    fortunes.push(Fortune { id: 0, message: "Additional fortune added at request time.".into() });
    fortunes.sort_by(|a, b| a.message.cmp(&b.message));
    Ok(FortunesPage { fortunes: &fortunes }.render()?.into_bytes())
}

/// `n` rows read one query each, each given a new number, written in one statement before
/// the answer (an id drawn twice keeps its last number, the one answered last).
pub async fn updates(pool: &Pool, n: usize) -> Result<Vec<u8>, Unavailable> {
    let mut rows = worlds(pool, n).await?;
    for row in &mut rows {
        row.random_number = random();
    }
    let mut last = std::collections::BTreeMap::new();
    for row in &rows {
        last.insert(row.id, row.random_number);
    }
    let (ids, numbers): (Vec<i32>, Vec<i32>) = last.into_iter().unzip();
    let client = pool.get().await?;
    let statement = client.prepare_cached(UPDATE_SQL).await?;
    client.execute(&statement, &[&ids, &numbers]).await?;
    body(&rows)
}

/// CachedWorld rows through a moka cache: a miss reads the row once, later requests never.
pub struct WorldCache(Cache<i32, World>);

impl WorldCache {
    pub fn new() -> Self {
        Self(Cache::new(10_000))
    }

    pub async fn cached_queries(&self, pool: &Pool, n: usize) -> Result<Vec<u8>, Unavailable> {
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            let id = random();
            let row = self
                .0
                .try_get_with(id, async move {
                    let client = pool.get().await?;
                    let statement = client.prepare_cached(CACHED_SQL).await?;
                    let row = client.query_one(&statement, &[&id]).await?;
                    Ok::<_, Unavailable>(World { id: row.try_get(0)?, random_number: row.try_get(1)? })
                })
                .await
                .map_err(|_| Unavailable)?;
            rows.push(row);
        }
        body(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_clamped() {
        for (query, n) in [(Some("queries=2"), 2), (Some("queries=0"), 1), (Some("queries=foo"), 1), (Some("queries=501"), 500), (Some("queries="), 1), (None, 1)] {
            assert_eq!(count(query, "queries"), n, "{query:?}");
        }
    }
}
