//! One step of the implicit trapezoidal rule, monolithic: joint coordinates and all
//! first-order states are the unknowns of one Newton–Raphson iteration (seed 002 §2.3,
//! seed 001 §2.6), closed loops by the index-3 augmented Lagrangian with
//! mass-damping-stiffness-orthogonal projections (seed 001 eqs 2.20–2.25).
//!
//! Residual, all rows scaled by h²/4 (seed 002 eqs 22–23):
//! `F_z = h²/4 (M z̈ − Q + Φ_zᵀ(αΦ + λ))`, `F_w = h²/4 r_w(w, ẇ)` with
//! `ż = 2/h z + ż̂`, `z̈ = 4/h² z + z̈̂`, `ẇ = 2/h w + ẇ̂`.

use super::linalg::lu_solve;
use super::plan::SolverPath;
use super::residual::*;
use super::tangent::*;
use super::{Data, Model, StepFailure, Workspace};
use crate::solver::State;

pub use super::residual::penalty;

/// The tangent at the predictor of the next step three ways (row-major n × n), for tests.
#[doc(hidden)]
pub struct TangentProbe {
    /// As the solver forms it (first-order columns by partial evaluation, joint-coordinate
    /// columns assembled or by grouped differences, as the model says).
    pub solver: Vec<f64>,
    /// Full forward differences of every column, with the solver's increments.
    pub forward: Vec<f64>,
    /// Central differences with an increment of 1e-6 · max(|z|, 1) for the joint
    /// coordinates (the solver's forward increment, 1.5e-8 · max(|z|, 0.01), meets the
    /// round-off of the penalty term `h²/4 αΦ` on a large machine), the forward columns for
    /// the first-order states: accurate enough to judge the assembled columns.
    pub central: Vec<f64>,
}

/// Test hook: see [`TangentProbe`].
#[doc(hidden)]
pub fn tangent_probe(model: Model<'_>, data: Data<'_>, h: f64) -> Result<TangentProbe, String> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let (nz, nw) = (l.nz, l.nw);
    let n = nz + nw;
    let alpha = penalty(m, p, st.mass_scale, h);
    predict(model, Data::new(st, ws), h);
    let saved = st.tangent.clone();
    residual(model, ws, h, alpha, true);
    fill_tangent(
        model,
        Data::new(st, ws),
        h,
        Penalty::full(alpha),
        SolverPath::Dense,
        false,
    )?;
    let solver = st.tangent[..n * n].to_vec();
    st.tangent.copy_from_slice(&saved);
    let mut forward = vec![0.0; n * n];
    for k in 0..n {
        perturb(ws, k);
        residual(model, ws, h, alpha, false);
        let eps = unperturb(ws, k);
        for i in 0..n {
            forward[i * n + k] = (ws.f_pert[i] - ws.f[i]) / eps;
        }
    }
    let mut central = forward.clone();
    for k in 0..nz {
        let x0 = ws.x[k];
        let eps = 1e-6 * x0.abs().max(1.0);
        ws.x[k] = x0 + eps;
        residual(model, ws, h, alpha, false);
        let plus = ws.f_pert.clone();
        ws.x[k] = x0 - eps;
        residual(model, ws, h, alpha, false);
        ws.x[k] = x0;
        for i in 0..n {
            central[i * n + k] = (plus[i] - ws.f_pert[i]) / (2.0 * eps);
        }
    }
    Ok(TangentProbe {
        solver,
        forward,
        central,
    })
}

