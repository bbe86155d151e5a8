//! Setting restbench up: `doctor`'s version verdicts with fake toolchains on a temporary PATH,
//! `new` and `subjects --install`, completions and the man page, help that shows defaults and keeps
//! its lines, and an installed binary that finds subjects with `--subjects-dir`. The tests that
//! compile or build are `#[ignore]`d with their reason; CI runs them.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use restbench_testkit::{Outcome, repo, turn};

use crate::support::restbench;

/// A folder of shell scripts named after tools, each printing what a real one of that version
/// prints; `python3 -c …` (the venv probe) fails as on Debian without python3-venv.
fn fake_toolchains(go_version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let scripts = [
        ("go", format!("echo 'go version go{go_version} linux/amd64'")),
        ("node", "echo v18.19.0".to_string()),
        ("npm", "echo 9.2.0".to_string()),
        (
            "java",
            "echo 'openjdk version \"11.0.22\" 2024-01-16' >&2".to_string(),
        ),
        ("mvn", "echo 'Apache Maven 3.8.7'".to_string()),
        (
            "python3",
            "case \"$1\" in --version) echo 'Python 3.11.2';; *) echo 'No module named ensurepip' >&2; exit 1;; esac"
                .to_string(),
        ),
        ("ghc", "echo 9.0.2".to_string()),
        ("ghc-pkg", "echo 'base-4.15 warp wai'".to_string()),
    ];
    for (name, body) in scripts {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// `restbench ARGS` with the fake toolchains of `fake` first on PATH.
fn with_fakes(fake: &tempfile::TempDir, args: &[&str]) -> Output {
    restbench()
        .args(args)
        .env("PATH", path_with(fake.path()))
        .output()
        .unwrap()
}

fn path_with(first: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![first.to_path_buf()];
    paths.extend(std::env::split_paths(&rest));
    std::env::join_paths(paths).unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", o.stderr_text());
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout_text()))
}

fn toolchain<'a>(doc: &'a serde_json::Value, tool: &str) -> &'a serde_json::Value {
    doc["toolchains"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tool"] == tool)
        .unwrap_or_else(|| panic!("no {tool} in {doc:#}"))
}

/// Doctor's verdict on `tool`, after checking that its problems name each of `problems` and its
/// fix names `fix`.
fn judged<'a>(
    doc: &'a serde_json::Value,
    tool: &str,
    problems: &[&str],
    fix: &str,
) -> &'a serde_json::Value {
    let verdict = toolchain(doc, tool);
    let named = verdict["problems"].to_string();
    for problem in problems {
        assert!(named.contains(problem), "{problem}: {verdict:#}");
    }
    assert!(text(&verdict["fix"]).contains(fix), "{verdict:#}");
    verdict
}

