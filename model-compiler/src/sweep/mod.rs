//! `hydromech sweep`: one machine run over a grid of parameter values, or over random
//! draws of them (`--samples`), in-process on all cores (issue 20).
//!
//! The FMU is unpacked and loaded once; each case is an instance of it, run from
//! instantiation to the stop time by [`simulate::run_loaded`] with the case's values set
//! before initialization, on one of `threads` worker threads (a hydromech FMU keeps no
//! global state; a foreign FMU is swept on one thread). A case's row holds its parameter
//! values, whether it ran to the end, and the final, minimum, maximum and RMS value of each
//! recorded output over the communication points. A failing case (a step the solver could
//! not take, a value the FMU refused) keeps its row with the reason; the others go on.

pub mod dask;
pub mod grid;
pub mod pool;
pub mod table;
pub mod variants;

use crate::fit::field::Field;
use crate::host::fmi::Fmu;
use crate::simulate::{self, real_variable};
use grid::{Range, Sampling};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use table::{Table, Values};
use variants::Variants;

/// What a sweep runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub ranges: Vec<Range>,
    /// `--samples N`: random cases instead of the grid.
    pub sampling: Option<Sampling>,
    /// Each case's run: stop time, step, inputs (as `input_series`), recorded variables.
    pub run: simulate::Options,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// A progress line on stderr.
    pub progress: bool,
    /// Keep each case's trajectory ([`Sweep::trajectories`]).
    pub trajectories: bool,
    /// The description the FMU was built from: `--param` may then name its fields.
    pub variants: Option<std::sync::Arc<variants::Variants>>,
}

/// The statistics of one recorded output over a case's communication points.
pub const STATISTICS: [&str; 4] = ["final", "min", "max", "rms"];

/// One case's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The swept parameters' values, in the order of the ranges.
    pub values: Vec<f64>,
    /// Per recorded output: final, min, max, RMS (NaN when the case failed).
    pub statistics: Vec<[f64; 4]>,
    /// Why the case did not run to the stop time.
    pub failure: Option<String>,
    /// Wall time of the case [s].
    pub seconds: f64,
    /// The recorded outputs at every communication point, when the sweep keeps them.
    pub trajectory: Option<simulate::Results>,
}

/// A sweep's results, one case per grid point in grid order.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub parameters: Vec<String>,
    pub outputs: Vec<String>,
    pub cases: Vec<Case>,
    pub threads: usize,
    pub wall: Duration,
}

/// Every swept name is a Real parameter or input of the FMU, and every case's value within
/// its declared range — checked before any case runs.
pub fn validate(
    fmu: &Fmu,
    ranges: &[Range],
    cases: &[Vec<f64>],
    variants: Option<&Variants>,
) -> Result<Vec<Option<Field>>, String> {
    let mut fields = Vec::new();
    for (j, r) in ranges.iter().enumerate() {
        let what = format!("--param {}", r.name);
        let values = cases.iter().map(|c| c[j]);
        let v = match (real_variable(fmu, &r.name, &what), variants) {
            (Ok(v), _) => v,
            (Err(e), None) => return Err(e),
            (Err(e), Some(variants)) => {
                let field = variants
                    .field(&r.name)
                    .map_err(|fe| format!("{e}; nor is it a field of the description: {fe}"))?;
                // The extremes compile and keep the interface (the description's own
                // validation is the field's min and max).
                let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                    (lo.min(x), hi.max(x))
                });
                for x in [lo, hi] {
                    variants
                        .model(std::slice::from_ref(&field), &[x])
                        .map_err(|e| format!("{what}: with {x} (SI): {e}"))?;
                }
                fields.push(Some(field));
                continue;
            }
        };
        if !matches!(v.causality.as_str(), "parameter" | "input") {
            return Err(format!(
                "{what}: '{}' is an {} variable; only parameters and inputs can be swept",
                v.name, v.causality
            ));
        }
        if v.variability == "constant" {
            return Err(format!("{what}: '{}' is a constant", v.name));
        }
        for x in values {
            if let Some(min) = v.min.filter(|m| x < *m) {
                return Err(format!(
                    "{what}: {x} is below the minimum {min} of '{}'",
                    v.name
                ));
            }
            if let Some(max) = v.max.filter(|m| x > *m) {
                return Err(format!(
                    "{what}: {x} is above the maximum {max} of '{}'",
                    v.name
                ));
            }
        }
        fields.push(None);
    }
    let mut names: Vec<&str> = ranges.iter().map(|r| r.name.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("--param {}: given twice", w[0]));
    }
    Ok(fields)
}