/// Trapezoidal history ("hat") vectors of the step from `st` by `h` (backward Euler for
/// pressures near vapour pressure), the predictor (`predictor`), and the multipliers
/// carried over. Returns whether any pressure takes backward Euler.
fn predict(model: Model<'_>, data: Data<'_>, h: f64) -> bool {
    let l = model.layout;
    let (st, ws) = data.parts();
    let nz = l.nz;
    for i in 0..nz {
        ws.zd_hat[i] = -(2.0 / h * st.z[i] + st.zd[i]);
        ws.zdd_hat[i] = -(4.0 / (h * h) * st.z[i] + 4.0 / h * st.zd[i] + st.zdd[i]);
        ws.x[i] = super::predictor::joint(st, i, h);
    }
    // Driven coordinates: history from the reference at the step's start (an input that
    // jumped at the communication point moves the coordinate with it), the reference at
    // its end as the target and the predictor.
    ws.drive_gain = st.mass_scale;
    for d in &mut ws.drives {
        let [q, qd, qdd] = d.reference(st.time);
        let c = d.coordinate;
        ws.zd_hat[c] = -(2.0 / h * q + qd);
        ws.zdd_hat[c] = -(4.0 / (h * h) * q + 4.0 / h * qd + qdd);
        d.target = d.reference(st.time + h);
        ws.x[c] = d.target[0];
    }
    for k in 0..l.nw {
        ws.x[nz + k] = super::predictor::first_order(st, k, h);
    }
    ws.lambda.copy_from_slice(&st.lambda);
    super::cavitation::history(model, Data::new(st, ws), h)
}

/// Plans the sparse tangent for the near contact pairs of the state's factors; where that
/// cannot be done the factors are dropped (formed again in this step).
fn follow_state(st: &mut State, ws: &mut Workspace) {
    let planned = match std::sync::Arc::get_mut(&mut ws.plan) {
        Some(plan) => plan.plan_near(&st.tangent_near),
        None => Err("the tangent plan is shared".into()),
    };
    if planned.is_err() {
        st.tangent_step = 0.0;
    }
}

/// `dx = −J⁻¹ F` with the factored tangent of the state.
fn newton_direction(st: &State, ws: &mut Workspace, n: usize) {
    for i in 0..n {
        ws.dx[i] = -ws.f[i];
    }
    solve_tangent(st, &ws.plan, &mut ws.lu_work, &mut ws.dx[..n]);
}

/// `b ← J⁻¹ b` with the factored tangent of the state.
fn solve_tangent(st: &State, plan: &super::plan::TangentPlan, work: &mut [f64], b: &mut [f64]) {
    match (&plan.sparse, st.tangent_sparse) {
        (Some(s), true) => s.tangent.solve(&st.tangent, &st.tangent_scale, b, work),
        _ => lu_solve(
            &st.tangent,
            b.len(),
            &st.tangent_pivots,
            &st.tangent_scale,
            b,
        ),
    }
}

/// Puts the sliding contact points that the update carries through stick at stick
/// (`stick_projection`); returns how many.
fn hold_at_stick(
    st: &State,
    ws: &mut Workspace,
    mech: &crate::model::Mechanism,
    n: usize,
    h: f64,
) -> usize {
    let Workspace {
        stick: Some(stick),
        eval,
        dx,
        plan,
        lu_work,
        ..
    } = ws
    else {
        return 0;
    };
    stick.project(mech, eval, &mut dx[..n], h, |b| {
        solve_tangent(st, plan, lu_work, b)
    })
}

/// Forms the multiplier coupling (`multipliers`) for the tangent the state holds.
fn couple_multipliers(st: &mut State, ws: &mut Workspace, h: f64) -> Result<(), String> {
    let Workspace {
        multipliers: Some(work),
        plan,
        lu_work,
        drives,
        ..
    } = ws
    else {
        return Ok(());
    };
    // G is written into the state while the state's tangent solves (moved out and back,
    // no allocation).
    let mut g = std::mem::take(&mut st.coupling);
    let mut formed_with = std::mem::take(&mut st.coupling_phi_z);
    let result = work.couple(
        h,
        drives.iter().map(|d| d.coordinate),
        &mut g,
        &mut formed_with,
        |b| solve_tangent(st, plan, lu_work, b),
    );
    (st.coupling, st.coupling_phi_z) = (g, formed_with);
    result
}

