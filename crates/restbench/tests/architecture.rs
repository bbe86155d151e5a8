//! The structure ARCHITECTURE.md promises, checked: no import cycle between the modules of a
//! crate, the crates' dependencies point one way, and the repository points at no document it
//! does not contain.

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
/// (after the first `#[cfg(test)]`) are left out, since tests may reach anywhere.
fn references(text: &str) -> Vec<(bool, String)> {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
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

/// The module graph of one crate's `src`, at the level of the crate's top-level modules.
fn top_level_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<String, String> = files
        .iter()
        .map(|f| (module_of(src, f), std::fs::read_to_string(f).unwrap()))
        .collect();
    let top = |m: &str| m.split("::").next().unwrap_or("").to_string();
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
            let target = top(&absolute);
            if !target.is_empty()
                && target != top(module)
                && !top(module).is_empty()
                && modules.contains_key(&target)
            {
                graph.entry(top(module)).or_default().insert(target);
            }
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
    let crates = workspace().join("crates");
    let mut checked = 0;
    for entry in std::fs::read_dir(&crates).unwrap().flatten() {
        let src = entry.path().join("src");
        if !src.is_dir() {
            continue;
        }
        let graph = top_level_graph(&src);
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

#[test]
fn the_cycle_finder_finds_a_cycle() {
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

#[test]
fn crates_depend_one_way() {
    // model ← loadgen ← harness ← restbench; report reads documents only.
    assert_eq!(workspace_dependencies("model"), Vec::<String>::new());
    assert_eq!(workspace_dependencies("loadgen"), ["restbench-model"]);
    assert_eq!(workspace_dependencies("report"), ["restbench-model"]);
    let harness = workspace_dependencies("harness");
    assert!(
        !harness.contains(&"restbench-report".to_string()),
        "{harness:?}"
    );
}

#[test]
fn report_and_compare_read_documents_without_the_harness() {
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

/// The harness's wings, bottom to top: a module imports only from its own rank or below.
/// Names not present yet are allowed (`plan` and `h2c` are on their way); a module not listed
/// here fails the test until it is given a rank.
const HARNESS_WINGS: &[&[&str]] = &[
    &[
        "dates", "error", "events", "fixtures", "http", "h2c", "stats", "workload",
    ],
    &["host"],
    &["subject", "remote"],
    &["serve", "db"],
    &["verify"],
    &["runner", "plan", "study"],
];

#[test]
fn harness_wings_import_only_down() {
    let src = workspace().join("crates/harness/src");
    let rank = |m: &str| HARNESS_WINGS.iter().position(|wing| wing.contains(&m));
    // `crate::HarnessError` names a module through lib.rs's `pub use error::HarnessError`.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let reexported: BTreeMap<String, String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub use ")?.strip_suffix(';'))
        .filter_map(|path| {
            let (module, _) = path.split_once("::")?;
            let name = path.rsplit("::").next()?;
            Some((name.to_string(), module.to_string()))
        })
        .collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut offenders = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let Some(from) = module.split("::").next().filter(|m| !m.is_empty()) else {
            continue; // lib.rs declares the wings
        };
        let Some(from_rank) = rank(from) else {
            offenders.push(format!(
                "harness module `{from}` has no rank in HARNESS_WINGS"
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let uppercase_uses = text
            .split("#[cfg(test)]")
            .next()
            .unwrap_or("")
            .match_indices("crate::")
            .filter_map(|(i, _)| {
                let name = path_prefix(&text[i + "crate::".len()..]);
                reexported.get(&name).cloned()
            })
            .map(|m| (false, m));
        for (is_super, path) in references(&text).into_iter().chain(uppercase_uses) {
            let absolute = if is_super {
                let mut parts: Vec<&str> = module.split("::").collect();
                parts.pop();
                parts.push(&path);
                parts.join("::")
            } else {
                path.clone()
            };
            let to = absolute.split("::").next().unwrap_or("");
            if to == from {
                continue;
            }
            if let Some(to_rank) = rank(to)
                && to_rank > from_rank
            {
                offenders.push(format!(
                    "{}: `{from}` (rank {}) imports `{absolute}` from `{to}` (rank {}), a wing above it",
                    file.strip_prefix(&src).unwrap().display(),
                    from_rank + 1,
                    to_rank + 1
                ));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "the harness's wings must import only down (ranks in HARNESS_WINGS):\n{}",
        offenders.join("\n")
    );
}
