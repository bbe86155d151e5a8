//! Escaping for the two markup languages the reports write. A leaf: every renderer uses it and
//! it uses nothing of the crate.

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
            _ => o.push(c),
        }
    }
    o
}

/// Escapes text for one line of Markdown (a table cell, a list item): pipes, newlines, and the
/// angle brackets a renderer would take for HTML.
pub fn markdown(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('\n', " ")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

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
