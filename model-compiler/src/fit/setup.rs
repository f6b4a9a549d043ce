//! A fit's problem, read and checked before any simulation: the free fields in the
//! description, the record and its mapped columns, the model's interface, the bounds, the
//! time bases and the channels' weights.

use super::data::{Mapping, Table};
use super::experiment::{Experiment, Trajectory};
use super::field::{Document, Field};
use super::free::FreeSpec;
use super::{Agreement, Errors, Options, UNREACHED};
use crate::names;
use fmu_runtime::model::CompiledModel;
use nalgebra::DVector;

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
        let (fields, start) = free_fields(&doc, &specs)?;
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
        for m in &maps {
            check_variable(&model, &m.variable, "--map", &["output", "local"])?;
        }
        for m in &inputs {
            check_variable(&model, &m.variable, "--input", &["input"])?;
        }
        for (k, m) in maps.iter().enumerate() {
            if maps[..k].iter().any(|x| x.variable == m.variable) {
                return Err(format!("--map {}: given twice", m.variable));
            }
        }
        check_bounds(&probe, &specs, &start)?;
        // Time bases.
        let step = o.step.unwrap_or(model.default_experiment.step_size);
        if step.is_nan() || step <= 0.0 {
            return Err(format!("--step {step}: the step must be positive"));
        }
        let (first, last) = window_samples(&times, step, o.window, &data_file, &time.column)?;
        // Weights.
        let sigma = channel_sigmas(&measured[..], first..=last, &maps, &o.weights)?;
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
    pub(super) fn residuals(&self, t: &Trajectory) -> DVector<f64> {
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

    /// The weighted residuals of the fit window simulated with `values`. Bounds were
    /// checked to compile; a value between them that does not scores like a failed run:
    /// a step the optimizer should not take.
    pub(super) fn weighted_residuals(&self, values: &[f64]) -> DVector<f64> {
        match self.fit.run(values) {
            Ok(t) => self.residuals(&t),
            Err(_) => DVector::from_element(self.fit.times.len() * self.sigma.len(), UNREACHED),
        }
    }

    /// The fit window's first and last sample times.
    pub fn window(&self) -> (f64, f64) {
        let t = &self.fit.times;
        (t[0], t[t.len() - 1])
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

/// The fields of each free parameter (tied ones together) and its start value, checked:
/// each field exists, none given twice, tied fields agree, the start lies within bounds.
fn free_fields(doc: &Document, specs: &[FreeSpec]) -> Result<(Vec<Vec<Field>>, Vec<f64>), String> {
    let mut fields: Vec<Vec<Field>> = Vec::new();
    let mut start = Vec::new();
    for s in specs {
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
    Ok((fields, start))
}

/// `name` is a variable of `model` with one of the causalities `want`.
fn check_variable(
    model: &CompiledModel,
    name: &str,
    flag: &str,
    want: &[&str],
) -> Result<(), String> {
    match model.variables.iter().find(|v| v.name == name) {
        Some(v) if want.contains(&format!("{:?}", v.causality).to_lowercase().as_str()) => Ok(()),
        Some(v) => Err(format!(
            "{flag} {name}: '{name}' is {:?}; expected {}",
            v.causality,
            want.join(" or ")
        )),
        None => {
            let hint = names::closest(name, model.variables.iter().map(|v| v.name.as_str()))
                .map(|c| format!("; did you mean '{c}'?"))
                .unwrap_or_default();
            Err(format!(
                "{flag} {name}: the model has no variable '{name}'{hint}"
            ))
        }
    }
}

/// Each bound compiles: the description's own validation is the fields' min and max.
fn check_bounds(probe: &Experiment, specs: &[FreeSpec], start: &[f64]) -> Result<(), String> {
    for (j, s) in specs.iter().enumerate() {
        for end in [s.low, s.high] {
            let mut v = start.to_vec();
            v[j] = end;
            probe.compile(&v).map_err(|e| {
                format!(
                    "--free {}={}..{}: the description is invalid with {} = {end} (SI):\n{e}",
                    s.name, s.low, s.high, s.name
                )
            })?;
        }
    }
    Ok(())
}

/// The record's samples inside `window` (first, last), checked against the record's span
/// and the model's communication grid.
fn window_samples(
    times: &[f64],
    step: f64,
    window: Option<(f64, f64)>,
    data_file: &str,
    column: &str,
) -> Result<(usize, usize), String> {
    let (t0, t1) = (times[0], times[times.len() - 1]);
    let (from, to) = window.unwrap_or((t0, t1));
    if from < t0 - 1e-9 || to > t1 + 1e-9 || to <= from {
        return Err(format!(
            "--window {from}..{to}: outside the record {data_file} ({t0}..{t1} s in column '{}')",
            column
        ));
    }
    for &t in times {
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
    Ok((first, last))
}

/// Each channel's standard deviation: `--weight OUTPUT=SIGMA`, else the measured channel's
/// over the window.
fn channel_sigmas(
    measured: &[Vec<f64>],
    window: std::ops::RangeInclusive<usize>,
    maps: &[Mapping],
    weights: &[String],
) -> Result<Vec<f64>, String> {
    let mut sigma: Vec<f64> = measured
        .iter()
        .map(|m| std_dev(&m[window.clone()]))
        .collect();
    for w in weights {
        let (name, value) = w.split_once('=').ok_or_else(|| {
            format!("--weight {w}: expected OUTPUT=SIGMA, e.g. lift.angle=0.1deg")
        })?;
        let k = maps
            .iter()
            .position(|m| m.variable == name.trim())
            .ok_or_else(|| format!("--weight {w}: '{name}' is not a --map'ed output"))?;
        let (v, _) =
            crate::units::parse_quantity(value.trim()).map_err(|e| format!("--weight {w}: {e}"))?;
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
    Ok(sigma)
}

fn std_dev(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    (x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt()
}
