//! A loaded FMU (or a description built into one): runs and sweeps with the engine of
//! `hydromech simulate` and `hydromech sweep` — the FMU's own C ABI, in this process, the
//! GIL released while it steps.
//!
//! The Python side (`hydromech.api`, `hydromech.dask_sweep`) checks names and types and
//! says so in Python's terms; what arrives here is checked again (finite values, times that
//! do not go back, equal lengths), since a wrong array must not become a wrong run.

use model_compiler::host::fmi::Fmu;
use model_compiler::simulate::{self, InputSeries, Prepared};
use model_compiler::sweep::{self, grid, table};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An input schedule from Python: names, times, `values[row, column]`.
type Inputs<'py> = (
    Vec<String>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray2<'py, f64>,
);

/// An input schedule to Python: names, times, values.
type Schedule<'py> = (
    Vec<String>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray2<f64>>,
);

/// The schedule checked as `hydromech simulate` checks an inputs CSV.
fn input_series(inputs: Option<Inputs<'_>>) -> PyResult<Vec<InputSeries>> {
    let Some((names, time, values)) = inputs else {
        return Ok(Vec::new());
    };
    let time = time.as_slice()?.to_vec();
    let shape = values.as_array().dim();
    let shape = [shape.0, shape.1];
    if shape[0] != time.len() || shape[1] != names.len() {
        return Err(PyValueError::new_err(format!(
            "inputs: {} times and a {}×{} table of values for {} inputs",
            time.len(),
            shape[0],
            shape[1],
            names.len()
        )));
    }
    if time.is_empty() {
        return Err(PyValueError::new_err("inputs: no rows"));
    }
    let array = values.as_array();
    let values: Vec<Vec<f64>> = array.rows().into_iter().map(|r| r.to_vec()).collect();
    for (k, (t, row)) in time.iter().zip(&values).enumerate() {
        if let Some(j) = (!t.is_finite())
            .then_some(None)
            .or_else(|| row.iter().position(|v| !v.is_finite()).map(Some))
        {
            let what = j.map_or("time".to_string(), |j| format!("'{}'", names[j]));
            return Err(PyValueError::new_err(format!(
                "inputs: row {k}: {what} is not a finite number"
            )));
        }
        if k > 0 && *t < time[k - 1] {
            return Err(PyValueError::new_err(format!(
                "inputs: row {k}: time {t} is earlier than the row before; times must not decrease"
            )));
        }
    }
    Ok(vec![InputSeries {
        names,
        time,
        values,
    }])
}

/// Reads an inputs CSV as `hydromech simulate --inputs` does: `(names, time, values)`.
#[pyfunction]
pub(crate) fn read_inputs<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Schedule<'py>> {
    let text = std::fs::read_to_string(&path).map_err(|e| {
        PyOSError::new_err(format!("{}: cannot read the inputs: {e}", path.display()))
    })?;
    let s = simulate::parse_inputs(&text)
        .map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
    let values = PyArray2::from_vec2(py, &s.values)?;
    Ok((s.names, PyArray1::from_vec(py, s.time), values))
}

/// `name=value` as `--set` takes it: `{:?}` is the shortest text that reads back the same.
fn set_strings(set: &[(String, f64)]) -> Vec<String> {
    set.iter().map(|(n, v)| format!("{n}={v:?}")).collect()
}

/// A loaded FMU: `Model(path)` with an `.fmu` or a description (`.toml`, built first).
#[pyclass(name = "Model", module = "hydromech._native", frozen)]
pub(crate) struct Model {
    // Dropped in this order: the instance library and its folder, then the built FMU.
    fmu: Fmu,
    prepared: Prepared,
    description: Option<PathBuf>,
}

impl Model {
    fn run_options(
        &self,
        stop_time: f64,
        step: Option<f64>,
        inputs: Option<Inputs<'_>>,
        vars: Vec<String>,
    ) -> PyResult<simulate::Options> {
        Ok(simulate::Options {
            stop_time,
            step,
            input_series: input_series(inputs)?,
            vars,
            ..Default::default()
        })
    }
}

