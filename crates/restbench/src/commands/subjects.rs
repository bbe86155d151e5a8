//! `restbench subjects`: the catalogue.

use std::io::Write;
use std::process::ExitCode;

use restbench_harness::subject;
use restbench_model::{SCHEMA_VERSION, SubjectCatalogue, SubjectEntry};
use restbench_report::text::{Column, TextTable};

use crate::cli::SubjectsArgs;

const COLUMNS: [Column; 6] = [
    Column::left("ID"),
    Column::left("LANGUAGE"),
    Column::left("FRAMEWORK"),
    Column::left("SEEDS"),
    Column::left("WORKLOADS"),
    Column::left("AVAILABLE"),
];

pub fn run(args: SubjectsArgs) -> anyhow::Result<ExitCode> {
    if let Some(to) = args.install {
        return crate::install::run(&args.dir, to);
    }
    let root = crate::common::subjects_root(&args.dir)?;
    let all = subject::discover(&root)?;
    let entries: Vec<SubjectEntry> = all
        .iter()
        .map(|s| {
            let reason = s.unavailable_reason();
            SubjectEntry {
                id: s.id.clone(),
                language: s.language.clone(),
                framework: s.framework.clone(),
                framework_version: s.framework_version.clone(),
                seeds: s.seeds.clone(),
                workloads: s.workloads.clone(),
                scenarios: s.scenarios.keys().copied().collect(),
                available: reason.is_none(),
                reason,
                description: s.description.clone(),
            }
        })
        .collect();
    let mut out = std::io::stdout().lock();
    if args.json {
        let catalogue = SubjectCatalogue {
            schema_version: SCHEMA_VERSION,
            subjects: entries,
        };
        serde_json::to_writer_pretty(&mut out, &catalogue)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let rows = entries
        .iter()
        .map(|e| {
            vec![
                e.id.to_string(),
                e.language.to_string(),
                format!("{} {}", e.framework, e.framework_version),
                if e.seeds.is_empty() {
                    "-".into()
                } else {
                    e.seeds.join(",")
                },
                e.workloads
                    .iter()
                    .map(|w| w.name())
                    .collect::<Vec<_>>()
                    .join(","),
                match &e.reason {
                    None => "yes".into(),
                    Some(r) => format!("no: {r}"),
                },
            ]
        })
        .collect();
    for line in TextTable::new(&COLUMNS, rows).lines() {
        writeln!(out, "{line}")?;
    }
    let available = entries.iter().filter(|e| e.available).count();
    writeln!(
        out,
        "\n{} subjects, {available} available here",
        entries.len()
    )?;
    Ok(ExitCode::SUCCESS)
}
