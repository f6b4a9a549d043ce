//! What each Model Exchange output depends on: the `dependencies` of `<Outputs>` (FMI 2.0)
//! and `<Output>` (FMI 3.0), so that a master knows which outputs an input reaches
//! without a step (direct feedthrough, where algebraic loops close) and which states an
//! output's Jacobian row has.
//!
//! Found by the runtime itself, as the continuous states are ([`super::model_exchange`]):
//! the machine is initialized at the default start, and at that state and at
//! [`POINTS`]` − 1` others (states moved by up to [`SPREAD`] of their nominals, inputs
//! drawn across their ranges) each known — a continuous state or an input — is moved by
//! [`STEP`] of its scale; an output that moves by more than [`NOISE`] of its scale depends
//! on it. The union over the points is declared. Two widenings keep the claim true for
//! the whole run, not only where it was sampled:
//! - a step event may re-choose which joint coordinates are independent (x keeps its
//!   length, its coordinate entries change meaning), so an output that depends on one
//!   coordinate entry of x (or one rate entry) is declared on all of them when the
//!   machine has dependent coordinates;
//! - a known whose move cannot be evaluated (the position problem fails there) is taken
//!   as a dependency of every output.
//!
//! `tests/python/test_output_dependencies.py` checks the declared lists against finite
//! differences through the FMU at other points.

use fmu_runtime::instance::Instance;
use fmu_runtime::model::{Binding, Causality, CompiledModel, ParamId, Probe, VarType};
use fmu_runtime::solver::ode::StateKind;
use std::sync::Arc;

/// Points sampled: the initial state and this many minus one around it.
pub const POINTS: usize = 6;
/// How far the other points' states lie from the initial ones (relative to nominals).
pub const SPREAD: f64 = 0.02;
/// A known's move, relative to its scale: large enough that a real dependency stands far
/// above the evaluation's noise (position Newton to 1e-13, algebraic spools to 1e-12).
pub const STEP: f64 = 1e-3;
/// An output's change that counts, relative to its magnitude plus its nominal.
pub const NOISE: f64 = 1e-10;

/// A known of the dependency lists.
#[derive(Clone, Copy, Debug)]
enum Known {
    State(usize),
    Input { slot: ParamId, ty: VarType },
}

