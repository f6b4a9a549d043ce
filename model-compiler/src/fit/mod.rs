//! `hydromech fit`: identifies description fields from a measurement (issue 20).
//!
//! The measured inputs drive the model (the description compiled and run in-process, see
//! [`experiment`]); the weighted differences between the mapped outputs and the measured
//! channels over the fit window are minimized by Levenberg–Marquardt (MINPACK's
//! trust-region algorithm, the `levenberg-marquardt` crate) over the free fields, kept
//! inside their bounds by the sine transform ([`free::to_bounded`]). The Jacobian's columns
//! are forward differences, one simulation each, run in parallel on the sweep's worker
//! pool. At the optimum the standard errors and correlations follow from the Jacobian
//! (`s² (JᵀJ)⁻¹`, `s²` the residual variance); the whole record is then simulated with the
//! start and the fitted values and the agreement reported on the fit window and on the
//! rest of the record (the hold-out) separately.
//!
//! Everything the user gives is checked before the first simulation: each free field exists
//! (did you mean), its bounds hold the start value and compile (the description's own
//! validation is the fields' min and max), each mapped column exists, each mapped variable
//! is an output or input of the model, and the measurement's samples lie on the model's
//! communication grid.

pub mod data;
pub mod experiment;
pub mod field;
pub mod free;
pub mod report;

use crate::names;
use crate::sweep::pool;
use data::{Mapping, Table};
use experiment::{Experiment, Trajectory};
use field::Document;
use free::{FreeSpec, from_bounded, to_bounded};
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Dyn, Owned};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What `hydromech fit` was asked for.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub model: PathBuf,
    pub data: PathBuf,
    /// `COLUMN` or `COLUMN[unit]`; default `time`, else the first column.
    pub time: Option<String>,
    /// `--map OUTPUT=COLUMN[unit]`: the fitted channels.
    pub maps: Vec<String>,
    /// `--input INPUT=COLUMN[unit]`: the measured inputs.
    pub inputs: Vec<String>,
    /// `--free FIELD=LOW..HIGH`.
    pub free: Vec<String>,
    /// `--weight OUTPUT=SIGMA`: the channel's standard deviation (with a unit); default
    /// the measured channel's standard deviation over the fit window.
    pub weights: Vec<String>,
    /// `--window FROM..TO` [s]: the fitted span; the rest of the record is the hold-out.
    pub window: Option<(f64, f64)>,
    /// Communication step; default the model's default experiment step.
    pub step: Option<f64>,
    pub threads: usize,
    /// Simulations at most (the Jacobian's columns included).
    pub max_simulations: usize,
    pub progress: bool,
}

/// A checked fit problem: the experiment over the fit window and over the whole record.
#[derive(Clone, Debug)]
pub struct Setup {
    pub free: Vec<FreeSpec>,
    /// Start values (the description's).
    pub start: Vec<f64>,
    /// Simulated over the fit window.
    pub fit: Experiment,
    /// Simulated over the whole record.
    pub record: Experiment,
    /// `measured[channel][sample]` over the whole record (SI).
    pub measured: Vec<Vec<f64>>,
    /// The record's samples of the fit window: `first..first + fit.times.len()`.
    pub first: usize,
    /// Per channel.
    pub sigma: Vec<f64>,
    /// Per channel: the unit its column is written in and its SI factor (for reports).
    pub units: Vec<(String, f64)>,
}

/// A fit's outcome.
#[derive(Clone, Debug)]
pub struct Fit {
    pub values: Vec<f64>,
    /// Standard errors (NaN: at a bound or not identifiable).
    pub std_errors: Vec<f64>,
    pub correlation: DMatrix<f64>,
    /// ½·Σr² at the start and at the end (weighted residuals over the fit window).
    pub cost_start: f64,
    pub cost: f64,
    pub residuals: usize,
    pub simulations: usize,
    pub termination: String,
}

/// Agreement of one simulation with the record, per channel.
#[derive(Clone, Debug)]
pub struct Agreement {
    /// Over the fit window and over the hold-out (NaN when empty).
    pub window: Vec<Errors>,
    pub holdout: Vec<Errors>,
    pub trajectory: Trajectory,
}

