//! `restbench ab`'s two sides: a subject at two git revisions of a checkout, extracted once
//! per source tree, renamed apart, each building into a cache of its own; two folders of one
//! subject likewise, and two different subjects refused.

use std::path::Path;
use std::process::Command;

use restbench_harness::planner::ab::{self, AbError};
use restbench_subject::prepare::{self, Prepared};
use restbench_testkit::turn;

const MANIFEST: &str = r#"id = "tiny"
language = "rust"
framework = "tiny"
framework_version = "1"
workloads = ["plaintext"]

[build]
commands = ["mkdir -p {cache}/bin && cp version.txt {cache}/bin/version.txt"]
outputs = []

[start]
command = "exec cat {cache}/bin/version.txt"
"#;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A checkout with subjects/tiny at two commits (version.txt `one`, then `two`).
fn checkout(dir: &Path) -> (String, String) {
    let subject = dir.join("subjects/tiny");
    std::fs::create_dir_all(&subject).unwrap();
    std::fs::write(subject.join("subject.toml"), MANIFEST).unwrap();
    std::fs::write(subject.join("version.txt"), "one\n").unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "one"]);
    let first = git(dir, &["rev-parse", "HEAD"]);
    std::fs::write(subject.join("version.txt"), "two\n").unwrap();
    git(dir, &["commit", "-qam", "two"]);
    (first, git(dir, &["rev-parse", "HEAD"]))
}

#[test]
fn two_revisions_become_two_subjects_built_apart() {
    let _turn = turn::take(module_path!());
    let repo = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (first, second) = checkout(repo.path());
    let root = repo.path().join("subjects");
    let pair = ab::from_revisions(&root, "tiny", "HEAD~1", "HEAD", cache.path()).unwrap();
    assert_eq!(pair.a.id, format!("tiny@{}", &first[..10]));
    assert_eq!(pair.b.id, format!("tiny@{}", &second[..10]));
    assert_eq!(pair.side_a.commit.as_deref(), Some(first.as_str()));
    assert_eq!(pair.side_b.revision.as_deref(), Some("HEAD"));
    assert_ne!(pair.side_a.source_hash, pair.side_b.source_hash);
    let read = |s: &restbench_subject::Subject| {
        std::fs::read_to_string(s.dir.join("version.txt")).unwrap()
    };
    assert_eq!(
        (read(&pair.a).as_str(), read(&pair.b).as_str()),
        ("one\n", "two\n")
    );
    assert!(pair.a.dir.starts_with(cache.path().join("ab")));
    // Each builds into its own cache: the same binary name, two files.
    for s in [&pair.a, &pair.b] {
        assert!(matches!(
            prepare::prepare(s, cache.path()).unwrap(),
            Prepared::Built { .. }
        ));
        assert!(!s.start_command.contains("{cache}"), "{}", s.start_command);
    }
    let built = |s: &restbench_subject::Subject| {
        let file = s.start_command.trim_start_matches("exec cat ").to_string();
        std::fs::read_to_string(file).unwrap()
    };
    assert_eq!(built(&pair.a), "one\n");
    assert_eq!(built(&pair.b), "two\n");
    // Asked again: the extraction is reused (a marker left in it survives).
    std::fs::write(pair.a.dir.join("marker"), "kept").unwrap();
    let again = ab::from_revisions(&root, "tiny", &first, "HEAD", cache.path()).unwrap();
    assert!(
        again.a.dir.join("marker").exists(),
        "extracted once per tree"
    );
    // The same revision twice (an A/A) still gives two ids.
    let same = ab::from_revisions(&root, "tiny", "HEAD", "HEAD", cache.path()).unwrap();
    assert_ne!(same.a.id, same.b.id);
    assert!(same.a.id.ends_with("-a") && same.b.id.ends_with("-b"));
    // A revision without the subject says so.
    let e = ab::from_revisions(&root, "nothing", "HEAD", "HEAD", cache.path()).unwrap_err();
    assert!(
        e.to_string().contains("has no folder subjects/nothing"),
        "{e}"
    );
}

#[test]
fn two_folders_of_one_subject_and_not_of_two() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    for (folder, version) in [("a/tiny", "one"), ("b/tiny", "two")] {
        let d = dir.path().join(folder);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("subject.toml"), MANIFEST).unwrap();
        std::fs::write(d.join("version.txt"), version).unwrap();
    }
    let pair = ab::from_folders(
        &dir.path().join("a/tiny"),
        &dir.path().join("b/tiny"),
        cache.path(),
    )
    .unwrap();
    assert_eq!(
        (pair.a.id.as_str(), pair.b.id.as_str()),
        ("tiny@a", "tiny@b")
    );
    assert_ne!(pair.a.start_command, pair.b.start_command);
    let other = dir.path().join("c/other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("subject.toml"),
        MANIFEST.replace("\"tiny\"", "\"other\""),
    )
    .unwrap();
    let e = ab::from_folders(&dir.path().join("a/tiny"), &other, cache.path()).unwrap_err();
    assert!(matches!(e, AbError::DifferentSubjects { .. }), "{e}");
}
