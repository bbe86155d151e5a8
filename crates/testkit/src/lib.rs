//! What restbench's integration tests share, so that no test file brings its own copy:
//! - [`server`]: a [`TinyServer`] on 127.0.0.1:0 with canned answers and the requests it saw;
//! - [`cli`]: the binary as a [`Cli`], its output as text and exit-code asserts ([`Outcome`]);
//! - [`fixtures`]: result documents built in one place;
//! - [`procs`]: processes and ports as /proc shows them;
//! - [`turn`]: turns, so that the tests of two files never overlap.
//!
//! A dev-dependency only (`publish = false`); it depends on the model and `std`, nothing else, so
//! that every crate's tests may use it without bending the crate graph.

pub mod cli;
pub mod fixtures;
pub mod procs;
pub mod server;
pub mod turn;

pub use cli::{Cli, Outcome, repo};
pub use server::{Request, TinyServer, closed_port};
