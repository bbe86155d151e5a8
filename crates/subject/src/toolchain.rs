//! Toolchain versions: what a subject needs against what is on PATH, decided before any build.
//!
//! A tool that is present but too old (Debian 12 ships Go 1.19 and Node.js 18) used to surface as
//! a build failure deep inside a run. Here the minimum comes from the subject's own files, in this
//! order: `[requires] versions` in `subject.toml` (`{ java = "17" }`), else the `go` directive of
//! its `go.mod` for `go`, else `engines.node` of its `package.json` for `node`. The installed
//! version is read once per executable and process (`go version`, `node --version`,
//! `java -version`, `python3 --version`, `ghc --numeric-version`, `--version` for the rest).
//! Python subjects also need the `venv` module with `ensurepip` (Debian's `python3-venv`), and
//! `[requires] ghc_packages` names GHC libraries that must be registered with `ghc-pkg`.
//! Each problem comes with the shell command that fixes it on Debian.

use restbench_host::shell::find_on_path;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use serde::Serialize;

use restbench_host::environment::strip_ansi;
/// What a subject asks of its toolchain, as plain data: the toolchain checks need nothing else of
/// it (and so `subject` can use this module without this module using `subject`).
#[derive(Debug, Clone, Copy)]
pub struct Needs<'a> {
    pub id: &'a str,
    pub dir: &'a Path,
    pub tools: &'a [String],
    /// `[requires] versions`: tool → minimum version.
    pub min_versions: &'a BTreeMap<String, String>,
    pub ghc_packages: &'a [String],
}

/// A dotted version such as `1.26`, `20.20.2` or `17.0.15`; missing parts count as 0, so
/// `1.26` equals `1.26.0`.
#[derive(Debug, Clone)]
pub struct Version {
    parts: Vec<u32>,
    text: String,
}

impl Version {
    /// Reads the leading `digits(.digits)*` of `text` (after an optional `v` or `go`), ignoring what
    /// follows (`17.0.15+6`, `1.8.0_381`, `20.x`).
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        let t = t.strip_prefix("go").unwrap_or(t);
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = Vec::new();
        for piece in t.split('.') {
            let digits: String = piece.chars().take_while(char::is_ascii_digit).collect();
            if digits.is_empty() {
                break;
            }
            parts.push(digits.parse().ok()?);
            if digits.len() != piece.len() {
                break;
            }
        }
        if parts.is_empty() {
            return None;
        }
        let text = parts
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".");
        Some(Self { parts, text })
    }

    /// The first number: 17 for Java 17.0.15, 20 for Node.js 20.20.2.
    pub fn major(&self) -> u32 {
        self.parts[0]
    }

    fn padded(&self, len: usize) -> String {
        let mut parts = self.parts.clone();
        parts.resize(len.max(parts.len()), 0);
        parts
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".")
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        let len = self.parts.len().max(other.parts.len());
        (0..len)
            .map(|i| {
                let a = self.parts.get(i).copied().unwrap_or(0);
                let b = other.parts.get(i).copied().unwrap_or(0);
                a.cmp(&b)
            })
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// The arguments that make `tool` print its version.
pub fn version_args(tool: &str) -> &'static [&'static str] {
    match tool {
        "go" => &["version"],
        "java" => &["-version"],
        "ghc" => &["--numeric-version"],
        _ => &["--version"],
    }
}

/// The version in a tool's output: `go version go1.19.8 linux/amd64`, `v20.20.2`,
/// `openjdk version "17.0.15" 2025-04-15` (`"1.8.0_381"` is Java 8), `Python 3.11.2`, `9.0.2`,
/// `Apache Maven 3.8.7`, `cargo 1.88.0 (…)`.
pub fn version_in_output(tool: &str, output: &str) -> Option<Version> {
    let output = strip_ansi(output);
    if tool == "java"
        && let Some(quoted) = output.split('"').nth(1)
        && let Some(v) = Version::parse(quoted)
    {
        // Before Java 9 the version was 1.x.
        if v.parts.len() > 1 && v.parts[0] == 1 {
            return Version::parse(
                &v.parts[1..]
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("."),
            );
        }
        return Some(v);
    }
    output
        .split_whitespace()
        .filter(|w| {
            let w = w.strip_prefix("go").unwrap_or(w);
            let w = w.strip_prefix('v').unwrap_or(w);
            w.starts_with(|c: char| c.is_ascii_digit())
        })
        .find_map(Version::parse)
}

