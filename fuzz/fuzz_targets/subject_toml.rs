//! subject.toml as the harness loads it (parsed, then checked field by field): any text must be
//! a subject or an error naming the file, never a panic.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// One folder per fuzzing process, written again for every input.
fn subject_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir()
            .join(format!("restbench-fuzz-{}", std::process::id()))
            .join("fuzz-subject");
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = subject_dir();
    std::fs::write(dir.join("subject.toml"), data).expect("a temporary file");
    if let Err(e) = restbench_subject::Subject::load(dir) {
        let message = e.to_string();
        assert!(message.contains("subject.toml"), "{message}");
    }
});
