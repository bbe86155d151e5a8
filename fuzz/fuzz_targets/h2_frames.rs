//! The HTTP/2 frame reader (after our preface, with up to 8 streams open) and the HPACK
//! `:status` scan on what a server sends: the first byte picks which, and how many streams.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 0x80 != 0 {
        if let Ok(status) = restbench_loadgen::fuzzing::hpack_status(rest) {
            assert!(
                status < 1000,
                "a status of more than three digits: {status}"
            );
        }
    } else {
        let _ = restbench_loadgen::fuzzing::h2_frames(rest, usize::from(mode & 7) + 1);
    }
});
