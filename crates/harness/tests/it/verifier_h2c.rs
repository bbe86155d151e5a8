//! The verifier over h2c against the real subjects that declare it: each serves HTTP/1.1 and h2c
//! (prior knowledge) on one port from one start, as the runner uses them, and the contract's
//! checks pass over both protocols.

use std::path::PathBuf;

use restbench_harness::serve::{StartOptions, start_subject};
use restbench_host::cgroup::Backend;
use restbench_host::placement::{Placement, available_cpus};
use restbench_model::{FindingLevel, Protocol, Scenario, Workload};
use restbench_subject::{self as subject, prepare};
use restbench_testkit::turn;
use restbench_verify as verify;

#[test]
#[ignore = "slow: builds rust-hyper; cargo test -- --include-ignored runs it (CI does)"]
fn rust_hyper_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("rust-hyper");
}

#[test]
#[ignore = "slow: builds rust-axum; cargo test -- --include-ignored runs it (CI does)"]
fn rust_axum_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("rust-axum");
}

#[test]
#[ignore = "slow: builds rust-actix; cargo test -- --include-ignored runs it (CI does)"]
fn rust_actix_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("rust-actix");
}

#[test]
#[ignore = "slow: builds go-nethttp; cargo test -- --include-ignored runs it (CI does)"]
fn go_nethttp_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("go-nethttp");
}

#[test]
#[ignore = "slow: installs node-http's packages; cargo test -- --include-ignored runs it (CI does)"]
fn node_http_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("node-http");
}

#[test]
#[ignore = "slow: builds go-chi; cargo test -- --include-ignored runs it (CI does)"]
fn go_chi_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("go-chi");
}

#[test]
#[ignore = "slow: builds go-gorilla; cargo test -- --include-ignored runs it (CI does)"]
fn go_gorilla_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("go-gorilla");
}

#[test]
#[ignore = "slow: builds go-easyjson; cargo test -- --include-ignored runs it (CI does)"]
fn go_easyjson_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("go-easyjson");
}

#[test]
#[ignore = "slow: builds go-nethttp-dynamic; cargo test -- --include-ignored runs it (CI does)"]
fn go_nethttp_dynamic_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("go-nethttp-dynamic");
}

#[test]
#[ignore = "slow: builds haskell-warp; cargo test -- --include-ignored runs it (CI does)"]
fn haskell_warp_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("haskell-warp");
}

#[test]
#[ignore = "slow: builds java-spring-boot; cargo test -- --include-ignored runs it (CI does)"]
fn java_spring_boot_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("java-spring-boot");
}

#[test]
#[ignore = "slow: builds java-light4j; cargo test -- --include-ignored runs it (CI does)"]
fn java_light4j_passes_the_contract_over_h1_and_h2c() {
    let _turn = turn::take(module_path!());
    passes_over_h1_and_h2c("java-light4j");
}

/// Builds and starts `id` once (single-thread scenario) and runs the common checks and the
/// workloads that need no database over HTTP/1.1 and then h2c on the same port. Skipped, with a
/// line saying why, where the subject's tools are missing.
fn passes_over_h1_and_h2c(id: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
    let subject = subject::select(subject::discover(&root).unwrap(), &[id.into()])
        .unwrap()
        .remove(0);
    assert!(
        subject.protocols.contains(&Protocol::H2c),
        "{id} declares h2c"
    );
    if let Some(reason) = subject.unavailable_reason() {
        eprintln!("skipped: {reason}");
        return;
    }
    let cache = prepare::cache_dir(&root);
    prepare::prepare(&subject, &cache).unwrap();
    let cpus = available_cpus();
    let placement = Placement {
        loadgen: vec![cpus[0]],
        server: cpus.clone(),
        shared: true,
    };
    let backend = Backend::affinity_only("a test");
    let options = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: &cache,
        database_url: None,
        db_pool_total: 1,
        address: None,
        remote: None,
    };
    let mut server = start_subject(&subject, Scenario::SingleThread, &options, None).unwrap();
    for protocol in [Protocol::H1, Protocol::H2c] {
        let mut f = verify::common_over(server.addr, protocol);
        for w in [Workload::Plaintext, Workload::Todo, Workload::Echo] {
            f.extend(verify::workload_over(server.addr, w, protocol, None));
        }
        let failed: Vec<_> = f
            .iter()
            .filter(|x| x.level == FindingLevel::Fail)
            .map(|x| x.message.clone())
            .collect();
        assert!(failed.is_empty(), "{id} over {protocol}: {failed:?}");
        if protocol == Protocol::H2c {
            assert!(
                f.iter().any(|x| x.message == "framed by http2"),
                "{id}: the answers came over HTTP/2: {f:?}"
            );
            assert!(
                f.iter()
                    .any(|x| x.check == "body-limit" && x.level == FindingLevel::Pass)
            );
        }
    }
    server.child.stop(std::time::Duration::from_secs(5));
}
