//! The files of restbench's own cache as they are read back: costs.json
//! (`runner::costs::Costs::parse`) and a conformance cache entry
//! (`sessions::conformance::parse_entry`). Anyone may have edited them: any bytes give costs in
//! range (or none) and an entry believed only when its digest holds, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restbench_harness::runner::costs::{Costs, MAX_COST_S, human_duration};
use restbench_harness::sessions::conformance::{ENTRY_CASES, parse_entry};

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        let costs = Costs::parse(&String::from_utf8_lossy(bytes));
        for c in costs.subjects.values() {
            for s in [c.build_s, c.start_s, c.warmup_s].into_iter().flatten() {
                assert!(s.is_finite() && (0.0..=MAX_COST_S).contains(&s), "{s}");
                let _ = human_duration(s);
            }
        }
    } else if let Some((c, _checked)) = parse_entry(bytes, "tiny", "b1") {
        assert_eq!(c.subject, "tiny");
        assert!(c.cases.len() <= ENTRY_CASES);
    }
});
