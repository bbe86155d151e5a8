//! The workloads (the names and routes are [`restbench_model::Workload`]) and what the harness
//! sends for each: headers and body. The contract is described in `docs/workloads.md`.

pub use restbench_model::Workload;

use restbench_loadgen::PathMix;
use restbench_model::{BODY_BYTES, JSON_GZIP_ACCEPT, StaticFile, pseudo_random_bytes};

use crate::payloads;

/// The seed of the body `upload` sends under load.
const UPLOAD_SEED: u64 = 0x0b0d_1e50;

/// Headers beyond Host that the load and the verifier send.
pub fn headers(w: Workload) -> Vec<(String, String)> {
    match w {
        Workload::Echo => vec![("Content-Type".into(), "application/json".into())],
        Workload::JsonGzip => vec![("Accept-Encoding".into(), JSON_GZIP_ACCEPT.into())],
        Workload::Upload => vec![("Content-Type".into(), "application/octet-stream".into())],
        _ => Vec::new(),
    }
}

/// The request body: the colours document for `echo`, 100 KB of seeded noise for `upload`, empty
/// otherwise (TechEmpower's types are all GETs; their row counts are in the path, `?queries=20`
/// and `?count=100`).
pub fn body(w: Workload) -> Vec<u8> {
    match w {
        Workload::Echo => payloads::colors_document().into_bytes(),
        Workload::Upload => pseudo_random_bytes(UPLOAD_SEED, BODY_BYTES),
        _ => Vec::new(),
    }
}

/// The bytes of `upload`'s body that conformance sends: how a server reads HTTP is shown by a
/// small body split at every offset as well as by a large one, and 100 KB split at every offset
/// (or sent a byte per write) is a hundred thousand exchanges.
const PROBE_UPLOAD_BYTES: usize = 256;

/// The body of a workload's request as conformance's cases send it: [`body`], but upload's cut
/// to 256 bytes.
pub fn probe_body(w: Workload) -> Vec<u8> {
    let mut b = body(w);
    if w == Workload::Upload {
        b.truncate(PROBE_UPLOAD_BYTES);
    }
    b
}

/// Draws in a workload's path mix: enough that every file's share is close to its weight.
const MIX_DRAWS: usize = 4096;

/// The paths a rotating workload's load draws ([`Workload::rotates`]): `static`'s files in the
/// tree's seeded order; the workload's one path otherwise.
pub fn path_mix(w: Workload) -> PathMix {
    match w {
        Workload::Static => PathMix {
            paths: StaticFile::ALL.iter().map(StaticFile::path).collect(),
            order: StaticFile::mix(MIX_DRAWS)
                .into_iter()
                .map(|i| i as u16)
                .collect(),
        },
        w => PathMix {
            paths: vec![w.path().to_string()],
            order: vec![0],
        },
    }
}
