//! The protocol a cell is measured over: part of a cell's identity beside subject, workload and
//! scenario. `h1` (HTTP/1.1, the seeds' protocol) is the default everywhere, so documents written
//! before protocols existed read as `h1`.

use std::fmt;

/// How the generator talks to a subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Protocol {
    /// HTTP/1.1 over TCP.
    #[default]
    H1,
    /// HTTP/2 over TCP without TLS, with prior knowledge (no Upgrade).
    H2c,
}

/// Every protocol, in report order.
pub const PROTOCOL_ORDER: [Protocol; 2] = [Protocol::H1, Protocol::H2c];

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Self::H1 => "h1",
            Self::H2c => "h2c",
        }
    }

    /// Parses `h1` or `h2c`; the error lists the known names.
    pub fn parse(name: &str) -> Result<Self, String> {
        PROTOCOL_ORDER
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| format!("unknown protocol {name:?} (known: h1, h2c)"))
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// serde default of [`crate::Cell::protocol`].
pub fn default_protocol() -> String {
    Protocol::H1.name().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_listed() {
        for p in PROTOCOL_ORDER {
            assert_eq!(Protocol::parse(p.name()), Ok(p));
        }
        assert!(Protocol::parse("h3").unwrap_err().contains("h1, h2c"));
        assert_eq!(default_protocol(), "h1");
    }
}
