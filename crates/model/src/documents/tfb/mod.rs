//! TechEmpower's Framework Benchmarks as `restbench study tfb` sets them beside its own figures:
//! the seven test types in the order TechEmpower's results site showed them, and Round 23's
//! published figures for the frameworks restbench also has, as data (`round23.json`, beside this
//! file), each with its public source and its firmness.
//!
//! Round 23 was TFB's last round (the project was archived in March 2026), so the figures are
//! fixed; they are read from the committed file, checked before use, so that a figure without a
//! source or a subject mapped twice is refused in one line naming the field, not rendered.

use serde::Deserialize;

use crate::Workload;

/// The committed Round 23 figures (`crates/model/src/documents/tfb/round23.json`).
pub const ROUND23_FILE: &str = "crates/model/src/documents/tfb/round23.json";
const ROUND23_TEXT: &str = include_str!("round23.json");

/// One of TechEmpower's seven test types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TfbTest {
    Json,
    Db,
    Queries,
    CachedQueries,
    Fortunes,
    Updates,
    Plaintext,
}

impl TfbTest {
    /// The seven, in the order of the tabs of TechEmpower's results site (JSON serialization,
    /// Single query, Multiple queries, Cached queries, Fortunes, Data updates, Plaintext).
    pub const SITE_ORDER: [TfbTest; 7] = [
        TfbTest::Json,
        TfbTest::Db,
        TfbTest::Queries,
        TfbTest::CachedQueries,
        TfbTest::Fortunes,
        TfbTest::Updates,
        TfbTest::Plaintext,
    ];

    /// The name in `round23.json`: the restbench workload's name.
    pub fn name(self) -> &'static str {
        self.workload().name()
    }

    /// The restbench workload that serves this type.
    pub fn workload(self) -> Workload {
        match self {
            TfbTest::Json => Workload::Json,
            TfbTest::Db => Workload::Db,
            TfbTest::Queries => Workload::Queries,
            TfbTest::CachedQueries => Workload::CachedQueries,
            TfbTest::Fortunes => Workload::Fortunes,
            TfbTest::Updates => Workload::Updates,
            TfbTest::Plaintext => Workload::Plaintext,
        }
    }

    /// The workload label of this type's cells in a `study tfb` run: plaintext is pipelined
    /// [`crate::TFB_PIPELINE`] deep as TFB loaded it, so its cells are `plaintext-pipelined-16`.
    pub fn cell_label(self) -> String {
        self.workload().cell_label(crate::TFB_PIPELINE)
    }

    /// The section title TechEmpower's site gave the type.
    pub fn title(self) -> &'static str {
        match self {
            TfbTest::Json => "JSON serialization",
            TfbTest::Db => "Single query",
            TfbTest::Queries => "Multiple queries",
            TfbTest::CachedQueries => "Cached queries",
            TfbTest::Fortunes => "Fortunes",
            TfbTest::Updates => "Data updates",
            TfbTest::Plaintext => "Plaintext",
        }
    }

    /// What each request asks for under load here and in Round 23's headline figure.
    pub fn load(self) -> String {
        match self {
            TfbTest::Queries => format!("{} queries per request", crate::TFB_QUERIES),
            TfbTest::Updates => format!("{} rows read and updated per request", crate::TFB_QUERIES),
            TfbTest::CachedQueries => {
                format!("{} cached rows per request", crate::TFB_CACHED_COUNT)
            }
            TfbTest::Plaintext => format!("pipelined {} deep", crate::TFB_PIPELINE),
            _ => "one request at a time per connection".to_string(),
        }
    }

    /// The type named `name` (a workload name), if it is one of the seven.
    pub fn parse(name: &str) -> Option<TfbTest> {
        Self::SITE_ORDER.into_iter().find(|t| t.name() == name)
    }
}

/// How firm a published figure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Firmness {
    /// Computed from the run's raw results and confirmed by a second independent document or by
    /// the framework's own documentation.
    F,
    /// Computed from the run's raw results by one document only.
    F1,
    /// Secondary: one article, or read off a screenshot.
    S,
    /// Contradicted or unreliable.
    X,
}

