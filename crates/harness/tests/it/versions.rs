//! The `[versions]` commands of the Node subjects answer before the first build: the run reads
//! them when it starts, before `npm ci` has made `node_modules`, so they read the committed
//! lockfile (what `npm ci` installs) rather than the installed packages.

use restbench_host::environment::command_version;
use restbench_subject::Subject;
use restbench_testkit::turn;

use crate::support::subjects_root;

#[test]
fn node_versions_are_known_before_the_build() {
    let _turn = turn::take(module_path!());
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no node on PATH");
        return;
    }
    let mut unknown = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(subjects_root()).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("node-") {
            continue;
        }
        // A copy without node_modules: the folder as a fresh checkout has it.
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join(&name);
        std::fs::create_dir(&copy).unwrap();
        for file in std::fs::read_dir(entry.path()).unwrap().flatten() {
            if file.file_type().unwrap().is_file() {
                std::fs::copy(file.path(), copy.join(file.file_name())).unwrap();
            }
        }
        let subject = Subject::load(&copy).unwrap();
        for (tool, command) in &subject.versions {
            let version = command_version(&copy, command);
            checked += 1;
            if version.starts_with("unknown") || version.is_empty() {
                unknown.push(format!("{name} {tool}: {version}"));
            }
        }
    }
    assert!(checked >= 6 * 3, "only {checked} version commands found");
    assert!(unknown.is_empty(), "\n{}", unknown.join("\n"));
}
