//! `restbench profile` and `run --profile` as users run them: a test server whose hot function
//! is known comes out on top, and without perf the command says why while a run goes on.

use std::path::Path;

use restbench_testkit::{Outcome, fixtures, turn};

use crate::support::restbench;

/// A C server that spins in `burn_cycles_for_profile` on every request (declared `rust`, the
/// closest native language subject.toml names: DWARF unwinding, no flags).
fn hot_server() -> String {
    fixtures::c_plaintext_server(
        "__attribute__((noinline)) unsigned long burn_cycles_for_profile(void) {
    volatile unsigned long x = 0;
    for (unsigned long i = 0; i < 200000; i++) x += i;
    return x;
}
",
        "burn_cycles_for_profile();",
    )
}

fn hot_subject(root: &Path) {
    let dir = root.join("hot-c");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("server.c"), hot_server()).unwrap();
    std::fs::write(
        dir.join("subject.toml"),
        "id = \"hot-c\"\nlanguage = \"rust\"\nframework = \"poll\"\nframework_version = \"1\"\n\
         seeds = []\nworkloads = [\"plaintext\"]\ndescription = \"a server with a known hot function\"\n\n\
         [requires]\ntools = [\"cc\"]\nhint = \"install a C compiler\"\n\n\
         [build]\ncommands = [\"cc -O1 -g -o hot-server server.c\"]\noutputs = [\"hot-server\"]\n\n\
         [start]\ncommand = \"exec ./hot-server\"\n\n\
         [scenarios.single-thread]\nenv = {}\nprocesses = 1\n",
    )
    .unwrap();
}

#[test]
fn run_help_offers_explain_and_says_what_it_compares() {
    let o = restbench().args(["run", "--help"]).output().unwrap();
    let (out, _) = o.text();
    assert!(o.status.success());
    let at = out
        .find("--explain")
        .unwrap_or_else(|| panic!("no --explain in:\n{out}"));
    let described = &out[at..];
    assert!(
        described.contains("Profile every cell (as --profile does)")
            && described.contains("pair of neighbours in a ranking")
            && described.contains("differential flame graph"),
        "{described}"
    );
}

#[test]
fn profile_without_perf_says_why_before_building_anything() {
    let _turn = turn::take(module_path!());
    let subjects = tempfile::tempdir().unwrap();
    hot_subject(subjects.path());
    let o = restbench()
        .args([
            "profile",
            "hot-c",
            "--workload",
            "plaintext",
            "--subjects-dir",
        ])
        .arg(subjects.path())
        .env("RESTBENCH_PERF", "/nonexistent/perf")
        .output()
        .unwrap();
    let (_, err) = o.text();
    assert!(!o.status.success());
    assert!(
        err.contains("cannot profile here") && err.contains("linux-perf"),
        "{err}"
    );
    assert!(
        !subjects.path().join("hot-c/hot-server").exists(),
        "nothing was built"
    );
}

#[test]
#[ignore = "slow: builds a C server and profiles it with perf as root; cargo test -- --include-ignored runs it (CI does)"]
fn profile_puts_the_known_hot_function_on_top() {
    let _turn = turn::take(module_path!());
    let subjects = tempfile::tempdir().unwrap();
    hot_subject(subjects.path());
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let o = restbench()
        .args([
            "profile",
            "hot-c",
            "--workload",
            "plaintext",
            "--duration",
            "2s",
        ])
        .args(["--warmup", "1s", "--connections", "4", "--subjects-dir"])
        .arg(subjects.path())
        .arg("--out")
        .arg(out.path())
        .env("RESTBENCH_CACHE", cache.path())
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{stdout}\n{err}");
    let profile: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("profile.json")).unwrap()).unwrap();
    let top = &profile["top_symbols"][0];
    assert_eq!(top["symbol"], "burn_cycles_for_profile", "{stdout}");
    assert_eq!(top["part"], "own code");
    assert!(profile["split"]["own"].as_f64().unwrap() > 0.5, "{stdout}");
    assert!(profile["syscalls_per_request"].as_f64().is_some());
    let folded = std::fs::read_to_string(out.path().join("stacks.folded")).unwrap();
    assert!(
        folded
            .lines()
            .any(|l| l.contains("main;burn_cycles_for_profile"))
    );
    let page = std::fs::read_to_string(out.path().join("profile.html")).unwrap();
    assert!(page.contains("data-flame") && page.contains("burn_cycles_for_profile"));
    assert!(stdout.contains("burn_cycles_for_profile"));
    // The differential graph of a profile against itself.
    let diff = tempfile::tempdir().unwrap();
    let o = restbench()
        .args(["profile", "--diff"])
        .arg(out.path())
        .arg(out.path().join("stacks.folded"))
        .arg("--out")
        .arg(diff.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", o.text().1);
    let svg = std::fs::read_to_string(diff.path().join("diff.svg")).unwrap();
    assert!(svg.contains("burn_cycles_for_profile"));
}

/// `run --quick --profile` of the hot subject, one 1 s round, with `perf` as the profiler (or
/// the binary given); asserts it succeeded and returns its output folder, stdout and stderr.
fn profiled_run(perf: Option<&str>) -> (tempfile::TempDir, String, String) {
    let subjects = tempfile::tempdir().unwrap();
    hot_subject(subjects.path());
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut command = restbench();
    command
        .args(["run", "--quick", "--duration", "1s", "--warmup", "0.5s"])
        .args(["--repeats", "1", "--max-rounds", "1", "--profile"])
        .args([
            "--scenarios",
            "single-thread",
            "--no-calibrate",
            "--no-conformance",
        ])
        .args(["--subjects", "hot-c", "--subjects-dir"])
        .arg(subjects.path())
        .arg("--out")
        .arg(out.path())
        .env("RESTBENCH_CACHE", cache.path());
    if let Some(perf) = perf {
        command.env("RESTBENCH_PERF", perf);
    }
    let o = command.output().unwrap();
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{stdout}\n{err}");
    (out, stdout, err)
}

#[test]
#[ignore = "slow: measures a subject; cargo test -- --include-ignored runs it (CI does)"]
fn a_run_with_profile_but_no_perf_still_measures_and_says_why() {
    let _turn = turn::take(module_path!());
    let (out, stdout, err) = profiled_run(Some("/nonexistent/perf"));
    assert!(
        format!("{stdout}{err}").contains("no profile for hot-c"),
        "{stdout}\n{err}"
    );
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    let cell = &results["cells"][0];
    assert_eq!(cell["status"], "ok");
    assert!(cell.get("profile").is_none());
}

#[test]
#[ignore = "slow: measures a subject and profiles it with perf as root; cargo test -- --include-ignored runs it (CI does)"]
fn a_run_with_profile_keeps_each_cells_profile_apart_from_its_figures() {
    let _turn = turn::take(module_path!());
    let (out, stdout, _) = profiled_run(None);
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    let cell = &results["cells"][0];
    let profile = &cell["profile"];
    assert_eq!(
        profile["top_symbols"][0]["symbol"], "burn_cycles_for_profile",
        "{stdout}"
    );
    assert_eq!(
        profile["duration_s"].as_f64().map(f64::round),
        Some(3.0),
        "--quick's slice"
    );
    // The measured figures are the round's: one 1 s slice, not the 3 s profiling slice.
    assert_eq!(cell["repeats"].as_array().unwrap().len(), 1);
    let html = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert!(html.contains("data-flame") && html.contains("data-chart=\"cpu-split\""));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("## Profiles"));
}