impl Firmness {
    pub fn name(self) -> &'static str {
        match self {
            Firmness::F => "F",
            Firmness::F1 => "F1",
            Firmness::S => "S",
            Firmness::X => "X",
        }
    }

    /// What the letter means, for a report's legend.
    pub fn meaning(self) -> &'static str {
        match self {
            Firmness::F => "computed from the raw results and confirmed by a second source",
            Firmness::F1 => "computed from the raw results by one source",
            Firmness::S => "secondary (one article or a screenshot)",
            Firmness::X => "contradicted or unreliable",
        }
    }
}

/// One Round 23 figure: a framework's best successful req/s in one test type.
#[derive(Debug, Clone, PartialEq)]
pub struct Round23Figure {
    pub test: TfbTest,
    pub rps: f64,
    /// A public URL the figure can be checked at.
    pub source: String,
    pub firmness: Firmness,
    pub note: Option<String>,
}

/// A restbench subject and the Round 23 framework it stands for, with its figures or why it has
/// none.
#[derive(Debug, Clone, PartialEq)]
pub struct Round23Subject {
    pub subject: String,
    /// The framework's name in Round 23; `None` when TFB had no entry for it.
    pub framework: Option<String>,
    /// Which of the framework's TFB entries the figures come from, when that is not just its name.
    pub entries: Option<String>,
    pub figures: Vec<Round23Figure>,
    /// Why a subject has no figure (set exactly when `figures` is empty).
    pub no_figure: Option<String>,
}

impl Round23Subject {
    /// Its figure in one test type.
    pub fn figure(&self, test: TfbTest) -> Option<&Round23Figure> {
        self.figures.iter().find(|f| f.test == test)
    }
}

/// Round 23 as `study tfb` uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct Round23 {
    pub round: u32,
    pub results_url: String,
    pub raw_data_url: String,
    pub raw_data_sha256: String,
    pub announcement_url: String,
    /// Round 23's machines, in a sentence.
    pub hardware: String,
    pub hardware_source: String,
    /// The queries per request of the queries and updates figures (TFB's headline level).
    pub queries: u32,
    pub subjects: Vec<Round23Subject>,
}

impl Round23 {
    /// A subject's mapping, if the file has one.
    pub fn subject(&self, id: &str) -> Option<&Round23Subject> {
        self.subjects.iter().find(|s| s.subject == id)
    }

    /// Why a subject has no figure in `test`: the file's reason, or that Round 23 published
    /// none for this type, or that the file does not name the subject.
    pub fn why_no_figure(&self, id: &str, test: TfbTest) -> String {
        match self.subject(id) {
            None => "no Round 23 figure: no TFB framework is mapped to this subject".into(),
            Some(s) => match (&s.no_figure, &s.framework) {
                (Some(why), _) => format!("no Round 23 figure: {why}"),
                (None, Some(f)) => {
                    format!(
                        "no Round 23 figure: none was found for {f} in {}",
                        test.title()
                    )
                }
                (None, None) => "no Round 23 figure".into(),
            },
        }
    }
}

/// A malformed Round 23 file: which file, which field, and why, in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {field}: {reason}")]
pub struct Round23Error {
    pub file: String,
    pub field: String,
    pub reason: String,
}

