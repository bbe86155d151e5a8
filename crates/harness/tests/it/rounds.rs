//! Rounds against real servers. Interleaved: two tiny Python servers measured together, with a
//! CPU hog started on the server's CPU whenever one of them is measured. That one's slices are
//! contended (something else took the CPU): they do not count, the cell is measured again in
//! later rounds, and, staying contended, it is flagged and never ranked. Beside a reference:
//! three servers, each measured alone for its figures and in a duet beside the median one, every
//! slice either counted or listed with its cause. No test asserts a speed.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use restbench_harness::events::{Event, Observer, RunEvent, Step};
use restbench_harness::planner::{
    ConformanceStep, DatabaseRequest, Length, Machine, OpenLoopRequest, RoundsRequest, RunRequest,
    Selection, ShapeOverrides, resolve,
};
use restbench_host::placement::{Placement, available_cpus, pin_current_thread};
use restbench_model::{Flag, Protocol, Saturation, Scenario, Workload};
use restbench_subject::ad_hoc;
use restbench_testkit::turn;

use restbench_testkit::fixtures::PYTHON_PLAINTEXT_SERVER as SERVER;

/// Spins on the server's CPU while `on` is set; says when it is asked to, through the events.
struct Hog {
    on: Arc<AtomicBool>,
    victim: &'static str,
}

impl Observer for Hog {
    fn event(&self, event: &Event) {
        let event = &event.kind;
        if let RunEvent::Step { at, step } = event {
            let hog = matches!(step, Step::Measuring { .. }) && at.subject == self.victim;
            self.on.store(hog, Ordering::Relaxed);
        } else if matches!(event, RunEvent::RoundDone { .. }) {
            self.on.store(false, Ordering::Relaxed);
        }
    }
}

