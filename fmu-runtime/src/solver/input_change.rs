//! Inputs changed between steps: the next step starts from the rates of the new inputs.
//!
//! The trapezoidal rule averages the rates at both ends of a step. A step that started
//! from the rates the last step ended with — computed with the previous inputs — would
//! let every input change act half a step late: first order where the rule is second
//! (issue 16). So when the master has changed inputs (or tunables) since the last step:
//!
//! - **accelerations**: an input that acts on the mechanism directly (a joint force or
//!   torque, a mount's wrench, the base motion) changes the inverse-dynamics residual
//!   `M z̈ − Q` of the unmoved state by `d`; the accelerations jump by `Δz̈` with
//!   `M Δz̈ + Φ_zᵀ Δλ = −d`, `Φ_z Δz̈ = 0` (the loop's constraint forces take their share at
//!   once, driven coordinates keep their prescribed acceleration). A valve, supply or pump
//!   input acts on the mechanism only through the pressures: `d` is exactly zero and
//!   nothing is solved;
//! - **first-order rates**: pressures, spools and swash plates from their equations, which
//!   are linear in ẇ, each row in its own rate (`c_k ẇ_k + r0_k`), so two evaluations give
//!   them; friction states follow the motion, not the inputs, and keep theirs;
//! - **powers**: with a jump, the step's trapezoidal work starts from the powers the new
//!   inputs deliver (a port's power `F v` changes with `F` at once).

use super::linalg::{lu_factor, lu_solve};
use super::{Data, Layout, Model};
use crate::mechanics::dynamics::mass_matrix;
use crate::model::{CompiledModel, Element, Node, ParamId, PortKind};

/// Buffers of the acceleration jump (allocated once per instance).
#[derive(Clone, Debug)]
pub struct InputChangeWork {
    /// Parameters whose change needs no acceleration jump: those that act on the mechanism
    /// only through the pressures (spool commands, supply pressures, port flows, TLM waves,
    /// pump speeds), so the common case (a master moving the valves every step) costs no
    /// extra evaluation; and the two sides of a split machine's coupling, the base motion
    /// and a mount's wrench, taken as continuous: their samples carry the co-simulation's
    /// step-to-step exchange oscillation, and with them jumping the carried boom of
    /// tests/python/test_cosimulation.py lost 4× its luff accuracy at 1 ms with
    /// interpolated motion (1.5e-4 → 6.4e-4 rad; the carrier's roll gained 30 %).
    continuous: Vec<bool>,
    /// The inputs the jump is counted from (smooth inputs at their new values).
    before: Vec<f64>,
    /// The residual `M z̈ − Q` under the previous inputs, then the jump `Δz̈`.
    residual: Vec<f64>,
    mass: Vec<f64>,
    composite: Vec<crate::mechanics::dynamics::CompositeInertia>,
    pivots: Vec<usize>,
    scale: Vec<f64>,
    /// `H = M⁻¹ Φ_zᵀ` (column per constraint row), `T = Φ_z H` factored, `Δλ`.
    h: Vec<f64>,
    t: Vec<f64>,
    t_pivots: Vec<usize>,
    t_scale: Vec<f64>,
    dl: Vec<f64>,
    /// Powers (machine, base) and port powers at the state under the previous inputs.
    power_before: (f64, f64),
    port_power_before: Vec<f64>,
}

impl InputChangeWork {
    pub fn new(m: &CompiledModel, l: &Layout) -> InputChangeWork {
        let (nz, nc) = (l.nz, l.nc);
        let mut continuous = vec![false; m.params.len()];
        let mut mark = |id: ParamId| continuous[id.index()] = true;
        for s in &m.circuit.spools {
            mark(s.command);
        }
        for n in &m.circuit.nodes {
            if let Node::Pressure { pressure, .. } = n {
                mark(*pressure);
            }
        }
        for e in &m.circuit.elements {
            if let Element::Pump(pump) = e {
                mark(pump.speed);
            }
        }
        if let Some(base) = &m.mechanism.base {
            for id in base.params() {
                mark(id);
            }
        }
        for port in &m.ports {
            match port.kind {
                PortKind::Flow { flow, .. } => mark(flow),
                PortKind::Mount { force, moment, .. } => {
                    force.into_iter().chain(moment).for_each(&mut mark);
                }
                PortKind::Tlm {
                    wave, impedance, ..
                } => {
                    mark(wave);
                    mark(impedance);
                }
                _ => {}
            }
        }
        InputChangeWork {
            before: vec![0.0; continuous.len()],
            continuous,
            residual: vec![0.0; nz],
            mass: vec![0.0; nz * nz],
            composite: vec![Default::default(); m.mechanism.bodies.len()],
            pivots: vec![0; nz],
            scale: vec![0.0; 2 * nz],
            h: vec![0.0; nz * nc],
            t: vec![0.0; nc * nc],
            t_pivots: vec![0; nc],
            t_scale: vec![0.0; 2 * nc],
            dl: vec![0.0; nc],
            power_before: (0.0, 0.0),
            port_power_before: vec![0.0; m.ports.len()],
        }
    }
}

