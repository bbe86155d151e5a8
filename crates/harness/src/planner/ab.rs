//! The two sides of `restbench ab`: two folders of one subject, or one subject at two git
//! revisions of the checkout, made into two subjects of one run with distinct ids.
//!
//! A revision's folder is extracted with `git archive` into `{cache}/ab/<id>@<tree>/<id>/`,
//! keyed by the git tree of the subject's folder, so a revision already extracted is not
//! extracted again. Each side builds into a cache of its own (`{cache}` in its commands points
//! there): two versions of one subject name the same binary, and must not overwrite each other.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use restbench_model::AbSide;

use restbench_subject::Subject;
use restbench_subject::prepare::build_hash;

/// Why the two sides could not be had.
#[derive(Debug, thiserror::Error)]
pub enum AbError {
    #[error("git {args}: {stderr}")]
    Git { args: String, stderr: String },
    #[error("cannot run git: {0} (install git, or give two subject folders)")]
    NoGit(std::io::Error),
    #[error("{0}")]
    Subject(#[from] restbench_subject::SubjectError),
    #[error("cannot extract {what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error(
        "the two folders hold different subjects ({a} and {b}): ab compares two versions of one"
    )]
    DifferentSubjects { a: String, b: String },
    #[error(
        "{0:?} is not a subject id: give one of `restbench subjects` (lowercase letters, digits \
         and '-')"
    )]
    NotAnId(String),
    #[error("git answered {what} {value:?}, which is not a hash")]
    NotAHash { what: &'static str, value: String },
    #[error("{0} is not a folder restbench made: left alone")]
    NotOurs(PathBuf),
}

/// The two subjects to run, and where each came from.
#[derive(Debug, Clone)]
pub struct AbPair {
    pub a: Subject,
    pub b: Subject,
    pub side_a: AbSide,
    pub side_b: AbSide,
}

/// How the two sides are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbMode {
    /// Both at once in every round: the two servers share the server CPUs, each driven by its
    /// own generator run on the generator CPUs, their usage read over the same window.
    Duet,
    /// One after the other in every round, in a balanced order (A B, then B A, …).
    Interleaved,
}

impl AbMode {
    pub fn name(self) -> &'static str {
        match self {
            AbMode::Duet => "duet",
            AbMode::Interleaved => "interleaved",
        }
    }
}

/// The mode (a duet unless `interleaved` is asked for) and why, in a sentence; `remote` names
/// the remote server or generator host, if any (a duet needs both sides here).
pub fn mode(interleaved: bool, remote: Option<&str>) -> (AbMode, String) {
    let duet = "A and B measured at once in every round, their servers sharing the server \
                CPUs and each driven by its own generator, so a drift of the machine lands on \
                both alike";
    let interleaved_why = "A and B measured one after the other in every round, in a \
                       balanced order (A B, then B A)";
    match (interleaved, remote) {
        (true, _) => (AbMode::Interleaved, format!("{interleaved_why}, as asked")),
        (false, Some(host)) => (
            AbMode::Interleaved,
            format!("{interleaved_why}, because {host} is remote and a duet needs both sides here"),
        ),
        (false, None) => (AbMode::Duet, duet.to_string()),
    }
}

/// Two folders of one subject; ids `<id>@a` and `<id>@b` unless the folder names differ.
pub fn from_folders(a: &Path, b: &Path, cache: &Path) -> Result<AbPair, AbError> {
    let sa = Subject::load(a)?;
    let sb = Subject::load(b)?;
    if sa.id != sb.id {
        return Err(AbError::DifferentSubjects { a: sa.id, b: sb.id });
    }
    let side = |s: &Subject, tag: &str| -> Result<AbSide, AbError> {
        Ok(AbSide {
            id: format!("{}@{tag}", s.id),
            folder: s.dir.display().to_string(),
            revision: None,
            commit: None,
            source_hash: build_hash(s)?,
        })
    };
    let (side_a, side_b) = (side(&sa, "a")?, side(&sb, "b")?);
    Ok(pair(sa, sb, side_a, side_b, cache))
}

