//! The HTTP/1.x response framer on what a server sends: the first byte picks how the bytes
//! arrive (read sizes) and whether the requests were HEAD; it must never panic nor consume bytes
//! it was not given.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let split = usize::from(mode & 0x7f) + 1;
    let no_body = mode & 0x80 != 0;
    let _ = restbench_loadgen::fuzzing::http1_responses(rest, split, no_body);
    // The same bytes in one read must frame the same responses as in many.
    let whole = restbench_loadgen::fuzzing::http1_responses(rest, rest.len(), no_body);
    let split_up = restbench_loadgen::fuzzing::http1_responses(rest, split, no_body);
    if let (Ok(a), Ok(b)) = (&whole, &split_up) {
        assert_eq!(a, b, "the responses depend on how the bytes were split");
    }
});
