//! `restbench merge` and `load --shard/--start-at` on loopback: two shards merged equal the
//! server's count, a different load is refused naming the field, a past start is exit 2.

use restbench_model::LoadResult;
use restbench_testkit::TinyServer;

use crate::support::restbench;
use restbench_testkit::turn;

#[test]
fn two_shards_merge_to_the_servers_count_and_a_different_load_is_refused() {
    let _turn = turn::take(module_path!());
    let server = TinyServer::answering(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let dir = tempfile::tempdir().unwrap();
    let url = server.url("/");
    let start = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        + 300)
        .to_string();
    for i in 0..2 {
        let out = dir.path().join(format!("s{i}.json"));
        let o = restbench()
            .args([
                "load",
                "-n",
                "200",
                "-c",
                "2",
                "-t",
                "1",
                "--start-at",
                &start,
            ])
            .args(["--shard", &format!("{i}/2"), "--json"])
            .arg(&out)
            .arg(&url)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let merged = dir.path().join("m.json");
    let o = restbench()
        .arg("merge")
        .arg(dir.path().join("s0.json"))
        .arg(dir.path().join("s1.json"))
        .arg("--json")
        .arg(&merged)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Merged from 2 generators"));
    let m: LoadResult = serde_json::from_str(&std::fs::read_to_string(&merged).unwrap()).unwrap();
    assert_eq!(m.requests, 400);
    assert_eq!(server.answered(), 400);
    assert_eq!(
        restbench_model::documents::histogram::decode(&m.histogram)
            .unwrap()
            .len(),
        400
    );
    assert_eq!(m.shards.len(), 2);
    assert!(m.started_at_unix_ms.is_some());

    // Another path is another load.
    let other = dir.path().join("other.json");
    let o = restbench()
        .args(["load", "-n", "10", "-c", "1", "-t", "1", "--json"])
        .arg(&other)
        .arg(format!("{url}x"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let o = restbench()
        .arg("merge")
        .arg(dir.path().join("s0.json"))
        .arg(&other)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("url: http://127.0.0.1:") && err.contains("--force"),
        "{err}"
    );
    let o = restbench()
        .args(["merge", "--force"])
        .arg(dir.path().join("s0.json"))
        .arg(&other)
        .output()
        .unwrap();
    assert!(o.status.success());
}

#[test]
fn a_start_time_long_past_is_refused_with_exit_2() {
    let _turn = turn::take(module_path!());
    let o = restbench()
        .args([
            "load",
            "-n",
            "1",
            "--start-at",
            "2020-01-01T00:00:00Z",
            "http://127.0.0.1:9/",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("passed"));
}