/// Subject `id` of the checkout holding `subjects_root`, at revisions `rev_a` and `rev_b`.
pub fn from_revisions(
    subjects_root: &Path,
    id: &str,
    rev_a: &str,
    rev_b: &str,
    cache: &Path,
) -> Result<AbPair, AbError> {
    // The id becomes paths (`{cache}/ab/<id>@<tree>/<id>`, the git path): one component of the
    // allowed characters, checked before any is built.
    if !restbench_subject::is_id(id) {
        return Err(AbError::NotAnId(id.to_string()));
    }
    let prefix = git(subjects_root, &["rev-parse", "--show-prefix"])?;
    let top = PathBuf::from(git(subjects_root, &["rev-parse", "--show-toplevel"])?);
    let path = format!("{prefix}{id}");
    let mut sides = Vec::new();
    for rev in [rev_a, rev_b] {
        let commit = git(
            &top,
            &["rev-parse", "--verify", &format!("{rev}^{{commit}}")],
        )?;
        let tree = git(&top, &["rev-parse", &format!("{commit}:{path}")]).map_err(|e| match e {
            AbError::Git { args, .. } => AbError::Git {
                args,
                stderr: format!("revision {rev} has no folder {path}"),
            },
            e => e,
        })?;
        for (what, value) in [("the commit", &commit), ("the tree", &tree)] {
            if value.len() < 16 || !value.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(AbError::NotAHash {
                    what,
                    value: value.clone(),
                });
            }
        }
        let short = &commit[..commit.len().min(10)];
        let dest = cache
            .join("ab")
            .join(format!("{id}@{}", &tree[..tree.len().min(16)]));
        let dir = extract(&top, &commit, &path, &dest, id)?;
        let subject = Subject::load(&dir)?;
        if subject.id != id {
            return Err(AbError::DifferentSubjects {
                a: id.to_string(),
                b: subject.id,
            });
        }
        sides.push((
            subject,
            AbSide {
                id: format!("{id}@{short}"),
                folder: dir.display().to_string(),
                revision: Some(rev.to_string()),
                commit: Some(commit.clone()),
                source_hash: tree,
            },
        ));
    }
    let (b, mut side_b) = sides.pop().expect("two sides");
    let (a, mut side_a) = sides.pop().expect("two sides");
    if side_a.id == side_b.id {
        side_a.id.push_str("-a");
        side_b.id.push_str("-b");
    }
    Ok(pair(a, b, side_a, side_b, cache))
}

/// The two subjects renamed to their sides' ids, each building into its own cache.
fn pair(mut a: Subject, mut b: Subject, side_a: AbSide, side_b: AbSide, cache: &Path) -> AbPair {
    for (s, side) in [(&mut a, &side_a), (&mut b, &side_b)] {
        let own = cache.join("ab").join("builds").join(format!(
            "{}@{}",
            s.id,
            short_hash(&side.source_hash)
        ));
        private_cache(s, &own);
        s.id = side.id.clone();
    }
    AbPair {
        a,
        b,
        side_a,
        side_b,
    }
}

fn short_hash(h: &str) -> &str {
    &h[..h.len().min(16)]
}

/// Points `{cache}` in the subject's commands and environment at `own`.
fn private_cache(s: &mut Subject, own: &Path) {
    let own = own.display().to_string();
    let swap = |t: &mut String| *t = t.replace("{cache}", &own);
    s.build_commands.iter_mut().for_each(swap);
    swap(&mut s.start_command);
    s.env.values_mut().for_each(swap);
    for settings in s.scenarios.values_mut() {
        settings.env.values_mut().for_each(swap);
    }
}

/// `git archive COMMIT PATH` unpacked into `dest` (once: a finished extraction leaves a stamp);
/// returns the subject's folder there, named `id` as its manifest requires.
fn extract(
    top: &Path,
    commit: &str,
    path: &str,
    dest: &Path,
    id: &str,
) -> Result<PathBuf, AbError> {
    let dir = dest.join(id);
    let stamp = dest.join(".extracted");
    if stamp.exists() && dir.join("subject.toml").exists() {
        return Ok(dir);
    }
    let io = |what: &str| {
        let what = format!("{what} {}", dest.display());
        move |source| AbError::Io { what, source }
    };
    let staging = dest.with_file_name(format!(
        "{}.partial",
        dest.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
    ));
    for old in [dest, &staging] {
        remove_ours(old)?;
    }
    std::fs::create_dir_all(&staging).map_err(io("the folder"))?;
    let strip = path.matches('/').count();
    let archive = Command::new("git")
        .args(["archive", "--format=tar", commit, path])
        .current_dir(top)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(AbError::NoGit)?;
    let tar = Command::new("tar")
        .args(["-x", &format!("--strip-components={strip}"), "-C"])
        .arg(&staging)
        .stdin(archive.stdout.ok_or_else(|| AbError::Git {
            args: "archive".into(),
            stderr: "no output".into(),
        })?)
        .output()
        .map_err(io("with tar into"))?;
    if !tar.status.success() {
        return Err(AbError::Git {
            args: format!("archive {commit} {path} | tar -x"),
            stderr: String::from_utf8_lossy(&tar.stderr).trim().to_string(),
        });
    }
    std::fs::rename(&staging, dest).map_err(io("into"))?;
    std::fs::write(&stamp, commit).map_err(io("the stamp of"))?;
    Ok(dir)
}