/// How far the loop's `Φ_z` may turn (largest entry change over the largest entry) before
/// a kept tangent's multiplier coupling `G` is formed again; below it only `S = Φ_z G` is
/// (our choice, from the measurements in `docs/performance.md`).
const COUPLING_DRIFT: f64 = 1e-5;

/// The joint-coordinate part of a kept tangent's first update (in tolerances) above which
/// the tangent is formed again for the second iteration (our choice: on the Pub I four-bar
/// 2.22 → 1.96 iterations per step and 37.6 k → 35.6 k instructions per step; at 10 the
/// iterations fall to 1.90 but the cost rises to 37.2 k, at 300 to 2.06 / 36.4 k).
const KEPT_JOINT_MISS: f64 = 100.0;

/// How far a volume's `dV/dp` may move from the kept tangent's (relative) before the
/// tangent is formed again for the second iteration (our choice: on the Pub I four-bar,
/// whose cap side falls to 60 kPa after the valve closes, where the entrained air makes it
/// ten times as compliant, 1.96 → 1.90 iterations per step and at most 7 → 6; at 0.1
/// 1.85 / 6 but dearer).
const COMPLIANCE_DRIFT: f64 = 0.3;

/// A step's iteration budget (our choice: the worst step the issue asks of the seeds'
/// four-bar): a kept tangent whose contraction would converge the step only at this
/// iteration or later is formed again. A tangent costs about as much as an iteration or
/// two, and a real-time step is judged by its worst case. (Pub I four-bar: at most 6 → 5
/// iterations; the PATU crane 11 → 8, the excavator 6 → 5.)
const ITERATION_BUDGET: u32 = 5;

/// Newton has stalled when an update is at least this share of the one before it, twice
/// in a row (our choice)…
const STALLED: f64 = 0.9;

/// …and then takes this share of its updates (our choice): the knuckle crane's LS line
/// circled by 5 bar for 25 iterations at 10.06 s, eight times in its manoeuvre, each a
/// failed step solved again in halves (its worst step 0.63 ms of CPU against a 3.7 µs
/// median); with half steps none fails, and the worst step takes 0.13–0.17 ms.
const STALL_STEP: f64 = 0.5;

/// The further iterations until an update within the tolerances, from an update of
/// `size` (in tolerances) at the contraction `θ = size/previous` of the last two (counted
/// up to the budget); 0 without a contraction to go by (the first update, or one that
/// grew).
fn iterations_to_go(size: f64, previous: f64) -> u32 {
    if !(previous.is_finite() && size < previous) {
        return 0;
    }
    let theta = size / previous;
    let (mut to_go, mut left) = (0, size);
    while left > 1.0 && to_go < ITERATION_BUDGET {
        left *= theta;
        to_go += 1;
    }
    to_go
}

/// Whether a tangent kept from an earlier step is formed again for the second iteration,
/// from the first update's miss of the joint coordinates (`joint_miss`, in tolerances) and
/// the volumes at the second iterate (`ws.eval`):
/// - on a closed loop, a miss above [`KEPT_JOINT_MISS`]: the tangent belongs to an earlier
///   geometry (the loop's Jacobian, a cylinder's lever arm), its error times a miss this
///   large leaves the next update above the tolerances, and the tangent of this step is
///   cheaper than the iteration it saves (on a tree it is not: the naya rod at 10 ms took
///   1.74 instead of 1.95 iterations per step but 19 % more instructions);
/// - a volume whose `dV/dp` moved by more than [`COMPLIANCE_DRIFT`]: the pressure rows, the
///   joint columns' included, scale with its inverse. (At the predictor instead, the
///   friction four-bar's stick-slip step went astray for 11 iterations.)
fn stale_after_first_update(st: &State, ws: &Workspace, nc: usize, joint_miss: f64) -> bool {
    let compliance_drift = || {
        ws.eval
            .volumes
            .compliance()
            .iter()
            .zip(&st.tangent_compliance)
            .fold(0.0f64, |a, (c, t)| a.max((c / t - 1.0).abs()))
    };
    nc > 0 && joint_miss > KEPT_JOINT_MISS || compliance_drift() > COMPLIANCE_DRIFT
}

