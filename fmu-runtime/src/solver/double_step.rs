//! Double-step semi-recursive formulation (coordinate partitioning, seed 001 §2.1.4 and
//! Pub I): the joint coordinates split into N_f independent and N_m dependent ones by
//! full-pivoting Gaussian elimination on Φ_z. Each residual evaluation solves the
//! position problem Φ(z_d; z_i) = 0 by Newton, gets `ż = R_z ż_i` and
//! `z̈ = R_z z̈_i + [−(Φ_z^d)⁻¹ Φ̇_z ż; 0]` (Pub I's D term), and the reduced equations
//! `R_zᵀ (M z̈ − Q) = 0` join the first-order states in the same trapezoidal Newton loop.
//! Constraints then hold to the position-solve tolerance; redundant equations (a planar
//! revolute cut written as a 3D one) are dropped by the rank-revealing elimination.

use super::evaluate::Evaluation;
use super::linalg::{lu_factor, lu_solve};
use super::{Data, Layout, Model, Workspace};
use crate::model::CompiledModel;
use crate::solver::State;

/// Buffers of the formulation, allocated once.
pub struct DoubleStepWork {
    ge: Vec<f64>,
    order: Vec<usize>,
    rows: Vec<usize>,
    /// The best partition at the current configuration, compared with the one in use.
    candidate_order: Vec<usize>,
    candidate_rows: Vec<usize>,
    rank: usize,
    /// Φ_z^d (rank × rank) and its LU.
    phid: Vec<f64>,
    phid_piv: Vec<usize>,
    phid_scale: Vec<f64>,
    /// R_d = −(Φ_z^d)⁻¹ Φ_z^i, rank × nf (row-major).
    rd: Vec<f64>,
    rhs: Vec<f64>,
    /// Full coordinates, rates, accelerations of the current trial.
    z: Vec<f64>,
    zd: Vec<f64>,
    zdd: Vec<f64>,
    zero: Vec<f64>,
    /// Newton system in `x = [z_i; w]`.
    x: Vec<f64>,
    dx: Vec<f64>,
    f: Vec<f64>,
    f_pert: Vec<f64>,
    jac: Vec<f64>,
    piv: Vec<usize>,
    scale: Vec<f64>,
    tol: Vec<f64>,
    fd_scale: Vec<f64>,
    /// Number of times the partition was re-chosen (for the event log).
    pub reselections: u64,
}

impl DoubleStepWork {
    pub fn new(l: &Layout, tol: &[f64], fd_scale: &[f64]) -> DoubleStepWork {
        let (nz, nc, nw) = (l.nz, l.nc, l.nw);
        let n = nz + nw;
        DoubleStepWork {
            ge: vec![0.0; nc * nz],
            order: (0..nz).collect(),
            rows: (0..nc).collect(),
            candidate_order: (0..nz).collect(),
            candidate_rows: (0..nc).collect(),
            rank: 0,
            phid: vec![0.0; nc * nc],
            phid_piv: vec![0; nc],
            phid_scale: vec![0.0; 2 * nc],
            rd: vec![0.0; nc * nz],
            rhs: vec![0.0; nc],
            z: vec![0.0; nz],
            zd: vec![0.0; nz],
            zdd: vec![0.0; nz],
            zero: vec![0.0; nz],
            x: vec![0.0; n],
            dx: vec![0.0; n],
            f: vec![0.0; n],
            f_pert: vec![0.0; n],
            jac: vec![0.0; n * n],
            piv: vec![0; n],
            scale: vec![0.0; 2 * n],
            tol: tol.to_vec(),
            fd_scale: fd_scale.to_vec(),
            reselections: 0,
        }
    }

    fn nf(&self) -> usize {
        self.order.len() - self.rank
    }
}

