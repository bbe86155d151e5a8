//! `restbench k8s load|collect`: flags to `restbench_remote::k8s`.

use std::io::Write;
use std::process::ExitCode;

use restbench_model::merge_load_results;
use restbench_model::vocabulary::time::{now_unix_ms, rfc3339_ms, utc_stamp};
use restbench_remote::k8s::{self, JobSpec};

use crate::cli::{BadArgument, K8sCollectArgs, K8sLoadArgs};

pub fn load(args: K8sLoadArgs) -> anyhow::Result<ExitCode> {
    let s = &args.load.scaleout;
    if s.start_at.is_some() || s.shard.is_some() || s.hosts.loadgen_hosts.is_some() {
        return Err(BadArgument(
            "k8s load sets --shard and --start-at for every pod itself and runs no SSH hosts"
                .into(),
        )
        .into());
    }
    if args.load.json.is_some() {
        return Err(BadArgument(
            "k8s load prints the Job; each pod writes its result to its log for `k8s collect`"
                .into(),
        )
        .into());
    }
    let spec = crate::options::spec_from_args(&args.load)?;
    let start_at_ms = now_unix_ms() + args.start_in.as_millis() as u64;
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("restbench-load-{}", utc_stamp().to_ascii_lowercase()));
    let job = JobSpec {
        name: name.clone(),
        namespace: args.namespace.clone(),
        image: args.image.clone(),
        shards: args.shards,
        start_at_ms,
    };
    let manifest = k8s::job_manifest(&spec, &job).map_err(|e| BadArgument(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &manifest)?;
    writeln!(out)?;
    out.flush()?;
    eprintln!(
        "job {name}: {} pods start loading at {} (apply it before then: kubectl apply -f -), \
         then: restbench k8s collect {name}",
        args.shards,
        rfc3339_ms(start_at_ms)
    );
    Ok(ExitCode::SUCCESS)
}

pub fn collect(args: K8sCollectArgs) -> anyhow::Result<ExitCode> {
    let parts = k8s::collect(&args.job, args.namespace.as_deref())?;
    let merged = merge_load_results(&parts, args.force)?;
    crate::output::write_merged(&merged, args.json.as_deref(), args.latency)?;
    Ok(ExitCode::SUCCESS)
}