/// A channel's errors over a span (SI).
#[derive(Clone, Copy, Debug)]
pub struct Errors {
    pub rms: f64,
    pub max: f64,
    /// When the largest error occurred [s].
    pub at: f64,
}

/// A weighted residual for a sample the simulation did not reach (it failed before): large
/// enough that the optimizer rejects the step, finite so that it can.
const UNREACHED: f64 = 1e3;

impl Setup {
    /// Reads and checks everything; runs nothing.
    pub fn prepare(o: &Options) -> Result<Setup, String> {
        let file = o.model.display().to_string();
        let text = std::fs::read_to_string(&o.model)
            .map_err(|e| format!("{file}: cannot read the description: {e}"))?;
        let doc = Document::parse(&file, &text)?;
        let specs = o
            .free
            .iter()
            .map(|f| FreeSpec::parse(f))
            .collect::<Result<Vec<_>, _>>()?;
        if specs.is_empty() {
            return Err("nothing to fit: give at least one --free FIELD=LOW..HIGH".into());
        }
        let mut fields: Vec<Vec<field::Field>> = Vec::new();
        let mut start = Vec::new();
        for s in &specs {
            let mut tied = Vec::new();
            for name in &s.names {
                if fields
                    .iter()
                    .flatten()
                    .chain(&tied)
                    .any(|f| &f.name == name)
                {
                    return Err(format!("--free {name}: given twice"));
                }
                tied.push(doc.field(name).map_err(|e| format!("--free {name}: {e}"))?);
            }
            let values: Vec<f64> = tied.iter().map(|f| doc.get(f)).collect();
            if let Some(k) = values.iter().position(|v| *v != values[0]) {
                return Err(format!(
                    "--free {}: tied fields differ in the description ({} = {}, {} = {} SI); \
                     give them one value first",
                    s.name, s.names[0], values[0], s.names[k], values[k]
                ));
            }
            let v = values[0];
            if !(s.low..=s.high).contains(&v) {
                return Err(format!(
                    "--free {}: the description's value {v} is outside {}..{} (SI); widen the range",
                    s.name, s.low, s.high
                ));
            }
            start.push(v);
            fields.push(tied);
        }
        // The data.
        let data_file = o.data.display().to_string();
        let data_text = std::fs::read_to_string(&o.data)
            .map_err(|e| format!("{data_file}: cannot read the measurement: {e}"))?;
        let table = Table::parse(&data_file, &data_text)?;
        let time = match &o.time {
            Some(t) => Mapping::parse("--time", &format!("time={t}"))?,
            None => Mapping {
                variable: "time".into(),
                column: if table.columns.iter().any(|c| c == "time") {
                    "time".into()
                } else {
                    table.columns[0].clone()
                },
                factor: 1.0,
                unit: None,
            },
        };
        let times: Vec<f64> = table
            .times(&time.column)?
            .iter()
            .map(|t| t * time.factor)
            .collect();
        let maps = o
            .maps
            .iter()
            .map(|m| Mapping::parse("--map", m))
            .collect::<Result<Vec<_>, _>>()?;
        if maps.is_empty() {
            return Err("nothing to compare: give at least one --map OUTPUT=COLUMN".into());
        }
        let inputs = o
            .inputs
            .iter()
            .map(|m| Mapping::parse("--input", m))
            .collect::<Result<Vec<_>, _>>()?;
        let measured = maps
            .iter()
            .map(|m| table.series(m, &format!("--map {}", m.variable)))
            .collect::<Result<Vec<_>, _>>()?;
        let input_series = table.inputs(&times, &inputs)?;
        // The model's interface, from the description as given.
        let probe = Experiment {
            doc: doc.clone(),
            free: fields.clone(),
            inputs: input_series.clone(),
            outputs: Vec::new(),
            times: times.clone(),
            step: 0.0,
        };
        let model = probe
            .compile(&start)
            .map_err(|e| format!("{file} does not compile:\n{e}"))?;
        let variable = |name: &str, flag: &str, want: &[&str]| -> Result<(), String> {
            let v = model.variables.iter().find(|v| v.name == name);
            match v {
                Some(v) if want.contains(&format!("{:?}", v.causality).to_lowercase().as_str()) => {
                    Ok(())
                }
                Some(v) => Err(format!(
                    "{flag} {name}: '{name}' is {:?}; expected {}",
                    v.causality,
                    want.join(" or ")
                )),
                None => {
                    let hint =
                        names::closest(name, model.variables.iter().map(|v| v.name.as_str()))
                            .map(|c| format!("; did you mean '{c}'?"))
                            .unwrap_or_default();
                    Err(format!(
                        "{flag} {name}: the model has no variable '{name}'{hint}"
                    ))
                }
            }
        };
        for m in &maps {
            variable(&m.variable, "--map", &["output", "local"])?;
        }
        for m in &inputs {
            variable(&m.variable, "--input", &["input", "parameter"])?;
        }
        for (k, m) in maps.iter().enumerate() {
            if maps[..k].iter().any(|x| x.variable == m.variable) {
                return Err(format!("--map {}: given twice", m.variable));
            }
        }
        // Each bound compiles (the description's validation is the fields' min and max).
        for (j, s) in specs.iter().enumerate() {
            for end in [s.low, s.high] {
                let mut v = start.clone();
                v[j] = end;
                probe.compile(&v).map_err(|e| {
                    format!(
                        "--free {}={}..{}: the description is invalid with {} = {end} (SI):\n{e}",
                        s.name, s.low, s.high, s.name
                    )
                })?;
            }
        }
        // Time bases.
        let step = o.step.unwrap_or(model.default_experiment.step_size);
        if step.is_nan() || step <= 0.0 {
            return Err(format!("--step {step}: the step must be positive"));
        }
        let (t0, t1) = (times[0], times[times.len() - 1]);
        let (from, to) = o.window.unwrap_or((t0, t1));
        if from < t0 - 1e-9 || to > t1 + 1e-9 || to <= from {
            return Err(format!(
                "--window {from}..{to}: outside the record {data_file} ({t0}..{t1} s in column '{}')",
                time.column
            ));
        }
        for &t in &times {
            let k = (t - t0) / step;
            if (k - k.round()).abs() > 1e-6 {
                return Err(format!(
                    "mismatched time bases: the sample at t = {t} s of {data_file} is not on the \
                     model's communication grid ({t0} s + k·{step} s); pass --step with a \
                     divisor of the sample spacing, or resample the record"
                ));
            }
        }
        let first = times.iter().position(|&t| t >= from - 1e-9).unwrap_or(0);
        let last = times
            .iter()
            .rposition(|&t| t <= to + 1e-9)
            .unwrap_or(times.len() - 1);
        if last <= first + 1 {
            return Err(format!("--window {from}..{to}: fewer than three samples"));
        }
        // Weights.
        let mut sigma: Vec<f64> = measured.iter().map(|m| std_dev(&m[first..=last])).collect();
        for w in &o.weights {
            let (name, value) = w.split_once('=').ok_or_else(|| {
                format!("--weight {w}: expected OUTPUT=SIGMA, e.g. lift.angle=0.1deg")
            })?;
            let k = maps
                .iter()
                .position(|m| m.variable == name.trim())
                .ok_or_else(|| format!("--weight {w}: '{name}' is not a --map'ed output"))?;
            let (v, _) = crate::units::parse_quantity(value.trim())
                .map_err(|e| format!("--weight {w}: {e}"))?;
            if v.is_nan() || v <= 0.0 {
                return Err(format!(
                    "--weight {w}: the standard deviation must be positive"
                ));
            }
            sigma[k] = v;
        }
        if let Some(k) = sigma.iter().position(|s| s.is_nan() || *s <= 0.0) {
            return Err(format!(
                "--map {}: the measured channel is constant over the window; give --weight {}=SIGMA",
                maps[k].variable, maps[k].variable
            ));
        }
        let outputs: Vec<String> = maps.iter().map(|m| m.variable.clone()).collect();
        let units = maps
            .iter()
            .map(|m| (m.unit.clone().unwrap_or_default(), m.factor))
            .collect();
        let record = Experiment {
            doc,
            free: fields,
            inputs: input_series,
            outputs,
            times: times.clone(),
            step,
        };
        let mut fit = record.clone();
        fit.times = times[first..=last].to_vec();
        Ok(Setup {
            free: specs,
            start,
            fit,
            record,
            measured,
            first,
            sigma,
            units,
        })
    }

