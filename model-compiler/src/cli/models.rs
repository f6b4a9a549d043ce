//! Reading descriptions: the given files or every `models/*.toml`, errors as rendered
//! diagnostics, the exit code of a run over several models.

use crate::diagnostic::{Diagnostic, Source};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

pub(crate) fn read(path: &Path) -> Result<Source, ()> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Source::new(path, text)),
        Err(e) => {
            eprintln!("{}: error: cannot read the file: {e}", path.display());
            eprintln!("help: check the path and the file's permissions");
            Err(())
        }
    }
}

pub(crate) fn report(source: &Source, errors: &[Diagnostic]) {
    for e in errors {
        eprintln!("{}\n", source.render(e));
    }
    let n = errors
        .iter()
        .filter(|e| e.severity == crate::diagnostic::Severity::Error)
        .count();
    let w = errors.len() - n;
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    let warnings = if w > 0 {
        format!(", {w} warning{}", plural(w))
    } else {
        String::new()
    };
    eprintln!(
        "{}: {n} error{}{warnings}",
        source.path.display(),
        plural(n)
    );
}

/// Every `*.toml` in `models/`, sorted.
pub(crate) fn default_models() -> Result<Vec<PathBuf>, ()> {
    let dir = Path::new("models");
    let mut found: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
            .collect(),
        Err(_) => Vec::new(),
    };
    found.sort();
    if found.is_empty() {
        eprintln!(
            "error: no models given and no *.toml file in {}",
            std::env::current_dir()
                .map(|d| d.join(dir))
                .unwrap_or(dir.into())
                .display()
        );
        eprintln!(
            "help: run `hydromech build path/to/machine.toml`, or run from a directory that has models/*.toml"
        );
        return Err(());
    }
    Ok(found)
}

/// 1 if any model failed, else success.
pub(crate) fn exit_code(failed: usize) -> ExitCode {
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The given descriptions, or every `models/*.toml` when none are given.
pub(crate) fn models_or_default(models: Vec<PathBuf>) -> Result<Vec<PathBuf>, ()> {
    if models.is_empty() {
        default_models()
    } else {
        Ok(models)
    }
}

/// Runs `job` on each description (every `models/*.toml` when none are given) with the
/// time it started; exit 1 if any could not be read or its job failed.
pub(crate) fn each_model(
    models: Vec<PathBuf>,
    mut job: impl FnMut(&Source, Instant) -> bool,
) -> ExitCode {
    let Ok(models) = models_or_default(models) else {
        return ExitCode::from(1);
    };
    let mut failed = 0;
    for path in &models {
        let started = Instant::now();
        let Ok(source) = read(path) else {
            failed += 1;
            continue;
        };
        if !job(&source, started) {
            failed += 1;
        }
    }
    exit_code(failed)
}
