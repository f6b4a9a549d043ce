//! The tangent `J = ∂F/∂x` of the step residual by forward differences, formed and
//! factored on the plan's solver path (see [`super::newton`]).

use super::linalg::lu_factor;
use super::plan::SolverPath;
use super::residual::*;
use super::{Data, Layout, Model, Workspace};
use crate::solver::State;

/// Which columns a tangent refresh re-forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refresh {
    /// Every column (full evaluations for the joint coordinates).
    All,
    /// Only the first-order columns (pressures, spools, friction states; partial
    /// evaluations), the joint-coordinate columns taken from the last full formation.
    FirstOrder,
}

/// Forward-difference tangent `J = ∂F/∂x` (seed 001 eqs 2.61–2.62, with the increment
/// scaled to each unknown's kind), factored into the state together with its zz block,
/// the projection matrix `W + h²/4 αΦ_zᵀΦ_z`, on the plan's solver path. A sparse
/// factorisation that meets a small diagonal pivot is redone dense (partial pivoting).
/// The unfactored tangent is kept in `st.tangent_raw` for [`Refresh::FirstOrder`], which
/// leaves the projection matrix (joint-coordinate columns only) as it is.
#[allow(clippy::too_many_arguments)]
pub(super) fn tangent(
    model: Model<'_>,
    data: Data<'_>,
    h: f64,
    penalty: Penalty,
    columns: Refresh,
) -> Result<(), String> {
    let l = model.layout;
    let (st, ws) = data.parts();
    let n = l.nz + l.nw;
    // A first-order refresh updates the factors the state holds, on their path.
    let first_order = columns == Refresh::FirstOrder && st.tangent_step > 0.0;
    // The projection matrix is the tangent's joint block, except with a kept tangent on a
    // loop, whose step forms it from the mass matrix (`projection`) after converging.
    let projection = !first_order && ws.projection.is_none();
    st.tangent_step = 0.0;
    st.tangent_gain.copy_from_slice(&ws.wd_gain);
    st.tangent_compliance
        .copy_from_slice(ws.eval.volumes.compliance());
    let path = match (first_order, st.tangent_sparse) {
        (true, true) => SolverPath::Sparse,
        (true, false) => SolverPath::Dense,
        (false, _) => ws.plan.path,
    };
    if path == SolverPath::Sparse {
        if !first_order {
            // The pattern takes the contact pairs near at this linearization point.
            std::sync::Arc::get_mut(&mut ws.plan)
                .ok_or("the tangent plan is shared")?
                .follow_near(&ws.eval.contact.pairs, &mut st.tangent_near)?;
        }
        let len = ws.plan.sparse.as_ref().map_or(0, |s| s.tangent.nonzeros());
        if first_order {
            st.tangent[..len].copy_from_slice(&st.tangent_raw[..len]);
        }
        if !first_order {
            let len_p = ws
                .plan
                .sparse
                .as_ref()
                .map_or(0, |s| s.projection.as_ref().map_or(0, |p| p.nonzeros()));
            use_prefix(st, len, len_p);
        }
        fill_tangent(
            model,
            Data::new(st, ws),
            h,
            penalty,
            SolverPath::Sparse,
            first_order,
        )?;
        st.tangent_raw[..len].copy_from_slice(&st.tangent[..len]);
        if factor_sparse(l, st, ws, projection).is_ok() {
            st.tangent_sparse = true;
            st.tangent_step = h;
            return Ok(());
        }
    }
    let first_order = first_order && !st.tangent_sparse;
    if first_order {
        st.tangent[..n * n].copy_from_slice(&st.tangent_raw[..n * n]);
    } else {
        use_prefix(st, n * n, l.nz * l.nz);
    }
    fill_tangent(
        model,
        Data::new(st, ws),
        h,
        penalty,
        SolverPath::Dense,
        first_order,
    )?;
    st.tangent_raw[..n * n].copy_from_slice(&st.tangent[..n * n]);
    if projection {
        for i in 0..l.nz {
            for j in 0..l.nz {
                st.projection[i * l.nz + j] = st.tangent[i * n + j];
            }
        }
    }
    st.tangent_sparse = false;
    lu_factor(
        &mut st.tangent,
        n,
        &mut st.tangent_pivots,
        &mut st.tangent_scale,
    )?;
    if l.nc > 0 && projection {
        lu_factor(
            &mut st.projection,
            l.nz,
            &mut st.projection_pivots,
            &mut st.projection_scale,
        )?;
    }
    st.tangent_step = h;
    Ok(())
}

