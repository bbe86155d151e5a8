//! wrk's Lua scripts (`-s`) against a real server that keeps the requests it read: seed 000's
//! `post.lua` and wrk's own `scripts/*.lua` (fixtures in `tests/fixtures/scripts/`), each checked
//! on the wire against what `-m/-H/-b` send, or against what the script asks for; the calls
//! restbench refuses are refused with their sentence.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use restbench_loadgen::script::{Script, Transfer};
use restbench_loadgen::{LoadError, LoadOutcome, LoadSpec, Progress, StopAt, Target};
use restbench_testkit::{Request, TinyServer};

const OK: &[u8] = b"HTTP/1.1 200 OK\r\nX-Token: t1\r\nContent-Length: 2\r\n\r\nok";

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scripts")
        .join(name)
}

/// `n` requests over one connection and thread, so that the server sees them in order.
fn spec(server: &TinyServer, path: &str, n: u64) -> LoadSpec {
    let mut s = LoadSpec::get(Target::parse(&server.url(path)).unwrap());
    s.connections = 1;
    s.threads = 1;
    s.stop = StopAt::Requests(n);
    s
}

fn run(spec: &LoadSpec) -> LoadOutcome {
    let outcome =
        restbench_loadgen::run(spec, &AtomicBool::new(false), Arc::new(Progress::default()))
            .expect("load run");
    assert_eq!(outcome.errors.total(), 0, "{:?}", outcome.errors);
    outcome
}

/// What a server saw for `spec` run with the script at `name` (and `args`).
fn with_script(
    name: &str,
    args: &[&str],
    path: &str,
    n: u64,
) -> (Vec<Request>, Script, LoadOutcome) {
    let server = TinyServer::answering(OK);
    let mut s = spec(&server, path, n);
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let script = Script::load(&fixture(name), &args, &mut s).expect("the script loads");
    s.validate().expect("the script's request is a valid one");
    let outcome = run(&s);
    (server.requests(), script, outcome)
}

/// What a server saw for `spec` after `change` (the -m/-H/-b a user would give).
fn with_flags(path: &str, n: u64, change: impl FnOnce(&mut LoadSpec)) -> Vec<Request> {
    let server = TinyServer::answering(OK);
    let mut s = spec(&server, path, n);
    change(&mut s);
    run(&s);
    server.requests()
}

/// The requests with the server's port taken out of the Host header, so that two servers'
/// requests compare.
fn portless(requests: Vec<Request>) -> Vec<Request> {
    requests
        .into_iter()
        .map(|mut r| {
            r.head = r
                .head
                .lines()
                .map(|l| {
                    if l.starts_with("Host: ") {
                        "Host: 127.0.0.1"
                    } else {
                        l
                    }
                })
                .collect::<Vec<_>>()
                .join("\r\n");
            r
        })
        .collect()
}

#[test]
fn seed_000_post_lua_sends_what_m_h_b_send_and_costs_nothing_per_request() {
    let (seen, script, outcome) = with_script("seed-000-post.lua", &[], "/echo", 3);
    assert!(
        !script.per_request(),
        "a script that only sets wrk.* is evaluated once"
    );
    assert!(outcome.script.is_none(), "no Lua ran per request");
    let colors =
        std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/colors.json"))
            .unwrap();
    assert_eq!(colors.len(), 4266);
    let flags = with_flags("/echo", 3, |s| {
        s.method = "POST".into();
        s.headers = vec![("Content-Type".into(), "application/json".into())];
        s.body = colors.clone();
    });
    assert_eq!(seen.len(), 3);
    assert_eq!(
        seen[0].body, colors,
        "the body is docs/colors.json, byte for byte"
    );
    assert_eq!(portless(seen), portless(flags));
}

#[test]
fn wrks_post_lua_sends_what_m_h_b_send() {
    let (seen, script, _) = with_script("wrk-post.lua", &[], "/", 2);
    assert!(!script.per_request());
    let flags = with_flags("/", 2, |s| {
        s.method = "POST".into();
        s.headers = vec![(
            "Content-Type".into(),
            "application/x-www-form-urlencoded".into(),
        )];
        s.body = b"foo=bar&baz=quux".to_vec();
    });
    assert_eq!(seen[0].line(), "POST / HTTP/1.1");
    assert_eq!(seen[0].body, b"foo=bar&baz=quux");
    assert_eq!(portless(seen), portless(flags));
}

#[test]
fn wrks_counter_lua_changes_the_path_and_a_header_on_every_request() {
    let (seen, script, outcome) = with_script("wrk-counter.lua", &[], "/", 5);
    assert!(script.per_request());
    let lines: Vec<&str> = seen.iter().map(|r| r.line()).collect();
    assert_eq!(
        lines,
        [
            "GET /0 HTTP/1.1",
            "GET /1 HTTP/1.1",
            "GET /2 HTTP/1.1",
            "GET /3 HTTP/1.1",
            "GET /4 HTTP/1.1"
        ]
    );
    for (i, r) in seen.iter().enumerate() {
        assert!(
            r.head.contains(&format!("\r\nX-Counter: {i}")),
            "{}",
            r.head
        );
        assert_eq!(
            r.head.matches("Host: ").count(),
            1,
            "one Host header: {}",
            r.head
        );
    }
    let cost = outcome.script.expect("the script's calls are counted");
    assert!(cost.calls >= 5, "{cost:?}");
    assert!(cost.spent > Duration::ZERO);
}

