//! The capacity search against real sockets on 127.0.0.1, with servers made inside each test.
//! Short steps (a few hundred ms) and small step budgets; no test asserts this machine's speed:
//! the one band asserted is below a bound the server cannot exceed on any machine.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{Action, TestServer, ok, status};
use restbench_loadgen::capacity::{self, CapacitySpec};
use restbench_loadgen::{LoadSpec, Target};
use restbench_model::documents::histogram;
use restbench_model::{BoundBy, Capacity, RateStep, Slo};
use restbench_testkit::turn;

fn spec(server: &TestServer, slo: &[&str]) -> CapacitySpec {
    let mut load = LoadSpec::get(Target::parse(&server.url("/")).unwrap());
    load.connections = 8;
    load.threads = 1;
    load.timeout = Duration::from_secs(2);
    let mut s = CapacitySpec::new(load, Slo::parse_all(slo).unwrap());
    s.probe_duration = Duration::from_millis(400);
    s.step_duration = Duration::from_millis(400);
    s.step_warmup = Duration::from_millis(150);
    s.max_steps = 10;
    s.resolution = 0.05;
    s
}

fn search(s: &CapacitySpec) -> Capacity {
    let stop = AtomicBool::new(false);
    let mut run = |l: &LoadSpec| {
        restbench_loadgen::run(l, &stop, Arc::new(restbench_loadgen::Progress::default()))
            .map(|o| (o, None))
    };
    capacity::search_with(s, &stop, &mut run, &mut |_| {}).expect("capacity search")
}

fn at(s: &CapacitySpec, rate: f64) -> RateStep {
    let stop = AtomicBool::new(false);
    let mut run = |l: &LoadSpec| {
        restbench_loadgen::run(l, &stop, Arc::new(restbench_loadgen::Progress::default()))
            .map(|o| (o, None))
    };
    capacity::measure_at(s, rate, &mut run).expect("one step")
}

/// Burns `us` microseconds of this thread's CPU (not wall time: preemption does not count).
fn spin(us: u64) {
    use nix::time::{ClockId, clock_gettime};
    let now = || {
        let t = clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).unwrap();
        t.tv_sec() as u64 * 1_000_000 + t.tv_nsec() as u64 / 1_000
    };
    let end = now() + us;
    while now() < end {
        std::hint::spin_loop();
    }
}

#[test]
fn the_search_lands_below_a_known_service_time_and_its_steps_are_consistent() {
    let _turn = turn::take(module_path!());
    // One request at a time, each costing 500 µs of CPU: no machine serves more than 2,000/s.
    const SERVICE_US: u64 = 500;
    let ceiling = 1e6 / SERVICE_US as f64;
    let one_at_a_time = Arc::new(Mutex::new(()));
    let server = TestServer::start(move |_, _| {
        let _only = one_at_a_time.lock().unwrap();
        spin(SERVICE_US);
        Action::Send(ok("done"))
    });
    let mut s = spec(&server, &["p99<=30ms"]);
    s.load.connections = 16;
    let c = search(&s);
    let rate = c.rate.unwrap_or_else(|| panic!("no rate passed: {c:#?}"));
    // The stated band: at most 1e6/S (plus the measuring window's rounding), and not below a
    // quarter of it (a server thread starved of three quarters of a core would break this).
    assert!(
        rate <= 1.05 * ceiling,
        "{rate} req/s beats 1e6/S = {ceiling}"
    );
    assert!(
        rate >= 0.25 * ceiling,
        "{rate} req/s, far below 1e6/S = {ceiling}"
    );
    assert_eq!(c.bound_by, BoundBy::Server, "{}", c.reason);
    // Consistent: every passing rate below every failing one, and at least one of each.
    let max_pass = c.steps.iter().filter(|s| s.pass).map(|s| s.target_rps);
    let min_fail = c.steps.iter().filter(|s| !s.pass).map(|s| s.target_rps);
    let (max_pass, min_fail) = (
        max_pass.fold(0.0, f64::max),
        min_fail.fold(f64::INFINITY, f64::min),
    );
    assert!(max_pass < min_fail, "{:#?}", c.steps);
    assert!(min_fail.is_finite(), "no step failed: {:#?}", c.steps);
    assert!(c.steps.len() <= s.max_steps as usize);
    // Each step carries its own histogram, with as many answers as it counted.
    for step in &c.steps {
        let h = histogram::decode(&step.histogram).unwrap();
        assert_eq!(h.len(), step.requests, "{step:?}");
        assert!(step.pass == step.failed.is_empty());
    }
    // The capacity is the best passing step's achieved rate.
    assert_eq!(c.at_capacity().map(|s| s.achieved_rps), Some(rate));
}

