//! What the binary's integration tests share: the binary, run from the checkout, and the
//! harness's process and port checks (one file, included by path: it needs only `std`, and a
//! dev-only crate or feature for five functions would cost more than it saves).

#![allow(dead_code)]

#[path = "../../../harness/tests/support/procs.rs"]
pub mod procs;

use std::path::{Path, PathBuf};
use std::process::Command;

/// `restbench`, started in the checkout so that it finds `subjects/`.
pub fn restbench() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_restbench"));
    c.current_dir(repo());
    c
}

/// The checkout's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}
