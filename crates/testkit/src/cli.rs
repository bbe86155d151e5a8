//! The binary as users run it: started in the checkout, its output read as text, its exit code
//! asserted with both streams in the message.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::mpsc::{Receiver, channel};

/// The checkout's root (this crate sits two folders below it).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the checkout holds crates/testkit")
}

/// A binary of the workspace; the test passes its path (`env!("CARGO_BIN_EXE_…")`), since only
/// the binary's own tests are told where cargo built it.
#[derive(Debug, Clone)]
pub struct Cli {
    exe: PathBuf,
}

impl Cli {
    pub fn new(exe: impl Into<PathBuf>) -> Self {
        Self { exe: exe.into() }
    }

    /// The binary, started in the checkout so that it finds `subjects/`.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.exe);
        c.current_dir(repo());
        c
    }
}

/// A finished process's output as the tests read it.
pub trait Outcome {
    /// `(stdout, stderr)`, lossily decoded.
    fn text(&self) -> (String, String) {
        (self.stdout_text(), self.stderr_text())
    }

    /// Standard output, lossily decoded.
    fn stdout_text(&self) -> String;

    /// Standard error, lossily decoded.
    fn stderr_text(&self) -> String;

    /// Panics, naming the exit status and both streams, unless the process exited with `code`.
    fn assert_exit(&self, code: i32) -> &Self;
}

impl Outcome for Output {
    fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    #[track_caller]
    fn assert_exit(&self, code: i32) -> &Self {
        let (out, err) = self.text();
        assert_eq!(
            self.status.code(),
            Some(code),
            "{}\nstdout:\n{out}\nstderr:\n{err}",
            self.status
        );
        self
    }
}

/// The lines of `reader` (a child's piped stdout, say) as they come, read on a thread of their
/// own, so that a test can wait for one with a timeout.
pub fn lines(reader: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(reader).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
