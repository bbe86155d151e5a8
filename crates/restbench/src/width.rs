//! The width human-facing lines must fit: `COLUMNS`, else the terminal's, else 80; and long
//! lines broken to it with a hanging indent. report.md and the exports keep their wide forms.

use std::io::IsTerminal;

/// The width of stderr's terminal (progress and notes go there): `COLUMNS`, else the terminal's
/// when stderr is one, else the default (80).
pub fn stderr_width() -> usize {
    let stderr = std::io::stderr();
    let tty = if stderr.is_terminal() {
        terminal_size::terminal_size_of(&stderr).map(|(w, _)| w.0)
    } else {
        None
    };
    restbench_report::text::table_width(std::env::var("COLUMNS").ok().as_deref(), tty)
}

/// `line` broken at spaces into lines of at most `width` characters; the lines after the first
/// are indented by `indent` spaces, so that they read as the first one's continuation. A word
/// longer than a line (a path, a URL) is kept whole: cut, it could not be copied.
pub fn hanging(line: &str, width: usize, indent: usize) -> Vec<String> {
    let lead = line.len() - line.trim_start().len();
    let mut lines = Vec::new();
    let mut current = line[..lead].to_string();
    let mut has_word = false;
    for word in line[lead..].split(' ') {
        let needed = current.chars().count() + usize::from(has_word) + word.chars().count();
        if has_word && needed > width {
            lines.push(std::mem::replace(
                &mut current,
                " ".repeat(indent.max(lead)),
            ));
            has_word = false;
        }
        if has_word {
            current.push(' ');
        }
        current.push_str(word);
        has_word = true;
    }
    lines.push(current);
    lines
}

#[cfg(test)]
mod tests {
    use super::hanging;

    #[test]
    fn a_long_line_continues_indented_within_the_width() {
        let line =
            "  tool      a version line that goes on and on well past the edge of the terminal";
        let lines = hanging(line, 40, 12);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(lines[0].starts_with("  tool"), "{lines:?}");
        for l in &lines[1..] {
            assert!(l.starts_with(&" ".repeat(12)), "{l:?}");
        }
        for l in &lines {
            assert!(l.chars().count() <= 40, "{l:?}");
        }
        assert_eq!(hanging("short", 40, 4), ["short"]);
    }
}
