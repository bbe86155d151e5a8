//! What `restbench db start` leaves in shared places: a killed `db start` leaves no shared memory
//! (no System V segment, no POSIX segment in /dev/shm), and a log folder planted in the shared
//! temporary folder is never written through.
//!
//! These tests start real PostgreSQL servers, so they are ignored by default (`cargo test --
//! --include-ignored` runs them, as CI does). They find their segments by id and their folders by path, so they run in
//! parallel with each other and with the other tests.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::support::restbench;
use restbench_testkit::cli::lines;
use restbench_testkit::procs::within_10s;
use restbench_testkit::turn;

/// A running `restbench db start` and its data folder.
struct DbStart {
    child: Child,
    data_dir: PathBuf,
}

impl Drop for DbStart {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `restbench db start` with `TMPDIR` set to `tmp`; returns once it printed its URL.
fn db_start(tmp: &Path) -> DbStart {
    let mut child = restbench()
        .args(["db", "start"])
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = lines(child.stdout.take().unwrap());
    let stderr = lines(child.stderr.take().unwrap());
    let url = stdout.recv_timeout(Duration::from_secs(60));
    let about = stderr.recv_timeout(Duration::from_secs(10));
    let (Ok(_url), Ok(about)) = (url, about) else {
        let _ = child.kill();
        let said: Vec<String> = stderr.try_iter().collect();
        panic!("db start printed no URL within 60 s: {said:?}");
    };
    // "PostgreSQL on 127.0.0.1:PORT (DATA_DIR); Ctrl-C stops it and removes it"
    let data_dir = about
        .split_once(" (")
        .and_then(|(_, rest)| rest.split_once("); "))
        .map(|(dir, _)| PathBuf::from(dir))
        .unwrap_or_else(|| panic!("no data folder in {about:?}"));
    DbStart { child, data_dir }
}

/// A folder for `TMPDIR` that the postgres user can pass through, as /tmp is.
fn shared_tmp() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    tmp
}

/// System V segment ids that exist now, from /proc/sysvipc/shm.
fn sysv_segments() -> Vec<u64> {
    std::fs::read_to_string("/proc/sysvipc/shm")
        .unwrap_or_default()
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
        .collect()
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn a_killed_db_start_leaves_no_shared_memory() {
    let _turn = turn::take(module_path!());
    let tmp = shared_tmp();
    let mut db = db_start(tmp.path());
    let pid_file = std::fs::read_to_string(db.data_dir.join("postmaster.pid")).unwrap();
    let lines: Vec<&str> = pid_file.lines().collect();
    let postmaster: u32 = lines[0].trim().parse().unwrap();
    // Line 7: the key and id of the System V segment PostgreSQL keeps as its interlock.
    let shmid: u64 = lines[6].split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(
        sysv_segments().contains(&shmid),
        "segment {shmid} not found"
    );
    // The bulk is anonymous memory, dynamic segments live in the data folder: nothing of the
    // cluster is in /dev/shm, where a killed server would leave it.
    let maps = std::fs::read_to_string(format!("/proc/{postmaster}/maps")).unwrap();
    let in_dev_shm: Vec<&str> = maps.lines().filter(|l| l.contains("/dev/shm/")).collect();
    assert!(in_dev_shm.is_empty(), "{in_dev_shm:?}");
    let sysv: Vec<&str> = maps.lines().filter(|l| l.contains("/SYSV")).collect();
    assert_eq!(sysv.len(), 1, "one small interlock segment: {sysv:?}");

    db.child.kill().unwrap(); // SIGKILL: no handler runs
    let _ = db.child.wait();
    let root = db.data_dir.parent().unwrap().to_path_buf();
    assert!(
        within_10s(|| !sysv_segments().contains(&shmid) && !root.exists()).is_some(),
        "10 s after restbench was killed: segment {shmid} left: {}, folder left: {}",
        sysv_segments().contains(&shmid),
        root.exists()
    );
}

#[test]
#[ignore = "slow: starts PostgreSQL; cargo test -- --include-ignored runs it (CI does)"]
fn db_start_writes_nothing_through_a_planted_log_folder() {
    let _turn = turn::take(module_path!());
    // Where restbench used to write PostgreSQL's log, someone else's folder waits.
    let tmp = shared_tmp();
    let victim = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(victim.path(), tmp.path().join("restbench-logs")).unwrap();
    let db = db_start(tmp.path());
    kill(Pid::from_raw(db.child.id() as i32), Signal::SIGINT).unwrap();
    let mut db = db;
    let started = Instant::now();
    while db.child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no exit 20 s after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let written: Vec<_> = std::fs::read_dir(victim.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(
        written.is_empty(),
        "written through the planted symlink: {written:?}"
    );
    // A clean stop leaves nothing in the temporary folder but the planted link.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("restbench-logs")],
        "left behind"
    );
}
