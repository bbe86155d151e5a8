//! `restbench db`'s subcommand: a throwaway PostgreSQL cluster, here or on another host.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Start a throwaway PostgreSQL cluster with the seed data; prints its URL and runs until
    /// Ctrl-C or SIGTERM, then removes it.
    Start(DbStartArgs),
}

#[derive(Debug, Args)]
pub struct DbStartArgs {
    /// Keep the cluster in DIR: a new folder (restbench creates it and hands it to the postgres
    /// user), or one an earlier --keep made, which is reused [default: a temporary folder, removed
    /// at the end].
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Listen on ADDR too (beside 127.0.0.1), for servers on other hosts: clients on this
    /// machine's own subnets may connect with the password, and the printed URL names ADDR
    /// [default: 127.0.0.1 only; with --host, the host's address].
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<std::net::IpAddr>,
    /// Start the cluster on this host over SSH instead (user@host[:port]): restbench copies
    /// itself there (cached by hash), runs `db start --listen` there, and prints a URL reachable
    /// from here (the host's address, or --listen's); Ctrl-C stops and removes it there
    /// [default: on this machine].
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Stop when stdin closes: how a cluster started over SSH ends with its session.
    #[arg(long, hide = true)]
    pub exit_with_stdin: bool,
}