/// Full-pivoting elimination on Φ_z (nc × nz, row-major): pivot columns become the
/// dependent coordinates, pivot rows the independent equations. Returns the rank and the
/// ratio of the smallest to the largest pivot (a conditioning measure).
fn choose_partition(
    phi_z: &[f64],
    nc: usize,
    nz: usize,
    ge: &mut [f64],
    order: &mut [usize],
    rows: &mut [usize],
) -> (usize, f64) {
    ge.copy_from_slice(phi_z);
    for (i, o) in order.iter_mut().enumerate() {
        *o = i;
    }
    for (i, r) in rows.iter_mut().enumerate() {
        *r = i;
    }
    let (mut first, mut last) = (0.0, 0.0);
    let mut rank = 0;
    for k in 0..nc.min(nz) {
        let (mut bi, mut bj, mut best) = (k, k, 0.0f64);
        for i in k..nc {
            for j in k..nz {
                let v = ge[rows[i] * nz + order[j]].abs();
                if v > best {
                    (bi, bj, best) = (i, j, v);
                }
            }
        }
        if k == 0 {
            first = best;
        }
        if best <= 1e-10 * first.max(1e-300) || best == 0.0 {
            break;
        }
        rows.swap(k, bi);
        order.swap(k, bj);
        let (pr, pc) = (rows[k], order[k]);
        for i in k + 1..nc {
            let r = rows[i];
            let f = ge[r * nz + pc] / ge[pr * nz + pc];
            if f != 0.0 {
                for j in k..nz {
                    let c = order[j];
                    ge[r * nz + c] -= f * ge[pr * nz + c];
                }
            }
        }
        last = best;
        rank = k + 1;
    }
    (rank, if first > 0.0 { last / first } else { 1.0 })
}

/// Conditioning (min/max pivot) of Φ_z^d for the given partition.
fn partition_quality(ds: &mut DoubleStepWork, phi_z: &[f64], nz: usize) -> f64 {
    let r = ds.rank;
    fill_phid(ds, phi_z, nz);
    if lu_factor(
        &mut ds.phid[..r * r],
        r,
        &mut ds.phid_piv[..r],
        &mut ds.phid_scale[..2 * r],
    )
    .is_err()
    {
        return 0.0;
    }
    let (mut min, mut max) = (f64::INFINITY, 0.0f64);
    for i in 0..r {
        let d = ds.phid[i * r + i].abs();
        min = min.min(d);
        max = max.max(d);
    }
    if max > 0.0 { min / max } else { 0.0 }
}

fn fill_phid(ds: &mut DoubleStepWork, phi_z: &[f64], nz: usize) {
    let r = ds.rank;
    for a in 0..r {
        for b in 0..r {
            ds.phid[a * r + b] = phi_z[ds.rows[a] * nz + ds.order[b]];
        }
    }
}

/// The partition and the position and velocity problems, for the explicit-ODE view of
/// Model Exchange ([`super::ode`]), which keeps its own `DoubleStepWork`.
impl DoubleStepWork {
    /// Chooses the partition at Φ_z (full-pivoting elimination): `order()` then lists the
    /// `rank()` dependent coordinates first, the independent ones after.
    pub(super) fn choose(&mut self, phi_z: &[f64], nc: usize, nz: usize) {
        let (rank, _) =
            choose_partition(phi_z, nc, nz, &mut self.ge, &mut self.order, &mut self.rows);
        self.rank = rank;
    }

    pub(super) fn rank(&self) -> usize {
        self.rank
    }

    /// Whether Φ_z^d of this partition is worse conditioned than a tenth of the best
    /// choice at Φ_z (the rule of [`update_partition`]). Leaves the LU of Φ_z^d at Φ_z.
    pub(super) fn worse_than_best(&mut self, phi_z: &[f64], nc: usize, nz: usize) -> bool {
        let current = partition_quality(self, phi_z, nz);
        let (_, best) = choose_partition(
            phi_z,
            nc,
            nz,
            &mut self.ge,
            &mut self.candidate_order,
            &mut self.candidate_rows,
        );
        current < 0.1 * best
    }

    pub(super) fn independent(&self) -> usize {
        self.nf()
    }

    /// Joint coordinates, dependent ones first.
    pub(super) fn order(&self) -> &[usize] {
        &self.order
    }

    /// Solves Φ(z_d; z_i) = 0 for the dependent entries of `z` (a warm start), leaving
    /// `eval` and the LU of Φ_z^d at the solution, then R_d = −(Φ_z^d)⁻¹ Φ_z^i.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn positions(
        &mut self,
        m: &CompiledModel,
        l: &Layout,
        p: &[f64],
        eval: &mut Evaluation,
        z: &mut [f64],
        w: &[f64],
        wd: &[f64],
    ) -> Result<(), String> {
        let nz = l.nz;
        self.z.copy_from_slice(z);
        self.zero.fill(0.0);
        solve_positions(m, l, p, self, eval, w, wd)?;
        z.copy_from_slice(&self.z);
        let (r, nf) = (self.rank, self.nf());
        for k in 0..nf {
            for a in 0..r {
                self.rhs[a] = -eval.phi_z[self.rows[a] * nz + self.order[r + k]];
            }
            lu_solve(
                &self.phid[..r * r],
                r,
                &self.phid_piv[..r],
                &self.phid_scale[..2 * r],
                &mut self.rhs[..r],
            );
            for a in 0..r {
                self.rd[a * nf + k] = self.rhs[a];
            }
        }
        Ok(())
    }

    /// R_d (rank × independent, row-major) of the last [`DoubleStepWork::positions`].
    pub(super) fn rd(&self) -> &[f64] {
        &self.rd[..self.rank * self.nf()]
    }

    /// Φ_z^d y = b for the constraint rows of the partition: `b[a]` is the right-hand side
    /// of row `rows[a]` on entry, the dependent coordinate `order[a]`'s value on exit.
    pub(super) fn solve_dependent(&self, b: &mut [f64]) {
        let r = self.rank;
        lu_solve(
            &self.phid[..r * r],
            r,
            &self.phid_piv[..r],
            &self.phid_scale[..2 * r],
            &mut b[..r],
        );
    }

    /// Constraint rows of the partition (Φ_z^d's rows).
    pub(super) fn rows(&self) -> &[usize] {
        &self.rows[..self.rank]
    }
}