#[test]
#[ignore = "slow: two real servers measured in rounds (about 30 s); cargo test -- --include-ignored runs it (CI does)"]
fn a_cell_whose_cpu_is_taken_is_contended_remeasured_and_never_ranked() {
    let _turn = turn::take(module_path!());
    if !Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: no python3");
        return;
    }
    let placement = Placement::split(&available_cpus());
    if placement.shared {
        eprintln!("skipped: one CPU, generator and server share it");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.py"), SERVER).unwrap();
    let workloads = [Workload::Plaintext];
    let subjects = ["hello-a", "hello-b"]
        .map(|name| {
            ad_hoc::subject(
                "python3 hello.py {port}",
                name,
                &workloads,
                dir.path().into(),
            )
            .unwrap()
        })
        .to_vec();
    let request = RunRequest {
        kind: "run".into(),
        selection: Selection {
            subjects,
            workloads: workloads.to_vec(),
            scenarios: vec![Scenario::SingleThread],
            protocols: vec![Protocol::H1],
        },
        length: Length::Quick,
        shape: ShapeOverrides {
            connections: Some(2),
            pipeline: None,
            threads: Some(1),
            duration: Some(std::time::Duration::from_secs(1)),
            warmup: Some(std::time::Duration::ZERO),
            repeats: Some(3),
            restarts: Some(1),
            // One cell after another: the hog lands on hello-a's slices alone.
            rounds: RoundsRequest {
                seed: Some(1),
                interleaved: true,
                ..RoundsRequest::default()
            },
        },
        machine: Machine {
            cgroups: false,
            memory_limit: None,
            ..Machine::default()
        },
        database: DatabaseRequest {
            url: None,
            pool: 10,
        },
        open_loop: OpenLoopRequest::default(),
        remote: None,
        calibrate: false,
        out_dir: dir.path().join("out"),
        cache: dir.path().join("cache"),
        note: None,
        conformance: ConformanceStep::NotApplicable,
        profile: false,
        explain: false,
    };
    let mut resolved = resolve(request).unwrap();
    let server_cpu = resolved.plan.placement.server[0];
    let on = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let hog = {
        let (on, done) = (on.clone(), done.clone());
        std::thread::spawn(move || {
            let _ = pin_current_thread(&[server_cpu]);
            let mut x = 1u64;
            while !done.load(Ordering::Relaxed) {
                if on.load(Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                } else {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            std::hint::black_box(x);
        })
    };
    let observer = Hog {
        on,
        victim: "hello-a",
    };
    let results = resolved.run(&AtomicBool::new(false), &observer);
    done.store(true, Ordering::Relaxed);
    hog.join().unwrap();
    let results = results.unwrap();

    let a = results
        .cells
        .iter()
        .find(|c| c.subject == "hello-a")
        .unwrap();
    let saturations: Vec<Option<Saturation>> = a.repeats.iter().map(|r| r.saturation).collect();
    assert!(
        saturations
            .iter()
            .all(|s| *s == Some(Saturation::Contended)),
        "every hogged slice is contended: {saturations:?}"
    );
    assert_eq!(a.repeats.len(), 5, "measured again up to the cap (3 + 2)");
    assert!(a.has_flag(Flag::Contended), "{:?}", a.flags);
    let group = &results.groups[0];
    assert_eq!(group.rounds.len(), 5);
    assert!(
        group
            .rounds
            .iter()
            .all(|r| r.contended.contains(&"hello-a".to_string())),
        "{:?}",
        group.rounds
    );
    assert!(
        group.ranking.iter().all(|e| e.subject != "hello-a"),
        "a contended cell is never ranked: {:?}",
        group.ranking
    );
    assert!(
        group
            .pairs
            .iter()
            .all(|p| p.a != "hello-a" && p.b != "hello-a")
    );
    // The order of every round is recorded, and the seed with it.
    assert_eq!(results.protocol.rounds.as_ref().unwrap().seed, 1);
    assert!(group.rounds.iter().all(|r| !r.order.is_empty()));
}

#[test]
#[ignore = "slow: three real servers measured in duets (about 40 s); cargo test -- --include-ignored runs it (CI does)"]
fn cells_beside_a_reference_are_measured_alone_and_in_duets_and_every_slice_is_accounted_for() {
    let _turn = turn::take(module_path!());
    if !Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: no python3");
        return;
    }
    if Placement::split(&available_cpus()).shared {
        eprintln!("skipped: one CPU, generator and server share it");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.py"), SERVER).unwrap();
    let workloads = [Workload::Plaintext];
    let subjects = ["hello-a", "hello-b", "hello-c"]
        .map(|name| {
            ad_hoc::subject(
                "python3 hello.py {port}",
                name,
                &workloads,
                dir.path().into(),
            )
            .unwrap()
        })
        .to_vec();
    let request = RunRequest {
        kind: "run".into(),
        selection: Selection {
            subjects,
            workloads: workloads.to_vec(),
            scenarios: vec![Scenario::SingleThread],
            protocols: vec![Protocol::H1],
        },
        length: Length::Quick,
        shape: ShapeOverrides {
            connections: Some(2),
            threads: Some(1),
            duration: Some(std::time::Duration::from_secs(1)),
            warmup: Some(std::time::Duration::from_secs(1)),
            repeats: Some(2),
            restarts: Some(1),
            rounds: RoundsRequest {
                seed: Some(3),
                ..RoundsRequest::default()
            },
            pipeline: None,
        },
        machine: Machine {
            cgroups: false,
            memory_limit: None,
            ..Machine::default()
        },
        database: DatabaseRequest {
            url: None,
            pool: 10,
        },
        open_loop: OpenLoopRequest::default(),
        remote: None,
        calibrate: false,
        out_dir: dir.path().join("out"),
        cache: dir.path().join("cache"),
        note: None,
        conformance: ConformanceStep::NotApplicable,
        profile: false,
        explain: false,
    };
    let mut resolved = resolve(request).unwrap();
    let policy = resolved.plan.rounds.clone().unwrap();
    assert!(
        policy.beside_reference,
        "duets beside a reference by default"
    );
    assert_eq!(
        (policy.min_rounds, policy.solo_rounds),
        (3, Some(2)),
        "--quick: the repeats alone, one duet round more"
    );
    struct Quiet;
    impl Observer for Quiet {
        fn event(&self, _: &Event) {}
    }
    let results = resolved.run(&AtomicBool::new(false), &Quiet).unwrap();
    let group = &results.groups[0];
    let reference = group.reference.clone().expect("a reference");
    assert!(["hello-a", "hello-b", "hello-c"].contains(&reference.as_str()));
    // Every round has each other cell's duet beside the reference.
    for r in &group.rounds {
        let duets: Vec<&String> = r.order.iter().filter(|o| o.contains(" + ")).collect();
        assert!(
            duets
                .iter()
                .all(|d| d.ends_with(&format!(" + {reference}"))),
            "{:?}",
            r.order
        );
    }
    assert!(
        group.rounds[0]
            .order
            .iter()
            .filter(|o| o.contains(" + "))
            .count()
            == 2,
        "two duets in the first round: {:?}",
        group.rounds[0].order
    );
    // Each cell's own figures come from slices alone: at least the two solo rounds' slices.
    for c in &results.cells {
        assert!(c.repeats.len() >= 2, "{}: {:?}", c.subject, c.repeats.len());
    }
    // Every slice counted or listed with its cause, and a pair only from counted duets.
    for x in &group.excluded {
        assert!(!x.cause.is_empty() && x.to_unix_s >= x.from_unix_s, "{x:?}");
    }
    assert!(!group.counted.is_empty() || !group.excluded.is_empty());
    assert!(!group.settled, "a fixed count is never settled");
    for p in &group.pairs {
        assert!(p.rps.n >= 2, "{p:?}");
        assert!(p.rps_distinct.is_some(), "corrected over the run: {p:?}");
    }
}
