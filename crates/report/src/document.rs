//! Which of restbench's documents a JSON text holds, so that commands taking "a result" accept
//! either kind (`compare` of two runs or of two `load` results). A leaf.

use serde_json::Value;

/// The documents restbench writes that a command might be handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// `results.json` of `run` or `study`.
    Run,
    /// The result of `restbench load --json`.
    Load,
    /// An `--export-json` table: rows for people and spreadsheets, not a result to compare.
    Export,
}

impl DocumentKind {
    /// Tells the kind by the fields only that kind has; `None` for anything else.
    pub fn detect(v: &Value) -> Option<Self> {
        let has = |k: &str| v.get(k).is_some();
        if has("cells") && has("environment") {
            Some(Self::Run)
        } else if has("settings") && has("latency_us") && has("rps") {
            Some(Self::Load)
        } else if has("results") && has("rows_are") {
            Some(Self::Export)
        } else {
            None
        }
    }

    /// What to call it in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Run => "a run's results.json",
            Self::Load => "a `restbench load --json` result",
            Self::Export => "an --export-json table",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_told_by_its_fields() {
        let load = serde_json::to_value(crate::test_support::load_result()).unwrap();
        assert_eq!(DocumentKind::detect(&load), Some(DocumentKind::Load));
        let run = serde_json::to_value(crate::export::table::tests::fixture_run()).unwrap();
        assert_eq!(DocumentKind::detect(&run), Some(DocumentKind::Run));
        let export: Value = serde_json::from_str(&crate::export::json::render(
            &crate::export::table::load(&crate::test_support::load_result()),
        ))
        .unwrap();
        assert_eq!(DocumentKind::detect(&export), Some(DocumentKind::Export));
        assert_eq!(DocumentKind::detect(&serde_json::json!({"a": 1})), None);
        assert_eq!(DocumentKind::detect(&serde_json::json!([1])), None);
    }
}
