//! The load engine against real sockets on 127.0.0.1, with servers started inside each test.
//! These tests assert behaviour (counts, classes, order, timing shapes), never speed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::support::{Action, TestServer, ok, run, status};
use restbench_loadgen::{HttpVersion, LoadError, LoadSpec, Progress, StopAt, Target};
use restbench_testkit::turn;

/// Lets the test server's acceptor catch up with connections the kernel already completed.
fn settle() {
    std::thread::sleep(Duration::from_millis(100));
}

fn spec(url: &str) -> LoadSpec {
    let mut s = LoadSpec::get(Target::parse(url).unwrap());
    s.timeout = Duration::from_secs(2);
    s
}

#[test]
fn request_count_is_exact_over_all_connections() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|_, _| Action::Send(ok("hi")));
    let mut s = spec(&server.url("/count"));
    s.connections = 7;
    s.threads = 3;
    s.stop = StopAt::Requests(1001);
    let r = run(&s);
    assert_eq!(r.requests, 1001);
    assert_eq!(r.sent, 1001);
    assert_eq!(r.errors.total(), 0);
    assert_eq!(server.requests.load(Ordering::SeqCst), 1001);
    assert_eq!(r.status_counts.get("200"), Some(&1001));
    assert!(server.every_head(|h| h.starts_with("GET /count HTTP/1.1\r\n")));
}

#[test]
fn keepalive_reuses_connections_and_no_keepalive_opens_one_per_request() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|_, _| Action::Send(ok("hi")));
    let mut s = spec(&server.url("/"));
    s.connections = 4;
    s.threads = 2;
    s.stop = StopAt::Requests(200);
    let r = run(&s);
    assert_eq!(r.requests, 200);
    settle();
    assert_eq!(server.accepted(), 4, "{r:?}");
    assert_eq!(r.connections_opened, 4);

    let server = TestServer::start(|_, _| Action::Send(ok("hi")));
    let mut s = spec(&server.url("/"));
    s.connections = 4;
    s.stop = StopAt::Requests(200);
    s.keepalive = false;
    let r = run(&s);
    assert_eq!(r.requests, 200);
    assert_eq!(r.errors.total(), 0);
    settle();
    assert_eq!(server.accepted(), 200);
    assert!(server.every_head(|h| h.contains("Connection: close")));
}

#[test]
fn http10_requests_as_ab_sends_them() {
    let _turn = turn::take(module_path!());
    // The server closes after each answer, as an HTTP/1.0 server does.
    let server = TestServer::start(|_, _| {
        Action::SendAndClose(
            b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nHello, World!".to_vec(),
        )
    });
    let mut s = spec(&server.url("/users"));
    s.connections = 8;
    s.stop = StopAt::Requests(100);
    s.http_version = HttpVersion::Http10;
    s.keepalive = false;
    let r = run(&s);
    assert_eq!(r.requests, 100);
    assert_eq!(r.errors.total(), 0);
    settle();
    assert_eq!(server.accepted(), 100);
    assert!(server.every_head(|h| h.starts_with("GET /users HTTP/1.0\r\n")));
}

#[test]
fn pipelined_answers_are_matched_in_order() {
    let _turn = turn::take(module_path!());
    // The server waits for two requests, answers the first, waits 60 ms, answers the second (a
    // client without two in flight would stall into timeouts). Each request after the first is
    // sent 60 ms before its answer whether it is first or second of its pair, so in-order
    // matching sees ~60 ms everywhere; matching the newest request instead would see 0 and 120 ms.
    let server = TestServer::start(|_, _| Action::Batch {
        n: 2,
        last_delay: Duration::from_millis(60),
    });
    let mut s = spec(&server.url("/"));
    s.connections = 1;
    s.threads = 1;
    s.pipeline = 2;
    s.stop = StopAt::Requests(24);
    let r = run(&s);
    assert_eq!(r.requests, 24);
    assert_eq!(r.errors.total(), 0);
    let p25 = restbench_model::documents::histogram::decode(&r.histogram)
        .unwrap()
        .value_at_quantile(0.25);
    assert!(
        p25 >= 55_000,
        "p25 {p25}us: an answer was matched to a later request"
    );
    assert!(
        r.latency_us.p90 < 100_000,
        "p90 {}us: an answer was matched to an earlier request",
        r.latency_us.p90
    );
}

