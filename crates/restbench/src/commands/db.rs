//! `restbench db start`: a throwaway PostgreSQL server with the seed data.

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use restbench_db::Cluster;
use restbench_host::process::private_temp_dir;

use anyhow::Context;

use crate::cli::{BadArgument, DbStartArgs};
use crate::signals;

pub fn start(args: DbStartArgs) -> anyhow::Result<ExitCode> {
    let stop = signals::stop_flag()?;
    if let Some(host) = &args.host {
        return start_remote(host, &args, &stop);
    }
    if args.exit_with_stdin {
        // The session that started this cluster over ssh ended: stop as Ctrl-C would.
        let flag = stop.clone();
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            flag.store(true, Ordering::Relaxed);
        });
    }
    // PostgreSQL's log goes into a fresh folder only restbench can enter: a fixed path in the
    // shared temporary folder let anyone plant symlinks there for root to write through.
    let logs = private_temp_dir("restbench-logs-")?;
    let mut cluster =
        match Cluster::start_listening(args.keep.as_deref(), logs.path(), None, args.listen) {
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
        "PostgreSQL on {}:{} ({}); Ctrl-C stops it{}",
        args.listen
            .map_or_else(|| "127.0.0.1".to_string(), |a| format!("127.0.0.1 and {a}")),
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

/// `db start --host`: the same command run there over ssh, with restbench copied by hash; its
/// URL printed here; Ctrl-C (or the cluster ending there) stops it and removes it there.
fn start_remote(
    host: &str,
    args: &DbStartArgs,
    stop: &std::sync::atomic::AtomicBool,
) -> anyhow::Result<ExitCode> {
    use std::io::BufRead;

    use restbench_remote::SshHost;
    use restbench_remote::ssh::{Connection, SshOptions, file_hash};

    let host = SshHost::parse(host).map_err(|e| BadArgument(format!("--host: {e}")))?;
    let listen = listen_address(&host, args)?;
    let exe = std::env::current_exe().context("cannot find restbench's own binary to copy")?;
    let conn = Connection::open(host, std::sync::Arc::new(SshOptions::from_env()?))?;
    let (bin, copied) = conn.ensure_binary(&exe, &file_hash(&exe)?)?;
    if copied {
        eprintln!("copied restbench to {}:{bin}", conn.host);
    }
    let mut child = spawn_remote_start(&conn, &bin, listen, args)?;
    let stderr = echo_stderr(&mut child, conn.host.to_string());
    let mut url = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = std::io::BufReader::new(out).read_line(&mut url);
    }
    let url = url.trim().to_string();
    if url.is_empty() {
        drop(child.stdin.take());
        let _ = child.wait();
        let last = stderr
            .and_then(|h| h.join().ok())
            .and_then(|l| l.into_iter().rev().find(|l| !l.trim().is_empty()))
            .unwrap_or_else(|| "it printed no URL".into());
        anyhow::bail!("{}: starting PostgreSQL failed: {last}", conn.host);
    }
    println!("{url}");
    eprintln!(
        "PostgreSQL on {} (DATABASE_URL above); Ctrl-C stops it and removes it there",
        conn.host
    );
    let ended = wait_then_end(&mut child, stop);
    if let Some(h) = stderr {
        let _ = h.join();
    }
    match ended {
        Some(status) if !status.success() => {
            anyhow::bail!("{}: PostgreSQL ended ({status})", conn.host)
        }
        _ => {
            eprintln!("stopped");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The address the cluster there listens on: `--listen`, else the host's name resolved here.
fn listen_address(
    host: &restbench_remote::SshHost,
    args: &DbStartArgs,
) -> anyhow::Result<std::net::IpAddr> {
    use restbench_remote::hosts::resolve_address;
    match args.listen.or_else(|| resolve_address(&host.host)) {
        Some(a) => Ok(a),
        None => Err(BadArgument(format!(
            "--host {host}: cannot resolve {} here; give --listen ADDR (the host's address \
             this machine reaches)",
            host.host
        ))
        .into()),
    }
}

/// `db start --listen … --exit-with-stdin` started there, its pipes kept here.
fn spawn_remote_start(
    conn: &restbench_remote::ssh::Connection,
    bin: &str,
    listen: std::net::IpAddr,
    args: &DbStartArgs,
) -> anyhow::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;

    use restbench_remote::ssh::quote;

    let mut remote = format!(
        "exec {} db start --listen {listen} --exit-with-stdin",
        quote(bin)
    );
    if let Some(keep) = &args.keep {
        remote.push_str(&format!(" --keep {}", quote(&keep.display().to_string())));
    }
    // Its own process group: Ctrl-C reaches restbench, which ends the session itself.
    conn.command(&remote)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .context("cannot run ssh")
}

/// Echoes the remote side's stderr here, each line prefixed with `name`; the thread returns the
/// lines, so a failed start can say its last one.
fn echo_stderr(
    child: &mut std::process::Child,
    name: String,
) -> Option<std::thread::JoinHandle<Vec<String>>> {
    use std::io::BufRead;
    child.stderr.take().map(|err| {
        std::thread::spawn(move || {
            let mut last = Vec::new();
            for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
                eprintln!("{name}: {line}");
                last.push(line);
            }
            last
        })
    })
}

/// Waits until the cluster there ends or `stop` is set, then closes the session (which stops and
/// removes it there) and waits up to 15 s before killing ssh. `None` when stopped from here.
fn wait_then_end(
    child: &mut std::process::Child,
    stop: &std::sync::atomic::AtomicBool,
) -> Option<std::process::ExitStatus> {
    let ended = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if stop.load(Ordering::Relaxed) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    drop(child.stdin.take());
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while matches!(child.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    ended
}
