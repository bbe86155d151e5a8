//! The load engine's integration tests, one binary (it links once, as ripgrep's do): a module per
//! file, the scriptable server and test certificates in `support`; `request_bytes` checks what the
//! generator sends against the RFCs' grammar.

mod capacity;
mod hostile_h1;
mod hostile_h2;
mod http2;
mod in_flight_at_end;
mod load_behaviour;
mod request_bytes;
mod scripts;
mod support;
mod tls_and_unix;
