//! The workload contract as checks, one module per workload (the contract is described in
//! `docs/workloads.md`). Each returns findings, never errors: a wrong answer is data about the
//! subject, not a failure of restbench.
//!
//! JSON is compared by meaning. Known cross-language differences (key order, `\u003e` escapes,
//! `null` vs an absent field, date spellings) are normalised and reported as warnings.
//!
//! One module per workload: `plaintext`, `todo`, `echo` and `users` (the database's rows
//! against the answer, a row changed between two requests), with `answer` for the checks they
//! share (status, headers, the request each workload sends) and `transport` for the protocol
//! (HTTP/1.1 or h2c) the checks go over. TechEmpower's test types have one each too: `json`,
//! `single_query` (`db`), `queries`, [`fortune_page`] and `fortunes`, `updates` and
//! `cached_queries`, with `tfb` for the rules they share (Server and Date, the Date changing,
//! Content-Type by type, World rows, the query clamps); statements are counted on the database
//! side, by `pg_stat_statements`. HttpArena's profiles have one each: `delay` (the answer after
//! its wait, waits that overlap), `static_files` (`static`: every byte of every file, its
//! validators and 304s, nothing outside the tree), `json_gzip` (compressed only when asked, with
//! `Vary`, decoded within a bound), `upload` (the length and CRC-32 of what was read, a chunked
//! body too) and `download` (n bytes of `i mod 256`). [`conformance`] checks how a server reads HTTP/1.1
//! rather than what it answers.
//!
//! Both talk to the server through this crate's own blocking clients, never the load engine's
//! hot path: [`http`] (HTTP/1.1, every read bounded) and [`h2c`] (HTTP/2 with prior knowledge,
//! over the load engine's frame writers), one [`http::HttpError`] for both. [`requests`] is what
//! each workload sends (the load engine's request for a cell is built from it too),
//! [`payloads`] the seed studies' fixed bodies and answers, and [`dates`] the timestamp
//! spellings subjects answer with, normalised.
//!
//! The sessions that start subjects to check them (`restbench verify`, `restbench
//! conformance`) are above this crate, in the harness: this one only checks a server that is
//! already listening.

mod answer;
mod cached_queries;
pub mod conformance;
pub mod dates;
mod delay;
mod download;
mod echo;
pub mod fortune_page;
mod fortunes;
pub mod h2c;
pub mod http;
mod json;
mod json_gzip;
pub mod payloads;
mod plaintext;
mod queries;
pub mod requests;
mod single_query;
mod static_files;
pub mod tfb;
mod todo;
mod transport;
mod updates;
mod upload;
mod users;

use std::net::SocketAddr;

use restbench_model::{Finding, FindingLevel, Protocol, Workload};

use crate::http::Endpoint;
use restbench_db::Database;

pub use crate::dates::{format_timestamp, normalise_timestamp};
pub use crate::tfb::DateChecks;
pub use echo::{BODY_LIMIT, oversized_json};

use answer::TIMEOUT;

/// True when no finding failed.
pub fn passed(findings: &[Finding]) -> bool {
    findings.iter().all(|f| f.level != FindingLevel::Fail)
}

/// Checks that apply to the whole server over HTTP/1.1: an unknown path gets 404.
pub fn common(addr: SocketAddr) -> Vec<Finding> {
    common_over(addr, Protocol::H1)
}

/// [`common`] over one protocol.
pub fn common_over(addr: SocketAddr, protocol: Protocol) -> Vec<Finding> {
    let to = Endpoint { addr, protocol };
    let mut f = Vec::new();
    for path in ["/no/such/path", "/api/test/extra"] {
        match transport::send(to, "GET", path, &[], b"", TIMEOUT) {
            Ok(r) if r.status == 404 => f.push(Finding::pass("unknown-path", format!("GET {path} → 404"))),
            Ok(r) => f.push(Finding::fail(
                "unknown-path",
                format!("GET {path} → {} (an unknown path must get 404; the server answers paths it does not serve)", r.status),
            )),
            Err(e) => f.push(Finding::fail("unknown-path", format!("GET {path}: no answer ({e})"))),
        }
    }
    f
}

/// The checks of one workload over HTTP/1.1.
pub fn workload(addr: SocketAddr, w: Workload, db: Option<&Database>) -> Vec<Finding> {
    workload_over(addr, w, Protocol::H1, db)
}

/// The checks of one workload over `protocol`: the contract is the same over every protocol,
/// only the transport differs. A TechEmpower type's Date check waits its [`tfb::DATE_GAP`]
/// here; [`workload_deferring`] leaves it to the caller.
pub fn workload_over(
    addr: SocketAddr,
    w: Workload,
    protocol: Protocol,
    db: Option<&Database>,
) -> Vec<Finding> {
    let mut dates = DateChecks::default();
    let mut f = workload_deferring(addr, w, protocol, db, &mut dates);
    f.extend(dates.finish());
    f
}

/// [`workload_over`] with the second halves of its Date checks added to `dates`, so that the
/// cells of a group wait for their Dates together ([`DateChecks::finish`]). Finish them only
/// after every cell's own checks: their requests must not fall into another cell's count of
/// database queries.
pub fn workload_deferring(
    addr: SocketAddr,
    w: Workload,
    protocol: Protocol,
    db: Option<&Database>,
    dates: &mut DateChecks,
) -> Vec<Finding> {
    let to = Endpoint { addr, protocol };
    match w {
        Workload::Plaintext => plaintext::check(to),
        Workload::Todo => todo::check(to),
        Workload::Echo => echo::check(to),
        Workload::Json => json::check(to, dates),
        Workload::Delay => delay::check(to),
        Workload::Static => static_files::check(to),
        Workload::JsonGzip => json_gzip::check(to),
        Workload::Upload => upload::check(to),
        Workload::Download => download::check(to),
        w => match db {
            Some(db) => database_workload(to, w, db, dates),
            None => vec![Finding::fail(
                "database",
                format!("the {w} workload needs a database (none was started)"),
            )],
        },
    }
}

/// The checks of a workload that reads the database.
fn database_workload(
    to: Endpoint,
    w: Workload,
    db: &Database,
    dates: &mut DateChecks,
) -> Vec<Finding> {
    match w {
        Workload::Db => single_query::check(to, db, dates),
        Workload::Queries => queries::check(to, db, dates),
        Workload::Fortunes => fortunes::check(to, db, dates),
        Workload::Updates => updates::check(to, db, dates),
        Workload::CachedQueries => cached_queries::check(to, db, dates),
        _ => users::check(to, db),
    }
}
