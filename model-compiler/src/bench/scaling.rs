//! The scaling study: generated families ([`super::family`]) compiled in-process and
//! stepped through [`fmu_runtime::Instance::advance`] directly (no FMU, no C ABI).
//!
//! Every member is measured on both linear-solver paths (dense LU with partial pivoting and
//! the sparse LU on the structural pattern); `automatic` marks the path the runtime picks
//! for it by itself (`linear_solver = "auto"`), so the data show whether the rule picks the
//! faster one.

use super::family::{self, Family};
use super::schedule;
use super::stats::{Stats, log_log_slope, stats};
use crate::diagnostic::Source;
use crate::host::xml::{ScalarVariable, VarType};
use fmu_runtime::model::{Binding, Causality, CompiledModel, LinearSolver, ParamId};
use fmu_runtime::solver::Layout;
use fmu_runtime::solver::plan::SolverPath;
use fmu_runtime::{Instance, StepError};
use std::sync::Arc;
use std::time::Instant;

/// One family member's size and step cost.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingRow {
    pub family: &'static str,
    pub stages: usize,
    pub model: String,
    pub bodies: usize,
    /// Tree joints with a coordinate plus cut joints.
    pub joints: usize,
    /// Kinematic loops (cut joints).
    pub loops: usize,
    pub cylinders: usize,
    /// Hydraulic control volumes (pressure unknowns).
    pub volumes: usize,
    pub dof: usize,
    pub nz: usize,
    pub nw: usize,
    pub nc: usize,
    /// Newton unknowns `nz + nw` (the dense tangent is unknowns²).
    pub unknowns: usize,
    pub solver_path: &'static str,
    /// The path `linear_solver = "auto"` chooses for this member.
    pub automatic: bool,
    /// Evaluations per tangent refresh: full (grouped joint-coordinate columns) and
    /// partial (grouped first-order columns).
    pub refresh_full: usize,
    pub refresh_partial: usize,
    /// Entries of the structural pattern; of the sparse L + U; multiply–subtracts of one
    /// sparse factorisation.
    pub pattern_nonzeros: usize,
    pub lu_nonzeros: usize,
    pub lu_flops: f64,
    pub step_size: f64,
    pub steps: usize,
    /// Wall time of one internal step (`advance` by one step) [s].
    pub step: Stats,
    pub iterations: Stats,
    pub compile_time: f64,
    pub failure: Option<String>,
}

/// Settings of the study.
#[derive(Clone, Debug)]
pub struct ScalingSettings {
    pub stages: Vec<usize>,
    pub steps: usize,
    pub warmup: usize,
}

impl Default for ScalingSettings {
    fn default() -> ScalingSettings {
        ScalingSettings {
            stages: family::STAGES.to_vec(),
            steps: 1000,
            warmup: 100,
        }
    }
}

/// The inputs of a compiled model as the harness's scalar variables, with their slots.
fn inputs(model: &CompiledModel) -> Vec<(ScalarVariable, ParamId)> {
    model
        .variables
        .iter()
        .filter(|v| v.causality == Causality::Input)
        .filter_map(|v| match v.binding {
            Binding::Param(id) => Some((
                ScalarVariable {
                    name: v.name.clone(),
                    value_reference: v.value_reference,
                    causality: "input".into(),
                    variability: "continuous".into(),
                    var_type: VarType::Real,
                    start: v.start,
                    min: v.min,
                    max: v.max,
                    unit: None,
                    display_unit: None,
                },
                id,
            )),
            Binding::Probe(_) => None,
        })
        .collect()
}

/// Steps `model` `n` times at its internal step under the generic manoeuvre (inputs step
/// midway); returns per-step wall times and iterations.
fn drive(
    model: &Arc<CompiledModel>,
    n: usize,
    timed: bool,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let h = model.default_param(model.solver.step);
    let ins = inputs(model);
    let vars: Vec<&ScalarVariable> = ins.iter().map(|(v, _)| v).collect();
    let plan = schedule::plan(&model.name, &vars, 0.0, n as f64 * h);
    let mut inst = Instance::new(Arc::clone(model));
    inst.initialize(0.0)
        .map_err(|e: StepError| format!("initialization failed: {e}"))?;
    let mut times = Vec::with_capacity(n);
    let mut iters = Vec::with_capacity(n);
    for i in 0..n {
        let t = i as f64 * h;
        for ((_, id), s) in ins.iter().zip(&plan.inputs) {
            inst.set_param(*id, s.value_at(t, 1e-6 * h));
        }
        let started = Instant::now();
        let r = inst.advance((i + 1) as f64 * h);
        let dt = started.elapsed().as_secs_f64();
        r.map_err(|e| format!("step {i} (t = {t} s) failed: {e}"))?;
        if timed {
            times.push(dt);
            iters.push(inst.state().iterations as f64);
        }
    }
    Ok((times, iters))
}

