//! `restbench load`: the load generator on its own.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use restbench_loadgen::{
    HttpVersion, LoadError, LoadSpec, MAX_BODY, Progress, StopAt, Target, TlsSettings,
};
use restbench_model::LoadResult;

use crate::cli::{BadArgument, LoadArgs};
use crate::signals;

/// Exit status of a run that finished but saw errors, or got no answer at all.
pub const EXIT_WITH_ERRORS: u8 = 3;

pub fn run(args: LoadArgs) -> anyhow::Result<ExitCode> {
    let spec = spec_from_args(&args)?;
    // Checked before the load, so that a wrong path costs nothing and loses nothing.
    let mut json = JsonOutput::open(args.json.as_deref())?;
    let stop = signals::stop_flag()?;
    let outcome = match restbench_loadgen::run(&spec, &stop, Arc::new(Progress::default())) {
        Ok(outcome) => outcome,
        Err(e @ (LoadError::InvalidSpec(_) | LoadError::InvalidUrl { .. })) => {
            return Err(BadArgument(e.to_string()).into());
        }
        Err(e) => return Err(e.into()),
    };
    let result = outcome.to_result(&spec);
    let text = restbench_report::text::load_report(&result, args.latency);
    if json.is_stdout() {
        // The document owns stdout; a closed stderr must not stop it.
        let _ = io::stderr().write_all(text.as_bytes());
    } else {
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
    }
    json.write(&result)?;
    if outcome.gave_up {
        eprintln!(
            "error: stopped early: no request was answered for a long time (did the server die?)"
        );
    }
    if let Some(reason) = &result.tls_error {
        eprintln!(
            "error: TLS failed on {} connection(s): {reason}",
            result.errors.tls
        );
    }
    if result.requests == 0 {
        let what = if spec.http_version == HttpVersion::Http2 {
            "an HTTP/2 server"
        } else {
            "an HTTP/1.x server"
        };
        eprintln!("error: no request was answered (is this {what}?)");
    }
    let clean = result.errors.total() == 0 && !outcome.gave_up && result.requests > 0;
    Ok(if clean {
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
                let Some(f) = file.take() else {
                    return Ok(());
                };
                if f.metadata().is_ok_and(|m| m.is_file()) {
                    f.set_len(0).with_context(cannot)?;
                }
                let mut w = BufWriter::new(f);
                write_document(&mut w, result).with_context(cannot)?;
                let f = w
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(cannot)?;
                if f.metadata().is_ok_and(|m| m.is_file()) {
                    f.sync_all().with_context(cannot)?;
                }
                Ok(())
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

/// Turns the flags into a spec, reading the body file; every problem is one line naming it.
/// Values refused as such are [`BadArgument`]s (exit 2); an unreadable body file is not.
pub fn spec_from_args(args: &LoadArgs) -> anyhow::Result<LoadSpec> {
    let bad = |e: &dyn std::fmt::Display| anyhow::Error::new(BadArgument(e.to_string()));
    let target = Target::parse(&args.url).map_err(|e| bad(&e))?;
    let mut spec = LoadSpec::get(target);
    spec.method = args.method.to_ascii_uppercase();
    for h in &args.headers {
        let Some((name, value)) = h.split_once(':') else {
            return Err(bad(&format!(
                "invalid header {h:?}: expected 'Name: value'"
            )));
        };
        spec.headers
            .push((name.trim().to_string(), value.trim().to_string()));
    }
    if let Some(body) = &args.body {
        spec.body = match body.strip_prefix('@') {
            Some(path) => read_body_file(Path::new(path))?,
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
    } else if args.http2 {
        HttpVersion::Http2
    } else {
        HttpVersion::Http11
    };
    spec.max_streams = args.max_streams;
    spec.unix_socket = args.unix_socket.clone();
    spec.tls = TlsSettings {
        insecure: args.insecure,
        ca_file: args.cacert.clone(),
    };
    spec.timeout = args.timeout;
    spec.warmup = args.warmup.unwrap_or_default();
    spec.validate().map_err(|e| bad(&e))?;
    Ok(spec)
}

/// Reads a body file of at most [`MAX_BODY`] bytes; an endless one (`/dev/zero`, a pipe) is
/// refused after that many bytes instead of filling memory.
fn read_body_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    let cannot = || format!("cannot read the body file {}", path.display());
    let too_large = || {
        anyhow::Error::new(BadArgument(format!(
            "the body file {} is larger than 64 MiB (or endless); restbench sends at most 64 MiB",
            path.display()
        )))
    };
    let file = File::open(path).with_context(cannot)?;
    if file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() > MAX_BODY as u64)
    {
        return Err(too_large());
    }
    let size = file
        .metadata()
        .map_or(0, |m| if m.is_file() { m.len() } else { 0 });
    let mut body = Vec::with_capacity(size as usize + 1);
    file.take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body)
        .with_context(cannot)?;
    if body.len() > MAX_BODY {
        return Err(too_large());
    }
    Ok(body)
}
