//! `restbench merge`: load results of several generators made one, exactly (the merge itself is
//! `restbench_model::merge`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use restbench_model::{LoadResult, merge_load_results};

use crate::cli::MergeArgs;

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let mut inputs = Vec::with_capacity(args.results.len());
    for path in &args.results {
        inputs.push((path.display().to_string(), read_load_result(path)?));
    }
    let merged = merge_load_results(&inputs, args.force)?;
    write_merged(&merged, args.json.as_deref(), args.latency)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the merged result as `load` prints one, then each generator's share; writes the JSON
/// document to `json` (`-`: stdout, the text then goes to stderr).
pub(crate) fn write_merged(
    merged: &LoadResult,
    json: Option<&Path>,
    latency: bool,
) -> anyhow::Result<()> {
    let text = restbench_report::text::load_report(merged, latency) + &generators(merged);
    let to_stdout = json.is_some_and(|p| p.as_os_str() == "-");
    if to_stdout {
        let _ = std::io::stderr().write_all(text.as_bytes());
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, merged)?;
        writeln!(out)?;
        out.flush()?;
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    if let Some(path) = json {
        let body = serde_json::to_string_pretty(merged)? + "\n";
        std::fs::write(path, body)
            .with_context(|| format!("cannot write the merged result to {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// One line per generator: its share of the answers and the CPU it used.
pub(crate) fn generators(r: &LoadResult) -> String {
    if r.shards.is_empty() {
        return String::new();
    }
    let mut out = format!("  Merged from {} generators:\n", r.shards.len());
    for s in &r.shards {
        let shard = s.shard.map(|s| format!(" (shard {s})")).unwrap_or_default();
        out += &format!(
            "    {}{shard}: {} requests in {:.2}s, {:.0} req/s, {} errors, generator CPU {:.2} cores\n",
            s.generator, s.requests, s.duration_s, s.rps, s.errors, s.loadgen_cpu.cores
        );
    }
    out
}

pub(crate) fn read_load_result(path: &Path) -> anyhow::Result<LoadResult> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a `restbench load --json` result", path.display()))
}
