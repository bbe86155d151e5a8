//! Files that several subjects carry as identical copies stay identical.
//!
//! Every subject is a self-contained program that builds from its own folder, so code shared by
//! subjects of one language is copied rather than linked. A change to the contract must then reach
//! every copy; this test fails when one copy differs from the first of its group, naming both files
//! and the first line where they part. Where only a region of a file is shared (the Go handlers
//! next to framework-specific routing), each copy marks it with a `restbench:shared begin` line and
//! a `restbench:shared end` line, and only the lines between them are compared.
//!
//! Copies that differ on purpose stay out of the table: rust-reference's `model.rs` and `db.rs`
//! borrow from the request and the row instead of allocating, rust-iron's `db.rs` is synchronous,
//! go-nethttp-dynamic decodes the echo body into `interface{}`.

use std::path::{Path, PathBuf};

/// What of each file in a group is compared.
#[derive(Clone, Copy, Debug)]
enum Part {
    /// The whole file.
    Whole,
    /// The lines between the `restbench:shared begin` and `restbench:shared end` lines.
    Marked,
}

use Part::{Marked, Whole};
use restbench_testkit::turn;

/// Copies meant to be identical: (what they are, which part, paths under `subjects/`).
/// Adding a group is one line.
#[rustfmt::skip]
const GROUPS: &[(&str, Part, &[&str])] = &[
    ("Node config, todo list, users query and cipher", Whole, &["node-http/common.js", "node-pm2/common.js", "node-express/common.js", "node-koa/common.js", "node-hapi/common.js", "node-fastify/common.js"]),
    ("Node TechEmpower queries and cache", Whole, &["node-http/tfb.js", "node-pm2/tfb.js", "node-express/tfb.js", "node-koa/tfb.js", "node-hapi/tfb.js", "node-fastify/tfb.js"]),
    ("Node fortunes template", Whole, &["node-http/views/fortunes.ejs", "node-pm2/views/fortunes.ejs", "node-express/views/fortunes.ejs", "node-koa/views/fortunes.ejs", "node-hapi/views/fortunes.ejs", "node-fastify/views/fortunes.ejs"]),
    ("Node cluster launcher", Whole, &["node-http/cluster.js", "node-express/cluster.js", "node-koa/cluster.js", "node-hapi/cluster.js", "node-fastify/cluster.js"]),
    ("Rust payload types and cipher", Whole, &["rust-hyper/src/model.rs", "rust-axum/src/model.rs", "rust-actix/src/model.rs", "rust-iron/src/model.rs"]),
    ("Rust configuration from the environment", Whole, &["rust-hyper/src/config.rs", "rust-axum/src/config.rs", "rust-actix/src/config.rs", "rust-iron/src/config.rs", "rust-reference/src/config.rs"]),
    ("Rust async PostgreSQL pool", Whole, &["rust-hyper/src/db.rs", "rust-axum/src/db.rs", "rust-actix/src/db.rs"]),
    ("Rust TechEmpower types over the async pool", Whole, &["rust-hyper/src/tfb.rs", "rust-axum/src/tfb.rs", "rust-actix/src/tfb.rs"]),
    ("Rust fortunes template", Whole, &["rust-hyper/templates/fortunes.html", "rust-axum/templates/fortunes.html", "rust-actix/templates/fortunes.html"]),
    ("Go handlers, payload types and pool", Marked, &["go-nethttp/main.go", "go-chi/main.go", "go-gorilla/main.go"]),
    ("Go TechEmpower types over net/http handlers", Whole, &["go-nethttp/tfb.go", "go-chi/tfb.go", "go-gorilla/tfb.go", "go-nethttp-dynamic/tfb.go"]),
    ("Go fortunes template", Whole, &["go-nethttp/templates/fortunes.html", "go-chi/templates/fortunes.html", "go-gorilla/templates/fortunes.html", "go-nethttp-dynamic/templates/fortunes.html", "go-easyjson/templates/fortunes.html", "go-fasthttp/templates/fortunes.html"]),
    ("Go gzip wrapper for net/http", Whole, &["go-nethttp/gzip.go", "go-nethttp-dynamic/gzip.go", "go-easyjson/gzip.go"]),
    ("Go easyjson payload types", Whole, &["go-easyjson/model/model.go", "go-fasthttp/model/model.go"]),
    ("uvicorn ASGI application", Whole, &["python-uvicorn/app.py", "python-uvicorn-uvloop/app.py"]),
    ("uvicorn request-head limit", Whole, &["python-uvicorn/h1limit.py", "python-uvicorn-uvloop/h1limit.py"]),
    ("Python TechEmpower types over asyncpg", Whole, &["python-uvicorn/tfb.py", "python-uvicorn-uvloop/tfb.py", "python-aiohttp/tfb.py", "python-sanic/tfb.py"]),
    ("Python TechEmpower types over psycopg", Whole, &["python-flask/tfb.py", "python-gunicorn/tfb.py"]),
    ("Python fortunes template", Whole, &["python-uvicorn/templates/fortunes.html", "python-uvicorn-uvloop/templates/fortunes.html", "python-aiohttp/templates/fortunes.html", "python-sanic/templates/fortunes.html", "python-flask/templates/fortunes.html", "python-gunicorn/templates/fortunes.html"]),
    ("Java payload types", Whole, &["java-spring-boot/src/main/java/restbench/Model.java", "java-jersey-grizzly/src/main/java/restbench/Model.java", "java-light4j/src/main/java/restbench/Model.java"]),
    ("Java mustache.java fortunes template", Whole, &["java-jersey-grizzly/src/main/resources/templates/fortunes.mustache", "java-light4j/src/main/resources/templates/fortunes.mustache"]),
];

