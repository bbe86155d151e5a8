//! The workloads of the contract, in the order reports show them: the four of the seed studies,
//! then TechEmpower's six test types beyond plaintext, named and routed as TechEmpower's
//! Framework Benchmarks name and route them (`toolset/test_types/*` in
//! TechEmpower/FrameworkBenchmarks).
//!
//! After them, the workloads of HttpArena (the suite people moved to after TechEmpower,
//! github.com/MDA2AV/HttpArena) that restbench loads: `delay`, a slow handler under many held
//! connections; `static`, files from disk in a seeded mix ([`crate::StaticFile`]); `json-gzip`,
//! todo's document compressed when asked; `upload` and `download`, 100 KB bodies each way.
//!
//! Each workload is one request shape that every subject answers the same way; the full contract
//! (payloads, status codes, limits) is described in `docs/workloads.md`.

use serde::{Deserialize, Serialize};

/// One workload. `Ord` is the order reports show them in (the order of [`ALL`]).
///
/// [`ALL`]: Workload::ALL
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    Plaintext,
    Todo,
    Echo,
    Users,
    Json,
    Db,
    Queries,
    Fortunes,
    Updates,
    #[serde(rename = "cached-queries")]
    CachedQueries,
    Delay,
    Static,
    #[serde(rename = "json-gzip")]
    JsonGzip,
    Upload,
    Download,
}

crate::vocabulary!(Workload, "workload", {
    Plaintext => "plaintext",
    Todo => "todo",
    Echo => "echo",
    Users => "users",
    Json => "json",
    Db => "db",
    Queries => "queries",
    Fortunes => "fortunes",
    Updates => "updates",
    CachedQueries => "cached-queries",
    Delay => "delay",
    Static => "static",
    JsonGzip => "json-gzip",
    Upload => "upload",
    Download => "download",
});

/// The rows `queries` and `updates` ask for under load: TechEmpower's headline figure is the
/// 20-query level (its levels are 1, 5, 10, 15 and 20).
pub const TFB_QUERIES: u32 = 20;

/// The rows `cached-queries` asks for under load: the highest of TechEmpower's levels (1, 10,
/// 20, 50, 100).
pub const TFB_CACHED_COUNT: u32 = 100;

/// The wait `delay` asks for under load, in milliseconds: HttpArena's slow handler waits 10 ms.
pub const DELAY_MS: u32 = 10;

/// How much sooner than its wait a `delay` answer may come, in µs: timers fire on a clock of
/// whole milliseconds read once per turn of an event loop (libuv's `uv_now`), so a 10 ms wait
/// can end a fraction of a millisecond early without the server skipping it.
pub const DELAY_TIMER_SLACK_US: u64 = 1_000;

/// The longest wait a subject grants `GET /delay/{ms}`: a longer one is refused (400 or 404), so
/// that nobody can hold a server's connections for as long as they like.
pub const DELAY_MAX_MS: u32 = 10_000;

/// The connections a `delay` cell holds at least, whatever the run's `--connections`: a slow
/// handler is only a test of a server when tens of thousands of requests wait at once.
pub const DELAY_CONNECTIONS: u32 = 10_000;

/// The bytes `upload` sends and `download` asks for under load: HttpArena's 100 KB bodies.
pub const BODY_BYTES: usize = 102_400;

/// The largest `GET /download/{n}` a subject grants: a larger one is refused (400 or 404), so that
/// no request can make a server write without end.
pub const DOWNLOAD_MAX_BYTES: usize = 10 * 1024 * 1024;

/// The encodings `json-gzip` accepts under load, as HttpArena's compressed-JSON profile asks.
pub const JSON_GZIP_ACCEPT: &str = "gzip, br";

/// The depth TechEmpower pipelines plaintext requests to (`pipeline.lua`, depth 16).
pub const TFB_PIPELINE: u32 = 16;

impl Workload {
    /// The position in report order; a name that is not a workload sorts last.
    pub fn rank(name: &str) -> usize {
        Self::parse(name).map_or(Self::ALL.len(), |w| w as usize)
    }