/// Chooses the partition at the first step and re-chooses it when Φ_z^d has become
/// ill-conditioned compared with the best available choice.
fn update_partition(model: Model<'_>, data: Data<'_>) {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let (nz, nc) = (l.nz, l.nc);
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    let ds = ws.double_step.as_mut().expect("double-step workspace");
    let stored = st.rank as usize > 0;
    if stored {
        ds.rank = st.rank as usize;
        for (o, v) in ds.order.iter_mut().zip(&st.partition[..nz]) {
            *o = *v as usize;
        }
        for (o, v) in ds.rows.iter_mut().zip(&st.partition[nz..]) {
            *o = *v as usize;
        }
        let current = partition_quality(ds, &ws.eval.phi_z, nz);
        let (rank, best) = choose_partition(
            &ws.eval.phi_z,
            nc,
            nz,
            &mut ds.ge,
            &mut ds.candidate_order,
            &mut ds.candidate_rows,
        );
        if current >= 0.1 * best {
            return;
        }
        ds.reselections += 1;
        std::mem::swap(&mut ds.order, &mut ds.candidate_order);
        std::mem::swap(&mut ds.rows, &mut ds.candidate_rows);
        commit_partition(ds, st, rank, nz);
        return;
    }
    let (rank, _) = choose_partition(
        &ws.eval.phi_z,
        nc,
        nz,
        &mut ds.ge,
        &mut ds.order,
        &mut ds.rows,
    );
    commit_partition(ds, st, rank, nz);
}

/// Makes `ds.order`/`ds.rows` with `rank` the partition in use and stores it in the state.
fn commit_partition(ds: &mut DoubleStepWork, st: &mut State, rank: usize, nz: usize) {
    ds.rank = rank;
    st.rank = rank as u32;
    for (v, o) in st.partition[..nz].iter_mut().zip(&ds.order) {
        *v = *o as u32;
    }
    for (v, o) in st.partition[nz..].iter_mut().zip(&ds.rows) {
        *v = *o as u32;
    }
}

/// Solves Φ_rows(z_d; z_i) = 0 for the dependent coordinates of `ds.z` (warm start) and
/// leaves the evaluation and the LU of Φ_z^d at the solution.
fn solve_positions(
    m: &CompiledModel,
    l: &Layout,
    p: &[f64],
    ds: &mut DoubleStepWork,
    eval: &mut Evaluation,
    w: &[f64],
    wd: &[f64],
) -> Result<(), String> {
    let (nz, r) = (l.nz, ds.rank);
    for _ in 0..30 {
        eval.run(m, l, p, &ds.z, &ds.zero, &ds.zero, w, wd);
        fill_phid(ds, &eval.phi_z, nz);
        lu_factor(
            &mut ds.phid[..r * r],
            r,
            &mut ds.phid_piv[..r],
            &mut ds.phid_scale[..2 * r],
        )
        .map_err(|e| format!("position problem: {e}"))?;
        let norm = (0..r).fold(0.0f64, |s, a| s.max(eval.phi[ds.rows[a]].abs()));
        if norm < 1e-13 {
            return Ok(());
        }
        for a in 0..r {
            ds.rhs[a] = -eval.phi[ds.rows[a]];
        }
        lu_solve(
            &ds.phid[..r * r],
            r,
            &ds.phid_piv[..r],
            &ds.phid_scale[..2 * r],
            &mut ds.rhs[..r],
        );
        for b in 0..r {
            ds.z[ds.order[b]] += ds.rhs[b];
        }
        if !ds.rhs[..r].iter().all(|v| v.is_finite()) {
            break;
        }
    }
    Err("the position problem did not converge (near a singular configuration?)".into())
}