/// What is installed: the executable, its version output's first line and the version in it.
#[derive(Debug, Clone, Serialize)]
pub struct Installed {
    pub path: PathBuf,
    pub version: Option<Version>,
    pub first_line: String,
}

/// Probes, one per executable path and process: a `subjects` listing asks 27 times.
static PROBES: Mutex<BTreeMap<(String, PathBuf), Option<String>>> = Mutex::new(BTreeMap::new());

/// Runs `path args…` once per process and returns its stdout and stderr, or `None` when it failed.
fn cached_output(key: &str, path: &Path, args: &[&str]) -> Option<String> {
    let id = (key.to_string(), path.to_path_buf());
    if let Some(hit) = PROBES.lock().ok().and_then(|m| m.get(&id).cloned()) {
        return hit;
    }
    let out = Command::new(path)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
            text.push('\n');
            text.push_str(&String::from_utf8_lossy(&o.stderr));
            text
        });
    if let Ok(mut m) = PROBES.lock() {
        m.insert(id, out.clone());
    }
    out
}

/// The tool on PATH and its version, or `None` when it is not on PATH.
pub fn installed(tool: &str) -> Option<Installed> {
    let path = find_on_path(tool)?;
    let output = cached_output("version", &path, version_args(tool)).unwrap_or_default();
    let first_line = strip_ansi(
        output
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default(),
    )
    .trim()
    .to_string();
    Some(Installed {
        version: version_in_output(tool, &output),
        path,
        first_line,
    })
}

/// A minimum version a subject needs, and which file says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Requirement {
    pub tool: String,
    pub minimum: Version,
    /// `subject.toml`, `go.mod` or `package.json`.
    pub source: String,
}

/// The minimum versions `subject` needs (see the module docs for where they come from).
pub fn requirements(subject: &Needs) -> Vec<Requirement> {
    let mut out: Vec<Requirement> = subject
        .min_versions
        .iter()
        .filter_map(|(tool, v)| {
            Some(Requirement {
                tool: tool.clone(),
                minimum: Version::parse(v)?,
                source: "subject.toml".into(),
            })
        })
        .collect();
    let stated = |tool: &str, out: &[Requirement]| out.iter().any(|r| r.tool == tool);
    if subject.tools.iter().any(|t| t == "go")
        && !stated("go", &out)
        && let Some(v) = go_mod_minimum(&subject.dir.join("go.mod"))
    {
        out.push(Requirement {
            tool: "go".into(),
            minimum: v,
            source: "go.mod".into(),
        });
    }
    if subject.tools.iter().any(|t| t == "node")
        && !stated("node", &out)
        && let Some(v) = engines_node_minimum(&subject.dir.join("package.json"))
    {
        out.push(Requirement {
            tool: "node".into(),
            minimum: v,
            source: "package.json engines".into(),
        });
    }
    out
}

/// The most a go.mod or package.json read for its versions may hold.
const MANIFEST_FILE_LIMIT: u64 = 4 << 20;

/// The `go 1.26.0` directive of a go.mod: the oldest Go that builds the module.
pub fn go_mod_minimum(path: &Path) -> Option<Version> {
    let text =
        restbench_model::documents::io::read_limited_string(path, MANIFEST_FILE_LIMIT, "go.mod")
            .ok()?;
    text.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("go "))
        .and_then(Version::parse)
}

/// The lower bound of `engines.node` in a package.json (`>=20`, `^20.1`, `20.x`); `None` for
/// ranges without one (`<22`).
pub fn engines_node_minimum(path: &Path) -> Option<Version> {
    let text = restbench_model::documents::io::read_limited_string(
        path,
        MANIFEST_FILE_LIMIT,
        "package.json",
    )
    .ok()?;
    let doc: serde_json::Value = serde_json::from_str(&text).ok()?;
    let range = doc.get("engines")?.get("node")?.as_str()?.trim();
    if range.starts_with('<') {
        return None;
    }
    Version::parse(range.trim_start_matches(['>', '=', '^', '~', ' ']))
}

/// One thing that keeps a subject from building here, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shortfall {
    pub tool: String,
    /// `go 1.19.8 < 1.26 (go.mod)`, `python3 has no venv module`, …
    pub problem: String,
    /// A shell command that fixes it on Debian.
    pub fix: String,
}

