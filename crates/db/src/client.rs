//! A connection to the benchmark database: seeding table `"user"` and what the verifier asks of
//! it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

use super::seed::{UserRow, seed_rows};
use crate::DbCause;
use crate::DbError;

/// A connection to the benchmark database.
pub struct Database {
    pub url: String,
    client: Mutex<Client>,
}

/// `context` with the driver's error kept whole. The driver's own `Display` is only the kind of
/// failure ("db error"); the server's reason ("FATAL: password authentication failed …") and
/// the OS error are in its source chain, which [`DbCause`] shows once, on one line.
pub(crate) fn db_err(context: &str, e: impl std::error::Error + Send + Sync + 'static) -> DbError {
    DbError::Database {
        context: context.to_string(),
        cause: Some(DbCause::new(e)),
    }
}

impl Database {
    /// Connects, failing at once (5 s at most) with the server's own message.
    pub fn connect(url: &str) -> Result<Self, DbError> {
        let mut config: postgres::Config = url
            .parse()
            .map_err(|e| db_err(&format!("invalid database URL {:?}", redact(url)), e))?;
        config.connect_timeout(Duration::from_secs(5));
        let client = config
            .connect(NoTls)
            .map_err(|e| db_err(&format!("cannot connect to {}", redact(url)), e))?;
        Ok(Self {
            url: url.to_string(),
            client: Mutex::new(client),
        })
    }

    pub(super) fn client(&self) -> std::sync::MutexGuard<'_, Client> {
        self.client.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The server's `max_connections` (`SHOW max_connections`): how many may be open at once,
    /// superusers' reserved slots included.
    pub fn max_connections(&self) -> Result<u32, DbError> {
        let row = self
            .client()
            .query_one("SHOW max_connections", &[])
            .map_err(|e| db_err("cannot read max_connections", e))?;
        let text: String = row.get(0);
        text.trim()
            .parse()
            .map_err(|_| DbError::database(format!("max_connections is {text:?}, not a number")))
    }

    /// Creates table `"user"` with the seed rows when it is missing or not as seeded, and
    /// TechEmpower's tables (World, Fortune, CachedWorld) likewise.
    pub fn seed(&self) -> Result<(), DbError> {
        let rows = seed_rows();
        let mut c = self.client();
        c.batch_execute(
            "CREATE TABLE IF NOT EXISTS \"user\" (id SERIAL PRIMARY KEY, username VARCHAR NOT NULL, \
             name VARCHAR NOT NULL, sex VARCHAR NOT NULL, address VARCHAR NOT NULL, mail VARCHAR NOT NULL, \
             birthdate TIMESTAMP NOT NULL)",
        )
        .map_err(|e| db_err("cannot create table \"user\"", e))?;
        drop(c);
        if self.users().is_ok_and(|have| have == rows) {
            let _ = self
                .client()
                .batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            return self.seed_tfb();
        }
        let mut c = self.client();
        let mut tx = c.transaction().map_err(|e| db_err("cannot seed", e))?;
        tx.batch_execute("TRUNCATE \"user\" RESTART IDENTITY")
            .map_err(|e| db_err("cannot seed", e))?;
        for r in &rows {
            tx.execute(
                "INSERT INTO \"user\" (username, name, sex, address, mail, birthdate) VALUES ($1, $2, $3, $4, $5, $6::text::timestamp)",
                &[&r.username, &r.name, &r.sex, &r.address, &r.mail, &r.birthdate],
            )
            .map_err(|e| db_err("cannot seed", e))?;
        }
        tx.commit().map_err(|e| db_err("cannot seed", e))?;
        // Lets the verifier count queries exactly when the server preloads the module.
        let _ = c.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        drop(c);
        self.seed_tfb()
    }

