//! `--loadgen-hosts` and `--server-host`: flags to the harness's SSH generators
//! (`restbench_harness::remote`) and server host (`restbench_harness::serve::remote_server`).

use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use restbench_harness::host::placement::{Placement, available_cpus};
use restbench_harness::remote::{RemoteGenerators, SshHost, parse_hosts};
use restbench_harness::serve::remote_server::ServerHost;
use restbench_loadgen::LoadSpec;

use crate::cli::{BadArgument, LoadArgs, LoadgenHostsArgs, RemoteRunArgs};
use crate::signals;

/// Connects to the hosts of `--loadgen-hosts` (None without it) and puts restbench on each.
pub fn generators(
    args: &LoadgenHostsArgs,
    note: &dyn Fn(&str),
) -> anyhow::Result<Option<RemoteGenerators>> {
    let Some(spec) = &args.loadgen_hosts else {
        return Ok(None);
    };
    let hosts = parse_hosts(spec).map_err(|e| BadArgument(e.to_string()))?;
    let exe = std::env::current_exe().context("cannot find restbench's own binary to copy")?;
    Ok(Some(RemoteGenerators::connect(hosts, &exe, note)?))
}

/// What `run` and `study` get from `--loadgen-hosts` and `--server-host`.
pub struct RunRemote {
    /// The generator hosts, connected, with restbench on each.
    pub generators: Option<Arc<RemoteGenerators>>,
    /// The server host, connected, with restbench on it.
    pub server: Option<Arc<ServerHost>>,
    /// Where the servers bind and are loaded at.
    pub address: IpAddr,
    /// The local CPUs: every one to the server with remote generators, every one to the
    /// generator with a remote server.
    pub placement: Placement,
    /// A sentence for the report.
    pub note: String,
}

/// `run` and `study` with `--loadgen-hosts` and/or `--server-host`: the hosts connected, the
/// server's address and the local placement. `None` with neither.
pub fn for_run(
    args: &RemoteRunArgs,
    loadgen_cpus: Option<&str>,
) -> anyhow::Result<Option<RunRemote>> {
    let bad = |m: String| anyhow::Error::new(BadArgument(m));
    if args.hosts.loadgen_hosts.is_none() && args.server_host.is_none() {
        if args.server_address.is_some() {
            return Err(bad(
                "--server-address needs --loadgen-hosts or --server-host: without them the \
                 servers run here on 127.0.0.1"
                    .into(),
            ));
        }
        return Ok(None);
    }
    if args.hosts.loadgen_hosts.is_some() && loadgen_cpus.is_some() {
        return Err(bad(
            "--loadgen-cpus and --loadgen-hosts exclude each other: with remote generators the \
             server gets every local CPU"
                .into(),
        ));
    }
    if let Some(address) = args.server_address
        && (address.is_unspecified()
            || (address.is_loopback() && args.hosts.loadgen_hosts.is_some()))
    {
        return Err(bad(format!(
            "--server-address {address}: remote generators cannot reach it; give an address \
             of the server's machine on their network"
        )));
    }
    let server = match &args.server_host {
        Some(text) => {
            let host = SshHost::parse(text).map_err(|e| bad(format!("--server-host: {e}")))?;
            let exe =
                std::env::current_exe().context("cannot find restbench's own binary to copy")?;
            let server =
                ServerHost::connect(host, &exe, args.server_address, args.server_cache, &|m| {
                    eprintln!("{m}")
                })?;
            eprintln!(
                "subjects served on {} at {} (copied, built and started there)",
                server.name(),
                server.address
            );
            Some(Arc::new(server))
        }
        None => None,
    };
    let address = match (&server, args.server_address) {
        (Some(s), _) => s.address,
        (None, Some(a)) => a,
        (None, None) => {
            return Err(bad(
                "--loadgen-hosts needs --server-address ADDR: an address of this machine the \
                 generator hosts reach (the servers bind it)"
                    .into(),
            ));
        }
    };
    let generators = match generators(&args.hosts, &|m| eprintln!("{m}"))? {
        Some(g) => {
            eprintln!(
                "generators on {} (one shard each, merged); servers at {address}",
                g.names().join(", ")
            );
            Some(Arc::new(g))
        }
        None => None,
    };
    let available = available_cpus();
    let placement = match (&generators, &server) {
        (None, Some(_)) => match loadgen_cpus {
            Some(list) => Placement::with_loadgen(&available, list)
                .map_err(|e| bad(format!("--loadgen-cpus {list}: {e}")))?,
            None => Placement::loadgen_only(&available),
        },
        _ => Placement::server_only(&available),
    };
    let mut notes = Vec::new();
    if let Some(g) = &generators {
        notes.push(note(g));
    }
    if let Some(s) = &server {
        notes.push(format!(
            "The servers ran on {} over SSH (built and measured there).",
            s.name()
        ));
    }
    Ok(Some(RunRemote {
        generators,
        server,
        address,
        placement,
        note: notes.join(" "),
    }))
}