#[test]
fn one_percent_of_500s_fails_an_error_clause() {
    let _turn = turn::take(module_path!());
    let server = TestServer::start(|n, _| {
        if n % 100 == 99 {
            Action::Send(status(500))
        } else {
            Action::Send(ok("fine"))
        }
    });
    let mut s = spec(&server, &["errors<=0.1%"]);
    s.step_duration = Duration::from_millis(1000);
    let strict = at(&s, 500.0);
    assert!(!strict.pass, "{strict:?}");
    assert!(
        strict.failed.iter().any(|f| f.starts_with("errors<=0.1%")),
        "{:?}",
        strict.failed
    );
    assert!(strict.errors.status > 0);
    // The same server under a looser clause passes at the same rate.
    s.slo = Slo::parse_all(&["errors<=5%"]).unwrap();
    let loose = at(&s, 500.0);
    assert!(loose.pass, "{loose:?}");
    // A whole search finds no rate that meets 0.1 % (three steps, all failing).
    let mut s = spec(&server, &["errors<=0.1%"]);
    s.max_steps = 3;
    s.load.connections = 4;
    let c = search(&s);
    assert_eq!(c.rate, None, "{c:#?}");
    assert_eq!(c.steps.len(), 3);
    assert!(c.steps.iter().all(|s| !s.pass));
}

#[test]
fn periodic_stalls_fail_a_p99_clause_the_same_server_passes_without_them() {
    let _turn = turn::take(module_path!());
    fn server(stall: bool) -> TestServer {
        // Every 600 ms the server stops answering for 250 ms: far beyond the clause, so that a
        // busy machine's scheduling delays (tens of ms) cannot decide the verdict either way.
        let t0 = Instant::now();
        TestServer::start(move |_, _| {
            let phase = t0.elapsed().as_millis() % 600;
            if stall && phase < 250 {
                Action::DelayThenSend(Duration::from_millis((250 - phase) as u64), ok("late"))
            } else {
                Action::Send(ok("now"))
            }
        })
    }
    let steady = server(false);
    let mut s = spec(&steady, &["p99<=100ms"]);
    s.step_duration = Duration::from_millis(1200);
    let passed = at(&s, 200.0);
    assert!(passed.pass, "{passed:?}");
    let stalling = server(true);
    let mut s = spec(&stalling, &["p99<=100ms"]);
    s.step_duration = Duration::from_millis(1200);
    let failed = at(&s, 200.0);
    assert!(!failed.pass, "{failed:?}");
    assert!(
        failed.failed.iter().any(|f| f.starts_with("p99<=100ms")),
        "{:?}",
        failed.failed
    );
}

#[test]
fn a_generator_at_its_cpu_budget_makes_the_capacity_a_floor() {
    let _turn = turn::take(module_path!());
    // The generator is given a budget of 0.001 cores, so that every load saturates it: this tests
    // the wiring from measured CPU to `bound_by`, not this machine's generator (the decision
    // itself is unit-tested with synthetic steps in `capacity.rs`).
    let server = TestServer::start(|_, _| Action::Send(ok("fast")));
    let mut s = spec(&server, &["p99<=100ms"]);
    s.generator_cores = Some(0.001);
    s.max_steps = 2;
    s.load.connections = 2;
    let c = search(&s);
    assert!(c.probe.generator_saturated, "{:?}", c.probe);
    assert_eq!(c.bound_by, BoundBy::Generator, "{}", c.reason);
    assert!(c.is_floor());
}

#[test]
fn an_equal_load_step_records_achieved_against_target_and_a_rate_not_held() {
    let _turn = turn::take(module_path!());
    // 2 ms of CPU per request, one at a time: at most 500/s on any machine.
    let one_at_a_time = Arc::new(Mutex::new(()));
    let server = TestServer::start(move |_, _| {
        let _only = one_at_a_time.lock().unwrap();
        spin(2_000);
        Action::Send(ok("done"))
    });
    // No SLO: an equal-load point is judged on the rate it held.
    let mut s = spec(&server, &[]);
    // A tenth of the server's capacity over a whole second: held even on a busy machine.
    s.step_duration = Duration::from_secs(1);
    let easy = at(&s, 50.0);
    assert_eq!(easy.target_rps, 50.0);
    assert!(easy.achieved_rps > 0.0 && easy.requests > 0);
    assert!(easy.pass, "{easy:?}");
    let too_much = at(&s, 2_000.0);
    assert_eq!(too_much.target_rps, 2_000.0);
    assert!(too_much.achieved_rps < 0.97 * 2_000.0, "{too_much:?}");
    assert!(!too_much.pass);
    assert!(
        too_much.failed.iter().any(|f| f.starts_with("held")),
        "{:?}",
        too_much.failed
    );
}
