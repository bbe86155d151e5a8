//! The structure ARCHITECTURE.md promises, checked: no import cycle between the modules of a
//! crate, the crates' dependencies point one way (the test kit a dev-dependency only), every
//! module is named in its crate's doc or ARCHITECTURE.md, and the repository points at no
//! document it does not contain.

use restbench_testkit::turn;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/restbench sits two folders below the workspace")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `runner/mod.rs` → `runner`, `html/svg.rs` → `html::svg`, `lib.rs` → ``.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The paths a file names after `crate::` or `super::`, grouped imports expanded; test modules
/// (after the first `#[cfg(test)]`) are left out, since tests may reach anywhere, and so are
/// comments (a doc link is not an import).
fn references(text: &str) -> Vec<(bool, String)> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let mut refs = Vec::new();
    for (prefix, is_super) in [("crate::", false), ("super::", true)] {
        let mut rest = text;
        while let Some(i) = rest.find(prefix) {
            let before = rest[..i].chars().last();
            rest = &rest[i + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let item = item.trim();
                    if item.starts_with(|c: char| c.is_ascii_lowercase()) {
                        refs.push((is_super, path_prefix(item)));
                    }
                }
            } else {
                refs.push((is_super, path_prefix(rest)));
            }
        }
    }
    refs
}

fn path_prefix(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
        .collect::<String>()
        .trim_end_matches(':')
        .to_string()
}

/// The module graph of one crate's `src` by module path: an edge for every `crate::` or
/// `super::` path a module names, to the deepest module that path reaches. Edges between a
/// module and its own ancestors are left out (a child may use what its parent defines, and a
/// parent re-exports or calls its children), so siblings at every depth must not import each
/// other in a circle: `runner::cell` → `runner::measure` → `runner::cell` is a cycle.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<String, String> = files
        .iter()
        .map(|f| (module_of(src, f), std::fs::read_to_string(f).unwrap()))
        .collect();
    let within = |inner: &str, outer: &str| {
        outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}::"))
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in &modules {
        for (is_super, path) in references(text) {
            let absolute = if is_super {
                let mut parts: Vec<&str> = module.split("::").collect();
                parts.pop();
                parts.push(&path);
                parts.join("::")
            } else {
                path
            };
            let segments: Vec<&str> = absolute.split("::").filter(|s| !s.is_empty()).collect();
            let Some(target) = (1..=segments.len())
                .rev()
                .map(|n| segments[..n].join("::"))
                .find(|m| modules.contains_key(m))
            else {
                continue;
            };
            if within(module, &target) || within(&target, module) {
                continue;
            }
            graph.entry(module.clone()).or_default().insert(target);
        }
    }
    graph
}

fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let start = stack.iter().position(|n| n == next).unwrap_or(0);
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node)
            && let Some(c) = visit(node, graph, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let _turn = turn::take(module_path!());
    let crates = workspace().join("crates");
    let mut checked = 0;
    for entry in std::fs::read_dir(&crates).unwrap().flatten() {
        let src = entry.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let graph = module_graph(&src);
        if let Some(cycle) = find_cycle(&graph) {
            panic!(
                "{}: modules import each other in a cycle: {}",
                entry.file_name().to_string_lossy(),
                cycle.join(" → ")
            );
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} crates found under {crates:?}");
}

/// Commands never import commands: what two share lives in the binary's helper modules
/// (`options`, `common`, `output`, `remote`…) or a library. `progress` is the run's terminal
/// observer, beside the commands that show it.
#[test]
fn no_command_imports_another_command() {
    let _turn = turn::take(module_path!());
    let src = workspace().join("crates/restbench/src");
    let mut files = Vec::new();
    rust_files(&src.join("commands"), &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let own = module.split("::").nth(1).unwrap_or("");
        for (is_super, path) in references(&std::fs::read_to_string(file).unwrap()) {
            let absolute = if is_super {
                let mut parts: Vec<&str> = module.split("::").collect();
                parts.pop();
                parts.push(&path);
                parts.join("::")
            } else {
                path
            };
            let mut parts = absolute.split("::");
            if parts.next() != Some("commands") {
                continue;
            }
            let Some(other) = parts.next().filter(|o| !o.is_empty()) else {
                continue;
            };
            if !own.is_empty() && other != own {
                wrong.push(format!("{module} imports commands::{other}"));
            }
        }
    }
    assert!(files.len() > 10, "only {} command files found", files.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let _turn = turn::take(module_path!());
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("compare".into())
        .or_default()
        .insert("markdown".into());
    g.entry("markdown".into())
        .or_default()
        .insert("ratios".into());
    assert_eq!(find_cycle(&g), None);
    g.entry("ratios".into())
        .or_default()
        .insert("compare".into());
    assert_eq!(
        find_cycle(&g).map(|c| c.join(" → ")),
        Some("compare → markdown → ratios → compare".into())
    );
    let refs = references("use crate::{units::bytes, escape};\nfn f() { super::svg::x(); }");
    assert!(refs.contains(&(false, "units::bytes".into())), "{refs:?}");
    assert!(refs.contains(&(false, "escape".into())), "{refs:?}");
    assert!(refs.contains(&(true, "svg::x".into())), "{refs:?}");
}

#[test]
fn siblings_that_import_each_other_are_a_cycle_at_any_depth() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("runner")).unwrap();
    let files = [
        ("lib.rs", "pub mod runner;\n"),
        // A parent that uses its children and children that use their parent: no cycle.
        (
            "runner/mod.rs",
            "pub mod cell;\npub mod measure;\npub struct Plan;\nfn f() { cell::go(); }\n",
        ),
        ("runner/cell.rs", "use super::Plan;\npub fn go() {}\n"),
        (
            "runner/measure.rs",
            "use super::Plan;\n// use super::cell::go; (a comment is not an import)\n",
        ),
    ];
    for (file, text) in files {
        std::fs::write(src.join(file), text).unwrap();
    }
    assert_eq!(find_cycle(&module_graph(src)), None);
    // Two siblings one level down that use each other are.
    std::fs::write(
        src.join("runner/measure.rs"),
        "use super::cell::go;\npub fn take() {}\n",
    )
    .unwrap();
    std::fs::write(
        src.join("runner/cell.rs"),
        "use crate::runner::measure::take;\npub fn go() {}\n",
    )
    .unwrap();
    assert_eq!(
        find_cycle(&module_graph(src)).map(|c| c.join(" → ")),
        Some("runner::cell → runner::measure → runner::cell".into())
    );
}

/// Which workspace crates a crate depends on (its `[dependencies]`, not dev-dependencies).
fn workspace_dependencies(krate: &str) -> Vec<String> {
    let manifest =
        std::fs::read_to_string(workspace().join("crates").join(krate).join("Cargo.toml")).unwrap();
    let mut in_deps = false;
    let mut deps = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps
            && let Some(name) = line.split(['=', '.', ' ']).next()
            && name.starts_with("restbench-")
        {
            deps.push(name.to_string());
        }
    }
    deps
}

/// Each crate's workspace dependencies, bottom to top: Cargo refuses a cycle, and this table
/// keeps each crate to the ones its job needs (the machine below the subjects, the subjects
/// below the run, documents and the load engine below everything but the reports).
const CRATE_DEPENDENCIES: &[(&str, &[&str])] = &[
    ("model", &[]),
    ("loadgen", &["model"]),
    ("report", &["model"]),
    ("testkit", &["model"]),
    ("host", &["model"]),
    ("subject", &["model", "host"]),
    ("db", &["model", "host"]),
    ("remote", &["model", "loadgen", "host"]),
    ("history", &["model", "db"]),
    ("verify", &["model", "loadgen", "db"]),
    (
        "harness",
        &[
            "model", "loadgen", "host", "subject", "db", "remote", "verify",
        ],
    ),
];

#[test]
fn crates_depend_one_way() {
    let _turn = turn::take(module_path!());
    let mut listed = Vec::new();
    for (krate, expected) in CRATE_DEPENDENCIES {
        let mut deps = workspace_dependencies(krate);
        deps.sort();
        let mut want: Vec<String> = expected.iter().map(|d| format!("restbench-{d}")).collect();
        want.sort();
        assert_eq!(deps, want, "{krate}'s workspace dependencies");
        listed.push(*krate);
    }
    // Every crate is in the table (the binary on top depends on whatever it needs).
    for entry in std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            name == "restbench" || listed.contains(&name.as_str()),
            "crate {name} has no row in CRATE_DEPENDENCIES"
        );
        // No crate ships with the test kit (dev-dependencies only).
        let deps = workspace_dependencies(&name);
        assert!(
            !deps.contains(&"restbench-testkit".to_string()),
            "{name}: {deps:?}"
        );
    }
    // The reports read documents only: nothing that runs, builds or measures.
    let binary = workspace_dependencies("restbench");
    assert!(
        binary.contains(&"restbench-harness".to_string()),
        "{binary:?}"
    );
}

