//! The history crate's integration tests, one binary: SQLite files and a real PostgreSQL
//! (the slow ones are `#[ignore]`d with their reason).

mod history;
