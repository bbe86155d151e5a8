//! Throwaway PostgreSQL clusters: initdb into a folder, the server on a free loopback port in its
//! own process group, stopped and removed when dropped or when restbench ends.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::client::{Database, db_err};
use crate::DbError;
use restbench_host::process::{ManagedChild, SpawnSpec};
use restbench_host::shell::shell_quote;

/// The Debian package that ships the server binaries.
pub const SERVER_PACKAGE: &str = "postgresql";
const PASSWORD: &str = "bench";
const USER: &str = "restbench";
const DBNAME: &str = "restbench";
/// The file that marks a `--keep` folder as made by restbench: only such a folder is handed to
/// the `postgres` user (chowned) or reused; a user's own folder is never chowned.
pub const KEEP_MARKER: &str = ".restbench-cluster";

/// A throwaway PostgreSQL cluster: initdb into a temporary folder, the server on a free loopback
/// port in its own process group (as the `postgres` user when restbench runs as root). Dropping
/// it stops the server and removes the folder, unless it was asked to keep it.
///
/// The folder is removed by a janitor (an idle child whose guard deletes the folder when
/// restbench ends in any way), not by the server's own guard, so that the server can be stopped
/// and started again on the same data and port ([`Cluster::stop_server`],
/// [`Cluster::start_server`]) without losing the folder.
pub struct Cluster {
    pub url: String,
    pub port: u16,
    pub data_dir: PathBuf,
    root: PathBuf,
    keep: bool,
    bin: PathBuf,
    user: Option<(u32, u32)>,
    log_dir: PathBuf,
    server: Option<ManagedChild>,
    janitor: Option<ManagedChild>,
    /// The CPUs the server is pinned to (every CPU when `None`).
    cpus: Option<Vec<usize>>,
    /// An address it listens on beside 127.0.0.1 (`db start --listen`), for servers on other
    /// hosts; the URL then names it.
    listen: Option<IpAddr>,
    /// `max_connections` of the server (see [`Cluster::with_connections`]).
    max_connections: u32,
}

/// `max_connections` of a cluster started without a plan's count (`db start`, `verify`).
pub const DEFAULT_MAX_CONNECTIONS: u32 = 1000;

/// `shared_buffers` of a cluster, MiB.
pub const SHARED_BUFFERS_MB: u32 = 128;

/// Memory PostgreSQL takes per allowed connection, MiB, for the plan's estimate: a backend's own
/// memory when it is open (a few MiB with the seed's queries) beside the shared memory each slot
/// reserves.
pub const MB_PER_CONNECTION: u32 = 3;

/// Where the server binaries are (`initdb`, `postgres`, `pg_ctl`).
pub fn find_server_binaries() -> Result<PathBuf, DbError> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(dir) = std::env::var("RESTBENCH_PG_BIN") {
        candidates.push(dir.into());
    }
    if let Some(initdb) = restbench_host::shell::find_on_path("initdb") {
        let real = std::fs::canonicalize(&initdb).unwrap_or(initdb);
        if let Some(dir) = real.parent() {
            candidates.push(dir.to_path_buf());
        }
    }
    if let Ok(entries) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut versions: Vec<PathBuf> = entries.flatten().map(|e| e.path().join("bin")).collect();
        versions.sort();
        candidates.extend(versions.into_iter().rev());
    }
    candidates
        .into_iter()
        .find(|d| d.join("initdb").is_file() && d.join("postgres").is_file())
        .ok_or_else(|| {
            DbError::database(format!(
                "the PostgreSQL server binaries (initdb, postgres) are not installed: apt-get install {SERVER_PACKAGE}"
            ))
        })
}

/// A `--keep` folder must be new, or one an earlier `--keep` made (it holds [`KEEP_MARKER`]):
/// restbench hands it to the `postgres` user, and must never do that to a user's own folder.
/// Checked before anything is started.
pub fn check_keep_folder(dir: &Path) -> Result<(), DbError> {
    match dir.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(DbError::io(format!("cannot read {}", dir.display()), e)),
        Ok(m) if m.is_dir() && dir.join(KEEP_MARKER).is_file() => Ok(()),
        Ok(_) => Err(DbError::database(format!(
            "--keep {}: the folder exists and was not made by restbench; give a folder that does \
             not exist yet (restbench creates it and hands it to the postgres user) or one an \
             earlier --keep made",
            dir.display()
        ))),
    }
}

