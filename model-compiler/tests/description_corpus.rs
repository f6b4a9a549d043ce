//! The broken-description corpus: every `tests/descriptions/*.toml` must be rejected with
//! the errors its header announces.
//!
//! Each file starts with comment lines; `# expect: LINE:COLUMN TEXT` says that one of the
//! rendered errors is at `LINE:COLUMN` of the file and contains `TEXT` (in its message or
//! its help), `# warn: LINE:COLUMN TEXT` the same of a warning. Several lines may be
//! given; a file without any fails the test, and so does a file with `# expect:` lines
//! the compiler accepts, or a file with `# warn:` lines alone that it rejects.

use model_compiler::diagnostic::{Severity, Source};
use std::path::{Path, PathBuf};

/// A reported diagnostic: its severity, its line and column, its rendering.
type Rendered = (Severity, Option<(usize, usize)>, String);

struct Expectation {
    severity: Severity,
    line: usize,
    column: usize,
    text: String,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/descriptions")
}

fn corpus() -> Vec<PathBuf> {
    let dir = corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

/// The `# expect:` and `# warn:` lines of the leading comment block.
fn expectations(text: &str) -> Result<Vec<Expectation>, String> {
    let mut found = Vec::new();
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        let (severity, rest) = if let Some(rest) = line.strip_prefix("# expect:") {
            (Severity::Error, rest)
        } else if let Some(rest) = line.strip_prefix("# warn:") {
            (Severity::Warning, rest)
        } else {
            continue;
        };
        let rest = rest.trim();
        let (position, text) = rest
            .split_once(' ')
            .ok_or_else(|| format!("`{line}`: expected `# expect: LINE:COLUMN TEXT`"))?;
        let (l, c) = position
            .split_once(':')
            .ok_or_else(|| format!("`{line}`: the position must be LINE:COLUMN"))?;
        let parse = |s: &str| {
            s.parse::<usize>()
                .map_err(|_| format!("`{line}`: '{s}' is not a line or column number"))
        };
        found.push(Expectation {
            severity,
            line: parse(l)?,
            column: parse(c)?,
            text: text.trim().to_string(),
        });
    }
    Ok(found)
}

/// Checks one file; returns what went wrong.
fn check_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let expected = expectations(&text)?;
    if expected.is_empty() {
        return Err(
            "no `# expect: LINE:COLUMN TEXT` line: every corpus file states its errors".into(),
        );
    }
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let source = Source::new(&name, text);
    // Compiled from its path, so that the files it names (heightfields) are found beside
    // it; rendered by its name.
    let located = Source::new(path, source.text.clone());
    let errors_expected = expected.iter().any(|x| x.severity == Severity::Error);
    let reported =
        match model_compiler::check(&located).and_then(|_| model_compiler::compile(&located)) {
            Ok(_) if errors_expected => return Err("the description was accepted".into()),
            Ok(l) => l.warnings,
            Err(diagnostics) => diagnostics,
        };
    if !errors_expected && reported.iter().any(|d| d.severity == Severity::Error) {
        let errors: Vec<String> = reported.iter().map(|d| source.render(d)).collect();
        return Err(format!(
            "only warnings were expected, but the description was rejected:\n{}",
            errors.join("\n\n")
        ));
    }
    let rendered: Vec<Rendered> = reported
        .iter()
        .map(|e| {
            (
                e.severity,
                e.span.as_ref().map(|s| source.line_column(s.start)),
                source.render(e),
            )
        })
        .collect();
    let mut missing = Vec::new();
    for x in &expected {
        let label = x.severity.label();
        let hit = rendered.iter().any(|(severity, at, r)| {
            *severity == x.severity
                && *at == Some((x.line, x.column))
                && r.starts_with(&format!("{name}:{}:{}: {label}: ", x.line, x.column))
                && r.contains(&x.text)
        });
        if !hit {
            missing.push(format!("{label} {}:{} {}", x.line, x.column, x.text));
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "expected but not reported:\n  {}\nreported:\n{}",
            missing.join("\n  "),
            rendered
                .iter()
                .map(|(_, _, r)| r.as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        ))
    }
}

#[test]
fn every_broken_description_reports_its_errors() {
    let files = corpus();
    assert!(
        files.len() >= 30,
        "the corpus {} has {} files, expected at least 30",
        corpus_dir().display(),
        files.len()
    );
    let failures: Vec<String> = files
        .iter()
        .filter_map(|p| {
            check_file(p)
                .err()
                .map(|e| format!("{}: {e}", p.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} corpus files failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

#[test]
fn a_file_without_expectations_is_refused() {
    let dir = std::env::temp_dir().join(format!("hydromech-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("silent.toml");
    std::fs::write(&path, "# no expectation\n[model]\nname = 1\n").unwrap();
    let e = check_file(&path).unwrap_err();
    assert!(e.contains("no `# expect:"), "{e}");
    std::fs::write(&path, "# warn: 3:8 anything\n[model]\nname = 1\n").unwrap();
    let e = check_file(&path).unwrap_err();
    assert!(e.contains("only warnings were expected"), "{e}");
    std::fs::write(&path, "# expect: 1:1 anything\n[model]\nname = \"ok\"\n").unwrap();
    let e = check_file(&path).unwrap_err();
    assert!(e.contains("accepted"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The format reference embeds `models/naya-rod.toml` as its complete example; they must
/// not drift apart.
#[test]
fn the_reference_example_is_the_shipped_model() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/description-format.md")).unwrap();
    let model = std::fs::read_to_string(root.join("models/naya-rod.toml")).unwrap();
    let section = doc
        .split("## A complete example")
        .nth(1)
        .expect("the example section");
    let start = section.find("```toml\n").expect("a toml block") + "```toml\n".len();
    let end = start + section[start..].find("\n```").expect("end of the block");
    assert_eq!(section[start..end].trim_end(), model.trim_end());
}
