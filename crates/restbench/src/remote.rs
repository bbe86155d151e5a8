//! `--loadgen-hosts` and `--server-host`: flags to the harness's SSH generators
//! (`restbench_harness::remote`) and server host (`restbench_harness::serve::remote_server`).

use std::sync::Arc;

use anyhow::Context;
use restbench_host::placement::{Placement, available_cpus};
use restbench_harness::planner::Remote;
use restbench_remote::{RemoteGenerators, SshHost, parse_hosts};
use restbench_harness::serve::remote_server::ServerHost;

use crate::cli::{BadArgument, LoadgenHostsArgs, RemoteRunArgs};

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

/// `run` and `study` with `--loadgen-hosts` and/or `--server-host`: the hosts connected, the
/// server's address and the local placement. `None` with neither.
pub fn for_run(args: &RemoteRunArgs, loadgen_cpus: Option<&str>) -> anyhow::Result<Option<Remote>> {
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
    Ok(Some(Remote {
        generators,
        server,
        address,
        placement,
        note: notes.join(" "),
    }))
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
