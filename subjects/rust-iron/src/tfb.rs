//! TechEmpower's six test types on the r2d2 pool: each World row its own prepared query, the
//! fortunes page an askama template (HTML-escaped; Iron has no template engine of its own),
//! updates written in one statement, cached-queries through a moka cache filled from
//! CachedWorld on a miss. Each answer is a body for `routes` to send with a `Server` header.

use std::cell::Cell;

use askama::Template;
use serde::Serialize;

use crate::db::{Pool, Unavailable};

pub const WORLD_SQL: &str = "SELECT id, randomNumber FROM World WHERE id = $1";
pub const FORTUNES_SQL: &str = "SELECT id, message FROM Fortune";
pub const CACHED_SQL: &str = "SELECT id, randomNumber FROM CachedWorld WHERE id = $1";
/// One statement for all the rows of a request (TechEmpower allows batched updates, not reads).
pub const UPDATE_SQL: &str = "UPDATE World SET randomNumber = v.r \
    FROM (SELECT * FROM UNNEST($1::int4[], $2::int4[]) AS t(id, r)) AS v WHERE World.id = v.id";

/// The CachedWorld rows, shared by every thread.
pub type WorldCache = moka::sync::Cache<i32, World>;

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
pub fn json() -> String {
    serde_json::to_string(&Message { message: "Hello, World!" }).unwrap_or_default()
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

fn body<T: Serialize + ?Sized>(value: &T) -> Result<String, Unavailable> {
    serde_json::to_string(value).map_err(|_| Unavailable)
}

/// `n` random World rows, each its own query.
fn worlds(pool: &Pool, n: usize) -> Result<Vec<World>, Unavailable> {
    let mut session = pool.get()?;
    let session = &mut *session;
    let mut rows = Vec::with_capacity(n);
    for _ in 0..n {
        let row = session.client.query_one(&session.world, &[&random()])?;
        rows.push(World { id: row.try_get(0)?, random_number: row.try_get(1)? });
    }
    Ok(rows)
}

pub fn db(pool: &Pool) -> Result<String, Unavailable> {
    body(&worlds(pool, 1)?[0])
}

pub fn queries(pool: &Pool, n: usize) -> Result<String, Unavailable> {
    body(&worlds(pool, n)?)
}

/// Every fortune, one added, sorted by message here, rendered by the template.
pub fn fortunes(pool: &Pool) -> Result<String, Unavailable> {
    let mut session = pool.get()?;
    let session = &mut *session;
    let mut fortunes = session
        .client
        .query(&session.fortunes, &[])?
        .iter()
        .map(|row| Ok(Fortune { id: row.try_get(0)?, message: row.try_get(1)? }))
        .collect::<Result<Vec<_>, postgres::Error>>()?;
    fortunes.push(Fortune { id: 0, message: "Additional fortune added at request time.".into() });
    fortunes.sort_by(|a, b| a.message.cmp(&b.message));
    Ok(FortunesPage { fortunes: &fortunes }.render()?)
}

/// `n` rows read one query each, given new numbers, written in one statement before the
/// answer (an id drawn twice keeps its last number).
pub fn updates(pool: &Pool, n: usize) -> Result<String, Unavailable> {
    let mut rows = worlds(pool, n)?;
    for row in &mut rows {
        row.random_number = random();
    }
    let mut last = std::collections::BTreeMap::new();
    for row in &rows {
        last.insert(row.id, row.random_number);
    }
    let (ids, numbers): (Vec<i32>, Vec<i32>) = last.into_iter().unzip();
    let mut session = pool.get()?;
    let session = &mut *session;
    session.client.execute(&session.update, &[&ids, &numbers])?;
    body(&rows)
}

/// `n` random CachedWorld rows from `cache`, a miss read once from the table.
pub fn cached_queries(pool: &Pool, cache: &WorldCache, n: usize) -> Result<String, Unavailable> {
    let mut rows = Vec::with_capacity(n);
    for _ in 0..n {
        let id = random();
        let row = cache
            .try_get_with(id, || {
                let mut session = pool.get()?;
                let session = &mut *session;
                let row = session.client.query_one(&session.cached, &[&id])?;
                Ok::<_, Unavailable>(World { id: row.try_get(0)?, random_number: row.try_get(1)? })
            })
            .map_err(|_| Unavailable)?;
        rows.push(row);
    }
    body(&rows)
}
