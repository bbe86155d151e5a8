//! `restbench db start`: a throwaway PostgreSQL server with the seed data.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use restbench_harness::db::Cluster;
use restbench_harness::process::private_temp_dir;

use crate::cli::DbStartArgs;
use crate::signals;

pub fn start(args: DbStartArgs) -> anyhow::Result<ExitCode> {
    let stop = signals::stop_flag()?;
    // PostgreSQL's log goes into a fresh folder only restbench can enter: a fixed path in the
    // shared temporary folder let anyone plant symlinks there for root to write through.
    let logs = private_temp_dir("restbench-logs-")?;
    let mut cluster = match Cluster::start(args.keep.as_deref(), logs.path()) {
        Ok(cluster) => cluster,
        Err(e) => {
            if std::fs::read_dir(logs.path()).is_ok_and(|mut d| d.next().is_some()) {
                eprintln!("PostgreSQL's log is kept in {}", logs.keep().display());
            }
            return Err(e.into());
        }
    };
    println!("{}", cluster.url);
    eprintln!(
        "PostgreSQL on 127.0.0.1:{} ({}); Ctrl-C stops it{}",
        cluster.port,
        cluster.data_dir.display(),
        if args.keep.is_some() {
            " and keeps the folder"
        } else {
            " and removes it"
        }
    );
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
    }
    cluster.stop();
    eprintln!("stopped");
    Ok(ExitCode::SUCCESS)
}