    /// All rows, by id.
    pub fn users(&self) -> Result<Vec<UserRow>, DbError> {
        let rows = self
            .client()
            .query(
                "SELECT id::int8, username, name, sex, address, mail, to_char(birthdate, 'YYYY-MM-DD HH24:MI:SS') FROM \"user\" ORDER BY id",
                &[],
            )
            .map_err(|e| db_err("cannot read table \"user\"", e))?;
        Ok(rows
            .iter()
            .map(|r| UserRow {
                id: r.get(0),
                username: r.get(1),
                name: r.get(2),
                sex: r.get(3),
                address: r.get(4),
                mail: r.get(5),
                birthdate: r.get(6),
            })
            .collect())
    }

    /// Sets one row's mail and returns the old one.
    pub fn set_mail(&self, id: i64, mail: &str) -> Result<String, DbError> {
        let mut c = self.client();
        let old: String = c
            .query_one(
                "SELECT mail FROM \"user\" WHERE id = $1::int8::int4",
                &[&id],
            )
            .map_err(|e| db_err("cannot read a row", e))?
            .get(0);
        c.execute(
            "UPDATE \"user\" SET mail = $1 WHERE id = $2::int8::int4",
            &[&mail, &id],
        )
        .map_err(|e| db_err("cannot change a row", e))?;
        Ok(old)
    }

