//! Pressures near vapour pressure take the step by backward Euler.
//!
//! The trapezoidal rule averages the rates at both ends of a step. A volume drained
//! towards vapour pressure arrives there with the stiff liquid's rate `ṗ = β/V·Q`; averaged
//! with the vanishing rate at vapour pressure it overshoots: with `x = p − p_v`,
//! `x₁ = x₀ + h/2 (f₀ + f₁)` has no root `x₁ > 0` once `x₀ + h/2 f₀ < 0`. Backward Euler,
//! `x₁ = x₀ + h f(x₁)`, always has one, since `f → 0` as `p → p_v` (`hydraulics::fluid`):
//! it is L-stable and keeps the pressure above vapour pressure. A pressure takes it in a
//! step when it starts the step in the cavitation band, when the predictor `p₀ + h ṗ₀`
//! reaches the band, or when the trapezoidal solution ended in it (the step is then solved
//! again). Those pressures are first-order accurate in those steps; everything else stays
//! trapezoidal, bit for bit.

use super::{Data, Model, Workspace};
use crate::hydraulics::fluid::ATMOSPHERE;
use crate::model::CompiledModel;
use crate::solver::State;

/// The band above vapour pressure where pressures step by backward Euler, as a share of
/// `p_a − p_v` (our choice: 10 %, ≈ 0.1 bar, where the air has expanded tenfold and the
/// mixture's modulus is below 1 % of the liquid's; no volume of a working machine sits
/// there unless it cavitates).
const BAND: f64 = 0.1;

/// Upper end of the cavitation band [Pa].
pub fn band(m: &CompiledModel, p: &[f64]) -> f64 {
    let pv = p[m.circuit.oil.air.vapour_pressure.index()];
    pv + BAND * (ATMOSPHERE - pv)
}

/// Trapezoidal `ẇ = 2/h w + ẇ̂`, `ẇ̂ = −(2/h w₀ + ẇ₀)`.
fn trapezoidal(ws: &mut Workspace, st: &State, i: usize, h: f64) {
    ws.wd_gain[i] = 2.0 / h;
    ws.wd_hat[i] = -(2.0 / h * st.w[i] + st.wd[i]);
}

/// Backward Euler `ẇ = (w − w₀)/h`.
fn backward_euler(ws: &mut Workspace, st: &State, i: usize, h: f64) {
    ws.wd_gain[i] = 1.0 / h;
    ws.wd_hat[i] = -st.w[i] / h;
}

/// History of every first-order state for the step from `st` by `h`; returns whether any
/// pressure takes backward Euler.
pub fn history(model: Model<'_>, data: Data<'_>, h: f64) -> bool {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let band = band(m, p);
    let mut any = false;
    for i in 0..l.nw {
        if i >= l.first_bristle() {
            // Contact bristles relax as fast as σ0 |v|/μ, 1e4/s sliding at 1 m/s: the
            // trapezoidal rule would ring there, backward Euler damps (L-stable).
            backward_euler(ws, st, i, h);
            ws.euler[i] = false;
            continue;
        }
        let euler = i < l.n_pressures && st.w[i].min(st.w[i] + h * st.wd[i]) < band;
        if euler {
            backward_euler(ws, st, i, h);
        } else {
            trapezoidal(ws, st, i, h);
        }
        ws.euler[i] = euler;
        any |= euler;
    }
    any
}

/// After a converged step (pressures at `ws.x[at..]`): switches every trapezoidal pressure
/// that ended in the band to backward Euler; returns whether the step must be solved again.
pub fn overshoots(model: Model<'_>, data: Data<'_>, h: f64, at: usize) -> bool {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let band = band(m, p);
    let mut any = false;
    for i in 0..l.n_pressures {
        if !ws.euler[i] && ws.x[at + i] < band {
            backward_euler(ws, st, i, h);
            ws.euler[i] = true;
            any = true;
        }
    }
    any
}

/// Whether two sets of `∂ẇ/∂w` gains choose the same rule for every state: they differ by a
/// factor 2 between the rules, and in the last bits between steps of the same size
/// (`h = t_end − t`).
pub fn same_rules(a: &[f64], b: &[f64]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= 1e-6 * x.abs())
}