/// `restbench load --loadgen-hosts …`: one shard per host, merged.
pub fn load(args: &LoadArgs, spec: &LoadSpec) -> anyhow::Result<ExitCode> {
    if args.scaleout.shard.is_some() || args.scaleout.start_at.is_some() {
        return Err(BadArgument(
            "--loadgen-hosts sets each host's --shard and the common --start-at itself; \
             leave them out"
                .into(),
        )
        .into());
    }
    let exports = super::output::open_exports(&args.export)?;
    let stop = signals::stop_flag()?;
    let Some(generators) = generators(&args.scaleout.hosts, &|m| eprintln!("{m}"))? else {
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
    super::merge::write_merged(result, args.json.as_deref(), args.latency)?;
    super::output::report_written(&exports.write_load(result)?);
    let clean = result.errors.total() == 0 && result.requests > 0;
    Ok(if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_WITH_ERRORS)
    })
}

/// The run's note about its generators.
fn note(generators: &RemoteGenerators) -> String {
    format!(
        "Load generated on {} hosts over SSH ({}), one shard each, started together and merged; \
         the server had every local CPU.",
        generators.names().len(),
        generators.names().join(", ")
    )
}

/// With `--server-host`, a database on this machine's loopback (the run's own cluster, or a
/// `--database-url` naming 127.0.0.1/localhost) cannot be reached by the subjects there: said
/// once, with the fix, before anything is built.
pub fn warn_loopback_database(server: &ServerHost, url: Option<&str>) {
    let Some(url) = url else {
        return;
    };
    if names_loopback(url) {
        eprintln!(
            "warning: users cells will fail: the database at {} is on this machine's loopback, \
             which the subjects on {} cannot reach; start one there with `restbench db start \
             --host {}` and pass its URL to --database-url",
            restbench_harness::db::redact(url),
            server.name(),
            server.name()
        );
    }
}

/// True when a PostgreSQL URL or key=value string names a loopback host (or none: a socket).
fn names_loopback(url: &str) -> bool {
    let host = if let Some(rest) = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
    {
        let authority = rest.split(['/', '?']).next().unwrap_or("");
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        match host_port.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or("").to_string(),
            None => host_port.split(':').next().unwrap_or("").to_string(),
        }
    } else {
        url.split_whitespace()
            .find_map(|kv| kv.strip_prefix("host="))
            .unwrap_or("")
            .to_string()
    };
    host.is_empty()
        || host == "localhost"
        || host.starts_with('/')
        || host.parse::<IpAddr>().is_ok_and(|a| a.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::names_loopback;

    #[test]
    fn loopback_databases_are_told_apart() {
        for url in [
            "postgres://u:p@127.0.0.1:5432/x",
            "postgresql://u@localhost/x",
            "postgres://u@[::1]:5/x",
            "host=127.0.0.1 port=5 user=u",
            "host=/run/postgresql user=u",
        ] {
            assert!(names_loopback(url), "{url}");
        }
        for url in [
            "postgres://u:p@10.0.0.2:5432/x",
            "postgres://u@[fd00::2]:5/x",
            "host=db.example port=5",
        ] {
            assert!(!names_loopback(url), "{url}");
        }
    }
}
