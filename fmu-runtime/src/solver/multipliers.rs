//! Newton on the multipliers: the step corrects λ together with the unknowns.
//!
//! The augmented Lagrangian of seed 001 (eq 2.20) updates the multipliers by `λ ← λ + αΦ`
//! once per Newton iteration, a fixed-point iteration that contracts by about
//! `M / (h²/4 α)` per iteration: with the seed's α = 1e11 the Pub I four-bar needs a third
//! iteration whenever its constraint forces change by more than α times the position
//! tolerance in a step (an oscillating load). Here the constraint rows enter Newton's
//! linearization instead: with `B = h²/4 Φ_zᵀ` (the multipliers' column of the residual),
//! `G = J⁻¹ B` and the Schur complement `S = Φ_z G`, the update
//!
//! ```text
//! dx₀ = −J⁻¹ F,   Δλ = S⁻¹ (Φ + Φ_z dx₀),   dx = dx₀ − G Δλ
//! ```
//!
//! solves `J dx + B Δλ = −F`, `Φ_z dx = −Φ`: λ converges with the unknowns, quadratically.
//! The penalty stays in the residual and the tangent (it keeps J regular and is what the
//! projections use); the converged solution is the same, Φ = 0 with the residual's
//! constraint forces. Redundant constraints (a planar loop modelled in space) are handled
//! by [`factor_schur`]'s regularization.

use super::evaluate::Evaluation;
use super::linalg::{lu_factor, lu_solve};

/// Buffers of the multiplier correction (nc constraint rows, nz joint coordinates, n
/// unknowns).
#[derive(Clone, Debug)]
pub struct MultiplierWork {
    /// Φ and Φ_z of the current iterate (the tangent's formation moves the evaluation).
    phi: Vec<f64>,
    phi_z: Vec<f64>,
    /// `S = Φ_z G`, factored, and the correction `Δλ`. (`G = J⁻¹ B`, column-major, n per
    /// constraint row, is part of the state: `State::coupling`.)
    s: Vec<f64>,
    pivots: Vec<usize>,
    scale: Vec<f64>,
    dl: Vec<f64>,
    /// The Φ_z and G that `s` was formed from, bit for bit (`schur_for` reuses it).
    s_phi_z: Vec<f64>,
    s_g: Vec<f64>,
}

impl MultiplierWork {
    pub fn new(nz: usize, n: usize, nc: usize) -> MultiplierWork {
        MultiplierWork {
            s_phi_z: vec![f64::NAN; nc * nz],
            s_g: vec![f64::NAN; nc * n],
            phi: vec![0.0; nc],
            phi_z: vec![0.0; nc * nz],
            s: vec![0.0; nc * nc],
            pivots: vec![0; nc],
            scale: vec![0.0; 2 * nc],
            dl: vec![0.0; nc],
        }
    }

    /// Records the constraints at the iterate the residual was just evaluated at.
    pub fn record(&mut self, eval: &Evaluation) {
        let (nc, len) = (self.phi.len(), self.phi_z.len());
        self.phi.copy_from_slice(&eval.phi[..nc]);
        self.phi_z.copy_from_slice(&eval.phi_z[..len]);
    }

    /// How far the recorded Φ_z has turned from `formed_with` (the Φ_z of a coupling):
    /// the largest change of an entry over the largest entry.
    pub fn drift(&self, formed_with: &[f64]) -> f64 {
        let (mut change, mut size) = (0.0f64, 0.0f64);
        for (a, b) in self.phi_z.iter().zip(formed_with) {
            change = change.max((a - b).abs());
            size = size.max(a.abs());
        }
        if size > 0.0 { change / size } else { 0.0 }
    }

    /// Forms `G` (into `g`) and the factored `S` for the recorded Φ_z, which it copies to
    /// `formed_with`; `solve` applies the factored tangent (`b ← J⁻¹ b`). A driven
    /// coordinate's row is a pin, not a force balance: its entry of B is zero.
    pub fn couple(
        &mut self,
        h: f64,
        driven: impl Iterator<Item = usize> + Clone,
        g: &mut [f64],
        formed_with: &mut [f64],
        mut solve: impl FnMut(&mut [f64]),
    ) -> Result<(), String> {
        let nc = self.phi.len();
        if nc == 0 {
            return Ok(());
        }
        let nz = self.phi_z.len() / nc;
        let n = g.len() / nc;
        let quarter = 0.25 * h * h;
        for r in 0..nc {
            let column = &mut g[r * n..(r + 1) * n];
            column.fill(0.0);
            for (c, v) in column[..nz].iter_mut().zip(&self.phi_z[r * nz..]) {
                *c = quarter * v;
            }
            for c in driven.clone() {
                column[c] = 0.0;
            }
            solve(column);
        }
        formed_with.copy_from_slice(&self.phi_z);
        self.schur_for(g, formed_with)
    }

    /// `S = Φ_c G` for a coupling `G` formed with `formed_with` (Φ_c): reused as long as
    /// both are bit for bit those it was formed from, so that it is a function of the state
    /// (a restored state gets the same S). Against the current Φ_z the update then meets
    /// `Φ_z dx = −Φ` up to the turn since the coupling (below `COUPLING_DRIFT`).
    pub fn schur_for(&mut self, g: &[f64], formed_with: &[f64]) -> Result<(), String> {
        let nc = self.phi.len();
        let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        if nc == 0 || (same(&self.s_phi_z, formed_with) && same(&self.s_g, g)) {
            return Ok(());
        }
        self.s_phi_z.copy_from_slice(formed_with);
        self.s_g.copy_from_slice(g);
        factor_schur(
            formed_with,
            g,
            g.len() / nc,
            &mut self.s,
            &mut self.pivots,
            &mut self.scale,
        )
        .inspect_err(|_| self.s_phi_z.fill(f64::NAN))
    }