/// Removes `dir` if it is a leftover extraction of ours: a real folder (not a link) named
/// `<id>@<hex>` or `<id>@<hex>.partial` directly in an `ab` folder. Anything else is refused,
/// so no id, revision or link can turn this into a delete of something restbench did not make.
fn remove_ours(dir: &Path) -> Result<(), AbError> {
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return Ok(()); // nothing there
    };
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let name = name.strip_suffix(".partial").unwrap_or(name);
    let ours = meta.is_dir()
        && dir
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|p| p == "ab")
        && name.split_once('@').is_some_and(|(id, hash)| {
            restbench_subject::is_id(id)
                && !hash.is_empty()
                && hash.bytes().all(|b| b.is_ascii_hexdigit())
        });
    if !ours {
        return Err(AbError::NotOurs(dir.to_path_buf()));
    }
    std::fs::remove_dir_all(dir).map_err(|source| AbError::Io {
        what: format!("an unfinished {}", dir.display()),
        source,
    })
}

/// `git ARGS` in `dir`, its trimmed output; a failure carries git's own message.
fn git(dir: &Path, args: &[&str]) -> Result<String, AbError> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(AbError::NoGit)?;
    if !out.status.success() {
        return Err(AbError::Git {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A git checkout with `subjects/`, one commit, and a build cache holding costs.json.
    fn checkout() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let top = tempfile::tempdir().unwrap();
        let subjects = top.path().join("subjects");
        std::fs::create_dir_all(subjects.join("demo")).unwrap();
        std::fs::write(subjects.join("demo/subject.toml"), "id = \"demo\"\n").unwrap();
        std::fs::write(subjects.join("README.md"), "subjects\n").unwrap();
        let run = |args: &[&str]| {
            let out = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t.invalid"])
                .args(args)
                .current_dir(top.path())
                .output()
                .unwrap();
            assert!(out.status.success(), "{args:?}: {out:?}");
        };
        run(&["init", "-q"]);
        run(&["add", "."]);
        run(&["commit", "-q", "-m", "one"]);
        let cache = top.path().join("cache");
        std::fs::create_dir_all(&cache).unwrap();
        std::fs::write(cache.join("costs.json"), "{}").unwrap();
        (top, subjects, cache)
    }

    fn cache_listing(cache: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_id_that_would_leave_the_cache_is_refused_before_any_path_is_made() {
        let (_top, subjects, cache) = checkout();
        for id in ["..", ".", "", "../..", "demo/..", "/tmp", "-rf"] {
            let e = from_revisions(&subjects, id, "HEAD", "HEAD", &cache)
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(e.contains("is not a subject id"), "{id:?}: {e}");
            assert_eq!(
                cache_listing(&cache),
                ["costs.json"],
                "{id:?} touched the cache"
            );
            assert_eq!(
                std::fs::read_to_string(cache.join("costs.json")).unwrap(),
                "{}"
            );
        }
    }

    #[test]
    fn only_leftover_extractions_of_ours_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let ab = dir.path().join("ab");
        let ours = ab.join("demo@0123456789abcdef");
        std::fs::create_dir_all(ours.join("demo")).unwrap();
        remove_ours(&ours).unwrap();
        assert!(!ours.exists());
        let elsewhere = dir.path().join("kept");
        std::fs::create_dir_all(&elsewhere).unwrap();
        for not_ours in [elsewhere.clone(), ab.join("kept"), ab.join("..@abc")] {
            std::fs::create_dir_all(&not_ours).unwrap();
            assert!(matches!(remove_ours(&not_ours), Err(AbError::NotOurs(_))));
            assert!(not_ours.exists());
        }
        // A link named like ours is not followed.
        let link = ab.join("demo@0123456789abcdee");
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        assert!(matches!(remove_ours(&link), Err(AbError::NotOurs(_))));
        assert!(elsewhere.exists());
    }

    #[test]
    fn a_duet_unless_interleaved_is_asked_for_or_a_host_is_remote() {
        assert_eq!(mode(false, None).0, AbMode::Duet);
        let (asked, why) = mode(true, None);
        assert_eq!(asked, AbMode::Interleaved);
        assert!(why.ends_with("as asked"), "{why}");
        let (remote, why) = mode(false, Some("gen1.example"));
        assert_eq!(remote, AbMode::Interleaved);
        assert!(why.contains("gen1.example is remote"), "{why}");
        assert_eq!(AbMode::Duet.name(), "duet");
    }
}
