//! The bounds both HTTP/1.x framers keep on what a server sends: the load engine's response
//! parser and the verifier's client in the harness. A server past one is wrong, not slow.

/// The most bytes a response head (status line and headers, or a chunked body's trailers) may
/// take. Real servers send a few hundred bytes; 64 KiB is far above any of them.
pub const MAX_HEAD: usize = 64 * 1024;
/// A chunk-size line (hex size and extensions) longer than this is not a chunked body.
pub const MAX_CHUNK_LINE: usize = 4096;