/// The committed Round 23 figures. The file is checked by a unit test, so this cannot fail on a
/// built restbench; the `Result` keeps a bad edit a one-line error rather than a panic.
pub fn round23() -> Result<Round23, Round23Error> {
    parse_round23(ROUND23_FILE, ROUND23_TEXT)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    #[allow(dead_code)]
    about: String,
    round: u32,
    results_url: String,
    raw_data_url: String,
    raw_data_sha256: String,
    announcement_url: String,
    hardware: String,
    hardware_source: String,
    queries: u32,
    subjects: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSubject {
    subject: String,
    framework: Option<String>,
    entries: Option<String>,
    #[serde(default)]
    figures: Vec<serde_json::Value>,
    no_figure: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFigure {
    test: String,
    rps: f64,
    source: String,
    firmness: Firmness,
    note: Option<String>,
}

/// Reads and checks a Round 23 file's text: every URL public (`https://`), every figure a
/// positive finite req/s of a known type with a source and a firmness, one figure per type per
/// subject, each subject once, and a subject without figures saying why.
pub fn parse_round23(file: &str, text: &str) -> Result<Round23, Round23Error> {
    let fail = |field: &str, reason: String| Round23Error {
        file: file.to_string(),
        field: field.to_string(),
        reason,
    };
    let first_line = |e: serde_json::Error| {
        let text = e.to_string();
        text.lines().next().unwrap_or_default().to_string()
    };
    let raw: RawFile = serde_json::from_str(text).map_err(|e| fail("(document)", first_line(e)))?;
    for (field, url) in [
        ("results_url", &raw.results_url),
        ("raw_data_url", &raw.raw_data_url),
        ("announcement_url", &raw.announcement_url),
        ("hardware_source", &raw.hardware_source),
    ] {
        check_url(url).map_err(|reason| fail(field, reason))?;
    }
    if raw.hardware.trim().is_empty() {
        return Err(fail("hardware", "is empty".into()));
    }
    let mut subjects: Vec<Round23Subject> = Vec::new();
    for (i, value) in raw.subjects.into_iter().enumerate() {
        let at = format!("subjects[{i}]");
        let s: RawSubject = serde_json::from_value(value).map_err(|e| fail(&at, first_line(e)))?;
        if s.subject.trim().is_empty() {
            return Err(fail(&format!("{at}.subject"), "is empty".into()));
        }
        if subjects.iter().any(|o| o.subject == s.subject) {
            return Err(fail(
                &format!("{at}.subject"),
                format!("{:?} is mapped twice", s.subject),
            ));
        }
        let mut figures: Vec<Round23Figure> = Vec::new();
        for (j, value) in s.figures.into_iter().enumerate() {
            let at = format!("{at}.figures[{j}]");
            let f: RawFigure =
                serde_json::from_value(value).map_err(|e| fail(&at, first_line(e)))?;
            let test = TfbTest::parse(&f.test).ok_or_else(|| {
                fail(
                    &format!("{at}.test"),
                    format!("{:?} is not one of TFB's seven test types", f.test),
                )
            })?;
            if figures.iter().any(|o| o.test == test) {
                return Err(fail(
                    &format!("{at}.test"),
                    format!("a second {} figure for {}", f.test, s.subject),
                ));
            }
            if !(f.rps.is_finite() && f.rps > 0.0) {
                return Err(fail(
                    &format!("{at}.rps"),
                    format!("{} is not a positive number of requests per second", f.rps),
                ));
            }
            check_url(&f.source).map_err(|reason| fail(&format!("{at}.source"), reason))?;
            figures.push(Round23Figure {
                test,
                rps: f.rps,
                source: f.source,
                firmness: f.firmness,
                note: f.note,
            });
        }
        match (figures.is_empty(), &s.no_figure) {
            (true, None) => {
                return Err(fail(
                    &format!("{at}.no_figure"),
                    "a subject without figures must say why it has none".into(),
                ));
            }
            (false, Some(_)) => {
                return Err(fail(
                    &format!("{at}.no_figure"),
                    "given beside figures: a subject has figures or a reason, not both".into(),
                ));
            }
            _ => {}
        }
        if !figures.is_empty() && s.framework.is_none() {
            return Err(fail(
                &format!("{at}.framework"),
                "figures need the Round 23 framework they belong to".into(),
            ));
        }
        subjects.push(Round23Subject {
            subject: s.subject,
            framework: s.framework,
            entries: s.entries,
            figures,
            no_figure: s.no_figure,
        });
    }
    Ok(Round23 {
        round: raw.round,
        results_url: raw.results_url,
        raw_data_url: raw.raw_data_url,
        raw_data_sha256: raw.raw_data_sha256,
        announcement_url: raw.announcement_url,
        hardware: raw.hardware,
        hardware_source: raw.hardware_source,
        queries: raw.queries,
        subjects,
    })
}

/// A public source: an `https://` URL with a host, nothing local.
fn check_url(url: &str) -> Result<(), String> {
    let Some(rest) = url.strip_prefix("https://") else {
        return Err(format!("{url:?} is not a public https:// URL"));
    };
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() || !host.contains('.') || url.chars().any(char::is_whitespace) {
        return Err(format!("{url:?} is not a public https:// URL"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_file_reads_and_every_figure_has_a_public_source() {
        let r = round23().unwrap();
        assert_eq!(r.round, 23);
        assert_eq!(r.queries, crate::TFB_QUERIES);
        assert!(r.hardware.contains("56 logical cores") && r.hardware.contains("40 GbE"));
        let figures: Vec<&Round23Figure> = r.subjects.iter().flat_map(|s| &s.figures).collect();
        assert!(figures.len() > 30, "{}", figures.len());
        for f in figures {
            assert!(f.source.starts_with("https://"), "{f:?}");
        }
        // The mapping the study reports: hyper and axum have figures, actix says why not.
        let hyper = r.subject("rust-hyper").unwrap();
        assert_eq!(hyper.framework.as_deref(), Some("hyper"));
        assert_eq!(hyper.figure(TfbTest::Json).unwrap().rps, 2_885_610.0);
        assert_eq!(r.subject("rust-axum").unwrap().figures.len(), 6);
        assert_eq!(
            r.subject("go-fasthttp").unwrap().framework.as_deref(),
            Some("fasthttp")
        );
        assert!(
            r.why_no_figure("rust-actix", TfbTest::Json)
                .contains("Problem starting actix")
        );
        assert!(
            r.why_no_figure("rust-hyper", TfbTest::Db)
                .contains("none was found for hyper in Single query")
        );
        assert!(
            r.why_no_figure("nobody", TfbTest::Db)
                .contains("no TFB framework")
        );
    }

    #[test]
    fn types_follow_the_site_and_plaintext_is_pipelined() {
        assert_eq!(TfbTest::SITE_ORDER[0].title(), "JSON serialization");
        assert_eq!(TfbTest::Plaintext.cell_label(), "plaintext-pipelined-16");
        assert_eq!(TfbTest::Queries.cell_label(), "queries");
        assert_eq!(
            TfbTest::parse("cached-queries"),
            Some(TfbTest::CachedQueries)
        );
        assert_eq!(TfbTest::parse("todo"), None);
        assert!(TfbTest::Queries.load().starts_with("20 queries"));
    }

    fn with_figure(figure: &str) -> String {
        format!(
            r#"{{"round": 23, "results_url": "https://a.example/r", "raw_data_url": "https://a.example/d",
            "raw_data_sha256": "00", "announcement_url": "https://a.example/i", "hardware": "56 cores",
            "hardware_source": "https://a.example/h", "queries": 20,
            "subjects": [{{"subject": "rust-axum", "framework": "axum", "figures": [{figure}]}}]}}"#
        )
    }

    fn error_of(text: &str) -> String {
        let e = parse_round23("round23.json", text).unwrap_err().to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        e
    }

    #[test]
    fn a_malformed_file_names_the_file_the_field_and_the_reason() {
        let ok =
            r#"{"test": "json", "rps": 1.0, "source": "https://a.example/r", "firmness": "F"}"#;
        assert!(parse_round23("round23.json", &with_figure(ok)).is_ok());
        let cases = [
            (
                r#"{"test": "json", "rps": 1.0, "firmness": "F"}"#,
                "round23.json: subjects[0].figures[0]: missing field `source`",
            ),
            (
                r#"{"test": "json", "rps": 1.0, "source": "/work/notes.md", "firmness": "F"}"#,
                "round23.json: subjects[0].figures[0].source: \"/work/notes.md\" is not a public https:// URL",
            ),
            (
                r#"{"test": "json", "rps": 0.0, "source": "https://a.example/r", "firmness": "F"}"#,
                "round23.json: subjects[0].figures[0].rps: 0 is not a positive number",
            ),
            (
                r#"{"test": "todo", "rps": 1.0, "source": "https://a.example/r", "firmness": "F"}"#,
                "round23.json: subjects[0].figures[0].test: \"todo\" is not one of TFB's seven",
            ),
            (
                r#"{"test": "json", "rps": 1.0, "source": "https://a.example/r", "firmness": "Z"}"#,
                "round23.json: subjects[0].figures[0]: unknown variant `Z`",
            ),
        ];
        for (figure, want) in cases {
            let got = error_of(&with_figure(figure));
            assert!(got.starts_with(want), "{got}\nwanted {want}");
        }
        let twice = format!("{ok}, {ok}");
        assert!(error_of(&with_figure(&twice)).contains("figures[1].test: a second json figure"));
        let no_reason = with_figure(ok).replace(&format!("[{ok}]"), "[]");
        assert!(error_of(&no_reason).contains("subjects[0].no_figure: a subject without figures"));
        assert!(error_of("{").starts_with("round23.json: (document): EOF"));
    }
}
