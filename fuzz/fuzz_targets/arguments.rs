//! Arguments that reach documents: a `--fail-if` expression (`Threshold`'s parser) and a
//! `--commit-url` (`commit_url_checked`), from the two halves of the input around its first
//! line break. Any text is a threshold or an error, and a URL taken is http(s), never a panic.
#![no_main]

use std::str::FromStr;

use libfuzzer_sys::fuzz_target;
use restbench_model::statistics::gate::Threshold;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (expression, url) = text.split_once('\n').unwrap_or((&text, ""));
    if let Ok(t) = Threshold::from_str(expression) {
        let _ = t.bound();
        let _ = t.to_string();
    }
    if let Ok(u) = restbench_report::html::history::commit_url_checked(url) {
        let scheme = u.get(..8).unwrap_or(u).to_ascii_lowercase();
        assert!(scheme.starts_with("http://") || scheme.starts_with("https://"), "{u}");
    }
});
