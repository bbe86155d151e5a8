//! Copies of subjects: `restbench new NAME --from ID` (a new subject started from an existing one)
//! and `restbench subjects --install` (the catalogue copied to a data folder, so that an installed
//! binary finds subjects outside a checkout).
//!
//! Only source files are copied (`sources`): a copy builds on its own like any subject, and `node_modules`
//! or a virtualenv would carry absolute paths of the original.

use std::path::{Path, PathBuf};

use crate::SubjectError;
use crate::sources::source_files;
use crate::{Subject, discover};

/// Checks a new subject id: lowercase letters, digits and '-', starting with a letter, at most 64
/// characters (the rule `subject.toml` enforces, plus what package names of every ecosystem take).
pub fn check_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && !id.ends_with('-')
        && !id.contains("--")
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{id:?} is not a subject name: use lowercase letters, digits and single '-', starting \
             with a letter (such as my-server)"
        ))
    }
}

/// What [`new_subject`] did.
#[derive(Debug, Clone)]
pub struct Scaffolded {
    pub dir: PathBuf,
    pub files: usize,
    /// Files (relative) in which the old id was replaced by the new one.
    pub renamed_in: Vec<PathBuf>,
}

/// Copies `from` to `root/new_id` (build outputs left out) and replaces the old id by the new one
/// wherever it stands as a name in the copied text files: `subject.toml`'s `id` and start command,
/// Cargo.toml/Cargo.lock, package.json/package-lock.json, go.mod and the imports of its packages,
/// pom.xml's artifactId and finalName, log lines. `seeds` is emptied: the copy stands for no
/// published study. The copy must load as a subject, else it is removed and the error returned.
pub fn new_subject(from: &Subject, root: &Path, new_id: &str) -> Result<Scaffolded, SubjectError> {
    let invalid = |reason: String| SubjectError::Scaffold(reason);
    check_id(new_id).map_err(invalid)?;
    let dir = root.join(new_id);
    if dir.exists() {
        return Err(invalid(format!(
            "{} already exists: choose another name or remove it",
            dir.display()
        )));
    }
    std::fs::create_dir_all(root)
        .map_err(|e| SubjectError::io(format!("cannot create {}", root.display()), e))?;
    let files = copy_tree(&from.dir, &dir, &from.build_outputs)?;
    let mut renamed_in = Vec::new();
    for rel in &files {
        let path = dir.join(rel);
        // Sources that name the subject are small; a larger file is data, left as it is.
        let Ok(text) =
            restbench_model::documents::io::read_limited_string(&path, 16 << 20, "a source")
        else {
            continue; // not UTF-8 text (or larger than 16 MiB): left as it is
        };
        let mut new = rename_id(&text, &from.id, new_id);
        if rel == Path::new("subject.toml") {
            new = empty_seeds(&new);
        }
        if new != text {
            std::fs::write(&path, &new)
                .map_err(|e| SubjectError::io(format!("cannot write {}", path.display()), e))?;
            if rename_id(&text, &from.id, new_id) != text {
                renamed_in.push(rel.clone());
            }
        }
    }
    if let Err(e) = Subject::load(&dir) {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(e);
    }
    renamed_in.sort();
    Ok(Scaffolded {
        dir,
        files: files.len(),
        renamed_in,
    })
}

