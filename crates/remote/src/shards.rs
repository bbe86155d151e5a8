//! A load split over the generator hosts: one `restbench load` shard per host, all started at
//! one wall-clock time, watched until every one answers, then merged exactly.
//!
//! A shard that fails (its process killed, its host gone, its server unreachable from there)
//! fails the whole load with that host's stderr, and the other shards are stopped at once: their
//! ssh clients are closed and killed, so the remote `restbench load`s see their stdin close
//! (`--exit-with-stdin`) and exit. Nothing is left running on any host.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use restbench_loadgen::{HttpVersion, LoadSpec, StopAt};
use restbench_model::vocabulary::time::now_unix_ms;
use restbench_model::{LoadResult, Shard, ShardSummary, merge_load_results};

use super::ssh::{Connection, SshOptions, file_hash, quote};
use super::{RemoteError, SshHost};

/// How long after launching the shards they start (plus 200 ms per host): time for every ssh
/// session to come up.
const START_DELAY_MS: u64 = 2_000;
/// How long stopped ssh clients get before they are killed.
const STOP_GRACE: Duration = Duration::from_secs(3);
/// Lines of a failed host's stderr shown.
const STDERR_LINES: usize = 15;

/// The generator hosts of a run, connected, each with restbench on it.
#[derive(Debug)]
pub struct RemoteGenerators {
    hosts: Vec<(Connection, String)>,
}

/// One load measured by every host.
#[derive(Debug, Clone)]
pub struct ShardedLoad {
    /// The merged result; its `shards` name each host with its share and CPU.
    pub merged: LoadResult,
    /// Each host's own result, in host order.
    pub parts: Vec<(String, LoadResult)>,
}

impl RemoteGenerators {
    /// Connects to every host (in parallel) and copies `binary` where it is missing; `note` is
    /// told which hosts got a copy.
    pub fn connect(
        hosts: Vec<SshHost>,
        binary: &Path,
        note: &dyn Fn(&str),
    ) -> Result<Self, RemoteError> {
        let opts = Arc::new(SshOptions::from_env()?);
        let hash = file_hash(binary)?;
        let results: Vec<Result<(Connection, String, bool), RemoteError>> =
            std::thread::scope(|scope| {
                let handles: Vec<_> = hosts
                    .into_iter()
                    .map(|h| {
                        let opts = opts.clone();
                        let hash = &hash;
                        scope.spawn(move || {
                            let c = Connection::open(h, opts)?;
                            let (path, copied) = c.ensure_binary(binary, hash)?;
                            Ok((c, path, copied))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(RemoteError::Hosts("a connection thread panicked".into()))
                        })
                    })
                    .collect()
            });
        let mut out = Vec::new();
        for r in results {
            let (c, path, copied) = r?;
            if copied {
                note(&format!("copied restbench to {}:{path}", c.host));
            }
            out.push((c, path));
        }
        Ok(Self { hosts: out })
    }

    /// The hosts, as given.
    pub fn names(&self) -> Vec<String> {
        self.hosts.iter().map(|(c, _)| c.host.to_string()).collect()
    }

    /// Runs `spec` split over the hosts and merges the shards; `None` when `stop` was raised
    /// (every shard stopped).
    pub fn run(
        &self,
        spec: &LoadSpec,
        stop: &AtomicBool,
    ) -> Result<Option<ShardedLoad>, RemoteError> {
        let n = self.hosts.len() as u32;
        let start_ms = now_unix_ms() + START_DELAY_MS + 200 * u64::from(n);
        let mut shards: Vec<Running> = Vec::with_capacity(self.hosts.len());
        for (i, (conn, path)) in self.hosts.iter().enumerate() {
            let shard = Shard {
                index: i as u32,
                count: n,
            };
            let args = load_args(&shard_spec(spec, shard)?, shard, start_ms)?;
            let remote = std::iter::once(format!("exec {}", quote(path)))
                .chain(args.iter().map(|a| quote(a)))
                .collect::<Vec<_>>()
                .join(" ");
            let mut cmd = conn.command(&remote);
            // Its own process group: Ctrl-C reaches restbench, which stops the shards itself.
            cmd.stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0);
            match cmd.spawn() {
                Ok(child) => shards.push(Running::new(conn.host.to_string(), child)),
                Err(e) => {
                    stop_all(&mut shards);
                    return Err(RemoteError::io("cannot run ssh", e));
                }
            }
        }
        let mut results: Vec<Option<ExitStatus>> = vec![None; shards.len()];
        loop {
            if stop.load(Ordering::Relaxed) {
                stop_all(&mut shards);
                return Ok(None);
            }
            for (i, s) in shards.iter_mut().enumerate() {
                if results[i].is_some() {
                    continue;
                }
                if let Ok(Some(status)) = s.child.try_wait() {
                    // 3: the load ran and saw errors; its result is still whole.
                    if status.success() || status.code() == Some(3) {
                        results[i] = Some(status);
                    } else {
                        let host = s.host.clone();
                        let stderr = s.finish().1;
                        stop_all(&mut shards);
                        return Err(RemoteError::ShardFailed {
                            host,
                            status: describe(status),
                            stderr: tail(&stderr, STDERR_LINES),
                        });
                    }
                }
            }
            if results.iter().all(Option::is_some) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut parts = Vec::with_capacity(shards.len());
        for mut s in shards {
            let (stdout, stderr) = s.finish();
            match serde_json::from_slice::<LoadResult>(&stdout) {
                Ok(r) => parts.push((s.host.clone(), r)),
                Err(e) => {
                    return Err(RemoteError::ShardFailed {
                        host: s.host.clone(),
                        status: format!("its output is not a load result: {e}"),
                        stderr: tail(&stderr, STDERR_LINES),
                    });
                }
            }
        }
        let merged = merge_load_results(&parts, false)?;
        Ok(Some(ShardedLoad { merged, parts }))
    }
}

