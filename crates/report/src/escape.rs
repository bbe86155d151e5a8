//! The one escaping rule per output kind, applied where a document's string (a name, a host's
//! CPU model, a reason, a note: anything a results.json or load result carries) enters an
//! output. Documents come from other machines and other hands, so none of their text reaches a
//! renderer raw:
//!
//! - [`html`]: HTML element content and attribute values (`& < > " '` as entities; control
//!   characters and bidirectional overrides as in [`terminal`], line breaks and tabs kept).
//! - [`markdown`]: one line of Markdown (a table cell, a list item, a sentence): line breaks
//!   become spaces, control characters go ([`terminal`]'s rule: report.md is read in terminals
//!   too), the punctuation that makes emphasis, a link, code, a table cell or a heading
//!   (backslash, `|`, backtick, `*`, `#`, and a `]` that would close a link) is
//!   backslash-escaped, and `<`/`>` become entities so nothing becomes HTML.
//! - [`terminal`]: text printed to a terminal: every control character (C0, DEL and
//!   C1: ESC and CSI start the sequences that set a window title, clear the screen or recolour)
//!   and the bidirectional overrides that reorder a line are shown as `�`.
//! - [`csv`]: one CSV field (OWASP's CSV-injection advice,
//!   <https://owasp.org/www-community/attacks/CSV_Injection>): text starting with `=`, `+`,
//!   `-`, `@`, tab or carriage return is prefixed with `'` so a spreadsheet shows it rather than
//!   evaluating it, then fields holding a comma, quote or line break are quoted (RFC 4180).
//!   Numbers restbench formats itself are not text and are written as they are.
//! - [`workflow`] and [`workflow_json`]: whole outputs printed where GitHub Actions reads a
//!   step's lines (<https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands>):
//!   a line that starts (after spaces) with `::`, or holds `##[` anywhere (the older form), would
//!   be run as a workflow command (`::set-env`, `::add-mask`, `##[error]`), so neither survives
//!   but in the gate's own `::error`/`::warning` lines, whose message is escaped GitHub's way
//!   ([`workflow_message`]: `%`, CR and LF as `%25`, `%0D`, `%0A`).
//!
//! A leaf: every renderer uses it and it uses nothing of the crate.

/// Escapes text for HTML element content and attribute values.
pub fn html(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            '\n' | '\t' => o.push(c),
            c if hides(c) => o.push(REPLACEMENT),
            _ => o.push(c),
        }
    }
    o
}

/// Escapes text for one line of Markdown (a table cell, a list item, a sentence).
pub fn markdown(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        // A `]` that would close a link's text (`](url)`, `][ref]`, `]: url`) is escaped;
        // brackets alone stay as they read (`go-nethttp [GOMAXPROCS=1]`).
        let closes_link = c == ']' && matches!(chars.peek(), Some('(' | '[' | ':'));
        match c {
            '\n' | '\r' | '\t' => o.push(' '),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '\\' | '|' | '`' | '*' | '#' => {
                o.push('\\');
                o.push(c);
            }
            ']' if closes_link => o.push_str("\\]"),
            c if hides(c) => o.push(REPLACEMENT),
            _ => o.push(c),
        }
    }
    o
}

/// A text or Markdown output with no line GitHub Actions would run: a line starting with `::`
/// (after spaces) gets `› ` before it, and every `##[` becomes `# #[`. Apply to what is printed,
/// then print restbench's own workflow commands after it.
pub fn workflow(text: &str) -> String {
    let mut o = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_start();
        if body.starts_with("::") {
            o.push_str(&line[..line.len() - body.len()]);
            o.push_str("› ");
            o.push_str(body);
        } else {
            o.push_str(line);
        }
    }
    o.replace("##[", "# #[")
}

/// A JSON document with no line GitHub Actions would run, and the same document: `#` (which
/// JSON has only inside strings) in a `##[` is written `\u0023`; pretty JSON starts no line
/// with `::`.
pub fn workflow_json(json: &str) -> String {
    json.replace("##[", "#\\u0023[")
}

/// The message of a workflow command, escaped GitHub's way: `%`, CR and LF as `%25`, `%0D`,
/// `%0A`, so it stays one line; and `##[` as in [`workflow`].
pub fn workflow_message(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
        .replace("##[", "# #[")
}

/// Makes text safe to print to a terminal.
pub fn terminal(s: &str) -> String {
    if !s.chars().any(hides) {
        return s.to_string();
    }
    s.chars()
        .map(|c| if hides(c) { REPLACEMENT } else { c })
        .collect()
}

/// One CSV field, quoted when it must be.
pub fn csv(s: &str) -> String {
    let guarded = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if guarded.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

/// What [`terminal`] and [`markdown`] show in place of a character they will not pass on.
const REPLACEMENT: char = '\u{fffd}';

/// A control character (C0, DEL, C1), or a bidirectional override or isolate (they reorder what
/// a reader sees: CVE-2021-42574).
fn hides(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_line_of_a_workflow_output_is_a_workflow_command() {
        let text = "ok\n  ::set-env name=A::1\n::error::x\nsay ##[error]y\n";
        let safe = workflow(text);
        assert_eq!(
            safe,
            "ok\n  › ::set-env name=A::1\n› ::error::x\nsay # #[error]y\n"
        );
        let json =
            serde_json::to_string_pretty(&serde_json::json!({"w": "##[error]x\n::e::"})).unwrap();
        let safe = workflow_json(&json);
        assert!(!safe.contains("##["), "{safe}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&safe).unwrap()["w"],
            "##[error]x\n::e::"
        );
        assert_eq!(workflow_message("a%\r\nb"), "a%25%0D%0Ab");
    }

    #[test]
    fn html_escapes_everything_that_matters() {
        assert_eq!(
            html(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(html("plain µs ⇅"), "plain µs ⇅");
    }

    #[test]
    fn markdown_escapes_pipes_newlines_and_tags() {
        assert_eq!(markdown("a|b\n<script>"), "a\\|b &lt;script&gt;");
    }
}
