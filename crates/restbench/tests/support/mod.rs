//! What the binary's integration tests share: the binary, run from the checkout.

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
