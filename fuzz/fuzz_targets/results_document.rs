//! A run's results.json as `report` and `compare` read it: parsed, validated, then rendered by
//! every renderer. Whatever passes validation must render without a panic, and no document
//! string may reach the terminal or Markdown outputs with a control character.
#![no_main]

use libfuzzer_sys::fuzz_target;
use restbench_model::documents::io::parse_results;
use restbench_report::{compare, export, html, markdown, text};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(run) = parse_results(text, "fuzz/results.json".as_ref()) else {
        return;
    };
    let cells: Vec<_> = run.cells.iter().collect();
    let terminal = [
        text::cell_table(&cells, 100),
        text::comparison(&compare(&run, &run)),
    ];
    for out in &terminal {
        assert!(
            !out.chars().any(|c| c.is_control() && c != '\n'),
            "a control character reached the terminal"
        );
    }
    let _ = markdown::report(&run);
    let _ = markdown::comparison(&compare(&run, &run));
    let _ = html::page::render(&run);
    let _ = export::csv::render(&export::table::cells(&[&run]));
    let _ = export::json::render(&export::table::cells(&[&run]));
    let _ = export::markdown_table::runs(&[&run]);
});