/// The cases `o` asks for, checked against `fmu`, without running them: `case` and the
/// parameters' values per row (`hydromech sweep --cases-only`, for a cluster's workers:
/// python/hydromech).
pub fn cases_csv(fmu: &Fmu, o: &Options) -> Result<String, String> {
    let grid = cases(fmu, o)?;
    let mut s = String::from("case");
    for r in &o.ranges {
        let _ = write!(s, ",{}", r.name);
    }
    s.push('\n');
    for (k, c) in grid.iter().enumerate() {
        let _ = write!(s, "{k}");
        for v in c {
            let _ = write!(s, ",{v:?}");
        }
        s.push('\n');
    }
    Ok(s)
}

/// The cases `o` asks for, checked against `fmu` as a cluster's workers run them: the FMU
/// as built (description fields are swept in-process only). `cases[k][j]`: the value of
/// range `j` in case `k`.
pub fn cases(fmu: &Fmu, o: &Options) -> Result<Vec<Vec<f64>>, String> {
    let grid = grid::cases(&o.ranges, o.sampling)?;
    validate(fmu, &o.ranges, &grid, None)?;
    Ok(grid)
}

/// The summarized outputs: `--vars`, checked, or every Real output.
pub fn recorded_outputs(fmu: &Fmu, vars: &[String]) -> Result<Vec<String>, String> {
    if vars.is_empty() {
        return Ok(fmu
            .description
            .real_outputs()
            .iter()
            .map(|v| v.name.clone())
            .collect());
    }
    vars.iter()
        .map(|n| real_variable(fmu, n.trim(), "--vars").map(|v| v.name.clone()))
        .collect()
}

/// Runs every case of the grid on `fmu`.
pub fn run(fmu: &Fmu, o: &Options) -> Result<Sweep, String> {
    run_cases(fmu, o, grid::cases(&o.ranges, o.sampling)?)
}

/// Runs the given cases (`grid[k][j]`: the value of range `j` in case `k`; the ranges'
/// specs are not read): a cluster worker's share of a sweep, each row computed as the
/// in-process sweep computes it.
pub fn run_cases(fmu: &Fmu, o: &Options, grid: Vec<Vec<f64>>) -> Result<Sweep, String> {
    if let Some(c) = grid.iter().find(|c| c.len() != o.ranges.len()) {
        return Err(format!(
            "a case has {} values for {} swept parameters",
            c.len(),
            o.ranges.len()
        ));
    }
    let fields = validate(fmu, &o.ranges, &grid, o.variants.as_deref())?;
    let md = &fmu.description;
    let outputs = recorded_outputs(fmu, &o.run.vars)?;
    let threads = if md.generation_tool.starts_with("hydromech") {
        o.threads.clamp(1, grid.len().max(1))
    } else {
        1
    };
    let began = Instant::now();
    let cases = pool::map(
        threads,
        grid.len(),
        |k| run_case(fmu, o, &fields, k, &grid[k], outputs.len()),
        |done| {
            if o.progress {
                progress(done, grid.len(), began);
            }
        },
    );
    Ok(Sweep {
        parameters: o.ranges.iter().map(|r| r.name.clone()).collect(),
        outputs,
        cases,
        threads,
        wall: began.elapsed(),
    })
}

/// One case (`k`): its parameter values set before initialization, its description
/// fields (`fields[j]` for range `j`) in a variant model file, run to the stop time.
fn run_case(
    fmu: &Fmu,
    o: &Options,
    fields: &[Option<Field>],
    k: usize,
    values: &[f64],
    outputs: usize,
) -> Case {
    let mut run = o.run.clone();
    run.progress = false;
    let (mut changed, mut changed_values) = (Vec::new(), Vec::new());
    for ((r, v), field) in o.ranges.iter().zip(values).zip(fields) {
        match field {
            Some(f) => {
                changed.push(f.clone());
                changed_values.push(*v);
            }
            // `{:?}` writes the shortest text that parses back to the same f64.
            None => run.set.push(format!("{}={v:?}", r.name)),
        }
    }
    let started = Instant::now();
    let variant = match (&o.variants, changed.is_empty()) {
        (Some(variants), false) => Some(
            variants
                .model(&changed, &changed_values)
                .and_then(|m| variants.write(k, &m)),
        ),
        _ => None,
    };
    let outcome = match &variant {
        Some(Err(e)) => Err((simulate::Results::default(), e.clone())),
        Some(Ok(resources)) => {
            run.resources = Some(resources.clone());
            simulate::run_loaded(fmu, &run)
        }
        None => simulate::run_loaded(fmu, &run),
    };
    if let (Some(variants), Some(Ok(resources))) = (&o.variants, &variant) {
        variants.remove(resources);
    }
    let seconds = started.elapsed().as_secs_f64();
    let (statistics, failure, results) = match outcome {
        Ok(results) => (statistics(&results), None, results),
        Err((partial, e)) => (vec![[f64::NAN; 4]; outputs], Some(e), partial),
    };
    Case {
        values: values.to_vec(),
        statistics,
        failure,
        seconds,
        trajectory: o.trajectories.then_some(results),
    }
}

