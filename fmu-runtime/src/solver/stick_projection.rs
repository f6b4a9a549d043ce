//! Sliding contact points that a Newton update carries through stick are put at stick, all
//! together, and the rest of the update is taken whole.
//!
//! The slip limiter (`slip_limiter`) answers such a point by shortening the whole update
//! to the share that stops it nearest to stick. With a few contacts that costs an
//! iteration or two; in a pile of balls landing on each other a different point reverses
//! in every iteration, each cuts the update of all to 1–10 %, and the step fails after
//! 25 iterations (100 balls, docs/contact.md). Here the update is instead corrected,
//! with the factored tangent `K`, to the nearest one (in `K`'s metric) that brings those
//! points' slip `v` to zero:
//!
//! `Δx = Δx_N − K⁻¹Cᵀ μ`, `(C K⁻¹ Cᵀ) μ = C Δx_N + v`,
//!
//! where the rows of `C` are the points' slip changes along and across their slip per
//! unknown (`(2/h) J`, through the trapezoidal rate) — a Newton step on the problem with
//! those points stuck. A point the corrected update now carries through stick joins the
//! set (a few rounds, at most `MAX_POINTS` points and never more rows than joint
//! coordinates); what is left to limit (a slip turning
//! too far, points beyond the cap) the slip limiter limits on the corrected update. At
//! stick the law's steep slope is the tangent's, and the next iteration decides whether
//! the point sticks or slides the other way.
//!
//! Only without loop multipliers: with them the correction would have to be coupled to
//! the loop's (`multipliers`), and a closed-loop machine's sliding contacts (an
//! excavator's bucket on the ground) are few points, which the limiter serves.

use super::evaluate::Evaluation;
use super::linalg::{lu_factor, lu_solve};
use super::slip_limiter::{sliding, slip_change, slip_columns};
use crate::contact::ContactPoint;
use crate::mechanics::spatial::Vec3;
use crate::model::Mechanism;

/// Points put at stick in one update at most (ours). Each costs two solves with the
/// factored tangent, and the rows never exceed the joint coordinates (no more are
/// independent). A 64-point cap left the 100-ball pile's landing limited to 3–10 % steps
/// for 12 iterations in a row, where all of its 40–100 points reversed at once.
pub const MAX_POINTS: usize = 256;
/// Rounds of growing the set (ours).
const ROUNDS: usize = 3;

/// Buffers of the projection, sized once per instance.
#[derive(Clone, Debug)]
pub struct StickProjection {
    nz: usize,
    n: usize,
    /// Rows of `C` at most.
    most: usize,
    /// Rows of `C` (joint coordinates only), the columns `K⁻¹Cᵀ` (`n` each), the slip each
    /// row brings to zero.
    rows: Vec<f64>,
    columns: Vec<f64>,
    slip: Vec<f64>,
    schur: Vec<f64>,
    pivots: Vec<usize>,
    scale: Vec<f64>,
    mu: Vec<f64>,
    /// The uncorrected Newton update.
    newton: Vec<f64>,
    /// Indices of the held points (into the evaluation's contact points).
    held: Vec<usize>,
    /// The joint coordinates a row of `C` moves (a point's two bodies' paths: few).
    support: Vec<usize>,
}

impl StickProjection {
    pub fn new(nz: usize, n: usize) -> Self {
        let most = (2 * MAX_POINTS).min(nz & !1);
        StickProjection {
            nz,
            n,
            most,
            rows: vec![0.0; most * nz],
            columns: vec![0.0; most * n],
            slip: vec![0.0; most],
            schur: vec![0.0; most * most],
            pivots: vec![0; most],
            scale: vec![0.0; 2 * most],
            mu: vec![0.0; most],
            newton: vec![0.0; n],
            held: Vec::with_capacity(most / 2),
            support: Vec::with_capacity(nz),
        }
    }

