//! TechEmpower's tables, as its PostgreSQL schema creates them
//! (`toolset/databases/postgres/create-postgres.sql` in TechEmpower/FrameworkBenchmarks):
//! `World` (10,000 rows of `id`, `randomNumber`), `Fortune` (its 12 rows, byte for byte) and
//! `CachedWorld` (a copy of World for `cached-queries`, read through a cache). The names are
//! unquoted, so PostgreSQL folds them to `world`, `fortune` and `cachedworld`, as TechEmpower's
//! entries spell them.
//!
//! What the verifier asks of them is here too: the rows as they are now, and how many
//! statements the server ran on each table while a request was answered, counted by
//! `pg_stat_statements` (the way TechEmpower's `postgres.py` counts them).

use postgres::Client;

use super::client::{Database, db_err};
use super::seed::SplitMix64;
use crate::DbError;

/// The rows of `World` and `CachedWorld`.
pub const WORLD_ROWS: i32 = 10_000;

/// TechEmpower's 12 fortunes, byte for byte (the `<script>` row and the Japanese row included).
pub const FORTUNES: [(i32, &str); 12] = [
    (1, "fortune: No such file or directory"),
    (
        2,
        "A computer scientist is someone who fixes things that aren't broken.",
    ),
    (3, "After enough decimal places, nobody gives a damn."),
    (
        4,
        "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
    ),
    (
        5,
        "A computer program does what you tell it to do, not what you want it to do.",
    ),
    (
        6,
        "Emacs is a nice operating system, but I prefer UNIX. \u{2014} Tom Christaensen",
    ),
    (7, "Any program that runs right is obsolete."),
    (
        8,
        "A list is only as strong as its weakest link. \u{2014} Donald Knuth",
    ),
    (9, "Feature: A bug with seniority."),
    (10, "Computers make very fast, very accurate mistakes."),
    (
        11,
        "<script>alert(\"This should not be displayed in a browser alert box.\");</script>",
    ),
    (
        12,
        "\u{30d5}\u{30ec}\u{30fc}\u{30e0}\u{30ef}\u{30fc}\u{30af}\u{306e}\u{30d9}\u{30f3}\u{30c1}\u{30de}\u{30fc}\u{30af}",
    ),
];

/// The row a fortunes answer adds at request time.
pub const ADDED_FORTUNE: (i32, &str) = (0, "Additional fortune added at request time.");

/// The seed of World's and CachedWorld's random numbers (TechEmpower draws them with
/// `random()`; a fixed generator makes every machine's tables the same).
const WORLD_SEED: u64 = 0x5EED_0023;

/// One of the two tables of `(id, randomNumber)` rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorldTable {
    World,
    CachedWorld,
}

impl WorldTable {
    /// The table's name as PostgreSQL stores it.
    pub const fn name(self) -> &'static str {
        match self {
            WorldTable::World => "world",
            WorldTable::CachedWorld => "cachedworld",
        }
    }
}

/// Statements the server ran on one table in a window, as `pg_stat_statements` counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatementCounts {
    /// Executions of statements that begin with SELECT.
    pub selects: u64,
    /// Rows those returned.
    pub rows_read: u64,
    /// Executions of statements that begin with UPDATE.
    pub updates: u64,
    /// Rows those changed.
    pub rows_updated: u64,
}

/// The seeded random numbers of World (and CachedWorld), by id from 1.
pub fn world_seed_numbers() -> Vec<i32> {
    let mut rng = SplitMix64(WORLD_SEED);
    (0..WORLD_ROWS)
        .map(|_| rng.below(WORLD_ROWS as usize) as i32 + 1)
        .collect()
}

impl Database {
    /// Creates World, Fortune and CachedWorld when missing or not as seeded: Fortune must hold
    /// exactly the 12 rows; World and CachedWorld the ids 1..=10,000 with numbers in range
    /// (World's numbers change under `updates`, so only their shape is checked).
    pub(super) fn seed_tfb(&self) -> Result<(), DbError> {
        let mut c = self.client();
        c.batch_execute(
            "CREATE TABLE IF NOT EXISTS World (id integer NOT NULL, randomNumber integer NOT NULL default 0, PRIMARY KEY (id));
             CREATE TABLE IF NOT EXISTS Fortune (id integer NOT NULL, message varchar(2048) NOT NULL, PRIMARY KEY (id));
             CREATE TABLE IF NOT EXISTS CachedWorld (id integer NOT NULL, randomNumber integer NOT NULL default 0, PRIMARY KEY (id));",
        )
        .map_err(|e| db_err("cannot create TechEmpower's tables", e))?;
        let numbers = world_seed_numbers();
        let ids: Vec<i32> = (1..=WORLD_ROWS).collect();
        for table in [WorldTable::World, WorldTable::CachedWorld] {
            if !world_is_seeded(&mut c, table)? {
                let mut tx = c.transaction().map_err(|e| db_err("cannot seed", e))?;
                tx.batch_execute(&format!("TRUNCATE {}", table.name()))
                    .map_err(|e| db_err("cannot seed", e))?;
                tx.execute(
                    &format!(
                        "INSERT INTO {} (id, randomNumber) SELECT * FROM UNNEST($1::int4[], $2::int4[])",
                        table.name()
                    ),
                    &[&ids, &numbers],
                )
                .map_err(|e| db_err(&format!("cannot seed table {}", table.name()), e))?;
                tx.commit().map_err(|e| db_err("cannot seed", e))?;
            }
        }
        drop(c);
        let want: Vec<(i32, String)> = FORTUNES.iter().map(|(i, m)| (*i, m.to_string())).collect();
        if self.fortunes()? != want {
            let mut c = self.client();
            let mut tx = c.transaction().map_err(|e| db_err("cannot seed", e))?;
            tx.batch_execute("TRUNCATE fortune")
                .map_err(|e| db_err("cannot seed", e))?;
            for (id, message) in FORTUNES {
                tx.execute(
                    "INSERT INTO fortune (id, message) VALUES ($1, $2)",
                    &[&id, &message],
                )
                .map_err(|e| db_err("cannot seed table fortune", e))?;
            }
            tx.commit().map_err(|e| db_err("cannot seed", e))?;
        }
        Ok(())
    }

