//! The histogram decoder on what a document holds: base64 text, or raw bytes (encoded here so
//! the fuzzer reaches the V2 and DEFLATE layers). Whatever decodes must summarise, encode,
//! decode again to the same histogram, and merge into restbench's own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restbench_model::documents::histogram::{self, LatencySummary};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = if mode & 1 == 0 {
        String::from_utf8_lossy(rest).into_owned()
    } else {
        histogram::encode_bytes(rest)
    };
    let Ok(h) = histogram::decode(&text) else {
        return;
    };
    let summary = LatencySummary::from_histogram(&h);
    let again = histogram::decode(&histogram::encode(&h)).expect("our own encoding decodes");
    assert_eq!(LatencySummary::from_histogram(&again), summary);
    let mut into = histogram::new_latency_histogram();
    let _ = histogram::merge(&mut into, &h);
});