/// Creates a new `--keep` folder with its marker, or returns one an earlier `--keep` made.
/// `create_dir` (not `_all`) on the folder itself: one that appears meanwhile is checked again
/// rather than taken over.
fn make_keep_folder(dir: &Path) -> Result<PathBuf, DbError> {
    let cannot = |e| DbError::io(format!("cannot create {}", dir.display()), e);
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(cannot)?;
    }
    match std::fs::create_dir(dir) {
        Ok(()) => {
            std::fs::write(
                dir.join(KEEP_MARKER),
                "a PostgreSQL cluster of restbench db start --keep\n",
            )
            .map_err(cannot)?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => check_keep_folder(dir)?,
        Err(e) => return Err(cannot(e)),
    }
    Ok(dir.to_path_buf())
}

/// The pg_hba.conf line that lets clients on the server's own subnets in with the password.
const SAMENET_LINE: &str = "host all all samenet scram-sha-256";

/// Adds [`SAMENET_LINE`] to a cluster's pg_hba.conf once.
fn allow_samenet(hba: &Path) -> Result<(), DbError> {
    // initdb's file, a few KiB; limited as every file restbench reads.
    let text = restbench_model::documents::io::read_limited_string(hba, 1 << 20, "pg_hba.conf")
        .map_err(|e| DbError::Document(e.into()))?;
    if text.lines().any(|l| l.trim() == SAMENET_LINE) {
        return Ok(());
    }
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    // The folder may belong to postgres: root never writes through a link planted there.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(hba)
        .map_err(|e| DbError::io(format!("cannot open {}", hba.display()), e))?;
    writeln!(
        f,
        "\n# restbench db start --listen: servers on other hosts\n{SAMENET_LINE}"
    )
    .map_err(|e| DbError::io(format!("cannot write {}", hba.display()), e))
}

impl Cluster {
    /// Starts a cluster; `keep`: a folder to create it in and leave behind.
    pub fn start(keep: Option<&Path>, log_dir: &Path) -> Result<Self, DbError> {
        Self::start_on(keep, log_dir, None)
    }

    /// [`Cluster::start`] with the server pinned to `cpus` (a run places it away from the
    /// server under test; see [`restbench_host::placement::Placement::with_database`]).
    pub fn start_on(
        keep: Option<&Path>,
        log_dir: &Path,
        cpus: Option<Vec<usize>>,
    ) -> Result<Self, DbError> {
        Self::start_listening(keep, log_dir, cpus, None)
    }

    /// [`Cluster::start_on`] allowing `max_connections` (a run's plan sizes it: every server of
    /// a scenario stays up with its pool open).
    pub fn with_connections(
        log_dir: &Path,
        cpus: Option<Vec<usize>>,
        max_connections: u32,
    ) -> Result<Self, DbError> {
        Self::start_full(None, log_dir, cpus, None, max_connections)
    }

    /// [`Cluster::start_on`], listening on `listen` too when given (for servers on other hosts:
    /// `restbench db start --host`). Clients on the server's own subnets may then connect with
    /// the password (a `samenet` line in pg_hba.conf); the URL names `listen`.
    pub fn start_listening(
        keep: Option<&Path>,
        log_dir: &Path,
        cpus: Option<Vec<usize>>,
        listen: Option<IpAddr>,
    ) -> Result<Self, DbError> {
        Self::start_full(keep, log_dir, cpus, listen, DEFAULT_MAX_CONNECTIONS)
    }

    fn start_full(
        keep: Option<&Path>,
        log_dir: &Path,
        cpus: Option<Vec<usize>>,
        listen: Option<IpAddr>,
        max_connections: u32,
    ) -> Result<Self, DbError> {
        if let Some(dir) = keep {
            check_keep_folder(dir)?;
        }
        let bin = find_server_binaries()?;
        let user = run_as_user()?;
        let (root, kept) = cluster_folder(keep, user)?;
        let mut cluster = Self {
            url: String::new(),
            port: 0,
            data_dir: root.join("data"),
            root: root.clone(),
            keep: kept,
            bin,
            user,
            log_dir: log_dir.to_path_buf(),
            server: None,
            janitor: None,
            cpus,
            listen,
            max_connections,
        };
        if !kept {
            cluster.janitor = Some(janitor(&root)?);
        }
        if !cluster.data_dir.join("PG_VERSION").exists() {
            cluster.init_data(&root)?;
        }
        if listen.is_some() {
            allow_samenet(&cluster.data_dir.join("pg_hba.conf"))?;
        }
        cluster.port = restbench_host::process::free_port()?;
        cluster.url = cluster_url(listen, cluster.port);
        cluster.create_database()?;
        Database::connect(&cluster.url)?.seed()?;
        Ok(cluster)
    }