/// Residual of the reduced system at `ds.x` into `ds.f` (or `ds.f_pert`).
fn residual(model: Model<'_>, ws: &mut Workspace, h: f64, into_f: bool) -> Result<(), String> {
    let (m, l, p) = model.parts();
    let (nz, nw) = (l.nz, l.nw);
    let ds = ws.double_step.as_mut().expect("double-step workspace");
    let (r, nf) = (ds.rank, ds.nf());
    let (c1, c2) = (2.0 / h, 4.0 / (h * h));
    for k in 0..nf {
        ds.z[ds.order[r + k]] = ds.x[k];
    }
    for i in 0..nw {
        ws.wd[i] = ws.wd_gain[i] * ds.x[nf + i] + ws.wd_hat[i];
        ws.x[i] = ds.x[nf + i];
    }
    let w = &ws.x[..nw];
    solve_positions(m, l, p, ds, &mut ws.eval, w, &ws.wd)?;
    // R_d = −(Φ_z^d)⁻¹ Φ_z^i, column by column.
    for k in 0..nf {
        for a in 0..r {
            ds.rhs[a] = -ws.eval.phi_z[ds.rows[a] * nz + ds.order[r + k]];
        }
        lu_solve(
            &ds.phid[..r * r],
            r,
            &ds.phid_piv[..r],
            &ds.phid_scale[..2 * r],
            &mut ds.rhs[..r],
        );
        for a in 0..r {
            ds.rd[a * nf + k] = ds.rhs[a];
        }
    }
    // Velocities and accelerations of the independent coordinates from the trapezoidal
    // rule, the dependent ones through R_z.
    for k in 0..nf {
        let c = ds.order[r + k];
        ds.zd[c] = c1 * ds.x[k] + ws.zd_hat[c];
        ds.zdd[c] = c2 * ds.x[k] + ws.zdd_hat[c];
    }
    for a in 0..r {
        let c = ds.order[a];
        ds.zd[c] = (0..nf)
            .map(|k| ds.rd[a * nf + k] * ds.zd[ds.order[r + k]])
            .sum();
        ds.zdd[c] = 0.0;
    }
    // Φ̇_z ż at (z, ż): the constraint acceleration with the dependent z̈ still zero and
    // the independent ones included, then solve for the dependent accelerations.
    ws.eval.run(m, l, p, &ds.z, &ds.zd, &ds.zdd, w, &ws.wd);
    for a in 0..r {
        let row = ds.rows[a];
        let known: f64 = (0..nf)
            .map(|k| ws.eval.phi_z[row * nz + ds.order[r + k]] * ds.zdd[ds.order[r + k]])
            .sum();
        ds.rhs[a] = -(ws.eval.phi_bias[row] + known);
    }
    lu_solve(
        &ds.phid[..r * r],
        r,
        &ds.phid_piv[..r],
        &ds.phid_scale[..2 * r],
        &mut ds.rhs[..r],
    );
    for a in 0..r {
        ds.zdd[ds.order[a]] = ds.rhs[a];
    }
    ws.eval.run(m, l, p, &ds.z, &ds.zd, &ds.zdd, w, &ws.wd);
    let s = 0.25 * h * h;
    let e = &ws.eval;
    let out = if into_f { &mut ds.f } else { &mut ds.f_pert };
    for k in 0..nf {
        let ci = ds.order[r + k];
        let reduced = e.r_mech[ci]
            + (0..r)
                .map(|a| ds.rd[a * nf + k] * e.r_mech[ds.order[a]])
                .sum::<f64>();
        out[k] = s * reduced;
    }
    for i in 0..nw {
        out[nf + i] = s * e.r_first[i];
    }
    if out.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err("non-finite residual".into())
    }
}

