//! Flags: what a reader must see beside a cell's figures. Each flag's name, severity and
//! explanation are defined here once; the runner raises them and every report explains them from
//! here, so a renamed flag cannot drop out of a legend.
//!
//! In `results.json` a cell's flags are plain strings (the [`Flag::name`]s), so documents written
//! by older or newer versions with flags this version does not know still read.

use serde::{Deserialize, Serialize};

/// How much a flag weakens a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Read the figure with care.
    Caution,
    /// The figure does not measure what the scenario promised (requests failed, the CPU limit did
    /// not hold).
    Severe,
}

/// One flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    ClientBound,
    WarmupUnsettled,
    Noisy,
    LimitNotHeld,
    VerificationWarnings,
    Errors,
    /// Failed a conformance case of level fail (`restbench conformance`).
    Nonconformant,
    /// In most of its rounds neither the server nor the generator used its CPU: another process
    /// took it. Shown, never ranked.
    Contended,
    /// Some connections got no answer in a slice: the server served some connections and left
    /// the others waiting (one keep-alive connection at a time).
    StarvedConnections,
    /// The server's memory rose through every slice of the cell, by half again and by at least
    /// 64 MiB: it keeps what it is sent (a leak, an unbounded cache), so a longer run would
    /// measure a bigger, slower server, or none.
    MemoryGrowing,
    /// A `delay` cell's fastest answer came sooner than the wait it asked for: the server
    /// skipped the wait under load (the verifier's requests found it waiting).
    AnsweredEarly,
}

crate::vocabulary!(Flag, "flag", {
    ClientBound => "client_bound",
    WarmupUnsettled => "warmup_unsettled",
    Noisy => "noisy",
    LimitNotHeld => "limit_not_held",
    VerificationWarnings => "verification_warnings",
    Errors => "errors",
    Nonconformant => "nonconformant",
    Contended => "contended",
    StarvedConnections => "starved_connections",
    MemoryGrowing => "memory_growing",
    AnsweredEarly => "answered_early",
});

impl Flag {
    pub const fn severity(self) -> Severity {
        match self {
            Flag::Errors
            | Flag::LimitNotHeld
            | Flag::Nonconformant
            | Flag::Contended
            | Flag::AnsweredEarly => Severity::Severe,
            _ => Severity::Caution,
        }
    }

    /// What the flag means, in full, for a report's legend.
    pub const fn legend(self) -> &'static str {
        match self {
            Flag::ClientBound => {
                "The load generator saturated its CPUs or came within 10 % of its calibrated ceiling: the server might have done more, so the figure is a floor."
            }
            Flag::WarmupUnsettled => {
                "The rate was still climbing when the warm-up reached its cap (a JIT still compiling): the figure understates the warmed-up server."
            }
            Flag::Noisy => {
                "The repeats vary by more than 10 % (coefficient of variation): read the median with care."
            }
            Flag::LimitNotHeld => {
                "The scenario's CPU limit was not held: the server used more CPU than its cap, or the cap could not be enforced."
            }
            Flag::VerificationWarnings => {
                "The verifier found deviations from the workload contract that do not fail the cell (see the findings)."
            }
            Flag::Errors => {
                "Some requests failed (connect, read, write, timeout, status or parse errors)."
            }
            Flag::Nonconformant => {
                "The server failed a conformance case (a request split across reads, Connection: close, HTTP/1.0, framing): its figure may come from reading HTTP in a way real clients would break, so it is shown but ranked apart."
            }
            Flag::Contended => {
                "In most of its rounds neither the server used its CPU allowance nor the generator its CPUs: another process on the machine took the CPU, so the figure is nobody's. It is re-measured in later rounds; when it stays so it is shown but never ranked."
            }
            Flag::StarvedConnections => {
                "Some of the generator's connections got no answer during a slice (the server served others and left them waiting, such as one keep-alive connection at a time): req/s is what the served connections got, and the requests left waiting count at their age, so the p99 may be a floor (≥)."
            }
            Flag::MemoryGrowing => {
                "The server's memory rose through every slice of the cell, to at least 1.5 times the first slice's and by at least 64 MiB: it keeps what it is sent (a leak or an unbounded cache), so a longer run would measure a bigger server, or one killed at its memory limit."
            }
            Flag::AnsweredEarly => {
                "Under load, some answers of a delay cell came sooner than the wait they asked for: the server skipped its wait, so the figure measures a server doing less than the workload asks."
            }
        }
    }

    /// What the flag means, in a short clause for one-line legends (Markdown).
    pub const fn summary(self) -> &'static str {
        match self {
            Flag::ClientBound => {
                "the load generator saturated its CPUs or came within 10 % of its calibrated ceiling, so the figure is a floor for the server"
            }
            Flag::WarmupUnsettled => "the rate was still climbing when the warm-up reached its cap",
            Flag::Noisy => "the repeats vary by more than 10 %",
            Flag::LimitNotHeld => "the scenario's CPU limit was not held",
            Flag::VerificationWarnings => "see the findings",
            Flag::Errors => "some requests failed",
            Flag::Nonconformant => "the server failed a conformance case, so it is ranked apart",
            Flag::Contended => {
                "neither the server nor the generator used its CPU (another process took it), so it is not ranked"
            }
            Flag::StarvedConnections => {
                "some connections got no answer during a slice, so the p99 may be a floor"
            }
            Flag::MemoryGrowing => "the server's memory kept growing through the cell's slices",
            Flag::AnsweredEarly => "some answers came before the wait they asked for",
        }
    }
}

/// Every flag with its legend text, in legend order.
pub fn legend() -> impl Iterator<Item = (Flag, &'static str)> {
    Flag::ALL.into_iter().map(|f| (f, f.legend()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_has_a_name_a_legend_and_a_summary() {
        for f in Flag::ALL {
            assert_eq!(Flag::parse(f.name()), Some(f));
            assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{f}\""));
            assert!(!f.legend().is_empty() && !f.summary().is_empty());
        }
        assert_eq!(legend().count(), Flag::ALL.len());
        assert_eq!(Flag::Errors.severity(), Severity::Severe);
        assert_eq!(Flag::Noisy.severity(), Severity::Caution);
        assert!(Flag::parse("from_the_future").is_none());
    }
}
