//! Terminal output, one module per job: a load run in wrk's shape ([`load`]), the fitted cell
//! table of a run ([`cells`]), and the comparisons ([`mod@comparison`]), all aligned by one
//! [`TextTable`] ([`table`]). The lines a comparison shares with its Markdown are in
//! [`crate::lines`].

pub mod cells;
pub mod comparison;
pub mod load;
pub mod table;

pub use cells::{DEFAULT_WIDTH, cell_table, table_width};
pub use comparison::{comparison, load_comparison};
pub use load::load_report;
pub use table::{Align, Column, Fitted, Sacrifice, TextTable};