/// The swept parameters: a string is `--param`'s syntax (`100..400:6`, `150..200bar:3`,
/// `0.8,1,1.2`, `normal(211, 21)`), a sequence of numbers the values themselves.
fn ranges(params: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<Vec<grid::Range>> {
    params
        .into_iter()
        .map(|(name, spec)| {
            if let Ok(s) = spec.cast::<PyString>() {
                grid::Range::parse(&format!("{name}={}", s.to_str()?))
                    .map_err(|e| PyValueError::new_err(format!("params: {e}")))
            } else {
                let values: Vec<f64> = spec.extract().map_err(|_| {
                    PyValueError::new_err(format!(
                        "params: '{name}': give a string such as \"100..400:6\" or a sequence of numbers"
                    ))
                })?;
                if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
                    return Err(PyValueError::new_err(format!(
                        "params: '{name}': the values must be finite numbers, at least one"
                    )));
                }
                Ok(grid::Range {
                    name,
                    spec: grid::Spec::Values(values),
                })
            }
        })
        .collect()
}

fn sampling(
    samples: Option<usize>,
    distribution: &str,
    seed: u64,
) -> PyResult<Option<grid::Sampling>> {
    let distribution = match distribution {
        "uniform" => grid::Distribution::Uniform,
        "lhs" => grid::Distribution::LatinHypercube,
        other => {
            return Err(PyValueError::new_err(format!(
                "distribution must be \"uniform\" or \"lhs\", is {other:?}"
            )));
        }
    };
    Ok(samples.map(|samples| grid::Sampling {
        samples,
        distribution,
        seed,
    }))
}

/// A table as a dict of columns: numbers as NumPy arrays, words and texts as lists.
fn columns<'py>(py: Python<'py>, t: table::Table) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (name, values) in t.columns {
        match values {
            table::Values::Int(v) => out.set_item(name, PyArray1::from_vec(py, v))?,
            table::Values::Real(v) => out.set_item(name, PyArray1::from_vec(py, v))?,
            table::Values::Text(v) => out.set_item(name, PyList::new(py, v)?)?,
            table::Values::Word(v) => out.set_item(name, PyList::new(py, v)?)?,
        }
    }
    Ok(out)
}

#[pymethods]
impl Model {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Model> {
        let loaded = py.detach(|| {
            let prepared = simulate::prepare(&path)?;
            let fmu = Fmu::load(&prepared.fmu)?;
            Ok::<_, String>((prepared, fmu))
        });
        let (prepared, fmu) = loaded.map_err(PyValueError::new_err)?;
        let description = path
            .extension()
            .is_some_and(|e| e == "toml")
            .then(|| path.clone());
        Ok(Model {
            fmu,
            prepared,
            description,
        })
    }

    /// The FMU file (built into a temporary folder when the model is a description).
    #[getter]
    fn fmu_path(&self) -> String {
        self.prepared.fmu.display().to_string()
    }

    /// The default experiment: `(start, stop or None, step or None)`.
    #[getter]
    fn default_experiment(&self) -> (f64, Option<f64>, Option<f64>) {
        let md = &self.fmu.description;
        (md.start_time, md.stop_time, md.step_size)
    }

    /// Every variable: `(name, causality, variability, type, unit, start, min, max)`.
    #[allow(clippy::type_complexity)]
    fn variables(
        &self,
    ) -> Vec<(
        String,
        String,
        String,
        String,
        Option<String>,
        Option<f64>,
        Option<f64>,
        Option<f64>,
    )> {
        self.fmu
            .description
            .variables
            .iter()
            .map(|v| {
                (
                    v.name.clone(),
                    v.causality.clone(),
                    v.variability.clone(),
                    format!("{:?}", v.var_type),
                    v.unit.clone(),
                    v.start,
                    v.min,
                    v.max,
                )
            })
            .collect()
    }