#[test]
fn post_body_arrives_byte_for_byte() {
    let _turn = turn::take(module_path!());
    let body: Vec<u8> = (0..4266u32)
        .map(|i| b"{\"colors\": [\n]}"[i as usize % 15])
        .collect();
    let server = TestServer::start(|_, _| Action::Send(ok("{}")));
    let mut s = spec(&server.url("/echo"));
    s.method = "POST".into();
    s.headers
        .push(("Content-Type".into(), "application/json".into()));
    s.body = body.clone();
    s.connections = 3;
    s.stop = StopAt::Requests(30);
    let r = run(&s);
    assert_eq!(r.requests, 30);
    let seen = server.seen.lock().unwrap();
    assert_eq!(seen.len(), 30);
    for req in seen.iter() {
        assert!(req.head.starts_with("POST /echo HTTP/1.1\r\n"));
        assert!(req.head.contains("Content-Type: application/json"));
        assert!(req.head.contains("Content-Length: 4266"));
        assert_eq!(req.body, body);
    }
}

#[test]
fn latency_of_a_10ms_server_is_about_10ms() {
    let _turn = turn::take(module_path!());
    let server =
        TestServer::start(|_, _| Action::DelayThenSend(Duration::from_millis(10), ok("slow")));
    let mut s = spec(&server.url("/"));
    s.connections = 4;
    s.stop = StopAt::Duration(Duration::from_millis(1500));
    let r = run(&s);
    assert!(r.requests > 50, "only {} answers", r.requests);
    let p50 = r.latency_us.p50;
    assert!(
        (9_500..25_000).contains(&p50),
        "p50 {p50}us is not near 10 ms"
    );
    assert!(
        r.latency_us.min >= 9_500,
        "min {}us is below the server's delay",
        r.latency_us.min
    );
}

#[test]
fn each_second_carries_its_latency_and_the_live_figures_follow_the_run() {
    let _turn = turn::take(module_path!());
    let server =
        TestServer::start(|_, _| Action::DelayThenSend(Duration::from_millis(10), ok("slow")));
    let mut s = spec(&server.url("/"));
    s.connections = 4;
    s.threads = 2;
    s.stop = StopAt::Duration(Duration::from_millis(1500));
    let progress = Arc::new(Progress::default());
    let outcome = restbench_loadgen::run(&s, &AtomicBool::new(false), progress.clone()).unwrap();
    let r = outcome.to_result(&s);
    assert!(r.timeseries.len() >= 2, "{:?}", r.timeseries);
    for second in r.timeseries.iter().filter(|s| s.requests > 0) {
        let (p50, p99) = (second.p50_us.unwrap(), second.p99_us.unwrap());
        assert!(p50 >= 9_500 && p99 >= p50, "{second:?}");
    }
    assert!(
        r.timeseries
            .iter()
            .all(|s| s.requests > 0 || s.p99_us.is_none())
    );
    // What a progress line read: every answer, and every answer's latency once the threads
    // closed their last second.
    assert_eq!(progress.answered.load(Ordering::Relaxed), r.requests);
    assert_eq!(progress.errors.load(Ordering::Relaxed), r.errors.total());
    assert_eq!(progress.latency.count(), r.requests);
    assert!(progress.latency.quantile(0.99).unwrap() >= 9_500);
}

