//! A fortunes page, normalised as TechEmpower's verifier normalises it before comparing
//! (`toolset/test_types/fortune/fortune_html_parser.py` in TechEmpower/FrameworkBenchmarks):
//! tags reduced to their lowercased names, attributes and comments dropped, whitespace-only
//! text dropped, `'`, `"` and `>` in text spelled `&apos;`, `&quot;`, `&gt;`, the numeric
//! references of those characters (and of `<`, `+`, `/`, `(`, `)`) spelled one way, `&mdash;`
//! as the character, `<meta>`, `<link>`, `<thead>`, `<tbody>` and `<script>` elements
//! dropped, and a line break after `<html>`, `<table>`, `</head>` and each `</tr>`. Written
//! from that file's rules, not translated from it.

/// The normalised form of `html`.
pub fn normalise(html: &str) -> String {
    let mut out = Normalised::default();
    let mut rest = html;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
        } else if let Some(after) = rest.strip_prefix("<!") {
            let end = after.find('>').unwrap_or(after.len());
            out.push(&format!("<!{}>", after[..end].to_lowercase()));
            rest = after.get(end + 1..).unwrap_or("");
        } else if rest.starts_with('<') && tag_follows(rest) {
            let end = rest.find('>').unwrap_or(rest.len());
            let inner = &rest[1..end];
            rest = rest.get(end + 1..).unwrap_or("");
            let (closing, inner) = match inner.strip_prefix('/') {
                Some(i) => (true, i),
                None => (false, inner),
            };
            let self_closing = inner.ends_with('/');
            let name: String = inner
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect::<String>()
                .to_lowercase();
            if closing {
                out.end_tag(&name);
            } else {
                out.start_tag(&name);
                if self_closing {
                    out.end_tag(&name);
                } else if name == "script" || name == "style" {
                    // Raw text up to the closing tag, as an HTML parser reads it.
                    let close = format!("</{name}");
                    let end = rest.to_ascii_lowercase().find(&close).unwrap_or(rest.len());
                    out.text(&rest[..end]);
                    rest = &rest[end..];
                }
            }
        } else if rest.starts_with('&')
            && let Some((reference, after)) = reference(rest)
        {
            out.reference(reference);
            rest = after;
        } else {
            let first = rest.chars().next().map_or(1, char::len_utf8);
            let end = rest[first..]
                .find(['<', '&'])
                .map_or(rest.len(), |i| i + first);
            out.text(&rest[..end]);
            rest = &rest[end..];
        }
    }
    out.body
}

/// True when `<` opens a tag (a letter or `/` follows), as HTML parsers read it.
fn tag_follows(s: &str) -> bool {
    s[1..]
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '/')
}

/// `&…;` at the start of `s`: the reference's name (`#34`, `quot`) and the rest.
fn reference(s: &str) -> Option<(&str, &str)> {
    let end = s.find(';')?;
    let name = &s[1..end];
    let valid = match name.strip_prefix('#') {
        Some(num) => !num.is_empty() && num.chars().all(|c| c.is_ascii_alphanumeric()),
        None => !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()),
    };
    valid.then(|| (name, &s[end + 1..]))
}

/// The normalised page as it is built, with the state of a `<script>` being dropped.
#[derive(Default)]
struct Normalised {
    body: String,
    in_script: bool,
}

impl Normalised {
    fn start_tag(&mut self, name: &str) {
        self.push(&format!("<{name}>"));
        if name == "table" || name == "html" {
            self.push("\n");
        }
    }

    fn end_tag(&mut self, name: &str) {
        self.push(&format!("</{name}>"));
        if name == "tr" || name == "head" {
            self.push("\n");
        }
    }

    fn text(&mut self, data: &str) {
        if !data.trim().is_empty() {
            let data = data
                .replace('\'', "&apos;")
                .replace('"', "&quot;")
                .replace('>', "&gt;");
            self.push(&data);
        }
    }

    /// A character or entity reference, one spelling each; numeric references of other
    /// characters vanish, as in TechEmpower's parser.
    fn reference(&mut self, name: &str) {
        let Some(num) = name.strip_prefix('#') else {
            let out = if name == "mdash" {
                "—".to_string()
            } else {
                format!("&{name};")
            };
            return self.push(&out);
        };
        let num = num.to_lowercase();
        let code = match num.strip_prefix('x') {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => num.parse::<u32>().ok(),
        };
        let spelled = match code {
            Some(34) => "&quot;",
            Some(39) => "&apos;",
            Some(43) => "+",
            Some(62) => "&gt;",
            Some(60) => "&lt;",
            Some(47) => "/",
            Some(40) => "(",
            Some(41) => ")",
            _ => return,
        };
        self.push(spelled);
    }

