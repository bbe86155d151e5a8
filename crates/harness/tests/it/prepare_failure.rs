//! A subject whose dependencies cannot be installed is reported with the package manager's own
//! words (npm's `404 Not Found`, pip's `No matching distribution found`), not just an exit code,
//! and no stamp is written, so the next prepare tries again.
//!
//! These tests run the real package managers against their registries (the package named here
//! does not exist), so they are `#[ignore]`d with the reason; `cargo test -- --include-ignored`
//! runs them, as CI does.

use std::path::Path;
use std::time::Instant;

use restbench_subject::Subject;
use restbench_subject::SubjectError;
use restbench_subject::prepare;
use restbench_testkit::turn;

const MISSING: &str = "restbench-no-such-package-zz9";

/// Writes `files` into `root/id` and loads it as a subject.
fn subject(root: &Path, id: &str, files: &[(&str, String)]) -> Subject {
    let dir = root.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    Subject::load(&dir).unwrap_or_else(|e| panic!("{e}"))
}

/// Prepares `subject` into a fresh cache; returns the error, its text and the build log.
fn failed_prepare(subject: &Subject, cache: &Path) -> (String, String) {
    let started = Instant::now();
    let result = prepare::prepare(subject, cache);
    eprintln!("{}: prepare took {:.1?}", subject.id, started.elapsed());
    let err = match result {
        Err(e) => e,
        Ok(p) => panic!(
            "{}: installing a missing package succeeded: {p:?}",
            subject.id
        ),
    };
    let SubjectError::Build { log, command, .. } = &err else {
        panic!("not a build error: {err}");
    };
    assert!(
        subject.build_commands.iter().any(|c| c == command),
        "{command}"
    );
    let log_text = std::fs::read_to_string(log).unwrap_or_default();
    assert!(
        !cache.join("stamps").join(&subject.id).exists(),
        "a failed build was stamped"
    );
    (err.to_string(), log_text)
}

#[test]
#[ignore = "slow: runs npm and pip against their registries; cargo test -- --include-ignored runs it (CI does)"]
fn a_failed_npm_install_is_reported_with_npms_own_message() {
    let _turn = turn::take(module_path!());
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let npm_cache = root.path().join("npm-cache");
    let manifest = format!(
        r#"id = "node-missing-dep"
language = "node"
framework = "node:http"
framework_version = "0.0.0"
workloads = ["plaintext"]

[requires]
tools = ["node", "npm"]
hint = "install Node.js with npm"

[build]
commands = ["npm ci --no-audit --no-fund"]
outputs = ["node_modules"]

[start]
command = "exec node server.js"

[env]
npm_config_cache = "{}"
npm_config_update_notifier = "false"
"#,
        npm_cache.display()
    );
    let package = format!(
        r#"{{"name": "node-missing-dep", "version": "1.0.0", "private": true,
  "dependencies": {{"{MISSING}": "1.0.0"}}}}
"#
    );
    let lock = format!(
        r#"{{
  "name": "node-missing-dep",
  "version": "1.0.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {{
    "": {{
      "name": "node-missing-dep",
      "version": "1.0.0",
      "dependencies": {{"{MISSING}": "1.0.0"}}
    }},
    "node_modules/{MISSING}": {{
      "version": "1.0.0",
      "resolved": "https://registry.npmjs.org/{MISSING}/-/{MISSING}-1.0.0.tgz",
      "integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg=="
    }}
  }}
}}
"#
    );
    let s = subject(
        root.path(),
        "node-missing-dep",
        &[
            ("subject.toml", manifest),
            ("package.json", package),
            ("package-lock.json", lock),
            ("server.js", "// never started\n".into()),
        ],
    );
    if let Some(reason) = s.unavailable_reason() {
        eprintln!("skipped: {reason}");
        return;
    }
    let (err, log) = failed_prepare(&s, cache.path());
    eprintln!("{err}");
    // npm's own lines ("npm error …", "npm ERR! …" before npm 10), not only an exit status.
    for text in [&err, &log] {
        assert!(
            text.contains("npm error") || text.contains("npm ERR!"),
            "npm's message is missing: {text}"
        );
    }
    let offline = [
        "ENOTFOUND",
        "EAI_AGAIN",
        "ECONNREFUSED",
        "ETIMEDOUT",
        "ECONNRESET",
    ]
    .iter()
    .find(|code| err.contains(*code));
    match offline {
        Some(code) => eprintln!("the registry is unreachable here ({code}): npm's 404 not checked"),
        None => assert!(
            (err.contains("404") || err.contains("E404")) && err.contains(MISSING),
            "npm's 404 for {MISSING} is missing: {err}"
        ),
    }
    assert!(
        err.contains("building node-missing-dep failed: `npm ci"),
        "{err}"
    );
}

#[test]
#[ignore = "slow: runs npm and pip against their registries; cargo test -- --include-ignored runs it (CI does)"]
fn a_failed_pip_install_is_reported_with_pips_own_message() {
    let _turn = turn::take(module_path!());
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let manifest = r#"id = "python-missing-dep"
language = "python"
framework = "wsgiref"
framework_version = "0.0.0"
workloads = ["plaintext"]

[requires]
tools = ["python3"]
hint = "install Python 3 with the venv module"

[build]
commands = [
  "python3 -m venv .venv",
  ".venv/bin/pip install --disable-pip-version-check --no-input --retries 1 --timeout 15 -r requirements.txt",
]
outputs = [".venv"]

[start]
command = "exec .venv/bin/python app.py"
"#;
    let s = subject(
        root.path(),
        "python-missing-dep",
        &[
            ("subject.toml", manifest.into()),
            ("requirements.txt", format!("{MISSING}==1.0.0\n")),
            ("app.py", "# never started\n".into()),
        ],
    );
    if let Some(reason) = s.unavailable_reason() {
        eprintln!("skipped: {reason}");
        return;
    }
    let (err, log) = failed_prepare(&s, cache.path());
    eprintln!("{err}");
    for text in [&err, &log] {
        assert!(
            text.contains("No matching distribution found") && text.contains(MISSING),
            "pip's message is missing: {text}"
        );
    }
    assert!(err.contains(".venv/bin/pip install"), "{err}");
    // The step that worked (the venv) is not what is blamed.
    assert!(!err.contains("`python3 -m venv .venv`"), "{err}");
}
