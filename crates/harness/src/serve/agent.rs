//! `restbench remote-agent`: what restbench runs on the host of `--server-host`, through ssh
//! ([`super::remote_server`] is the other end). Three short jobs:
//!
//! - `build`: the copied subject built with its own commands ([`restbench_subject::prepare`]);
//! - `serve`: the subject started as a local run starts it ([`super::start_subject`], all of the
//!   host's CPUs, its own cgroup when the host's probe finds one), one [`READY_MARK`] line on
//!   stdout, then watching: when the subject exits the agent says so and exits; when the ssh
//!   session ends (stdout's reader gone) it stops the subject and removes its cgroup;
//! - `sample`: the subject's CPU and memory, from /proc and its cgroup, as one JSON line.

use std::io::Write;
use std::net::IpAddr;
use std::os::fd::AsFd;
use std::path::Path;
use std::time::Duration;

use restbench_model::Scenario;

use super::remote_server::{AgentReady, AgentSample, READY_MARK};
use super::start::{StartOptions, start_subject};
use crate::HarnessError;
use restbench_host::cgroup::{Backend, CgroupFiles, ServerCgroup};
use restbench_host::placement::{Placement, available_cpus};
use restbench_host::sample::group_usage;
use restbench_subject::Subject;
use restbench_subject::prepare::{self, Prepared};

/// Builds the subject in `dir` with `cache` as its cache; prints `built in Ns` when it built.
pub fn build(dir: &Path, cache: &Path) -> Result<(), HarnessError> {
    // A build outlives nobody: when the session ends (Ctrl-C there, restbench killed), the
    // agent's process group (sshd made it a session leader), build commands included, goes.
    std::thread::spawn(|| {
        loop {
            if session_gone() {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::getpgrp(),
                    nix::sys::signal::Signal::SIGKILL,
                );
                std::process::exit(1);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let subject = Subject::load(dir)?;
    if let Some(reason) = subject.unavailable_reason() {
        return Err(HarnessError::Unavailable {
            subject: subject.id.clone(),
            reason,
        });
    }
    if let Prepared::Built { seconds } = prepare::prepare(&subject, cache)? {
        println!("built in {seconds:.1}s");
    }
    Ok(())
}

/// What `serve` is given.
pub struct ServeArgs<'a> {
    pub dir: &'a Path,
    pub cache: &'a Path,
    pub scenario: Scenario,
    pub address: IpAddr,
    pub database_url: Option<String>,
    pub db_pool_total: u32,
}

/// Starts the subject, reports it ready, and watches it until it exits (an error with its
/// output's tail) or the session ends (`Ok`, the subject stopped and its cgroup removed).
pub fn serve(args: &ServeArgs) -> Result<(), HarnessError> {
    let subject = Subject::load(args.dir)?;
    let backend = Backend::probe();
    let placement = Placement::server_only(&available_cpus());
    let options = StartOptions {
        placement: &placement,
        backend: &backend,
        cache: args.cache,
        database_url: args.database_url.as_deref(),
        db_pool_total: args.db_pool_total,
        address: Some(args.address),
        remote: None,
    };
    let mut server = start_subject(&subject, args.scenario, &options, None)?;
    let ready = AgentReady {
        port: server.addr.port(),
        agent_pid: std::process::id() as i32,
        pgid: server.child.pgid(),
        settings: server.settings.clone(),
        ready_after_ms: server.ready_after.as_millis() as u64,
        limit: server.limit.clone(),
        cgroup: server.cgroup.as_ref().map(ServerCgroup::files),
    };
    let line = serde_json::to_string(&ready).unwrap_or_default();
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{READY_MARK}{line}");
    let _ = out.flush();
    loop {
        if let Some(status) = server.child.exited() {
            let tail = server.child.log_tail(12);
            server.child.stop(Duration::from_secs(2));
            return Err(HarnessError::ExitedDuringLoad {
                subject: subject.id.clone(),
                status: status.to_string(),
                tail,
            });
        }
        if session_gone() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    server.child.stop(Duration::from_secs(5));
    Ok(())
}

/// True once nobody reads stdout any more: sshd closed the session's pipe (POLLERR) or socket
/// (POLLHUP) because the client went away.
fn session_gone() -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let stdout = std::io::stdout();
    let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
    match poll(&mut fds, PollTimeout::ZERO) {
        Ok(n) if n > 0 => fds[0].revents().is_some_and(|r| {
            r.intersects(PollFlags::POLLERR | PollFlags::POLLHUP | PollFlags::POLLNVAL)
        }),
        _ => false,
    }
}

/// The process group's CPU and memory, and its cgroup's when `cgroup` is given.
pub fn sample(pgid: i32, cgroup: Option<&CgroupFiles>) -> AgentSample {
    let usage = group_usage(pgid);
    let reader = cgroup.and_then(ServerCgroup::reader);
    AgentSample {
        proc_cpu_us: usage.cpu.as_micros() as u64,
        rss_bytes: usage.rss_bytes,
        cgroup_cpu_us: reader
            .as_ref()
            .and_then(|c| c.cpu_usage())
            .map(|d| d.as_micros() as u64),
        cgroup_memory: reader
            .as_ref()
            .and_then(|c| c.memory())
            .and_then(|m| m.current()),
    }
}
