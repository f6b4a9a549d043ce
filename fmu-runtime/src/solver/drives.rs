//! Prescribed-motion joints (`joint-motion` ports): a tree joint's coordinate follows its
//! inputs q, q̇, q̈ instead of its dynamics, and the generalized force the drive needs is
//! an output.
//!
//! The inputs are taken at the communication point and followed as `q + q̇τ + q̈τ²/2`
//! inside the step (τ from that point), so a motion that is quadratic over the step is
//! met exactly: the trapezoidal rule integrates it without error. In the Newton iteration
//! the coordinate's row of the residual becomes `κ(z − q_ref)` (κ the inertia scale, so
//! the row weighs like the others); its rates come out of the trapezoidal formulas from
//! history vectors built on the reference, and the projections of a closed loop leave the
//! coordinate where the drive puts it. The drive's force is what the joint's dynamic row
//! leaves unbalanced: `τ = (M z̈ − Q + Φ_zᵀλ)_j`.

use super::Workspace;
use crate::model::{CompiledModel, ParamId, PortKind};
use crate::solver::State;

/// One prescribed-motion joint of a model.
#[derive(Clone, Debug)]
pub struct Drive {
    /// Index of the port in `CompiledModel::ports`.
    pub port: usize,
    /// Index of the driven joint coordinate.
    pub coordinate: usize,
    /// Slots of q, q̇, q̈.
    pub slots: [ParamId; 3],
    /// q, q̇, q̈ at the communication point and its time: the reference inside the step.
    pub anchor: [f64; 4],
    /// Reference at the end of the step being taken: q, q̇, q̈.
    pub target: [f64; 3],
}

impl Drive {
    /// Reference q, q̇, q̈ at time `t`.
    pub fn reference(&self, t: f64) -> [f64; 3] {
        let [q, qd, qdd, t0] = self.anchor;
        let tau = t - t0;
        [q + tau * (qd + 0.5 * tau * qdd), qd + tau * qdd, qdd]
    }
}

/// The drives of a model.
pub fn of(m: &CompiledModel) -> Vec<Drive> {
    let coordinates = m.mechanism.coordinate_indices();
    m.ports
        .iter()
        .enumerate()
        .filter_map(|(port, p)| match p.kind {
            PortKind::JointMotion {
                body,
                position,
                velocity,
                acceleration,
            } => {
                let coordinate = coordinates.get(body).copied().flatten()?;
                Some(Drive {
                    port,
                    coordinate,
                    slots: [position, velocity, acceleration],
                    anchor: [0.0; 4],
                    target: [0.0; 3],
                })
            }
            _ => None,
        })
        .collect()
}

/// Which joint coordinates are driven (length `nz`).
pub fn mask(drives: &[Drive], nz: usize) -> Vec<bool> {
    let mut driven = vec![false; nz];
    for d in drives {
        driven[d.coordinate] = true;
    }
    driven
}

/// Anchors every drive's reference at the inputs as they are now, at time `t`.
pub fn anchor(ws: &mut Workspace, p: &[f64], t: f64) {
    for d in &mut ws.drives {
        let [q, qd, qdd] = d.slots.map(|s| p[s.index()]);
        d.anchor = [q, qd, qdd, t];
    }
}

/// Puts the driven coordinates at their reference at time `t` (positions, rates and
/// accelerations).
pub fn place(ws: &Workspace, st: &mut State, t: f64) {
    for d in &ws.drives {
        let [q, qd, qdd] = d.reference(t);
        let c = d.coordinate;
        (st.z[c], st.zd[c], st.zdd[c]) = (q, qd, qdd);
    }
}

/// The drives' forces, port outputs and powers from the evaluation at the final state
/// (with the multipliers `lambda`); adds their power to the machine's.
pub fn finish(nz: usize, st: &State, ws: &mut Workspace) {
    let e = &mut ws.eval;
    for d in &ws.drives {
        let c = d.coordinate;
        let constraint: f64 = st
            .lambda
            .iter()
            .enumerate()
            .map(|(r, l)| e.phi_z[r * nz + c] * l)
            .sum();
        let force = e.r_mech[c] + constraint;
        e.port_out[d.port] = force;
        e.port_power[d.port] = force * st.zd[c];
        e.power += e.port_power[d.port];
    }
}

/// Writes the driven coordinates' rows of a Newton residual: `κ(z − q_ref)` with z from
/// `x` (the rows the dynamics would have written are replaced).
pub fn pin_rows(drives: &[Drive], gain: f64, x: &[f64], out: &mut [f64]) {
    for d in drives {
        out[d.coordinate] = gain * (x[d.coordinate] - d.target[0]);
    }
}
