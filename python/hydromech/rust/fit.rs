//! `hydromech fit` from Python: the same setup checks, the same Levenberg–Marquardt on the
//! same worker threads, the same fitted description text.

use model_compiler::fit as fitting;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// Per channel of an agreement: `(rms, max, at)` over the fit window and the hold-out.
type Spans = (Vec<(f64, f64, f64)>, Vec<(f64, f64, f64)>);

fn spans(a: &fitting::Agreement) -> Spans {
    let row = |e: &fitting::Errors| (e.rms, e.max, e.at);
    (
        a.window.iter().map(row).collect(),
        a.holdout.iter().map(row).collect(),
    )
}

/// Fits the free fields of a description to a record: a dict with the fitted `values`,
/// `std_errors`, `at_bound`, `correlation`, costs, the agreement before and after, the
/// printed `summary` and the fitted `description` (TOML text, `command` in its first
/// comment as `hydromech fit` writes its own command line there).
#[pyfunction]
#[pyo3(signature = (model, data, free, maps, inputs, command, time=None, weights=Vec::new(), window=None, step=None, threads=1, max_simulations=400, name=None, date=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn fit<'py>(
    py: Python<'py>,
    model: PathBuf,
    data: PathBuf,
    free: Vec<String>,
    maps: Vec<String>,
    inputs: Vec<String>,
    command: String,
    time: Option<String>,
    weights: Vec<String>,
    window: Option<(f64, f64)>,
    step: Option<f64>,
    threads: usize,
    max_simulations: usize,
    name: Option<String>,
    date: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let o = fitting::Options {
        model: model.clone(),
        data: data.clone(),
        time,
        maps,
        inputs,
        free,
        weights,
        window,
        step,
    };
    let done = py.detach(|| {
        let setup = fitting::Setup::prepare(&o)?;
        let result = fitting::fit(&setup, threads.max(1), max_simulations, false);
        let before = setup.agreement(&setup.start)?;
        let after = setup.agreement(&result.values)?;
        let date = date.unwrap_or_else(|| {
            model_compiler::emit::timestamp::build_time().to_xml()[..10].to_string()
        });
        let name = name.or_else(|| model.file_stem().map(|s| s.to_string_lossy().into_owned()));
        let text = fitting::report::fitted_description(
            &setup,
            &result,
            &before,
            &after,
            name.as_deref(),
            &data.display().to_string(),
            &date,
            &command,
        );
        let summary = fitting::report::summary(&setup, &result, &before, &after);
        Ok::<_, String>((setup, result, before, after, text, summary))
    });
    let (setup, result, before, after, text, summary) = done.map_err(PyValueError::new_err)?;
    let out = PyDict::new(py);
    out.set_item(
        "names",
        setup
            .free
            .iter()
            .map(|f| f.name.clone())
            .collect::<Vec<_>>(),
    )?;
    out.set_item("start", setup.start.clone())?;
    out.set_item("low", setup.free.iter().map(|f| f.low).collect::<Vec<_>>())?;
    out.set_item(
        "high",
        setup.free.iter().map(|f| f.high).collect::<Vec<_>>(),
    )?;
    out.set_item("values", result.values.clone())?;
    out.set_item("std_errors", result.std_errors.clone())?;
    out.set_item("at_bound", result.at_bound.clone())?;
    let c = &result.correlation;
    let rows: Vec<Vec<f64>> = (0..c.nrows())
        .map(|i| (0..c.ncols()).map(|j| c[(i, j)]).collect())
        .collect();
    out.set_item("correlation", rows)?;
    out.set_item("cost_start", result.cost_start)?;
    out.set_item("cost", result.cost)?;
    out.set_item("residuals", result.residuals)?;
    out.set_item("simulations", result.simulations)?;
    out.set_item("termination", result.termination.clone())?;
    out.set_item("channels", setup.fit.outputs.clone())?;
    out.set_item("window", setup.window())?;
    out.set_item("before", spans(&before))?;
    out.set_item("after", spans(&after))?;
    out.set_item("summary", summary)?;
    out.set_item("description", text)?;
    Ok(out)
}
