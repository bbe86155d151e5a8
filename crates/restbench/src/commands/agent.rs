//! `restbench remote-agent`: the other end of `--server-host`, run there over ssh
//! (`restbench_harness::serve::agent` does the work).

use std::process::ExitCode;

use anyhow::Context;
use restbench_harness::serve::agent::{self, ServeArgs};
use restbench_host::cgroup::CgroupFiles;
use restbench_model::Scenario;

use crate::cli::AgentCommand;

pub fn run(command: AgentCommand) -> anyhow::Result<ExitCode> {
    match command {
        AgentCommand::Build { dir, cache } => agent::build(&dir, &cache)?,
        AgentCommand::Serve {
            dir,
            cache,
            scenario,
            address,
            db_pool,
            database_url_file,
        } => {
            let scenario = Scenario::parse(&scenario)
                .with_context(|| format!("unknown scenario {scenario:?}"))?;
            let database_url = match database_url_file {
                Some(f) => Some(
                    restbench_model::documents::io::read_limited_string(
                        &f,
                        64 << 10,
                        "the URL file",
                    )?
                    .trim()
                    .to_string(),
                ),
                None => None,
            };
            agent::serve(&ServeArgs {
                dir: &dir,
                cache: &cache,
                scenario,
                address,
                database_url,
                db_pool_total: db_pool,
            })?;
        }
        AgentCommand::Sample { pgid, cgroup } => {
            let cgroup: Option<CgroupFiles> = match cgroup {
                Some(json) => Some(serde_json::from_str(&json).context("--cgroup")?),
                None => None,
            };
            let sample = agent::sample(pgid, cgroup.as_ref());
            println!("{}", serde_json::to_string(&sample)?);
        }
    }
    Ok(ExitCode::SUCCESS)
}
