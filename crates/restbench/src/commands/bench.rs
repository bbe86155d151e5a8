//! `restbench bench --cmd`: your own server, measured as a subject without writing a folder.

use std::process::ExitCode;

use anyhow::Context;
use restbench_harness::subject::ad_hoc;
use restbench_model::Workload;
use restbench_model::time::utc_stamp;

use super::run::{Measured, measure};
use super::verify::parse_workloads;
use crate::cli::{BadArgument, BenchArgs};

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let bad = |text: String| anyhow::Error::new(BadArgument(text));
    if !args.run.subjects.is_empty() {
        return Err(bad(
            "--subjects does not apply to bench: the subject is the --cmd command".into(),
        ));
    }
    let workloads = if args.run.workloads.is_empty() {
        vec![Workload::Plaintext]
    } else {
        parse_workloads(&args.run.workloads).map_err(|e| bad(e.to_string()))?
    };
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let subject = ad_hoc::subject(&args.cmd, &args.name, &workloads, cwd.clone())
        .map_err(|e| bad(e.to_string()))?;
    // Results and the cache go where `run` puts them: beside the subjects folder of a checkout,
    // else in the current folder.
    let root = super::subjects_root(&args.run.dir).unwrap_or_else(|_| cwd.join("subjects"));
    let what = Measured {
        kind: "bench",
        out_name: format!("bench-{}-{}", args.name, utc_stamp()),
        note: Some(format!(
            "An ad-hoc subject: `{}` ({}), started as given in every scenario.",
            args.cmd, args.name
        )),
    };
    measure(vec![subject], workloads, &args.run, &root, what)
}