/// Sets the used lengths of the tangent buffers and the projection, zeroing what was used
/// beyond them (the state's zero-tail invariant, see `State::tangent_used`).
pub(super) fn use_prefix(st: &mut State, tangent: usize, projection: usize) {
    if st.tangent_used > tangent {
        st.tangent[tangent..st.tangent_used].fill(0.0);
        st.tangent_raw[tangent..st.tangent_used].fill(0.0);
    }
    if st.projection_used > projection {
        st.projection[projection..st.projection_used].fill(0.0);
    }
    st.tangent_used = tangent;
    st.projection_used = projection;
}

/// Factors the sparse tangent and projection values that [`fill_tangent`] stored.
pub(super) fn factor_sparse(
    l: &Layout,
    st: &mut State,
    ws: &mut Workspace,
    projection: bool,
) -> Result<(), String> {
    let plan = ws.plan.sparse.as_ref().ok_or("no sparse plan")?;
    plan.tangent
        .factor(&mut st.tangent, &mut st.tangent_scale, &mut ws.lu_at)?;
    if let Some(pr) = plan.projection.as_ref().filter(|_| projection) {
        pr.factor(
            &mut st.projection,
            &mut st.projection_scale,
            &mut ws.lu_at[..l.nz],
        )?;
    }
    Ok(())
}

/// One tangent entry into the buffers of `path` (dense: row-major n × n; sparse: the
/// plan's value positions `(row, tangent, projection)`).
#[inline]
pub(super) fn store(
    st: &mut State,
    n: usize,
    k: usize,
    entry: (usize, usize, usize),
    sparse: bool,
    v: f64,
) {
    let (i, t, pr) = entry;
    if sparse {
        st.tangent[t] = v;
        if pr != usize::MAX {
            st.projection[pr] = v;
        }
    } else {
        st.tangent[i * n + k] = v;
    }
}

/// Column `k` of the tangent into the state's buffers: `value(i)` for every row `i` of the
/// column's pattern.
pub(super) fn store_column(
    st: &mut State,
    plan: &super::plan::TangentPlan,
    n: usize,
    k: usize,
    sparse: bool,
    mut value: impl FnMut(usize) -> Result<f64, String>,
) -> Result<(), String> {
    // A driven coordinate's row is κ(z − q_ref): κ on the diagonal, nothing else.
    let gain = st.mass_scale;
    let mut value = |i: usize| match plan.driven.get(i) {
        Some(true) => Ok(if i == k { gain } else { 0.0 }),
        _ => value(i),
    };
    match (&plan.sparse, sparse) {
        (Some(s), true) => {
            for &e in &s.entries[k] {
                store(st, n, k, e, true, value(e.0)?);
            }
        }
        (None, true) => return Err("no sparse plan".into()),
        (_, false) => {
            for &i in &plan.pattern.columns[k] {
                store(st, n, k, (i, 0, 0), false, value(i)?);
            }
        }
    }
    Ok(())
}