    /// Every `(id, randomNumber)` of a table, by id.
    pub fn worlds(&self, table: WorldTable) -> Result<Vec<(i32, i32)>, DbError> {
        let rows = self
            .client()
            .query(
                &format!("SELECT id, randomNumber FROM {} ORDER BY id", table.name()),
                &[],
            )
            .map_err(|e| db_err(&format!("cannot read table {}", table.name()), e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Every fortune, by id.
    pub fn fortunes(&self) -> Result<Vec<(i32, String)>, DbError> {
        let rows = self
            .client()
            .query("SELECT id, message FROM fortune ORDER BY id", &[])
            .map_err(|e| db_err("cannot read table fortune", e))?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// The statements on `table` the server ran while `work` ran, by `pg_stat_statements`
    /// (preloaded by every throwaway cluster; a database given by URL may lack it, which is an
    /// error naming the module).
    pub fn count_statements(
        &self,
        table: &str,
        work: impl FnOnce(),
    ) -> Result<StatementCounts, DbError> {
        let before = statement_counts(&mut self.client(), table)?;
        work();
        let after = statement_counts(&mut self.client(), table)?;
        Ok(StatementCounts {
            selects: after.selects.saturating_sub(before.selects),
            rows_read: after.rows_read.saturating_sub(before.rows_read),
            updates: after.updates.saturating_sub(before.updates),
            rows_updated: after.rows_updated.saturating_sub(before.rows_updated),
        })
    }
}

/// True when `table` holds ids 1..=10,000 with numbers in 1..=10,000.
fn world_is_seeded(c: &mut Client, table: WorldTable) -> Result<bool, DbError> {
    let row = c
        .query_one(
            &format!(
                "SELECT count(*)::int8, COALESCE(min(id), 0), COALESCE(max(id), 0), \
                 COALESCE(min(randomNumber), 0), COALESCE(max(randomNumber), 0) FROM {}",
                table.name()
            ),
            &[],
        )
        .map_err(|e| db_err(&format!("cannot read table {}", table.name()), e))?;
    let (n, lo, hi, min, max): (i64, i32, i32, i32, i32) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    Ok(n == i64::from(WORLD_ROWS) && lo == 1 && hi == WORLD_ROWS && min >= 1 && max <= WORLD_ROWS)
}

/// The running totals of `pg_stat_statements` for statements naming `table` as a word (its own
/// queries of the view excluded).
fn statement_counts(c: &mut Client, table: &str) -> Result<StatementCounts, DbError> {
    let pattern = format!("\\m{table}\\M");
    let row = c
        .query_one(
            "SELECT \
               COALESCE(sum(calls) FILTER (WHERE kind = 'select'), 0)::int8, \
               COALESCE(sum(rows) FILTER (WHERE kind = 'select'), 0)::int8, \
               COALESCE(sum(calls) FILTER (WHERE kind = 'update'), 0)::int8, \
               COALESCE(sum(rows) FILTER (WHERE kind = 'update'), 0)::int8 \
             FROM (SELECT calls, rows, lower(substring(ltrim(query) from '^[A-Za-z]+')) AS kind \
                   FROM pg_stat_statements WHERE query ~* $1 AND query !~* 'pg_stat_statements') s",
            &[&pattern],
        )
        .map_err(|e| {
            db_err(
                "cannot read pg_stat_statements (the server must preload it: \
                 shared_preload_libraries = 'pg_stat_statements')",
                e,
            )
        })?;
    let get = |i: usize| row.get::<_, i64>(i).max(0) as u64;
    Ok(StatementCounts {
        selects: get(0),
        rows_read: get(1),
        updates: get(2),
        rows_updated: get(3),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_numbers_are_fixed_and_in_range() {
        let numbers = world_seed_numbers();
        assert_eq!(numbers.len(), 10_000);
        assert_eq!(numbers, world_seed_numbers());
        assert!(numbers.iter().all(|n| (1..=10_000).contains(n)));
        let distinct: std::collections::BTreeSet<_> = numbers.iter().collect();
        assert!(distinct.len() > 5_000, "{}", distinct.len());
    }

    #[test]
    fn fortunes_are_techempowers_byte_for_byte() {
        assert_eq!(FORTUNES.len(), 12);
        assert!(
            FORTUNES
                .iter()
                .enumerate()
                .all(|(i, (id, _))| *id == i as i32 + 1)
        );
        assert_eq!(FORTUNES[11].1, "フレームワークのベンチマーク");
        assert_eq!(
            FORTUNES[5].1.as_bytes()[53..56],
            [0xe2, 0x80, 0x94],
            "an em dash, not a hyphen"
        );
        // FNV-1a over every message in order, so a changed byte anywhere shows.
        let digest = FORTUNES
            .iter()
            .flat_map(|(_, m)| m.bytes().chain([0x1e]))
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
        // The digest of the messages of create-postgres.sql at TechEmpower/FrameworkBenchmarks
        // 57d92fbe, computed the same way from the SQL file's literals.
        assert_eq!(
            digest, 0xafda_e8c3_c2ea_14a6,
            "fortunes changed: {digest:#x}"
        );
        let total: usize = FORTUNES.iter().map(|(_, m)| m.len()).sum();
        assert_eq!(total, 664);
    }
}
