//! restbench's exporters: the same results as terminal text, Markdown and HTML.
//!
//! Everything here is a pure function of the model's documents, so a report can be rendered again
//! from `results.json` at any time (`restbench report DIR`).

pub mod markdown;
pub mod text;
pub mod units;