#[test]
fn stalls_show_in_corrected_percentiles_but_not_in_uncorrected_ones() {
    let _turn = turn::take(module_path!());
    // The server stalls for 300 ms at the start of every second and is instant otherwise.
    let t0 = Instant::now();
    let server = TestServer::start(move |_, _| {
        let phase = t0.elapsed().as_millis() % 1000;
        if phase < 300 {
            Action::DelayThenSend(Duration::from_millis((300 - phase) as u64), ok("late"))
        } else {
            Action::Send(ok("now"))
        }
    });
    let mut s = spec(&server.url("/"));
    s.connections = 4;
    s.threads = 1;
    s.rate = Some(200.0);
    s.stop = StopAt::Duration(Duration::from_secs(3));
    let r = run(&s);
    let corrected = r.latency_us;
    let uncorrected = r
        .uncorrected_latency_us
        .expect("a rate keeps the uncorrected distribution");
    assert!(
        r.requests > 400,
        "only {} answers at 200/s for 3 s",
        r.requests
    );
    assert!(
        corrected.p90 >= 40_000,
        "corrected p90 {}us hides the stalls",
        corrected.p90
    );
    assert!(
        uncorrected.p90 < 20_000,
        "uncorrected p90 {}us should be fast",
        uncorrected.p90
    );
    assert!(
        corrected.mean > 3.0 * uncorrected.mean,
        "corrected mean {}us vs uncorrected {}us",
        corrected.mean,
        uncorrected.mean
    );
}

#[test]
fn rate_is_kept_when_the_server_is_fast() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|_, _| Action::Send(ok("hi")));
    let mut s = spec(&server.url("/"));
    s.connections = 4;
    s.rate = Some(300.0);
    s.stop = StopAt::Duration(Duration::from_secs(2));
    let r = run(&s);
    assert!(
        (500..=640).contains(&r.requests),
        "{} answers at 300/s for 2 s",
        r.requests
    );
}

#[test]
fn status_errors_are_counted_by_code() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|n, _| {
        if n % 3 == 0 {
            Action::Send(status(500))
        } else {
            Action::Send(ok("hi"))
        }
    });
    let mut s = spec(&server.url("/"));
    s.connections = 1;
    s.stop = StopAt::Requests(300);
    let r = run(&s);
    assert_eq!(r.requests, 300);
    assert_eq!(r.errors.status, 100);
    assert_eq!(r.status_counts.get("500"), Some(&100));
    assert_eq!(r.status_counts.get("200"), Some(&200));
    assert_eq!(r.errors.unanswered(), 0);
}

#[test]
fn silent_server_gives_timeouts_and_fresh_connections() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|_, _| Action::Silence);
    let mut s = spec(&server.url("/"));
    s.connections = 2;
    s.timeout = Duration::from_millis(200);
    s.stop = StopAt::Duration(Duration::from_millis(1100));
    let started = Instant::now();
    let r = run(&s);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(r.requests, 0);
    assert!(r.errors.timeout >= 6, "{} timeouts", r.errors.timeout);
    assert!(
        server.accepted() >= 6,
        "timed-out connections must be replaced"
    );
}

#[test]
fn killed_server_ends_on_time_with_counted_errors_and_no_busy_loop() {
    let _turn = turn::take(module_path!());
    let mut server =
        TestServer::start(|_, _| Action::DelayThenSend(Duration::from_millis(1), ok("hi")));
    let mut s = spec(&server.url("/"));
    s.connections = 10;
    s.threads = 2;
    s.stop = StopAt::Duration(Duration::from_secs(2));
    let spec = s.clone();
    let started = Instant::now();
    let runner = std::thread::spawn(move || run(&spec));
    std::thread::sleep(Duration::from_millis(600));
    server.kill();
    let r = runner.join().unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_millis(2800), "run took {took:?}");
    assert!(r.requests > 0);
    assert!(
        r.errors.connect + r.errors.read + r.errors.write > 0,
        "errors: {:?}",
        r.errors
    );
    // 10 connections backing off from 10 ms to 1 s over ~1.4 s: a few dozen attempts, not thousands.
    assert!(
        r.errors.connect < 200,
        "{} connect attempts: reconnects must back off",
        r.errors.connect
    );
}