    /// One run, as `hydromech simulate`: `{"names", "time", "values", "error"}`; `values`
    /// has a row per communication point; on a failed step the rows up to it and the
    /// reason in `error`.
    #[pyo3(signature = (stop_time, start_time=None, step=None, set=Vec::new(), inputs=None, vars=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn simulate<'py>(
        &self,
        py: Python<'py>,
        stop_time: f64,
        start_time: Option<f64>,
        step: Option<f64>,
        set: Vec<(String, f64)>,
        inputs: Option<Inputs<'py>>,
        vars: Vec<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut o = self.run_options(stop_time, step, inputs, vars)?;
        o.start_time = start_time;
        o.set = set_strings(&set);
        let (results, error) = match py.detach(|| simulate::run_loaded(&self.fmu, &o)) {
            Ok(r) => (r, None),
            // Refused before the first row (a bad argument): nothing to hand back.
            Err((r, e)) if r.time.is_empty() => return Err(PyValueError::new_err(e)),
            Err((r, e)) => (r, Some(e)),
        };
        let out = PyDict::new(py);
        let n = results.names.len();
        let flat: Vec<f64> = results.rows.concat();
        let values = PyArray1::from_vec(py, flat).reshape([results.time.len(), n])?;
        out.set_item("names", results.names)?;
        out.set_item("time", PyArray1::from_vec(py, results.time))?;
        out.set_item("values", values)?;
        out.set_item("error", error)?;
        Ok(out)
    }

    /// The cases of a sweep, checked against the FMU as built: `(names, cases[k, j])`.
    #[pyo3(signature = (params, samples=None, distribution="uniform", seed=0))]
    fn cases<'py>(
        &self,
        py: Python<'py>,
        params: Vec<(String, Bound<'py, PyAny>)>,
        samples: Option<usize>,
        distribution: &str,
        seed: u64,
    ) -> PyResult<(Vec<String>, Bound<'py, PyArray2<f64>>)> {
        let o = sweep::Options {
            ranges: ranges(params)?,
            sampling: sampling(samples, distribution, seed)?,
            ..Default::default()
        };
        let grid = sweep::cases(&self.fmu, &o).map_err(PyValueError::new_err)?;
        let names = o.ranges.iter().map(|r| r.name.clone()).collect();
        let array = if grid.is_empty() {
            PyArray1::from_vec(py, Vec::new()).reshape([0, o.ranges.len()])?
        } else {
            PyArray2::from_vec2(py, &grid)?
        };
        Ok((names, array))
    }

    /// A sweep as `hydromech sweep`: its table as a dict of columns (`case`, the
    /// parameters, `status`, `message`, `<output>.final|min|max|rms`) and the run's
    /// `__threads__` and `__seconds__`. A description's fields may be swept too.
    #[pyo3(signature = (params, stop_time, samples=None, distribution="uniform", seed=0, step=None, inputs=None, vars=Vec::new(), threads=1))]
    #[allow(clippy::too_many_arguments)]
    fn sweep<'py>(
        &self,
        py: Python<'py>,
        params: Vec<(String, Bound<'py, PyAny>)>,
        stop_time: f64,
        samples: Option<usize>,
        distribution: &str,
        seed: u64,
        step: Option<f64>,
        inputs: Option<Inputs<'py>>,
        vars: Vec<String>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let variants = match &self.description {
            Some(path) => Some(Arc::new(
                self.variants(path).map_err(PyValueError::new_err)?,
            )),
            None => None,
        };
        let o = sweep::Options {
            ranges: ranges(params)?,
            sampling: sampling(samples, distribution, seed)?,
            run: self.run_options(stop_time, step, inputs, vars)?,
            threads: threads.max(1),
            variants,
            ..Default::default()
        };
        let done = py.detach(|| sweep::run(&self.fmu, &o));
        sweep_table(py, done)
    }

    /// Given cases of a sweep (`cases[k, j]`: the value of `names[j]` in case `k`), run
    /// as the in-process sweep runs each: a cluster worker's share. The table as
    /// [`Model::sweep`]'s, its `case` column counting from 0.
    #[pyo3(signature = (names, cases, stop_time, step=None, inputs=None, vars=Vec::new(), threads=1))]
    #[allow(clippy::too_many_arguments)]
    fn run_cases<'py>(
        &self,
        py: Python<'py>,
        names: Vec<String>,
        cases: PyReadonlyArray2<'py, f64>,
        stop_time: f64,
        step: Option<f64>,
        inputs: Option<Inputs<'py>>,
        vars: Vec<String>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyDict>> {
        let grid: Vec<Vec<f64>> = cases
            .as_array()
            .rows()
            .into_iter()
            .map(|r| r.to_vec())
            .collect();
        let ranges = names
            .into_iter()
            .enumerate()
            .map(|(j, name)| grid::Range {
                name,
                spec: grid::Spec::Values(
                    grid.iter()
                        .map(|c| c.get(j).copied().unwrap_or(f64::NAN))
                        .collect(),
                ),
            })
            .collect();
        let o = sweep::Options {
            ranges,
            run: self.run_options(stop_time, step, inputs, vars)?,
            threads: threads.max(1),
            ..Default::default()
        };
        let done = py.detach(|| sweep::run_cases(&self.fmu, &o, grid));
        sweep_table(py, done)
    }
}

