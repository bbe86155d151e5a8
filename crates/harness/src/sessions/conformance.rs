//! `restbench conformance` as one function (prepare → start single-thread → cases → stop, per
//! subject), and the per-build cache the run's conformance step shares: a subject's result is
//! kept in `{cache}/conformance/<id>.json` with the build's hash and the suite's version, so an
//! unchanged build skips the cases.

use std::path::{Path, PathBuf};
use std::time::Duration;

use restbench_model::{ConformanceReport, Scenario, SubjectConformance, Workload};

use crate::events::{At, Events, Observer, RunEvent, Step};
use crate::serve::{StartOptions, start_subject};
use restbench_db as db;
use restbench_host::cgroup::Backend;
use restbench_host::error::chain;
use restbench_host::placement::{Placement, available_cpus};
use restbench_subject::Subject;
use restbench_subject::prepare;
use restbench_verify::conformance::{SUITE_VERSION, check};

/// What to check, and how.
pub struct ConformanceOptions<'a> {
    pub subjects: &'a [Subject],
    /// The workloads whose requests are split and pipelined (those a subject serves).
    pub workloads: &'a [Workload],
    /// The subjects folder's build cache (`prepare::cache_dir`).
    pub cache: &'a Path,
    /// A database for subjects that serve `users`, instead of a throwaway cluster.
    pub database_url: Option<&'a str>,
    pub db_pool_total: u32,
    /// Run the cases even when the cache holds a result for this build.
    pub fresh: bool,
}

/// Every subject of `options` in turn (skipped when no tool here can run it), told to
/// `observer` as it goes.
pub fn conformance_subjects(
    options: &ConformanceOptions,
    observer: &dyn Observer,
) -> ConformanceReport {
    let events = Events::new(vec![observer]);
    let observer = &events;
    let placement = Placement::split(&available_cpus());
    let backend = Backend::affinity_only("not requested");
    let provision = provide_database(options);
    let start = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: options.cache,
        database_url: provision.url.as_deref(),
        db_pool_total: options.db_pool_total,
        address: None,
        remote: None,
    };
    let mut subjects = Vec::new();
    for s in options.subjects {
        let mine = served(s, options.workloads);
        if mine.is_empty() {
            continue;
        }
        if let Some(reason) = s.unavailable_reason() {
            observer.emit(RunEvent::SubjectSkipped {
                subject: &s.id,
                reason: &reason,
            });
            continue;
        }
        let result = subject_conformance(s, &mine, options, &start, observer);
        subjects.push(result);
    }
    ConformanceReport::new(subjects)
}

/// The workloads of `workloads` that `s` serves.
pub fn served(s: &Subject, workloads: &[Workload]) -> Vec<Workload> {
    workloads
        .iter()
        .copied()
        .filter(|w| s.supports(*w))
        .collect()
}

/// One subject: from the cache for this build, else built, started single-thread and checked.
fn subject_conformance(
    s: &Subject,
    workloads: &[Workload],
    options: &ConformanceOptions,
    start: &StartOptions,
    observer: &Events,
) -> SubjectConformance {
    let at = At::subject(&s.id);
    observer.emit(RunEvent::Step {
        at,
        step: Step::Building,
    });
    if let Err(e) = prepare::prepare(s, options.cache) {
        return told(observer, errored(s, String::new(), chain(&e)), None);
    }
    let build = match build_key(s, workloads) {
        Ok(k) => k,
        Err(e) => return told(observer, errored(s, String::new(), chain(&e)), None),
    };
    if !options.fresh
        && let Some((hit, checked_at)) = cached(options.cache, s, &build)
    {
        return told(observer, hit, Some(&checked_at));
    }
    let at = At::scenario(&s.id, Scenario::SingleThread);
    observer.emit(RunEvent::Step {
        at,
        step: Step::Starting,
    });
    let mut running = match start_subject(s, Scenario::SingleThread, start, None) {
        Ok(r) => r,
        Err(e) => return told(observer, errored(s, build, chain(&e)), None),
    };
    observer.emit(RunEvent::Step {
        at,
        step: Step::Conformance,
    });
    let result = SubjectConformance {
        subject: s.id.clone(),
        build,
        cases: check(running.addr, workloads),
        error: None,
    };
    running.child.stop(Duration::from_secs(5));
    store(options.cache, &result);
    told(observer, result, None)
}

