//! One table of hostile strings, every one put in every document string a renderer shows, run
//! through every output kind: terminal text, Markdown (report.md, compare, exports), CSV and
//! HTML. Each output keeps its own rule (`escape`): nothing moves a terminal's cursor, nothing
//! becomes Markdown markup or HTML, no CSV field is a formula.

use restbench_model::{CellStatus, Finding, FindingLevel, RunResults};

use crate::test_support::{cell, load_result};
use crate::{compare, compare_loads, export, html, markdown, text};

/// What an attacker would write into a results.json or a load result.
const HOSTILE: &[&str] = &[
    "\u{1b}]0;pwned window title\u{7}", // OSC: sets the terminal's title
    "\u{1b}[2J\u{1b}[H cleared",        // CSI: clears the screen
    "\u{1b}[31mred\u{1b}[0m",           // SGR: recolours
    "\u{9b}31m C1 CSI",                 // the one-character CSI (C1)
    "\u{202e}gnp.exe",                  // a right-to-left override
    "<script>alert(1)</script>",        // HTML inside Markdown
    "line\n# forged heading",           // a heading on a line of its own
    "a | b | c",                        // extra table cells
    "[click](javascript:alert(1))",     // a link
    "`code` **bold**",                  // markup
    "=HYPERLINK(\"http://evil/\",\"x\")", // a spreadsheet formula
    "+1+cmd|' /C calc'!A0",             // formulas start with + - @ too
    "-2+3",
    "@SUM(A1:A9)",
    "\tTAB=1",
    "\rCR=1",
];

/// A run in which every string a renderer shows from the document is `s`.
fn hostile_run(s: &str) -> RunResults {
    let mut ok = cell("rust-axum", "plaintext", "all-cores", 1_000.0);
    let mut failed = cell("node-http", "plaintext", "all-cores", 0.0);
    for c in [&mut ok, &mut failed] {
        c.subject = s.into();
        c.framework = s.into();
        c.language = s.into();
        c.workload = s.into();
        c.scenario = s.into();
        c.flags = vec![s.into()];
        c.findings = vec![Finding {
            check: s.into(),
            level: FindingLevel::Warn,
            message: s.into(),
        }];
    }
    failed.status = CellStatus::Failed;
    failed.reason = Some(s.into());
    let mut r = crate::export::table::tests::fixture_run();
    r.cells = vec![ok, failed];
    let e = &mut r.environment;
    e.cpu_model = s.into();
    e.kernel = s.into();
    e.hostname = s.into();
    e.backend_reason = s.into();
    e.restbench_version = s.into();
    e.toolchains = [(s.to_string(), s.to_string())].into();
    r.protocol.note = Some(s.into());
    r.protocol.http_version = s.into();
    r.noisy_machine = Some(s.into());
    r
}

/// No character that a terminal acts on or that reorders a line, line breaks aside.
fn assert_terminal_safe(kind: &str, s: &str, out: &str) {
    let bad: Vec<char> = out
        .chars()
        .filter(|c| {
            (c.is_control() && *c != '\n')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    assert!(bad.is_empty(), "{kind} with {s:?} passed {bad:?}:\n{out}");
}

/// Terminal-safe, and none of the hostile string's markup survives as markup.
fn assert_markdown_safe(kind: &str, s: &str, out: &str) {
    assert_terminal_safe(kind, s, out);
    for forbidden in ["<script", "](javascript", "**bold**", "`code`"] {
        // Escaped, the markup is preceded by a backslash.
        let raw = out
            .match_indices(forbidden)
            .any(|(at, _)| !out[..at].ends_with('\\'));
        assert!(!raw, "{kind} with {s:?}: {forbidden}\n{out}");
    }
    assert!(
        !out.lines().any(|l| l.starts_with("# forged")),
        "{kind} with {s:?}: a forged heading\n{out}"
    );
    if s.contains('|') {
        assert!(
            !out.contains(" a | b | c"),
            "{kind} with {s:?}: the pipes made cells\n{out}"
        );
    }
}

/// Every field of every line: none starts with what a spreadsheet evaluates.
fn assert_csv_safe(s: &str, out: &str) {
    for (n, line) in out.split("\r\n").enumerate() {
        for field in csv_fields(line) {
            assert!(
                !field.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "CSV line {n} with {s:?} has the field {field:?}:\n{out}"
            );
        }
    }
}

/// RFC 4180 fields of one line (quoted fields may hold commas; their quotes doubled).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted, mut chars) =
        (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

#[test]
fn every_hostile_string_is_escaped_in_every_output_kind() {
    for s in HOSTILE {
        let run = hostile_run(s);
        let cells: Vec<_> = run.cells.iter().collect();
        let comparison = compare(&run, &run);
        let mut load = load_result();
        load.settings.url = s.to_string();
        load.settings.method = s.to_string();
        load.settings.unix_socket = Some(s.to_string());
        load.tls_error = Some(s.to_string());
        load.errors.tls = 1;
        load.status_counts.insert(s.to_string(), 1);
        let loads = compare_loads(&load, &load);

        for (kind, out) in [
            ("text cell table", text::cell_table(&cells, 200)),
            ("text comparison", text::comparison(&comparison)),
            ("text load report", text::load_report(&load, true)),
            ("text load comparison", text::load_comparison(&loads)),
        ] {
            assert_terminal_safe(kind, s, &out);
        }
        for (kind, out) in [
            ("report.md", markdown::report(&run)),
            ("compare --markdown", markdown::comparison(&comparison)),
            (
                "compare --markdown (loads)",
                markdown::load_comparison(&loads),
            ),
            (
                "--export-markdown (runs)",
                export::markdown_table::runs(&[&run]),
            ),
            (
                "--export-markdown (load)",
                export::markdown_table::load(&load),
            ),
        ] {
            assert_markdown_safe(kind, s, &out);
        }
        assert_csv_safe(s, &export::csv::render(&export::table::cells(&[&run])));
        assert_csv_safe(s, &export::csv::render(&export::table::load(&load)));
        let page = html::page::render(&run);
        assert!(!page.contains("<script>alert"), "report.html with {s:?}");
        assert_terminal_safe("report.html", s, &page.replace(['\t', '\r'], " "));
    }
}

#[test]
fn a_formula_is_shown_as_text_and_what_is_not_text_stays_a_number() {
    let run = hostile_run("=HYPERLINK(\"http://evil/\",\"x\")");
    let csv = export::csv::render(&export::table::cells(&[&run]));
    assert!(
        csv.contains("\"'=HYPERLINK(\"\"http://evil/\"\",\"\"x\"\")\""),
        "{csv}"
    );
    assert_eq!(
        crate::escape::csv("-5"),
        "'-5",
        "text that looks like a number is text"
    );
    assert_eq!(crate::escape::csv("a,b"), "\"a,b\"");
    assert_eq!(crate::escape::csv("plain"), "plain");
}
