//! The words the documents are written in: closed sets whose names are part of the on-disk
//! format, so each is spelled, printed and parsed in one place.
//!
//! [`workload`], [`scenario`], [`protocol`] and [`flag`] are closed sets built by one macro
//! ([`vocabulary!`](macro@crate::vocabulary), in [`names`], with [`UnknownName`](crate::UnknownName));
//! [`cpus`] reads and writes CPU lists, [`time`] UTC timestamps without a calendar crate;
//! [`static_files`] is the `static` workload's tree, its files' bytes and the mix they are
//! loaded in.

pub mod cpus;
pub mod flag;
pub mod names;
pub mod protocol;
pub mod scenario;
pub mod static_files;
pub mod time;
pub mod workload;