/// Says `c` (with the date it was checked when it came from the cache).
fn told(observer: &Events, c: SubjectConformance, cached: Option<&str>) -> SubjectConformance {
    observer.emit(RunEvent::Conformed {
        conformance: &c,
        cached,
    });
    c
}

fn errored(s: &Subject, build: String, error: String) -> SubjectConformance {
    SubjectConformance {
        subject: s.id.clone(),
        build,
        cases: Vec::new(),
        error: Some(error),
    }
}

/// What a result is kept for: the build's hash, the suite's version and the workloads whose
/// requests were checked (a run of one workload checks fewer than `restbench conformance`).
pub fn build_key(s: &Subject, workloads: &[Workload]) -> Result<String, crate::HarnessError> {
    let names: Vec<&str> = workloads.iter().map(|w| w.name()).collect();
    Ok(format!(
        "{}-suite{SUITE_VERSION}-{}",
        prepare::build_hash(s)?,
        names.join(",")
    ))
}

fn cache_file(cache: &Path, s: &Subject) -> PathBuf {
    cache.join("conformance").join(format!("{}.json", s.id))
}

/// The most a conformance cache entry may hold: the suite has a few dozen cases of a few
/// hundred bytes each.
pub const ENTRY_LIMIT: u64 = 1 << 20;
/// The most cases an entry may list: far more than the suite has.
pub const ENTRY_CASES: usize = 1000;

/// An entry of the conformance cache: the result, when it was checked, and the digest of both
/// with the build key, so an entry edited by hand (all cases turned to pass), copied from
/// another build or written by another restbench is not believed.
#[derive(serde::Serialize, serde::Deserialize)]
struct Entry {
    checked_at: String,
    digest: String,
    result: SubjectConformance,
}

