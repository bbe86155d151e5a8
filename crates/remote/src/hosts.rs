//! Generator hosts as `--loadgen-hosts` takes them: `user@host[:port]`, comma-separated, or
//! `@FILE` with one per line (`#` starts a comment).

use std::fmt;
use std::path::Path;

use super::RemoteError;

/// One SSH destination.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshHost {
    pub user: Option<String>,
    /// A name or an address (IPv6 without brackets).
    pub host: String,
    pub port: Option<u16>,
}

impl SshHost {
    /// Parses `user@host`, `host:port`, `user@[::1]:2222`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        let bad = |why: &str| format!("{t:?} is not user@host[:port]: {why}");
        if t.is_empty() {
            return Err(bad("empty"));
        }
        if t.bytes()
            .any(|b| b.is_ascii_whitespace() || b == b'\'' || b == b'"')
        {
            return Err(bad("spaces and quotes are not allowed"));
        }
        let (user, rest) = match t.rsplit_once('@') {
            Some((u, r)) if !u.is_empty() => (Some(u.to_string()), r),
            Some(_) => return Err(bad("empty user")),
            None => (None, t),
        };
        let port_of = |p: &str| {
            p.parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| bad("the port is not a number from 1 to 65535"))
        };
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let (h, after) = v6.split_once(']').ok_or_else(|| bad("unclosed '['"))?;
            match after.strip_prefix(':') {
                Some(p) => (h.to_string(), Some(port_of(p)?)),
                None if after.is_empty() => (h.to_string(), None),
                None => return Err(bad("text after ']'")),
            }
        } else if rest.matches(':').count() == 1 {
            let (h, p) = rest.split_once(':').unwrap_or((rest, ""));
            (h.to_string(), Some(port_of(p)?))
        } else {
            (rest.to_string(), None)
        };
        if host.is_empty() || host.starts_with('-') {
            return Err(bad("no host"));
        }
        Ok(Self { user, host, port })
    }

    /// `user@host` as ssh takes it (the port goes to `-p`).
    pub fn destination(&self) -> String {
        match &self.user {
            Some(u) => format!("{u}@{}", self.host),
            None => self.host.clone(),
        }
    }

    /// `user@host:` as scp takes it (IPv6 in brackets).
    pub fn scp_prefix(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        match &self.user {
            Some(u) => format!("{u}@{host}:"),
            None => format!("{host}:"),
        }
    }
}

impl fmt::Display for SshHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if let Some(u) = &self.user {
            write!(f, "{u}@")?;
        }
        match self.port {
            Some(p) => write!(f, "{host}:{p}"),
            None => f.write_str(&host),
        }
    }
}

/// The first address `host` (a name or an address) resolves to here: where the load goes when
/// a server or database runs on that ssh host.
pub fn resolve_address(host: &str) -> Option<std::net::IpAddr> {
    use std::net::ToSocketAddrs;
    if let Ok(ip) = host.parse() {
        return Some(ip);
    }
    (host, 0).to_socket_addrs().ok()?.next().map(|a| a.ip())
}

/// The most a `@FILE` of hosts may hold (a host a line: far more hosts than any run uses).
pub const HOSTS_FILE_LIMIT: u64 = 1 << 20;

/// An error and its causes on one line, `a: b`.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// `a,b,c` or `@FILE`; at least one host, none twice.
pub fn parse_hosts(spec: &str) -> Result<Vec<SshHost>, RemoteError> {
    let text = match spec.strip_prefix('@') {
        Some(path) => restbench_model::documents::io::read_limited_string(
            Path::new(path),
            HOSTS_FILE_LIMIT,
            "the hosts file",
        )
        .map_err(|e| RemoteError::Hosts(error_chain(&e)))?,
        None => spec.replace(',', "\n"),
    };
    let mut hosts: Vec<SshHost> = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let h = SshHost::parse(line).map_err(RemoteError::Hosts)?;
        if hosts.contains(&h) {
            return Err(RemoteError::Hosts(format!(
                "{h} is listed twice: give each host once (one shard runs per host)"
            )));
        }
        hosts.push(h);
    }
    if hosts.is_empty() {
        return Err(RemoteError::Hosts("no host given".into()));
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_parse_with_users_ports_and_ipv6() {
        let h = SshHost::parse("bench@10.0.0.2:2222").unwrap();
        assert_eq!(
            (h.user.as_deref(), h.host.as_str(), h.port),
            (Some("bench"), "10.0.0.2", Some(2222))
        );
        assert_eq!(h.destination(), "bench@10.0.0.2");
        assert_eq!(h.to_string(), "bench@10.0.0.2:2222");
        let v6 = SshHost::parse("root@[fd00::2]:22").unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("fd00::2", Some(22)));
        assert_eq!(v6.scp_prefix(), "root@[fd00::2]:");
        assert_eq!(SshHost::parse("gen1").unwrap().port, None);
        for bad in ["", "@h", "h:0", "h:x", "-oProxyCommand=x", "a b", "[::1"] {
            assert!(SshHost::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn addresses_resolve_or_parse() {
        assert_eq!(
            resolve_address("10.0.0.7"),
            Some("10.0.0.7".parse().unwrap())
        );
        assert_eq!(resolve_address("fd00::2"), Some("fd00::2".parse().unwrap()));
        assert!(resolve_address("localhost").is_some());
    }

    #[test]
    fn lists_and_files() {
        let hosts = parse_hosts("a@h1, h2:2200").unwrap();
        assert_eq!(hosts.len(), 2);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hosts");
        std::fs::write(&file, "# generators\na@h1\n\nh2:2200  # second\n").unwrap();
        assert_eq!(parse_hosts(&format!("@{}", file.display())).unwrap(), hosts);
        let twice = parse_hosts("h1,h1").unwrap_err().to_string();
        assert!(twice.contains("listed twice"), "{twice}");
        assert!(parse_hosts(" , ").is_err());
        assert!(
            parse_hosts("@/nonexistent/hosts")
                .unwrap_err()
                .to_string()
                .contains("cannot read")
        );
    }
}