    pub const fn method(self) -> &'static str {
        match self {
            Workload::Echo | Workload::Upload => "POST",
            _ => "GET",
        }
    }

    pub const fn path(self) -> &'static str {
        match self {
            Workload::Plaintext => "/api/test",
            Workload::Todo => "/rest/todo",
            Workload::Echo => "/echo",
            Workload::Users => "/users",
            Workload::Json => "/json",
            Workload::Db => "/db",
            Workload::Queries => "/queries?queries=20",
            Workload::Fortunes => "/fortunes",
            Workload::Updates => "/updates?queries=20",
            Workload::CachedQueries => "/cached-queries?count=100",
            Workload::Delay => "/delay/10",
            // The first file of the mix; a static cell's load draws every file (`StaticFile`).
            Workload::Static => "/static/index.html",
            Workload::JsonGzip => "/rest/todo",
            Workload::Upload => "/upload",
            Workload::Download => "/download/102400",
        }
    }

    /// The path without its query string: the route a subject serves (for `delay`, one value of
    /// its `/delay/{ms}`).
    pub fn route(self) -> &'static str {
        let path = self.path();
        path.split_once('?').map_or(path, |(route, _)| route)
    }

    /// True when its load may pipeline requests on a connection: only plaintext, as TechEmpower
    /// pipelines only plaintext (16 deep); every other workload is loaded one request at a time
    /// whatever `--pipeline` says.
    pub const fn pipelines(self) -> bool {
        matches!(self, Workload::Plaintext)
    }

    /// The requests in flight per connection its load takes under a run's `pipeline`.
    pub const fn pipeline_under(self, pipeline: u32) -> u32 {
        if self.pipelines() && pipeline > 1 {
            pipeline
        } else {
            1
        }
    }

    /// The label of its cells in results under a run's `pipeline`: the name, or
    /// `plaintext-pipelined-16` when pipelined, so that a pipelined figure is reported apart and
    /// never mixes with (or is compared against) an unpipelined one.
    pub fn cell_label(self, pipeline: u32) -> String {
        match self.pipeline_under(pipeline) {
            1 => self.name().to_string(),
            depth => format!("{}-pipelined-{depth}", self.name()),
        }
    }

    /// The connections its load holds under a run's `connections`: `delay` holds at least
    /// [`DELAY_CONNECTIONS`], every other workload the run's count.
    pub const fn connections_under(self, connections: u32) -> u32 {
        match self {
            Workload::Delay if connections < DELAY_CONNECTIONS => DELAY_CONNECTIONS,
            _ => connections,
        }
    }

    /// True when its load sends more than one request shape: `static` draws its files from a
    /// seeded mix ([`crate::StaticFile::mix`]).
    pub const fn rotates(self) -> bool {
        matches!(self, Workload::Static)
    }

    /// Why its load cannot go over `protocol`, if it cannot: the load engine sends an HTTP/2
    /// request body only within the default stream window (64 KiB), and `upload`'s is 100 KB;
    /// its HTTP/2 request is one pre-encoded shape, and `static` draws six paths.
    pub const fn unloadable_over(self, protocol: crate::Protocol) -> Option<&'static str> {
        match (self, protocol) {
            (Workload::Static, crate::Protocol::H2c) => Some(
                "the load engine's HTTP/2 request is one pre-encoded shape (its HPACK table \
                 assumes it); static draws six paths",
            ),
            (Workload::Upload, crate::Protocol::H2c) => Some(
                "the load engine sends an HTTP/2 request body only within the default stream \
                 window (64 KiB); upload's is 100 KB",
            ),
            _ => None,
        }
    }

    /// True when serving it needs the PostgreSQL database.
    pub const fn needs_database(self) -> bool {
        !matches!(
            self,
            Workload::Plaintext
                | Workload::Todo
                | Workload::Echo
                | Workload::Json
                | Workload::Delay
                | Workload::Static
                | Workload::JsonGzip
                | Workload::Upload
                | Workload::Download
        )
    }

    /// True when two identical requests get different answers by design: TechEmpower's
    /// database types answer random rows (and `updates` changes them), so no answer of theirs
    /// can stand as the reference another shape of the same request is held to.
    pub const fn answer_varies(self) -> bool {
        matches!(
            self,
            Workload::Db | Workload::Queries | Workload::Updates | Workload::CachedQueries
        )
    }

    /// True for TechEmpower's test types (plaintext is both a seed's and TechEmpower's, but its
    /// seed path is ours): their answers are checked by TechEmpower's rules, Server and Date
    /// headers included.
    pub const fn is_tfb(self) -> bool {
        matches!(
            self,
            Workload::Json
                | Workload::Db
                | Workload::Queries
                | Workload::Fortunes
                | Workload::Updates
                | Workload::CachedQueries
        )
    }

    /// One line for a reader: the request, the answer, and the seed study it comes from.
    pub const fn about(self) -> &'static str {
        match self {
            Workload::Plaintext => "GET /api/test → the 13-byte text Hello, World! (seed d)",
            Workload::Todo => {
                "GET /rest/todo → 8 todo items serialized as JSON on every request (seed b)"
            }
            Workload::Echo => {
                "POST /echo of the 4.2 KB colors JSON, parsed and serialized back (seed a)"
            }
            Workload::Users => {
                "GET /users → 100 rows read from PostgreSQL through a pool, as JSON (seed c)"
            }
            Workload::Json => {
                "GET /json → {\"message\":\"Hello, World!\"} serialized per request (TFB)"
            }
            Workload::Db => "GET /db → one random World row as JSON (TFB single query)",
            Workload::Queries => "GET /queries?queries=20 → 20 World rows, one query each (TFB)",
            Workload::Fortunes => {
                "GET /fortunes → the Fortune rows plus one, sorted, as an escaped HTML table (TFB)"
            }
            Workload::Updates => {
                "GET /updates?queries=20 → 20 World rows read, changed and persisted (TFB)"
            }
            Workload::CachedQueries => {
                "GET /cached-queries?count=100 → 100 CachedWorld rows from a cache (TFB)"
            }
            Workload::Delay => {
                "GET /delay/10 → 10, answered after a 10 ms wait, 10,000 connections held (HttpArena)"
            }
            Workload::Static => {
                "GET /static/{file} → six files of 1 KiB to 1 MiB from disk, in a seeded mix (HttpArena)"
            }
            Workload::JsonGzip => {
                "GET /rest/todo, Accept-Encoding: gzip, br → todo's JSON compressed per request (HttpArena)"
            }
            Workload::Upload => {
                "POST /upload of 100 KB → its length and CRC-32, read from the body (HttpArena)"
            }
            Workload::Download => "GET /download/102400 → 100 KB of bytes i mod 256 (HttpArena)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_is_the_report_order() {
        for w in Workload::ALL {
            assert_eq!(w.name().parse::<Workload>().unwrap(), w);
            assert_eq!(serde_json::to_string(&w).unwrap(), format!("\"{w}\""));
        }
        let mut sorted = Workload::ALL;
        sorted.sort();
        assert_eq!(sorted, Workload::ALL);
        assert_eq!(Workload::rank("echo"), 2);
        assert_eq!(Workload::rank("fortunes"), 7);
        assert_eq!(Workload::rank("fortune"), Workload::ALL.len());
        let e = "fortune".parse::<Workload>().unwrap_err().to_string();
        assert!(
            e.contains("fortune") && e.contains("plaintext, todo, echo, users, json"),
            "{e}"
        );
        assert_eq!(
            serde_json::to_string(&Workload::CachedQueries).unwrap(),
            "\"cached-queries\""
        );
        assert_eq!(Workload::Queries.route(), "/queries");
        assert_eq!(Workload::Json.route(), "/json");
        assert!(!Workload::Json.needs_database() && Workload::Fortunes.needs_database());
        assert!(Workload::CachedQueries.is_tfb() && !Workload::Plaintext.is_tfb());
        assert!(!Workload::Delay.is_tfb() && !Workload::Delay.needs_database());
        assert_eq!(Workload::Upload.method(), "POST");
        assert_eq!(Workload::Download.path(), format!("/download/{BODY_BYTES}"));
        assert_eq!(Workload::JsonGzip.route(), Workload::Todo.route());
        assert_eq!(
            serde_json::to_string(&Workload::JsonGzip).unwrap(),
            "\"json-gzip\""
        );
        assert!(Workload::Static.rotates() && !Workload::Todo.rotates());
        assert!(
            Workload::Upload
                .unloadable_over(crate::Protocol::H2c)
                .is_some()
        );
        assert!(
            Workload::Upload
                .unloadable_over(crate::Protocol::H1)
                .is_none()
        );
        assert!(
            Workload::Download
                .unloadable_over(crate::Protocol::H2c)
                .is_none()
        );
        // The path is a literal (`path` is `&'static str`): it must ask for the wait the load
        // and the early-answer flag are judged by.
        assert_eq!(Workload::Delay.path(), format!("/delay/{DELAY_MS}"));
        assert_eq!(Workload::Delay.connections_under(64), DELAY_CONNECTIONS);
        assert_eq!(Workload::Delay.connections_under(20_000), 20_000);
        assert_eq!(Workload::Json.connections_under(64), 64);
        assert_eq!(
            Workload::Plaintext.cell_label(TFB_PIPELINE),
            "plaintext-pipelined-16"
        );
        assert_eq!(Workload::Plaintext.cell_label(1), "plaintext");
        assert_eq!(Workload::Json.cell_label(16), "json");
        assert_eq!(Workload::Json.pipeline_under(16), 1);
        // A pipelined label is no workload: it sorts after every workload in reports.
        assert_eq!(
            Workload::rank("plaintext-pipelined-16"),
            Workload::ALL.len()
        );
    }
}
