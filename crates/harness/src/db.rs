//! PostgreSQL for the users workload: throwaway clusters from the installed server binaries, the
//! seed data (100 rows from a fixed seed, the same on every machine), and what the verifier asks
//! of the database.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

use crate::HarnessError;
use crate::process::{ManagedChild, SpawnSpec};

/// The Debian package that ships the server binaries.
pub const SERVER_PACKAGE: &str = "postgresql";
const PASSWORD: &str = "bench";
const USER: &str = "restbench";
const DBNAME: &str = "restbench";
const SEED: u64 = 0x5EED_0003;

/// A row of table `"user"`, with `birthdate` as `YYYY-MM-DD HH:MM:SS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRow {
    pub id: i64,
    pub username: String,
    pub name: String,
    pub sex: String,
    pub address: String,
    pub mail: String,
    pub birthdate: String,
}

/// A connection to the benchmark database.
pub struct Database {
    pub url: String,
    client: Mutex<Client>,
}

/// `context: error: its causes`, on one line. The driver's own `Display` is only the kind of
/// failure ("db error"); the server's reason ("FATAL: password authentication failed …") and
/// the OS error are in the source chain.
fn db_err(context: &str, e: impl std::error::Error) -> HarnessError {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    let message = message
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("; ");
    HarnessError::Database(format!("{context}: {message}"))
}

impl Database {
    /// Connects, failing at once (5 s at most) with the server's own message.
    pub fn connect(url: &str) -> Result<Self, HarnessError> {
        let mut config: postgres::Config = url
            .parse()
            .map_err(|e| db_err(&format!("invalid database URL {:?}", redact(url)), e))?;
        config.connect_timeout(Duration::from_secs(5));
        let client = config
            .connect(NoTls)
            .map_err(|e| db_err(&format!("cannot connect to {}", redact(url)), e))?;
        Ok(Self {
            url: url.to_string(),
            client: Mutex::new(client),
        })
    }

    fn client(&self) -> std::sync::MutexGuard<'_, Client> {
        self.client.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Creates table `"user"` with the seed rows when it is missing or not as seeded.
    pub fn seed(&self) -> Result<(), HarnessError> {
        let rows = seed_rows();
        let mut c = self.client();
        c.batch_execute(
            "CREATE TABLE IF NOT EXISTS \"user\" (id SERIAL PRIMARY KEY, username VARCHAR NOT NULL, \
             name VARCHAR NOT NULL, sex VARCHAR NOT NULL, address VARCHAR NOT NULL, mail VARCHAR NOT NULL, \
             birthdate TIMESTAMP NOT NULL)",
        )
        .map_err(|e| db_err("cannot create table \"user\"", e))?;
        drop(c);
        if self.users().is_ok_and(|have| have == rows) {
            return Ok(());
        }
        let mut c = self.client();
        let mut tx = c.transaction().map_err(|e| db_err("cannot seed", e))?;
        tx.batch_execute("TRUNCATE \"user\" RESTART IDENTITY")
            .map_err(|e| db_err("cannot seed", e))?;
        for r in &rows {
            tx.execute(
                "INSERT INTO \"user\" (username, name, sex, address, mail, birthdate) VALUES ($1, $2, $3, $4, $5, $6::text::timestamp)",
                &[&r.username, &r.name, &r.sex, &r.address, &r.mail, &r.birthdate],
            )
            .map_err(|e| db_err("cannot seed", e))?;
        }
        tx.commit().map_err(|e| db_err("cannot seed", e))?;
        // Lets the verifier count queries exactly when the server preloads the module.
        let _ = c.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        Ok(())
    }

    /// All rows, by id.
    pub fn users(&self) -> Result<Vec<UserRow>, HarnessError> {
        let rows = self
            .client()
            .query(
                "SELECT id::int8, username, name, sex, address, mail, to_char(birthdate, 'YYYY-MM-DD HH24:MI:SS') FROM \"user\" ORDER BY id",
                &[],
            )
            .map_err(|e| db_err("cannot read table \"user\"", e))?;
        Ok(rows
            .iter()
            .map(|r| UserRow {
                id: r.get(0),
                username: r.get(1),
                name: r.get(2),
                sex: r.get(3),
                address: r.get(4),
                mail: r.get(5),
                birthdate: r.get(6),
            })
            .collect())
    }