    /// Turns the Newton direction `dx = −J⁻¹F` (λ held) into the coupled one and moves
    /// `lambda` by `Δλ`. `left_out` is the penalty the tangent leaves out (`α − α_t`,
    /// see `newton::Penalty`): the update brings Φ to zero, so the penalty force `αΦ`
    /// the residual carried passes to the multipliers, `(α − α_t)Φ` of it not modelled by
    /// the tangent.
    pub fn correct(&mut self, dx: &mut [f64], lambda: &mut [f64], left_out: f64, g: &[f64]) {
        let nc = self.phi.len();
        if nc == 0 {
            return;
        }
        let nz = self.phi_z.len() / nc;
        let n = g.len() / nc;
        for q in 0..nc {
            let row = &self.phi_z[q * nz..(q + 1) * nz];
            self.dl[q] = self.phi[q] + row.iter().zip(&dx[..nz]).map(|(a, b)| a * b).sum::<f64>();
        }
        lu_solve(&self.s, nc, &self.pivots, &self.scale, &mut self.dl);
        for (r, &dl) in self.dl.iter().enumerate() {
            lambda[r] += dl + left_out * self.phi[r];
            for (d, g) in dx[..n].iter_mut().zip(&g[r * n..(r + 1) * n]) {
                *d -= g * dl;
            }
        }
    }

    /// Scales the multipliers' last correction (by [`MultiplierWork::correct`]) by
    /// `factor`, with the update of the unknowns it belongs to.
    pub fn damp(&self, lambda: &mut [f64], left_out: f64, factor: f64) {
        for ((l, dl), phi) in lambda.iter_mut().zip(&self.dl).zip(&self.phi) {
            *l -= (1.0 - factor) * (dl + left_out * phi);
        }
    }
}

/// Forms and factors the Schur complement `S = Φ_z G` of the constraint rows, `G` given
/// column by column (`stride` entries per constraint row, the first `nz` the joint
/// coordinates'). Redundant constraint rows make S singular: a regularization of 1e-9 of
/// its largest diagonal entry keeps it regular and their multipliers' split bounded.
pub(super) fn factor_schur(
    phi_z: &[f64],
    g: &[f64],
    stride: usize,
    s: &mut [f64],
    pivots: &mut [usize],
    scale: &mut [f64],
) -> Result<(), String> {
    let nc = pivots.len();
    let nz = phi_z.len() / nc;
    for q in 0..nc {
        let row = &phi_z[q * nz..(q + 1) * nz];
        for r in 0..nc {
            let column = &g[r * stride..r * stride + nz];
            s[q * nc + r] = row.iter().zip(column).map(|(a, b)| a * b).sum();
        }
    }
    let largest = (0..nc).fold(0.0f64, |a, q| a.max(s[q * nc + q].abs()));
    for q in 0..nc {
        s[q * nc + q] += 1e-9 * largest;
    }
    lu_factor(s, nc, pivots, scale).map_err(|e| format!("constraint Schur complement: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point mass m on a line x₁ = x₂ (one constraint, Φ = x₁ − x₂) under a force f on
    /// x₁: one coupled Newton step from rest at the origin lands on the exact solution of
    /// the linear problem, multiplier included, whatever the penalty.
    #[test]
    fn one_coupled_step_solves_a_linear_constrained_problem() {
        let (m, f, h, alpha) = (2.0, 3.0, 0.1, 1e4);
        let q = 0.25 * h * h;
        // Residual rows scaled by h²/4: q(M z̈ − Q + Φ_zᵀ(αΦ + λ)) with z̈ = 4/h² z (from
        // rest), so J = M + qαΦ_zᵀΦ_z and F(0) = −q Q.
        let j = [m + q * alpha, -q * alpha, -q * alpha, m + q * alpha];
        let det = j[0] * j[3] - j[1] * j[2];
        let solve = |b: &mut [f64]| {
            let (b0, b1) = (b[0], b[1]);
            b[0] = (j[3] * b0 - j[1] * b1) / det;
            b[1] = (-j[2] * b0 + j[0] * b1) / det;
        };
        let mut w = MultiplierWork::new(2, 2, 1);
        w.phi[0] = 0.0;
        w.phi_z.copy_from_slice(&[1.0, -1.0]);
        let (mut g, mut formed_with) = ([0.0; 2], [0.0; 2]);
        w.couple(h, std::iter::empty(), &mut g, &mut formed_with, solve)
            .unwrap();
        assert_eq!(formed_with, [1.0, -1.0]);
        // dx₀ = −J⁻¹F(0) with F(0) = −q Q, Q = [f, 0].
        let mut dx = [q * f, 0.0];
        solve(&mut dx);
        let mut lambda = [0.0];
        w.correct(&mut dx, &mut lambda, 0.0, &g);
        // Both coordinates move together under f/(2m); the constraint carries f/2 (to the
        // 1e-9 regularization of S, which the next iteration would remove).
        let a = f / (2.0 * m);
        assert!((dx[0] - q * a).abs() < 1e-8 * q * a, "{dx:?}");
        assert!((dx[1] - dx[0]).abs() < 1e-8 * q * a);
        assert!((lambda[0] - f / 2.0).abs() < 1e-8 * f, "{lambda:?}");
    }
}