/// Compares an installed version with a requirement; `None` when it is new enough.
pub fn judge(req: &Requirement, found: &Installed) -> Option<Shortfall> {
    let problem = match &found.version {
        Some(v) if *v >= req.minimum => return None,
        Some(v) => format!("{} {v} < {} ({})", req.tool, req.minimum, req.source),
        None => format!(
            "{} version unknown ({:?}), {} needs {}",
            req.tool, found.first_line, req.source, req.minimum
        ),
    };
    Some(Shortfall {
        tool: req.tool.clone(),
        problem,
        fix: fix_command(&req.tool, Some(&req.minimum)),
    })
}

/// Why `subject`'s toolchain is not good enough, every problem with its fix; empty when it is.
/// Tools missing from PATH are not reported here (`Subject::unavailable_reason` names them).
pub fn shortfalls(subject: &Needs) -> Vec<Shortfall> {
    let mut out = Vec::new();
    for req in requirements(subject) {
        if let Some(found) = installed(&req.tool)
            && let Some(s) = judge(&req, &found)
        {
            out.push(s);
        }
    }
    if subject.tools.iter().any(|t| t == "python3")
        && let Some(python) = find_on_path("python3")
        && let Some(s) = venv_shortfall(&python)
    {
        out.push(s);
    }
    if !subject.ghc_packages.is_empty()
        && let Some(s) = ghc_packages_shortfall(subject.ghc_packages)
    {
        out.push(s);
    }
    out
}

/// The reason line for `subject`, or `None`: `go 1.19.8 < 1.26 (go.mod); fix: …`.
pub fn shortfall_reason(subject: &Needs) -> Option<String> {
    let all = shortfalls(subject);
    if all.is_empty() {
        return None;
    }
    Some(
        all.iter()
            .map(|s| format!("{}; fix: {}", s.problem, s.fix))
            .collect::<Vec<_>>()
            .join("; "),
    )
}

/// `python3 -m venv` needs the venv module and ensurepip (Debian splits them into `python3-venv`).
pub fn venv_shortfall(python: &Path) -> Option<Shortfall> {
    cached_output("venv", python, &["-c", "import venv, ensurepip"])
        .is_none()
        .then(|| Shortfall {
            tool: "python3".into(),
            problem: "python3 has no venv module with ensurepip".into(),
            fix: fix_command("python3-venv", None),
        })
}

/// The GHC libraries of `names` that `ghc-pkg` does not list.
pub fn ghc_packages_shortfall(names: &[String]) -> Option<Shortfall> {
    let listed = find_on_path("ghc-pkg")
        .and_then(|p| cached_output("packages", &p, &["list", "--simple-output", "--names-only"]))
        .unwrap_or_default();
    let have: Vec<&str> = listed.split_whitespace().collect();
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !have.contains(&n.as_str()))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let packages: Vec<String> = missing.iter().map(|n| format!("libghc-{n}-dev")).collect();
    Some(Shortfall {
        tool: "ghc".into(),
        problem: format!(
            "GHC libraries missing: {}",
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        fix: format!("sudo apt-get install -y {}", packages.join(" ")),
    })
}

/// The command that installs `tool` (at least `minimum`) on Debian. Debian 12's own Go (1.19) and
/// Node.js (18) are too old for the subjects, so those come from go.dev and NodeSource.
pub fn fix_command(tool: &str, minimum: Option<&Version>) -> String {
    match tool {
        "go" => {
            let v = minimum.map_or_else(|| "1.26.0".to_string(), |m| m.padded(3));
            let arch = match std::env::consts::ARCH {
                "x86_64" => "amd64",
                "aarch64" => "arm64",
                other => other,
            };
            format!(
                "sudo rm -rf /usr/local/go && curl -fsSL https://go.dev/dl/go{v}.linux-{arch}.tar.gz \
                 | sudo tar -C /usr/local -xz && export PATH=/usr/local/go/bin:$PATH"
            )
        }
        "node" | "npm" => {
            let major = minimum.map_or(20, |m| m.major().max(20));
            format!(
                "curl -fsSL https://deb.nodesource.com/setup_{major}.x | sudo -E bash - \
                 && sudo apt-get install -y nodejs"
            )
        }
        "java" => {
            let major = minimum.map_or(17, |m| m.major().max(17));
            format!("sudo apt-get install -y openjdk-{major}-jdk-headless")
        }
        "mvn" => "sudo apt-get install -y maven".into(),
        "python3" => "sudo apt-get install -y python3 python3-venv".into(),
        "python3-venv" => "sudo apt-get install -y python3-venv".into(),
        "ghc" => "sudo apt-get install -y ghc".into(),
        "cargo" | "rustc" => {
            "curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y \
             && rustup update stable"
                .into()
        }
        "initdb" => "sudo apt-get install -y postgresql".into(),
        "h2load" => "sudo apt-get install -y nghttp2-client".into(),
        "ab" => "sudo apt-get install -y apache2-utils".into(),
        other => format!("sudo apt-get install -y {other}"),
    }
}