    /// Weighted residuals of a fit-window trajectory.
    fn residuals(&self, t: &Trajectory) -> DVector<f64> {
        let n = self.fit.times.len();
        let mut r = DVector::zeros(n * self.sigma.len());
        for (c, s) in self.sigma.iter().enumerate() {
            for i in 0..n {
                r[c * n + i] = if i < t.reached {
                    (t.values[c][i] - self.measured[c][self.first + i]) / s
                } else {
                    UNREACHED
                };
            }
        }
        r
    }

    /// The record simulated with `values`, and its agreement per channel.
    pub fn agreement(&self, values: &[f64]) -> Result<Agreement, String> {
        let trajectory = self.record.run(values)?;
        let window = self.first..self.first + self.fit.times.len();
        let stats = |inside: bool| -> Vec<Errors> {
            (0..self.measured.len())
                .map(|c| {
                    let (mut sq, mut n) = (0.0, 0usize);
                    let (mut max, mut at) = (f64::NAN, f64::NAN);
                    for i in 0..trajectory.reached {
                        if window.contains(&i) == inside {
                            let e = trajectory.values[c][i] - self.measured[c][i];
                            sq += e * e;
                            if max.is_nan() || e.abs() > max {
                                (max, at) = (e.abs(), self.record.times[i]);
                            }
                            n += 1;
                        }
                    }
                    let rms = if n == 0 {
                        f64::NAN
                    } else {
                        (sq / n as f64).sqrt()
                    };
                    Errors { rms, max, at }
                })
                .collect()
        };
        Ok(Agreement {
            window: stats(true),
            holdout: stats(false),
            trajectory,
        })
    }
}

