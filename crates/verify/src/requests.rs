//! The workloads (the names and routes are [`restbench_model::Workload`]) and what the harness
//! sends for each: headers and body. The contract is described in `docs/workloads.md`.

pub use restbench_model::Workload;

use crate::payloads;

/// Headers beyond Host that the load and the verifier send.
pub fn headers(w: Workload) -> Vec<(String, String)> {
    match w {
        Workload::Echo => vec![("Content-Type".into(), "application/json".into())],
        _ => Vec::new(),
    }
}

/// The request body: the colours document for `echo`, empty otherwise (TechEmpower's types are
/// all GETs; their row counts are in the path, `?queries=20` and `?count=100`).
pub fn body(w: Workload) -> Vec<u8> {
    match w {
        Workload::Echo => payloads::colors_document().into_bytes(),
        _ => Vec::new(),
    }
}
