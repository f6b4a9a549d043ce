//! User-facing errors with a position in the description file.
//!
//! Rendered as `file:line:column: error: message` followed by a `help:` line, the format
//! editors and terminals recognise.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// How serious a diagnostic is: errors stop the build, warnings are printed only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Severity {
    #[default]
    Error,
    Warning,
}

impl Severity {
    pub fn label(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One error: what is wrong, where (byte range in the source), and how to fix it.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub span: Option<Range<usize>>,
    pub message: String,
    pub help: String,
    pub severity: Severity,
}

impl Diagnostic {
    pub fn new(
        span: Option<Range<usize>>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            span,
            message: message.into(),
            help: help.into(),
            severity: Severity::Error,
        }
    }

    /// The same diagnostic as a warning.
    pub fn warning(mut self) -> Diagnostic {
        self.severity = Severity::Warning;
        self
    }

    pub fn at(
        span: Range<usize>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(Some(span), message, help)
    }

    /// An error with no position (file-level problems, failures of later stages).
    pub fn global(message: impl Into<String>, help: impl Into<String>) -> Diagnostic {
        Diagnostic::new(None, message, help)
    }

    /// Errors of a description the compiler generated (a merge, a split's half): their
    /// positions are in no file the user has, so they lose them and say `context` instead.
    pub fn unplaced(ds: Vec<Diagnostic>, context: &str) -> Vec<Diagnostic> {
        ds.into_iter()
            .map(|d| Diagnostic {
                span: None,
                message: format!("{context}: {}", d.message),
                ..d
            })
            .collect()
    }
}

/// A description file and its text, used to turn byte offsets into line:column.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: PathBuf,
    pub text: String,
}

impl Source {
    /// The file name without its extension (`naya-rod` of `models/naya-rod.toml`).
    pub fn file_stem(&self) -> Option<String> {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
    }

    pub fn new(path: impl AsRef<Path>, text: impl Into<String>) -> Source {
        Source {
            path: path.as_ref().to_path_buf(),
            text: text.into(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset; offsets past the end or
    /// inside a character are clamped.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }

    pub fn render(&self, d: &Diagnostic) -> String {
        Rendered {
            source: self,
            diagnostic: d,
        }
        .to_string()
    }
}

struct Rendered<'a> {
    source: &'a Source,
    diagnostic: &'a Diagnostic,
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.source.path.display();
        let d = self.diagnostic;
        match &d.span {
            Some(span) => {
                let (line, column) = self.source.line_column(span.start);
                writeln!(
                    f,
                    "{path}:{line}:{column}: {}: {}",
                    d.severity.label(),
                    d.message
                )?;
                if let Some(text) = self.source.text.lines().nth(line - 1) {
                    let width = span
                        .end
                        .saturating_sub(span.start)
                        .max(1)
                        .min(text.chars().count().saturating_sub(column - 1).max(1));
                    writeln!(f, "  | {text}")?;
                    writeln!(f, "  | {}{}", " ".repeat(column - 1), "^".repeat(width))?;
                }
            }
            None => writeln!(f, "{path}: {}: {}", d.severity.label(), d.message)?,
        }
        write!(f, "help: {}", d.help)
    }
}

/// Converts a TOML syntax or type error into a diagnostic (with its position).
pub fn from_toml_error(e: &toml::de::Error) -> Diagnostic {
    let message = e.message().trim().to_string();
    let help = toml_help(&message);
    Diagnostic::new(e.span(), message, help)
}

fn toml_help(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let field = rest.split('`').next().unwrap_or("");
        let expected = message.split_once("expected ").map(|(_, e)| e);
        let suggestion = expected.and_then(|e| crate::names::closest(field, backticked(e)));
        return match (suggestion, expected) {
            (Some(s), Some(e)) => {
                format!("did you mean `{s}`? `{field}` is not a key of this table (expected {e})")
            }
            (None, Some(e)) => {
                format!("`{field}` is not a key of this table; expected {e} (check the spelling)")
            }
            _ => format!("`{field}` is not a key of this table; remove it or check the spelling"),
        };
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let value = rest.split('`').next().unwrap_or("");
        let expected = message.split_once("expected ").map(|(_, e)| e);
        if let Some(s) = expected.and_then(|e| crate::names::closest(value, backticked(e))) {
            return format!("did you mean \"{s}\"?");
        }
        return "use one of the values listed above".into();
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or("");
        if field == "model" {
            return "start the file with a [model] section, e.g. [model] then name = \"my-machine\"".into();
        }
        return format!("add `{field} = ...` to this table");
    }
    if message.starts_with("invalid length") {
        return "give exactly the number of components asked for, e.g. `[0.0, 0.0, 1.0]` for a vector".into();
    }
    if message.starts_with("invalid type") {
        return "check the value's type: quantities are numbers (SI) or strings with a unit like \"200 bar\"".into();
    }
    "fix the TOML syntax at this position (see https://toml.io)".into()
}

/// The names quoted in backticks in a serde message ("one of `a`, `b`").
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_line_and_column() {
        let s = Source::new("m.toml", "a = 1\nbé = 2\n\nc = 3");
        assert_eq!(s.line_column(0), (1, 1));
        assert_eq!(s.line_column(4), (1, 5));
        assert_eq!(s.line_column(6), (2, 1));
        // 'é' is two bytes but one column.
        assert_eq!(s.line_column(9), (2, 3));
        assert_eq!(s.line_column(15), (4, 1));
        assert_eq!(s.line_column(1000), (4, 6));
    }

    #[test]
    fn rendering_has_position_and_help() {
        let s = Source::new("m.toml", "a = 1\nbad = 2\n");
        let d = Diagnostic::at(6..9, "unknown field `bad`", "remove it");
        let out = s.render(&d);
        assert!(
            out.starts_with("m.toml:2:1: error: unknown field `bad`\n"),
            "{out}"
        );
        assert!(out.contains("  | bad = 2\n  | ^^^\n"), "{out}");
        assert!(out.ends_with("help: remove it"), "{out}");
    }
}
