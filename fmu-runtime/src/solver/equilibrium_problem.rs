//! The static-equilibrium problem: unknowns (first-order states, multipliers, free
//! parameters), residuals (joint-space force balance at rest, ṗ = 0, spools at their
//! set-points, pre-charges), and its Levenberg–Marquardt least-squares solve; the
//! machine's force scale and make-up pressure that judge it. [`super::equilibrium`] sets
//! up the consistent initial state with it, [`super::settling`] settles the coordinates
//! nothing else holds, [`super::trapped_oil`] settles trapped oil.

use super::linalg::{lu_factor, lu_solve};
use super::{Data, Layout, Model, Workspace};
use crate::hydraulics::pump;
use crate::mechanics::dynamics::mass_matrix;
use crate::model::{CompiledModel, Element, JointKind, Mechanism, Node, ParamId};
use crate::solver::State;
use std::ops::Range;

/// The minimum-norm change `dz` of the free (not driven) coordinates with `Φ_z dz = v`:
/// `(Φ_f Φ_fᵀ + μI) y = v`, `dz = Φ_fᵀ y` (driven coordinates left out, as their drives
/// put them).
fn min_norm_change(
    phi_z: &[f64],
    (nz, nc): (usize, usize),
    free: &[bool],
    v: &[f64],
    dz: &mut [f64],
) -> Result<(), String> {
    let mut a = vec![0.0; nc * nc];
    let mut trace = 0.0;
    for i in 0..nc {
        for j in 0..nc {
            a[i * nc + j] = (0..nz)
                .filter(|&k| free[k])
                .map(|k| phi_z[i * nz + k] * phi_z[j * nz + k])
                .sum();
        }
        trace += a[i * nc + i];
    }
    for i in 0..nc {
        a[i * nc + i] += 1e-10 * (1.0 + trace / nc as f64);
    }
    let (mut piv, mut rs) = (vec![0; nc], vec![0.0; 2 * nc]);
    let mut y = v.to_vec();
    lu_factor(&mut a, nc, &mut piv, &mut rs)?;
    lu_solve(&a, nc, &piv, &rs, &mut y);
    for k in 0..nz {
        dz[k] = if free[k] {
            (0..nc).map(|i| phi_z[i * nz + k] * y[i]).sum::<f64>()
        } else {
            0.0
        };
    }
    Ok(())
}

/// The coordinates that close the loops: the joints', less the driven ones (their drives
/// put them). A flexible body's modal coordinates are its deformation under load
/// (`Problem::deflect`), never a way to close a loop — a coupler bent to fit would start
/// the machine prestressed.
fn closure_coordinates(m: &CompiledModel, ws: &Workspace) -> Vec<bool> {
    let joints = m.mechanism.joint_coordinates();
    (ws.plan.driven.iter().enumerate())
        .map(|(k, driven)| !driven && k < joints)
        .collect()
}

/// Solves Φ(z) = 0 by minimum-norm Gauss–Newton corrections of the joint coordinates.
pub(super) fn assemble(model: Model<'_>, data: Data<'_>) -> Result<(), String> {
    let l = model.layout;
    let (st, ws) = data.parts();
    if l.nc == 0 {
        return Ok(());
    }
    let norm = close_loops(model, Data::new(st, ws), 50, 1e-13)?;
    if norm < 1e-9 {
        Ok(())
    } else {
        Err(format!(
            "the loops cannot be closed from the initial joint coordinates (|Φ| = {norm:.3e})"
        ))
    }
}

/// Gauss–Newton on Φ(z) = 0 by the closure coordinates, at most `iterations` corrections
/// or until |Φ| < `tol`; returns |Φ| and leaves `ws.eval` at the final z.
fn close_loops(
    model: Model<'_>,
    data: Data<'_>,
    iterations: usize,
    tol: f64,
) -> Result<f64, String> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let (nz, nc) = (l.nz, l.nc);
    let free = closure_coordinates(m, ws);
    let mut dz = vec![0.0; nz];
    let largest = |phi: &[f64]| phi.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    for _ in 0..iterations {
        ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
        let e = &ws.eval;
        if largest(&e.phi) < tol {
            return Ok(largest(&e.phi));
        }
        min_norm_change(&e.phi_z, (nz, nc), &free, &e.phi, &mut dz)?;
        for (z, d) in st.z.iter_mut().zip(&dz) {
            *z -= d;
        }
    }
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    Ok(largest(&ws.eval.phi))
}

