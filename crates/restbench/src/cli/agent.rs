//! `restbench remote-agent`'s subcommands: hidden, since only restbench itself runs them, over
//! ssh on a `--server-host`.

use std::path::PathBuf;

use clap::Subcommand;

/// `restbench remote-agent`: the other end of `--server-host`
/// (`restbench_harness::serve::agent`).
#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Build the copied subject in DIR.
    Build {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        cache: PathBuf,
    },
    /// Start it, print one ready line, and stop it when the ssh session ends.
    Serve {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        cache: PathBuf,
        #[arg(long)]
        scenario: String,
        #[arg(long)]
        address: std::net::IpAddr,
        #[arg(long, default_value_t = 16)]
        db_pool: u32,
        /// A file holding DATABASE_URL (never on a command line).
        #[arg(long)]
        database_url_file: Option<PathBuf>,
    },
    /// The CPU and memory of process group PGID (and its cgroup, given as JSON) as JSON.
    Sample {
        #[arg(long)]
        pgid: i32,
        #[arg(long)]
        cgroup: Option<String>,
    },
}