/// Advances `st` by `h`. On error `st` is as it was but for the tangent it formed
/// (`step_with_retries` relies on that: the rest is written only once converged).
pub fn step(model: Model<'_>, data: Data<'_>, h: f64) -> Result<(), StepFailure> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let (nz, nw, nc) = (l.nz, l.nw, l.nc);
    let n = nz + nw;
    let alpha = penalty(m, p, st.mass_scale, h);
    let penalty = if ws.projection.is_some() {
        // A kept tangent on a closed loop (see `Penalty`).
        Penalty {
            alpha,
            in_tangent: alpha.min(4.0 / (h * h) * st.mass_scale.max(1e-6)),
        }
    } else {
        Penalty::full(alpha)
    };
    let tol = &m.solver;
    let tol_scale = super::tolerance_scale(m, h);
    // The sparse plan follows the near contact pairs of the factors the state holds (a
    // restored state, a step begun again after a failed attempt).
    if st.tangent_sparse && st.tangent_step > 0.0 {
        follow_state(st, ws);
    }

    // History ("hat") vectors and predictor.
    let mut euler = predict(model, Data::new(st, ws), h);

    let mut converged = false;
    let mut iterations = 0;
    let mut previous = f64::INFINITY;
    let mut previous_z = f64::INFINITY;
    // The last two updates as Newton gave them, before a stall's halving: what the stall
    // rule compares (the half a halved update left is not a stall).
    let (mut whole, mut whole_2) = (f64::INFINITY, f64::INFINITY);
    // Where a full refresh needs more full evaluations than a first-order one needs partial
    // ones (each about a third of a full one), a first-order refresh is worth trying even
    // while the joint coordinates contract slowly: the excavator (14 against 8) is there,
    // the seeds' four-bar (3 against 4) is not.
    let (full_evaluations, partial_evaluations) = ws.plan.refresh_evaluations();
    let first_order_first = full_evaluations > partial_evaluations;
    // Modified Newton across steps: the tangent of an earlier step of the same size is
    // kept while the iteration contracts well.
    // Steps differ in the last bits (h = t_end − t); a tangent of a step within 1e-9
    // relative is as good as one of this step.
    let same_step = (st.tangent_step - h).abs() <= 1e-9 * h;
    let reuse = m.solver.reuse_tangent;
    // A pressure that changes between the trapezoidal rule and backward Euler changes its
    // column of a kept tangent: the first-order columns are formed again.
    let mut refresh = if !(reuse && same_step) {
        Some(Refresh::All)
    } else if !super::cavitation::same_rules(&st.tangent_gain, &ws.wd_gain) {
        Some(Refresh::FirstOrder)
    } else {
        None
    };
    let mut last_refresh = None;
    // With a fresh tangent per step (the seeds' scheme) an update larger than 1e4
    // tolerances calls for the tangent of the current iterate (full Newton far from the
    // solution). (Pub I four-bar, tangents / iterations per step, max iterations: 1.48 /
    // 1.652 / 4 at 1e3, where a pressure oscillation's 1e3–1e4 Pa per step re-formed it in
    // half the steps; 1.14 / 1.654 / 4 at 1e4; 1.02 / 1.69 / 6 at 1e5.)
    // A kept tangent is judged by contraction: a large first update then comes from the
    // predictor missing a fast pressure oscillation or a spool's command, not from a stale
    // tangent, and re-forming it would double the step's cost for nothing — except a first
    // update large in the joint coordinates of a closed loop (`KEPT_JOINT_MISS`).
    let far = if reuse { f64::INFINITY } else { 1e4 };
    let mut it = 0;
    // Iterations of a first solve that ended near vapour pressure (see below).
    let mut spent = 0;
    let mut resolved = false;
    // Whether the multiplier coupling was formed in this step (the loop has turned, or the
    // tangent was formed): the projection matrix of a kept tangent follows it.
    let mut coupled = false;
    // Iterations since the slip limiter last shortened an update: its updates do not
    // shrink as Newton's converge, so a stall is judged by two updates after it. (Halving
    // after them, four balls rolling together in a bowl took 2.71 iterations per step and
    // 17 at worst, tests/contact_terrain.rs; 2.57 and 13 without.)
    let mut since_limited = u32::MAX;
    loop {
        it += 1;
        if it > tol.max_iterations {
            break;
        }
        iterations = spent + it;
        if !residual(model, ws, h, alpha, true) {
            return Err(StepFailure::NonFiniteResidual { time: st.time + h });
        }
        // The loop multipliers are corrected with the unknowns (`multipliers`).
        if let Some(work) = ws.multipliers.as_mut() {
            work.record(&ws.eval);
        }
        if it == 2
            && reuse
            && refresh.is_none()
            && last_refresh.is_none()
            && stale_after_first_update(st, ws, nc, previous_z)
        {
            refresh = Some(Refresh::All);
        }
        if let Some(columns) = refresh.take() {
            tangent(model, Data::new(st, ws), h, penalty, columns)?;
            last_refresh = Some(columns);
            couple_multipliers(st, ws, h)?;
            coupled = true;
        } else if it == 1 && nc > 0 {
            // A kept tangent: the coupling follows the loop, formed again once Φ_z has
            // turned by COUPLING_DRIFT (G costs nc solves with the tangent, S nc² nz
            // products and an nc × nc factorisation: formed every step, they raised the
            // excavator's median step by a fifth).
            let drift = ws
                .multipliers
                .as_ref()
                .map_or(0.0, |w| w.drift(&st.coupling_phi_z));
            if drift > COUPLING_DRIFT {
                couple_multipliers(st, ws, h)?;
                coupled = true;
            } else if let Some(work) = ws.multipliers.as_mut() {
                work.schur_for(&st.coupling, &st.coupling_phi_z)?;
            }
        }
        newton_direction(st, ws, n);
        if let Some(work) = ws.multipliers.as_mut() {
            work.correct(
                &mut ws.dx[..n],
                &mut ws.lambda,
                penalty.left_out(),
                &st.coupling,
            );
        }
        // Sliding points the update carries through stick are put at stick
        // (`stick_projection`); what is left, the slip limiter limits (`slip_limiter`).
        let held = hold_at_stick(st, ws, &m.mechanism, n, h);
        let share = super::slip_limiter::step_share(&m.mechanism, &ws.eval, &ws.dx[..nz], h);
        if held > 0 {
            since_limited = 0;
        }
        if share < 1.0 {
            since_limited = 0;
            for v in &mut ws.dx[..n] {
                *v *= share;
            }
            if let Some(work) = ws.multipliers.as_mut() {
                work.damp(&mut ws.lambda, penalty.left_out(), share);
            }
        }
        since_limited = since_limited.saturating_add(1);
        let halve = it >= 3 && whole >= STALLED * whole_2 && since_limited > 3;
        if halve {
            // Two updates that did not shrink: Newton is circling a switch that is smooth
            // but steep at its scale (a shuttle opening over 0.1 bar, a regulator's
            // corner), and full steps jump across it and back. Half steps break the cycle.
            for v in &mut ws.dx[..n] {
                *v *= STALL_STEP;
            }
            if let Some(work) = ws.multipliers.as_mut() {
                work.damp(&mut ws.lambda, penalty.left_out(), STALL_STEP);
            }
        }
        let tol = &ws.tol;
        let size = super::apply_update(
            &mut ws.x[..n],
            &ws.dx[..n],
            |i, x| super::tolerance(tol[i], tol_scale, x),
            st.time + h,
        )?;
        // Far below the model's own step (h ≤ h₀/100) the scaled tolerances approach what
        // rounding lets the iteration resolve: an update that has stopped shrinking within
        // 1e3 of them has reached that floor.
        let stalled = tol_scale <= 1e-4 && it >= 3 && size <= 1e3 && size > 0.5 * previous;
        // (A limited update converges when the whole one would have: within the
        // tolerances a slip barely past the stiction speed may still turn a lot.)
        if held == 0 && (size <= share || stalled && share == 1.0) {
            // A trapezoidal pressure that ended near vapour pressure overshot it, or may
            // have: solve the step again with backward Euler for it.
            if !resolved && super::cavitation::overshoots(model, Data::new(st, ws), h, nz) {
                resolved = true;
                euler = true;
                spent = it;
                it = 0;
                refresh = Some(Refresh::FirstOrder);
                previous = f64::INFINITY;
                previous_z = f64::INFINITY;
                (whole, whole_2) = (f64::INFINITY, f64::INFINITY);
                continue;
            }
            converged = true;
            break;
        }
        // Keep the tangent only while the iteration contracts well and is already close
        // (within the step's `ITERATION_BUDGET`); far from the solution Newton needs the
        // tangent of the current iterate. (Keeping a
        // tangent formed in this step through slow iterations cut the excavator's worst step
        // by a fifth but raised the spatial RSSR linkage's energy drift from 1.3e-3 to
        // 1.0e-2 J and its gap to the double-step solution from 8e-5 to 2.3e-4 rad,
        // tests/formulations.rs; not kept.) With a kept tangent, slow contraction is first
        // answered by re-forming only the first-order columns: what changes abruptly within
        // a step is the hydraulics (a relief or check valve opening, a spool crossing its
        // overlap), whose columns cost partial evaluations; if the next iteration still
        // contracts slowly, every column is re-formed. Slow contraction of the joint
        // coordinates themselves (loop closure, a mechanical transient) goes straight to a
        // full refresh unless that refresh is expensive (`first_order_first`).
        // The joint-coordinate part of the update (in tolerances): when it converges or
        // contracts well, the slow part is the first-order states.
        // (Joint coordinates only: a modal coordinate's equation is linear but for small
        // inertial couplings, so a kept tangent stays good however far the predictor
        // missed the mode — a light coordinate that follows its load's every change.
        // Counting them, the PATU lift boom's first mode formed the tangent again in a
        // third of the steps: 8,758 of 27,000 against the rigid crane's 215.)
        let z_size = (0..l.nq).fold(0.0f64, |a, i| {
            a.max(ws.dx[i].abs() / super::tolerance(ws.tol[i], tol_scale, ws.x[i]))
        });
        if size > 0.1 * previous
            || size > far
            || reuse && it + iterations_to_go(size, previous) >= ITERATION_BUDGET
        {
            // (Only where a full refresh costs full evaluations: not with assembled
            // joint-coordinate columns.)
            let cheap = reuse
                && l.nw > 0
                && full_evaluations > 0
                && last_refresh != Some(Refresh::FirstOrder)
                && (z_size <= 1.0 || z_size <= 0.1 * previous_z || first_order_first);
            refresh = Some(if cheap {
                Refresh::FirstOrder
            } else {
                Refresh::All
            });
        }
        previous = size;
        previous_z = z_size;
        whole_2 = whole;
        whole = if halve { size / STALL_STEP } else { size };
    }
    if !converged {
        return Err(StepFailure::NoConvergence {
            iterations: tol.max_iterations,
            time: st.time + h,
            h,
        });
    }

    // A kept tangent's projection matrix is formed again with the coupling (`projection`:
    // the loop has turned by COUPLING_DRIFT, or the tangent formation overwrote it), before
    // the rest of the state is written.
    if coupled {
        super::projection::form(&m.mechanism, st, ws, nz, 0.25 * h * h * alpha)?;
    }

    // Accept: positions, states and their rates from the trapezoidal formulas.
    super::predictor::push_history(st);
    derived(ws, l, h);
    st.z.copy_from_slice(&ws.x[..nz]);
    st.w.copy_from_slice(&ws.x[nz..]);
    st.zd.copy_from_slice(&ws.zd);
    st.zdd.copy_from_slice(&ws.zdd);
    st.wd.copy_from_slice(&ws.wd);
    for d in &ws.drives {
        let c = d.coordinate;
        (st.z[c], st.zd[c], st.zdd[c]) = (d.target[0], d.target[1], d.target[2]);
    }
    if euler {
        ws.euler_steps += 1;
        ws.resolved_steps += u64::from(resolved);
    }
    if nc > 0 {
        // The velocity projection uses Φ_z of the last Newton evaluation (positions within
        // the tolerance of the accepted ones); the acceleration projection evaluates at the
        // accepted positions and projected velocities, which also gives the final
        // multiplier update and leaves `ws.eval` at the final state for work and outputs.
        project(model, Data::new(st, ws), h, alpha);
        for r in 0..nc {
            ws.lambda[r] += alpha * ws.eval.phi[r];
        }
        st.lambda.copy_from_slice(&ws.lambda);
    } else {
        ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    }
    super::drives::finish(nz, st, ws);
    st.iterations = iterations;
    st.steps += 1;
    Ok(())
}

