//! Terminal output, one module per job: `restbench ab` and the gate ([`mod@ab`]), a load run in wrk's shape ([`load`]), the fitted cell
//! table of a run ([`cells`]), the comparisons ([`mod@comparison`]) and `restbench conformance`
//! ([`mod@conformance`]), all aligned by one
//! [`TextTable`] ([`table`]). The lines a comparison shares with its Markdown are in
//! [`crate::lines`].

pub mod ab;
pub mod cells;
pub mod comparison;
pub mod conformance;
pub mod load;
pub mod table;

pub use cells::{DEFAULT_WIDTH, cell_table, table_width};
pub use comparison::{comparison, load_comparison};
pub use conformance::conformance;
pub use load::load_report;
pub use table::{Align, Column, Fitted, Sacrifice, TextTable};
