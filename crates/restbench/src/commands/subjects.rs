//! `restbench subjects`: the catalogue.

use std::io::Write;
use std::process::ExitCode;

use restbench_model::{Document, SubjectCatalogue, SubjectEntry};
use restbench_report::text::{Column, Sacrifice, TextTable};
use restbench_subject as subject;

use crate::cli::SubjectsArgs;

/// The catalogue's columns; on a narrow terminal the seeds go first, then the language (the id
/// names it), then the framework is cut. Why a subject cannot run is said under the table.
const COLUMNS: [Column; 6] = [
    Column::left("ID"),
    Column::left("LANGUAGE").drop_rank(2),
    Column::left("FRAMEWORK").min_width(14),
    Column::left("SEEDS").drop_rank(1),
    Column::left("WORKLOADS").min_width(25),
    Column::left("HERE"),
];

const SACRIFICES: [Sacrifice; 2] = [Sacrifice::Drop(1), Sacrifice::Drop(2)];

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
                unserved: s.unserved.clone(),
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
            schema_version: SubjectCatalogue::SCHEMA_VERSION,
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
                if e.available { "yes" } else { "no" }.into(),
            ]
        })
        .collect();
    let width = crate::output::table_width();
    let fitted = TextTable::new(&COLUMNS, rows).fit(width, &SACRIFICES);
    for line in &fitted.lines {
        writeln!(out, "{line}")?;
    }
    if !fitted.dropped.is_empty() {
        let note = format!(
            "(not shown at {width} columns: {}; --json has every field)",
            fitted.dropped.join(", ")
        );
        for line in crate::width::hanging(&note, width, 1) {
            writeln!(out, "{line}")?;
        }
    }
    for e in &entries {
        if let Some(reason) = &e.reason {
            writeln!(out)?;
            let line = format!("{} is not available here: {reason}", e.id);
            for line in crate::width::hanging(&line, width, 2) {
                writeln!(out, "{line}")?;
            }
        }
    }
    for e in entries.iter().filter(|e| !e.unserved.is_empty()) {
        writeln!(out)?;
        let line = format!("{} does not serve {}", e.id, unserved_text(&e.unserved));
        for line in crate::width::hanging(&line, width, 2) {
            writeln!(out, "{line}")?;
        }
    }
    let available = entries.iter().filter(|e| e.available).count();
    writeln!(
        out,
        "\n{} subjects, {available} available here",
        entries.len()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `users, db (needs a driver); fortunes (reads the table)`: the workloads that share a reason
/// named together, in report order.
fn unserved_text(
    unserved: &std::collections::BTreeMap<restbench_model::Workload, String>,
) -> String {
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for (w, why) in unserved {
        match reasons.iter_mut().find(|(r, _)| r == why) {
            Some((_, names)) => names.push(w.name()),
            None => reasons.push((why, vec![w.name()])),
        }
    }
    reasons
        .iter()
        .map(|(why, names)| format!("{} ({why})", names.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}