    /// A fresh data folder: `initdb` with the password, as the postgres user when there is one.
    fn init_data(&self, root: &Path) -> Result<(), DbError> {
        let pwfile = root.join("pwfile");
        // The folder may belong to postgres: never written through a link planted there.
        restbench_host::process::write_afresh(&pwfile, PASSWORD.as_bytes())
            .map_err(|e| DbError::io("cannot write the password file", e))?;
        if let Some((uid, gid)) = self.user {
            let _ = nix::unistd::chown(&pwfile, Some(uid.into()), Some(gid.into()));
        }
        let mut cmd = std::process::Command::new(self.bin.join("initdb"));
        cmd.arg("-D").arg(&self.data_dir).args([
            "-U",
            USER,
            "-A",
            "scram-sha-256",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale=C",
        ]);
        cmd.arg(format!("--pwfile={}", pwfile.display()));
        if let Some((uid, gid)) = self.user {
            use std::os::unix::process::CommandExt;
            cmd.uid(uid).gid(gid);
        }
        let out = cmd.output().map_err(|e| db_err("cannot run initdb", e))?;
        let _ = std::fs::remove_file(&pwfile);
        if !out.status.success() {
            return Err(DbError::database(format!(
                "initdb failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    /// Starts the server and creates the run's database when it has none yet.
    fn create_database(&mut self) -> Result<(), DbError> {
        let admin = self.spawn_server()?;
        let exists = admin
            .client()
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&DBNAME])
            .map_err(|e| db_err("cannot list databases", e))?
            .is_some();
        if !exists {
            admin
                .client()
                .batch_execute(&format!("CREATE DATABASE {DBNAME}"))
                .map_err(|e| db_err("cannot create the database", e))?;
        }
        Ok(())
    }

    /// Starts the server on `self.port` and the data folder; returns a connection to the
    /// `postgres` database once it accepts connections (30 s at most).
    fn spawn_server(&mut self) -> Result<Database, DbError> {
        let port = self.port;
        let listen = match self.listen {
            Some(a) => format!("-c listen_addresses=127.0.0.1,{a}"),
            None => "-c listen_addresses=127.0.0.1".into(),
        };
        // Every server of a scenario stays up during its groups, each with its own pool.
        let max_connections = format!("-c max_connections={}", self.max_connections);
        let shared_buffers = format!("-c shared_buffers={SHARED_BUFFERS_MB}MB");
        let conf = [
            listen.as_str(),
            max_connections.as_str(),
            shared_buffers.as_str(),
            "-c fsync=off",
            "-c synchronous_commit=off",
            "-c full_page_writes=off",
            "-c shared_preload_libraries=pg_stat_statements",
            "-c logging_collector=off",
            "-c shared_memory_type=mmap",
            "-c dynamic_shared_memory_type=mmap",
        ]
        .join(" ");
        let spec = SpawnSpec {
            name: "PostgreSQL".into(),
            // Quoted for the shell: a --keep folder may hold spaces, quotes and `$`.
            shell_command: format!(
                "exec {} -D {} -p {port} -k {} {conf}",
                shell_quote(&self.bin.join("postgres").display().to_string()),
                shell_quote(&self.data_dir.display().to_string()),
                shell_quote(&self.root.display().to_string())
            ),
            cwd: self.root.clone(),
            log: self.log_dir.join(format!("postgres-{port}.log")),
            user: self.user,
            // The janitor removes the folder; the server may be stopped and started again.
            remove_on_death: None,
            cpus: self.cpus.clone(),
            ..Default::default()
        };
        let mut server = ManagedChild::spawn(&spec)?;
        let admin_url = format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{port}/postgres");
        let started = Instant::now();
        let admin = loop {
            match Database::connect(&admin_url) {
                Ok(db) => break db,
                Err(e) => {
                    if let Some(status) = server.exited() {
                        return Err(DbError::database(format!(
                            "the server exited ({status}): {}",
                            server.log_tail(5)
                        )));
                    }
                    if started.elapsed() > Duration::from_secs(30) {
                        return Err(DbError::database(format!(
                            "the server did not accept connections within 30 s: {e}"
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        };
        self.server = Some(server);
        Ok(admin)
    }

    /// Stops the server (fast shutdown: open connections are ended) and keeps the folder, so
    /// that [`Cluster::start_server`] can start it again on the same data and port.
    pub fn stop_server(&mut self) {
        if let Some(mut server) = self.server.take() {
            server.signal(nix::sys::signal::Signal::SIGINT);
            let deadline = Instant::now() + Duration::from_secs(10);
            while server.exited().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            server.stop(Duration::from_secs(1));
        }
    }

    /// Starts the server again after [`Cluster::stop_server`], on the same port and data
    /// (a no-op while it runs). Fails if something else took the port meanwhile.
    pub fn start_server(&mut self) -> Result<(), DbError> {
        if self.server.is_some() {
            return Ok(());
        }
        restbench_host::process::ensure_port_free(self.port)?;
        self.spawn_server().map(drop)
    }

    /// [`Cluster::stop_server`] then [`Cluster::start_server`].
    pub fn restart(&mut self) -> Result<(), DbError> {
        self.stop_server();
        self.start_server()
    }

    /// True while the server runs.
    pub fn is_running(&mut self) -> bool {
        self.server.as_mut().is_some_and(|s| s.exited().is_none())
    }

    /// The process id of the server (the postmaster) while it runs.
    pub fn server_pid(&self) -> Option<u32> {
        self.server.as_ref().map(ManagedChild::pid)
    }

    /// Stops the server (fast shutdown) and removes the folder unless it is kept.
    pub fn stop(&mut self) {
        self.stop_server();
        if let Some(mut janitor) = self.janitor.take() {
            janitor.stop(Duration::from_secs(1)); // its guard removes the folder
        }
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `(uid, gid)` of the `postgres` user when restbench runs as root (initdb refuses root).
fn run_as_user() -> Result<Option<(u32, u32)>, DbError> {
    if !nix::unistd::geteuid().is_root() {
        return Ok(None);
    }
    match nix::unistd::User::from_name("postgres") {
        Ok(Some(u)) => Ok(Some((u.uid.as_raw(), u.gid.as_raw()))),
        _ => Err(DbError::database(format!(
            "running as root needs the `postgres` user to own the cluster: apt-get install {SERVER_PACKAGE}"
        ))),
    }
}

/// The cluster's folder: the kept one (made if need be), else a new temporary one; handed to
/// the postgres user when there is one. Returns it and whether it is kept.
fn cluster_folder(
    keep: Option<&Path>,
    user: Option<(u32, u32)>,
) -> Result<(PathBuf, bool), DbError> {
    let (root, kept) = match keep {
        Some(dir) => (make_keep_folder(dir)?, true),
        None => {
            let t = tempfile::Builder::new()
                .prefix("restbench-pg-")
                .tempdir()
                .map_err(|e| DbError::io("cannot create a temporary folder", e))?;
            (t.keep(), false)
        }
    };
    if let Some((uid, gid)) = user
        && let Err(e) = nix::unistd::chown(&root, Some(uid.into()), Some(gid.into()))
    {
        if !kept {
            let _ = std::fs::remove_dir_all(&root);
        }
        return Err(db_err(
            "cannot hand the cluster folder to the postgres user",
            e,
        ));
    }
    Ok((root, kept))
}

/// Idles until restbench stops it or ends; its guard then removes the folder.
fn janitor(root: &Path) -> Result<ManagedChild, DbError> {
    Ok(ManagedChild::spawn(&SpawnSpec {
        name: "PostgreSQL janitor".into(),
        shell_command: "exec sleep infinity".into(),
        cwd: PathBuf::from("/"),
        log: PathBuf::from("/dev/null"),
        remove_on_death: Some(root.to_path_buf()),
        ..Default::default()
    })?)
}

/// The URL clients connect with: `listen` when given, else 127.0.0.1.
fn cluster_url(listen: Option<IpAddr>, port: u16) -> String {
    let host = match listen {
        Some(IpAddr::V6(a)) => format!("[{a}]"),
        Some(a) => a.to_string(),
        None => "127.0.0.1".into(),
    };
    format!("postgres://{USER}:{PASSWORD}@{host}:{port}/{DBNAME}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_restbench_made_are_kept_and_reused() {
        let t = tempfile::tempdir().unwrap();
        // A user's own folder, empty or not, is refused and left as it was.
        let own = t.path().join("own");
        std::fs::create_dir(&own).unwrap();
        assert!(check_keep_folder(&own).is_err());
        std::fs::write(own.join("notes.txt"), "mine").unwrap();
        let e = make_keep_folder(&own).unwrap_err().to_string();
        assert!(e.contains("not made by restbench"), "{e}");
        assert!(!own.join(KEEP_MARKER).exists());
        // A file or a symlink in its place is refused too.
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&own, &link).unwrap();
        assert!(check_keep_folder(&link).is_err());
        // A new folder (with its parents) is made and marked, then reused.
        let new = t.path().join("a b").join("it's $HOME");
        check_keep_folder(&new).unwrap();
        assert_eq!(make_keep_folder(&new).unwrap(), new);
        assert!(new.join(KEEP_MARKER).is_file());
        check_keep_folder(&new).unwrap();
        make_keep_folder(&new).unwrap();
    }
}