/// Mass-damping-stiffness-orthogonal projections of velocities and accelerations onto
/// Φ̇ = 0 and Φ̈ = 0 (seed 001 eqs 2.21–2.22). The leading matrix
/// `P = W + h²/4 αΦ_zᵀΦ_z` is the zz block of the tangent, so `W ż* = P ż* − h²/4 αΦ_zᵀΦ_z ż*`
/// and each projection is a correction `P⁻¹ h²/4 αΦ_zᵀ(…)`.
fn project(model: Model<'_>, data: Data<'_>, h: f64, alpha: f64) {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let (nz, nc) = (l.nz, l.nc);
    let s = 0.25 * h * h * alpha;
    // Velocities: Φ_z ż → 0 (Φ_z of the last Newton evaluation).
    correct(ws, st, nz, nc, s, |e, st, r| {
        (0..nz).map(|j| e.phi_z[r * nz + j] * st.zd[j]).sum()
    });
    for i in 0..nz {
        st.zd[i] -= ws.dz[i];
    }
    // Accelerations: Φ_z z̈ + Φ̇_z ż → 0, the velocity term taken at the projected ż.
    ws.eval.run(m, l, p, &st.z, &st.zd, &st.zdd, &st.w, &st.wd);
    correct(ws, st, nz, nc, s, |e, st, r| {
        e.phi_bias[r]
            + (0..nz)
                .map(|j| e.phi_z[r * nz + j] * st.zdd[j])
                .sum::<f64>()
    });
    for i in 0..nz {
        st.zdd[i] -= ws.dz[i];
    }
}

