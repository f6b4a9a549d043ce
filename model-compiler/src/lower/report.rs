//! `[report]`: the standard manoeuvre and plots of `hydromech report`, checked against the
//! FMU interface like the rest of the description. CSV files are read (and their columns
//! checked) by [`crate::report`], which knows where the description lives.

use super::{Ctx, Expect};
use crate::description::{Description, Located, Name, PlotDesc, SignalSourceDesc};
use crate::units::{self, Dim};
use fmu_runtime::model::{Causality, CompiledModel, VarType, Variable};
use std::ops::Range;

/// The checked `[report]` table (or the defaults when the description has none).
#[derive(Clone, Debug, PartialEq)]
pub struct ReportSpec {
    /// The description has a `[report]` table.
    pub declared: bool,
    pub start_time: f64,
    pub stop_time: f64,
    /// Communication step of the run [s].
    pub step: f64,
    /// World axes (0 = x, 1 = y, 2 = z) drawn horizontally and vertically.
    pub view: [usize; 2],
    pub inputs: Vec<ReportInput>,
    /// FMI Real parameters (or inputs) set before initialization, SI.
    pub parameters: Vec<(String, f64)>,
    pub plots: Vec<PlotSpec>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReportInput {
    /// FMI input name.
    pub name: String,
    pub source: InputSource,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InputSource {
    /// `(t, value SI)`, piecewise linear; a repeated time is a step.
    Schedule(Vec<(f64, f64)>),
    Csv(CsvColumn),
}

/// A column of a CSV file, with the positions of its description for later errors.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvColumn {
    /// As written (relative to the description file).
    pub file: String,
    pub file_span: Range<usize>,
    /// Time column; `None` = the first column.
    pub time: Option<(String, Range<usize>)>,
    pub column: String,
    pub column_span: Range<usize>,
    /// Multiplier from the file's numbers to SI (scale × unit factor).
    pub factor: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PlotSpec {
    pub title: String,
    /// FMI Real variable names.
    pub signals: Vec<String>,
    /// Axis unit label (`""` = dimensionless).
    pub unit: String,
    /// SI value of one display unit: `display = SI / factor`.
    pub factor: f64,
    pub references: Vec<ReferenceSpec>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceSpec {
    pub label: String,
    /// The plotted signal it is compared with.
    pub signal: String,
    pub column: CsvColumn,
}

/// Interface variables added to every FMU (not listed in the default plots).
pub fn is_automatic(name: &str) -> bool {
    ["solver.", "energy.", "constraints."]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The dimension of an FMI variable (from its SI unit name).
pub fn variable_dim(v: &Variable) -> Dim {
    v.unit
        .as_deref()
        .and_then(|u| units::parse_unit(u).ok())
        .map_or(Dim::NONE, |u| u.dim)
}

/// The default drawing plane: the world axis most aligned with gravity is vertical.
pub fn default_view(gravity: [f64; 3]) -> [usize; 2] {
    let up = (0..3)
        .max_by(|&a, &b| gravity[a].abs().total_cmp(&gravity[b].abs()))
        .unwrap_or(1);
    match up {
        0 => [1, 0],
        1 => [0, 1],
        _ => [0, 2],
    }
}

/// Default plots: the interface outputs grouped by unit (at most 6 panels of 5 signals),
/// in their display units.
pub fn default_plots(model: &CompiledModel) -> Vec<PlotSpec> {
    let mut plots: Vec<PlotSpec> = Vec::new();
    let mut units_seen: Vec<Option<String>> = Vec::new();
    for v in &model.variables {
        if v.causality != Causality::Output || v.var_type != VarType::Real || is_automatic(&v.name)
        {
            continue;
        }
        if let Some(k) = units_seen.iter().position(|u| *u == v.unit) {
            if plots[k].signals.len() < 5 {
                plots[k].signals.push(v.name.clone());
            }
            continue;
        }
        if plots.len() == 6 {
            continue;
        }
        let (unit, factor) = match v.unit.as_deref() {
            Some(si) => match units::display_units(si).first() {
                Some((name, f, _)) => (name.to_string(), 1.0 / f),
                None => (si.to_string(), 1.0),
            },
            None => (String::new(), 1.0),
        };
        units_seen.push(v.unit.clone());
        plots.push(PlotSpec {
            title: String::new(),
            signals: vec![v.name.clone()],
            unit,
            factor,
            references: Vec::new(),
        });
    }
    for p in &mut plots {
        p.title = p.signals.join(", ");
    }
    plots
}

fn expect_for(dim: Dim) -> Expect {
    if dim == Dim::NONE {
        Expect::Signal
    } else {
        Expect::Dim(dim)
    }
}

/// `unit` is acceptable on an axis (or column) of dimension `dim`.
fn compatible(dim: Dim, unit: Dim) -> bool {
    dim == unit || (dim == Dim::NONE && [Dim::VOLTAGE, Dim::CURRENT].contains(&unit))
}

fn variable<'a>(
    cx: &mut Ctx,
    model: &'a CompiledModel,
    name: &Name,
    kind: &str,
    ok: impl Fn(&Variable) -> bool,
) -> Option<&'a Variable> {
    let found = model
        .variables
        .iter()
        .find(|v| v.name == *name.get_ref() && ok(v));
    if found.is_none() {
        let candidates: Vec<&str> = model
            .variables
            .iter()
            .filter(|v| ok(v))
            .map(|v| v.name.as_str())
            .collect();
        cx.unknown(name, kind, candidates);
    }
    found
}

/// A unit written in `[report]` (`"deg"`, `"bar"`, ...).
fn unit(cx: &mut Ctx, u: &Name) -> Option<units::Unit> {
    match units::parse_unit(u.get_ref()) {
        Ok(x) => Some(x),
        Err(e) => {
            cx.error(
                u.span(),
                e.0,
                "write a unit such as \"deg\", \"bar\", \"mm\" or \"L/min\"",
            );
            None
        }
    }
}

fn csv_column(
    cx: &mut Ctx,
    csv: &Name,
    time: &Option<Name>,
    column: &Name,
    factor: f64,
) -> CsvColumn {
    if csv.get_ref().trim().is_empty() {
        cx.error(
            csv.span(),
            "the CSV file name is empty",
            "give the file relative to the description, e.g. csv = \"../tests/data/run.csv\"",
        );
    }
    CsvColumn {
        file: csv.get_ref().clone(),
        file_span: csv.span(),
        time: time.as_ref().map(|t| (t.get_ref().clone(), t.span())),
        column: column.get_ref().clone(),
        column_span: column.span(),
        factor,
    }
}

pub(super) fn lower_report(cx: &mut Ctx, d: &Description, model: &CompiledModel) -> ReportSpec {
    let e = &model.default_experiment;
    let mut spec = ReportSpec {
        declared: d.report.is_some(),
        start_time: e.start_time,
        stop_time: e.stop_time,
        step: e.step_size,
        view: default_view(model.gravity),
        inputs: Vec::new(),
        parameters: Vec::new(),
        plots: Vec::new(),
    };
    let Some(r) = &d.report else {
        spec.plots = default_plots(model);
        return spec;
    };
    let time = Expect::Dim(Dim::TIME);
    if let Some(q) = &r.stop_time {
        spec.stop_time = cx.value(q, time);
        if spec.stop_time <= spec.start_time {
            cx.error(
                q.span(),
                format!(
                    "the report's stop_time ({} s) must be after the start time ({} s)",
                    spec.stop_time, spec.start_time
                ),
                "increase stop_time",
            );
        }
    }
    if let Some(q) = &r.step {
        spec.step = cx.value(q, time);
        cx.require_positive(q, spec.step, "step");
    }
    if let Some(v) = &r.view {
        let axes: Vec<Option<usize>> = v
            .get_ref()
            .chars()
            .map(|c| "xyz".find(c.to_ascii_lowercase()))
            .collect();
        match axes[..] {
            [Some(a), Some(b)] if a != b => spec.view = [a, b],
            _ => cx.error(
                v.span(),
                format!("'{}' is not a drawing plane", v.get_ref()),
                "give two different world axes, horizontal then vertical: \"xy\", \"xz\", \"zy\", ...",
            ),
        }
    }

    for (name, source) in &r.inputs {
        let Some(var) = variable(cx, model, name, "FMI input", |v| {
            v.causality == Causality::Input && v.var_type == VarType::Real
        }) else {
            continue;
        };
        let dim = variable_dim(var);
        let source = match source.get_ref() {
            SignalSourceDesc::Schedule(points) => {
                let span = source.span_or(name.span());
                if points.is_empty() {
                    cx.error(
                        span,
                        "the schedule is empty",
                        "give [[t, value], ...] with at least one point",
                    );
                }
                let mut out = Vec::new();
                for p in points {
                    let [t, v] = p.get_ref();
                    let t_value = cx.value(t, time);
                    let v_value = cx.value(v, expect_for(dim));
                    if out.last().is_some_and(|&(last, _)| t_value < last) {
                        cx.error(
                            t.span(),
                            format!("time {t_value} s is earlier than the point before"),
                            "list the points in time order (a repeated time makes a step)",
                        );
                    }
                    out.push((t_value, v_value));
                }
                InputSource::Schedule(out)
            }
            SignalSourceDesc::Csv(c) => {
                let scale = cx.value_or(c.scale.as_ref(), Expect::Dim(Dim::NONE), 1.0);
                let mut factor = scale;
                if let Some(u) = &c.unit
                    && let Some(x) = unit(cx, u)
                {
                    if compatible(dim, x.dim) {
                        factor *= x.factor;
                    } else {
                        cx.error(
                            u.span(),
                            format!(
                                "'{}' is not a unit of input '{}' ({})",
                                u.get_ref(),
                                var.name,
                                dim.describe()
                            ),
                            "give the unit of the CSV column after scale, in the input's dimension",
                        );
                    }
                }
                InputSource::Csv(csv_column(cx, &c.csv, &c.time, &c.column, factor))
            }
        };
        spec.inputs.push(ReportInput {
            name: var.name.clone(),
            source,
        });
    }

    for (name, q) in &r.parameters {
        let Some(var) = variable(cx, model, name, "FMI parameter", |v| {
            matches!(v.causality, Causality::Parameter | Causality::Input)
                && v.var_type == VarType::Real
        }) else {
            continue;
        };
        let value = cx.value(q, expect_for(variable_dim(var)));
        spec.parameters.push((var.name.clone(), value));
    }

    for p in &r.plots {
        if let Some(plot) = lower_plot(cx, model, p) {
            spec.plots.push(plot);
        }
    }
    if r.plots.is_empty() {
        spec.plots = default_plots(model);
    }
    spec
}

fn lower_plot(cx: &mut Ctx, model: &CompiledModel, p: &Located<PlotDesc>) -> Option<PlotSpec> {
    let p = p.get_ref();
    if p.signals.get_ref().is_empty() {
        cx.error(
            p.signals.span(),
            "a plot needs at least one signal",
            "list FMI variables, e.g. signals = [\"boom.angle\"]",
        );
        return None;
    }
    let mut vars = Vec::new();
    for s in p.signals.get_ref() {
        if let Some(v) = variable(cx, model, s, "FMI variable", |v| {
            v.var_type == VarType::Real
        }) {
            vars.push((s, v));
        }
    }
    if vars.len() != p.signals.get_ref().len() {
        return None;
    }
    let dim = variable_dim(vars[0].1);
    let (unit_label, factor) = match &p.unit {
        Some(u) => {
            let x = unit(cx, u)?;
            for (s, v) in &vars {
                let d = variable_dim(v);
                if !compatible(d, x.dim) {
                    cx.error(
                        s.span(),
                        format!(
                            "'{}' ({}) cannot be shown in '{}' ({})",
                            v.name,
                            d.describe(),
                            u.get_ref(),
                            x.dim.describe()
                        ),
                        "the signals of a plot share its unit: split them into two plots",
                    );
                    return None;
                }
            }
            (u.get_ref().clone(), x.factor)
        }
        None => {
            for (s, v) in &vars[1..] {
                if v.unit != vars[0].1.unit {
                    cx.error(
                        s.span(),
                        format!(
                            "'{}' is in {} but '{}' in {}",
                            v.name,
                            v.unit.as_deref().unwrap_or("1"),
                            vars[0].1.name,
                            vars[0].1.unit.as_deref().unwrap_or("1")
                        ),
                        "the signals of a plot share its y axis: split them into two plots",
                    );
                    return None;
                }
            }
            (vars[0].1.unit.clone().unwrap_or_default(), 1.0)
        }
    };
    let mut references = Vec::new();
    for r in &p.references {
        let rspan = r.span_or(r.get_ref().column.span());
        let r = r.get_ref();
        let signal = match &r.signal {
            Some(s) => {
                if !vars.iter().any(|(_, v)| v.name == *s.get_ref()) {
                    let names: Vec<&str> = vars.iter().map(|(_, v)| v.name.as_str()).collect();
                    cx.unknown(s, "signal of this plot", names);
                    continue;
                }
                s.get_ref().clone()
            }
            None if vars.len() == 1 => vars[0].1.name.clone(),
            None => {
                cx.error(
                    rspan,
                    "this reference does not say which signal it is compared with",
                    "add signal = \"...\", one of the plot's signals",
                );
                continue;
            }
        };
        let scale = cx.value_or(r.scale.as_ref(), Expect::Dim(Dim::NONE), 1.0);
        let mut col_factor = scale * factor;
        if let Some(u) = &r.unit
            && let Some(x) = unit(cx, u)
        {
            if compatible(dim, x.dim) {
                col_factor = scale * x.factor;
            } else {
                cx.error(
                    u.span(),
                    format!(
                        "'{}' ({}) is not a unit of this plot ({})",
                        u.get_ref(),
                        x.dim.describe(),
                        dim.describe()
                    ),
                    "give the unit of the CSV column after scale",
                );
            }
        }
        references.push(ReferenceSpec {
            label: r
                .label
                .clone()
                .unwrap_or_else(|| r.column.get_ref().clone()),
            signal,
            column: csv_column(cx, &r.csv, &r.time, &r.column, col_factor),
        });
    }
    Some(PlotSpec {
        title: p.title.clone().unwrap_or_else(|| {
            vars.iter()
                .map(|(_, v)| v.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }),
        signals: vars.iter().map(|(_, v)| v.name.clone()).collect(),
        unit: unit_label,
        factor,
        references,
    })
}
