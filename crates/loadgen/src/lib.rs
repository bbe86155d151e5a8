//! restbench's load engine.
//!
//! A [`LoadSpec`] goes in, a [`LoadOutcome`] comes out. Each thread runs its own epoll loop over
//! its share of the connections and never talks to the others until the end: requests are encoded
//! once, responses are parsed by a minimal HTTP/1.x parser without allocating, and latencies go
//! into per-thread HdrHistograms merged at the end. With a rate, each connection follows a
//! schedule and latency is measured from the intended send time (wrk2's coordinated-omission
//! correction); the uncorrected distribution is kept beside it.
//!
//! Modules: `spec.rs` (what a run does) and `target.rs` (the URL, resolved once); `engine.rs`
//! (threads started, outcomes merged) and `worker.rs` (one thread's loop; `worker/` splits it by
//! job: the per-request path, connections opened and torn down, HTTP/2 frames); `request.rs` and
//! `response.rs` (HTTP/1.x out and in, within [`http1_limits`]); `recorder.rs`, `outcome.rs`,
//! `from_result.rs` (an outcome read back from a result document) and `live.rs` (figures read
//! while a run goes on); `error.rs`; [`capacity`] (the capacity search over runs);
//! [`trivial_server`] (the calibration server); [`script`] (wrk's Lua scripts, `-s`); `fuzzing.rs` (hidden entry points
//! for the fuzz targets in `fuzz/`: the response framer, the h2 frame reader, the `:status` scan).
//!
//! Transports (`transport/`): TCP, Unix domain sockets, and TLS over either with rustls
//! (`tls.rs`); plain TCP keeps its hot path (an enum, no extra call or allocation per request).
//! HTTP/2 ([`h2`]) is framed by hand inside the same mio loop, not with the `h2` crate: that crate
//! needs tokio (a second worker type, futures and a buffer per frame), while here a request is
//! encoded once and sent as a `memcpy` with its stream id patched, so the generator's CPU per
//! request stays close to its HTTP/1.1 path; `h2/mod.rs` names its parts (frame, encode, status,
//! conn) and says how flow control, GOAWAY and RST_STREAM are handled. Its frame module and HPACK
//! literal writers are public: the verifier's h2c client in the harness is built on them.
//!
//! The engine spawns no processes and reads nothing from /proc; it keeps the CPU affinity of the
//! thread that calls it, so callers pin it with `taskset` or `sched_setaffinity`.

pub mod capacity;
mod engine;
mod error;
mod from_result;
#[doc(hidden)]
pub mod fuzzing;
pub mod h2;
pub mod http1_limits;
mod live;
mod outcome;
mod recorder;
mod request;
mod response;
pub mod script;
mod spec;
mod target;
mod transport;
mod worker;

pub mod trivial_server;

pub use capacity::CapacitySpec;
pub use engine::{Progress, STATUS_CLASSES, ensure_open_files, run};
pub use error::LoadError;
pub use live::LiveLatency;
pub use outcome::LoadOutcome;
pub use spec::{
    HttpVersion, LoadSpec, MAX_BODY, MAX_CONNECTIONS, MAX_H2_BODY, MAX_PIPELINE, MAX_THREADS,
    PathMix, RATE_RANGE, StopAt,
};
pub use target::Target;
pub use transport::tls::TlsSettings;
pub use worker::ScriptReport;