/// For every variable of `model` (by index): for an output, the 0-based indices of the
/// continuous states and inputs it depends on, sorted; `None` for other variables, and
/// for all when the machine cannot be analysed (the outputs then claim every known).
pub fn of_outputs(model: &CompiledModel) -> Option<Vec<Option<Vec<usize>>>> {
    let mut inst = Instance::new(Arc::new(model.clone()));
    inst.initialize(model.default_experiment.start_time).ok()?;
    let n = inst.ode_len().ok()?;
    if n != model.continuous_states() {
        return None;
    }
    let mut x0 = vec![0.0; n];
    inst.ode_states(&mut x0).ok()?;
    let mut nominal = vec![0.0; n];
    inst.ode_nominals(&mut nominal).ok()?;
    let kinds: Vec<StateKind> = (0..n).map(|k| inst.ode_kind(k)).collect::<Option<_>>()?;

    let mut knowns = Vec::new(); // (variable index, known, scale)
    let mut outputs = Vec::new(); // (variable index, scale)
    let mut inputs = Vec::new(); // (slot, start, min, max): where the points draw them
    for (i, v) in model.variables.iter().enumerate() {
        match (v.binding, v.causality) {
            (Binding::Probe(Probe::ContinuousState(k)), _) => {
                knowns.push((i, Known::State(k), nominal[k]))
            }
            (Binding::Param(slot), Causality::Input) => {
                let scale = v
                    .nominal
                    .unwrap_or(1.0)
                    .abs()
                    .max(v.start.unwrap_or(0.0).abs());
                inputs.push((
                    slot,
                    inst.param(slot),
                    v.min.unwrap_or(f64::NEG_INFINITY),
                    v.max.unwrap_or(f64::INFINITY),
                ));
                knowns.push((
                    i,
                    Known::Input {
                        slot,
                        ty: v.var_type,
                    },
                    scale.max(1e-12),
                ))
            }
            (_, Causality::Output) => outputs.push((i, v.nominal.unwrap_or(1.0).abs())),
            _ => {}
        }
    }

    let mut depends = vec![vec![false; knowns.len()]; outputs.len()];
    let mut random = SplitMix(0x6879_6472_6f6d_6563); // "hydromec"
    let mut y0 = vec![0.0; outputs.len()];
    let mut y1 = vec![0.0; outputs.len()];
    let mut dx = vec![0.0; n];
    for point in 0..POINTS {
        let x: Vec<f64> = (0..n)
            .map(|k| match point {
                0 => x0[k],
                _ => x0[k] + SPREAD * nominal[k] * random.symmetric(),
            })
            .collect();
        for &(slot, start, lo, hi) in &inputs {
            let u = match point {
                0 => start,
                _ if lo.is_finite() && hi.is_finite() => lo + (hi - lo) * random.unit(),
                _ => start + start.abs().max(1.0) * random.symmetric(),
            };
            inst.set_param(slot, u);
        }
        if inst.set_ode_states(&x).is_err() || inst.ode_derivatives(&mut dx).is_err() {
            continue;
        }
        read(&inst, model, &outputs, &mut y0);
        for (j, &(_, known, scale)) in knowns.iter().enumerate() {
            let held = match known {
                Known::Input { slot, .. } => inst.param(slot),
                Known::State(_) => 0.0,
            };
            let moved = match known {
                Known::State(k) => {
                    let mut xs = x.clone();
                    xs[k] += STEP * scale;
                    inst.set_ode_states(&xs)
                }
                Known::Input { slot, ty } => {
                    inst.set_param(slot, moved_input(held, ty, scale));
                    Ok(())
                }
            }
            .and_then(|()| inst.ode_derivatives(&mut dx));
            match moved {
                Ok(()) => {
                    read(&inst, model, &outputs, &mut y1);
                    for (o, &(_, scale)) in outputs.iter().enumerate() {
                        let limit = NOISE * (y0[o].abs().max(y1[o].abs()) + scale);
                        // (NaN on either side counts as a change.)
                        let change = (y1[o] - y0[o]).abs();
                        if change > limit || change.is_nan() {
                            depends[o][j] = true;
                        }
                    }
                }
                Err(_) => depends.iter_mut().for_each(|d| d[j] = true),
            }
            // Back to the point.
            if let Known::Input { slot, .. } = known {
                inst.set_param(slot, held);
            }
            inst.set_ode_states(&x).ok()?;
        }
    }

    // A re-choice of the independent coordinates permutes x's coordinate (and rate)
    // entries: one of them stands for all.
    let rechoosable = kinds
        .iter()
        .filter(|k| matches!(k, StateKind::Coordinate(_)))
        .count()
        < model.mechanism.coordinates();
    if rechoosable {
        let coordinate = |j: usize, rate: bool| match knowns[j].1 {
            Known::State(k) => matches!(
                (kinds[k], rate),
                (StateKind::Coordinate(_), false) | (StateKind::Rate(_), true)
            ),
            Known::Input { .. } => false,
        };
        for d in &mut depends {
            for rate in [false, true] {
                if (0..knowns.len()).any(|j| d[j] && coordinate(j, rate)) {
                    (0..knowns.len())
                        .filter(|&j| coordinate(j, rate))
                        .for_each(|j| d[j] = true);
                }
            }
        }
    }

    let mut lists = vec![None; model.variables.len()];
    for ((i, _), d) in outputs.iter().zip(&depends) {
        let mut on: Vec<usize> = (0..knowns.len())
            .filter(|&j| d[j])
            .map(|j| knowns[j].0)
            .collect();
        on.sort_unstable();
        lists[*i] = Some(on);
    }
    Some(lists)
}

fn read(inst: &Instance, model: &CompiledModel, outputs: &[(usize, f64)], y: &mut [f64]) {
    for (slot, &(i, _)) in y.iter_mut().zip(outputs) {
        *slot = inst.value(&model.variables[i]);
    }
}

/// An input moved by [`STEP`] of its scale; a Boolean toggled, an Integer by one.
fn moved_input(u: f64, ty: VarType, scale: f64) -> f64 {
    match ty {
        VarType::Real => u + STEP * scale,
        VarType::Integer => u + 1.0,
        VarType::Boolean => (u == 0.0) as u8 as f64,
    }
}

/// SplitMix64: a small deterministic generator (the same points on every build).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [−1, 1).
    fn symmetric(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }
}