/// Final, min, max and RMS of each column of a run.
fn statistics(r: &simulate::Results) -> Vec<[f64; 4]> {
    (0..r.names.len())
        .map(|j| {
            let column = r.rows.iter().map(|row| row[j]);
            let n = r.rows.len().max(1) as f64;
            let last = r.rows.last().map_or(f64::NAN, |row| row[j]);
            let (min, max, sq) = column.fold(
                (f64::INFINITY, f64::NEG_INFINITY, 0.0),
                |(lo, hi, sq), v| (lo.min(v), hi.max(v), sq + v * v),
            );
            [last, min, max, (sq / n).sqrt()]
        })
        .collect()
}

/// The progress line, every half second until every case is done.
fn progress(done: &AtomicUsize, total: usize, began: Instant) {
    let mut err = std::io::stderr();
    let terminal = err.is_terminal();
    loop {
        let d = done.load(Ordering::Relaxed);
        let line = format!(
            "sweep: {d}/{total} cases, {:.1} s",
            began.elapsed().as_secs_f64()
        );
        let _ = if terminal {
            write!(err, "\r{line}\x1b[K")
        } else if d == total {
            writeln!(err, "{line}")
        } else {
            Ok(())
        };
        let _ = err.flush();
        if d == total {
            if terminal {
                let _ = writeln!(err);
            }
            return;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

impl Sweep {
    /// One row per case: `case`, the parameters, `status` (ok / failed), `message`, then
    /// `<output>.final`, `.min`, `.max`, `.rms` per recorded output.
    pub fn to_table(&self) -> Table {
        let mut t = Table::default();
        t.push("case", Values::Int((0..self.cases.len() as i64).collect()));
        for (j, p) in self.parameters.iter().enumerate() {
            t.push(
                p.clone(),
                Values::Real(self.cases.iter().map(|c| c.values[j]).collect()),
            );
        }
        t.push(
            "status",
            Values::Word(
                self.cases
                    .iter()
                    .map(|c| if c.failure.is_some() { "failed" } else { "ok" })
                    .collect(),
            ),
        );
        t.push(
            "message",
            Values::Text(
                self.cases
                    .iter()
                    .map(|c| c.failure.clone().unwrap_or_default())
                    .collect(),
            ),
        );
        for (o, name) in self.outputs.iter().enumerate() {
            for (k, stat) in STATISTICS.iter().enumerate() {
                t.push(
                    format!("{name}.{stat}"),
                    Values::Real(self.cases.iter().map(|c| c.statistics[o][k]).collect()),
                );
            }
        }
        t
    }

    pub fn to_csv(&self) -> String {
        self.to_table().to_csv()
    }

    /// Every case's trajectory in one long table: `case`, `time`, then the recorded
    /// outputs, one row per communication point (a failed case up to where it stopped).
    /// Empty unless the sweep kept trajectories.
    pub fn trajectories(&self) -> Table {
        let (mut case, mut time) = (Vec::new(), Vec::new());
        let mut columns = vec![Vec::new(); self.outputs.len()];
        for (k, c) in self.cases.iter().enumerate() {
            let Some(r) = &c.trajectory else { continue };
            for (t, row) in r.time.iter().zip(&r.rows) {
                case.push(k as i64);
                time.push(*t);
                for (col, v) in columns.iter_mut().zip(row) {
                    col.push(*v);
                }
            }
        }
        let mut t = Table::default();
        t.push("case", Values::Int(case));
        t.push("time", Values::Real(time));
        for (name, col) in self.outputs.iter().zip(columns) {
            t.push(name.clone(), Values::Real(col));
        }
        t
    }

    /// Failed cases.
    pub fn failures(&self) -> usize {
        self.cases.iter().filter(|c| c.failure.is_some()).count()
    }

    /// Median wall time of a case [s].
    pub fn median_case_seconds(&self) -> f64 {
        let mut t: Vec<f64> = self.cases.iter().map(|c| c.seconds).collect();
        t.sort_by(f64::total_cmp);
        t.get(t.len() / 2).copied().unwrap_or(f64::NAN)
    }
}
