//! Builds subjects with their own tools, once: a build is skipped while the hash of the
//! subject's folder (build outputs excluded) matches the stamp of the last successful build.

use crate::sources::source_files;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::SubjectError;
use crate::{Placeholders, Subject};

/// What prepare did.
#[derive(Debug, Clone, PartialEq)]
pub enum Prepared {
    Built { seconds: f64 },
    Cached,
    NothingToBuild,
}

/// restbench's cache folder: `$RESTBENCH_CACHE`, else `$XDG_CACHE_HOME/restbench/<folder>`
/// (default `~/.cache/restbench/<folder>`), where `<folder>` is named after the subjects folder
/// (`subjects-3f2a…`, a hash of its absolute path). One cache per subjects folder, because stamps
/// and binaries are keyed by subject id: two checkouts with different sources under one id must not
/// take each other's builds. Without a home folder, `target/restbench` beside `subjects/`.
pub fn cache_dir(subjects_root: &Path) -> PathBuf {
    choose_cache_dir(
        std::env::var_os("RESTBENCH_CACHE"),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
        subjects_root,
    )
}

/// [`cache_dir`] with the environment passed in. `$XDG_CACHE_HOME` counts only when absolute (the
/// XDG rule); an empty `RESTBENCH_CACHE` counts as unset.
fn choose_cache_dir(
    restbench_cache: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
    subjects_root: &Path,
) -> PathBuf {
    if let Some(dir) = restbench_cache.filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let absolute = |v: OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = xdg_cache_home
        .and_then(absolute)
        .or_else(|| home.and_then(absolute).map(|h| h.join(".cache")));
    match base {
        Some(base) => base
            .join("restbench")
            .join(cache_folder_name(subjects_root)),
        None => subjects_root
            .parent()
            .unwrap_or(subjects_root)
            .join("target")
            .join("restbench"),
    }
}

/// `subjects-<16 hex digits>`: FNV-1a of the subjects folder's absolute path.
fn cache_folder_name(subjects_root: &Path) -> String {
    let root = subjects_root
        .canonicalize()
        .unwrap_or_else(|_| subjects_root.to_path_buf());
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in root.as_os_str().as_encoded_bytes() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
    }
    let name = root
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("subjects");
    format!("{name}-{h:016x}")
}

/// True when `prepare` would take `subject` from the cache (or it has nothing to build).
pub fn is_built(subject: &Subject, cache: &Path) -> bool {
    if subject.build_commands.is_empty() {
        return true;
    }
    let stamp = cache.join("stamps").join(&subject.id);
    build_hash(subject).is_ok_and(|hash| {
        restbench_model::documents::io::read_own_string(&stamp, 4096, "the build stamp")
            .is_ok_and(|s| s.trim() == hash)
            && outputs_present(subject, cache)
    })
}

