//! Terminal output, one module per job: `restbench ab` and the gate ([`mod@ab`]), a load run
//! in wrk's shape ([`load`]), the fitted cell table of a run ([`cells`]) and the rankings of its
//! groups measured in rounds ([`mod@rankings`]), the comparisons ([`mod@comparison`]), `restbench
//! conformance` ([`mod@conformance`]) and a profile as `restbench profile` prints it ([`profile`]),
//! all aligned by one
//! [`TextTable`] ([`table`]). The lines a comparison shares with its Markdown are in
//! [`crate::lines`].

pub mod ab;
pub mod cells;
pub mod comparison;
pub mod conformance;
pub mod load;
pub mod profile;
pub mod rankings;
pub mod table;

pub use cells::{DEFAULT_WIDTH, cell_table, table_width};
pub use comparison::{comparison, comparison_at, load_comparison, load_comparison_at};
pub use conformance::conformance;
pub use load::load_report;
pub use rankings::rankings;
pub use table::{Align, Column, Fitted, Sacrifice, TextTable};
