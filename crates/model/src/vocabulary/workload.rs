//! The four workloads of the contract, in the order reports show them.
//!
//! Each workload is one request shape that every subject answers the same way; the full contract
//! (payloads, status codes, limits) is described in `docs/workloads.md`.

use serde::{Deserialize, Serialize};

/// One of the four workloads. `Ord` is the order reports show them in (the order of [`ALL`]).
///
/// [`ALL`]: Workload::ALL
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    Plaintext,
    Todo,
    Echo,
    Users,
}

crate::vocabulary!(Workload, "workload", {
    Plaintext => "plaintext",
    Todo => "todo",
    Echo => "echo",
    Users => "users",
});

impl Workload {
    /// The position in report order; a name that is not a workload sorts last.
    pub fn rank(name: &str) -> usize {
        Self::parse(name).map_or(Self::ALL.len(), |w| w as usize)
    }

    pub const fn method(self) -> &'static str {
        match self {
            Workload::Echo => "POST",
            _ => "GET",
        }
    }

    pub const fn path(self) -> &'static str {
        match self {
            Workload::Plaintext => "/api/test",
            Workload::Todo => "/rest/todo",
            Workload::Echo => "/echo",
            Workload::Users => "/users",
        }
    }

    /// True when serving it needs the PostgreSQL database.
    pub const fn needs_database(self) -> bool {
        matches!(self, Workload::Users)
    }

    /// One line for a reader: the request, the answer, and the seed study it comes from.
    pub const fn about(self) -> &'static str {
        match self {
            Workload::Plaintext => "GET /api/test → the 13-byte text Hello, World! (seed d)",
            Workload::Todo => {
                "GET /rest/todo → 8 todo items serialized as JSON on every request (seed b)"
            }
            Workload::Echo => {
                "POST /echo of the 4.2 KB colors JSON, parsed and serialized back (seed a)"
            }
            Workload::Users => {
                "GET /users → 100 rows read from PostgreSQL through a pool, as JSON (seed c)"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_order_is_the_report_order() {
        for w in Workload::ALL {
            assert_eq!(w.name().parse::<Workload>().unwrap(), w);
            assert_eq!(serde_json::to_string(&w).unwrap(), format!("\"{w}\""));
        }
        let mut sorted = Workload::ALL;
        sorted.sort();
        assert_eq!(sorted, Workload::ALL);
        assert_eq!(Workload::rank("echo"), 2);
        assert_eq!(Workload::rank("fortunes"), 4);
        let e = "fortunes".parse::<Workload>().unwrap_err().to_string();
        assert!(
            e.contains("fortunes") && e.contains("plaintext, todo, echo, users"),
            "{e}"
        );
    }
}
