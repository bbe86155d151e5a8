//! The report crate's integration tests, one binary (it links once, as ripgrep's do).

mod browser;
mod history_browser;
mod profiles;