/// Copies every subject of `from_root` (and its top-level files such as README.md) into `to_root`,
/// replacing each copied subject's folder as a whole; other folders in `to_root` (subjects made
/// there with `new`) are left alone. Returns the ids copied.
pub fn install_catalogue(from_root: &Path, to_root: &Path) -> Result<Vec<String>, SubjectError> {
    let same = |a: &Path, b: &Path| {
        a.canonicalize()
            .ok()
            .is_some_and(|a| b.canonicalize().is_ok_and(|b| a == b))
    };
    if same(from_root, to_root) {
        return Err(SubjectError::Scaffold(format!(
            "{} is already the installed catalogue: pass the checkout's subjects folder with \
             --subjects-dir",
            to_root.display()
        )));
    }
    let subjects = discover(from_root)?;
    std::fs::create_dir_all(to_root)
        .map_err(|e| SubjectError::io(format!("cannot create {}", to_root.display()), e))?;
    let entries = std::fs::read_dir(from_root)
        .map_err(|e| SubjectError::io(format!("cannot read {}", from_root.display()), e))?;
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            let to = to_root.join(entry.file_name());
            std::fs::copy(entry.path(), &to)
                .map_err(|e| SubjectError::io(format!("cannot write {}", to.display()), e))?;
        }
    }
    let mut ids = Vec::new();
    for s in &subjects {
        let dest = to_root.join(&s.id);
        if dest.exists() {
            std::fs::remove_dir_all(&dest)
                .map_err(|e| SubjectError::io(format!("cannot replace {}", dest.display()), e))?;
        }
        copy_tree(&s.dir, &dest, &s.build_outputs)?;
        ids.push(s.id.clone());
    }
    Ok(ids)
}

/// Copies the source files of `dir` ([`source_files`]) to `to`, returning their relative
/// paths.
fn copy_tree(dir: &Path, to: &Path, outputs: &[String]) -> Result<Vec<PathBuf>, SubjectError> {
    let files = source_files(dir, outputs)?;
    for rel in &files {
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| SubjectError::io(format!("cannot create {}", parent.display()), e))?;
        }
        std::fs::copy(dir.join(rel), &dest)
            .map_err(|e| SubjectError::io(format!("cannot write {}", dest.display()), e))?;
    }
    Ok(files)
}

/// Replaces `old` by `new` where it stands as a name: not preceded by a letter, digit or `_`, and
/// not followed by a letter, digit, `_` or `-` (so `go-nethttp` is not found in
/// `go-nethttp-dynamic`, but is in `restbench/subjects/go-nethttp/model` and `restbench-node-http`).
pub fn rename_id(text: &str, old: &str, new: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(at) = rest.find(old) {
        let prev = rest[..at].chars().next_back().or(before);
        let next = rest[at + old.len()..].chars().next();
        out.push_str(&rest[..at]);
        if !prev.is_some_and(word) && !next.is_some_and(|c| word(c) || c == '-') {
            out.push_str(new);
        } else {
            out.push_str(old);
        }
        before = old.chars().next_back();
        rest = &rest[at + old.len()..];
    }
    out.push_str(rest);
    out
}

