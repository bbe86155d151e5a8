//! An aligned terminal table: columns two spaces apart, figures right-aligned, no trailing
//! spaces; [`TextTable::fit`] narrows it into a width by cutting text columns and dropping the
//! least important ones, as the caller ranks them.

/// Which side of its column a value keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One column: its heading, alignment, and what [`TextTable::fit`] may do to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub head: &'static str,
    pub align: Align,
    /// 0: never dropped; columns of a rank named in a [`Sacrifice::Drop`] go when space runs out.
    pub drop_rank: u8,
    /// A text column that may be cut (with `…`) down to this width (never below its heading);
    /// 0 for a column never cut.
    pub min_width: usize,
    /// Left out whatever the width when no row has a value in it.
    pub omitted_when_empty: bool,
}

impl Column {
    /// A column of text.
    pub const fn left(head: &'static str) -> Self {
        Self {
            head,
            align: Align::Left,
            drop_rank: 0,
            min_width: 0,
            omitted_when_empty: false,
        }
    }

    /// A column of figures.
    pub const fn right(head: &'static str) -> Self {
        Self {
            align: Align::Right,
            ..Self::left(head)
        }
    }

    /// Dropped by a [`Sacrifice::Drop`] of this rank.
    pub const fn drop_rank(self, rank: u8) -> Self {
        Self {
            drop_rank: rank,
            ..self
        }
    }

    /// May be cut down to `width` characters as the last resort.
    pub const fn min_width(self, width: usize) -> Self {
        Self {
            min_width: width,
            ..self
        }
    }

    /// Left out when every row leaves it empty.
    pub const fn omitted_when_empty(self) -> Self {
        Self {
            omitted_when_empty: true,
            ..self
        }
    }
}

/// One step of narrowing a table, taken only while it is wider than asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sacrifice {
    /// Cut column `column` to at most `width` characters (never below its heading).
    Narrow { column: usize, width: usize },
    /// Drop the columns of this rank, one at a time from the left, until the table fits.
    Drop(u8),
}

/// A table fitted into a width: its lines, and the headings of the columns it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    pub lines: Vec<String>,
    pub dropped: Vec<&'static str>,
}

/// Rows of values under a heading line, one value per column.
#[derive(Debug, Clone)]
pub struct TextTable<'a> {
    columns: &'a [Column],
    rows: Vec<Vec<String>>,
}

fn len(s: &str) -> usize {
    s.chars().count()
}

impl<'a> TextTable<'a> {
    /// Every value is a single line that reaches a terminal: [`crate::escape::terminal`] is
    /// applied here, so no document string a cell holds can move the cursor or recolour.
    pub fn new(columns: &'a [Column], mut rows: Vec<Vec<String>>) -> Self {
        for value in rows.iter_mut().flatten() {
            *value = crate::escape::terminal(value);
        }
        Self { columns, rows }
    }

    /// The heading line, then one line per row, every column at its widest value.
    pub fn lines(&self) -> Vec<String> {
        Layout::natural(self).lines(self)
    }

    /// The lines fitted into `width` characters: the sacrifices in order while the table is too
    /// wide, then the columns with a [`Column::min_width`] cut to it, rightmost first. A table
    /// that cannot fit even so keeps every column no sacrifice names.
    pub fn fit(&self, width: usize, sacrifices: &[Sacrifice]) -> Fitted {
        let mut layout = Layout::natural(self);
        for sacrifice in sacrifices {
            match *sacrifice {
                Sacrifice::Narrow { column, width: cap } => {
                    if layout.total() > width {
                        let floor = cap.max(len(self.columns[column].head));
                        layout.widths[column] = layout.widths[column].min(floor);
                    }
                }
                Sacrifice::Drop(rank) => layout.drop_rank(self.columns, rank, width),
            }
        }
        layout.cut_to_minimum(self.columns, width);
        let dropped = self
            .columns
            .iter()
            .filter(|c| layout.dropped.contains(&c.head))
            .map(|c| c.head)
            .collect();
        Fitted {
            lines: layout.lines(self),
            dropped,
        }
    }
}

/// Which columns show, and how wide each is.
struct Layout {
    widths: Vec<usize>,
    shown: Vec<bool>,
    dropped: Vec<&'static str>,
}