/// Compiles and measures one family member on both solver paths.
pub fn measure(f: Family, n: usize, settings: &ScalingSettings) -> Vec<ScalingRow> {
    let name = f.model_name(n);
    let started = Instant::now();
    let compiled = crate::compile(&Source::new(
        format!("{name}.toml"),
        family::description(f, n),
    ));
    let compile_time = started.elapsed().as_secs_f64();
    let mut row = ScalingRow {
        family: f.label(),
        stages: n,
        model: name,
        bodies: 0,
        joints: 0,
        loops: 0,
        cylinders: 0,
        volumes: 0,
        dof: 0,
        nz: 0,
        nw: 0,
        nc: 0,
        unknowns: 0,
        solver_path: SolverPath::Dense.name(),
        automatic: false,
        refresh_full: 0,
        refresh_partial: 0,
        pattern_nonzeros: 0,
        lu_nonzeros: 0,
        lu_flops: 0.0,
        step_size: f64::NAN,
        steps: 0,
        step: stats(&[]),
        iterations: stats(&[]),
        compile_time,
        failure: None,
    };
    let l = match compiled {
        Ok(l) => l,
        Err(errors) => {
            row.failure = Some(
                errors
                    .iter()
                    .map(|e| e.message.clone())
                    .collect::<Vec<_>>()
                    .join("; "),
            );
            return vec![row];
        }
    };
    let m = &l.model;
    let layout = Layout::of(m);
    row.bodies = m.mechanism.bodies.len();
    row.loops = m.mechanism.cut_joints.len();
    row.joints = m.mechanism.coordinates() + row.loops;
    row.cylinders = m.circuit.cylinders.len();
    row.volumes = m.circuit.volumes();
    row.dof = l.analysis.dof;
    row.nz = layout.nz;
    row.nw = layout.nw;
    row.nc = layout.nc;
    row.unknowns = layout.nz + layout.nw;
    row.step_size = m.default_param(m.solver.step);
    let auto = Instance::new(Arc::new(l.model.clone())).tangent_plan().path;
    [SolverPath::Dense, SolverPath::Sparse]
        .into_iter()
        .map(|path| {
            let mut row = row.clone();
            let mut model = l.model.clone();
            model.solver.linear_solver = match path {
                SolverPath::Dense => LinearSolver::Dense,
                SolverPath::Sparse => LinearSolver::Sparse,
            };
            let model = Arc::new(model);
            {
                let inst = Instance::new(Arc::clone(&model));
                let plan = inst.tangent_plan();
                row.solver_path = plan.path.name();
                row.automatic = plan.path == auto;
                (row.refresh_full, row.refresh_partial) = plan.refresh_evaluations();
                row.pattern_nonzeros = plan.pattern.nonzeros();
                if let Some(sp) = &plan.sparse {
                    row.lu_nonzeros = sp.tangent.nonzeros();
                    row.lu_flops = sp.tangent.flops();
                }
            }
            if settings.warmup > 0
                && let Err(e) = drive(&model, settings.warmup.min(settings.steps), false)
            {
                row.failure = Some(format!("warm-up: {e}"));
                return row;
            }
            match drive(&model, settings.steps, true) {
                Ok((times, iters)) => {
                    row.steps = times.len();
                    row.step = stats(&times);
                    row.iterations = stats(&iters);
                }
                Err(e) => row.failure = Some(e),
            }
            row
        })
        .collect()
}

/// The whole study; `progress` is called after each member.
pub fn run(settings: &ScalingSettings, mut progress: impl FnMut(&ScalingRow)) -> Vec<ScalingRow> {
    let mut rows = Vec::new();
    for f in Family::ALL {
        for &n in &settings.stages {
            for row in measure(f, n, settings) {
                progress(&row);
                rows.push(row);
            }
        }
    }
    rows
}

/// Exponent k of (median step time) ∝ x^k per family and solver path, fitted over members
/// with `stages ≥ 4` (where fixed costs stop dominating), against stages and against
/// unknowns.
pub fn exponents(rows: &[ScalingRow]) -> Vec<(String, Option<f64>, Option<f64>)> {
    let mut out = Vec::new();
    for f in Family::ALL {
        for path in [SolverPath::Dense, SolverPath::Sparse] {
            let pick = |x: fn(&ScalingRow) -> f64| -> Vec<(f64, f64)> {
                rows.iter()
                    .filter(|r| {
                        r.family == f.label()
                            && r.solver_path == path.name()
                            && r.stages >= 4
                            && r.failure.is_none()
                    })
                    .map(|r| (x(r), r.step.median))
                    .collect()
            };
            let (a, b) = (
                log_log_slope(&pick(|r| r.stages as f64)),
                log_log_slope(&pick(|r| r.unknowns as f64)),
            );
            if a.is_some() || b.is_some() {
                out.push((format!("{} ({})", f.label(), path.name()), a, b));
            }
        }
    }
    out
}
