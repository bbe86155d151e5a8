//! The workloads of the contract (DESIGN.md §3): what each request is.

use crate::fixtures;

/// One of the four workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Workload {
    Plaintext,
    Todo,
    Echo,
    Users,
}

impl Workload {
    pub const ALL: [Workload; 4] = [
        Workload::Plaintext,
        Workload::Todo,
        Workload::Echo,
        Workload::Users,
    ];

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.name() == name)
    }

    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|w| w.name()).collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            Workload::Plaintext => "plaintext",
            Workload::Todo => "todo",
            Workload::Echo => "echo",
            Workload::Users => "users",
        }
    }

    pub fn method(self) -> &'static str {
        match self {
            Workload::Echo => "POST",
            _ => "GET",
        }
    }

    pub fn path(self) -> &'static str {
        match self {
            Workload::Plaintext => "/api/test",
            Workload::Todo => "/rest/todo",
            Workload::Echo => "/echo",
            Workload::Users => "/users",
        }
    }

    /// Headers beyond Host that the load sends.
    pub fn headers(self) -> Vec<(String, String)> {
        match self {
            Workload::Echo => vec![("Content-Type".into(), "application/json".into())],
            _ => Vec::new(),
        }
    }

    pub fn body(self) -> Vec<u8> {
        match self {
            Workload::Echo => fixtures::colors_document().into_bytes(),
            _ => Vec::new(),
        }
    }

    /// Needs a database.
    pub fn needs_database(self) -> bool {
        self == Workload::Users
    }
}

impl std::fmt::Display for Workload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
