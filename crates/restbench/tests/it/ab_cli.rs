//! `restbench ab` as a framework's CI runs it: two folders of one C server, B doing more of A's
//! work per request. Either mode calls B costlier and the gate fails the build; a duet
//! measures both sides in every round, an interleaved run swaps their order every round.
//! No test asserts a speed: a duet's 3× cost is far beyond its noise, and an interleaved run,
//! whose sides meet the machine's speed steps at different instants (three quick rounds on a
//! noisy machine gave intervals as wide as [0.76, 4.29] for a ratio of 1.8), is given 10×.

use std::path::Path;

use restbench_testkit::{Outcome, fixtures, turn};

use crate::support::restbench;

/// `root/work-c/`: a C server doing `WORK` iterations of work per request, built with
/// `-DWORK=work`.
fn work_subject(root: &Path, work: u32) -> std::path::PathBuf {
    let dir = root.join("work-c");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("server.c"),
        fixtures::c_plaintext_server(
            "",
            "volatile unsigned long x = 0;\n            for (unsigned long k = 0; k < WORK; k++) x += k;",
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("subject.toml"),
        format!(
            "id = \"work-c\"\nlanguage = \"rust\"\nframework = \"poll\"\nframework_version = \"1\"\n\
             seeds = []\nworkloads = [\"plaintext\"]\ndescription = \"a server doing fixed work per request\"\n\n\
             [requires]\ntools = [\"cc\"]\nhint = \"install a C compiler\"\n\n\
             [build]\ncommands = [\"cc -O1 -DWORK={work} -o work-server server.c\"]\noutputs = [\"work-server\"]\n\n\
             [start]\ncommand = \"exec ./work-server\"\n\n\
             [scenarios.single-thread]\nenv = {{}}\nprocesses = 1\n"
        ),
    )
    .unwrap();
    dir
}

/// `ab A B [--interleaved] --quick --fail-if 'cpu_us_per_req>+20%'`, B doing `times` A's work:
/// its exit code, stdout, and the JSON documents it wrote (ab.json, results.json).
fn ab(interleaved: bool, times: u32) -> (i32, String, serde_json::Value, serde_json::Value) {
    let sides = tempfile::tempdir().unwrap();
    let a = work_subject(&sides.path().join("a"), 20_000);
    let b = work_subject(&sides.path().join("b"), 20_000 * times);
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let o = restbench()
        .arg("ab")
        .args([&a, &b])
        .args(interleaved.then_some("--interleaved"))
        .args(["--quick", "--workloads", "plaintext"])
        .args(["--scenarios", "single-thread", "--connections", "8"])
        .args(["--no-conformance", "--fail-if", "cpu_us_per_req>+20%"])
        .arg("--out")
        .arg(out.path().join("run"))
        .env("RESTBENCH_CACHE", cache.path())
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    let read = |name: &str| -> serde_json::Value {
        let path = out.path().join("run").join(name);
        let text = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e}\n{stdout}\n{err}", path.display()));
        serde_json::from_slice(&text).unwrap()
    };
    let (ab, results) = (read("ab.json"), read("results.json"));
    (
        o.status.code().unwrap_or(-1),
        format!("{stdout}\n{err}"),
        ab,
        results,
    )
}

/// The row's ratio of CPU µs per request, its interval, and that it was paired by round.
fn cpu_ratio(ab: &serde_json::Value) -> (f64, f64, bool) {
    let ratios = ab["rows"][0]["ratios"].as_array().expect("one row");
    let cpu = ratios
        .iter()
        .find(|r| r["measure"] == "cpu_us_per_req")
        .expect("a CPU ratio");
    (
        cpu["estimate"].as_f64().unwrap(),
        cpu["interval"]["low"].as_f64().unwrap(),
        cpu["paired"].as_bool().unwrap(),
    )
}

fn rounds(results: &serde_json::Value) -> Vec<Vec<String>> {
    results["groups"][0]["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["order"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

/// The two tests of this file share its turn, so they would run at once: each holds this while
/// it measures, since the other's servers would take its CPU.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn skip_on_one_cpu() -> bool {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        eprintln!("skipped: one CPU, generator and server share it");
    }
    cpus < 2
}

#[test]
#[ignore = "slow: builds two C servers and measures them as a duet (about 30 s); cargo test -- --include-ignored runs it (CI does)"]
fn a_duet_measures_both_sides_in_every_round_and_the_gate_fails_a_regression() {
    let _turn = turn::take(module_path!());
    if skip_on_one_cpu() {
        return;
    }
    let _alone = MEASURING.lock().unwrap_or_else(|p| p.into_inner());
    let (code, output, ab, results) = ab(false, 3);
    assert_eq!(code, 1, "a 3× cost fails the gate: {output}");
    assert_eq!(ab["mode"], "duet", "{output}");
    assert_eq!(results["protocol"]["rounds"]["duet"], true);
    let (estimate, low, paired) = cpu_ratio(&ab);
    assert!(paired, "a duet's rounds pair the two sides");
    assert!(estimate > 1.5 && low > 1.2, "B costs more: {output}");
    let rounds = rounds(&results);
    assert!(rounds.len() >= 3, "{rounds:?}");
    for order in &rounds {
        assert_eq!(order.len(), 2, "both sides in every round: {rounds:?}");
    }
    for cell in results["cells"].as_array().unwrap() {
        let measured: Vec<u64> = cell["repeats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["round"].as_u64().unwrap())
            .collect();
        assert_eq!(measured, (0..rounds.len() as u64).collect::<Vec<_>>());
    }
    assert!(output.contains("costlier"), "{output}");
    assert!(output.contains("duet"), "the mode is said: {output}");
}

#[test]
#[ignore = "slow: builds two C servers and measures them interleaved (about 30 s); cargo test -- --include-ignored runs it (CI does)"]
fn interleaved_rounds_swap_the_order_of_the_sides_every_round() {
    let _turn = turn::take(module_path!());
    if skip_on_one_cpu() {
        return;
    }
    let _alone = MEASURING.lock().unwrap_or_else(|p| p.into_inner());
    let (code, output, ab, results) = ab(true, 10);
    assert_eq!(code, 1, "a 10× cost fails the gate: {output}");
    assert_eq!(ab["mode"], "interleaved", "{output}");
    assert!(results["protocol"]["rounds"].get("duet").is_none());
    let (estimate, _, paired) = cpu_ratio(&ab);
    assert!(paired && estimate > 1.5, "{output}");
    let rounds = rounds(&results);
    // Rounds 0 and 1, 2 and 3, …; a round that re-measured one contended side alone is skipped.
    let full = |p: &&[Vec<String>]| p.len() == 2 && p.iter().all(|o| o.len() == 2);
    assert!(rounds.chunks(2).any(|p| full(&p)), "{rounds:?}");
    for pair in rounds.chunks(2).filter(full) {
        let mut back = pair[1].clone();
        back.reverse();
        assert_eq!(back, pair[0], "A B, then B A: {rounds:?}");
    }
}