    /// Sets one row's mail and returns the old one.
    pub fn set_mail(&self, id: i64, mail: &str) -> Result<String, HarnessError> {
        let mut c = self.client();
        let old: String = c
            .query_one(
                "SELECT mail FROM \"user\" WHERE id = $1::int8::int4",
                &[&id],
            )
            .map_err(|e| db_err("cannot read a row", e))?
            .get(0);
        c.execute(
            "UPDATE \"user\" SET mail = $1 WHERE id = $2::int8::int4",
            &[&mail, &id],
        )
        .map_err(|e| db_err("cannot change a row", e))?;
        Ok(old)
    }

    /// Queries of table `"user"` the server ran while `work` ran, and how they were counted.
    pub fn count_user_queries(
        &self,
        work: impl FnOnce(),
    ) -> Result<(u64, &'static str), HarnessError> {
        let statements = |c: &mut Client| -> Option<i64> {
            c.query_one(
                "SELECT COALESCE(sum(calls), 0)::int8 FROM pg_stat_statements WHERE query ILIKE '%from \"user\"%' \
                 AND query NOT ILIKE '%pg_stat%' AND query NOT ILIKE '%to_char%' AND query NOT ILIKE '%where id%'",
                &[],
            )
            .ok()
            .map(|r| r.get(0))
        };
        let scans = |c: &mut Client| -> Option<i64> {
            c.query_one(
                "SELECT (COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0))::int8 FROM pg_stat_user_tables WHERE relname = 'user'",
                &[],
            )
            .ok()
            .map(|r| r.get(0))
        };
        let before = statements(&mut self.client());
        if let Some(before) = before {
            work();
            let after = statements(&mut self.client()).unwrap_or(before);
            return Ok(((after - before).max(0) as u64, "pg_stat_statements"));
        }
        // Table statistics reach the shared view when backends go idle (up to ~10 s later).
        let before = scans(&mut self.client())
            .ok_or_else(|| HarnessError::Database("no statistics for table \"user\"".into()))?;
        let _ = self
            .client()
            .execute("SELECT pg_stat_clear_snapshot()", &[]);
        work();
        let started = Instant::now();
        let mut after = before;
        while started.elapsed() < Duration::from_secs(12) {
            let _ = self
                .client()
                .execute("SELECT pg_stat_clear_snapshot()", &[]);
            after = scans(&mut self.client()).unwrap_or(before);
            if after - before >= 5 {
                break;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        Ok(((after - before).max(0) as u64, "pg_stat_user_tables"))
    }
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..s + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

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
}

/// Where the server binaries are (`initdb`, `postgres`, `pg_ctl`).
pub fn find_server_binaries() -> Result<PathBuf, HarnessError> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(dir) = std::env::var("RESTBENCH_PG_BIN") {
        candidates.push(dir.into());
    }
    if let Some(initdb) = crate::subject::find_on_path("initdb") {
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
            HarnessError::Database(format!(
                "the PostgreSQL server binaries (initdb, postgres) are not installed: apt-get install {SERVER_PACKAGE}"
            ))
        })
}