/// A shard's ssh client and the threads reading its output.
struct Running {
    host: String,
    child: Child,
    stdout: Option<JoinHandle<Vec<u8>>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
}

impl Running {
    fn new(host: String, mut child: Child) -> Self {
        let reader = |stream: Option<Box<dyn Read + Send>>| {
            stream.map(|mut s| {
                std::thread::spawn(move || {
                    // A shard's document, within the limit of any document read; what a
                    // host sends beyond it is drained (so ssh never blocks) and dropped.
                    let mut buf = Vec::new();
                    let limit = restbench_model::documents::io::DOCUMENT_LIMIT;
                    let _ = (&mut s).take(limit).read_to_end(&mut buf);
                    let _ = std::io::copy(&mut s, &mut std::io::sink());
                    buf
                })
            })
        };
        let stdout = reader(
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let stderr = reader(
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        Self {
            host,
            child,
            stdout,
            stderr,
        }
    }

    /// Everything it wrote, once it has exited.
    fn finish(&mut self) -> (Vec<u8>, Vec<u8>) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
        let join =
            |h: Option<JoinHandle<Vec<u8>>>| h.and_then(|h| h.join().ok()).unwrap_or_default();
        (join(self.stdout.take()), join(self.stderr.take()))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            stop_one(&mut self.child);
        }
    }
}

/// Stops every shard still running: stdin closed (the remote load exits on it), the ssh client
/// asked to end, killed after [`STOP_GRACE`].
fn stop_all(shards: &mut [Running]) {
    for s in shards.iter_mut() {
        drop(s.child.stdin.take());
        if matches!(s.child.try_wait(), Ok(None)) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(s.child.id() as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
    }
    for s in shards.iter_mut() {
        stop_one(&mut s.child);
    }
}

fn stop_one(child: &mut Child) {
    drop(child.stdin.take());
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(255) => {
            "ssh exited with 255: the connection failed or the remote load was killed".into()
        }
        Some(c) => format!("exit status {c}"),
        None => format!("{status}"),
    }
}

fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let shown = all[all.len().saturating_sub(lines)..].join("\n");
    if shown.is_empty() {
        "(nothing)".into()
    } else {
        shown
    }
}

/// Shard `shard`'s part of `spec`: connections, request count and rate divided as evenly as
/// whole numbers allow (the first shards take the remainders); threads kept, at most one per
/// connection. Everything else is the same on every host.
pub fn shard_spec(spec: &LoadSpec, shard: Shard) -> Result<LoadSpec, RemoteError> {
    let (i, n) = (u64::from(shard.index), u64::from(shard.count));
    let share = |total: u64| total / n + u64::from(i < total % n);
    if u64::from(spec.connections) < n {
        return Err(RemoteError::Shape(format!(
            "{} connections cannot be split over {n} generator hosts: give at least one per host",
            spec.connections
        )));
    }
    let mut s = spec.clone();
    s.connections = share(u64::from(spec.connections)) as u32;
    s.threads = spec.threads.min(s.connections).max(1);
    if let StopAt::Requests(total) = spec.stop {
        if total < n {
            return Err(RemoteError::Shape(format!(
                "{total} requests cannot be split over {n} generator hosts"
            )));
        }
        s.stop = StopAt::Requests(share(total));
    }
    s.rate = spec.rate.map(|r| r / n as f64);
    s.rate_end = spec.rate_end.map(|r| r / n as f64);
    Ok(s)
}