#[test]
fn wrks_auth_lua_reads_a_response_header_and_sends_it_on() {
    let (seen, _, _) = with_script("wrk-auth.lua", &[], "/", 3);
    assert_eq!(seen[0].line(), "GET /authenticate HTTP/1.1");
    for r in &seen[1..] {
        assert_eq!(r.line(), "GET /resource HTTP/1.1");
        assert!(r.head.contains("\r\nX-Token: t1"), "{}", r.head);
    }
}

#[test]
fn wrks_setup_lua_passes_values_to_the_threads_and_back() {
    let server = TinyServer::answering(OK);
    let mut s = spec(&server, "/", 40);
    s.threads = 2;
    s.connections = 2;
    let script = Script::load(&fixture("wrk-setup.lua"), &[], &mut s).unwrap();
    let outcome = run(&s);
    script.done(&outcome).expect("done() runs");
    let mut requests = 0;
    for t in 0..2 {
        let g = script.thread_globals(t);
        assert_eq!(g.get("id"), Some(&Transfer::Integer(t as i64 + 1)), "{g:?}");
        let Some(Transfer::Integer(r)) = g.get("requests") else {
            panic!("thread {t} left its request count: {g:?}")
        };
        let Some(Transfer::Integer(a)) = g.get("responses") else {
            panic!("thread {t} left its response count")
        };
        // The probe asked for one request before the run; every request sent was answered.
        assert!(*r >= *a && *a > 0, "{r} {a}");
        requests += a;
    }
    assert_eq!(requests, 40);
}

#[test]
fn a_script_with_response_and_done_sees_every_answer_and_wrks_summary() {
    let dir = std::env::temp_dir().join(format!("restbench-done-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("done.txt");
    let server = TinyServer::answering(OK);
    let mut s = spec(&server, "/", 30);
    s.threads = 2;
    s.connections = 2;
    let script = Script::load(
        &fixture("response-done.lua"),
        &[out.display().to_string()],
        &mut s,
    )
    .unwrap();
    assert!(script.per_request(), "response() runs per answer");
    let outcome = run(&s);
    script.done(&outcome).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let field = |k: &str| -> u64 {
        text.split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{k} in {text}"))
            .parse()
            .unwrap()
    };
    assert_eq!(field("threads"), 2);
    assert_eq!(field("requests"), 30);
    assert_eq!(field("seen"), 30, "{text}");
    assert_eq!(
        field("tokens"),
        30,
        "headers and body reached response(): {text}"
    );
    assert_eq!(field("status_errors"), 0);
    assert!(field("p99") >= 1 && field("max") >= field("p99"), "{text}");
}

#[test]
fn wrks_stop_lua_ends_the_thread_from_response() {
    let server = TinyServer::answering(OK);
    let mut s = spec(&server, "/", 1);
    s.stop = StopAt::Duration(Duration::from_secs(20));
    Script::load(&fixture("wrk-stop.lua"), &[], &mut s).unwrap();
    let started = Instant::now();
    let outcome = run(&s);
    assert!(started.elapsed() < Duration::from_secs(15), "stopped early");
    assert!(
        (100..110).contains(&outcome.answered),
        "{}",
        outcome.answered
    );
}

#[test]
fn what_restbench_cannot_do_as_wrk_is_refused_in_one_sentence() {
    let server = TinyServer::answering(OK);
    for (name, words) in [
        ("wrk-delay.lua", "delay() is not supported"),
        ("wrk-addr.lua", "wrk.lookup is not supported"),
        ("wrk-pipeline.lua", "several requests"),
    ] {
        let mut s = spec(&server, "/", 1);
        let e = match Script::load(&fixture(name), &[], &mut s) {
            Err(LoadError::Script(e)) => e,
            Err(other) => panic!("{name}: {other}"),
            Ok(_) => panic!("{name} was accepted"),
        };
        assert!(e.contains(words), "{name}: {e}");
        assert!(e.contains(name), "names the script: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    let mut s = spec(&server, "/", 1);
    let e = Script::load(&fixture("no-such.lua"), &[], &mut s)
        .err()
        .unwrap();
    assert!(e.to_string().contains("cannot read the script"), "{e}");
    assert_eq!(server.requests().len(), 0, "nothing was sent");
}

#[test]
fn init_gets_the_url_and_the_arguments_after_the_double_dash() {
    let dir = std::env::temp_dir().join(format!("restbench-init-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("args.lua");
    std::fs::write(
        &script,
        "function init(args) wrk.path = '/' .. args[1] .. '/' .. args[2]; wrk.headers['X-Url'] = args[0] end\n",
    )
    .unwrap();
    let server = TinyServer::answering(OK);
    let mut s = spec(&server, "/x", 1);
    let url = s.target.url.clone();
    Script::load(&script, &["a".into(), "b".into()], &mut s).unwrap();
    run(&s);
    let seen = server.requests();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(seen[0].line(), "GET /a/b HTTP/1.1");
    assert!(
        seen[0].head.contains(&format!("X-Url: {url}")),
        "{}",
        seen[0].head
    );
}