#[test]
fn idle_connections_closed_by_the_server_are_replaced_without_errors() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start_with(Some(Duration::from_millis(50)), |_, _| {
        Action::Send(ok("hi"))
    });
    let mut s = spec(&server.url("/"));
    s.connections = 2;
    s.threads = 1;
    s.rate = Some(10.0); // each connection idles 200 ms between requests
    s.stop = StopAt::Duration(Duration::from_millis(1500));
    let r = run(&s);
    assert!(r.requests >= 12, "{} answers", r.requests);
    assert_eq!(r.errors.unanswered(), 0, "{:?}", r.errors);
    assert!(server.accepted() >= 4);
}

#[test]
fn connection_close_answers_are_followed_by_a_new_connection() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|_, _| {
        Action::SendAndClose(
            b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok".to_vec(),
        )
    });
    let mut s = spec(&server.url("/"));
    s.connections = 2;
    s.stop = StopAt::Requests(50);
    let r = run(&s);
    assert_eq!(r.requests, 50);
    assert_eq!(r.errors.total(), 0);
    settle();
    assert_eq!(server.accepted(), 50);
}

#[test]
fn malformed_responses_are_parse_errors() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|n, _| {
        if n % 2 == 0 {
            Action::Send(b"HTTP/1.1 200 OK\r\nContent-Length: zz\r\n\r\n".to_vec())
        } else {
            Action::Send(ok("fine"))
        }
    });
    let mut s = spec(&server.url("/"));
    s.connections = 1;
    s.stop = StopAt::Requests(40);
    let r = run(&s);
    assert!(r.errors.parse >= 10, "{:?}", r.errors);
    assert!(r.requests >= 10);
    assert_eq!(r.requests + r.errors.parse, 40);
}

#[test]
fn chunked_and_close_delimited_bodies_are_read_to_their_end() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|n, _| {
        if n % 2 == 0 {
            Action::Send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n".to_vec())
        } else {
            Action::SendAndClose(b"HTTP/1.1 200 OK\r\n\r\nuntil close".to_vec())
        }
    });
    let mut s = spec(&server.url("/"));
    s.connections = 1;
    s.stop = StopAt::Requests(20);
    let r = run(&s);
    assert_eq!(r.requests, 20);
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
}

#[test]
fn warmup_is_left_out_of_the_figures() {
    let _turn = turn::take(module_path!());
    let server =
        TestServer::start(|_, _| Action::DelayThenSend(Duration::from_millis(5), ok("hi")));
    let mut s = spec(&server.url("/"));
    s.connections = 1;
    s.warmup = Duration::from_millis(500);
    s.stop = StopAt::Duration(Duration::from_millis(500));
    let r = run(&s);
    let total = server.requests.load(Ordering::SeqCst);
    assert!(r.requests > 0);
    assert!(
        r.requests < total * 3 / 4,
        "{} measured of {} served: warm-up was counted",
        r.requests,
        total
    );
    assert!(
        (0.45..0.7).contains(&r.duration_s),
        "measured {}s",
        r.duration_s
    );
}

#[test]
fn unreachable_server_is_an_error_before_any_load() {
    let _turn = turn::take(module_path!());
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let s = spec(&format!("http://127.0.0.1:{port}/"));
    let err = restbench_loadgen::run(&s, &AtomicBool::new(false), Arc::new(Progress::default()))
        .unwrap_err();
    assert!(matches!(err, LoadError::Unreachable { .. }), "{err}");
    assert!(err.to_string().contains(&port.to_string()));
}

#[test]
fn stop_flag_ends_the_run_early_and_keeps_the_figures() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|_, _| Action::Send(ok("hi")));
    let mut s = spec(&server.url("/"));
    s.stop = StopAt::Duration(Duration::from_secs(30));
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::SeqCst);
    });
    let started = Instant::now();
    let outcome = restbench_loadgen::run(&s, &stop, Arc::new(Progress::default())).unwrap();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(outcome.answered > 0);
}
