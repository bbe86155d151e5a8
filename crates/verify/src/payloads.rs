//! The seed studies' payloads, reproduced exactly from their public repositories (which ones, and
//! what each workload takes from them: `docs/workloads.md`).

/// The 8 todo titles of seed 002, in order.
pub const TODO_TITLES: [&str; 8] = [
    "Do some stuff",
    "Do more stuff",
    "Even more stuff",
    "Yihaa",
    "Java is great! Or isn't it?",
    "Foo Bar",
    "Lorem ipsum",
    "Dolor sit amet",
];

/// The plaintext answer of seed 004.
pub const HELLO: &str = "Hello, World!";

/// One entry of `colors.json`: name, category, type (white has none), rgba, hex.
type Color = (
    &'static str,
    &'static str,
    Option<&'static str>,
    [u8; 4],
    &'static str,
);

/// The six colours of `colors.json`.
const COLORS: [Color; 6] = [
    ("black", "hue", Some("primary"), [255, 255, 255, 1], "#000"),
    ("white", "value", None, [0, 0, 0, 1], "#FFF"),
    ("red", "hue", Some("primary"), [255, 0, 0, 1], "#FF0"),
    ("blue", "hue", Some("primary"), [0, 0, 255, 1], "#00F"),
    ("yellow", "hue", Some("primary"), [255, 255, 0, 1], "#FF0"),
    ("green", "hue", Some("secondary"), [0, 255, 0, 1], "#0F0"),
];

/// The body seed 000's `post.lua` posts: `{"colors": [...]}` with the six colours four times,
/// pretty-printed and indented as in the Lua long string (a leading newline, two extra spaces):
/// 4,266 bytes, 2,200 bytes compact.
pub fn colors_document() -> String {
    colors_document_with(4, |_, name| name.to_string())
}

/// A colours document with `repeat` copies of the six colours; `rename(i, name)` renames the
/// i-th entry (the verifier varies bodies to catch cached answers).
pub fn colors_document_with(repeat: usize, rename: impl Fn(usize, &str) -> String) -> String {
    let mut entries = Vec::new();
    for r in 0..repeat {
        for (j, (name, category, kind, rgba, hex)) in COLORS.iter().enumerate() {
            let mut e = format!(
                "      {{\n        \"color\": \"{}\",\n        \"category\": \"{category}\",\n",
                rename(r * COLORS.len() + j, name)
            );
            if let Some(kind) = kind {
                e.push_str(&format!("        \"type\": \"{kind}\",\n"));
            }
            e.push_str(&format!(
                "        \"code\": {{\n          \"rgba\": [{},{},{},{}],\n          \"hex\": \"{hex}\"\n        }}\n      }}",
                rgba[0], rgba[1], rgba[2], rgba[3]
            ));
            entries.push(e);
        }
    }
    format!(
        "\n  {{\n    \"colors\": [\n{}\n    ]\n  }}\n",
        entries.join(",\n")
    )
}

/// Seed 003's Caesar cipher: key 14 on every code point up to 127, wrapping by 26 past 127;
/// characters above 127 are left alone.
pub fn caesar(text: &str) -> String {
    text.chars()
        .map(|c| {
            let mut n = c as u32;
            if n <= 127 {
                n += 14;
                if n > 127 {
                    n -= 26;
                }
            }
            char::from_u32(n).unwrap_or(c)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colors_document_matches_seed_000() {
        let doc = colors_document();
        assert_eq!(doc.len(), 4266);
        assert!(doc.starts_with("\n  {\n    \"colors\": ["));
        let v: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap().len(), 2200);
        let colors = v["colors"].as_array().unwrap();
        assert_eq!(colors.len(), 24);
        assert_eq!(colors.iter().filter(|c| c.get("type").is_none()).count(), 4);
        assert!(
            colors
                .iter()
                .filter(|c| c.get("type").is_none())
                .all(|c| c["color"] == "white")
        );
    }

    #[test]
    fn caesar_matches_the_seed_example() {
        assert_eq!(
            caesar("38908 Debra Neck\nNew Lisatown, OH 45098"),
            "AFG>F.Rspfo.\\sqy\u{18}\\sk.Zwgoh}k|:.]V.BC>GF"
        );
        assert_eq!(caesar("é"), "é");
    }
}
