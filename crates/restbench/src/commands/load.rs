//! `restbench load`: the load generator on its own.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Context;
use restbench_loadgen::script::Script;
use restbench_loadgen::{CapacitySpec, HttpVersion, LoadError, LoadOutcome, LoadSpec, Progress};
use restbench_model::{ErrorCounts, LoadResult, RateStep, Slo, StepServer};
use restbench_report::capacity_text;

use crate::cli::{BadArgument, LoadArgs};
use crate::common::{EXIT_INTERRUPTED, EXIT_WITH_ERRORS};
use crate::options::{refuse_remote_target, spec_from_args};
use crate::timeseries::Timeseries;
use crate::{live, output, remote, signals, start_at};

pub fn run(args: LoadArgs) -> anyhow::Result<ExitCode> {
    let mut spec = spec_from_args(&args)?;
    refuse_remote_target(&args, &spec.target)?;
    if !args.slo.is_empty() {
        return capacity(args);
    }
    if args.scaleout.hosts.loadgen_hosts.is_some() {
        if args.script.is_some() || args.timeseries.is_some() || args.hdr.is_some() {
            return Err(BadArgument(
                "--script, --timeseries and --hdr run in one generator; drop --loadgen-hosts"
                    .into(),
            )
            .into());
        }
        return remote_load(&args, &spec);
    }
    if args.json.as_deref().is_some_and(|p| p.as_os_str() == "-")
        && args
            .timeseries
            .as_deref()
            .is_some_and(|p| p.as_os_str() == "-")
    {
        return Err(BadArgument(
            "--json - and --timeseries - cannot both write to stdout: give one a file".into(),
        )
        .into());
    }
    let script = match &args.script {
        Some(path) => {
            let script = Script::load(path, &args.script_args, &mut spec)
                .map_err(|e| BadArgument(e.to_string()))?;
            spec.script_name = Some(path.display().to_string());
            spec.validate().map_err(|e| BadArgument(e.to_string()))?;
            Some(script)
        }
        None => None,
    };
    let mut hdr = output::CreatedFile::open(args.hdr.as_deref(), "--hdr")?;
    let timeseries = Timeseries::open(args.timeseries.as_deref())?;
    // Checked before the load, so that a wrong path costs nothing and loses nothing.
    let mut json = JsonOutput::open(args.json.as_deref())?;
    let exports = output::open_exports(&args.export)?;
    if args.method.is_none() && args.body.is_some() {
        eprintln!("note: sending POST because of -b (pass -m to choose another method)");
    }
    let stop = signals::stop_flag()?;
    if args.scaleout.exit_with_stdin {
        start_at::exit_when_stdin_closes();
    }
    if let Some(at) = &args.scaleout.start_at
        && !start_at::wait_until(at, &stop)?
    {
        return Ok(ExitCode::from(130));
    }
    let progress = Arc::new(Progress::default());
    let plan = live::Plan {
        warmup: spec.warmup,
        stop: spec.stop,
        rate: spec.rate,
        rate_end: spec.rate_end,
        url: spec.target.url.clone(),
    };
    let stdout_taken = json.is_stdout() || Timeseries::is_stdout(args.timeseries.as_deref());
    let view = if args.quiet {
        live::View::Hidden
    } else if !args.plain && !stdout_taken && io::stdout().is_terminal() {
        live::View::Dashboard
    } else if io::stderr().is_terminal() {
        live::View::Line
    } else {
        live::View::Hidden
    };
    let live = live::LiveLoad::start(progress.clone(), plan, view, timeseries);
    let started = Instant::now();
    let outcome = match restbench_loadgen::run(&spec, &stop, progress) {
        Ok(outcome) => outcome,
        Err(e @ (LoadError::InvalidSpec(_) | LoadError::InvalidUrl { .. })) => {
            return Err(BadArgument(e.to_string()).into());
        }
        Err(e) => return Err(e.into()),
    };
    let ran_for = started.elapsed();
    live.finish();
    let mut result = outcome.to_result(&spec);
    result.overload = result.overload_profile(args.knee_p99);
    // The stop flag is raised only by a signal: the run did not reach its end.
    let interrupted = stop.load(Ordering::Relaxed);
    if interrupted {
        result.interrupted = true;
        result.interrupted_after_s = Some(ran_for.as_secs_f64());
    }
    result.shard = args.scaleout.shard;
    let text = restbench_report::text::load_report(&result, args.latency || args.u_latency);
    let shown = if stdout_taken {
        // The document owns stdout; a closed stderr must not stop it.
        let _ = io::stderr().write_all(text.as_bytes());
        Ok(())
    } else {
        show(&text)
    };
    // The files before anything else fails: after SIGHUP the terminal is gone, and a stdout or
    // stderr that cannot be written to must not lose the measured result.
    json.write(&result)?;
    output::report_written(&exports.write_load(&result)?);
    hdr.write(&restbench_report::export::hgrm::hgrm(&outcome.latency))?;
    let say = |line: &str| {
        let _ = writeln!(io::stderr(), "{line}");
    };
    if let Some(e) = outcome.script.as_ref().and_then(|s| s.error.as_ref()) {
        say(&format!("error: {e}"));
        return Err(anyhow::anyhow!(
            "the script failed; the figures until then were kept"
        ));
    }
    if let Some(script) = &script {
        script.done(&outcome)?;
    }
    if outcome.gave_up {
        say("error: stopped early: no request was answered for a long time (did the server die?)");
    }
    if let Some(reason) = &result.tls_error {
        say(&format!(
            "error: TLS failed on {} connection(s): {reason}",
            result.errors.tls
        ));
    }
    if result.requests == 0 && !interrupted {
        say(&no_answer_line(&result.errors, &spec));
    }
    if interrupted {
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    shown?;
    let clean = result.errors.total() == 0 && !outcome.gave_up && result.requests > 0;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_WITH_ERRORS)
    })
}

