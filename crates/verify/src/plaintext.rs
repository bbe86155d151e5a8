//! `plaintext`: GET /api/test answers exactly `Hello, World!` as text/plain.

use crate::http::Endpoint;
use restbench_model::{Finding, Workload};

use super::answer::{envelope, fetch, snippet};
use crate::payloads::HELLO;

pub fn check(to: Endpoint) -> Vec<Finding> {
    let mut f = Vec::new();
    let Some(r) = fetch(to, Workload::Plaintext, &mut f) else {
        return f;
    };
    if envelope(&r, "GET /api/test", "text/plain", &mut f) {
        if r.body == HELLO.as_bytes() {
            f.push(Finding::pass("body", "body is exactly \"Hello, World!\""));
        } else if r.body_text().trim_end() == HELLO {
            f.push(Finding::warn(
                "body",
                format!("body has trailing whitespace: {:?}", r.body_text()),
            ));
        } else {
            f.push(Finding::fail(
                "body",
                format!(
                    "body {:?}, expected \"Hello, World!\"",
                    snippet(&r.body_text())
                ),
            ));
        }
    }
    f
}
