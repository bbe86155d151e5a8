//! `doctor`'s verdict on one tool: present, new enough for every subject that states a minimum,
//! and (for Python and GHC) complete; with the command that fixes what is not.

use restbench_model::ToolCheck;
use restbench_subject::Subject;
use restbench_subject::toolchain;

/// Tools whose install command depends on the version needed (see `toolchain::fix_command`).
const TOOLCHAINS: [&str; 8] = [
    "cargo", "go", "node", "npm", "python3", "java", "mvn", "ghc",
];

pub fn check(tool: &'static str, found: bool, package: &str, subjects: &[Subject]) -> ToolCheck {
    let requirement = toolchain::strictest(subjects.iter().map(Subject::needs), tool);
    let minimum = requirement.as_ref().map(|(r, _)| r.minimum.clone());
    let mut out = ToolCheck {
        tool: tool.to_string(),
        found,
        version: None,
        required: minimum.as_ref().map(ToString::to_string),
        required_by: requirement
            .as_ref()
            .map(|(_, ids)| ids.clone())
            .unwrap_or_default(),
        source: requirement.as_ref().map(|(r, _)| r.source.clone()),
        ok: found,
        problems: Vec::new(),
        fix: None,
        also: Vec::new(),
    };
    let mut fixes = Vec::new();
    if !found {
        fixes.push(if TOOLCHAINS.contains(&tool) {
            toolchain::fix_command(tool, minimum.as_ref())
        } else {
            format!("sudo apt-get install -y {package}")
        });
    } else if let Some(installed) = toolchain::installed(tool) {
        out.version = installed.version.as_ref().map(ToString::to_string);
        if let Some((req, ids)) = &requirement
            && let Some(short) = toolchain::judge(req, &installed)
        {
            out.problems
                .push(format!("too old for {}: {}", ids.join(", "), short.problem));
            fixes.push(short.fix);
        }
        if tool == "python3"
            && let Some(short) = toolchain::venv_shortfall(&installed.path)
        {
            out.problems.push(short.problem);
            fixes.push(short.fix);
        } else if tool == "python3" {
            out.also.push("venv".into());
        }
        if tool == "ghc" {
            let mut wanted: Vec<String> = subjects
                .iter()
                .flat_map(|s| s.ghc_packages.iter().cloned())
                .collect();
            wanted.sort();
            wanted.dedup();
            if let Some(short) = toolchain::ghc_packages_shortfall(&wanted) {
                out.problems.push(short.problem);
                fixes.push(short.fix);
            } else if !wanted.is_empty() {
                out.also.push(format!("libraries {}", wanted.join(", ")));
            }
        }
    }
    out.ok = found && out.problems.is_empty();
    if !fixes.is_empty() {
        out.fix = Some(fixes.join(" && "));
    }
    out
}

/// The first line of a toolchain's version output, from the probe `check` ran (cached).
pub fn first_line(tool: &str) -> Option<String> {
    if !TOOLCHAINS.contains(&tool) {
        return None;
    }
    toolchain::installed(tool)
        .map(|i| i.first_line)
        .filter(|l| !l.is_empty())
}
