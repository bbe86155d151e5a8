//! What restbench writes to disk or prints with `--json`, how it is read back, and the bounds a
//! read document is checked against before anything is computed or allocated from it.
//!
//! - The documents: [`run`] (`results.json`), [`load`] (`load --json`, with its open-loop
//!   [`capacity`] search and a ramp's [`overload`] profile), [`ab`] (`ab --json`), [`history`] (a stored cell read back),
//!   [`comparison`] (`compare --json`), [`conformance`] (how each subject reads HTTP), [`profile`]
//!   (a cell's profiling slice), [`outputs`] (the smaller `--json` outputs: verify, subjects,
//!   doctor, and the envelope that versions another document), [`published`] (the seed
//!   studies' published figures, as data) and [`tfb`] (TechEmpower's test types and Round 23's
//!   figures for `study tfb`, as data).
//! - Reading and writing them: [`io`] (bounded reads, atomic writes, the version check),
//!   [`validate`] (the shared checks each document's [`Document::validate`] is made of),
//!   [`merge`] (several generators' load results merged into one, exactly) and [`histogram`]
//!   (latency histograms encoded, and decoded within bounds).

pub mod ab;
pub mod capacity;
pub mod comparison;
pub mod conformance;
pub mod histogram;
pub mod history;
pub mod io;
pub mod load;
pub mod merge;
pub mod outputs;
pub mod overload;
pub mod profile;
pub mod published;
pub mod run;
pub mod tfb;
pub mod validate;

use validate::Invalid;

/// A top-level document: one written whole, to a file or to stdout. Its version travels with
/// it, so that a document from a newer restbench is refused in one line instead of misread, and
/// its checks stand beside its type, so that no reader can forget them.
pub trait Document {
    /// The `schema_version` written into this document, and the highest one read back; bumped
    /// on any incompatible change to it. Every document is at 1, as it has always been.
    const SCHEMA_VERSION: u32;

    /// Whether what was read keeps the bounds everything computed from it relies on. Only
    /// documents whose counts, series or histograms size an allocation have anything to check.
    fn validate(&self) -> Result<(), Invalid> {
        Ok(())
    }
}

/// A borrowed document is the same document ([`outputs::Versioned::new`] of a reference).
impl<T: Document + ?Sized> Document for &T {
    const SCHEMA_VERSION: u32 = T::SCHEMA_VERSION;

    fn validate(&self) -> Result<(), Invalid> {
        (**self).validate()
    }
}
