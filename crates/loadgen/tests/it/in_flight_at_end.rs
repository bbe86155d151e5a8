//! Requests still waiting when a load ends, against a real server of the test's own that serves
//! one keep-alive connection at a time (as a single-threaded blocking server does): the waiting
//! requests are kept at their age, and the connections that got nothing are counted.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use restbench_loadgen::{LoadSpec, Progress, StopAt, Target};
use restbench_testkit::turn;

/// Accepts one connection and answers every request on it until the client closes it, then the
/// next: every other connection waits in the kernel's backlog, unanswered.
fn one_connection_at_a_time() -> (std::net::SocketAddr, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let stop = done.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            let Ok(stream) = stream else { continue };
            let mut writer = stream.try_clone().unwrap();
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            // One request per blank line (GET, no body); answer each.
            loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if line == "\r\n" => {
                        let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi";
                        if writer.write_all(answer).is_err() {
                            break;
                        }
                    }
                    Ok(_) => {}
                }
            }
        }
    });
    (addr, done)
}

#[test]
fn requests_waiting_at_the_end_are_kept_at_their_age_and_starved_connections_counted() {
    let _turn = turn::take(module_path!());
    let (addr, done) = one_connection_at_a_time();
    let mut spec = LoadSpec::get(Target::parse(&format!("http://{addr}/")).unwrap());
    spec.connections = 4;
    spec.threads = 1;
    spec.timeout = Duration::from_secs(10);
    spec.stop = StopAt::Duration(Duration::from_millis(800));
    let outcome = restbench_loadgen::run(
        &spec,
        &AtomicBool::new(false),
        Arc::new(Progress::default()),
    )
    .unwrap();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    // One connection was served, the other three waited the whole load.
    assert_eq!(outcome.answers_per_connection.len(), 4, "{outcome:?}");
    assert_eq!(outcome.starved_connections(), 3, "{outcome:?}");
    assert!(outcome.answered > 0);
    assert_eq!(
        outcome.answers_per_connection.iter().sum::<u64>(),
        outcome.answered,
        "what each connection got adds up"
    );
    // Their requests are in flight at the end, each at its age: about the whole load.
    assert!(outcome.in_flight >= 3, "{}", outcome.in_flight);
    assert_eq!(outcome.waiting_at_end.len(), outcome.in_flight);
    let ages_ms = outcome.waiting_at_end.max() / 1000;
    assert!(
        ages_ms >= 400,
        "the oldest waited {ages_ms} ms of an 800 ms load"
    );
    // Counted with the answers, they reach the p99: a floor of the true one.
    let mut all = outcome.latency.clone();
    all.add(&outcome.waiting_at_end).unwrap();
    assert!(all.value_at_quantile(0.999) >= outcome.latency.value_at_quantile(0.999));
}
