//! The README documents every option the commands take: each long option in a command's `--help`
//! appears in README.md, so a new flag cannot ship undocumented and a renamed one is noticed.

use std::path::Path;

use crate::support::restbench;
use restbench_testkit::turn;

/// The commands of the README's table, as `restbench` takes them.
const COMMANDS: &[&[&str]] = &[
    &["run"],
    &["study"],
    &["compare"],
    &["ab"],
    &["history", "import"],
    &["history", "show"],
    &["history", "check"],
    &["doctor"],
    &["load"],
    &["verify"],
    &["conformance"],
    &["subjects"],
    &["new"],
    &["serve"],
    &["db", "start"],
    &["report"],
    &["bench"],
    &["merge"],
    &["k8s", "load"],
    &["k8s", "collect"],
];

/// Long options from a `--help` text: the first `--name` of each line of its `Options:` section.
fn long_options(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Options:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| {
            let at = l.find("--")?;
            let name: String = l[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
                .collect();
            Some(name.trim_end_matches('.').to_string())
        })
        .filter(|o| o != "--help" && o != "--version")
        .collect()
}

/// Whether `text` holds `option` as a whole word (`--db` is not in `--db-pool`).
fn mentions(text: &str, option: &str) -> bool {
    let part_of_name = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-');
    text.match_indices(option).any(|(at, _)| {
        !part_of_name(text[..at].chars().next_back())
            && !part_of_name(text[at + option.len()..].chars().next())
    })
}

#[test]
fn the_readme_names_every_long_option_of_every_command() {
    let _turn = turn::take(module_path!());
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let mut missing = Vec::new();
    for command in COMMANDS {
        let o = restbench().args(*command).arg("--help").output().unwrap();
        assert!(o.status.success(), "{command:?} --help failed");
        let help = String::from_utf8_lossy(&o.stdout);
        let options = long_options(&help);
        // Only `report` takes no option of its own: anything else means the help's layout changed
        // and this parser reads nothing.
        assert!(
            !options.is_empty() || *command == ["report"],
            "{command:?}: no options found in\n{help}"
        );
        for option in options {
            if !mentions(&readme, &option) {
                missing.push(format!("restbench {} {option}", command.join(" ")));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README.md does not mention these options (add them to the Commands table or the load section):\n{}",
        missing.join("\n")
    );
}