    /// Corrects the update `dx` (all `n` unknowns) so that every sliding point it carries
    /// through stick ends at stick; `solve` applies `K⁻¹` in place. Returns how many points
    /// were held (0: `dx` unchanged).
    pub fn project(
        &mut self,
        mech: &Mechanism,
        eval: &Evaluation,
        dx: &mut [f64],
        h: f64,
        mut solve: impl FnMut(&mut [f64]),
    ) -> usize {
        let (nz, n) = (self.nz, self.n);
        self.held.clear();
        self.newton.copy_from_slice(&dx[..n]);
        let mut count = 0;
        for _ in 0..ROUNDS {
            let before = count;
            for (i, c) in eval.contact.active_points() {
                if count + 2 > self.most || !sliding(c) || self.held.contains(&i) {
                    continue;
                }
                let along = c.direction;
                let across = c.normal.cross(&along);
                let du = slip_change(mech, eval, c, &along, h, |k| dx[k]);
                let dw = slip_change(mech, eval, c, &across, h, |k| dx[k]);
                if !through_stick(c.speed, du, dw, c.stiction_velocity) {
                    continue;
                }
                self.held.push(i);
                for (d, v) in [(along, c.speed), (across, 0.0)] {
                    let row = &mut self.rows[count * nz..(count + 1) * nz];
                    row.fill(0.0);
                    slip_row(mech, eval, c, &d, h, row);
                    self.slip[count] = v;
                    count += 1;
                }
            }
            if count == before {
                break;
            }
            for r in before..count {
                let column = &mut self.columns[r * n..(r + 1) * n];
                column.fill(0.0);
                column[..nz].copy_from_slice(&self.rows[r * nz..(r + 1) * nz]);
                solve(column);
            }
            let formed = self.factor(count);
            if formed.is_err() {
                dx[..n].copy_from_slice(&self.newton);
                self.held.clear();
                return 0;
            }
            for r in 0..count {
                let row = &self.rows[r * nz..(r + 1) * nz];
                let change: f64 = row.iter().zip(&self.newton).map(|(a, b)| a * b).sum();
                self.mu[r] = change + self.slip[r];
            }
            lu_solve(
                &self.schur[..count * count],
                count,
                &self.pivots[..count],
                &self.scale[..2 * count],
                &mut self.mu[..count],
            );
            dx[..n].copy_from_slice(&self.newton);
            for r in 0..count {
                let mu = self.mu[r];
                for (d, w) in dx[..n].iter_mut().zip(&self.columns[r * n..(r + 1) * n]) {
                    *d -= w * mu;
                }
            }
        }
        self.held.len()
    }

    /// Forms and factors `S = C K⁻¹Cᵀ` of the first `count` rows. A row of `C` moves the
    /// few joint coordinates of its point's bodies, so each entry costs their number, not
    /// `nz` (with 100 held points the dense products were 8 % of the 100-ball pile's
    /// time). Dependent rows (a box's four corners held together) make S singular: a
    /// regularization of 1e-9 of its largest diagonal entry keeps it regular, as the
    /// loops' Schur complement (`multipliers`).
    fn factor(&mut self, count: usize) -> Result<(), String> {
        let (nz, n) = (self.nz, self.n);
        let s = &mut self.schur[..count * count];
        for q in 0..count {
            let row = &self.rows[q * nz..(q + 1) * nz];
            self.support.clear();
            self.support.extend((0..nz).filter(|&k| row[k] != 0.0));
            for r in 0..count {
                let column = &self.columns[r * n..r * n + nz];
                s[q * count + r] = self.support.iter().map(|&k| row[k] * column[k]).sum();
            }
        }
        let largest = (0..count).fold(0.0f64, |a, q| a.max(s[q * count + q].abs()));
        for q in 0..count {
            s[q * count + q] += 1e-9 * largest;
        }
        lu_factor(
            s,
            count,
            &mut self.pivots[..count],
            &mut self.scale[..2 * count],
        )
    }
}

/// Whether the slip `(s, 0)` → `(s + du, dw)` (`s > eps`) ends outside the stiction disc
/// `|v| < eps` after passing through it or reversing.
fn through_stick(s: f64, du: f64, dw: f64, eps: f64) -> bool {
    let (u, w) = (s + du, dw);
    if u * u + w * w < eps * eps {
        return false;
    }
    if u <= 0.0 {
        return true;
    }
    let d2 = du * du + dw * dw;
    if d2 == 0.0 {
        return false;
    }
    let nearest = -s * du / d2;
    if nearest <= 0.0 || nearest >= 1.0 {
        return false;
    }
    let (u, w) = (s + nearest * du, nearest * dw);
    u * u + w * w < eps * eps
}

/// Adds the point's slip change along `d` per joint coordinate to `row`.
fn slip_row(
    mech: &Mechanism,
    eval: &Evaluation,
    c: &ContactPoint,
    d: &Vec3,
    h: f64,
    row: &mut [f64],
) {
    slip_columns(mech, eval, c, d, |k, a| row[k] += 2.0 / h * a);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_is_through_stick_when_it_reverses_or_crosses_the_disc_and_ends_outside() {
        let eps = 1e-4;
        assert!(through_stick(1e-2, -3e-2, 0.0, eps));
        // Ends inside the disc: the law's slope decides there.
        assert!(!through_stick(1e-2, -1e-2 + 1e-5, 0.0, eps));
        // Speeds up, or turns without coming near stick.
        assert!(!through_stick(1e-2, 5e-2, 0.0, eps));
        assert!(!through_stick(1e-2, 0.0, 1e-1, eps));
        // Stops short of the disc.
        assert!(!through_stick(1e-2, -0.9e-2, 0.0, eps));
        // Reverses far beside the disc: still a reversal.
        assert!(through_stick(1e-2, -2e-2, 1e-1, eps));
    }
}