const BEGIN: &str = "restbench:shared begin";
const END: &str = "restbench:shared end";

fn subjects_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../subjects")
}

/// The compared lines of `path` as `(line number, text)`, or what is wrong with the file.
fn compared_lines(path: &Path, part: Part) -> Result<Vec<(usize, String)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.to_string()));
    match part {
        Whole => Ok(lines.collect()),
        Marked => {
            let all: Vec<(usize, String)> = lines.collect();
            let at = |marker: &str| -> Result<usize, String> {
                let found: Vec<usize> = (0..all.len())
                    .filter(|&i| all[i].1.contains(marker))
                    .collect();
                match found[..] {
                    [i] => Ok(i),
                    [] => Err(format!(
                        "{}: no `{marker}` line; mark the shared region with a `{BEGIN}` and a `{END}` comment line",
                        path.display()
                    )),
                    _ => Err(format!(
                        "{}: `{marker}` appears {} times; a file has one shared region",
                        path.display(),
                        found.len()
                    )),
                }
            };
            let (begin, end) = (at(BEGIN)?, at(END)?);
            if end < begin {
                return Err(format!(
                    "{}: `{END}` (line {}) comes before `{BEGIN}` (line {})",
                    path.display(),
                    all[end].0,
                    all[begin].0
                ));
            }
            Ok(all[begin + 1..end].to_vec())
        }
    }
}

/// `None` when the copies' compared parts are identical, else a message that names both files
/// and the first line where they differ.
fn first_difference(
    group: &str,
    part: Part,
    (a, a_path): (&str, &Path),
    (b, b_path): (&str, &Path),
) -> Result<Option<String>, String> {
    let (la, lb) = (compared_lines(a_path, part)?, compared_lines(b_path, part)?);
    let show = |line: Option<&(usize, String)>| match line {
        Some((n, text)) => format!("line {n}: {text}"),
        None => "(ends here)".to_string(),
    };
    let at =
        (0..la.len().max(lb.len())).find(|&i| la.get(i).map(|l| &l.1) != lb.get(i).map(|l| &l.1));
    Ok(at.map(|i| {
        let region = match part {
            Whole => String::new(),
            Marked => format!(" (in the region between `{BEGIN}` and `{END}`)"),
        };
        format!(
            "{group}: {b} differs from {a}{region}\n  {a} {}\n  {b} {}",
            show(la.get(i)),
            show(lb.get(i)),
        )
    }))
}

#[test]
fn copies_shared_by_subjects_are_identical() {
    let _turn = turn::take(module_path!());
    let root = subjects_root();
    let mut problems = Vec::new();
    for &(group, part, files) in GROUPS {
        assert!(files.len() >= 2, "{group}: a group needs two files or more");
        let (first, rest) = files.split_first().unwrap();
        for other in rest {
            let (a, b) = (format!("subjects/{first}"), format!("subjects/{other}"));
            match first_difference(
                group,
                part,
                (&a, &root.join(first)),
                (&b, &root.join(other)),
            ) {
                Ok(None) => {}
                Ok(Some(difference)) => problems.push(difference),
                Err(e) => problems.push(format!("{group}: {e}")),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "copies that must stay identical differ; make the same change in every file of the \
         group:\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_difference_names_both_files_and_the_first_differing_line() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.js"), dir.path().join("b.js"));
    std::fs::write(&a, "one\ntwo\nthree\n").unwrap();
    std::fs::write(&b, "one\nTWO\nthree\n").unwrap();
    let message = first_difference("g", Whole, ("x/a.js", &a), ("y/b.js", &b))
        .unwrap()
        .expect("a difference");
    assert!(message.contains("y/b.js differs from x/a.js"), "{message}");
    assert!(message.contains("x/a.js line 2: two"), "{message}");
    assert!(message.contains("y/b.js line 2: TWO"), "{message}");

    // A copy that is only shorter differs where it ends.
    std::fs::write(&b, "one\ntwo\n").unwrap();
    let message = first_difference("g", Whole, ("x/a.js", &a), ("y/b.js", &b))
        .unwrap()
        .expect("a difference");
    assert!(message.contains("y/b.js (ends here)"), "{message}");
}

#[test]
fn only_the_marked_region_is_compared_and_reported_with_file_line_numbers() {
    let _turn = turn::take(module_path!());
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.go"), dir.path().join("b.go"));
    std::fs::write(
        &a,
        format!("import a\n// {BEGIN}\nshared\nsame\n// {END}\nmain a\n"),
    )
    .unwrap();
    std::fs::write(
        &b,
        format!("import b\nimport c\n// {BEGIN}\nshared\nsame\n// {END}\nmain b\n"),
    )
    .unwrap();
    let same = first_difference("g", Marked, ("a", &a), ("b", &b)).unwrap();
    assert_eq!(same, None);

    std::fs::write(
        &b,
        format!("import b\nimport c\n// {BEGIN}\nshared\nchanged\n// {END}\nmain b\n"),
    )
    .unwrap();
    let message = first_difference("g", Marked, ("a", &a), ("b", &b))
        .unwrap()
        .expect("a difference");
    assert!(message.contains("a line 4: same"), "{message}");
    assert!(message.contains("b line 5: changed"), "{message}");

    std::fs::write(&b, "no markers\n").unwrap();
    let error = first_difference("g", Marked, ("a", &a), ("b", &b)).unwrap_err();
    assert!(error.contains(BEGIN), "{error}");
}