/// The text report on stdout.
fn show(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Why no request was answered, when that can be said: the protocol question only when the
/// server answered something this client could not read, or nothing at all without a known
/// cause (a TLS failure or timeouts are already the reason).
fn no_answer_line(e: &ErrorCounts, spec: &LoadSpec) -> String {
    if e.tls > 0 {
        return "error: no request was answered (TLS failed: see above)".into();
    }
    if e.timeout > 0 && e.timeout == e.total() {
        return format!(
            "error: no request was answered: every request timed out after {} (raise --timeout \
             if the server is this slow)",
            humantime::format_duration(spec.timeout)
        );
    }
    if e.connect > 0 && e.connect == e.total() {
        return "error: no request was answered: every connection was refused or failed".into();
    }
    let what = if spec.http_version == HttpVersion::Http2 {
        "an HTTP/2 server"
    } else {
        "an HTTP/1.x server"
    };
    format!("error: no request was answered (is this {what}?)")
}

/// `--slo`: the capacity search. The JSON document is the closed-loop probe's result with the
/// search in `capacity`.
fn capacity(args: LoadArgs) -> anyhow::Result<ExitCode> {
    let bad = |e: &dyn std::fmt::Display| anyhow::Error::new(BadArgument(e.to_string()));
    let slo = Slo::parse_all(&args.slo).map_err(|e| bad(&e))?;
    let load = spec_from_args(&args)?;
    let mut spec = CapacitySpec::new(load, slo);
    spec.step_duration = args.step_duration;
    spec.step_warmup = args.warmup.unwrap_or(Duration::from_secs(1));
    spec.probe_duration = args.step_duration.min(Duration::from_secs(2));
    spec.resolution = args.resolution;
    spec.max_steps = args.max_steps;
    spec.validate().map_err(|e| bad(&e))?;
    let mut json = JsonOutput::open(args.json.as_deref())?;
    let stop = signals::stop_flag()?;
    eprintln!(
        "capacity under {}: probing closed loop for {:?}, then steps of {:?} after {:?} warm-up",
        spec.slo, spec.probe_duration, spec.step_duration, spec.step_warmup
    );
    let mut probe: Option<(LoadOutcome, LoadSpec)> = None;
    let mut run = |s: &LoadSpec| -> Result<(LoadOutcome, Option<StepServer>), LoadError> {
        let outcome = restbench_loadgen::run(s, &stop, Arc::new(Progress::default()))?;
        if probe.is_none() {
            eprintln!(
                "probe: {:.0} req/s at saturation, closed loop, {}",
                outcome.rps(),
                restbench_report::units::plural(s.connections, "connection")
            );
            eprintln!("{}", capacity_text::step_header());
            probe = Some((outcome.clone(), s.clone()));
        }
        Ok((outcome, None))
    };
    let mut shown = 0;
    let mut on_step = |step: &RateStep| {
        shown += 1;
        eprintln!("{}", capacity_text::step_line(shown, step));
    };
    let found = match restbench_loadgen::capacity::search_with(&spec, &stop, &mut run, &mut on_step)
    {
        Ok(c) => c,
        Err(e @ (LoadError::InvalidSpec(_) | LoadError::InvalidUrl { .. })) => {
            return Err(BadArgument(e.to_string()).into());
        }
        Err(e) => return Err(e.into()),
    };
    let text = capacity_text::capacity_report(&found);
    if json.is_stdout() {
        let _ = io::stderr().write_all(text.as_bytes());
    } else {
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
    }
    let Some((outcome, probe_spec)) = probe else {
        return Ok(ExitCode::from(EXIT_WITH_ERRORS));
    };
    let mut result = outcome.to_result(&probe_spec);
    let found_rate = found.rate.is_some();
    result.capacity = Some(found);
    json.write(&result)?;
    Ok(if found_rate {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_WITH_ERRORS)
    })
}

