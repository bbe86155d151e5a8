//! `restbench db start`: a throwaway PostgreSQL server with the seed data.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use restbench_harness::db::Cluster;

use crate::cli::DbStartArgs;
use crate::signals;

pub fn start(args: DbStartArgs) -> anyhow::Result<ExitCode> {
    let stop = signals::stop_flag()?;
    let logs = std::env::temp_dir().join("restbench-logs");
    let mut cluster = Cluster::start(args.keep.as_deref(), &logs)?;
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