/// `restbench load` arguments for one shard: the spec as flags, the result as JSON on stdout,
/// the shard recorded, the common start time, and death with the ssh session.
pub fn load_args(spec: &LoadSpec, shard: Shard, start_ms: u64) -> Result<Vec<String>, RemoteError> {
    let ms = |d: Duration| format!("{}ms", d.as_millis());
    let mut a: Vec<String> = vec!["load".into()];
    a.extend(["-c".into(), spec.connections.to_string()]);
    a.extend(["-t".into(), spec.threads.to_string()]);
    match spec.stop {
        StopAt::Duration(d) => a.extend(["-d".into(), ms(d)]),
        StopAt::Requests(n) => a.extend(["-n".into(), n.to_string()]),
    }
    match (spec.rate, spec.rate_end) {
        (Some(r), Some(end)) => a.extend(["-R".into(), format!("{r}:{end}")]),
        (Some(r), None) => a.extend(["-R".into(), r.to_string()]),
        _ => {}
    }
    if let Some(d) = spec.deadline {
        a.extend(["--deadline".into(), format!("{}us", d.as_micros())]);
    }
    if let Some(n) = spec.requests_per_connection {
        a.extend(["--requests-per-connection".into(), n.to_string()]);
    }
    a.extend(["-m".into(), spec.method.clone()]);
    for (name, value) in &spec.headers {
        a.extend(["-H".into(), format!("{name}: {value}")]);
    }
    if !spec.body.is_empty() {
        match std::str::from_utf8(&spec.body) {
            Ok(text) if !text.starts_with('@') && text.len() <= 1 << 16 => {
                a.extend(["-b".into(), text.to_string()]);
            }
            _ => {
                return Err(RemoteError::Shape(
                    "remote generators send text bodies of at most 64 KiB not starting with '@' \
                     (the body goes on their command line)"
                        .into(),
                ));
            }
        }
    }
    a.extend(["--pipeline".into(), spec.pipeline.to_string()]);
    if spec.http_version == HttpVersion::Http10 {
        a.push("--http1.0".into());
    } else if !spec.keepalive {
        a.push("--no-keepalive".into());
    }
    if spec.http_version == HttpVersion::Http2 {
        a.push("--http2".into());
        a.extend(["--max-streams".into(), spec.max_streams.to_string()]);
    }
    // A local socket or CA file means nothing on another host: refused rather than dropped.
    if spec.unix_socket.is_some() || spec.tls.ca_file.is_some() {
        return Err(RemoteError::Shape(
            "remote generators cannot use --unix-socket or --cacert (paths of this machine)".into(),
        ));
    }
    if spec.tls.insecure {
        a.push("--insecure".into());
    }
    a.extend(["--timeout".into(), ms(spec.timeout)]);
    if !spec.warmup.is_zero() {
        a.extend(["--warmup".into(), ms(spec.warmup)]);
    }
    a.extend(["--json".into(), "-".into()]);
    a.extend(["--shard".into(), shard.to_string()]);
    a.extend(["--start-at".into(), start_ms.to_string()]);
    a.push("--exit-with-stdin".into());
    a.push(spec.target.url.clone());
    Ok(a)
}

