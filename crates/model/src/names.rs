//! The error of parsing a name of the shared vocabulary (workload, scenario, flag).

/// A name that is not one of the known ones; the message lists those.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {name:?} (known: {known})")]
pub struct UnknownName {
    pub kind: &'static str,
    pub name: String,
    pub known: String,
}

impl UnknownName {
    pub fn new(kind: &'static str, name: &str, known: &[&str]) -> Self {
        Self {
            kind,
            name: name.to_string(),
            known: known.join(", "),
        }
    }
}