/// Lines of a crate's Rust outside tests: its `src/`, each file cut at a trailing
/// `#[cfg(test)] mod tests`, files named `tests.rs` or under a `tests/` folder of `src/` left out.
fn lines_outside_tests(krate: &Path) -> usize {
    let mut files = Vec::new();
    rust_files(&krate.join("src"), &mut files);
    files
        .iter()
        .filter(|f| {
            let rel = f.strip_prefix(krate.join("src")).unwrap();
            f.file_name().is_some_and(|n| n != "tests.rs")
                && !rel.components().any(|c| c.as_os_str() == "tests")
        })
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            lines
                .windows(2)
                .position(|w| w[0].starts_with("#[cfg(test)]") && w[1].starts_with("mod tests"))
                .unwrap_or(lines.len())
        })
        .sum()
}

/// The most of the workspace's Rust (outside tests) one crate may hold: past it, the crate
/// holds more than one job and its wings' order is kept by convention instead of by Cargo.
const LARGEST_CRATE_SHARE: f64 = 0.30;

#[test]
fn no_crate_holds_more_than_its_share_of_the_rust() {
    let _turn = turn::take(module_path!());
    let sizes: Vec<(String, usize)> = std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, lines_outside_tests(&e.path()))
        })
        .collect();
    let total: usize = sizes.iter().map(|(_, n)| n).sum();
    assert!(total > 10_000, "{sizes:?}");
    for (name, n) in &sizes {
        let share = *n as f64 / total as f64;
        assert!(
            share <= LARGEST_CRATE_SHARE,
            "crate {name} holds {n} of {total} lines ({:.0} %): split it by job",
            share * 100.0
        );
    }
}

#[test]
fn report_and_compare_read_documents_without_the_harness() {
    let _turn = turn::take(module_path!());
    let commands = workspace().join("crates/restbench/src/commands");
    for file in ["report.rs", "compare.rs"] {
        let text = std::fs::read_to_string(commands.join(file)).unwrap();
        assert!(
            !text.contains("restbench_harness"),
            "commands/{file} reaches into the harness to read a document"
        );
    }
}

