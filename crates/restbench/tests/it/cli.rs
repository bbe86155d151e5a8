//! The binary as users run it: bad input gets one clear line; the main job runs end to end
//! and leaves no process behind. The end-to-end tests build and start real subjects, so they are
//! `#[ignore]`d with the reason; `cargo test -- --include-ignored` runs them, as CI does.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use restbench_testkit::{Outcome, TinyServer, closed_port, turn};

use crate::support::restbench;

/// The slow tests start real subjects and look for leftover processes by name, so they take
/// turns: a subject of one test must not look like a leftover of another.
static SLOW: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Waits for the other slow tests of this file; the turn lasts as long as the guard.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    SLOW.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn load_reports_an_unreachable_url_in_one_line() {
    let _turn = turn::take(module_path!());
    let port = closed_port();
    let o = restbench()
        .args(["load", "-d", "1s", &format!("http://127.0.0.1:{port}/")])
        .output()
        .unwrap();
    let (_, err) = o.text();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot connect") && err.contains(&port.to_string()),
        "{err}"
    );
}

#[test]
fn load_reports_an_unreadable_body_file_in_one_line() {
    let _turn = turn::take(module_path!());
    let o = restbench()
        .args(["load", "-b", "@/no/such/file.json", "http://127.0.0.1:1/"])
        .output()
        .unwrap();
    let (_, err) = o.text();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("/no/such/file.json"), "{err}");
}