fn std_dev(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    (x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt()
}

/// The least-squares problem in the optimizer's unbounded coordinates.
struct Problem<'a> {
    setup: &'a Setup,
    threads: usize,
    u: DVector<f64>,
    /// Residuals at `u` (the Jacobian's base point).
    at_u: Mutex<Option<DVector<f64>>>,
    simulations: AtomicUsize,
    progress: bool,
}

/// Forward-difference step in the unbounded coordinates (a radian of the sine transform:
/// ~5e-5 of a field's range in mid-range).
const DU: f64 = 1e-4;

impl Problem<'_> {
    fn values(&self, u: &DVector<f64>) -> Vec<f64> {
        self.setup
            .free
            .iter()
            .zip(u.iter())
            .map(|(s, u)| to_bounded(*u, s.low, s.high))
            .collect()
    }

    fn simulate(&self, u: &DVector<f64>) -> DVector<f64> {
        let values = self.values(u);
        match self.setup.fit.run(&values) {
            Ok(t) => self.setup.residuals(&t),
            // Bounds were checked to compile; a value between them that does not is a
            // step the optimizer should not take.
            Err(_) => DVector::from_element(
                self.setup.fit.times.len() * self.setup.sigma.len(),
                UNREACHED,
            ),
        }
    }

    /// Jacobian columns by forward differences from `base`, in parallel.
    fn columns(
        &self,
        u: &DVector<f64>,
        base: &DVector<f64>,
        step: impl Fn(usize) -> f64 + Sync,
    ) -> DMatrix<f64> {
        let n = u.len();
        let cols = pool::map(
            self.threads,
            n,
            |j| {
                let mut v = u.clone();
                v[j] += step(j);
                (self.simulate(&v) - base) / step(j)
            },
            |_| {},
        );
        self.simulations.fetch_add(n, Ordering::Relaxed);
        DMatrix::from_columns(&cols)
    }
}