/// Builds `subject` unless its stamp is current. The log of every build is kept in the cache.
pub fn prepare(subject: &Subject, cache: &Path) -> Result<Prepared, SubjectError> {
    if subject.build_commands.is_empty() {
        return Ok(Prepared::NothingToBuild);
    }
    let stamps = cache.join("stamps");
    let logs = cache.join("logs");
    for dir in [&stamps, &logs] {
        std::fs::create_dir_all(dir)
            .map_err(|e| SubjectError::io(format!("cannot create {}", dir.display()), e))?;
    }
    let hash = build_hash(subject)?;
    let stamp = stamps.join(&subject.id);
    if restbench_model::documents::io::read_own_string(&stamp, 4096, "the build stamp")
        .is_ok_and(|s| s.trim() == hash)
        && outputs_present(subject, cache)
    {
        return Ok(Prepared::Cached);
    }
    let log_path = logs.join(format!("build-{}.log", subject.id));
    let started = std::time::Instant::now();
    let placeholders = Placeholders {
        port: 0,
        cores: 1,
        machine_cores: 1,
        cache: cache.to_path_buf(),
        dir: subject.dir.clone(),
    };
    let mut log = Vec::new();
    for raw in &subject.build_commands {
        let command = placeholders.apply_shell(raw);
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(&command)
            .current_dir(&subject.dir)
            .envs(&subject.env)
            .stdin(Stdio::null())
            .output()
            .map_err(|source| SubjectError::Spawn {
                what: format!("the build of {}", subject.id),
                source,
            })?;
        log.extend_from_slice(format!("$ {command}\n").as_bytes());
        log.extend_from_slice(&out.stdout);
        log.extend_from_slice(&out.stderr);
        let _ = restbench_host::process::write_afresh(&log_path, &log);
        if !out.status.success() {
            let text = String::from_utf8_lossy(&log).into_owned();
            let lines: Vec<&str> = text.lines().collect();
            return Err(SubjectError::Build {
                subject: subject.id.clone(),
                command,
                status: out.status.to_string(),
                tail: lines[lines.len().saturating_sub(15)..].join("\n"),
                log: log_path,
            });
        }
    }
    restbench_host::process::write_afresh(&stamp, hash.as_bytes())
        .map_err(|e| SubjectError::io(format!("cannot write {}", stamp.display()), e))?;
    Ok(Prepared::Built {
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The hash a build's stamp holds: what identifies one build of `subject` (its folder, outputs
/// left out, and its build commands), for results cached per build such as its conformance.
pub fn build_hash(subject: &Subject) -> Result<String, SubjectError> {
    Ok(format!("{:016x}", folder_hash(subject)?))
}

/// Outputs declared inside the folder, and programs the start command runs from the cache, must
/// exist for a cached build to count (someone may have cleaned the cache).
fn outputs_present(subject: &Subject, cache: &Path) -> bool {
    let in_cache = subject
        .start_command
        .split_whitespace()
        .filter(|t| t.contains("{cache}"))
        .map(|t| {
            PathBuf::from(
                t.trim_matches(|c| c == '"' || c == '\'')
                    .replace("{cache}", &cache.display().to_string()),
            )
        });
    subject
        .build_outputs
        .iter()
        .all(|o| subject.dir.join(o).exists())
        && in_cache.into_iter().all(|p| p.exists())
}

/// FNV-1a over the build commands and the relative paths and contents of every source file
/// ([`source_files`]).
fn folder_hash(subject: &Subject) -> Result<u64, SubjectError> {
    let files = source_files(&subject.dir, &subject.build_outputs)?;
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    for cmd in &subject.build_commands {
        feed(cmd.as_bytes());
    }
    for rel in files {
        feed(rel.to_string_lossy().as_bytes());
        // Streamed, not read whole: a subject may vendor a large file, and memory stays
        // bounded by the buffer whatever its size.
        let cannot = |e| SubjectError::io(format!("cannot read {}", rel.display()), e);
        let mut file = std::fs::File::open(subject.dir.join(&rel)).map_err(cannot)?;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = std::io::Read::read(&mut file, &mut buf).map_err(cannot)?;
            if n == 0 {
                break;
            }
            feed(&buf[..n]);
        }
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"
id = "demo-server"
language = "rust"
framework = "demo"
framework_version = "1.0"
seeds = ["004"]
workloads = ["plaintext"]
[requires]
tools = ["sh"]
[build]
commands = ["echo built"]
[start]
command = "exec ./server"
"#;

    #[test]
    fn the_build_log_and_stamp_are_not_written_through_planted_links() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("demo-server");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("subject.toml"), MANIFEST).unwrap();
        let subject = Subject::load(&dir).unwrap();
        let cache = root.path().join("cache");
        let victim = root.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        for (folder, name) in [("logs", "build-demo-server.log"), ("stamps", "demo-server")] {
            std::fs::create_dir_all(cache.join(folder)).unwrap();
            std::os::unix::fs::symlink(&victim, cache.join(folder).join(name)).unwrap();
        }
        let prepared = prepare(&subject, &cache).unwrap();
        assert!(matches!(prepared, Prepared::Built { .. }), "{prepared:?}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let log = std::fs::read_to_string(cache.join("logs/build-demo-server.log")).unwrap();
        assert!(log.contains("built"), "{log}");
        // The stamp is restbench's own now, and current.
        assert!(matches!(
            prepare(&subject, &cache).unwrap(),
            Prepared::Cached
        ));
    }

    #[test]
    fn the_cache_follows_restbench_cache_then_xdg_then_home() {
        let root = Path::new("/src/restbench/subjects");
        let name = cache_folder_name(root);
        assert!(
            name.starts_with("subjects-") && name.len() == "subjects-".len() + 16,
            "{name}"
        );
        let os = |s: &str| Some(OsString::from(s));
        assert_eq!(
            choose_cache_dir(os("/c"), os("/x"), os("/h"), root),
            PathBuf::from("/c")
        );
        assert_eq!(
            choose_cache_dir(os(""), os("/x"), os("/h"), root),
            Path::new("/x/restbench").join(&name)
        );
        assert_eq!(
            choose_cache_dir(None, os("relative"), os("/h"), root),
            Path::new("/h/.cache/restbench").join(&name)
        );
        assert_eq!(
            choose_cache_dir(None, None, None, root),
            PathBuf::from("/src/restbench/target/restbench")
        );
        assert_ne!(name, cache_folder_name(Path::new("/other/subjects")));
    }
}
