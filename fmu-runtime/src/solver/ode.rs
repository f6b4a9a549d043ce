//! The machine as an explicit ODE ẋ = f(t, x), for Model Exchange: a master's integrator
//! (CVode, DASSL, ...) instead of the trapezoidal Newton loop.
//!
//! The continuous states are a minimal set: the independent joint coordinates z_i of the
//! double-step partition ([`super::double_step`]: full-pivoting elimination on Φ_z, seed
//! 001 §2.1.4), their rates ż_i, and the first-order states w (pressures, spools, pump
//! displacements, friction states):
//!
//! ```text
//! x = [z_i; ż_i; w; W]        ẋ = [ż_i; z̈_i; ẇ; P]
//! ```
//!
//! W are the work integrals the energy outputs report (actuator work, and the base's and
//! each port's when the model has them): in Co-Simulation the solver accumulates them per
//! step, in Model Exchange the master's integrator does, from their powers P, so that
//! `energy.balance_error` measures the master's integration as it measures ours.
//!
//! Setting x solves the position problem Φ(z_d; z_i) = 0 by Newton for the dependent
//! coordinates and gives ż = R_z ż_i (R_z = [R_d; I], R_d = −(Φ_z^d)⁻¹ Φ_z^i). The
//! derivatives:
//! - ẇ from the first-order residuals, each linear in its own rate (`ṗ − rate`,
//!   `τ u̇ + u − u_set`, ...): one first-order re-evaluation (hydraulics and actuator
//!   forces at the kept kinematics, `Evaluation::run_first_order`) for the base and one per
//!   state, each using the rates already found (as the consistent initial rates do);
//! - z̈ from the reduced equations R_zᵀ (M z̈ − Q) = 0 with z̈ = R_z z̈_i + z̈⁰, where z̈⁰ has
//!   z̈_i = 0 and the dependent accelerations that satisfy Φ_z z̈⁰ + Φ̇_z ż = 0:
//!   (R_zᵀ M R_z) z̈_i = −R_zᵀ (M z̈⁰ − Q).
//!
//! An open chain has no dependent coordinates (R_z = I: M z̈ = Q). The constraints hold to
//! the position solve's tolerance at every evaluation, so no drift needs stabilising.
//!
//! A first-order state whose residual does not involve its rate (an ideal spool, τ = 0:
//! `u − u_set = 0`) is algebraic, not a continuous state: it is solved from its residual
//! (Newton on that one unknown) at every evaluation and left out of x.

use super::double_step::DoubleStepWork;
use super::linalg::{lu_factor, lu_solve};
use super::{Data, Layout, Model, Workspace};
use crate::mechanics::dynamics::{CompositeInertia, mass_matrix};
use crate::solver::State;

/// What a continuous state is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateKind {
    /// An independent joint coordinate (index into z) and its rate.
    Coordinate(usize),
    Rate(usize),
    /// A first-order state (index into w: pressures, spools, displacements, friction).
    FirstOrder(usize),
    /// Work done on the mechanism by the actuators, by the base, by port `i` [J].
    ActuatorWork,
    BaseWork,
    PortWork(usize),
}

/// Buffers of the ODE view, allocated when a Model Exchange instance first asks for them.
pub struct OdeWork {
    partition: DoubleStepWork,
    mm: Vec<f64>,
    composite: Vec<CompositeInertia>,
    /// R_z (nz × nf, row-major), M R_z, and the reduced mass R_zᵀ M R_z with its LU.
    rz: Vec<f64>,
    mrz: Vec<f64>,
    reduced: Vec<f64>,
    piv: Vec<usize>,
    lu_scale: Vec<f64>,
    rhs: Vec<f64>,
    zdd: Vec<f64>,
    wd: Vec<f64>,
    r0: Vec<f64>,
    /// The inverse-dynamics residual of the last [`OdeWork::derivatives`] at zero
    /// accelerations, and a scratch copy (at z̈⁰ there, at a changed w in
    /// [`OdeWork::first_order_change`]).
    r_mech_base: Vec<f64>,
    r_mech: Vec<f64>,
    /// ∂r_j/∂ẇ_j of each dynamic first-order residual at the last
    /// [`OdeWork::derivatives`] (1 for a pressure, τ for a spool: constant in w).
    slope: Vec<f64>,
    /// First-order states that are continuous states (their residual involves their rate),
    /// and those that are algebraic.
    dynamic: Vec<usize>,
    algebraic: Vec<usize>,
    /// The work integrals after w (actuator, base, ports).
    works: Vec<StateKind>,
    /// The independent coordinates and z before the last `set_states` (for continuation).
    from: Vec<f64>,
    z_start: Vec<f64>,
}

