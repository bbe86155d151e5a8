//! The verifier over h2c against a real subject: rust-hyper serves HTTP/1.1 and h2c (prior
//! knowledge) on one port, and the contract's checks pass over both protocols.

use std::path::PathBuf;

use restbench_harness::cgroup::Backend;
use restbench_harness::placement::{Placement, available_cpus};
use restbench_harness::runner::{StartOptions, start_subject};
use restbench_harness::{prepare, subject, verify};
use restbench_model::{FindingLevel, Protocol, Scenario, Workload};

#[test]
#[ignore = "slow: builds rust-hyper; cargo test -- --include-ignored runs it (CI does)"]
fn rust_hyper_passes_the_contract_over_h1_and_h2c() {
    if subject::find_on_path("cargo").is_none() {
        eprintln!("skipped: needs cargo");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
    let hyper = subject::select(subject::discover(&root).unwrap(), &["rust-hyper".into()])
        .unwrap()
        .remove(0);
    assert!(hyper.protocols.contains(&Protocol::H2c));
    let cache = prepare::cache_dir(&root);
    prepare::prepare(&hyper, &cache).unwrap();
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
    let mut server = start_subject(&hyper, Scenario::SingleThread, &options, None).unwrap();
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
        assert!(failed.is_empty(), "{protocol}: {failed:?}");
        if protocol == Protocol::H2c {
            assert!(
                f.iter().any(|x| x.message == "framed by http2"),
                "the answers came over HTTP/2: {f:?}"
            );
            assert!(
                f.iter()
                    .any(|x| x.check == "body-limit" && x.level == FindingLevel::Pass)
            );
        }
    }
    server.child.stop(std::time::Duration::from_secs(5));
}
