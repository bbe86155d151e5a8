//! `restbench subjects`: the catalogue.

use std::io::Write;
use std::process::ExitCode;

use restbench_harness::subject;
use serde::Serialize;

use crate::cli::SubjectsArgs;

#[derive(Serialize)]
struct Entry<'a> {
    id: &'a str,
    language: &'a str,
    framework: &'a str,
    framework_version: &'a str,
    seeds: &'a [String],
    workloads: Vec<&'static str>,
    scenarios: Vec<&'a str>,
    available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    description: &'a str,
}

pub fn run(args: SubjectsArgs) -> anyhow::Result<ExitCode> {
    if let Some(to) = args.install {
        return super::install::run(&args.dir, to);
    }
    let root = super::subjects_root(&args.dir)?;
    let all = subject::discover(&root)?;
    let entries: Vec<Entry> = all
        .iter()
        .map(|s| {
            let reason = s.unavailable_reason();
            Entry {
                id: &s.id,
                language: &s.language,
                framework: &s.framework,
                framework_version: &s.framework_version,
                seeds: &s.seeds,
                workloads: s.workloads.iter().map(|w| w.name()).collect(),
                scenarios: s.scenarios.keys().map(String::as_str).collect(),
                available: reason.is_none(),
                reason,
                description: &s.description,
            }
        })
        .collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &entries)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 6]> = entries
        .iter()
        .map(|e| {
            [
                e.id.to_string(),
                e.language.to_string(),
                format!("{} {}", e.framework, e.framework_version),
                if e.seeds.is_empty() {
                    "-".into()
                } else {
                    e.seeds.join(",")
                },
                e.workloads.join(","),
                match &e.reason {
                    None => "yes".into(),
                    Some(r) => format!("no: {r}"),
                },
            ]
        })
        .collect();
    let header = [
        "ID",
        "LANGUAGE",
        "FRAMEWORK",
        "SEEDS",
        "WORKLOADS",
        "AVAILABLE",
    ];
    let mut widths = header.map(str::len);
    for r in &rows {
        for (i, c) in r.iter().enumerate().take(5) {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i < 5 {
                s.push_str(&format!("{c:<w$}  ", w = widths[i]));
            } else {
                s.push_str(c);
            }
        }
        s
    };
    writeln!(out, "{}", line(header))?;
    for r in &rows {
        writeln!(out, "{}", line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]))?;
    }
    let available = entries.iter().filter(|e| e.available).count();
    writeln!(
        out,
        "\n{} subjects, {available} available here",
        entries.len()
    )?;
    Ok(ExitCode::SUCCESS)
}