/// `seeds = [...]` → `seeds = []` in a subject.toml.
fn empty_seeds(toml: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for line in toml.lines() {
        if line.trim_start().starts_with("seeds") && line.contains('=') && line.contains(']') {
            out.push("seeds = []".into());
        } else {
            out.push(line.to_string());
        }
    }
    let mut s = out.join("\n");
    if toml.ends_with('\n') {
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_checked() {
        for good in ["my-server", "a", "go-nethttp2"] {
            assert!(check_id(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "My-Server",
            "1server",
            "my_server",
            "my-",
            "a--b",
            "../x",
            "a b",
        ] {
            assert!(check_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_id_is_replaced_where_it_is_a_name() {
        assert_eq!(
            rename_id("id = \"go-nethttp\"", "go-nethttp", "mine"),
            "id = \"mine\""
        );
        assert_eq!(
            rename_id(
                "go-nethttp-dynamic go-nethttp2 xgo-nethttp",
                "go-nethttp",
                "mine"
            ),
            "go-nethttp-dynamic go-nethttp2 xgo-nethttp"
        );
        assert_eq!(
            rename_id(
                "\"restbench/subjects/go-easyjson/model\" restbench-node-http",
                "go-easyjson",
                "mine"
            ),
            "\"restbench/subjects/mine/model\" restbench-node-http"
        );
        assert_eq!(
            rename_id("\"restbench-node-http\"", "node-http", "my-server"),
            "\"restbench-my-server\""
        );
        assert_eq!(
            rename_id("rust-axum rust-axum: x", "rust-axum", "b"),
            "b b: x"
        );
    }

    #[test]
    fn seeds_are_emptied() {
        assert_eq!(
            empty_seeds("id = \"a\"\nseeds = [\"000\", \"004\"]\nworkloads = []\n"),
            "id = \"a\"\nseeds = []\nworkloads = []\n"
        );
    }

    fn demo_subject(root: &Path) -> Subject {
        let dir = root.join("demo-one");
        std::fs::create_dir_all(dir.join("node_modules/pkg")).unwrap();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(dir.join(".venv")).unwrap();
        std::fs::write(
            dir.join("subject.toml"),
            "id = \"demo-one\"\nlanguage = \"node\"\nframework = \"demo\"\n\
             framework_version = \"1\"\nseeds = [\"004\"]\nworkloads = [\"plaintext\"]\n\
             [build]\noutputs = [\"node_modules\"]\n[start]\ncommand = \"exec node demo-one.js\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("package.json"),
            "{\"name\": \"restbench-demo-one\"}",
        )
        .unwrap();
        std::fs::write(dir.join("src/main.js"), "// demo-one-extra stays\n").unwrap();
        std::fs::write(dir.join("node_modules/pkg/index.js"), "x").unwrap();
        std::fs::write(dir.join(".venv/x"), "x").unwrap();
        Subject::load(&dir).unwrap()
    }

    #[test]
    fn new_copies_without_outputs_and_renames() {
        let tmp = tempfile::tempdir().unwrap();
        let from = demo_subject(&tmp.path().join("catalogue"));
        let root = tmp.path().join("mine");
        let made = new_subject(&from, &root, "my-server").unwrap();
        let s = Subject::load(&made.dir).unwrap();
        assert_eq!(s.id, "my-server");
        assert!(s.seeds.is_empty());
        assert_eq!(s.start_command, "exec node my-server.js");
        assert_eq!(
            std::fs::read_to_string(made.dir.join("package.json")).unwrap(),
            "{\"name\": \"restbench-my-server\"}"
        );
        assert_eq!(
            std::fs::read_to_string(made.dir.join("src/main.js")).unwrap(),
            "// demo-one-extra stays\n"
        );
        assert!(!made.dir.join("node_modules").exists() && !made.dir.join(".venv").exists());
        assert_eq!(made.files, 3);
        assert_eq!(
            made.renamed_in,
            vec![PathBuf::from("package.json"), PathBuf::from("subject.toml")]
        );

        let again = new_subject(&from, &root, "my-server")
            .unwrap_err()
            .to_string();
        assert!(again.contains("already exists"), "{again}");
        let bad = new_subject(&from, &root, "My Server")
            .unwrap_err()
            .to_string();
        assert!(bad.contains("not a subject name"), "{bad}");
    }

    #[test]
    fn install_copies_the_catalogue_and_keeps_other_subjects() {
        let tmp = tempfile::tempdir().unwrap();
        let catalogue = tmp.path().join("catalogue");
        let from = demo_subject(&catalogue);
        std::fs::write(catalogue.join("README.md"), "# Subjects").unwrap();
        let data = tmp.path().join("data/subjects");
        new_subject(&from, &data, "own-server").unwrap();
        assert_eq!(
            install_catalogue(&catalogue, &data).unwrap(),
            vec!["demo-one"]
        );
        let ids: Vec<String> = discover(&data).unwrap().into_iter().map(|s| s.id).collect();
        assert_eq!(ids, vec!["demo-one", "own-server"]);
        assert!(data.join("README.md").is_file());
        assert!(!data.join("demo-one/node_modules").exists());
        assert!(install_catalogue(&data, &data).is_err());
    }
}