/// `ws.dz = P⁻¹ s Φ_zᵀ v` with `v_r = violation(eval, state, r)`, P the projection matrix
/// factored in the state.
fn correct(
    ws: &mut Workspace,
    st: &State,
    nz: usize,
    nc: usize,
    s: f64,
    violation: impl Fn(&super::evaluate::Evaluation, &State, usize) -> f64,
) {
    for r in 0..nc {
        ws.viol[r] = violation(&ws.eval, st, r);
    }
    for i in 0..nz {
        ws.dz[i] = s
            * (0..nc)
                .map(|r| ws.eval.phi_z[r * nz + i] * ws.viol[r])
                .sum::<f64>();
    }
    // The projection matrix's row of a driven coordinate is κ on the diagonal: a zero
    // right-hand side leaves the coordinate where the drive puts it.
    for d in &ws.drives {
        ws.dz[d.coordinate] = 0.0;
    }
    match (
        ws.plan.sparse.as_ref().and_then(|s| s.projection.as_ref()),
        st.tangent_sparse,
    ) {
        (Some(pr), true) => pr.solve(
            &st.projection,
            &st.projection_scale,
            &mut ws.dz,
            &mut ws.lu_work[..nz],
        ),
        _ => lu_solve(
            &st.projection,
            nz,
            &st.projection_pivots,
            &st.projection_scale,
            &mut ws.dz,
        ),
    }
}