/// The tangent's columns into the state's buffers for `path` (unfactored), about `ws.x`
/// where `ws.f` and `ws.eval` hold the residual. Columns whose rows are structurally
/// disjoint share one perturbed evaluation (the plan's groups); entries outside the
/// pattern are zero.
#[allow(clippy::too_many_arguments)]
pub(super) fn fill_tangent(
    model: Model<'_>,
    data: Data<'_>,
    h: f64,
    penalty: Penalty,
    path: SolverPath,
    first_order_only: bool,
) -> Result<(), String> {
    let (m, l, p) = model.parts();
    let (st, ws) = data.parts();
    let n = l.nz + l.nw;
    let sparse = path == SolverPath::Sparse;
    let plan = std::sync::Arc::clone(&ws.plan);
    if first_order_only {
        // The buffers hold the last full formation; its first-order columns are
        // overwritten below (same pattern).
    } else if sparse {
        let s = plan.sparse.as_ref().ok_or("no sparse plan")?;
        st.tangent[..s.tangent.nonzeros()].fill(0.0);
        if let Some(pr) = &s.projection {
            st.projection[..pr.nonzeros()].fill(0.0);
        }
    } else {
        st.tangent[..n * n].fill(0.0);
    }
    // First-order columns (pressures, spools, friction states) about the evaluation at x
    // that `ws.eval` holds (the residual was just evaluated there): they move no joint
    // coordinate, so kinematics, inverse dynamics and constraints are not re-run.
    ws.eval.capture_first_order_base(m, l, &mut ws.first_order);
    let s = 0.25 * h * h;
    for g in 0..plan.w_groups.len() {
        let group = &plan.w_groups[g];
        for &k in group {
            perturb(ws, k);
        }
        derived(ws, l, h);
        let w = &ws.x[l.nz..];
        ws.eval
            .run_first_order(m, l, p, &ws.zd, w, &ws.wd, &ws.first_order);
        for &k in group {
            let eps = unperturb(ws, k);
            store_column(st, &plan, n, k, sparse, |i| {
                if i < l.nz {
                    return Ok(s * (ws.eval.r_mech[i] - ws.first_order.r_mech[i]) / eps);
                }
                let v = s * ws.eval.r_first[i - l.nz];
                if !v.is_finite() {
                    return Err("non-finite residual while forming the tangent".into());
                }
                Ok((v - ws.f[i]) / eps)
            })?;
        }
    }
    if first_order_only {
        return Ok(());
    }
    if plan.assembled {
        // Joint-coordinate columns from the structure, about the unperturbed point.
        derived(ws, l, h);
        let Workspace {
            assembly: Some(work),
            eval,
            first_order,
            x,
            zd,
            wd,
            f,
            scale,
            ..
        } = ws
        else {
            return Err("no assembly buffers".into());
        };
        let increment = |k: usize| increment_of(x[k], scale[k]);
        super::assembled::joint_columns(
            m,
            l,
            &plan.ports,
            eval,
            first_order,
            work,
            super::assembled::AssemblyInput {
                p,
                z: &x[..l.nz],
                zd,
                w: &x[l.nz..],
                wd,
                f,
                alpha: penalty.in_tangent,
                h,
                increment: &increment,
            },
        )?;
        for k in 0..l.nz {
            let column = &work.columns[k * n..(k + 1) * n];
            store_column(st, &plan, n, k, sparse, |i| Ok(column[i]))?;
        }
        return Ok(());
    }
    // Joint-coordinate columns: full evaluations, differenced against the residual with
    // the tangent's penalty, `F − h²/4 (α − α_t)Φ_zᵀΦ` in the joint rows (`ws.dz`).
    ws.dz.fill(0.0);
    if penalty.left_out() != 0.0 {
        let c = s * penalty.left_out();
        for r in 0..l.nc {
            let row = &ws.eval.phi_z[r * l.nz..(r + 1) * l.nz];
            for (d, a) in ws.dz.iter_mut().zip(row) {
                *d += c * a * ws.eval.phi[r];
            }
        }
        for d in &ws.drives {
            ws.dz[d.coordinate] = 0.0;
        }
    }
    for g in 0..plan.z_groups.len() {
        let group = &plan.z_groups[g];
        for &k in group {
            perturb(ws, k);
        }
        let ok = residual(model, ws, h, penalty.in_tangent, false);
        for &k in group {
            ws.dx[k] = unperturb(ws, k);
        }
        if !ok {
            return Err("non-finite residual while forming the tangent".into());
        }
        for &k in group {
            let eps = ws.dx[k];
            store_column(st, &plan, n, k, sparse, |i| {
                let base = if i < l.nz {
                    ws.f[i] - ws.dz[i]
                } else {
                    ws.f[i]
                };
                Ok((ws.f_pert[i] - base) / eps)
            })?;
        }
    }
    Ok(())
}

/// Forward-difference increment of unknown `k` at `x0`.
#[inline]
pub(super) fn increment(ws: &Workspace, k: usize, x0: f64) -> f64 {
    increment_of(x0, ws.scale[k])
}

/// Forward-difference increment of an unknown of value `x0` and typical size `scale`.
#[inline]
pub(super) fn increment_of(x0: f64, scale: f64) -> f64 {
    1.5e-8 * x0.abs().max(scale)
}

/// Moves unknown `k` by its increment, keeping its value in `ws.dx[k]`.
#[inline]
pub(super) fn perturb(ws: &mut Workspace, k: usize) {
    let x0 = ws.x[k];
    ws.dx[k] = x0;
    ws.x[k] = x0 + increment(ws, k, x0);
}

/// Restores unknown `k` exactly and returns its increment.
#[inline]
pub(super) fn unperturb(ws: &mut Workspace, k: usize) -> f64 {
    let x0 = ws.dx[k];
    ws.x[k] = x0;
    increment(ws, k, x0)
}