/// Rates and powers of the state for the inputs `model.params` (`now`), where the last
/// step ended with the inputs `before` (see the module documentation). Leaves the
/// evaluation at the state. Allocation-free.
pub fn rates_for_new_inputs(model: Model<'_>, before: &[f64], data: Data<'_>) {
    let (m, l, now) = model.parts();
    let (st, ws) = data.parts();
    // NaN: the state's rates belong to no known value of that input (an input the last
    // step extrapolated with its derivatives, every input after a failed step): its new
    // value is taken as continuous with them (no jump).
    let work = &mut ws.input_change;
    for (k, b) in work.before.iter_mut().enumerate() {
        *b = if before[k].is_nan() {
            now[k]
        } else {
            before[k]
        };
    }
    super::predictor::shift_history(st, -1.0);
    let jumped = jump_accelerations(model, Data::new(st, ws));
    refresh_first_order_rates(model, Data::new(st, ws));
    super::predictor::shift_history(st, 1.0);
    ws.eval
        .run(m, l, now, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    super::drives::finish(l.nz, st, ws);
    if jumped {
        // The powers move by what the input changed, both taken at this state (the step's
        // own end power came from its last evaluation, before the acceleration projection).
        let work = &ws.input_change;
        st.power += ws.eval.power - work.power_before.0;
        st.base_power += ws.eval.base_power - work.power_before.1;
        for ((p, now), before) in st
            .port_power
            .iter_mut()
            .zip(&ws.eval.port_power)
            .zip(&work.port_power_before)
        {
            *p += now - before;
        }
    }
}

/// The accelerations' jump `Δz̈` for the change of the residual `M z̈ − Q` between the
/// inputs `before` and `now`; returns whether it was applied (the powers under the
/// previous inputs are then in the work buffers). A singular mass matrix (or constraint
/// block) leaves the accelerations as they were: the step starts from the old ones.
fn jump_accelerations(model: Model<'_>, data: Data<'_>) -> bool {
    let (m, l, now) = model.parts();
    let (st, ws) = data.parts();
    let (nz, nc) = (l.nz, l.nc);
    let before = &ws.input_change.before;
    let only = &ws.input_change.continuous;
    let mechanical = (0..before.len()).any(|k| before[k] != now[k] && !only[k]);
    if nz == 0 || !mechanical {
        return false;
    }
    let before = &ws.input_change.before;
    ws.eval
        .run(m, l, before, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    super::drives::finish(nz, st, ws);
    let work = &mut ws.input_change;
    work.residual.copy_from_slice(&ws.eval.r_mech[..nz]);
    work.power_before = (ws.eval.power, ws.eval.base_power);
    work.port_power_before.copy_from_slice(&ws.eval.port_power);
    ws.eval
        .run(m, l, now, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    let work = &mut ws.input_change;
    let mut changed = false;
    for (d, now) in work.residual.iter_mut().zip(&ws.eval.r_mech) {
        // Δz̈₀ = −M⁻¹ d: the right-hand side −d.
        *d -= now;
        changed |= *d != 0.0;
    }
    for drive in &ws.drives {
        work.residual[drive.coordinate] = 0.0;
    }
    if !changed || work.residual.iter().any(|d| !d.is_finite()) {
        return false;
    }
    mass_matrix(
        &m.mechanism,
        &ws.eval.kin,
        &mut work.composite,
        &mut work.mass,
    );
    // A driven coordinate is not moved by the jump: its row and column decoupled.
    for drive in &ws.drives {
        let c = drive.coordinate;
        for j in 0..nz {
            work.mass[c * nz + j] = 0.0;
            work.mass[j * nz + c] = 0.0;
        }
        work.mass[c * nz + c] = 1.0;
    }
    if lu_factor(&mut work.mass, nz, &mut work.pivots, &mut work.scale).is_err() {
        return false;
    }
    lu_solve(
        &work.mass,
        nz,
        &work.pivots,
        &work.scale,
        &mut work.residual,
    );
    if nc > 0 {
        let phi_z = &ws.eval.phi_z;
        for r in 0..nc {
            let column = &mut work.h[r * nz..(r + 1) * nz];
            column.copy_from_slice(&phi_z[r * nz..(r + 1) * nz]);
            for drive in &ws.drives {
                column[drive.coordinate] = 0.0;
            }
            lu_solve(&work.mass, nz, &work.pivots, &work.scale, column);
        }
        for q in 0..nc {
            let row = &phi_z[q * nz..(q + 1) * nz];
            work.dl[q] = row.iter().zip(&work.residual).map(|(a, b)| a * b).sum();
        }
        let (t, pivots, scale) = (&mut work.t, &mut work.t_pivots, &mut work.t_scale);
        if super::multipliers::factor_schur(&phi_z[..nc * nz], &work.h, nz, t, pivots, scale)
            .is_err()
        {
            return false;
        }
        lu_solve(&work.t, nc, &work.t_pivots, &work.t_scale, &mut work.dl);
        for (r, &dl) in work.dl.iter().enumerate() {
            for (d, h) in work.residual.iter_mut().zip(&work.h[r * nz..(r + 1) * nz]) {
                *d -= h * dl;
            }
        }
    }
    if !work.residual.iter().chain(&work.dl).all(|d| d.is_finite()) {
        return false;
    }
    for (a, d) in st.zdd.iter_mut().zip(&work.residual) {
        *a += d;
    }
    for (l, d) in st.lambda.iter_mut().zip(&work.dl) {
        *l += d;
    }
    true
}

/// First-order state rates ẇ consistent with the inputs `p` at the current state.
fn refresh_first_order_rates(model: Model<'_>, data: Data<'_>) {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    if l.nw == 0 {
        return;
    }
    ws.wd.fill(0.0);
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &ws.wd);
    ws.f_pert[..l.nw].copy_from_slice(&ws.eval.r_first);
    ws.wd.fill(1.0);
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &ws.wd);
    for k in 0..l.first_friction() {
        let c = ws.eval.r_first[k] - ws.f_pert[k];
        if c.abs() > 1e-300 {
            st.wd[k] = -ws.f_pert[k] / c;
        }
    }
}