fn sweep_table<'py>(
    py: Python<'py>,
    done: Result<sweep::Sweep, String>,
) -> PyResult<Bound<'py, PyDict>> {
    let done = done.map_err(PyValueError::new_err)?;
    let out = columns(py, done.to_table())?;
    out.set_item("__threads__", done.threads)?;
    out.set_item("__seconds__", done.wall.as_secs_f64())?;
    Ok(out)
}

/// Writes a sweep's table as `hydromech sweep -o` does (CSV, or Parquet for `.parquet`):
/// `columns` in order, numbers as float64 or int64 arrays, `status` and `message` as
/// lists of texts.
#[pyfunction]
pub(crate) fn write_table(
    py: Python<'_>,
    path: PathBuf,
    columns: Vec<(String, Bound<'_, PyAny>)>,
) -> PyResult<()> {
    let mut t = table::Table::default();
    for (name, values) in columns {
        let v = if let Ok(a) = values.extract::<PyReadonlyArray1<'_, i64>>() {
            table::Values::Int(a.as_slice()?.to_vec())
        } else if let Ok(a) = values.extract::<PyReadonlyArray1<'_, f64>>() {
            table::Values::Real(a.as_slice()?.to_vec())
        } else if name == "status" {
            let words: Vec<String> = values.extract()?;
            let words = words
                .iter()
                .map(|w| match w.as_str() {
                    "ok" => Ok("ok"),
                    "failed" => Ok("failed"),
                    other => Err(PyValueError::new_err(format!(
                        "status: \"{other}\" is neither \"ok\" nor \"failed\""
                    ))),
                })
                .collect::<PyResult<Vec<_>>>()?;
            table::Values::Word(words)
        } else {
            table::Values::Text(values.extract().map_err(|_| {
                PyValueError::new_err(format!(
                    "column '{name}': expected a float64 or int64 array or a list of texts"
                ))
            })?)
        };
        t.push(name, v);
    }
    if let Some((name, _)) = t.columns.iter().find(|(_, v)| v.len() != t.rows()) {
        return Err(PyValueError::new_err(format!(
            "column '{name}' has another length than the first"
        )));
    }
    py.detach(|| t.write(&path)).map_err(PyOSError::new_err)
}

impl Model {
    fn variants(&self, path: &Path) -> Result<sweep::variants::Variants, String> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
        sweep::variants::Variants::new(
            model_compiler::fit::field::Document::parse(&file, &text)?,
            &self.fmu.description.guid,
        )
    }
}