/// Rates of the free coordinates that close the loops (Φ_z ż = 0) around the driven ones'
/// prescribed rates: a crank started turning moves its loop with it from the start.
pub(super) fn close_rates(model: Model<'_>, data: Data<'_>) -> Result<(), String> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let (nz, nc) = (l.nz, l.nc);
    if nc == 0 || ws.drives.is_empty() {
        return Ok(());
    }
    let free = closure_coordinates(m, ws);
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    let e = &ws.eval;
    let v: Vec<f64> = (0..nc)
        .map(|r| (0..nz).map(|k| e.phi_z[r * nz + k] * st.zd[k]).sum())
        .collect();
    let mut dz = vec![0.0; nz];
    min_norm_change(&e.phi_z, (nz, nc), &free, &v, &mut dz)?;
    for (zd, d) in st.zd.iter_mut().zip(&dz) {
        *zd -= d;
    }
    Ok(())
}

/// Joint-space mass matrix at the current configuration (row-major).
pub(super) fn mass(m: &CompiledModel, l: &Layout, ws: &Workspace) -> Vec<f64> {
    let mut mm = vec![0.0; l.nz * l.nz];
    let mut comp = vec![Default::default(); m.mechanism.bodies.len()];
    mass_matrix(&m.mechanism, &ws.eval.kin, &mut comp, &mut mm);
    mm
}

/// Unknowns of the equilibrium problem: `[w; λ; free parameters]`.
pub(super) struct Problem<'a> {
    pub(super) m: &'a CompiledModel,
    pub(super) l: &'a Layout,
    pub(super) free: &'a [ParamId],
    /// Volumes (indices among the pressure unknowns) held at a pressure: pre-charges, and
    /// trapped oil at the make-up pressure (`trapped_oil`).
    pub(super) precharged: Vec<(usize, f64)>,
    /// Pump regulators without their saturation (`ε = σ`): a first pass from a far
    /// starting guess, where a saturated regulator has no slope to follow.
    pub(super) linear_regulators: bool,
    /// Loops closed through flexible bodies' interface nodes, if any.
    looped: Option<LoopedDeflection>,
}

/// A loop closed through a flexible body's interface node: a deflection opens it, so the
/// modal coordinates are unknowns of the solve itself (their rows among its equations,
/// the loop's multipliers acting on them in the same Jacobian), and every trial closes the
/// loops around its deflection from the same joint coordinates. A nested solve for η at
/// the trial's multipliers instead found absurd deflections (η ~ 1e7 on the PATU crane):
/// far from the solution the trial multipliers are no loads the loop could carry.
///
/// The unknowns are the modal forces `k η` rather than η: a deflection's slope on the joint
/// rows (a boom bent under its payload moves it, 1e3 N·m per unit η) would otherwise make
/// those rows' weights (1/‖row‖) ignore the multipliers and pressures that balance them.
struct LoopedDeflection {
    modes: Range<usize>,
    /// Modal stiffness of each modal coordinate.
    stiffness: Vec<f64>,
    /// The assembled joint coordinates of the undeflected machine.
    joints: Vec<f64>,
}

/// Whether a cut joint hangs below a flexible body's interface node at either end.
fn loops_through_nodes(mech: &Mechanism) -> bool {
    let below_node = |mut body: Option<usize>| {
        while let Some(b) = body {
            if matches!(mech.bodies[b].joint, JointKind::Node { .. }) {
                return true;
            }
            body = mech.bodies[b].parent;
        }
        false
    };
    (mech.cut_joints.iter()).any(|c| below_node(c.a.body) || below_node(c.b.body))
}