/// SHA-256 of the build key, the time and the result as JSON, in hex.
fn digest(build: &str, checked_at: &str, result: &SubjectConformance) -> Option<String> {
    use sha2::{Digest, Sha256};
    let json = serde_json::to_vec(result).ok()?;
    let mut h = Sha256::new();
    for part in [build.as_bytes(), b"\n", checked_at.as_bytes(), b"\n", &json] {
        h.update(part);
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The cached result of this build of `s` and when it was checked, if the cache holds one
/// (results that did not run, such as a failed start, are never kept). The entry is read as
/// restbench's own file (no link, no pipe, at most [`ENTRY_LIMIT`]) and believed only when its
/// digest matches its content and this build.
pub fn cached(cache: &Path, s: &Subject, build: &str) -> Option<(SubjectConformance, String)> {
    let bytes = restbench_model::documents::io::read_own_file(
        &cache_file(cache, s),
        ENTRY_LIMIT,
        "the conformance cache",
    )
    .ok()?;
    parse_entry(&bytes, &s.id, build)
}

/// A cache entry's bytes, believed for `subject` and `build` or not (the fuzz target
/// `costs_and_conformance_cache` feeds it anything).
pub fn parse_entry(
    bytes: &[u8],
    subject: &str,
    build: &str,
) -> Option<(SubjectConformance, String)> {
    if bytes.len() as u64 > ENTRY_LIMIT {
        return None;
    }
    let e: Entry = serde_json::from_slice(bytes).ok()?;
    let c = e.result;
    let believed = c.build == build
        && c.subject == subject
        && c.error.is_none()
        && c.cases.len() <= ENTRY_CASES
        && digest(build, &e.checked_at, &c).is_some_and(|d| d == e.digest);
    believed.then_some((c, e.checked_at))
}

/// Keeps `c` for its build, checked now; a cache that cannot be written only costs the next
/// run the cases.
pub fn store(cache: &Path, c: &SubjectConformance) {
    if c.error.is_some() || !restbench_subject::is_id(&c.subject) {
        return;
    }
    let checked_at = restbench_model::vocabulary::time::utc_stamp();
    let Some(digest) = digest(&c.build, &checked_at, c) else {
        return;
    };
    let entry = Entry {
        checked_at,
        digest,
        result: c.clone(),
    };
    let file = cache
        .join("conformance")
        .join(format!("{}.json", c.subject));
    if let Ok(json) = serde_json::to_vec_pretty(&entry) {
        let _ = std::fs::create_dir_all(cache.join("conformance"));
        let _ = restbench_host::process::write_afresh(&file, &json);
    }
}

/// A database when a subject available here serves `users` (the given one, else a throwaway
/// cluster); subjects that need one and get none start without it and fail their users case.
fn provide_database(options: &ConformanceOptions) -> db::Provision {
    let needs_db = options.subjects.iter().any(|s| {
        s.unavailable_reason().is_none()
            && options
                .workloads
                .iter()
                .any(|w| w.needs_database() && s.supports(*w))
    });
    db::provide(
        needs_db,
        options.database_url,
        &options.cache.join("logs"),
        None,
    )
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(root: &Path) -> Subject {
        let dir = root.join("tiny");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("subject.toml"),
            "id = \"tiny\"\nlanguage = \"python\"\nframework = \"t\"\nframework_version = \"1\"\n\
             seeds = []\nworkloads = [\"plaintext\"]\n[start]\ncommand = \"exec true\"\n",
        )
        .unwrap();
        Subject::load(&dir).unwrap()
    }

    /// A result with one failing case, as a run would keep it.
    fn failing(build: &str) -> SubjectConformance {
        serde_json::from_value(serde_json::json!({
            "subject": "tiny",
            "build": build,
            "cases": [{"case": "split-every-offset/plaintext", "level": "fail",
                       "verdict": "fail", "seen": "no answer"}],
        }))
        .unwrap()
    }

    #[test]
    fn an_edited_or_huge_cache_entry_is_not_believed_and_a_kept_one_says_when() {
        let dir = tempfile::tempdir().unwrap();
        let s = subject(dir.path());
        let cache = dir.path().join("cache");
        let result = failing("b1");
        store(&cache, &result);
        let (back, checked_at) = cached(&cache, &s, "b1").expect("kept");
        assert_eq!(back, result);
        assert!(checked_at.starts_with("20"), "{checked_at}");
        assert!(cached(&cache, &s, "b2").is_none(), "another build");
        // Edited to all-pass: not believed.
        let file = cache_file(&cache, &s);
        let text = std::fs::read_to_string(&file).unwrap();
        let edited = text.replace("\"verdict\": \"fail\"", "\"verdict\": \"pass\"");
        assert_ne!(edited, text, "the edit applies");
        std::fs::write(&file, edited).unwrap();
        assert!(
            cached(&cache, &s, "b1").is_none(),
            "an edited entry was believed"
        );
        // An entry of made-up cases beyond the limit is refused from its size.
        let case = r#"{"case":"x","level":"fail","verdict":"pass","seen":""},"#;
        let huge = format!(
            r#"{{"subject":"tiny","build":"b1","cases":[{}{}]}}"#,
            case.repeat(20_000),
            &case[..case.len() - 1]
        );
        std::fs::write(&file, huge).unwrap();
        assert!(std::fs::metadata(&file).unwrap().len() > ENTRY_LIMIT);
        assert!(cached(&cache, &s, "b1").is_none());
        // A pipe in its place does not hang.
        std::fs::remove_file(&file).unwrap();
        nix::unistd::mkfifo(&file, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let (c, s2) = (cache.clone(), s.clone());
        std::thread::spawn(move || {
            let _ = tx.send(cached(&c, &s2, "b1").is_none());
        });
        assert!(
            rx.recv_timeout(Duration::from_secs(10))
                .expect("a pipe hung the cache read")
        );
    }
}