    fn push(&mut self, item: &str) {
        const IGNORED: [&str; 10] = [
            "<meta>",
            "</meta>",
            "<link>",
            "</link>",
            "<script>",
            "</script>",
            "<thead>",
            "</thead>",
            "<tbody>",
            "</tbody>",
        ];
        self.in_script = item == "<script>" || (self.in_script && item != "</script>");
        if !(self.in_script || IGNORED.contains(&item)) {
            self.body.push_str(item);
        }
    }
}

/// The page TechEmpower expects for `rows` (id, message), in the normalised form: the rows as
/// given (the caller sorts them), messages escaped.
pub fn expected(rows: &[(i32, String)]) -> String {
    let mut page = String::from(
        "<!doctype html><html>\n<head><title>Fortunes</title></head>\n<body><table>\n\
         <tr><th>id</th><th>message</th></tr>\n",
    );
    for (id, message) in rows {
        let message = message
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&apos;");
        page.push_str(&format!("<tr><td>{id}</td><td>{message}</td></tr>\n"));
    }
    page.push_str("</table></body></html>");
    page
}

/// The `(id, message)` rows of a normalised page, messages as spelled there.
pub fn rows(normalised: &str) -> Vec<(String, String)> {
    normalised
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("<tr><td>")?.strip_suffix("</td></tr>")?;
            let (id, message) = l.split_once("</td><td>")?;
            Some((id.to_string(), message.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROWS: [(i32, &str); 3] = [
        (11, "<script>alert(\"x\");</script>"),
        (2, "aren't"),
        (6, "UNIX. — Tom"),
    ];

    fn rows_of(r: &[(i32, &str)]) -> Vec<(i32, String)> {
        r.iter().map(|(i, m)| (*i, m.to_string())).collect()
    }

    #[test]
    fn spellings_that_differ_only_in_escaping_normalise_alike() {
        let want = expected(&rows_of(&ROWS));
        let pages = [
            // Every character escaped by name, with indentation and attributes.
            "<!DOCTYPE html>\n<html>\n  <head><meta charset=\"utf-8\"><title>Fortunes</title></head>\n  <body>\n    <table class=\"f\">\n      <tr><th>id</th><th>message</th></tr>\n      <tr><td>11</td><td>&lt;script&gt;alert(&quot;x&quot;);&lt;/script&gt;</td></tr>\n      <tr><td>2</td><td>aren&#39;t</td></tr>\n      <tr><td>6</td><td>UNIX. &mdash; Tom</td></tr>\n    </table>\n  </body>\n</html>\n",
            // Numeric references and quotes left as they are in text.
            "<!doctype html><html><head><title>Fortunes</title></head><body><table><tbody><tr><th>id</th><th>message</th></tr><tr><td>11</td><td>&#60;script&#62;alert(&#34;x&#34;);&lt;&#x2f;script></td></tr><tr><td>2</td><td>aren't</td></tr><tr><td>6</td><td>UNIX. — Tom</td></tr></tbody></table></body></html>",
        ];
        for page in pages {
            assert_eq!(normalise(page), want, "{page}");
        }
        assert_eq!(rows(&want).len(), 3);
        assert_eq!(rows(&want)[1], ("2".into(), "aren&apos;t".into()));
    }

    #[test]
    fn an_unescaped_script_is_dropped_so_the_page_differs() {
        let page = "<!doctype html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr><tr><td>11</td><td><script>alert(\"x\");</script></td></tr></table></body></html>";
        let got = normalise(page);
        assert!(got.contains("<tr><td>11</td><td></td></tr>"), "{got}");
        assert_ne!(got, expected(&rows_of(&ROWS[..1])));
    }

    #[test]
    fn hostile_pages_never_panic() {
        for page in [
            "<",
            "&",
            "&#;",
            "&#xzz;",
            "<!",
            "<!--",
            "<a",
            "</",
            "é<é&é;",
            "<script>",
            "<td>&#99999999999;",
        ] {
            let _ = normalise(page);
        }
    }
}
