//! Where a run's servers run: here, or on a server host over ssh (`--server-host`). Chosen once
//! for a run, so the run loop never asks again.

use std::sync::Arc;

use crate::HarnessError;
use crate::serve::remote_server::ServerHost;
use crate::serve::start::StartOptions;
use crate::subject::Subject;
use crate::subject::prepare::{self, Prepared};

/// Where subjects are built, started and sampled, and what is left to clean up there.
pub trait ServerLocation {
    /// Why `subject` cannot be served there before anything is tried, if so.
    fn unavailable(&self, subject: &Subject) -> Option<String>;
    /// Builds the subject there (cached by its folder's hash).
    fn prepare(&self, subject: &Subject, options: &StartOptions) -> Result<Prepared, HarnessError>;
    /// The options servers start with there (the start itself is
    /// [`start_subject`](crate::serve::start_subject), which samples as it starts).
    fn start_options<'a>(&'a self, here: StartOptions<'a>) -> StartOptions<'a>;
    /// Removes what the subject left there once it is done, however it ended.
    fn cleanup(&self, subject: &Subject);
    /// The host's name, recorded in every cell served elsewhere.
    fn host_name(&self) -> Option<String>;
}

/// This machine: the subject's toolchain must be here.
pub struct Here;

impl ServerLocation for Here {
    fn unavailable(&self, subject: &Subject) -> Option<String> {
        subject.unavailable_reason()
    }
    fn prepare(&self, subject: &Subject, options: &StartOptions) -> Result<Prepared, HarnessError> {
        prepare::prepare(subject, options.cache)
    }
    fn start_options<'a>(&'a self, here: StartOptions<'a>) -> StartOptions<'a> {
        StartOptions {
            remote: None,
            ..here
        }
    }
    fn cleanup(&self, _subject: &Subject) {}
    fn host_name(&self) -> Option<String> {
        None
    }
}

/// A server host over ssh: the subject is copied there, built with the toolchain there (its
/// build step says when one is missing), started, sampled and removed.
pub struct OverSsh(pub Arc<ServerHost>);

impl ServerLocation for OverSsh {
    fn unavailable(&self, _subject: &Subject) -> Option<String> {
        None
    }
    fn prepare(&self, subject: &Subject, _: &StartOptions) -> Result<Prepared, HarnessError> {
        match self.0.prepare(subject)? {
            Some(seconds) => Ok(Prepared::Built { seconds }),
            None => Ok(Prepared::Cached),
        }
    }
    fn start_options<'a>(&'a self, here: StartOptions<'a>) -> StartOptions<'a> {
        StartOptions {
            remote: Some(&self.0),
            ..here
        }
    }
    fn cleanup(&self, subject: &Subject) {
        self.0.remove_subject(&subject.id);
    }
    fn host_name(&self) -> Option<String> {
        Some(self.0.name())
    }
}