#[test]
fn load_rejects_bad_flags() {
    let _turn = turn::take(module_path!());
    for args in [
        vec!["load", "-c", "zero", "http://127.0.0.1:1/"],
        vec!["load", "-d", "soon", "http://127.0.0.1:1/"],
    ] {
        let o = restbench().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    let o = restbench()
        .args(["load", "-c", "0", "http://127.0.0.1:1/"])
        .output()
        .unwrap();
    let (_, err) = o.text();
    assert_eq!(
        o.status.code(),
        Some(2),
        "bad arguments exit 2 as the README says"
    );
    assert!(err.contains("--connections"), "{err}");
    let o = restbench()
        .args(["load", "ftp://127.0.0.1/"])
        .output()
        .unwrap();
    assert!(o.text().1.contains("only http:// and https://"));
    for args in [
        vec!["load", "--max-streams", "4", "http://127.0.0.1:1/"],
        vec!["load", "--insecure", "http://127.0.0.1:1/"],
        vec!["load", "--http2", "--pipeline", "2", "http://127.0.0.1:1/"],
    ] {
        let o = restbench().args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", o.text().1);
    }
}

const OK: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

#[test]
fn load_takes_the_flags_of_oha_and_hey() {
    let _turn = turn::take(module_path!());
    let server = TinyServer::answering(OK);
    let url = server.url("/x");
    let o = restbench()
        .args(["load", "-q", "-z", "200ms", "-c", "1", "-t", "1"])
        .args(["-m", "post", "-T", "application/json", "-b", "{}"])
        .args(["--disable-keepalive", &url])
        .output()
        .unwrap();
    o.assert_exit(0);
    let requests = server.requests();
    let first = requests.first().expect("a request");
    assert_eq!(first.line(), "POST /x HTTP/1.1");
    let head = first.head.to_ascii_lowercase();
    assert!(head.contains("content-type: application/json"), "{head}");
    assert!(head.contains("connection: close"), "{head}");
}

#[test]
fn load_says_what_came_back_and_why_every_404_matters() {
    let _turn = turn::take(module_path!());
    let server = TinyServer::answering(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
    let o = restbench()
        .args([
            "load",
            "-q",
            "-n",
            "20",
            "-c",
            "1",
            "-t",
            "1",
            &server.url("/nope"),
        ])
        .output()
        .unwrap();
    let out = o.stdout_text();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.contains(&"  Status codes: 404: 20"), "{out}");
    assert!(
        lines.contains(&"  every answer was 404 Not Found: is the path right?"),
        "{out}"
    );
}

#[test]
fn load_hints_at_the_flag_meant_by_another_tool() {
    let _turn = turn::take(module_path!());
    for (args, hint) in [
        (
            vec!["load", "-d", r#"{"a":1}"#, "http://127.0.0.1:1/"],
            "the body is -b/--body; -d is the duration as in wrk",
        ),
        (
            vec!["load", "-q", "100", "http://127.0.0.1:1/"],
            "hint: -q is --quiet here; use -R/--rate for requests per second",
        ),
        (
            vec!["load", "http:/localhost:18080/x"],
            "malformed URL: http: must be followed by // (as in http://localhost:8080/)",
        ),
    ] {
        let o = restbench().args(&args).output().unwrap();
        o.assert_exit(2);
        let err = o.stderr_text();
        assert!(err.lines().any(|l| l.contains(hint)), "{args:?}: {err}");
        assert!(!err.contains("port is not"), "{args:?}: {err}");
    }
}

#[test]
fn subjects_json_lists_every_subject_with_its_facts() {
    let _turn = turn::take(module_path!());
    let o = restbench().args(["subjects", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", o.text().1);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["schema_version"], 1, "{doc}");
    let list = doc["subjects"].as_array().unwrap();
    let ids: Vec<&str> = list.iter().filter_map(|s| s["id"].as_str()).collect();
    for id in [
        "rust-hyper",
        "rust-axum",
        "rust-actix",
        "rust-reference",
        "go-nethttp",
        "node-http",
        "python-flask",
        "java-spring-boot",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    for s in list {
        for key in [
            "id",
            "language",
            "framework",
            "seeds",
            "workloads",
            "available",
        ] {
            assert!(s.get(key).is_some(), "{key} missing in {s}");
        }
        if s["available"] == false {
            assert!(s["reason"].is_string());
        }
    }
    // A workload a subject states it does not serve is listed with why, and not as served.
    let dotnet = list
        .iter()
        .find(|s| s["id"] == "dotnet-aspnetcore")
        .unwrap();
    assert!(
        dotnet["unserved"]["fortunes"]
            .as_str()
            .unwrap()
            .contains("Npgsql"),
        "{dotnet}"
    );
    let served = dotnet["workloads"].as_array().unwrap();
    assert!(served.iter().any(|w| w == "json") && !served.iter().any(|w| w == "fortunes"));
    let text = restbench().args(["subjects"]).output().unwrap();
    let (out, _) = text.text();
    assert!(
        out.contains("dotnet-aspnetcore does not serve users, db,"),
        "{out}"
    );
}

#[test]
fn a_broken_manifest_is_one_clear_error() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("demo-broken");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(
        sub.join("subject.toml"),
        "id = \"demo-broken\"\nlanguage = \"rust\"\nframework = 3\n",
    )
    .unwrap();
    let o = restbench()
        .args(["subjects", "--subjects-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let (_, err) = o.text();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err.contains("subject.toml") && err.contains("framework"),
        "{err}"
    );
}

/// Processes whose command line mentions `needle` (other than this test).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == me {
            continue;
        }
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) && !cmd.contains("cargo test") {
            found.push(format!("{pid}: {cmd}"));
        }
    }
    found
}

/// Cgroup folders made for the servers of the restbench process `pid`, in any hierarchy.
fn cgroups_of(pid: u32) -> Vec<PathBuf> {
    fn walk(dir: &Path, prefix: &str, depth: u32, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if !path.is_dir() || path.is_symlink() {
                continue;
            }
            if e.file_name().to_string_lossy().starts_with(prefix) {
                found.push(path);
            } else if depth > 0 {
                walk(&path, prefix, depth - 1, found);
            }
        }
    }
    let mut found = Vec::new();
    walk(
        Path::new("/sys/fs/cgroup"),
        &format!("restbench-{pid}-"),
        4,
        &mut found,
    );
    found
}

