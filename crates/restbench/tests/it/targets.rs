//! `restbench load` loads this machine's loopback only, unless told otherwise: a typo in a URL
//! must not flood someone else's server.

use restbench_testkit::{Outcome, TinyServer, turn};

use crate::support::restbench;

#[test]
fn a_server_beyond_loopback_is_refused_naming_its_host_and_the_flag() {
    let _turn = turn::take(module_path!());
    // TEST-NET-1 (RFC 5737): nothing answers there, and nothing is sent.
    let o = restbench()
        .args(["load", "-n", "1", "http://192.0.2.7:8080/"])
        .output()
        .unwrap();
    o.assert_exit(2);
    let err = o.stderr_text();
    assert!(
        err.contains(
            "error: 192.0.2.7 is not this machine's loopback: pass --allow-remote to load it\n"
        ),
        "{err}"
    );
}

#[test]
fn localhost_and_loopback_addresses_are_loaded() {
    let _turn = turn::take(module_path!());
    let server = TinyServer::answering(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    for host in ["localhost", "127.0.0.1"] {
        let url = format!("http://{host}:{}/", server.port());
        let o = restbench()
            .args(["load", "-n", "20", "-c", "1", "-t", "1", &url])
            .output()
            .unwrap();
        o.assert_exit(0);
    }
}