impl OdeWork {
    /// The ODE of the state `st` (initialized): the partition is chosen at its
    /// configuration, and the position problem solved there (its LU and R_d are what the
    /// derivatives use until the next [`OdeWork::set_states`]).
    pub fn new(model: Model<'_>, data: Data<'_>) -> Result<OdeWork, String> {
        let (m, l, p) = model.parts();
        let (st, ws) = data.parts();
        let (nz, nw) = (l.nz, l.nw);
        let mut partition = DoubleStepWork::new(l, &ws.tol, &ws.scale);
        ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
        partition.choose(&ws.eval.phi_z, l.nc, nz);
        if partition.rank() > 0 {
            partition.positions(m, l, p, &mut ws.eval, &mut st.z, &st.w, &st.wd)?;
        }
        let nf = partition.independent();
        // Which first-order residuals involve their own rate.
        let mut wd = vec![0.0; nw];
        ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &wd);
        let r0 = ws.eval.r_first.clone();
        let (mut dynamic, mut algebraic) = (Vec::new(), Vec::new());
        for j in 0..nw {
            wd[j] = 1.0;
            ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &wd);
            wd[j] = 0.0;
            if ws.eval.r_first[j] != r0[j] {
                dynamic.push(j);
            } else {
                algebraic.push(j);
            }
        }
        let mut works = vec![StateKind::ActuatorWork];
        if m.mechanism.base.is_some() {
            works.push(StateKind::BaseWork);
        }
        works.extend((0..m.ports.len()).map(StateKind::PortWork));
        Ok(OdeWork {
            from: vec![0.0; nf],
            z_start: vec![0.0; nz],
            dynamic,
            algebraic,
            works,
            partition,
            mm: vec![0.0; nz * nz],
            composite: vec![CompositeInertia::default(); m.mechanism.bodies.len()],
            rz: vec![0.0; nz * nf],
            mrz: vec![0.0; nz * nf],
            reduced: vec![0.0; nf * nf],
            piv: vec![0; nf.max(nz)],
            lu_scale: vec![0.0; 2 * nf.max(nz)],
            rhs: vec![0.0; nz.max(nf)],
            zdd: vec![0.0; nz],
            wd: vec![0.0; nw],
            r0: vec![0.0; nw],
            r_mech_base: vec![0.0; nz],
            r_mech: vec![0.0; nz],
            slope: vec![0.0; nw],
        })
    }

    /// Independent joint coordinates.
    pub fn independent(&self) -> usize {
        self.partition.independent()
    }

    /// Length of x: 2 n_f + the dynamic first-order states + the work integrals.
    pub fn len(&self) -> usize {
        2 * self.independent() + self.dynamic.len() + self.works.len()
    }

    /// Whether the ODE has no states (a machine without joints or oil).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The joint coordinate of independent coordinate `k`.
    pub fn coordinate(&self, k: usize) -> usize {
        self.partition.order()[self.partition.rank() + k]
    }

    /// What continuous state `k` is.
    pub fn kind(&self, k: usize) -> StateKind {
        let nf = self.independent();
        if k < nf {
            StateKind::Coordinate(self.coordinate(k))
        } else if k < 2 * nf {
            StateKind::Rate(self.coordinate(k - nf))
        } else if k < 2 * nf + self.dynamic.len() {
            StateKind::FirstOrder(self.dynamic[k - 2 * nf])
        } else {
            self.works[k - 2 * nf - self.dynamic.len()]
        }
    }

    /// x\[k\] of the state, or its derivative ẋ\[k\] (the state's rates and
    /// accelerations: after [`OdeWork::derivatives`] in Model Exchange, the step end's in
    /// Co-Simulation).
    pub fn value(&self, st: &State, k: usize, derivative: bool) -> f64 {
        match (self.kind(k), derivative) {
            (StateKind::ActuatorWork, false) => st.work,
            (StateKind::ActuatorWork, true) => st.power,
            (StateKind::BaseWork, false) => st.base_work,
            (StateKind::BaseWork, true) => st.base_power,
            (StateKind::PortWork(i), false) => st.port_work[i],
            (StateKind::PortWork(i), true) => st.port_power[i],
            (StateKind::Coordinate(c), false) => st.z[c],
            (StateKind::Coordinate(c), true) | (StateKind::Rate(c), false) => st.zd[c],
            (StateKind::Rate(c), true) => st.zdd[c],
            (StateKind::FirstOrder(j), false) => st.w[j],
            (StateKind::FirstOrder(j), true) => st.wd[j],
        }
    }

    /// Whether Φ_z^d of the partition has become ill-conditioned against the best choice
    /// at the evaluation's Φ_z (the double-step solver's rule: a tenth of the best
    /// pivot ratio); the master should then stop at a step event for
    /// [`OdeWork::rechoose`].
    pub fn needs_rechoice(&mut self, ws: &Workspace, l: &Layout) -> bool {
        self.partition.rank() > 0 && self.partition.worse_than_best(&ws.eval.phi_z, l.nc, l.nz)
    }

    /// Chooses the independent coordinates again at the state's configuration (a step
    /// event: x keeps its length, its coordinate entries change meaning).
    pub fn rechoose(&mut self, model: Model<'_>, data: Data<'_>) -> Result<(), String> {
        let (m, l, p) = model.parts();
        let (st, ws) = data.parts();
        let nf = self.independent();
        ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
        self.partition.choose(&ws.eval.phi_z, l.nc, l.nz);
        if self.independent() != nf {
            return Err(format!(
                "the mechanism's mobility changed from {nf} to {} (a singular configuration)",
                self.independent()
            ));
        }
        self.partition
            .positions(m, l, p, &mut ws.eval, &mut st.z, &st.w, &st.wd)
    }

    /// x of the state.
    pub fn states(&self, st: &State, x: &mut [f64]) {
        let nf = self.independent();
        for k in 0..nf {
            let c = self.coordinate(k);
            x[k] = st.z[c];
            x[nf + k] = st.zd[c];
        }
        for (i, &j) in self.dynamic.iter().enumerate() {
            x[2 * nf + i] = st.w[j];
        }
        let first = 2 * nf + self.dynamic.len();
        for k in first..self.len() {
            x[k] = self.value(st, k, false);
        }
    }

    /// Puts x into the state: the independent coordinates and rates and the first-order
    /// states as given, the dependent ones from the position and velocity problems. With
    /// `solved`, the caller vouches that the state's configuration is the one the last
    /// position solve found for x's independent coordinates (an estimator's rate columns):
    /// the position problem is not solved again.
    #[allow(clippy::too_many_arguments)]
    pub fn set_states(
        &mut self,
        model: Model<'_>,
        data: Data<'_>,
        x: &[f64],
        solved: bool,
    ) -> Result<(), String> {
        let (m, l, p) = model.parts();
        let (st, ws) = data.parts();
        let nf = self.independent();
        let r = self.partition.rank();
        for k in 0..nf {
            let c = self.coordinate(k);
            self.from[k] = st.z[c];
            st.z[c] = x[k];
            st.zd[c] = x[nf + k];
        }
        self.first_order_from(x, st);
        let first = 2 * nf + self.dynamic.len();
        for (&kind, &v) in self.works.iter().zip(&x[first..]) {
            match kind {
                StateKind::BaseWork => st.base_work = v,
                StateKind::PortWork(i) => st.port_work[i] = v,
                _ => st.work = v,
            }
        }
        if r > 0 {
            // (Solved: the configuration and R_d of the last solve serve.)
            if !solved
                && let Err(e) =
                    self.partition
                        .positions(m, l, p, &mut ws.eval, &mut st.z, &st.w, &st.wd)
            {
                self.continue_positions(model, Data::new(st, ws), &x[..nf])
                    .map_err(|_| e)?;
            }
            let order = self.partition.order();
            let rd = self.partition.rd();
            for a in 0..r {
                st.zd[order[a]] = (0..nf).map(|k| rd[a * nf + k] * x[nf + k]).sum();
            }
        }
        if st
            .z
            .iter()
            .chain(&st.zd)
            .chain(&st.w)
            .all(|v| v.is_finite())
        {
            Ok(())
        } else {
            Err("a continuous state is not finite".into())
        }
    }

    /// The position problem by continuation when Newton from the last configuration fails
    /// (a master's large step or a predictor far ahead): the independent coordinates move
    /// from where they were (`self.from`) to `target` in 4, then 16 pieces, each solved from
    /// the one before. Where no configuration exists (the loop cannot close) it fails too.
    fn continue_positions(
        &mut self,
        model: Model<'_>,
        data: Data<'_>,
        target: &[f64],
    ) -> Result<(), String> {
        let (m, l, p) = model.parts();
        let (st, ws) = data.parts();
        let nf = self.independent();
        self.z_start.copy_from_slice(&st.z);
        let mut last = Err(String::new());
        for pieces in [4, 16] {
            st.z.copy_from_slice(&self.z_start);
            last = (1..=pieces).try_for_each(|s| {
                let f = s as f64 / pieces as f64;
                for k in 0..nf {
                    let c = self.coordinate(k);
                    st.z[c] = self.from[k] + f * (target[k] - self.from[k]);
                }
                self.partition
                    .positions(m, l, p, &mut ws.eval, &mut st.z, &st.w, &st.wd)
            });
            if last.is_ok() {
                return last;
            }
        }
        last
    }

    /// ẋ at the state (after [`OdeWork::set_states`]); the state's z̈ and ẇ are set too,
    /// and with `consistent` the evaluation is left at the consistent point (for the
    /// outputs and the powers; without, at the accelerations' first guess, which serves
    /// quantities of position and velocity level — an estimator's Jacobian columns).
    #[allow(clippy::too_many_arguments)]
    pub fn derivatives(
        &mut self,
        model: Model<'_>,
        data: Data<'_>,
        dx: &mut [f64],
        consistent: bool,
    ) -> Result<(), String> {
        let (m, l, p) = model.parts();
        let (st, ws) = data.parts();
        let nz = l.nz;
        let nf = self.independent();
        let r = self.partition.rank();
        // One full evaluation at the configuration, the rates and zero accelerations; what
        // follows changes only w and ẇ, so the first-order re-evaluation (hydraulics and
        // actuator forces, no kinematics or inverse dynamics) serves it, and the
        // accelerations, in which the inverse-dynamics residual is linear (M z̈), the mass
        // matrix.
        self.wd.fill(0.0);
        self.zdd.fill(0.0);
        ws.eval
            .run(m, l, p, &st.z, &st.zd, &self.zdd, &st.w, &self.wd);
        ws.eval.capture_first_order_base(m, l, &mut ws.first_order);
        self.first_order_rates(model, Data::new(st, ws), true)?;
        // The inverse-dynamics residual at zero accelerations and these first-order rates
        // (also the reference of `first_order_change`).
        self.r_mech_base.copy_from_slice(&ws.eval.r_mech);
        self.r_mech.copy_from_slice(&ws.eval.r_mech);
        // z̈⁰: independent accelerations zero, dependent ones closing Φ_z z̈ + Φ̇_z ż = 0
        // (Φ̇_z ż from the evaluation at zero accelerations).
        if r > 0 {
            let rows = self.partition.rows();
            for a in 0..r {
                self.rhs[a] = -ws.eval.phi_bias[rows[a]];
            }
            self.partition.solve_dependent(&mut self.rhs);
            let order = self.partition.order();
            for a in 0..r {
                self.zdd[order[a]] = self.rhs[a];
            }
        }
        // (R_zᵀ M R_z) z̈_i = −R_zᵀ (M z̈⁰ − Q).
        mass_matrix(
            &m.mechanism,
            &ws.eval.kin,
            &mut self.composite,
            &mut self.mm,
        );
        // M z̈⁰ − Q = r(0) + M z̈⁰.
        if r > 0 {
            for i in 0..nz {
                self.r_mech[i] += (0..nz)
                    .map(|j| self.mm[i * nz + j] * self.zdd[j])
                    .sum::<f64>();
            }
        }
        self.rz.fill(0.0);
        {
            let order = self.partition.order();
            let rd = self.partition.rd();
            for k in 0..nf {
                self.rz[order[r + k] * nf + k] = 1.0;
                for a in 0..r {
                    self.rz[order[a] * nf + k] = rd[a * nf + k];
                }
            }
        }
        for i in 0..nz {
            for k in 0..nf {
                self.mrz[i * nf + k] = (0..nz)
                    .map(|j| self.mm[i * nz + j] * self.rz[j * nf + k])
                    .sum();
            }
        }
        for a in 0..nf {
            for b in 0..nf {
                self.reduced[a * nf + b] = (0..nz)
                    .map(|i| self.rz[i * nf + a] * self.mrz[i * nf + b])
                    .sum();
            }
            self.rhs[a] = -(0..nz)
                .map(|i| self.rz[i * nf + a] * self.r_mech[i])
                .sum::<f64>();
        }
        lu_factor(
            &mut self.reduced,
            nf,
            &mut self.piv[..nf],
            &mut self.lu_scale[..2 * nf],
        )
        .map_err(|e| format!("the reduced mass matrix: {e}"))?;
        self.solve_reduced(nf);
        for i in 0..nz {
            self.zdd[i] += (0..nf)
                .map(|k| self.rz[i * nf + k] * self.rhs[k])
                .sum::<f64>();
        }
        st.zdd.copy_from_slice(&self.zdd);
        if consistent {
            ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
        }
        for k in 0..nf {
            let c = self.coordinate(k);
            dx[k] = st.zd[c];
            dx[nf + k] = st.zdd[c];
        }
        self.first_order_rates_into(st, dx);
        // The powers of the consistent point (the probes read them as the work's rates).
        st.power = ws.eval.power;
        st.base_power = ws.eval.base_power;
        st.port_power.copy_from_slice(&ws.eval.port_power);
        let first = 2 * nf + self.dynamic.len();
        for k in first..self.len() {
            dx[k] = self.value(st, k, true);
        }
        finite(&dx[..self.len()])
    }

    /// ẇ at the state's w, at the configuration whose first-order base is captured:
    /// the algebraic states solved, each dynamic residual linear in its own rate and in no
    /// other (a pressure's ṗ, a spool's τ ẋ, a pump's τ ẏ, a friction state's ẏ) — the
    /// slopes measured together by one re-evaluation at ẇ = 1 (`measure`) or the last
    /// measured (1 for a pressure, τ for a spool: constant in w). Sets the state's ẇ and
    /// leaves the evaluation's residuals at it.
    fn first_order_rates(
        &mut self,
        model: Model<'_>,
        data: Data<'_>,
        measure: bool,
    ) -> Result<(), String> {
        let (m, l, p) = model.parts();
        let (st, ws) = data.parts();
        self.wd.fill(0.0);
        self.solve_algebraic(model, Data::new(st, ws))?;
        ws.eval
            .run_first_order(m, l, p, &st.zd, &st.w, &self.wd, &ws.first_order);
        self.r0.copy_from_slice(&ws.eval.r_first);
        if measure {
            for &j in &self.dynamic {
                self.wd[j] = 1.0;
            }
            ws.eval
                .run_first_order(m, l, p, &st.zd, &st.w, &self.wd, &ws.first_order);
            for &j in &self.dynamic {
                self.slope[j] = ws.eval.r_first[j] - self.r0[j];
            }
        }
        for &j in &self.dynamic {
            self.wd[j] = -self.r0[j] / self.slope[j];
        }
        st.wd.copy_from_slice(&self.wd);
        if l.n_friction > 0 {
            // A friction state's rate moves its force (LuGre's σ₁ ẏ): evaluated at ẇ.
            ws.eval
                .run_first_order(m, l, p, &st.zd, &st.w, &st.wd, &ws.first_order);
        } else {
            // Nothing but the residuals depends on ẇ, and they are linear in it.
            ws.eval.r_first.copy_from_slice(&self.r0);
            for &j in &self.dynamic {
                ws.eval.r_first[j] += self.slope[j] * self.wd[j];
            }
        }
        Ok(())
    }

    /// ẋ where only the first-order states differ from those of the last
    /// [`OdeWork::derivatives`] (x's, the coordinates and rates must be that call's): ẇ as there,
    /// from first-order re-evaluations; z̈_i moved by the change of the inverse-dynamics
    /// residual (linear in the actuator forces) through the reduced mass matrix that call
    /// factored. No kinematics, inverse dynamics or mass matrix: the columns of the
    /// estimator's Jacobian for pressures and spools. `base` is that call's ẋ; the
    /// state's w and ẇ are set, its z̈ is not.
    #[allow(clippy::too_many_arguments)]
    pub fn first_order_change(
        &mut self,
        model: Model<'_>,
        data: Data<'_>,
        x: &[f64],
        base: &[f64],
        dx: &mut [f64],
    ) -> Result<(), String> {
        let l = model.layout;
        let (st, ws) = data.parts();
        let nf = self.independent();
        self.first_order_from(x, st);
        self.first_order_rates(model, Data::new(st, ws), false)?;
        self.r_mech.copy_from_slice(&ws.eval.r_mech);
        // R_zᵀ M R_z Δz̈_i = −R_zᵀ Δr.
        for k in 0..nf {
            self.rhs[k] = -(0..l.nz)
                .map(|i| self.rz[i * nf + k] * (self.r_mech[i] - self.r_mech_base[i]))
                .sum::<f64>();
        }
        self.solve_reduced(nf);
        let len = self.len();
        dx[..len].copy_from_slice(&base[..len]);
        for k in 0..nf {
            dx[nf + k] += self.rhs[k];
        }
        self.first_order_rates_into(st, dx);
        finite(&dx[..len])
    }

    /// ∂ẋ/∂f of a generalized force f on coordinate `c` of z at the last
    /// [`OdeWork::derivatives`]: only the accelerations move, z̈_i by the reduced mass
    /// matrix that call factored, R_zᵀ M R_z ∂z̈_i/∂f = R_zᵀ e_c (the inverse-dynamics
    /// residual is linear in the force: no evaluation).
    pub fn load_column(&mut self, c: usize, column: &mut [f64]) {
        let nf = self.independent();
        self.rhs[..nf].copy_from_slice(&self.rz[c * nf..(c + 1) * nf]);
        self.solve_reduced(nf);
        column[..self.len()].fill(0.0);
        column[nf..2 * nf].copy_from_slice(&self.rhs[..nf]);
    }

    /// The dynamic first-order states of x into the state's w.
    fn first_order_from(&self, x: &[f64], st: &mut State) {
        let nf = self.independent();
        for (i, &j) in self.dynamic.iter().enumerate() {
            st.w[j] = x[2 * nf + i];
        }
    }

    /// The state's ẇ of the dynamic first-order states into ẋ.
    fn first_order_rates_into(&self, st: &State, dx: &mut [f64]) {
        let nf = self.independent();
        for (i, &j) in self.dynamic.iter().enumerate() {
            dx[2 * nf + i] = st.wd[j];
        }
    }

    /// rhs[..nf] ← (R_zᵀ M R_z)⁻¹ rhs[..nf], with the LU of the last
    /// [`OdeWork::derivatives`].
    fn solve_reduced(&mut self, nf: usize) {
        lu_solve(
            &self.reduced,
            nf,
            &self.piv[..nf],
            &self.lu_scale[..2 * nf],
            &mut self.rhs[..nf],
        );
    }

    /// Solves the residual of each algebraic first-order state for it (Newton on the one
    /// unknown, a secant slope; an ideal spool's is linear and takes one update).
    fn solve_algebraic(&mut self, model: Model<'_>, data: Data<'_>) -> Result<(), String> {
        let (m, l, p) = model.parts();
        let (st, ws) = data.parts();
        // (ẇ = 0 here; the caller has captured the first-order base at the configuration.)
        for &j in &self.algebraic {
            for _ in 0..20 {
                ws.eval
                    .run_first_order(m, l, p, &st.zd, &st.w, &self.wd, &ws.first_order);
                let r = ws.eval.r_first[j];
                let w0 = st.w[j];
                let delta = 1e-7 * w0.abs().max(1e-3);
                st.w[j] = w0 + delta;
                ws.eval
                    .run_first_order(m, l, p, &st.zd, &st.w, &self.wd, &ws.first_order);
                let slope = (ws.eval.r_first[j] - r) / delta;
                if slope == 0.0 || !slope.is_finite() {
                    st.w[j] = w0;
                    return Err(format!(
                        "algebraic state {j} has a residual that does not depend on it"
                    ));
                }
                st.w[j] = w0 - r / slope;
                if (st.w[j] - w0).abs() <= 1e-12 * w0.abs().max(1e-9) {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Typical magnitudes of the states for the master's error control: 1 for
    /// coordinates (m, rad) and rates, 1e7 Pa for pressures, 1 for relative spool and pump
    /// positions, 1e-4 for friction states (bristle deflections of micrometres), 1 J for
    /// the work integrals.
    pub fn nominals(&self, l: &Layout, nominal: &mut [f64]) {
        let nf = self.independent();
        nominal[..self.len()].fill(1.0);
        let positions = l.n_pressures + l.n_spools + l.n_displacements;
        for (i, &k) in self.dynamic.iter().enumerate() {
            nominal[2 * nf + i] = if k < l.n_pressures {
                1e7
            } else if k < positions {
                1.0
            } else {
                1e-4
            };
        }
    }
}

/// Ok when every derivative is a number.
fn finite(dx: &[f64]) -> Result<(), String> {
    if dx.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err("a state derivative is not finite".into())
    }
}