/// One trapezoidal step of the double-step formulation.
pub fn step(model: Model<'_>, data: Data<'_>, h: f64) -> Result<(), String> {
    let (m, l) = (model.compiled, model.layout);
    let (st, ws) = data.parts();
    let (nz, nw) = (l.nz, l.nw);
    update_partition(model, Data::new(st, ws));
    for i in 0..nz {
        ws.zd_hat[i] = -(2.0 / h * st.z[i] + st.zd[i]);
        ws.zdd_hat[i] = -(4.0 / (h * h) * st.z[i] + 4.0 / h * st.zd[i] + st.zdd[i]);
    }
    // Pressures near vapour pressure by backward Euler (see `cavitation`).
    let euler = super::cavitation::history(model, Data::new(st, ws), h);
    let (nf, n) = {
        let ds = ws.double_step.as_mut().expect("double-step workspace");
        let r = ds.rank;
        let nf = ds.nf();
        // Predictor (`predictor`): independent coordinates and first-order states, dependent
        // coordinates warm-started from it.
        for i in 0..nz {
            ds.z[i] = super::predictor::joint(st, i, h);
            ds.zero[i] = 0.0;
        }
        for k in 0..nf {
            ds.x[k] = ds.z[ds.order[r + k]];
        }
        for k in 0..nw {
            ds.x[nf + k] = super::predictor::first_order(st, k, h);
        }
        (nf, nf + nw)
    };
    let mut converged = false;
    let mut iterations = 0;
    let mut previous = f64::INFINITY;
    let mut refresh = true;
    let (mut it, mut spent, mut resolved) = (0, 0, false);
    loop {
        it += 1;
        if it > m.solver.max_iterations {
            break;
        }
        iterations = spent + it;
        residual(model, ws, h, true)?;
        if refresh {
            for k in 0..n {
                let ds = ws.double_step.as_mut().unwrap();
                let x0 = ds.x[k];
                let eps = 1.5e-8 * x0.abs().max(fd_scale(ds, k, nf));
                ds.x[k] = x0 + eps;
                residual(model, ws, h, false)?;
                let ds = ws.double_step.as_mut().unwrap();
                ds.x[k] = x0;
                for i in 0..n {
                    ds.jac[i * n + k] = (ds.f_pert[i] - ds.f[i]) / eps;
                }
            }
            let ds = ws.double_step.as_mut().unwrap();
            lu_factor(
                &mut ds.jac[..n * n],
                n,
                &mut ds.piv[..n],
                &mut ds.scale[..2 * n],
            )?;
            refresh = false;
            // The perturbed evaluations moved the warm start; restore the base point.
            residual(model, ws, h, true)?;
        }
        let ds = ws.double_step.as_mut().unwrap();
        for i in 0..n {
            ds.dx[i] = -ds.f[i];
        }
        lu_solve(
            &ds.jac[..n * n],
            n,
            &ds.piv[..n],
            &ds.scale[..2 * n],
            &mut ds.dx[..n],
        );
        let (tol, nz) = (&ds.tol, ds.order.len());
        let tol_scale = super::tolerance_scale(m, h);
        let tol_of = |i: usize, x: f64| {
            let t = if i < nf { tol[0] } else { tol[nz + i - nf] };
            super::tolerance(t, tol_scale, x)
        };
        let size = super::apply_update(&mut ds.x[..n], &ds.dx[..n], tol_of, st.time + h)?;
        if size <= 1.0 {
            // A trapezoidal pressure that ended near vapour pressure: solve again with
            // backward Euler for it.
            let ds = ws.double_step.as_ref().unwrap();
            ws.x[..nw].copy_from_slice(&ds.x[nf..nf + nw]);
            if !resolved && super::cavitation::overshoots(model, Data::new(st, ws), h, 0) {
                (resolved, spent, it, refresh, previous) = (true, it, 0, true, f64::INFINITY);
                continue;
            }
            converged = true;
            break;
        }
        if size > 0.1 * previous || size > 1e3 {
            refresh = true;
        }
        previous = size;
    }
    if !converged {
        return Err(format!(
            "Newton did not converge in {} iterations at t = {} s (h = {h} s)",
            m.solver.max_iterations,
            st.time + h
        ));
    }
    // Final consistent point.
    residual(model, ws, h, true)?;
    let ds = ws.double_step.as_ref().unwrap();
    st.z.copy_from_slice(&ds.z);
    st.zd.copy_from_slice(&ds.zd);
    super::predictor::push_history(st);
    st.zdd.copy_from_slice(&ds.zdd);
    st.w.copy_from_slice(&ds.x[nf..nf + nw]);
    st.wd.copy_from_slice(&ws.wd);
    if euler || resolved {
        ws.euler_steps += 1;
        ws.resolved_steps += u64::from(resolved);
    }
    st.iterations = iterations;
    st.steps += 1;
    Ok(())
}

/// Unknown `i` of `x = [z_i; w]`: its finite-difference scale, taken from the workspace
/// entries of the full layout (its tolerance likewise, at the Newton update).
fn fd_scale(ds: &DoubleStepWork, i: usize, nf: usize) -> f64 {
    let nz = ds.order.len();
    if i < nf {
        0.01
    } else {
        ds.fd_scale[nz + i - nf]
    }
}
