//! HTTP/2 framing inside the mio worker, written here rather than taken from the `h2` crate.
//!
//! Why: the `h2` crate needs tokio, so it would be a second worker type with a runtime per thread,
//! futures, wakers and a `Bytes` per frame. Here a request is encoded once and sending it costs a
//! `memcpy` and a stream id patched in place; responses are framed from the connection's read
//! buffer without copying, and their header blocks are only scanned for `:status`. So the CPU per
//! request stays close to the HTTP/1.1 path: one `write` per batch of streams, one `read` per
//! batch of answers.
//!
//! - [`frame`]: frame constants, the frame-header writer and readers (public: the verifier's h2c
//!   client in the harness is built on them).
//! - [`encode`]: the HPACK request encoder. `H2Request` holds three encodings of one header
//!   block: a connection's first request adds its fields to the server's dynamic table
//!   (incremental indexing), later ones refer to them by index, and literals without indexing
//!   go out while the server's table has no room. Its literal writers are public too.
//! - `status`: the status-only HPACK scan of an answer's header block (we advertise a table size
//!   of 0, so no decoder state is kept).
//! - `conn`: the connection state machine, `H2Conn`, and what each frame means for the worker.
//!
//! Flow control: we advertise a 16 MiB stream window and raise the connection window to 1 GiB at
//! once, topping both up with WINDOW_UPDATE at half, so a server never waits on us; request
//! bodies are at most 65,535 bytes (the default stream window) and go out whole when the
//! server's connection window allows. GOAWAY: streams above its last id were never processed and
//! are sent again elsewhere (RFC 9113 §6.8); the others finish, then the connection is replaced.
//! RST_STREAM: the stream's request counts as `reset`. GOAWAY with last stream id 0 on a
//! connection that answered nothing is a refused connection (`connect`), reconnected after a
//! backoff. The write queue holds at most the streams in flight plus [`CONTROL_QUEUE_BYTES`] of
//! control frames: a server that floods frames needing an answer (SETTINGS, PING) while not
//! reading ours loses the connection as a `protocol` error (RFC 9113 §10.5).

mod conn;
pub mod encode;
pub mod frame;
mod status;

pub use conn::CONTROL_QUEUE_BYTES;
pub(crate) use conn::{Event, H2Conn};
pub(crate) use encode::H2Request;
pub(crate) use status::block_status;
