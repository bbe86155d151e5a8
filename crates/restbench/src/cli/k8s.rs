//! `restbench k8s`'s subcommands: `load`'s arguments with the Job's around them, and what
//! `collect` merges.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::load::LoadArgs;
use super::parse_duration;

#[derive(Debug, Subcommand)]
pub enum K8sCommand {
    /// Print (JSON, which kubectl applies as it does YAML) an Indexed Job whose N pods each run
    /// one shard of this load, all starting at one time: `… | kubectl apply -f -`.
    Load(Box<K8sLoadArgs>),
    /// Read each pod's result of a Job through `kubectl logs` and merge them.
    Collect(K8sCollectArgs),
}

/// `restbench k8s load`.
#[derive(Debug, Args)]
pub struct K8sLoadArgs {
    /// Pods (generators), one shard each; -c and -n must divide by it.
    #[arg(long, default_value_t = 2)]
    pub shards: u32,
    /// The container image with restbench on its PATH.
    #[arg(long, default_value = "restbench:latest")]
    pub image: String,
    /// When the pods start loading, from now: time for the cluster to schedule and pull them
    /// (a pod that starts more than 1 s late fails rather than measure a different window).
    #[arg(long, value_parser = parse_duration, default_value = "30s")]
    pub start_in: Duration,
    /// The Job's name (default restbench-load-<UTC stamp>).
    #[arg(long)]
    pub name: Option<String>,
    /// The Job's namespace (default: kubectl's).
    #[arg(long)]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub load: LoadArgs,
}

/// `restbench k8s collect`.
#[derive(Debug, Args)]
pub struct K8sCollectArgs {
    /// The Job's name.
    pub job: String,
    #[arg(long)]
    pub namespace: Option<String>,
    /// Write the merged result (JSON) to PATH, or to stdout with '-'.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Print the latency distribution.
    #[arg(long)]
    pub latency: bool,
    /// Merge results of different loads anyway.
    #[arg(long)]
    pub force: bool,
}