fn wait_until_no_cgroups(pid: u32) -> Vec<PathBuf> {
    let started = Instant::now();
    loop {
        let left = cgroups_of(pid);
        if left.is_empty() || started.elapsed() > Duration::from_secs(5) {
            return left;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The backend `restbench doctor` finds here.
fn backend() -> String {
    let o = restbench().args(["doctor", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    doc["backend"].as_str().unwrap().to_string()
}

/// The pids of `parent`'s children whose command line mentions `needle`.
fn children_mentioning(parent: u32, needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // Fields after the command's closing parenthesis: state, ppid, …
        let ppid = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if ppid == Some(parent)
            && String::from_utf8_lossy(&cmd)
                .replace('\0', " ")
                .contains(needle)
        {
            found.push(pid);
        }
    }
    found
}

fn wait_until_gone(needle: &str) -> Vec<String> {
    let started = Instant::now();
    loop {
        let left = processes_mentioning(needle);
        if left.is_empty() || started.elapsed() > Duration::from_secs(5) {
            return left;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
#[ignore = "slow: builds and measures the Rust subjects; cargo test -- --include-ignored runs it (CI does)"]
fn run_quick_measures_the_rust_subjects_and_leaves_nothing_behind() {
    let _turn = turn::take(module_path!());
    let _turn = one_at_a_time();
    let out = tempfile::tempdir().unwrap();
    let o = restbench()
        .args([
            "run",
            "--quick",
            "--duration",
            "1s",
            "--warmup",
            "0.5s",
            "--scenarios",
            "single-thread",
        ])
        .args([
            "--subjects",
            "rust-hyper,rust-axum,rust-actix,rust-reference",
            "--workloads",
            "plaintext,todo,echo",
        ])
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{stdout}\n{err}");
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    assert_eq!(results["schema_version"], 1);
    let backend = backend();
    assert_eq!(results["environment"]["backend"], backend.as_str());
    assert!(
        results["environment"]["loadgen_ceiling_rps"]
            .as_f64()
            .unwrap()
            > 1000.0
    );
    let cells = results["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 12, "{stdout}");
    // The conformance step ran (or came from the cache) for each subject before its cells, and
    // none of them is flagged.
    let conformance = results["conformance"].as_array().unwrap();
    assert_eq!(conformance.len(), 4, "{conformance:?}");
    assert!(
        cells.iter().all(|c| !c["flags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "nonconformant")),
        "{stdout}"
    );
    for c in cells {
        assert_eq!(c["placement"]["backend"], backend.as_str(), "{c}");
        assert_eq!(c["placement"]["allowed_cores"], 1.0, "{c}");
        assert!(!c["placement"]["server_cpus"].as_array().unwrap().is_empty());
        let source = if backend == "affinity-only" {
            "proc"
        } else {
            "cgroup"
        };
        assert_eq!(c["server"]["cpu_source"], source, "{c}");
        assert_eq!(c["status"], "ok", "{c}");
        assert!(c["rps"]["median"].as_f64().unwrap() > 100.0, "{c}");
        assert!(
            c["server"]["cpu_cores"].as_f64().unwrap() > 0.05,
            "server CPU not measured: {c}"
        );
        assert!(
            c["server"]["rss_peak_bytes"].as_u64().unwrap() > 100_000,
            "{c}"
        );
        assert!(c["loadgen"]["cpu_cores"].as_f64().unwrap() > 0.05, "{c}");
        assert_eq!(c["errors"]["status"], 0);
    }
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(report.contains("rust-reference"));
    assert!(
        report.contains("| rust-axum | echo | single-thread | ok |"),
        "{report}"
    );
    // The terminal gets an aligned table (report.md keeps the Markdown one).
    assert!(
        stdout.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.starts_with(&["rust-axum", "echo", "single-thread"])
        }),
        "{stdout}"
    );
    assert_eq!(
        wait_until_gone("cargo-target/release/rust-"),
        Vec::<String>::new()
    );
}

#[test]
#[ignore = "slow: builds and measures a subject; cargo test -- --include-ignored runs it (CI does)"]
fn ctrl_c_keeps_finished_cells_and_kill_leaves_no_subject_behind() {
    let _turn = turn::take(module_path!());
    let _turn = one_at_a_time();
    let out = tempfile::tempdir().unwrap();
    let spawn = |out: &Path| {
        restbench()
            .args([
                "run",
                "--duration",
                "1s",
                "--warmup",
                "0s",
                "--repeats",
                "1",
                "--scenarios",
                "single-thread",
            ])
            .args([
                "--subjects",
                "rust-hyper",
                "--workloads",
                "plaintext,todo,echo",
            ])
            .arg("--out")
            .arg(out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // Ctrl-C after the first cell: exit 130, the finished cells kept.
    let mut child = spawn(out.path());
    let results = out.path().join("results.json");
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(300) {
        let cells = std::fs::read(&results)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .map_or(0, |v| v["cells"].as_array().map_or(0, Vec::len));
        if cells >= 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&results).unwrap()).unwrap();
    assert_eq!(doc["interrupted"], true);
    assert!(!doc["cells"].as_array().unwrap().is_empty());
    assert_eq!(
        wait_until_gone("cargo-target/release/rust-hyper"),
        Vec::<String>::new()
    );
    assert_eq!(wait_until_no_cgroups(child.id()), Vec::<PathBuf>::new());

    // SIGKILL while a subject serves: the subject dies with restbench. Only this restbench's own
    // subject is watched (its child), so another run on the machine cannot decide the test.
    let out2 = tempfile::tempdir().unwrap();
    let mut child = spawn(out2.path());
    let started = Instant::now();
    let mut subject = children_mentioning(child.id(), "cargo-target/release/rust-hyper");
    while subject.is_empty() && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
        subject = children_mentioning(child.id(), "cargo-target/release/rust-hyper");
    }
    assert!(!subject.is_empty(), "the subject never started");
    if backend() != "affinity-only" {
        let started = Instant::now();
        while cgroups_of(child.id()).is_empty() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !cgroups_of(child.id()).is_empty(),
            "the subject has no cgroup"
        );
    }
    child.kill().unwrap();
    let _ = child.wait();
    let started = Instant::now();
    let alive = |pids: &[u32]| -> Vec<u32> {
        pids.iter()
            .copied()
            .filter(|p| {
                std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                    !s.rsplit(')')
                        .next()
                        .unwrap_or("")
                        .trim_start()
                        .starts_with('Z')
                })
            })
            .collect()
    };
    while !alive(&subject).is_empty() && started.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        alive(&subject),
        Vec::<u32>::new(),
        "the subject outlived restbench"
    );
    assert_eq!(wait_until_no_cgroups(child.id()), Vec::<PathBuf>::new());
}

#[test]
#[ignore = "slow: builds and verifies every available subject against PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn verify_passes_for_every_available_subject() {
    let _turn = turn::take(module_path!());
    let _turn = one_at_a_time();
    let o = restbench().args(["verify"]).output().unwrap();
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{stdout}\n{err}");
    assert!(stdout.contains("0 failed"), "{stdout}");
}

#[test]
fn conformance_refuses_an_unknown_subject_with_exit_2() {
    let _turn = turn::take(module_path!());
    let o = restbench()
        .args(["conformance", "no-such-subject"])
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    assert_eq!(o.status.code(), Some(2), "{stdout}\n{err}");
    assert!(err.contains("no-such-subject"), "{err}");
}

/// Subjects whose framework cannot pass a fail-level conformance case in its production
/// configuration, with the reason (also in the subject's README). None today.
const NONCONFORMANT_BY_FRAMEWORK: &[(&str, &str)] = &[];

#[test]
#[ignore = "slow: builds every available subject and runs the conformance cases against it; cargo test -- --include-ignored runs it (CI does)"]
fn conformance_passes_for_every_available_subject() {
    let _turn = turn::take(module_path!());
    let _turn = one_at_a_time();
    let o = restbench()
        .args(["conformance", "--json"])
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    let report: serde_json::Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{err}"));
    let subjects = report["subjects"].as_array().unwrap();
    assert!(!subjects.is_empty(), "no subject was checked: {err}");
    let mut unexplained = Vec::new();
    for s in subjects {
        let id = s["subject"].as_str().unwrap_or("");
        let failed: Vec<String> = s["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["verdict"] == "fail")
            .map(|c| format!("{}: {}", c["case"], c["seen"]))
            .collect();
        let explained = NONCONFORMANT_BY_FRAMEWORK.iter().any(|(n, _)| *n == id);
        if (!failed.is_empty() || !s["error"].is_null()) && !explained {
            unexplained.push(format!("{id}: {failed:?} {}", s["error"]));
        }
    }
    assert!(unexplained.is_empty(), "{unexplained:#?}\n{err}");
}

#[test]
#[ignore = "slow: builds and measures go-nethttp and rust-hyper; cargo test -- --include-ignored runs it (CI does)"]
fn study_b_reports_against_the_published_figures_and_compares() {
    let _turn = turn::take(module_path!());
    let _turn = one_at_a_time();
    let out = tempfile::tempdir().unwrap();
    let run = |dir: &Path| {
        restbench()
            .args([
                "study",
                "b",
                "--quick",
                "--subjects",
                "go-nethttp,rust-hyper",
            ])
            .arg("--out")
            .arg(dir)
            .output()
            .unwrap()
    };
    let first = out.path().join("first");
    let o = run(&first);
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{stdout}\n{err}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(first.join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["kind"], "study b");
    assert_eq!(doc["study"]["id"], "b");
    assert_eq!(doc["study"]["shortened"], true);
    assert_eq!(doc["protocol"]["connections"], 32);
    assert_eq!(doc["protocol"]["threads"], 4);
    assert_eq!(doc["protocol"]["requests"], 20_000);
    let cells = doc["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2, "{doc}");
    for c in cells {
        assert_eq!(c["status"], "ok", "{c}");
        assert_eq!(c["workload"], "todo");
        assert_eq!(c["scenario"], "all-cores");
        // Every round's slice is exactly -n requests.
        let repeats = c["repeats"].as_array().unwrap();
        assert!(!repeats.is_empty(), "{c}");
        for r in repeats {
            assert_eq!(r["requests"], 20_000, "exactly -n requests: {c}");
        }
        // The cell's total is over the slices that counted (a contended one does not).
        let counted = repeats
            .iter()
            .filter(|r| r["saturation"] != "contended")
            .count();
        let counted = if counted == 0 { repeats.len() } else { counted };
        assert_eq!(c["requests"], 20_000 * counted as u64, "{c}");
    }
    let md = std::fs::read_to_string(first.join("report.md")).unwrap();
    // The published Go figure beside the measured one, and the systems not run kept with a reason.
    assert!(md.contains("33,114"), "{md}");
    assert!(md.contains("java-jersey-grizzly"), "{md}");
    let html = std::fs::read_to_string(first.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("class=\"ratios\""));

    // `report` renders the same folder again; `compare` sets two runs side by side.
    std::fs::remove_file(first.join("report.html")).unwrap();
    let o = restbench().arg("report").arg(&first).output().unwrap();
    assert!(o.status.success(), "{:?}", o.text());
    assert!(first.join("report.html").is_file());
    let second = out.path().join("second");
    assert!(run(&second).status.success());
    let o = restbench()
        .args(["compare", "--json"])
        .arg(&first)
        .arg(second.join("results.json"))
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{err}");
    let cmp: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(cmp["schema_version"], 1, "{cmp}");
    assert!(
        stdout.contains("go-nethttp") && stdout.contains("rust-hyper"),
        "{cmp}"
    );
}

/// A plaintext server that takes each read for one whole request (the shortcut of TechEmpower
/// #9055): a request that arrives in one piece is answered right, so it passes `verify`, but one
/// split across two reads gets two answers.
const ONE_READ_SERVER: &str = r#"import os, socket, threading
def serve(c):
    with c:
        while True:
            data = c.recv(65536)
            if not data:
                return
            parts = data.split(b' ')
            ok = len(parts) > 2 and parts[1] == b'/api/test'
            body = b'Hello, World!' if ok else b'not found'
            head = b'HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n' % (
                200 if ok else 404, b'OK' if ok else b'Not Found', len(body))
            c.sendall(head + body)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', int(os.environ['PORT'])))
s.listen(128)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"#;

#[test]
#[ignore = "slow: measures a subject; cargo test -- --include-ignored runs it (CI does)"]
fn a_subject_that_reads_one_request_per_read_is_measured_but_flagged_nonconformant() {
    let _turn = turn::take(module_path!());
    let _turn = one_at_a_time();
    let subjects = tempfile::tempdir().unwrap();
    let dir = subjects.path().join("one-read");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("subject.toml"),
        "id = \"one-read\"\nlanguage = \"python\"\nframework = \"socket\"\nframework_version = \"3\"\nseeds = []\nworkloads = [\"plaintext\"]\ndescription = \"a server that reads each request in one read\"\n\n[requires]\ntools = [\"python3\"]\nhint = \"install python3\"\n\n[start]\ncommand = \"exec python3 server.py\"\n\n[scenarios.single-thread]\nenv = {}\nprocesses = 1\n",
    )
    .unwrap();
    std::fs::write(dir.join("server.py"), ONE_READ_SERVER).unwrap();
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let o = restbench()
        .args(["run", "--quick", "--duration", "1s", "--warmup", "0.5s"])
        .args(["--scenarios", "single-thread", "--no-calibrate"])
        .args(["--subjects", "one-read", "--subjects-dir"])
        .arg(subjects.path())
        .arg("--out")
        .arg(out.path())
        .env("RESTBENCH_CACHE", cache.path())
        .output()
        .unwrap();
    let (stdout, err) = o.text();
    assert!(o.status.success(), "{stdout}\n{err}");
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    let cells = results["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{stdout}");
    assert_eq!(
        cells[0]["status"], "ok",
        "measured, not failed: {}",
        cells[0]
    );
    assert!(
        cells[0]["requests"].as_u64().unwrap_or(0) > 0,
        "{}",
        cells[0]
    );
    let flags: Vec<&str> = cells[0]["flags"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    assert!(flags.contains(&"nonconformant"), "{flags:?}");
    let conformance = &results["conformance"][0];
    assert_eq!(conformance["subject"], "one-read");
    let failed: Vec<&str> = conformance["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] == "fail")
        .filter_map(|c| c["case"].as_str())
        .collect();
    assert!(
        failed.iter().any(|c| c.starts_with("split")),
        "a split request should fail: {failed:?}"
    );
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(report.contains("## Conformance"), "{report}");
    assert!(report.contains("nonconformant"), "{report}");
}

#[test]
fn run_takes_a_positional_id_as_verify_does_and_refuses_it_beside_subjects() {
    let _turn = turn::take(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let subjects = tmp.path().join("subjects");
    std::fs::create_dir(&subjects).unwrap();
    // An unknown id is refused alike either way: the positional one is the same selection.
    let refusal = |args: &[&str]| {
        let o = restbench()
            .arg("run")
            .args(args)
            .arg("--subjects-dir")
            .arg(&subjects)
            .arg("--out")
            .arg(tmp.path().join("out"))
            .output()
            .unwrap();
        (o.status.code(), o.stderr_text())
    };
    let positional = refusal(&["no-such-subject"]);
    let flag = refusal(&["--subjects", "no-such-subject"]);
    assert!(positional.1.contains("no-such-subject"), "{positional:?}");
    assert_eq!(positional, flag);
    assert!(!tmp.path().join("out").exists());

    let (code, err) = refusal(&["rust-hyper", "--subjects", "go-nethttp"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.starts_with("error: the argument '[ID]...' cannot be used with '--subjects <IDS>'"),
        "{err}"
    );
}

/// A subject whose build takes 30 s: an interrupt arrives while it builds.
const SLOW_BUILD_MANIFEST: &str = r#"
id = "slow-build"
language = "python"
framework = "http.server"
framework_version = "3"
workloads = ["plaintext"]
[requires]
tools = ["python3"]
[build]
commands = ["sleep 30"]
[start]
command = "exec python3 -m http.server $PORT --bind 127.0.0.1"
[scenarios.single-thread]
env = {}
"#;

/// Processes of process group `pgid` whose command line is `sleep 30`.
fn sleeping_in(pgid: u32) -> bool {
    restbench_testkit::procs::pids().into_iter().any(|pid| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // pid (comm) state ppid pgrp …
        let group = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(2)?.parse::<u32>().ok());
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        group == Some(pgid) && cmdline == b"sleep\x0030\x00"
    })
}

#[test]
fn an_interrupt_during_a_build_records_interrupted_cells_and_finalises_the_results() {
    use std::os::unix::process::CommandExt;
    let _turn = turn::take(module_path!());
    use nix::sys::signal::Signal::{SIGHUP, SIGINT, SIGTERM};
    // (signal, stdout a pipe whose reader is gone: `run … | head -1`, or a `| tee` killed by
    // the same Ctrl-C)
    for (signal, closed_stdout) in [
        (SIGINT, false),
        (SIGHUP, false),
        (SIGTERM, false),
        (SIGINT, true),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("subjects/slow-build");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("subject.toml"), SLOW_BUILD_MANIFEST).unwrap();
        let out = tmp.path().join("out");
        let stdout = if closed_stdout {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            Stdio::from(writer)
        } else {
            Stdio::piped()
        };
        let child = restbench()
            .args([
                "run",
                "slow-build",
                "--quick",
                "--no-calibrate",
                "--no-cgroups",
            ])
            .args(["--no-conformance", "--scenarios", "single-thread"])
            .arg("--subjects-dir")
            .arg(tmp.path().join("subjects"))
            .arg("--out")
            .arg(&out)
            .env("RESTBENCH_CACHE", tmp.path().join("cache"))
            // Its own group, signalled whole, as a terminal signals its foreground job.
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pgid = child.id();
        let started = Instant::now();
        while !sleeping_in(pgid) {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "{signal}: the build never started"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid as i32), signal).unwrap();
        let o = child.wait_with_output().unwrap();
        let (stdout, err) = o.text();
        assert!(
            started.elapsed() < Duration::from_secs(25),
            "{signal}: waited for the build"
        );
        assert_eq!(o.status.code(), Some(130), "{signal}: {stdout}\n{err}");
        assert!(
            err.contains("interrupted: the finished cells are kept"),
            "{signal}: {err}"
        );
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap())
                .unwrap();
        assert_eq!(doc["interrupted"], true, "{signal}: {doc}");
        assert!(doc["finished_at"].is_string(), "{signal}: {doc}");
        let cells = doc["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 1, "{signal}: {doc}");
        assert_eq!(cells[0]["status"], "interrupted", "{signal}: {doc}");
        assert_eq!(
            cells[0]["reason"], "interrupted before it was measured",
            "{signal}: {doc}"
        );
    }
}
