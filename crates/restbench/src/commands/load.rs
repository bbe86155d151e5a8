//! `restbench load`: the load generator on its own.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use restbench_loadgen::{HttpVersion, LoadSpec, Progress, StopAt, Target};

use crate::cli::LoadArgs;
use crate::signals;

/// Exit status of a run that finished but saw errors.
pub const EXIT_WITH_ERRORS: u8 = 3;

pub fn run(args: LoadArgs) -> anyhow::Result<ExitCode> {
    let spec = spec_from_args(&args)?;
    let exports = super::output::open_exports(&args.export)?;
    if args.method.is_none() && args.body.is_some() {
        eprintln!("note: sending POST because of -b (pass -m to choose another method)");
    }
    let stop = signals::stop_flag()?;
    let outcome = restbench_loadgen::run(&spec, &stop, Arc::new(Progress::default()))?;
    let result = outcome.to_result(&spec);
    let text = restbench_report::text::load_report(&result, args.latency);
    let json_to_stdout = args.json.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if json_to_stdout {
        eprint!("{text}");
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &result)?;
        writeln!(out)?;
    } else {
        print!("{text}");
        if let Some(path) = &args.json {
            let file = std::fs::File::create(path)
                .with_context(|| format!("cannot write the result to {}", path.display()))?;
            serde_json::to_writer_pretty(std::io::BufWriter::new(file), &result)
                .with_context(|| format!("cannot write the result to {}", path.display()))?;
        }
    }
    super::output::report_written(&exports.write_load(&result)?);
    if outcome.gave_up {
        eprintln!("error: stopped early: nothing succeeded for a long time (did the server die?)");
    }
    let clean = result.errors.total() == 0 && !outcome.gave_up;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_WITH_ERRORS)
    })
}

/// `-m`, else POST when there is a body (as curl and ab send it; [`run`] says so), else GET.
fn method(args: &LoadArgs) -> String {
    match (&args.method, &args.body) {
        (Some(m), _) => m.to_ascii_uppercase(),
        (None, Some(_)) => "POST".into(),
        (None, None) => "GET".into(),
    }
}

/// Turns the flags into a spec, reading the body file; every problem is one line naming it.
pub fn spec_from_args(args: &LoadArgs) -> anyhow::Result<LoadSpec> {
    let target = Target::parse(&args.url)?;
    let mut spec = LoadSpec::get(target);
    spec.method = method(args);
    for h in &args.headers {
        let Some((name, value)) = h.split_once(':') else {
            bail!("invalid header {h:?}: expected 'Name: value'");
        };
        spec.headers
            .push((name.trim().to_string(), value.trim().to_string()));
    }
    if let Some(body) = &args.body {
        spec.body = match body.strip_prefix('@') {
            Some(path) => {
                std::fs::read(path).with_context(|| format!("cannot read the body file {path}"))?
            }
            None => body.as_bytes().to_vec(),
        };
    }
    spec.connections = args.connections;
    spec.threads = args.threads;
    spec.stop = match (args.requests, args.duration) {
        (Some(n), _) => StopAt::Requests(n),
        (None, Some(d)) => StopAt::Duration(d),
        (None, None) => StopAt::Duration(Duration::from_secs(10)),
    };
    spec.rate = args.rate;
    spec.pipeline = args.pipeline;
    spec.keepalive = !args.no_keepalive && !args.http10;
    spec.http_version = if args.http10 {
        HttpVersion::Http10
    } else {
        HttpVersion::Http11
    };
    spec.timeout = args.timeout;
    spec.warmup = args.warmup.unwrap_or_default();
    spec.validate()?;
    Ok(spec)
}
