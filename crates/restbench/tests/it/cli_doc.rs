//! docs/cli.md is the command reference, made from the real `--help` of every command: each
//! command's flags under the headings `--help` groups them by. The test renders it again and
//! fails on any difference, so no flag is missing from it and none it lists is gone;
//! `RESTBENCH_BLESS=1 cargo test -p restbench -- cli_doc` writes it afresh.

use std::path::PathBuf;

use crate::support::restbench;
use restbench_testkit::{Outcome, turn};

/// Every command a person runs, in the order of the reference.
pub const COMMANDS: &[&[&str]] = &[
    &["run"],
    &["study"],
    &["bench"],
    &["load"],
    &["compare"],
    &["ab"],
    &["history", "import"],
    &["history", "show"],
    &["history", "check"],
    &["profile"],
    &["merge"],
    &["report"],
    &["verify"],
    &["conformance"],
    &["subjects"],
    &["new"],
    &["serve"],
    &["db", "start"],
    &["doctor"],
    &["k8s", "load"],
    &["k8s", "collect"],
    &["completions"],
    &["man"],
];

const INTRO: &str = "\
# restbench command reference

Every command and its options, grouped as `--help` groups them (`-h` shows the everyday ones).
This page is made from the `--help` texts themselves: `crates/restbench/tests/it/cli_doc.rs`
fails when they differ, and `RESTBENCH_BLESS=1 cargo test -p restbench -- cli_doc` writes it
again. The README says what each command is for.
";

/// One option of a `--help` text: its line (`-c, --connections <N>`) and its description.
struct Option_ {
    flags: String,
    about: Vec<String>,
}

/// A `--help` text read back: the summary, usage, sections of options and the text after them.
struct Help {
    about: String,
    usage: String,
    sections: Vec<(String, Vec<Option_>)>,
    after: Vec<String>,
}

fn parse(help: &str) -> Help {
    let mut lines = help.lines().peekable();
    let mut about = Vec::new();
    for l in lines.by_ref() {
        if let Some(usage) = l.strip_prefix("Usage: ") {
            let usage = usage.to_string();
            return parse_sections(about.join(" ").trim().to_string(), usage, lines.collect());
        }
        about.push(l.trim());
    }
    panic!("no Usage line in\n{help}");
}

fn parse_sections(about: String, usage: String, lines: Vec<&str>) -> Help {
    let mut sections: Vec<(String, Vec<Option_>)> = Vec::new();
    let mut after = Vec::new();
    let indent = |l: &str| l.len() - l.trim_start().len();
    for l in lines {
        let t = l.trim_start();
        if !after.is_empty() || (indent(l) == 0 && !t.is_empty() && !t.ends_with(':')) {
            after.push(l.to_string());
        } else if indent(l) == 0 && t.ends_with(':') {
            sections.push((t.trim_end_matches(':').to_string(), Vec::new()));
        } else if t.is_empty() {
            continue;
        } else if let Some((_, options)) = sections.last_mut() {
            let starts_option =
                indent(l) <= 6 && (t.starts_with('-') || t.starts_with('<') || t.starts_with('['));
            if starts_option {
                // Short help puts the description on the same line, after two spaces or more.
                let (flags, rest) = match t.find("  ") {
                    Some(at) => (&t[..at], t[at..].trim()),
                    None => (t, ""),
                };
                let about = if rest.is_empty() {
                    vec![]
                } else {
                    vec![rest.to_string()]
                };
                options.push(Option_ {
                    flags: flags.to_string(),
                    about,
                });
            } else if let Some(o) = options.last_mut() {
                o.about.push(t.to_string());
            }
        }
    }
    while after.last().is_some_and(|l: &String| l.trim().is_empty()) {
        after.pop();
    }
    Help {
        about,
        usage,
        sections,
        after,
    }
}

fn help_of(command: &[&str]) -> String {
    let o = restbench()
        .args(command)
        .arg("--help")
        .env_remove("COLUMNS")
        .output()
        .unwrap();
    o.assert_exit(0);
    o.stdout_text()
}