impl LeastSquaresProblem<f64, Dyn, Dyn> for Problem<'_> {
    type ResidualStorage = Owned<f64, Dyn>;
    type JacobianStorage = Owned<f64, Dyn, Dyn>;
    type ParameterStorage = Owned<f64, Dyn>;

    fn set_params(&mut self, u: &DVector<f64>) {
        self.u.copy_from(u);
        *self.at_u.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn params(&self) -> DVector<f64> {
        self.u.clone()
    }

    fn residuals(&self) -> Option<DVector<f64>> {
        let r = self.simulate(&self.u);
        let count = self.simulations.fetch_add(1, Ordering::Relaxed) + 1;
        if self.progress {
            let values = self.values(&self.u);
            let shown: Vec<String> = self
                .setup
                .free
                .iter()
                .zip(&values)
                .map(|(s, v)| format!("{} = {v:.6}", s.name))
                .collect();
            eprintln!(
                "  simulation {:>4}: cost {:.6e}  {}",
                count,
                0.5 * r.norm_squared(),
                shown.join(", ")
            );
        }
        *self.at_u.lock().unwrap_or_else(|e| e.into_inner()) = Some(r.clone());
        Some(r)
    }

    fn jacobian(&self) -> Option<DMatrix<f64>> {
        let cached = self.at_u.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let base = match cached {
            Some(r) => r,
            None => self.residuals()?,
        };
        Some(self.columns(&self.u, &base, |_| DU))
    }
}

/// Fits the free fields of `setup`.
pub fn fit(setup: &Setup, threads: usize, max_simulations: usize, progress: bool) -> Fit {
    let n = setup.free.len();
    let u0 = DVector::from_iterator(
        n,
        setup
            .free
            .iter()
            .zip(&setup.start)
            .map(|(s, p)| from_bounded(*p, s.low, s.high)),
    );
    let problem = Problem {
        setup,
        threads,
        u: u0.clone(),
        at_u: Mutex::new(None),
        simulations: AtomicUsize::new(0),
        progress,
    };
    let cost_start = 0.5 * problem.simulate(&u0).norm_squared();
    let patience = (max_simulations / (n + 1)).max(1);
    let (problem, report) = LevenbergMarquardt::new()
        .with_ftol(1e-8)
        .with_xtol(1e-8)
        .with_patience(patience)
        .minimize(problem);
    let values = problem.values(&problem.u);
    // Statistics in the fields' own coordinates: columns by forward differences of
    // 1e-4 of each range, toward the inside.
    let base = problem.simulate(&problem.u);
    let m = base.len();
    let dp: Vec<f64> = setup
        .free
        .iter()
        .zip(&values)
        .map(|(s, p)| {
            let h = 1e-4 * (s.high - s.low);
            if p + h > s.high { -h } else { h }
        })
        .collect();
    let p_problem = |p: &DVector<f64>| -> DVector<f64> {
        match setup.fit.run(p.as_slice()) {
            Ok(t) => setup.residuals(&t),
            Err(_) => DVector::from_element(m, UNREACHED),
        }
    };
    let p = DVector::from_vec(values.clone());
    let cols = pool::map(
        threads,
        n,
        |j| {
            let mut q = p.clone();
            q[j] += dp[j];
            (p_problem(&q) - &base) / dp[j]
        },
        |_| {},
    );
    let jac = DMatrix::from_columns(&cols);
    let cost = 0.5 * base.norm_squared();
    let dof = (m.saturating_sub(n)).max(1) as f64;
    let s2 = 2.0 * cost / dof;
    let (std_errors, correlation) = match (jac.transpose() * &jac).try_inverse() {
        Some(inv) => {
            let cov = inv * s2;
            let se: Vec<f64> = (0..n).map(|i| cov[(i, i)].max(0.0).sqrt()).collect();
            let corr = DMatrix::from_fn(n, n, |i, j| cov[(i, j)] / (se[i] * se[j]));
            (se, corr)
        }
        None => (vec![f64::NAN; n], DMatrix::from_element(n, n, f64::NAN)),
    };
    // A value pressed against its bound has no standard error worth printing.
    let std_errors = std_errors
        .iter()
        .zip(setup.free.iter().zip(&values))
        .map(|(se, (s, v))| {
            let margin = 1e-3 * (s.high - s.low);
            if *v - s.low < margin || s.high - *v < margin {
                f64::NAN
            } else {
                *se
            }
        })
        .collect();
    Fit {
        values,
        std_errors,
        correlation,
        cost_start,
        cost,
        residuals: m,
        simulations: problem.simulations.load(Ordering::Relaxed) + n + 2,
        termination: format!("{:?}", report.termination),
    }
}
