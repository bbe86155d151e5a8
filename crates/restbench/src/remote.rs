//! `--loadgen-hosts` and `--server-host`: flags to the SSH generators (`restbench_remote`) and
//! the server host (`restbench_harness::serve::remote_server`) a load or a run asks for.

use std::sync::Arc;

use anyhow::Context;
use restbench_harness::planner::RemoteRequest;
use restbench_remote::{RemoteGenerators, SshHost, parse_hosts};

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

/// `run` and `study` with `--loadgen-hosts` and/or `--server-host`: the hosts parsed and the
/// flags checked, nothing connected (the run connects them when it begins). `None` with
/// neither.
pub fn for_run(
    args: &RemoteRunArgs,
    loadgen_cpus: Option<&str>,
) -> anyhow::Result<Option<Arc<RemoteRequest>>> {
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
    let server_host = match &args.server_host {
        Some(text) => Some(SshHost::parse(text).map_err(|e| bad(format!("--server-host: {e}")))?),
        None => None,
    };
    if server_host.is_none() && args.server_address.is_none() {
        return Err(bad(
            "--loadgen-hosts needs --server-address ADDR: an address of this machine the \
             generator hosts reach (the servers bind it)"
                .into(),
        ));
    }
    let generator_hosts = match &args.hosts.loadgen_hosts {
        Some(spec) => parse_hosts(spec).map_err(|e| BadArgument(e.to_string()))?,
        None => Vec::new(),
    };
    let binary = std::env::current_exe().context("cannot find restbench's own binary to copy")?;
    Ok(Some(Arc::new(RemoteRequest::new(
        generator_hosts,
        server_host,
        args.server_address,
        args.server_cache,
        binary,
    ))))
}
