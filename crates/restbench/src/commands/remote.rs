//! `--loadgen-hosts`: flags to the harness's SSH generators (`restbench_harness::remote`).

use std::net::IpAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use restbench_harness::placement::{Placement, available_cpus};
use restbench_harness::remote::{RemoteGenerators, parse_hosts};
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

/// `run` and `study` with `--loadgen-hosts`: the generators connected, the server's address,
/// and a placement giving the server every local CPU. `None` without `--loadgen-hosts`.
pub fn for_run(
    args: &RemoteRunArgs,
    loadgen_cpus: Option<&str>,
) -> anyhow::Result<Option<(Arc<RemoteGenerators>, IpAddr, Placement)>> {
    if args.hosts.loadgen_hosts.is_none() {
        return Ok(None);
    }
    if loadgen_cpus.is_some() {
        return Err(BadArgument(
            "--loadgen-cpus and --loadgen-hosts exclude each other: with remote generators the \
             server gets every local CPU"
                .into(),
        )
        .into());
    }
    let Some(address) = args.server_address else {
        return Err(BadArgument(
            "--loadgen-hosts needs --server-address ADDR: an address of this machine the \
             generator hosts reach (the servers bind it)"
                .into(),
        )
        .into());
    };
    if address.is_loopback() || address.is_unspecified() {
        return Err(BadArgument(format!(
            "--server-address {address}: remote generators cannot reach it; give an address of \
             this machine on their network"
        ))
        .into());
    }
    let Some(generators) = generators(&args.hosts, &|m| eprintln!("{m}"))? else {
        return Ok(None);
    };
    eprintln!(
        "generators on {} (one shard each, merged); servers at {address}",
        generators.names().join(", ")
    );
    Ok(Some((
        Arc::new(generators),
        address,
        Placement::server_only(&available_cpus()),
    )))
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
pub fn note(generators: &RemoteGenerators) -> String {
    format!(
        "Load generated on {} hosts over SSH ({}), one shard each, started together and merged; \
         the server had every local CPU.",
        generators.names().len(),
        generators.names().join(", ")
    )
}