/// The strictest requirement for `tool` over `subjects`, with the subjects that state it.
pub fn strictest<'a>(
    subjects: impl IntoIterator<Item = Needs<'a>>,
    tool: &str,
) -> Option<(Requirement, Vec<String>)> {
    let mut best: Option<(Requirement, Vec<String>)> = None;
    for s in subjects {
        for r in requirements(&s).into_iter().filter(|r| r.tool == tool) {
            match &mut best {
                Some((b, ids)) if r.minimum == b.minimum => ids.push(s.id.to_string()),
                Some((b, _)) if r.minimum < b.minimum => {}
                _ => best = Some((r, vec![s.id.to_string()])),
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn versions_compare_by_parts() {
        assert!(v("1.19.8") < v("1.26"));
        assert!(v("1.26.0") == v("1.26"));
        assert!(v("1.26.8") > v("1.26"));
        assert!(v("20.20.2") >= v("20"));
        assert!(v("18.19.0") < v("20"));
        assert!(v("9.0.2") > v("9"));
        assert_eq!(v("v20.1.x").to_string(), "20.1");
        assert_eq!(v("17.0.15+6").to_string(), "17.0.15");
        assert!(Version::parse("x1").is_none());
    }

    #[test]
    fn versions_are_read_from_each_tools_output() {
        let cases = [
            ("go", "go version go1.19.8 linux/amd64", "1.19.8"),
            ("node", "v18.19.0\n", "18.19.0"),
            (
                "java",
                "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment",
                "17.0.15",
            ),
            ("java", "java version \"1.8.0_381\"", "8.0"),
            ("java", "openjdk version \"21\" 2023-09-19", "21"),
            ("python3", "Python 3.11.2", "3.11.2"),
            ("ghc", "9.0.2\n", "9.0.2"),
            ("mvn", "\u{1b}[1mApache Maven 3.8.7\u{1b}[m", "3.8.7"),
            ("cargo", "cargo 1.88.0 (873a06493 2025-05-10)", "1.88.0"),
        ];
        for (tool, output, want) in cases {
            let got = version_in_output(tool, output).map(|v| v.to_string());
            assert_eq!(got.as_deref(), Some(want), "{tool}: {output:?}");
        }
        assert!(version_in_output("go", "no version here").is_none());
    }

    #[test]
    fn minimums_come_from_go_mod_and_package_json() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("go.mod"),
            "module x\n\ngo 1.26.0\n\ntoolchain go1.26.1\n",
        )
        .unwrap();
        assert_eq!(go_mod_minimum(&dir.path().join("go.mod")), Some(v("1.26")));
        for (range, want) in [
            (">=20", Some("20")),
            ("^20.1.0", Some("20.1")),
            ("<22", None),
        ] {
            std::fs::write(
                dir.path().join("package.json"),
                format!(r#"{{"name": "x", "engines": {{"node": "{range}"}}}}"#),
            )
            .unwrap();
            assert_eq!(
                engines_node_minimum(&dir.path().join("package.json")),
                want.map(v),
                "{range}"
            );
        }
    }

    #[test]
    fn too_old_is_a_shortfall_with_a_fix() {
        let req = Requirement {
            tool: "go".into(),
            minimum: v("1.26"),
            source: "go.mod".into(),
        };
        let found = |ver: &str| Installed {
            path: "/usr/bin/go".into(),
            version: Version::parse(ver),
            first_line: ver.into(),
        };
        let s = judge(&req, &found("1.19.8")).unwrap();
        assert_eq!(s.problem, "go 1.19.8 < 1.26 (go.mod)");
        assert!(s.fix.contains("go1.26.0.linux-"), "{}", s.fix);
        assert!(judge(&req, &found("1.26.8")).is_none());
        assert!(
            judge(&req, &found("?"))
                .unwrap()
                .problem
                .contains("unknown")
        );
    }

    #[test]
    fn fixes_name_versions_that_are_new_enough() {
        assert!(fix_command("node", Some(&v("20"))).contains("setup_20.x"));
        assert!(fix_command("node", Some(&v("22"))).contains("setup_22.x"));
        assert!(fix_command("java", Some(&v("17"))).contains("openjdk-17-jdk-headless"));
        assert!(fix_command("python3-venv", None).contains("python3-venv"));
    }
}
