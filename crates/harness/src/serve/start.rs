//! Starting a subject for one scenario: its environment, its cgroup (when the backend has
//! cgroups), its CPUs, and the bounded wait until it answers.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use restbench_model::{CellPlacement, Scenario, Workload};

use super::limits::scenario_limit;
use super::remote_server::{RemoteProcess, ServerHost};
use crate::HarnessError;
use restbench_host::cgroup::{Backend, ServerCgroup};
use restbench_host::placement::Placement;
use restbench_host::process::{self, ManagedChild, SpawnSpec};
use restbench_subject::{Placeholders, Subject};

/// A started subject.
pub struct RunningSubject {
    /// Declared before `cgroup`: the processes stop before their cgroup is removed.
    pub child: ManagedChild,
    pub cgroup: Option<ServerCgroup>,
    pub addr: SocketAddr,
    pub settings: BTreeMap<String, String>,
    pub ready_after: Duration,
    pub limit: CellPlacement,
    /// With `--server-host`: the subject runs there (`child` is the local ssh client of its
    /// agent); dropped after `child`, it makes sure nothing is left there.
    pub remote: Option<RemoteProcess>,
}

/// Where and under which limits subjects start.
pub struct StartOptions<'a> {
    pub placement: &'a Placement,
    /// How the scenario is enforced: a cgroup backend gives the server its own cgroup (and
    /// `one-cpu` a quota); [`Backend::affinity_only`] pins it to CPUs without one.
    pub backend: &'a Backend,
    pub cache: &'a Path,
    pub database_url: Option<&'a str>,
    pub db_pool_total: u32,
    /// The address the server binds (`HOST`) and is loaded at; 127.0.0.1 when `None`.
    pub address: Option<IpAddr>,
    /// With `--server-host`: subjects start on that host instead (prepared there first).
    pub remote: Option<&'a Arc<ServerHost>>,
}

/// Starts a subject for one scenario on `port` (a free one when `None`) under
/// `options.backend`, and waits until it answers.
pub fn start_subject(
    subject: &Subject,
    scenario: Scenario,
    options: &StartOptions,
    port: Option<u16>,
) -> Result<RunningSubject, HarnessError> {
    if let Some(host) = options.remote {
        return start_remote(host, subject, scenario, options);
    }
    let port = match port {
        Some(p) => p,
        None => process::free_port()?,
    };
    process::ensure_port_free(port)?;
    let settings = subject
        .scenarios
        .get(&scenario)
        .ok_or_else(|| HarnessError::Unavailable {
            subject: subject.id.clone(),
            reason: format!("it declares no {scenario} scenario"),
        })?;
    let mut limit = scenario_limit(scenario, options.placement, options.backend);
    let server_cpus: Vec<usize> = limit.server_cpus.iter().map(|&c| c as usize).collect();
    let p = Placeholders {
        port,
        cores: server_cpus.len(),
        machine_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cache: options.cache.to_path_buf(),
        dir: subject.dir.clone(),
    };
    let processes: u32 = p.apply(&settings.processes).parse().unwrap_or(1).max(1);
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in subject.env.iter().chain(settings.env.iter()) {
        env.insert(k.clone(), p.apply(v));
    }
    let mut shown = env.clone();
    env.insert("PORT".into(), port.to_string());
    let ip = options.address.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    env.insert("HOST".into(), ip.to_string());
    env.insert("RESTBENCH_SCENARIO".into(), scenario.name().into());
    let tree = super::static_tree::ensure(options.cache)?;
    env.insert("STATIC_DIR".into(), tree.display().to_string());
    let pool = (options.db_pool_total / processes).max(1);
    env.insert("DB_POOL_SIZE".into(), pool.to_string());
    shown.insert("DB_POOL_SIZE".into(), pool.to_string());
    if let Some(url) = options.database_url {
        env.insert("DATABASE_URL".into(), url.into());
    }
    let cgroup = options.backend.create(
        &format!("{}-{scenario}", subject.id),
        &server_cpus,
        limit.cpu_quota_cores,
    )?;
    if let Some(bytes) = settings.memory_limit {
        limit_memory(&mut limit, cgroup.as_ref(), bytes, options.backend)?;
    }
    let spec = SpawnSpec {
        name: subject.id.clone(),
        shell_command: p.apply_shell(&subject.start_command),
        cwd: subject.dir.clone(),
        env,
        cpus: Some(server_cpus.clone()),
        user: None,
        log: options
            .cache
            .join("logs")
            .join(format!("{}-{scenario}.log", subject.id)),
        remove_on_death: None,
        cgroup_dirs: cgroup.as_ref().map_or_else(Vec::new, |c| c.dirs().to_vec()),
        // Without a cgroup nothing else holds a daemonised server: a listener left on the port
        // after the stop is found, stopped and named (see `ManagedChild::escapees`).
        port: Some(port),
    };
    let mut child = ManagedChild::spawn(&spec)?;
    let addr = SocketAddr::new(ip, port);
    // Any answer counts as ready; /echo takes POST only, so an echo-only subject is probed with
    // a GET elsewhere.
    let probe = subject.workloads.first().map_or("/", |w| {
        if *w == Workload::Echo {
            "/api/test"
        } else {
            w.path()
        }
    });
    match wait_ready(&mut child, addr, probe, subject.ready_timeout) {
        Ok(ready_after) => Ok(RunningSubject {
            child,
            cgroup,
            addr,
            settings: shown,
            ready_after,
            limit,
            remote: None,
        }),
        Err(exit) => Err(HarnessError::NotReady {
            subject: subject.id.clone(),
            port,
            waited_s: subject.ready_timeout.as_secs_f64(),
            exit,
            tail: child.log_tail(12),
        }),
    }
}

