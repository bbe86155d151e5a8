//! Which files of a subject's folder are its source: what a build hashes, `restbench new`
//! copies and `--server-host` sends. One list and one walk, so the three never disagree about
//! a folder.

use std::path::{Path, PathBuf};

use crate::SubjectError;

/// Folders that are never a subject's source, wherever they stand: build outputs and package
/// caches of the ecosystems (Cargo's `target`, npm's `node_modules`, Python's virtual
/// environments and byte code, bundlers' `dist`). Folders whose name starts with a dot
/// (`.git`, `.venv`, `.mvn`'s caches) are left out too; files whose name starts with one
/// (`.gitignore`, `.npmrc`) are source.
pub const NOT_SOURCE: &[&str] = &["node_modules", "target", "__pycache__", "venv", "dist"];

/// Whether a folder called `name` is left out of every walk.
pub fn is_not_source(name: &str) -> bool {
    name.starts_with('.') || NOT_SOURCE.contains(&name)
}

/// The files of `dir` that are source, as paths relative to it, sorted: every regular file
/// outside the [`NOT_SOURCE`] folders, the dot-folders and the subject's declared build
/// `outputs` (relative paths). Links are not followed.
pub fn source_files(dir: &Path, outputs: &[String]) -> Result<Vec<PathBuf>, SubjectError> {
    let mut files = Vec::new();
    walk(dir, dir, outputs, &mut files)?;
    files.sort();
    Ok(files)
}

fn walk(
    root: &Path,
    dir: &Path,
    outputs: &[String],
    files: &mut Vec<PathBuf>,
) -> Result<(), SubjectError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| SubjectError::io(format!("cannot read {}", dir.display()), e))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| SubjectError::io(format!("cannot read {}", dir.display()), e))?;
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        if outputs
            .iter()
            .any(|o| rel == Path::new(o.trim_start_matches("./")))
        {
            continue;
        }
        let kind = entry
            .file_type()
            .map_err(|e| SubjectError::io(format!("cannot read {}", path.display()), e))?;
        if kind.is_dir() {
            if !is_not_source(&entry.file_name().to_string_lossy()) {
                walk(root, &path, outputs, files)?;
            }
        } else if kind.is_file() {
            files.push(rel);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_outputs_caches_and_dot_folders_are_not_source() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for folder in [
            "src",
            "node_modules/pkg",
            ".venv/bin",
            "target/release",
            "out",
            "src/dist",
        ] {
            std::fs::create_dir_all(d.join(folder)).unwrap();
        }
        for file in [
            "subject.toml",
            ".gitignore",
            "src/main.rs",
            "node_modules/pkg/index.js",
            ".venv/bin/python",
            "target/release/x",
            "out/built",
            "src/dist/bundle.js",
        ] {
            std::fs::write(d.join(file), "x").unwrap();
        }
        let files = source_files(d, &["out".into()]).unwrap();
        let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(names, [".gitignore", "src/main.rs", "subject.toml"]);
    }
}