impl Layout {
    fn natural(t: &TextTable<'_>) -> Self {
        let widths = (0..t.columns.len())
            .map(|i| {
                t.rows
                    .iter()
                    .map(|r| len(&r[i]))
                    .chain([len(t.columns[i].head)])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let shown = (0..t.columns.len())
            .map(|i| !(t.columns[i].omitted_when_empty && t.rows.iter().all(|r| r[i].is_empty())))
            .collect();
        Self {
            widths,
            shown,
            dropped: Vec::new(),
        }
    }

    /// The width of a line: the shown columns and two spaces between each.
    fn total(&self) -> usize {
        let n = self.shown.iter().filter(|s| **s).count();
        (0..self.widths.len())
            .filter(|i| self.shown[*i])
            .map(|i| self.widths[i])
            .sum::<usize>()
            + 2 * n.saturating_sub(1)
    }

    fn drop_rank(&mut self, columns: &[Column], rank: u8, width: usize) {
        for (i, c) in columns.iter().enumerate() {
            if c.drop_rank == rank && self.shown[i] && self.total() > width {
                self.shown[i] = false;
                self.dropped.push(c.head);
            }
        }
    }

    fn cut_to_minimum(&mut self, columns: &[Column], width: usize) {
        for i in (0..columns.len()).rev() {
            let over = self.total().saturating_sub(width);
            if columns[i].min_width > 0 && over > 0 && self.shown[i] {
                let floor = columns[i].min_width.max(len(columns[i].head));
                self.widths[i] = self.widths[i]
                    .saturating_sub(over)
                    .max(floor.min(self.widths[i]));
            }
        }
    }

    fn lines(&self, t: &TextTable<'_>) -> Vec<String> {
        let head: Vec<String> = t.columns.iter().map(|c| c.head.to_string()).collect();
        [&head]
            .into_iter()
            .chain(&t.rows)
            .map(|r| self.line(t.columns, r))
            .collect()
    }

    fn line(&self, columns: &[Column], values: &[String]) -> String {
        let visible: Vec<usize> = (0..columns.len()).filter(|i| self.shown[*i]).collect();
        let mut s = String::new();
        for (k, &i) in visible.iter().enumerate() {
            let v = cut(&values[i], self.widths[i]);
            let pad = " ".repeat(self.widths[i].saturating_sub(len(&v)));
            if k > 0 {
                s.push_str("  ");
            }
            match columns[i].align {
                Align::Right => {
                    s.push_str(&pad);
                    s.push_str(&v);
                }
                Align::Left => {
                    s.push_str(&v);
                    if k + 1 < visible.len() {
                        s.push_str(&pad);
                    }
                }
            }
        }
        s.truncate(s.trim_end().len());
        s
    }
}

/// Cuts `s` to `width` characters, ending in `…` when something was cut.
pub fn cut(s: &str, width: usize) -> String {
    if len(s) <= width {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Breaks `text` into lines of at most `width` characters at spaces (a longer word is cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(10);
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let needed = len(&current) + usize::from(!current.is_empty()) + len(word);
        if !current.is_empty() && needed > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&cut(word, width));
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLUMNS: [Column; 3] = [
        Column::left("name").min_width(4),
        Column::right("n"),
        Column::right("extra").drop_rank(1),
    ];

    fn table() -> TextTable<'static> {
        TextTable::new(
            &COLUMNS,
            vec![
                vec!["a-long-name".into(), "1".into(), "x".into()],
                vec!["b".into(), "1,000".into(), "y".into()],
            ],
        )
    }

    #[test]
    fn figures_align_right_and_text_left_with_no_trailing_space() {
        assert_eq!(
            table().lines(),
            [
                "name             n  extra",
                "a-long-name      1      x",
                "b            1,000      y",
            ]
        );
    }

    #[test]
    fn a_narrow_table_drops_its_ranked_columns_then_cuts_text() {
        let f = table().fit(14, &[Sacrifice::Drop(1)]);
        assert_eq!(f.dropped, ["extra"]);
        assert_eq!(
            f.lines,
            ["name         n", "a-long…      1", "b        1,000"]
        );
        for l in &f.lines {
            assert!(l.chars().count() <= 14, "{l:?}");
        }
    }
}