/// Sets the scenario's memory limit on the server's cgroup and says so in `limit`: its
/// enforcement names the limit and the file that holds it, or why it is not enforced (no cgroup,
/// or one without a memory controller), rather than a limit the reader would wrongly trust.
fn limit_memory(
    limit: &mut CellPlacement,
    cgroup: Option<&ServerCgroup>,
    bytes: u64,
    backend: &Backend,
) -> Result<(), HarnessError> {
    let words = restbench_model::documents::io::size_words(bytes);
    let set = match cgroup {
        Some(group) => group.limit_memory(bytes)?,
        None => None,
    };
    match set {
        Some(file) => {
            limit.memory_limit_bytes = Some(bytes);
            limit
                .enforcement
                .push_str(&format!("; memory limit {words} ({file})"));
        }
        None if cgroup.is_some() => limit.enforcement.push_str(&format!(
            "; memory limit {words} not enforced: the {} backend has no usable memory \
             controller here",
            backend.kind.name()
        )),
        None => limit.enforcement.push_str(&format!(
            "; memory limit {words} not enforced: no cgroup ({})",
            backend.reason
        )),
    }
    Ok(())
}

/// Starts the subject on the `--server-host` (prepared there already): its agent's ssh client is
/// the child, its log holds what the agent wrote, and the limit is the host's.
fn start_remote(
    host: &Arc<ServerHost>,
    subject: &Subject,
    scenario: Scenario,
    options: &StartOptions,
) -> Result<RunningSubject, HarnessError> {
    let log = options
        .cache
        .join("logs")
        .join(format!("{}-{scenario}-remote.log", subject.id));
    let (child, process) = host.start(
        subject,
        scenario,
        options.database_url,
        options.db_pool_total,
        log,
    )?;
    let ready = &process.ready;
    let mut limit = ready.limit.clone();
    limit.server_host = process.host_name();
    Ok(RunningSubject {
        child,
        cgroup: None,
        addr: host.socket(ready.port),
        settings: ready.settings.clone(),
        ready_after: Duration::from_millis(ready.ready_after_ms),
        limit,
        remote: Some(process),
    })
}

/// Stops `server` and starts the subject again in a fresh process and cgroup, on a fresh port
/// (the old one may linger in TIME_WAIT), waiting until it answers: the next repeats then measure
/// a new process.
pub fn restart_subject(
    server: &mut RunningSubject,
    subject: &Subject,
    scenario: Scenario,
    options: &StartOptions,
) -> Result<(), HarnessError> {
    server.child.stop(Duration::from_secs(5));
    // The old cgroup is removed before the new one is made.
    server.cgroup = None;
    server.remote = None;
    *server = start_subject(subject, scenario, options, None)?;
    Ok(())
}

/// Waits until `addr` accepts a connection and answers HTTP, the child exits, or time runs out.
pub fn wait_ready(
    child: &mut ManagedChild,
    addr: SocketAddr,
    probe_path: &str,
    timeout: Duration,
) -> Result<Duration, String> {
    let started = Instant::now();
    while started.elapsed() < timeout {
        if let Some(status) = child.exited() {
            return Err(format!(" (it exited: {status})"));
        }
        if std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
            && restbench_verify::http::get(addr, probe_path, Duration::from_secs(5)).is_ok()
        {
            return Ok(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(String::new())
}