/// Each host's share over several repeats (the runner merges one load per repeat): requests,
/// time and CPU summed, rates and cores recomputed from the sums.
pub fn combine_generators(repeats: &[Vec<ShardSummary>]) -> Vec<ShardSummary> {
    let mut out: Vec<ShardSummary> = Vec::new();
    for s in repeats.iter().flatten() {
        match out.iter_mut().find(|o| o.generator == s.generator) {
            Some(o) => {
                o.requests += s.requests;
                o.errors += s.errors;
                o.duration_s += s.duration_s;
                o.loadgen_cpu.user_s += s.loadgen_cpu.user_s;
                o.loadgen_cpu.system_s += s.loadgen_cpu.system_s;
            }
            None => out.push(s.clone()),
        }
    }
    for o in &mut out {
        let cpu = o.loadgen_cpu.user_s + o.loadgen_cpu.system_s;
        let d = o.duration_s.max(1e-9);
        o.rps = o.requests as f64 / d;
        o.loadgen_cpu.cores = cpu / d;
        o.loadgen_cpu.us_per_request = if o.requests > 0 {
            cpu * 1e6 / o.requests as f64
        } else {
            0.0
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_loadgen::Target;

    fn spec() -> LoadSpec {
        let mut s = LoadSpec::get(Target::parse("http://10.0.0.1:8080/x").unwrap());
        s.connections = 5;
        s.threads = 4;
        s.stop = StopAt::Requests(1001);
        s.rate = Some(900.0);
        s
    }

    #[test]
    fn shards_share_connections_requests_and_rate() {
        let parts: Vec<LoadSpec> = (0..2)
            .map(|i| shard_spec(&spec(), Shard { index: i, count: 2 }).unwrap())
            .collect();
        assert_eq!(
            parts.iter().map(|p| p.connections).collect::<Vec<_>>(),
            [3, 2]
        );
        assert_eq!(parts.iter().map(|p| p.threads).collect::<Vec<_>>(), [3, 2]);
        assert_eq!(parts[0].stop, StopAt::Requests(501));
        assert_eq!(parts[1].stop, StopAt::Requests(500));
        assert_eq!(parts[1].rate, Some(450.0));
        let mut one = spec();
        one.connections = 1;
        let err = shard_spec(&one, Shard { index: 0, count: 2 })
            .unwrap_err()
            .to_string();
        assert!(err.contains("at least one per host"), "{err}");
    }

    #[test]
    fn arguments_carry_the_whole_shape() {
        let mut s = spec();
        s.stop = StopAt::Duration(Duration::from_millis(2500));
        s.method = "POST".into();
        s.headers = vec![("Content-Type".into(), "application/json".into())];
        s.body = b"{\"a\":1}".to_vec();
        s.keepalive = false;
        s.warmup = Duration::from_secs(1);
        let a = load_args(&s, Shard { index: 1, count: 2 }, 1_700_000_000_000).unwrap();
        let text = a.join(" ");
        for part in [
            "load -c 5 -t 4 -d 2500ms -R 900 -m POST -H Content-Type: application/json",
            "-b {\"a\":1} --pipeline 1 --no-keepalive --timeout 2000ms --warmup 1000ms",
            "--json - --shard 1/2 --start-at 1700000000000 --exit-with-stdin http://10.0.0.1:8080/x",
        ] {
            assert!(text.contains(part), "{text}\nlacks {part}");
        }
        s.body = b"@/etc/passwd".to_vec();
        assert!(load_args(&s, Shard { index: 0, count: 1 }, 0).is_err());
    }

    #[test]
    fn a_ramp_and_a_deadline_reach_every_shard() {
        let mut s = spec();
        s.stop = StopAt::Duration(Duration::from_secs(4));
        s.rate_end = Some(1800.0);
        s.deadline = Some(Duration::from_millis(5));
        let part = shard_spec(&s, Shard { index: 0, count: 2 }).unwrap();
        assert_eq!((part.rate, part.rate_end), (Some(450.0), Some(900.0)));
        let text = load_args(&part, Shard { index: 0, count: 2 }, 0)
            .unwrap()
            .join(" ");
        assert!(text.contains("-R 450:900 --deadline 5000us "), "{text}");
    }

    #[test]
    fn requests_per_connection_reach_every_shard() {
        let mut s = spec();
        s.requests_per_connection = Some(10);
        let part = shard_spec(&s, Shard { index: 1, count: 2 }).unwrap();
        let text = load_args(&part, Shard { index: 1, count: 2 }, 0)
            .unwrap()
            .join(" ");
        assert!(text.contains("--requests-per-connection 10 "), "{text}");
    }

    #[test]
    fn repeats_combine_per_host() {
        let one = |host: &str, req: u64, cpu: f64| ShardSummary {
            generator: host.into(),
            shard: None,
            requests: req,
            errors: 0,
            duration_s: 2.0,
            rps: 0.0,
            started_at_unix_ms: None,
            loadgen_cpu: restbench_model::LoadgenCpu {
                user_s: cpu,
                system_s: 0.0,
                cores: 0.0,
                us_per_request: 0.0,
            },
        };
        let c = combine_generators(&[
            vec![one("a", 100, 1.0), one("b", 50, 0.5)],
            vec![one("a", 300, 1.0), one("b", 50, 0.5)],
        ]);
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].requests, c[0].rps, c[0].loadgen_cpu.cores),
            (400, 100.0, 0.5)
        );
        assert_eq!(c[1].loadgen_cpu.us_per_request, 10_000.0);
    }
}
