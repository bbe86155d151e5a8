//! The protocol a cell is measured over: part of a cell's identity beside subject, workload and
//! scenario. `h1` (HTTP/1.1, the seeds' protocol) is the default everywhere, so documents written
//! before protocols existed read as `h1`.

/// How the generator talks to a subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Protocol {
    /// HTTP/1.1 over TCP.
    #[default]
    H1,
    /// HTTP/2 over TCP without TLS, with prior knowledge (no Upgrade).
    H2c,
}

crate::vocabulary!(Protocol, "protocol", {
    H1 => "h1",
    H2c => "h2c",
});

/// Every protocol, in report order (the same as [`Protocol::ALL`]).
pub const PROTOCOL_ORDER: [Protocol; 2] = Protocol::ALL;

/// serde default of [`crate::Cell::protocol`].
pub fn default_protocol() -> String {
    Protocol::H1.name().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_listed() {
        for p in Protocol::ALL {
            assert_eq!(p.name().parse::<Protocol>(), Ok(p));
            assert_eq!(Protocol::parse(p.name()), Some(p));
        }
        let e = "h3".parse::<Protocol>().unwrap_err().to_string();
        assert_eq!(e, "unknown protocol \"h3\" (known: h1, h2c)");
        assert_eq!(default_protocol(), "h1");
    }
}