    /// Queries of table `"user"` the server ran while `work` ran, and how they were counted.
    pub fn count_user_queries(&self, work: impl FnOnce()) -> Result<(u64, &'static str), DbError> {
        let statements = |c: &mut Client| -> Option<i64> {
            c.query_one(
                "SELECT COALESCE(sum(calls), 0)::int8 FROM pg_stat_statements WHERE query ILIKE '%from \"user\"%' \
                 AND query NOT ILIKE '%pg_stat%' AND query NOT ILIKE '%to_char%' AND query NOT ILIKE '%where id%'",
                &[],
            )
            .ok()
            .map(|r| r.get(0))
        };
        let scans = |c: &mut Client| -> Option<i64> {
            c.query_one(
                "SELECT (COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0))::int8 FROM pg_stat_user_tables WHERE relname = 'user'",
                &[],
            )
            .ok()
            .map(|r| r.get(0))
        };
        let before = statements(&mut self.client());
        if let Some(before) = before {
            work();
            let after = statements(&mut self.client()).unwrap_or(before);
            return Ok(((after - before).max(0) as u64, "pg_stat_statements"));
        }
        // Table statistics reach the shared view when backends go idle (up to ~10 s later).
        let before = scans(&mut self.client())
            .ok_or_else(|| DbError::database("no statistics for table \"user\""))?;
        let _ = self
            .client()
            .execute("SELECT pg_stat_clear_snapshot()", &[]);
        work();
        let started = Instant::now();
        let mut after = before;
        while started.elapsed() < Duration::from_secs(12) {
            let _ = self
                .client()
                .execute("SELECT pg_stat_clear_snapshot()", &[]);
            after = scans(&mut self.client()).unwrap_or(before);
            if after - before >= 5 {
                break;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        Ok(((after - before).max(0) as u64, "pg_stat_user_tables"))
    }
}

/// A connection string without its passwords, for messages. All three spellings PostgreSQL
/// takes are covered: `postgres://user:pw@host/db`, a query parameter `?password=pw` (and any
/// other key naming a password, such as `sslpassword`), and libpq's `host=… password=pw`
/// key/value form (quoted values included).
pub fn redact(conn: &str) -> String {
    match conn.find("://") {
        Some(scheme_end) => redact_url(conn, scheme_end + 3),
        None => redact_key_values(conn),
    }
}

/// `***` instead of the password in the user-info and in password query parameters.
fn redact_url(url: &str, authority_start: usize) -> String {
    // The user-info ends at the last `@` before the query: a raw `/` or `@` in a password still
    // falls inside it (over-redacting an odd path is better than printing a secret).
    let query_start = url[authority_start..]
        .find(['?', '#'])
        .map_or(url.len(), |i| authority_start + i);
    let head = &url[authority_start..query_start];
    let mut out = url[..authority_start].to_string();
    match head.rfind('@') {
        Some(at) => match head[..at].split_once(':') {
            Some((user, _)) => {
                out.push_str(user);
                out.push_str(":***");
                out.push_str(&head[at..]);
            }
            None => out.push_str(head),
        },
        None => out.push_str(head),
    }
    let query = &url[query_start..];
    let params: Vec<String> = query
        .split('&')
        .map(|param| match param.split_once('=') {
            Some((key, _)) if names_a_password(key.trim_start_matches(['?', '#'])) => {
                format!("{key}=***")
            }
            _ => param.to_string(),
        })
        .collect();
    out.push_str(&params.join("&"));
    out
}

/// libpq's `key=value key='quoted \' value'` form with every password value replaced. Anything
/// it cannot parse is kept only when it names no password.
fn redact_key_values(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Indices only ever stop at ASCII bytes (whitespace, `=`, quotes) or the ends, so every
    // slice below is on a character boundary.
    while i < b.len() {
        let start = i;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let key_start = i;
        while i < b.len() && b[i] != b'=' && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let key = &text[key_start..i];
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if key.is_empty() || i >= b.len() || b[i] != b'=' {
            // Not key=value: keep the rest unless it might hold a password.
            let rest = &text[start..];
            if names_a_password(rest) {
                out.push_str(&text[start..key_start]);
                out.push_str("***");
            } else {
                out.push_str(rest);
            }
            return out;
        }
        i += 1;
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let value_start = i;
        if i < b.len() && b[i] == b'\'' {
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else {
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = i.min(b.len());
        }
        // A backslash before a multi-byte character may leave `i` inside it: move on to the
        // next boundary.
        while !text.is_char_boundary(i) {
            i += 1;
        }
        out.push_str(&text[start..value_start]);
        if names_a_password(key) {
            out.push_str("***");
        } else {
            out.push_str(&text[value_start..i]);
        }
    }
    out
}

/// Whether a connection-string key is a password (`password`, `sslpassword`, any case).
fn names_a_password(key: &str) -> bool {
    key.to_ascii_lowercase().contains("password")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_redacted() {
        assert_eq!(
            redact("postgres://u:secret@127.0.0.1:5432/db"),
            "postgres://u:***@127.0.0.1:5432/db"
        );
        assert_eq!(redact("postgres://127.0.0.1/db"), "postgres://127.0.0.1/db");
    }

    #[test]
    fn every_spelling_of_a_password_is_redacted() {
        for (given, want) in [
            (
                "postgresql://u:s%40cr@t@127.0.0.1/db?sslmode=disable",
                "postgresql://u:***@127.0.0.1/db?sslmode=disable",
            ),
            (
                "postgres://u@127.0.0.1/db?password=secret&sslmode=disable",
                "postgres://u@127.0.0.1/db?password=***&sslmode=disable",
            ),
            (
                "postgres://127.0.0.1/db?sslmode=disable&PassWord=secret",
                "postgres://127.0.0.1/db?sslmode=disable&PassWord=***",
            ),
            (
                "postgres:///db?host=/run/postgresql&sslpassword=secret",
                "postgres:///db?host=/run/postgresql&sslpassword=***",
            ),
            (
                "postgres://:secret@127.0.0.1/db",
                "postgres://:***@127.0.0.1/db",
            ),
            (
                "host=127.0.0.1 password=secret dbname=db",
                "host=127.0.0.1 password=*** dbname=db",
            ),
            (
                "host=127.0.0.1 password = 'se cret\\' x' user=u",
                "host=127.0.0.1 password = *** user=u",
            ),
            ("password=secret", "password=***"),
            ("host=h PASSWORD=é\\ésecret", "host=h PASSWORD=***"),
            ("host=h user=u", "host=h user=u"),
            ("host=h password", "host=h ***"),
        ] {
            let got = redact(given);
            assert_eq!(got, want, "{given}");
            assert!(!got.contains("secret") && !got.contains("cret"), "{got}");
        }
    }

    #[test]
    fn odd_strings_never_panic() {
        for s in [
            "",
            "=",
            "'",
            "\\",
            "password='",
            "password=\\",
            "a=\\é",
            "é=é",
            "://",
            "://@",
            "x://a:b@",
            "password=\\é",
        ] {
            let _ = redact(s);
        }
    }
}
