//! A `load --json` document as `merge`, `compare` and `report` read it: parsed, validated,
//! merged with itself, then rendered. Whatever passes validation must merge and render without
//! a panic or an allocation its size does not justify.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restbench_model::documents::io::parse_load;
use restbench_model::merge_load_results;
use restbench_report::{compare_loads, export, markdown, text};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(load) = parse_load(text, "fuzz/load.json".as_ref()) else {
        return;
    };
    let report = text::load_report(&load, true);
    assert!(
        !report.chars().any(|c| c.is_control() && c != '\n'),
        "a control character reached the terminal"
    );
    let _ = text::load_comparison(&compare_loads(&load, &load));
    let _ = markdown::load_comparison(&compare_loads(&load, &load));
    let _ = export::csv::render(&export::table::load(&load));
    let _ = export::markdown_table::load(&load);
    let parts = [("a".to_string(), load.clone()), ("b".to_string(), load)];
    let _ = merge_load_results(&parts, true);
});