/// Files under version control (git ls-files), so build outputs and node_modules are not read.
fn tracked_files() -> Vec<PathBuf> {
    let root = workspace();
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&root)
        .output();
    match out {
        Ok(o) if o.status.success() => o
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root.join(String::from_utf8_lossy(p).as_ref()))
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn no_file_points_at_a_document_the_repository_does_not_contain() {
    let _turn = turn::take(module_path!());
    let files = tracked_files();
    if files.is_empty() {
        // Not a git checkout (a packaged source): nothing to list.
        return;
    }
    // Spelled in pieces, so that this file can be checked like every other one.
    let forbidden = [
        concat!("..", "/shared"),
        concat!("DESIGN", ".md"),
        concat!("research", "/"),
        concat!("seeds", "/"),
        concat!("seeds-and", "-anchors"),
        concat!("performance", ".md"),
        concat!("reliability", ".md"),
    ];
    let mut offenders = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for word in forbidden {
            if let Some(line) = text.lines().position(|l| l.contains(word)) {
                offenders.push(format!("{}:{}: {word}", file.display(), line + 1));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// The code spans (between backticks) of `text`, where ARCHITECTURE.md and the crate docs name
/// modules: [`merge`], `transport.rs`, `h2/client`.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Whether `name` stands in `span` as a whole word (not inside a longer identifier).
fn names(span: &str, name: &str) -> bool {
    span.match_indices(name).any(|(i, _)| {
        let before = span[..i].chars().last();
        let after = span[i + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}

/// The `//!` lines of a module's file.
fn module_doc(file: &Path) -> String {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The file of module `module` under `src` (`runner` is `runner/mod.rs` or `runner.rs`; the
/// crate root is `lib.rs` or `main.rs`).
fn module_file(src: &Path, module: &str) -> Option<PathBuf> {
    if module.is_empty() {
        return ["lib.rs", "main.rs"]
            .iter()
            .map(|f| src.join(f))
            .find(|p| p.is_file());
    }
    let rel = module.replace("::", "/");
    [src.join(&rel).join("mod.rs"), src.join(format!("{rel}.rs"))]
        .into_iter()
        .find(|p| p.is_file())
}

/// Each crate's modules (`runner/mod.rs` is `runner`, `html/svg.rs` is `html::svg`) that the
/// doc of the module declaring them (the crate's `lib.rs` for a top-level one, `runner/mod.rs`
/// for `runner::cell`) does not name in a code span: the map of a crate is its own docs, which
/// the compiler keeps next to the code, not a page elsewhere.
fn undocumented_modules() -> Vec<String> {
    let root = workspace();
    let mut missing = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for krate in entries {
        let src = krate.join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        for file in files {
            let module = module_of(&src, &file);
            let Some((parent, name)) = (match module.rsplit_once("::") {
                Some((parent, name)) => Some((parent.to_string(), name.to_string())),
                None if !module.is_empty() => Some((String::new(), module.clone())),
                None => None,
            }) else {
                continue;
            };
            let doc = module_file(&src, &parent)
                .map(|f| module_doc(&f))
                .unwrap_or_default();
            if !code_spans(&doc).iter().any(|s| names(s, &name)) {
                let krate = krate.file_name().unwrap().to_string_lossy().into_owned();
                let file = file.strip_prefix(&root).unwrap_or(&file).display();
                let parent = if parent.is_empty() {
                    "the crate".into()
                } else {
                    parent
                };
                missing.push(format!(
                    "{krate}: {module} ({file}), not named in {parent}'s doc"
                ));
            }
        }
    }
    missing
}

#[test]
fn every_module_is_documented() {
    let _turn = turn::take(module_path!());
    let missing = undocumented_modules();
    assert!(
        missing.is_empty(),
        "{} modules not named in the doc of the module that declares them:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn a_module_is_named_only_as_a_whole_word_in_a_code_span() {
    let _turn = turn::take(module_path!());
    let spans = code_spans("the [`merge`] step, `h2/client` and `transport.rs`; merger");
    assert_eq!(spans, ["merge", "h2/client", "transport.rs"]);
    assert!(spans.iter().any(|s| names(s, "client")));
    assert!(spans.iter().any(|s| names(s, "transport")));
    assert!(!spans.iter().any(|s| names(s, "merger")));
    assert!(!names("open_loop", "loop"));
}

/// Each crate's integration tests are one binary, `tests/it/main.rs`: a file directly under
/// `tests/` would not be built (`autotests = false`), nor would one under `tests/it/` that
/// `main.rs` does not declare.
#[test]
fn every_test_file_is_a_module_of_the_one_test_binary() {
    let _turn = turn::take(module_path!());
    let mut stray = Vec::new();
    for entry in std::fs::read_dir(workspace().join("crates"))
        .unwrap()
        .flatten()
    {
        let tests = entry.path().join("tests");
        let Ok(files) = std::fs::read_dir(&tests) else {
            continue;
        };
        for f in files.flatten().map(|f| f.path()) {
            if f.extension().is_some_and(|x| x == "rs") {
                stray.push(format!("{}: not under tests/it/", f.display()));
            }
        }
        let main = std::fs::read_to_string(tests.join("it/main.rs")).unwrap_or_default();
        for f in std::fs::read_dir(tests.join("it"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = f.path();
            let name = path.file_stem().unwrap_or_default().to_string_lossy();
            let declared = |name: &str| main.lines().any(|l| l.trim() == format!("mod {name};"));
            let module = path.extension().is_some_and(|x| x == "rs") && name != "main";
            if (module || path.join("mod.rs").is_file()) && !declared(&name) {
                stray.push(format!(
                    "{}: not declared in tests/it/main.rs",
                    path.display()
                ));
            }
        }
    }
    assert!(stray.is_empty(), "{}", stray.join("\n"));
}