/// Where `--json` goes, opened before the load.
enum JsonOutput {
    None,
    Stdout,
    File {
        path: PathBuf,
        file: Option<File>,
        /// This run made the file: removed again when the run writes nothing into it.
        created: bool,
    },
}

impl JsonOutput {
    fn open(path: Option<&Path>) -> anyhow::Result<Self> {
        let Some(path) = path else {
            return Ok(Self::None);
        };
        if path.as_os_str() == "-" {
            return Ok(Self::Stdout);
        }
        let cannot = || {
            format!(
                "cannot write the result to {} (checked before the load)",
                path.display()
            )
        };
        let (file, created) = match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(f) => (f, true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // Not truncated yet: a run that fails keeps the previous result.
                (
                    OpenOptions::new()
                        .write(true)
                        .open(path)
                        .with_context(cannot)?,
                    false,
                )
            }
            Err(e) => return Err(anyhow::Error::new(e).context(cannot())),
        };
        Ok(Self::File {
            path: path.to_path_buf(),
            file: Some(file),
            created,
        })
    }

    fn is_stdout(&self) -> bool {
        matches!(self, Self::Stdout)
    }

    /// Writes the document and flushes it, so that a full disk is an error, not a silent loss.
    fn write(&mut self, result: &LoadResult) -> anyhow::Result<()> {
        match self {
            Self::None => Ok(()),
            Self::Stdout => {
                let mut out = io::stdout().lock();
                write_document(&mut out, result)?;
                out.flush()?;
                Ok(())
            }
            Self::File { path, file, .. } => {
                let cannot = || format!("cannot write the result to {}", path.display());
                if file.take().is_none() {
                    return Ok(());
                }
                // Replaced atomically: a full disk keeps the previous result whole (a device
                // such as /dev/stdout is written in place).
                restbench_model::documents::io::write_atomic_with(path, |f| {
                    let mut w = BufWriter::new(f);
                    write_document(&mut w, result)?;
                    w.flush()
                })
                .with_context(cannot)
            }
        }
    }
}

impl Drop for JsonOutput {
    fn drop(&mut self) {
        if let Self::File {
            path,
            file: Some(_),
            created: true,
        } = self
        {
            // The run failed before writing: leave no empty file behind.
            let _ = std::fs::remove_file(path);
        }
    }
}

fn write_document(out: &mut impl Write, result: &LoadResult) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, result).map_err(io::Error::from)?;
    writeln!(out)
}

/// `restbench load --loadgen-hosts …`: one shard per host, merged.
fn remote_load(args: &LoadArgs, spec: &LoadSpec) -> anyhow::Result<ExitCode> {
    if args.scaleout.shard.is_some() || args.scaleout.start_at.is_some() {
        return Err(BadArgument(
            "--loadgen-hosts sets each host's --shard and the common --start-at itself; \
             leave them out"
                .into(),
        )
        .into());
    }
    let exports = output::open_exports(&args.export)?;
    let stop = signals::stop_flag()?;
    let Some(generators) = remote::generators(&args.scaleout.hosts, &|m| eprintln!("{m}"))? else {
        return Ok(ExitCode::SUCCESS);
    };
    eprintln!(
        "loading {} from {} generator hosts: {}",
        spec.target.url,
        generators.names().len(),
        generators.names().join(", ")
    );
    let Some(load) = generators.run(spec, &stop)? else {
        eprintln!("interrupted: every generator was stopped");
        return Ok(ExitCode::from(130));
    };
    let result = &load.merged;
    output::write_merged(result, args.json.as_deref(), args.latency)?;
    output::report_written(&exports.write_load(result)?);
    let clean = result.errors.total() == 0 && result.requests > 0;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_WITH_ERRORS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocol_question_comes_only_when_it_is_the_likely_cause() {
        let target = restbench_loadgen::Target::parse("http://127.0.0.1:1/").unwrap();
        let spec = LoadSpec::get(target);
        let line = |e: ErrorCounts| no_answer_line(&e, &spec);
        let parse = ErrorCounts {
            parse: 3,
            ..ErrorCounts::default()
        };
        assert_eq!(
            line(parse),
            "error: no request was answered (is this an HTTP/1.x server?)"
        );
        let tls = ErrorCounts {
            tls: 3,
            ..ErrorCounts::default()
        };
        assert_eq!(
            line(tls),
            "error: no request was answered (TLS failed: see above)"
        );
        let timeout = ErrorCounts {
            timeout: 3,
            ..ErrorCounts::default()
        };
        assert_eq!(
            line(timeout),
            "error: no request was answered: every request timed out after 2s (raise --timeout \
             if the server is this slow)"
        );
    }
}
