//! The residual of one trapezoidal step, `F_z = h²/4 (M z̈ − Q + Φ_zᵀ(αΦ + λ))`,
//! `F_w = h²/4 r_w(w, ẇ)`, and the penalty α it uses (see [`super::newton`]).

use super::{Layout, Model, Workspace};
use crate::model::CompiledModel;

/// Penalty α for step `h`: the user's α is meant at the model's default step and is
/// rescaled by (h₀/h)² so the penalty-to-inertia ratio (h²/4)α/M stays the same when
/// the step changes (a fixed α loses the constraints at small steps).
pub fn penalty(m: &CompiledModel, p: &[f64], mass_scale: f64, h: f64) -> f64 {
    match m.solver.penalty {
        Some(a) => {
            let h0 = m.default_param(m.solver.step);
            p[a.index()] * (h0 / h).powi(2)
        }
        None => m.solver.penalty_ratio * mass_scale.max(1e-6) * 4.0 / (h * h),
    }
}

/// The penalty of a step: `alpha` in the residual, `in_tangent` in the tangent's
/// joint-coordinate block.
///
/// A tangent kept across steps on a closed loop carries the penalty only at the scale of
/// the inertias (`h²/4 α_t = m_ref`): its block `h²/4 αΦ_zᵀΦ_z`, formed where the loop
/// stood when the tangent was formed, turns with the loop, and at the full α (10³–10⁶ times
/// the inertias) that lag swamped the motion (the spatial RSSR linkage contracted by 0.9–1.1
/// per iteration, 5.7 iterations per step with a tangent formed the step before). The
/// multipliers are corrected with the unknowns (`multipliers`), which enforces
/// `Φ_z dx = −Φ`: the penalty left out of the tangent then changes only the multipliers'
/// share, `(α − α_t)Φ`, added back with the correction, and the update `dx` is Newton's.
#[derive(Clone, Copy, Debug)]
pub(super) struct Penalty {
    pub(super) alpha: f64,
    pub(super) in_tangent: f64,
}

impl Penalty {
    /// The same penalty in residual and tangent.
    pub(super) fn full(alpha: f64) -> Penalty {
        Penalty {
            alpha,
            in_tangent: alpha,
        }
    }

    /// What the tangent leaves out, `α − α_t`.
    pub(super) fn left_out(&self) -> f64 {
        self.alpha - self.in_tangent
    }
}

/// Unknown vector `x = [z; w]` → derived rates through the trapezoidal formulas.
pub(super) fn derived(ws: &mut Workspace, l: &Layout, h: f64) {
    let (c1, c2) = (2.0 / h, 4.0 / (h * h));
    let (z, w) = ws.x.split_at(l.nz);
    let rates = ws.zd.iter_mut().zip(ws.zdd.iter_mut());
    for (((zd, zdd), (zd_hat, zdd_hat)), x) in rates.zip(ws.zd_hat.iter().zip(&ws.zdd_hat)).zip(z) {
        *zd = c1 * x + zd_hat;
        *zdd = c2 * x + zdd_hat;
    }
    for (((wd, gain), hat), x) in ws.wd.iter_mut().zip(&ws.wd_gain).zip(&ws.wd_hat).zip(w) {
        *wd = gain * x + hat;
    }
}

/// Residual at `ws.x` with multipliers `ws.lambda` into `out`. Returns false if not finite.
pub(super) fn residual(
    model: Model<'_>,
    ws: &mut Workspace,
    h: f64,
    alpha: f64,
    into_f: bool,
) -> bool {
    let (m, l, p) = model.parts();
    derived(ws, l, h);
    let (z, w) = ws.x.split_at(l.nz);
    ws.eval.run(m, l, p, z, &ws.zd, &ws.zdd, w, &ws.wd);
    let s = 0.25 * h * h;
    let out = if into_f { &mut ws.f } else { &mut ws.f_pert };
    let e = &ws.eval;
    // h²/4 (M z̈ − Q + Φ_zᵀ(αΦ + λ)), Φ_z walked row by row (contiguous).
    out[..l.nz].copy_from_slice(&e.r_mech);
    for r in 0..l.nc {
        let c = alpha * e.phi[r] + ws.lambda[r];
        if c != 0.0 {
            let row = &e.phi_z[r * l.nz..(r + 1) * l.nz];
            for (o, a) in out[..l.nz].iter_mut().zip(row) {
                *o += a * c;
            }
        }
    }
    for o in &mut out[..l.nz] {
        *o *= s;
    }
    // A driven coordinate's row: κ(z − q_ref), κ the inertia scale (see `drives`).
    super::drives::pin_rows(&ws.drives, ws.drive_gain, &ws.x, out);
    for i in 0..l.nw {
        out[l.nz + i] = s * e.r_first[i];
    }
    out.iter().all(|v| v.is_finite())
}
