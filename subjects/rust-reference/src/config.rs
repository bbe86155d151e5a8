//! Settings read once from the environment the harness starts us with.

use std::env;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

/// Default pool size when `DB_POOL_SIZE` is unset.
const DEFAULT_POOL_SIZE: usize = 10;

#[derive(Debug, Clone)]
pub struct Config {
    /// `HOST`:`PORT`, default `127.0.0.1:8080`.
    pub addr: SocketAddr,
    /// `WORKERS`: runtime worker threads; `None` keeps the runtime's default.
    pub workers: Option<usize>,
    /// `DATABASE_URL`; without it `/users` answers 503.
    pub database_url: Option<String>,
    /// `DB_POOL_SIZE`: connections in this process's pool.
    pub pool_size: usize,
    /// `STATIC_DIR`: the folder `/static/{file}` serves; without it that route is not served
    /// (404, like any unknown path).
    pub static_dir: Option<PathBuf>,
}

impl Config {
    pub fn from_env() -> Result<Self, String> {
        let host = env::var("HOST").unwrap_or_else(|_| "127.0.0.1".into());
        let port: u16 = parse_var("PORT")?.unwrap_or(8080);
        let addr = (host.as_str(), port)
            .to_socket_addrs()
            .map_err(|e| format!("HOST {host:?}: {e}"))?
            .next()
            .ok_or_else(|| format!("HOST {host:?} resolves to no address"))?;
        let workers = parse_var::<usize>("WORKERS")?.filter(|&n| n > 0);
        let pool_size = parse_var::<usize>("DB_POOL_SIZE")?
            .filter(|&n| n > 0)
            .unwrap_or(DEFAULT_POOL_SIZE);
        let database_url = env::var("DATABASE_URL").ok().filter(|url| !url.is_empty());
        let static_dir = env::var_os("STATIC_DIR").filter(|dir| !dir.is_empty()).map(PathBuf::from);
        Ok(Self { addr, workers, database_url, pool_size, static_dir })
    }
}

/// Parses an optional variable; a present but malformed value is an error.
fn parse_var<T: std::str::FromStr>(name: &str) -> Result<Option<T>, String> {
    match env::var(name) {
        Ok(value) if !value.trim().is_empty() => value
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("{name}={value:?} is not a valid number")),
        _ => Ok(None),
    }
}
