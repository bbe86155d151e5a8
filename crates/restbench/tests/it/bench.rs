//! `restbench bench --cmd`: a command line as a subject, verified, measured and reported, with no
//! subject folder written. The server is a tiny Python script the test writes (the plaintext
//! contract: `GET /api/test` → `Hello, World!` as text/plain, 404 elsewhere). No test asserts a
//! speed.

use std::path::Path;
use std::process::Command;

use restbench_testkit::Outcome;

use crate::support::restbench;
use restbench_testkit::turn;

use restbench_testkit::fixtures::PYTHON_PLAINTEXT_SERVER as SERVER;

fn python() -> Option<&'static str> {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some("python3")
}

/// `restbench bench --cmd` of [`SERVER`] (written to `dir/hello.py`, started there) on plaintext,
/// single-thread, 2 connections, no warm-up, calibration or cgroups, with `extra` flags, into
/// `dir/out`; asserts it succeeded and returns its results.json.
fn bench_hello(python: &str, dir: &Path, extra: &[&str]) -> serde_json::Value {
    std::fs::write(dir.join("hello.py"), SERVER).unwrap();
    let out = dir.join("out");
    // Its own cache: the ad-hoc subject's log is kept there, and this file's tests run at once.
    let cache = tempfile::tempdir().unwrap();
    let o = restbench()
        .current_dir(dir)
        .env("RESTBENCH_CACHE", cache.path())
        .args(["bench", "--cmd", &format!("{python} hello.py {{port}}")])
        .args(extra)
        .args([
            "--workloads",
            "plaintext",
            "--scenarios",
            "single-thread",
            "--warmup",
            "0s",
            "-c",
            "2",
            "--no-calibrate",
            "--no-cgroups",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    o.assert_exit(0);
    serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap()
}

#[test]
fn bench_cmd_verifies_measures_and_reports_a_command_as_a_subject() {
    let _turn = turn::take(module_path!());
    let Some(python) = python() else {
        eprintln!("skipped: python3 is not installed, so there is no test server");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let results = bench_hello(
        python,
        dir.path(),
        &["--name", "hello-py", "--duration", "1s", "--repeats", "1"],
    );
    assert_eq!(results["kind"], "bench");
    let cells = results["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{results}");
    let cell = &cells[0];
    assert_eq!(cell["subject"], "hello-py");
    assert_eq!(cell["language"], "ad hoc");
    assert_eq!(cell["workload"], "plaintext");
    assert_eq!(cell["status"], "ok", "{cell}");
    assert!(cell["requests"].as_u64().unwrap() > 0, "{cell}");
    assert!(
        cell["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["check"] == "body" && f["level"] == "pass"),
        "verified: {cell}"
    );
    assert!(
        cell["repeats"][0]["timeseries"]
            .as_array()
            .is_some_and(|s| !s.is_empty()),
        "the repeat keeps its seconds: {cell}"
    );
    assert!(out.join("report.html").is_file() && out.join("report.md").is_file());
    // No subject folder was written: only the script and the results are in the folder.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        names
            .iter()
            .all(|n| ["hello.py", "out", "target"].contains(&n.as_str())),
        "{names:?}"
    );
}

/// `--restarts 2`: the two repeats run in two server processes, and the cell and the report say
/// how they spread between them.
#[test]
fn restarts_split_the_repeats_over_fresh_server_processes() {
    let _turn = turn::take(module_path!());
    let Some(python) = python() else {
        eprintln!("skipped: python3 is not installed, so there is no test server");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let results = bench_hello(
        python,
        dir.path(),
        &[
            "--duration",
            "300ms",
            "--repeats",
            "2",
            "--max-rounds",
            "2",
            "--restarts",
            "2",
        ],
    );
    let cell = &results["cells"][0];
    assert_eq!(cell["status"], "ok", "{cell}");
    assert_eq!(cell["repeats"].as_array().unwrap().len(), 2, "{cell}");
    // A slice another test's server took the CPU from is contended and does not count (the
    // tests of this file overlap); the spread is over the counted slices of both processes.
    let contended = cell["repeats"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["saturation"] == "contended");
    if contended {
        eprintln!("a slice was contended: the spread between processes is not checked");
        return;
    }
    assert_eq!(cell["restarts"]["processes"], 2, "{cell}");
    assert_eq!(
        cell["restarts"]["process_medians"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("cv between processes"), "{md}");
}

#[test]
fn bench_refuses_what_does_not_make_a_subject() {
    let _turn = turn::take(module_path!());
    for (args, says) in [
        (vec!["bench", "--cmd", " "], "command is empty"),
        (
            vec!["bench", "--cmd", "srv", "--name", "My Server"],
            "lowercase",
        ),
        (
            vec!["bench", "--cmd", "srv", "--subjects", "rust-axum"],
            "--subjects",
        ),
        (vec!["bench", "--cmd", "srv", "--workloads", "nope"], "nope"),
    ] {
        let o = restbench().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// A server that exits in the middle of a measured slice fails its cell, with its exit status
/// and the last lines it wrote, instead of being ranked on the requests it answered before.
#[test]
fn a_server_that_dies_during_a_measured_slice_fails_its_cell_with_why() {
    let _turn = turn::take(module_path!());
    let Some(python) = python() else {
        eprintln!("skipped: python3 is not installed, so there is no test server");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The contract's server, which gives up after 1,500 answers: the verifier needs a few
    // dozen, a slice of a second thousands.
    let dying = SERVER.replace(
        "        self.wfile.write(body)\n",
        "        self.wfile.write(body)\n        \
         Hello.answered = getattr(Hello, 'answered', 0) + 1\n        \
         if Hello.answered >= 1500:\n            \
         self.wfile.flush()\n            \
         sys.stderr.write('giving up after 1500 answers\\n')\n            \
         sys.stderr.flush()\n            \
         import os; os._exit(3)\n",
    );
    assert_ne!(dying, SERVER, "the patch applies");
    std::fs::write(dir.path().join("hello.py"), dying).unwrap();
    let out = dir.path().join("out");
    // Its own cache: the ad-hoc subject's log is kept there, and this file's tests run at once.
    let o = restbench()
        .current_dir(dir.path())
        .env("RESTBENCH_CACHE", dir.path().join("cache"))
        .args(["bench", "--cmd", &format!("{python} hello.py {{port}}")])
        .args(["--workloads", "plaintext", "--scenarios", "single-thread"])
        .args(["--warmup", "0s", "--duration", "1s", "--repeats", "3"])
        .args(["-c", "2", "--no-calibrate", "--no-cgroups", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap())
            .unwrap_or_else(|e| panic!("{e}: {}", o.stderr_text()));
    let cell = &results["cells"][0];
    assert_eq!(cell["status"], "failed", "{cell}");
    let reason = cell["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("exited during the load"), "{reason}");
    assert!(reason.contains("exit status: 3"), "{reason}");
    assert!(reason.contains("giving up after 1500 answers"), "{reason}");
}

/// A server stopped (SIGSTOP) in the middle of the run answers nothing more, and reports no
/// error either (its connections stay open): its cell fails with "the server stopped
/// answering" instead of standing "ok" at 0 req/s, and the run ends.
#[test]
fn a_server_stopped_mid_run_fails_its_cell_as_no_longer_answering() {
    let _turn = turn::take(module_path!());
    let Some(python) = python() else {
        eprintln!("skipped: python3 is not installed, so there is no test server");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The contract's server, which stops itself after 1,500 answers: the verifier and the
    // first slice get answers, the later slices none.
    let stopping = SERVER.replace(
        "        self.wfile.write(body)\n",
        "        self.wfile.write(body)\n        \
         Hello.answered = getattr(Hello, 'answered', 0) + 1\n        \
         if Hello.answered == 1500:\n            \
         self.wfile.flush()\n            \
         import os, signal; os.kill(os.getpid(), signal.SIGSTOP)\n",
    );
    assert_ne!(stopping, SERVER, "the patch applies");
    std::fs::write(dir.path().join("hello.py"), stopping).unwrap();
    let out = dir.path().join("out");
    // Its own cache: the ad-hoc subject's log is kept there, and this file's tests run at once.
    let o = restbench()
        .current_dir(dir.path())
        .env("RESTBENCH_CACHE", dir.path().join("cache"))
        .args(["bench", "--cmd", &format!("{python} hello.py {{port}}")])
        .args(["--workloads", "plaintext", "--scenarios", "single-thread"])
        .args(["--warmup", "0s", "--duration", "1s", "--repeats", "3"])
        .args(["-c", "2", "--no-calibrate", "--no-cgroups", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap())
            .unwrap_or_else(|e| panic!("{e}: {}", o.stderr_text()));
    let cell = &results["cells"][0];
    assert_eq!(cell["status"], "failed", "{cell}");
    let reason = cell["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("the server stopped answering"), "{reason}");
}