fn text(v: &serde_json::Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

#[test]
fn doctor_judges_fake_toolchains_by_version_and_names_the_fix() {
    let _turn = turn::take(module_path!());
    let fake = fake_toolchains("1.19.8");
    let o = with_fakes(&fake, &["doctor", "--json"]);
    let doc = json(&o);

    let go = judged(
        &doc,
        "go",
        &["go 1.19.8 < 1.26", "go-fasthttp"],
        "https://go.dev/dl/go1.26.0.linux-",
    );
    assert_eq!(go["ok"], false, "{go:#}");
    assert_eq!(go["version"], "1.19.8");
    let node = judged(&doc, "node", &["node 18.19.0 < 20"], "setup_20.x");
    assert_eq!(node["ok"], false);
    judged(
        &doc,
        "java",
        &["java 11.0.22 < 17"],
        "openjdk-17-jdk-headless",
    );
    let python = judged(&doc, "python3", &["venv"], "python3-venv");
    assert_eq!(python["ok"], false);
    let ghc = judged(&doc, "ghc", &["aeson"], "libghc-aeson-dev");
    assert!(!ghc["problems"].to_string().contains("warp,"), "{ghc:#}");

    assert_eq!(toolchain(&doc, "mvn")["ok"], true);

    // The same verdicts make subjects unavailable, before any build.
    let subject = |id: &str| {
        doc["subjects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .cloned()
            .unwrap()
    };
    let fasthttp = subject("go-fasthttp");
    assert_eq!(fasthttp["available"], false);
    assert!(
        text(&fasthttp["reason"]).starts_with("go 1.19.8 < 1.26"),
        "{fasthttp:#}"
    );
    assert!(text(&subject("python-flask")["reason"]).contains("venv"));
    assert!(text(&subject("haskell-warp")["reason"]).contains("GHC libraries missing"));

    let o = with_fakes(&fake, &["subjects", "--json"]);
    let list = json(&o);
    let entry = list["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "node-http")
        .unwrap();
    assert_eq!(entry["available"], false);
    assert!(
        text(&entry["reason"]).contains("node 18.19.0 < 20 (package.json engines)"),
        "{entry:#}"
    );

    let o = with_fakes(&fake, &["doctor"]);
    let out = o.stdout_text();
    assert!(
        out.contains("go-fasthttp: unavailable: go 1.19.8 < 1.26"),
        "{out}"
    );
    assert!(
        out.contains("fix: curl -fsSL https://deb.nodesource.com/setup_20.x"),
        "{out}"
    );
}

#[test]
fn doctor_accepts_a_new_enough_go() {
    let _turn = turn::take(module_path!());
    let fake = fake_toolchains("1.26.1");
    let o = with_fakes(&fake, &["doctor", "--json"]);
    let doc = json(&o);
    let go = toolchain(&doc, "go");
    assert_eq!(go["ok"], true, "{go:#}");
    assert_eq!(go["required"], "1.26.0");
    assert!(go["fix"].is_null());
}

#[test]
fn new_scaffolds_a_subject_that_subjects_lists() {
    let _turn = turn::take(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("subjects");
    let o = restbench()
        .args(["new", "my-server", "--from", "node-http", "--subjects-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", o.stderr_text());
    assert!(
        o.stdout_text().contains("package.json"),
        "{}",
        o.stdout_text()
    );
    // Not silently: the new subject joins the default grid.
    assert!(
        o.stdout_text().lines().any(|l| l
            == "my-server is now part of `restbench run`'s default grid; `--subjects` selects"),
        "{}",
        o.stdout_text()
    );
    let pkg = std::fs::read_to_string(dir.join("my-server/package.json")).unwrap();
    assert!(pkg.contains("\"restbench-my-server\""), "{pkg}");
    assert!(!dir.join("my-server/node_modules").exists());

    let o = restbench()
        .args(["subjects", "--json", "--subjects-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    let list = json(&o);
    let ids: Vec<&str> = list["subjects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["my-server"]);
    assert_eq!(list["subjects"][0]["seeds"], serde_json::json!([]));

    // An existing target and a bad name are refused in one line.
    for (name, said) in [
        ("my-server", "already exists"),
        ("My_Server", "not a subject name"),
    ] {
        let o = restbench()
            .args(["new", name, "--from", "node-http", "--subjects-dir"])
            .arg(&dir)
            .output()
            .unwrap();
        let err = o.stderr_text();
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(said), "{err}");
    }
    let o = restbench()
        .args([
            "new",
            "other",
            "--from",
            "no-such-subject",
            "--subjects-dir",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        o.stderr_text().contains("no-such-subject"),
        "{}",
        o.stderr_text()
    );
}

#[test]
fn every_committed_subject_can_be_scaffolded() {
    let _turn = turn::take(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("subjects");
    let o = restbench().args(["subjects", "--json"]).output().unwrap();
    for (i, s) in json(&o)["subjects"].as_array().unwrap().iter().enumerate() {
        let id = s["id"].as_str().unwrap();
        let name = format!("mine-{i}");
        let o = restbench()
            .args(["new", &name, "--from", id, "--subjects-dir"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{id}: {}", o.stderr_text());
        // The old id is gone from the manifests the build reads.
        for manifest in [
            "subject.toml",
            "Cargo.toml",
            "package.json",
            "go.mod",
            "pom.xml",
        ] {
            let path = dir.join(&name).join(manifest);
            if let Ok(text) = std::fs::read_to_string(&path) {
                let stale = text.match_indices(id).any(|(at, _)| {
                    !text[at + id.len()..]
                        .starts_with(|c: char| c == '-' || c.is_ascii_alphanumeric())
                        && !text[..at].ends_with(|c: char| c.is_ascii_alphanumeric())
                });
                assert!(!stale, "{}: still names {id}:\n{text}", path.display());
            }
        }
    }
}

#[test]
fn subjects_install_copies_the_catalogue_where_discovery_finds_it() {
    let _turn = turn::take(module_path!());
    let data = tempfile::tempdir().unwrap();
    let o = restbench()
        .args(["subjects", "--install"])
        .env("XDG_DATA_HOME", data.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", o.stderr_text());
    let installed = data.path().join("restbench/subjects");
    assert!(installed.join("rust-hyper/subject.toml").is_file());
    assert!(installed.join("README.md").is_file());

    // From a folder outside any checkout, with the executable copied there too (its own
    // ancestors must not lead to the checkout), the installed catalogue is found.
    let elsewhere = tempfile::tempdir().unwrap();
    let exe = elsewhere.path().join("restbench");
    std::fs::copy(env!("CARGO_BIN_EXE_restbench"), &exe).unwrap();
    let o = std::process::Command::new(&exe)
        .args(["subjects", "--json"])
        .current_dir(elsewhere.path())
        .env("XDG_DATA_HOME", data.path())
        .env_remove("RESTBENCH_SUBJECTS")
        .output()
        .unwrap();
    assert_eq!(
        json(&o)["subjects"].as_array().unwrap().len(),
        committed_subjects()
    );

    // Without it, the error says what to do.
    let empty = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(&exe)
        .args(["subjects"])
        .current_dir(elsewhere.path())
        .env("XDG_DATA_HOME", empty.path())
        .env_remove("RESTBENCH_SUBJECTS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        o.stderr_text().contains("restbench subjects --install"),
        "{}",
        o.stderr_text()
    );
}

#[test]
fn completions_name_the_subcommands() {
    let _turn = turn::take(module_path!());
    for shell in ["bash", "zsh", "fish"] {
        let o = restbench().args(["completions", shell]).output().unwrap();
        let script = o.stdout_text();
        assert!(o.status.success(), "{shell}: {}", o.stderr_text());
        for sub in ["run", "load", "study", "doctor", "new", "subjects"] {
            assert!(script.contains(sub), "{shell} script lacks {sub}");
        }
    }
    let o = restbench().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_man_page_is_roff_with_every_command() {
    let _turn = turn::take(module_path!());
    let o = restbench().arg("man").output().unwrap();
    assert!(o.status.success());
    let page = o.stdout_text();
    assert!(
        page.contains(".TH restbench 1"),
        "{}",
        &page[..page.len().min(400)]
    );
    for sub in [
        "RESTBENCH RUN",
        "RESTBENCH LOAD",
        "RESTBENCH DB START",
        "RESTBENCH NEW",
    ] {
        assert!(page.contains(&format!(".SH \"{sub}\"")), "no section {sub}");
    }
    assert!(
        !page.contains("restbench\\-run(1)"),
        "names pages that do not exist"
    );
}

#[test]
fn help_keeps_examples_on_one_line_when_not_on_a_terminal() {
    let _turn = turn::take(module_path!());
    let o = restbench()
        .args(["load", "--help"])
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    let help = o.stdout_text();
    let example = help
        .lines()
        .find(|l| l.contains("-n 100k -c 32"))
        .unwrap_or_else(|| panic!("{help}"));
    assert!(example.trim_end().ends_with("# h2load"), "{example}");
}

#[test]
fn help_shows_every_default() {
    let _turn = turn::take(module_path!());
    // Options that take a value show `[default: …]`, except those whose absence is the point.
    let exempt = [
        "--from",
        "--header",
        "--body",
        "--requests",
        "--rate",
        "--warmup",
        "--install",
        "--slo",
        "--at-rate",
        "--loadgen-hosts",
        "--start-at",
        "--shard",
    ];
    for command in [
        &["run"][..],
        &["study"],
        &["verify"],
        &["serve"],
        &["load"],
        &["subjects"],
        &["new"],
        &["db", "start"],
    ] {
        let o = restbench().args(command).arg("--help").output().unwrap();
        let help = o.stdout_text();
        // An option with its description, which clap puts on the same line or (when any option
        // of the command has a long description) on the lines below it.
        let lines: Vec<&str> = help
            .lines()
            .skip_while(|l| !l.starts_with("Options:"))
            .collect();
        for (i, line) in lines.iter().enumerate() {
            if !(line.trim_start().starts_with('-') && line.contains(" <")) {
                continue;
            }
            let option = line
                .split_whitespace()
                .find(|w| w.starts_with("--"))
                .unwrap();
            // Outputs written only when asked for (`--json PATH`, exports) have no default.
            if exempt.contains(&option) || line.contains("<PATH>") || line.contains("<FILE>") {
                continue;
            }
            let block: String = std::iter::once(*line)
                .chain(
                    lines[i + 1..]
                        .iter()
                        .take_while(|l| !l.trim_start().starts_with('-'))
                        .copied(),
                )
                .collect::<Vec<_>>()
                .join(" ");
            assert!(block.contains("[default: "), "{command:?}: {block}");
        }
    }
}

#[test]
#[ignore = "slow: compiles restbench with cargo install (a few minutes)"]
fn an_installed_binary_runs_from_another_folder() {
    let _turn = turn::take(module_path!());
    let root = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO"))
        // --debug: what is tested is where the installed binary looks, not its speed, and a
        // debug build takes CI half the time.
        .args(["install", "--locked", "--debug", "--root"])
        .arg(root.path())
        .arg("--path")
        .arg(repo().join("crates/restbench"))
        .env("CARGO_TARGET_DIR", root.path().join("target"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "cargo install failed:\n{}",
        o.stderr_text()
    );
    let exe = root.path().join("bin/restbench");
    let elsewhere = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(&exe)
        .args(["subjects", "--json", "--subjects-dir"])
        .arg(repo().join("subjects"))
        .current_dir(elsewhere.path())
        .env_remove("RESTBENCH_SUBJECTS")
        .output()
        .unwrap();
    assert_eq!(
        json(&o)["subjects"].as_array().unwrap().len(),
        committed_subjects()
    );
    let o = std::process::Command::new(&exe)
        .args(["subjects"])
        .current_dir(elsewhere.path())
        .env("XDG_DATA_HOME", elsewhere.path())
        .env_remove("RESTBENCH_SUBJECTS")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        o.stderr_text().contains("--subjects-dir"),
        "{}",
        o.stderr_text()
    );
}

#[test]
#[ignore = "slow: builds a scaffolded Go subject and verifies it (module download on a cold cache)"]
fn a_scaffolded_subject_builds_and_verifies() {
    let _turn = turn::take(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("subjects");
    // go-easyjson imports its own module's package: the rename must reach go.mod and main.go.
    let o = restbench()
        .args([
            "new",
            "my-server",
            "--from",
            "go-easyjson",
            "--subjects-dir",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", o.stderr_text());
    let o = restbench()
        .args([
            "verify",
            "my-server",
            "--workloads",
            "plaintext,todo,echo",
            "--subjects-dir",
        ])
        .arg(&dir)
        .env("RESTBENCH_CACHE", tmp.path().join("cache"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "verify failed:\n{}\n{}",
        o.stdout_text(),
        o.stderr_text()
    );
    assert!(tmp.path().join("cache/go-bin/my-server").is_file());
}

/// How many subject folders the checkout commits (each with its subject.toml).
fn committed_subjects() -> usize {
    std::fs::read_dir(repo().join("subjects"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("subject.toml").is_file())
        .count()
}