fn render_command(command: &[&str], help: &Help) -> String {
    let mut s = format!(
        "\n## `restbench {}`\n\n{}\n\n",
        command.join(" "),
        help.about
    );
    s.push_str(&format!("```\n{}\n```\n", help.usage));
    for (heading, options) in &help.sections {
        let shown: Vec<&Option_> = options
            .iter()
            .filter(|o| !o.flags.contains("--help") && !o.flags.contains("--version"))
            .collect();
        if shown.is_empty() {
            continue;
        }
        s.push_str(&format!(
            "\n### {heading}\n\n| option | what it does |\n|---|---|\n"
        ));
        for o in shown {
            let about = o.about.join(" ").replace('|', "\\|").replace('<', "\\<");
            s.push_str(&format!(
                "| `{}` | {about} |\n",
                o.flags.replace('|', "\\|")
            ));
        }
    }
    if !help.after.is_empty() {
        s.push_str(&format!("\n```text\n{}\n```\n", help.after.join("\n")));
    }
    s
}

/// docs/cli.md as the `--help` texts make it.
fn rendered() -> String {
    let mut doc = INTRO.to_string();
    for command in COMMANDS {
        doc.push_str(&render_command(command, &parse(&help_of(command))));
    }
    doc
}

fn doc_path() -> PathBuf {
    restbench_testkit::cli::repo().join("docs/cli.md")
}

#[test]
fn docs_cli_md_is_the_help_of_every_command() {
    let _turn = turn::take(module_path!());
    let want = rendered();
    if std::env::var_os("RESTBENCH_BLESS").is_some() {
        std::fs::write(doc_path(), &want).unwrap();
    }
    let have = std::fs::read_to_string(doc_path()).unwrap_or_default();
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "docs/cli.md differs from the commands' --help from line {} on:\n  doc:  {:?}\n  help: {:?}\n\
             (RESTBENCH_BLESS=1 cargo test -p restbench -- cli_doc writes it again)",
            first + 1,
            have.lines().nth(first),
            want.lines().nth(first)
        );
    }
}

#[test]
fn every_long_option_of_the_help_is_in_the_reference_and_no_other() {
    let _turn = turn::take(module_path!());
    let doc = std::fs::read_to_string(doc_path()).unwrap();
    for command in COMMANDS {
        let title = format!("## `restbench {}`", command.join(" "));
        let start = doc
            .find(&title)
            .unwrap_or_else(|| panic!("docs/cli.md has no {title}"));
        let section = &doc[start + title.len()..];
        let section = &section[..section.find("\n## ").unwrap_or(section.len())];
        let documented: Vec<&str> = section
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split('`').next())
            .collect();
        let help = parse(&help_of(command));
        let real: Vec<String> = help
            .sections
            .iter()
            .flat_map(|(_, o)| o.iter().map(|o| o.flags.clone()))
            .filter(|f| !f.contains("--help") && !f.contains("--version"))
            .collect();
        let documented: Vec<String> = documented.iter().map(|f| f.replace("\\|", "|")).collect();
        assert_eq!(documented, real, "restbench {}", command.join(" "));
    }
}

#[test]
fn short_help_is_short_and_fits_80_columns() {
    let _turn = turn::take(module_path!());
    for command in ["run", "load", "study", "bench"] {
        let o = restbench()
            .args([command, "-h"])
            .env("COLUMNS", "80")
            .output()
            .unwrap();
        o.assert_exit(0);
        let text = o.stdout_text();
        let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80).collect();
        assert!(
            long.is_empty(),
            "{command} -h: lines over 80 columns: {long:#?}"
        );
        let n = text.lines().count();
        assert!(n <= 75, "{command} -h is {n} lines at 80 columns:\n{text}");
        for heading in ["Output:", "Several machines:"] {
            assert!(
                text.contains(heading),
                "{command} -h has no {heading}\n{text}"
            );
        }
        let full = restbench()
            .args([command, "--help"])
            .env("COLUMNS", "80")
            .output()
            .unwrap();
        let full = full.stdout_text();
        assert!(
            full.lines().count() > n,
            "{command}: --help shows no more than -h"
        );
        for line in full.lines() {
            assert!(line.chars().count() <= 80, "{command} --help: {line:?}");
        }
    }
}

#[test]
fn study_help_explains_study_tfb() {
    let help = help_of(&["study"]);
    assert!(help.contains("tfb"), "{help}");
    for what in [
        "TechEmpower's seven test types",
        "queries at 20",
        "pipelined 16",
        "all-cores",
        "Round 23",
        "tau-b",
        "not part of `all`",
    ] {
        assert!(help.contains(what), "{what:?} missing from:\n{help}");
    }
    // `study tfb --help` is the same help, and tfb is an accepted value.
    assert_eq!(help_of(&["study", "tfb"]), help);
}