impl Cluster {
    /// Starts a cluster; `keep`: a folder to create it in and leave behind.
    pub fn start(keep: Option<&Path>, log_dir: &Path) -> Result<Self, HarnessError> {
        let bin = find_server_binaries()?;
        let user = run_as_user()?;
        let (root, kept) = match keep {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| HarnessError::io(format!("cannot create {}", dir.display()), e))?;
                (dir.to_path_buf(), true)
            }
            None => {
                let t = tempfile::Builder::new()
                    .prefix("restbench-pg-")
                    .tempdir()
                    .map_err(|e| HarnessError::io("cannot create a temporary folder", e))?;
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
        };
        if !kept {
            // Idle until restbench stops it or ends; its guard then removes the folder.
            cluster.janitor = Some(ManagedChild::spawn(&SpawnSpec {
                name: "PostgreSQL janitor".into(),
                shell_command: "exec sleep infinity".into(),
                cwd: PathBuf::from("/"),
                log: PathBuf::from("/dev/null"),
                remove_on_death: Some(root.clone()),
                ..Default::default()
            })?);
        }
        if !cluster.data_dir.join("PG_VERSION").exists() {
            let pwfile = root.join("pwfile");
            std::fs::write(&pwfile, PASSWORD)
                .map_err(|e| HarnessError::io("cannot write the password file", e))?;
            if let Some((uid, gid)) = user {
                let _ = nix::unistd::chown(&pwfile, Some(uid.into()), Some(gid.into()));
            }
            let mut cmd = std::process::Command::new(cluster.bin.join("initdb"));
            cmd.arg("-D").arg(&cluster.data_dir).args([
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
            if let Some((uid, gid)) = user {
                use std::os::unix::process::CommandExt;
                cmd.uid(uid).gid(gid);
            }
            let out = cmd.output().map_err(|e| db_err("cannot run initdb", e))?;
            let _ = std::fs::remove_file(&pwfile);
            if !out.status.success() {
                return Err(HarnessError::Database(format!(
                    "initdb failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
        }
        cluster.port = crate::process::free_port()?;
        cluster.url = format!(
            "postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{DBNAME}",
            cluster.port
        );
        let admin = cluster.spawn_server()?;
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
        Database::connect(&cluster.url)?.seed()?;
        Ok(cluster)
    }

    /// Starts the server on `self.port` and the data folder; returns a connection to the
    /// `postgres` database once it accepts connections (30 s at most).
    fn spawn_server(&mut self) -> Result<Database, HarnessError> {
        let port = self.port;
        let conf = [
            "-c listen_addresses=127.0.0.1",
            "-c max_connections=300",
            "-c shared_buffers=128MB",
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
            shell_command: format!(
                "exec '{}' -D '{}' -p {port} -k '{}' {conf}",
                self.bin.join("postgres").display(),
                self.data_dir.display(),
                self.root.display()
            ),
            cwd: self.root.clone(),
            log: self.log_dir.join(format!("postgres-{port}.log")),
            user: self.user,
            // The janitor removes the folder; the server may be stopped and started again.
            remove_on_death: None,
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
                        return Err(HarnessError::Database(format!(
                            "the server exited ({status}): {}",
                            server.log_tail(5)
                        )));
                    }
                    if started.elapsed() > Duration::from_secs(30) {
                        return Err(HarnessError::Database(format!(
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
    pub fn start_server(&mut self) -> Result<(), HarnessError> {
        if self.server.is_some() {
            return Ok(());
        }
        crate::process::ensure_port_free(self.port)?;
        self.spawn_server().map(drop)
    }

    /// [`Cluster::stop_server`] then [`Cluster::start_server`].
    pub fn restart(&mut self) -> Result<(), HarnessError> {
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
fn run_as_user() -> Result<Option<(u32, u32)>, HarnessError> {
    if !nix::unistd::geteuid().is_root() {
        return Ok(None);
    }
    match nix::unistd::User::from_name("postgres") {
        Ok(Some(u)) => Ok(Some((u.uid.as_raw(), u.gid.as_raw()))),
        _ => Err(HarnessError::Database(format!(
            "running as root needs the `postgres` user to own the cluster: apt-get install {SERVER_PACKAGE}"
        ))),
    }
}

/// The 100 seed rows: realistic names, usernames, mails, two-line addresses and birthdates,
/// generated from a fixed seed with a fixed generator (the same on every machine).
pub fn seed_rows() -> Vec<UserRow> {
    const MALE: [&str; 20] = [
        "James",
        "Robert",
        "John",
        "Michael",
        "David",
        "William",
        "Richard",
        "Joseph",
        "Thomas",
        "Charles",
        "Christopher",
        "Daniel",
        "Matthew",
        "Anthony",
        "Mark",
        "Donald",
        "Steven",
        "Paul",
        "Andrew",
        "Joshua",
    ];
    const FEMALE: [&str; 20] = [
        "Mary",
        "Patricia",
        "Jennifer",
        "Linda",
        "Elizabeth",
        "Barbara",
        "Susan",
        "Jessica",
        "Sarah",
        "Karen",
        "Lisa",
        "Nancy",
        "Betty",
        "Margaret",
        "Sandra",
        "Ashley",
        "Kimberly",
        "Emily",
        "Donna",
        "Michelle",
    ];
    const LAST: [&str; 30] = [
        "Smith",
        "Johnson",
        "Williams",
        "Brown",
        "Jones",
        "Garcia",
        "Miller",
        "Davis",
        "Rodriguez",
        "Martinez",
        "Hernandez",
        "Lopez",
        "Gonzalez",
        "Wilson",
        "Anderson",
        "Thomas",
        "Taylor",
        "Moore",
        "Jackson",
        "Martin",
        "Lee",
        "Perez",
        "Thompson",
        "White",
        "Harris",
        "Sanchez",
        "Clark",
        "Ramirez",
        "Lewis",
        "Walker",
    ];
    const STREETS: [&str; 12] = [
        "Debra",
        "Oak",
        "Maple",
        "Cedar",
        "Pine",
        "Elm",
        "Washington",
        "Lake",
        "Hill",
        "Park",
        "Sunset",
        "Ridge",
    ];
    const SUFFIXES: [&str; 8] = [
        "Neck", "Street", "Avenue", "Road", "Lane", "Drive", "Court", "Way",
    ];
    const TOWNS: [&str; 10] = [
        "Lisa", "Port", "East", "West", "North", "Lake", "New", "South", "Fort", "Mount",
    ];
    const TOWN_ENDS: [&str; 6] = ["town", "ville", "burgh", "view", "side", " City"];
    const STATES: [&str; 12] = [
        "OH", "CA", "TX", "NY", "FL", "WA", "IL", "PA", "GA", "NC", "MI", "AZ",
    ];
    const DOMAINS: [&str; 4] = ["gmail.com", "yahoo.com", "hotmail.com", "example.org"];

    let mut rng = SplitMix64(SEED);
    (1..=100)
        .map(|id| {
            let male = rng.below(2) == 0;
            let first = if male {
                MALE[rng.below(20)]
            } else {
                FEMALE[rng.below(20)]
            };
            let last = LAST[rng.below(30)];
            let username = format!(
                "{}{}{}",
                first.to_lowercase(),
                &last[..1].to_lowercase(),
                rng.below(90) + 10
            );
            let mail = format!(
                "{}{}@{}",
                last.to_lowercase(),
                rng.below(900) + 100,
                DOMAINS[rng.below(4)]
            );
            let address = format!(
                "{} {} {}\n{}{}, {} {:05}",
                rng.below(99_000) + 100,
                STREETS[rng.below(12)],
                SUFFIXES[rng.below(8)],
                TOWNS[rng.below(10)],
                TOWN_ENDS[rng.below(6)],
                STATES[rng.below(12)],
                rng.below(89_999) + 10_000
            );
            let birthdate = format!(
                "{}-{:02}-{:02} 00:00:00",
                1940 + rng.below(66),
                rng.below(12) + 1,
                rng.below(28) + 1
            );
            UserRow {
                id,
                username,
                name: format!("{first} {last}"),
                sex: if male { "M" } else { "F" }.into(),
                address,
                mail,
                birthdate,
            }
        })
        .collect()
}

/// The fingerprint of [`seed_rows`] (see [`seed_digest`]): the seed data must be the same on
/// every machine and in every version, or results stop being comparable.
pub const SEED_DIGEST: u64 = 0xe43f_6390_375c_7010;

/// FNV-1a over every field of every row in order (fields end with 0x1f, rows with 0x1e), so
/// two row sets have the same digest only if their whole content is the same.
pub fn seed_digest(rows: &[UserRow]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    for r in rows {
        for field in [
            r.id.to_string().as_str(),
            &r.username,
            &r.name,
            &r.sex,
            &r.address,
            &r.mail,
            &r.birthdate,
        ] {
            feed(field.as_bytes());
            feed(&[0x1f]);
        }
        feed(&[0x1e]);
    }
    h
}

/// A fixed, portable generator (no dependency whose output could change between versions).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_rows_are_stable_and_realistic() {
        let rows = seed_rows();
        assert_eq!(rows.len(), 100);
        assert_eq!(rows, seed_rows());
        assert!(
            rows.iter()
                .all(|r| r.address.contains('\n') && r.mail.contains('@') && r.name.contains(' '))
        );
        assert!(rows.iter().all(|r| r.sex == "M" || r.sex == "F"));
        assert!(
            rows.iter().all(
                |r| crate::verify::normalise_timestamp(&r.birthdate.replace(' ', "T")).is_some()
            )
        );
        // A fingerprint of the generator's output: it must never change between versions.
        let first = &rows[0];
        assert_eq!((first.id, first.username.len() > 3), (1, true));
        let digest: u64 = rows
            .iter()
            .flat_map(|r| r.address.bytes())
            .fold(0xcbf29ce484222325, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
            });
        assert_eq!(digest, ADDRESS_DIGEST, "seed data changed: {digest:#x}");
        let full = seed_digest(&rows);
        assert_eq!(full, SEED_DIGEST, "seed data changed: {full:#x}");
        let mut changed = rows.clone();
        changed[99].mail.push('x');
        assert_ne!(seed_digest(&changed), SEED_DIGEST);
    }

    const ADDRESS_DIGEST: u64 = 0x5f47_aba9_c149_a697;

    #[test]
    fn urls_are_redacted() {
        assert_eq!(
            redact("postgres://u:secret@127.0.0.1:5432/db"),
            "postgres://u:***@127.0.0.1:5432/db"
        );
        assert_eq!(redact("postgres://127.0.0.1/db"), "postgres://127.0.0.1/db");
    }
}
