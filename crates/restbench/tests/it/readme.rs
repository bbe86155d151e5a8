//! The README is the way in: its command table names every command and links the reference
//! (docs/cli.md, checked against `--help` by `cli_doc`), and the files its examples use ship.

use std::path::Path;

use restbench_testkit::turn;

use crate::cli_doc::COMMANDS;

fn repo_file(path: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(path),
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_readme_names_every_command_and_links_the_reference() {
    let _turn = turn::take(module_path!());
    let readme = repo_file("README.md");
    let missing: Vec<String> = COMMANDS
        .iter()
        .map(|c| format!("`restbench {}", c.join(" ")))
        .filter(|c| !readme.contains(c.as_str()))
        .collect();
    assert!(missing.is_empty(), "README.md does not name: {missing:?}");
    assert!(
        readme.contains("(docs/cli.md)"),
        "README.md does not link docs/cli.md"
    );
}

#[test]
fn the_echo_body_the_readme_loads_ships_as_the_seed_wrote_it() {
    let _turn = turn::take(module_path!());
    let readme = repo_file("README.md");
    assert!(
        readme.contains("-b @docs/colors.json"),
        "README.md loads another body"
    );
    assert_eq!(
        repo_file("docs/colors.json"),
        restbench_verify::payloads::colors_document(),
        "docs/colors.json is not seed 000's post.lua body"
    );
}