impl Problem<'_> {
    /// First-order states solved for: pressures, spools and pump displacements. Friction
    /// states stay at zero (friction ignored at the start, as seed 001 does): at rest a
    /// bristle deflection could carry any part of the load, which leaves the problem
    /// indeterminate.
    pub(super) fn solved_states(&self) -> usize {
        self.l.first_friction()
    }

    pub(super) fn unknowns(&self) -> usize {
        let modes = self.looped.as_ref().map_or(0, |d| d.modes.len());
        self.solved_states() + self.l.nc + self.free.len() + modes
    }

    pub(super) fn equations(&self) -> usize {
        self.l.nz + self.solved_states() + self.precharged.len()
    }

    /// Keeps the pressures of a trial at or above the oil's vapour pressure: no real
    /// state lies below it, and a Newton step on a turbulent vent `√Δp` lands on the
    /// mirror point below the tank (10 bar → −8 bar and back, for ever) unless held.
    fn project(&self, u: &mut [f64], p: &[f64]) {
        let floor = p[self.m.circuit.oil.air.vapour_pressure.index()];
        for x in &mut u[..self.l.n_pressures] {
            *x = x.max(floor);
        }
    }

    /// Puts joint coordinate `c` at `value`, where the trials of a loop through a flexible
    /// body start from too.
    pub(super) fn place(&mut self, st: &mut State, c: usize, value: f64) {
        st.z[c] = value;
        if let Some(d) = &mut self.looped {
            d.joints[c] = value;
        }
    }

    /// The unknowns at the current state and parameters.
    pub(super) fn start(&self, st: &State, p: &[f64]) -> Vec<f64> {
        let mut u = st.w[..self.solved_states()].to_vec();
        u.extend_from_slice(&st.lambda);
        u.extend(self.free.iter().map(|id| p[id.index()]));
        if let Some(d) = &self.looped {
            u.extend(
                st.z[d.modes.clone()]
                    .iter()
                    .zip(&d.stiffness)
                    .map(|(e, k)| e * k),
            );
        }
        u
    }

    /// Sets the state to the unknowns `u`; with loops through flexible bodies, the
    /// deflection too, the loops closed around it from the undeflected joint coordinates
    /// (`ws.eval` then evaluated there).
    fn unpack(&self, u: &[f64], st: &mut State, p: &mut [f64], ws: &mut Workspace) {
        let (nw, nc, nf) = (self.solved_states(), self.l.nc, self.free.len());
        st.w[..nw].copy_from_slice(&u[..nw]);
        st.w[nw..].fill(0.0);
        st.lambda.copy_from_slice(&u[nw..nw + nc]);
        for (k, id) in self.free.iter().enumerate() {
            p[id.index()] = u[nw + nc + k];
        }
        if let Some(d) = &self.looped {
            for ((z, f), k) in st.z[d.modes.clone()]
                .iter_mut()
                .zip(&u[nw + nc + nf..])
                .zip(&d.stiffness)
            {
                *z = f / k;
            }
            st.z[..d.joints.len()].copy_from_slice(&d.joints);
            // A trial whose loops do not close keeps its residual: the closure is checked
            // once the solve is done.
            let _ = close_loops(Model::new(self.m, self.l, p), Data::new(st, ws), 20, 1e-15);
        }
    }

    /// The flexible bodies' static deflection under the current loads: their modal rows
    /// zeroed by Newton on η (a few modes: a dense Jacobian by differences), leaving
    /// `ws.eval` evaluated there. The loops the deflection opens are closed by [`initialize`] around it. A nested solve rather than more unknowns of the least-squares problem: η must
    /// balance the modal rows only, never absorb a joint's unbalance (a machine started
    /// swinging would otherwise find a deformation that "holds" it).
    fn deflect(&self, st: &mut State, p: &[f64], ws: &mut Workspace) {
        let (m, nz) = (self.m, self.l.nz);
        let modal = m.mechanism.joint_coordinates()..nz;
        let n = modal.len();
        // The modal rows, `M z̈ − Q + Φ_zᵀ λ` at rest.
        let rows = |st: &State, ws: &mut Workspace, out: &mut [f64]| {
            ws.eval
                .run(m, self.l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
            let e = &ws.eval;
            for (k, i) in modal.clone().enumerate() {
                out[k] = e.r_mech[i]
                    + (0..self.l.nc)
                        .map(|c| e.phi_z[c * nz + i] * st.lambda[c])
                        .sum::<f64>();
            }
        };
        let stiffness = m.mechanism.modal_stiffness();
        let (mut r, mut r_trial, mut jac) = (vec![0.0; n], vec![0.0; n], vec![0.0; n * n]);
        let (mut piv, mut scale) = (vec![0; n], vec![0.0; 2 * n]);
        let start = st.z[modal.clone()].to_vec();
        // Newton on the modal rows: K dominates their slope, but the loads' geometric
        // stiffness (a loop's multipliers acting through the node's turn) need not be small.
        for _ in 0..30 {
            rows(st, ws, &mut r);
            for k in 0..n {
                let i = modal.start + k;
                let eta = st.z[i];
                let eps = 1e-7 * (eta.abs() + 1e-3 * (1.0 + eta.abs()));
                st.z[i] = eta + eps;
                rows(st, ws, &mut r_trial);
                st.z[i] = eta;
                for row in 0..n {
                    jac[row * n + k] = (r_trial[row] - r[row]) / eps;
                }
            }
            let mut step = r.clone();
            if lu_factor(&mut jac, n, &mut piv, &mut scale).is_ok() {
                lu_solve(&jac, n, &piv, &scale, &mut step);
            } else {
                for (s, k) in step.iter_mut().zip(&stiffness) {
                    *s /= k;
                }
            }
            let mut largest: f64 = 0.0;
            for (k, s) in step.iter().enumerate() {
                let i = modal.start + k;
                st.z[i] -= s;
                largest = largest.max(s.abs() / (1e-6 + st.z[i].abs()));
            }
            if !largest.is_finite() {
                // A trial of the outer solve far from any equilibrium: give it the
                // undeflected shape rather than a diverged one.
                st.z[modal.clone()].copy_from_slice(&start);
                break;
            }
            if largest < 1e-13 {
                break;
            }
        }
        ws.eval
            .run(m, self.l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    }

    pub(super) fn residual(
        &self,
        u: &[f64],
        st: &mut State,
        p: &mut [f64],
        ws: &mut Workspace,
        r: &mut [f64],
    ) {
        let (nz, nw, nc) = (self.l.nz, self.solved_states(), self.l.nc);
        self.unpack(u, st, p, ws);
        if self.looped.is_some() {
            // Evaluated by `unpack`, the deflection among the unknowns.
        } else if self.m.mechanism.flexible.is_empty() {
            ws.eval
                .run(self.m, self.l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
        } else {
            self.deflect(st, p, ws);
        }
        let e = &ws.eval;
        for i in 0..nz {
            r[i] = e.r_mech[i]
                + (0..nc)
                    .map(|k| e.phi_z[k * nz + i] * st.lambda[k])
                    .sum::<f64>();
        }
        // A prescribed-motion joint is balanced by its drive, whatever it takes.
        for d in &ws.drives {
            r[d.coordinate] = 0.0;
        }
        // Volumes: the net inflow ṗ·dV/dp, not ṗ itself. Near vapour pressure the oil's
        // modulus vanishes and with it ṗ, whatever the flow: a spurious root that left a
        // line vented to tank at 400 Pa. Spools and pumps: their own residuals.
        let np = self.l.n_pressures;
        for (k, c) in e.volumes.compliance().iter().enumerate() {
            r[nz + k] = -e.rates[k] * c;
        }
        r[nz + np..nz + nw].copy_from_slice(&e.r_first[np..nw]);
        if self.linear_regulators {
            for el in &self.m.circuit.elements {
                if let Element::LoadSensingPump(pump) = el {
                    let j = self.l.first_displacement() + pump.state;
                    r[nz + j] = st.w[j] - pump::regulator_signal(pump, p, &e.pressure);
                }
            }
        }
        for (j, &(k, value)) in self.precharged.iter().enumerate() {
            r[nz + nw + j] = st.w[k] - value;
        }
    }
}

/// Levenberg–Marquardt on the row-equilibrated problem. Returns the final unknowns and
/// the residual there, and leaves the state and parameters set to them.
pub(super) fn solve(
    problem: &Problem<'_>,
    u0: Vec<f64>,
    st: &mut State,
    p: &mut [f64],
    ws: &mut Workspace,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let (n, neq) = (problem.unknowns(), problem.equations());
    let mut u = u0;
    let mut r = vec![0.0; neq];
    let mut r_trial = vec![0.0; neq];
    let mut jac = vec![0.0; neq * n];
    let mut row_w = vec![1.0; neq];
    let mut a = vec![0.0; n * n];
    let (mut piv, mut rs) = (vec![0; n], vec![0.0; 2 * n]);
    let mut g = vec![0.0; n];
    let mut mu = 1e-6;
    let norm2 = |r: &[f64], w: &[f64]| r.iter().zip(w).map(|(a, b)| (a * b).powi(2)).sum::<f64>();
    problem.residual(&u, st, p, ws, &mut r);
    for iter in 0..200 {
        jacobian(problem, &mut u, &r, (st, p, ws), &mut r_trial, &mut jac);
        if iter == 0 {
            // Row weights: 1/‖row‖ so forces, pressure rates and pressures weigh alike.
            let row_norm = |i: usize| row_norm(&jac, n, i);
            // A joint no unknown acts on (a hook on a slack rope; a chassis on its springs is
            // settled by `settling` between these solves) keeps whatever residual it starts with; its row's
            // Jacobian is rounding noise (1e-11..1e-9 where the crane's rows are 1e-4..1e-2),
            // and weighting that by 1/‖row‖ would make the noise steer the solve. Joint rows
            // only: a modal row's slope is its stiffness, orders above any joint's.
            let joints = problem.m.mechanism.joint_coordinates();
            let mech_scale = (0..joints).map(row_norm).fold(0.0, f64::max);
            for i in 0..neq {
                let s = row_norm(i);
                row_w[i] = if i < joints && s <= 1e-6 * mech_scale {
                    0.0
                } else if s > 0.0 && s.is_finite() {
                    1.0 / s
                } else {
                    1.0
                };
            }
        }
        let f0 = norm2(&r, &row_w);
        if f0 < 1e-26 {
            break;
        }
        // Normal equations of the weighted problem; the step goes down the gradient.
        normal_equations(&jac, n, &r, |q| row_w[q].powi(2), &mut a, &mut g);
        for gi in g.iter_mut() {
            *gi = -*gi;
        }
        let mut accepted = false;
        for _ in 0..30 {
            let mut damped = a.clone();
            for i in 0..n {
                damped[i * n + i] += mu * (a[i * n + i] + 1e-12);
            }
            let mut du = g.clone();
            if lu_factor(&mut damped, n, &mut piv, &mut rs).is_ok() {
                lu_solve(&damped, n, &piv, &rs, &mut du);
                let mut trial: Vec<f64> = u.iter().zip(&du).map(|(a, b)| a + b).collect();
                problem.project(&mut trial, p);
                problem.residual(&trial, st, p, ws, &mut r_trial);
                let f1 = norm2(&r_trial, &row_w);
                if f1.is_finite() && f1 < f0 {
                    let small = du
                        .iter()
                        .zip(&u)
                        .all(|(d, x)| d.abs() <= 1e-13 * x.abs().max(1.0));
                    u = trial;
                    r.copy_from_slice(&r_trial);
                    mu = (mu / 10.0).max(1e-12);
                    accepted = true;
                    if small {
                        return finish(problem, u, r, st, p, ws);
                    }
                    break;
                }
            }
            mu *= 10.0;
        }
        if !accepted {
            break;
        }
    }
    finish(problem, u, r, st, p, ws)
}

/// Forward-difference Jacobian (row-major, equations × unknowns) at `u`, whose residual is
/// `r`; `u` is left as it was.
pub(super) fn jacobian(
    problem: &Problem<'_>,
    u: &mut [f64],
    r: &[f64],
    (st, p, ws): (&mut State, &mut [f64], &mut Workspace),
    r_trial: &mut [f64],
    jac: &mut [f64],
) {
    let n = u.len();
    for k in 0..n {
        let u0 = u[k];
        let eps = 1e-7 * u0.abs().max(1e-3);
        u[k] = u0 + eps;
        problem.residual(u, st, p, ws, r_trial);
        u[k] = u0;
        for (i, (a, b)) in r_trial.iter().zip(r).enumerate() {
            jac[i * n + k] = (a - b) / eps;
        }
    }
}

/// The normal equations `a = Jᵀ W J`, `g = Jᵀ W r` of a row-major Jacobian `jac` with `n`
/// columns and `r.len()` rows, row `q` weighted by `w(q)`.
pub(super) fn normal_equations(
    jac: &[f64],
    n: usize,
    r: &[f64],
    w: impl Fn(usize) -> f64,
    a: &mut [f64],
    g: &mut [f64],
) {
    let rows = r.len();
    for i in 0..n {
        g[i] = (0..rows).map(|q| jac[q * n + i] * w(q) * r[q]).sum::<f64>();
        for j in 0..n {
            a[i * n + j] = (0..rows)
                .map(|q| jac[q * n + i] * jac[q * n + j] * w(q))
                .sum();
        }
    }
}

/// Euclidean norm of row `i` of a row-major Jacobian with `n` columns.
pub(super) fn row_norm(jac: &[f64], n: usize, i: usize) -> f64 {
    jac[i * n..(i + 1) * n]
        .iter()
        .map(|v| v * v)
        .sum::<f64>()
        .sqrt()
}

/// Sets the state to the accepted unknowns (the last evaluation may have been a rejected
/// trial) and checks the residual there.
fn finish(
    problem: &Problem<'_>,
    u: Vec<f64>,
    r: Vec<f64>,
    st: &mut State,
    p: &mut [f64],
    ws: &mut Workspace,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    problem.unpack(&u, st, p, ws);
    if !r.iter().all(|v| v.is_finite()) {
        return Err("the static-equilibrium solve produced non-finite values".into());
    }
    if problem.looped.is_some() {
        let open = ws.eval.phi.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        if open > 1e-9 {
            return Err(format!(
                "the loops through the flexible bodies cannot be closed around their static \
                 deflection (|Φ| = {open:.3e})"
            ));
        }
    }
    Ok((u, r))
}

pub(super) fn problem<'a>(
    m: &'a CompiledModel,
    l: &'a Layout,
    p: &[f64],
    st: &State,
    free: &'a [ParamId],
) -> Problem<'a> {
    let joints = m.mechanism.joint_coordinates();
    let looped = loops_through_nodes(&m.mechanism).then(|| LoopedDeflection {
        modes: joints..l.nz,
        stiffness: m.mechanism.modal_stiffness(),
        joints: st.z[..joints].to_vec(),
    });
    let mut precharged = Vec::new();
    let mut k = 0;
    for node in &m.circuit.nodes {
        if let Node::Volume(v) = node {
            if let Some(pc) = v.precharge {
                precharged.push((k, p[pc.index()]));
            }
            k += 1;
        }
    }
    Problem {
        m,
        l,
        free,
        precharged,
        linear_regulators: false,
        looped,
    }
}

/// The force scale of the machine: the largest generalized force its weight and applied
/// forces ask of the actuators with every volume at the make-up pressure (the lowest source,
/// else at zero).
pub(super) fn load_scale(model: Model<'_>, data: Data<'_>) -> f64 {
    let (m, l, params) = model.parts();
    let (st, ws) = data.parts();
    let make_up = make_up_pressure(m, params).unwrap_or(0.0);
    let w0 = st.w.clone();
    st.w[..l.n_pressures].fill(make_up);
    ws.eval
        .run(m, l, params, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    let load = ws.eval.r_mech.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    st.w.copy_from_slice(&w0);
    load
}

/// The make-up pressure: the lowest pressure source of the circuit (the tank), if any.
pub(super) fn make_up_pressure(m: &CompiledModel, p: &[f64]) -> Option<f64> {
    m.circuit
        .nodes
        .iter()
        .filter_map(|n| match n {
            Node::Pressure { pressure, .. } => Some(p[pressure.index()]),
            Node::Volume(_) => None,
        })
        .reduce(f64::min)
}
