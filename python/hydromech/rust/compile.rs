//! The compiler: `check`, `build`, the command line and the version.

use model_compiler::diagnostic::{Diagnostic, Severity, Source};
use model_compiler::{Flavour, FmiVersion, Interface, Warnings};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// One diagnostic as a dict: severity, message, help, file, line, column (line and column
/// 1-based, None when the diagnostic has no place in the file).
fn diagnostic<'py>(
    py: Python<'py>,
    source: &Source,
    d: &Diagnostic,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let severity = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    out.set_item("severity", severity)?;
    out.set_item("message", &d.message)?;
    out.set_item("help", &d.help)?;
    out.set_item("file", source.path.display().to_string())?;
    let (line, column) = match &d.span {
        Some(span) => {
            let (l, c) = source.line_column(span.start);
            (Some(l), Some(c))
        }
        None => (None, None),
    };
    out.set_item("line", line)?;
    out.set_item("column", column)?;
    out.set_item("rendered", source.render(d))?;
    Ok(out)
}

fn diagnostics<'py>(
    py: Python<'py>,
    source: &Source,
    ds: &[Diagnostic],
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    ds.iter().map(|d| diagnostic(py, source, d)).collect()
}

fn read(path: &Path) -> PyResult<Source> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        PyOSError::new_err(format!("{}: cannot read the file: {e}", path.display()))
    })?;
    Ok(Source::new(path, text))
}

/// Checks a description: `(ok, summary, diagnostics)`; `summary` is a dict (headline,
/// report, degrees of freedom, counts) when the description compiles.
#[pyfunction]
pub(crate) fn check<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let source = read(&path)?;
    let out = PyDict::new(py);
    match py.detach(|| model_compiler::check(&source)) {
        Ok((_, l)) => {
            let mut problems = model_compiler::report::check_csv(&source, &l)
                .err()
                .unwrap_or_default();
            problems.extend(l.warnings.iter().cloned());
            problems.sort_by_key(|e| e.span.as_ref().map(|s| s.start));
            out.set_item("compiled", true)?;
            out.set_item("headline", model_compiler::summary::headline(&l))?;
            out.set_item("report", model_compiler::summary::report(&l))?;
            let m = &l.model;
            out.set_item("bodies", m.mechanism.bodies.len())?;
            out.set_item("coordinates", m.mechanism.coordinates())?;
            out.set_item("variables", m.variables.len())?;
            out.set_item("diagnostics", diagnostics(py, &source, &problems)?)?;
        }
        Err(errors) => {
            out.set_item("compiled", false)?;
            out.set_item("diagnostics", diagnostics(py, &source, &errors)?)?;
        }
    }
    Ok(out)
}

/// Builds one FMU: `{"fmu": path or None, "diagnostics": [...]}`.
#[pyfunction]
#[pyo3(signature = (path, out, fmi, interface, platforms, deny_warnings))]
pub(crate) fn build<'py>(
    py: Python<'py>,
    path: PathBuf,
    out: PathBuf,
    fmi: u8,
    interface: &str,
    platforms: Vec<String>,
    deny_warnings: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let version = match fmi {
        2 => FmiVersion::Fmi2,
        3 => FmiVersion::Fmi3,
        _ => {
            return Err(PyValueError::new_err(format!(
                "fmi must be 2 or 3, is {fmi}"
            )));
        }
    };
    let interface = match interface {
        "cs" | "co-simulation" => Interface::CoSimulation,
        "me" | "model-exchange" => Interface::ModelExchange,
        "both" => Interface::Both,
        other => {
            return Err(PyValueError::new_err(format!(
                "interface must be \"cs\", \"me\" or \"both\", is {other:?}"
            )));
        }
    };
    let warnings = if deny_warnings {
        Warnings::Deny
    } else {
        Warnings::Allow
    };
    let source = read(&path)?;
    let flavour = Flavour::new(version, interface);
    let built = py.detach(|| {
        std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        Ok::<_, String>(model_compiler::build_version(
            &source, &out, &platforms, flavour, warnings,
        ))
    });
    let built =
        built.map_err(|e| PyOSError::new_err(format!("cannot create the output folder {e}")))?;
    let result = PyDict::new(py);
    match built {
        Ok(b) => {
            result.set_item("fmu", b.fmu.display().to_string())?;
            result.set_item("diagnostics", diagnostics(py, &source, &b.warnings)?)?;
        }
        Err(errors) => {
            result.set_item("fmu", None::<String>)?;
            result.set_item("diagnostics", diagnostics(py, &source, &errors)?)?;
        }
    }
    Ok(result)
}

/// The `hydromech` command line with `argv` (the program name first); its exit status.
#[pyfunction]
pub(crate) fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    let code = py.detach(|| model_compiler::cli::main(argv));
    (0..=u8::MAX)
        .find(|&k| ExitCode::from(k) == code)
        .unwrap_or(1)
}

/// The version of the compiler and the platforms whose FMU runtimes it carries.
#[pyfunction]
pub(crate) fn version() -> String {
    model_compiler::cli::version().to_string()
}
