//! How far a Newton update may go where regularized friction slides: the transition-aware
//! step length of Castro et al. (TAMSI, IEEE RA-L 2020), on our unknowns.
//!
//! Past the stiction speed the friction force saturates, its slope along the slip falls to
//! zero, and a full Newton step taken on that slope can carry a slowly sliding point
//! straight through stick to sliding the other way, and back: the iteration circles. The
//! tangent's secant `f/s` along the slip (our earlier answer) never overshoots but
//! converges only linearly, at `f/s / (m 2/h + f/s)` per iteration — 0.86 for a ball
//! rolling into another in a bowl at 1 ms, where 25 iterations did not converge. With the
//! law's own slope the iteration converges quadratically once the slip directions have
//! settled; this module keeps it from overshooting on the way: from each sliding point's
//! slip `v` and its linearized change `Δv = J (2/h) Δz` (the update's joint part through
//! the trapezoidal rate) it takes the largest share `α ≤ 1` of the update such that
//! - a slip whose update passes through the stiction disc `|v| < v_ε` stops at the point of
//!   the line nearest to stick (there the law's steep slope decides stick or slip), and
//! - a slip that stays outside turns by at most 60° (`TAN_MAX_TURN`).
//!
//! Points in stiction are free (the law is smooth there and its slope is the tangent's),
//! and so are bristle points (LuGre's force is smooth in its states).

use super::evaluate::Evaluation;
use crate::contact::ContactPoint;
use crate::mechanics::spatial::{Vec3, join};
use crate::model::Mechanism;

/// Tangent of the largest turn of a sliding point's slip direction in one update, 60°
/// (our choice; √3, so that no trigonometric function is needed).
pub const TAN_MAX_TURN: f64 = 1.732_050_807_568_877_2;

/// The share of the update `dz` (joint coordinates) that no sliding contact point of the
/// last evaluation overshoots, in (0, 1]; 1 without contact points.
pub fn step_share(mech: &Mechanism, eval: &Evaluation, dz: &[f64], h: f64) -> f64 {
    let mut alpha = 1.0f64;
    for (_, c) in eval.contact.active_points().filter(|(_, c)| sliding(c)) {
        let along = c.direction;
        let across = c.normal.cross(&along);
        let du = slip_change(mech, eval, c, &along, h, |k| dz[k]);
        let dw = slip_change(mech, eval, c, &across, h, |k| dz[k]);
        alpha = alpha.min(share(c.speed, du, dw, c.stiction_velocity));
    }
    alpha
}

/// A point of regularized friction sliding faster than its stiction speed: what the
/// limiter and `stick_projection` act on.
pub(super) fn sliding(c: &ContactPoint) -> bool {
    c.active() && c.bristle.is_none() && c.speed > c.stiction_velocity
}

/// Visits the joint columns that move the point's slip along `d`, with the unit wrench of
/// `d` at the point: `+` for the point's body, `−` for the other.
pub(super) fn slip_columns(
    mech: &Mechanism,
    eval: &Evaluation,
    c: &ContactPoint,
    d: &Vec3,
    mut visit: impl FnMut(usize, f64),
) {
    let wrench = join(*d, c.point.cross(d));
    let kin = &eval.kin;
    kin.path(mech, Some(c.body), |k, col, _| visit(k, col.dot(&wrench)));
    if let Some(o) = c.other {
        kin.path(mech, Some(o), |k, col, _| visit(k, -col.dot(&wrench)));
    }
}

/// The change of the point's slip along `d` that the joint update `dz` makes, through the
/// trapezoidal rate `(2/h) Δz`.
pub(super) fn slip_change(
    mech: &Mechanism,
    eval: &Evaluation,
    c: &ContactPoint,
    d: &Vec3,
    h: f64,
    dz: impl Fn(usize) -> f64,
) -> f64 {
    let mut dv = 0.0;
    slip_columns(mech, eval, c, d, |k, a| dv += a * dz(k));
    2.0 / h * dv
}

/// The share of a slip change `(du, dw)` (along and across the slip `s > eps`) allowed by
/// the rules above.
fn share(s: f64, du: f64, dw: f64, eps: f64) -> f64 {
    let d2 = du * du + dw * dw;
    if d2 == 0.0 {
        return 1.0;
    }
    // Nearest point of the line s + α(du, dw) to the origin.
    let nearest = -s * du / d2;
    if nearest > 0.0 && nearest < 1.0 {
        let (u, w) = (s + nearest * du, nearest * dw);
        if u * u + w * w < eps * eps {
            return nearest;
        }
    }
    // Stays outside the disc (or ends inside it, where the law's slope takes over).
    let (u, w) = (s + du, dw);
    if u * u + w * w < eps * eps {
        return 1.0;
    }
    if u > 0.0 && w.abs() <= TAN_MAX_TURN * u {
        return 1.0;
    }
    // α |dw| = tan θ (s + α du): the turn is θ at α (monotone along the line up to it).
    let denominator = dw.abs() - TAN_MAX_TURN * du;
    if denominator > 0.0 {
        (s * TAN_MAX_TURN / denominator).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reversing_slip_stops_nearest_to_stick_and_a_turning_one_at_the_limit() {
        let eps = 1e-4;
        // Straight back through zero: stops at zero slip.
        assert!((share(1e-2, -3e-2, 0.0, eps) - 1.0 / 3.0).abs() < 1e-15);
        // Ends inside the disc: free.
        assert_eq!(share(1e-2, -1e-2 + 1e-5, 0.0, eps), 1.0);
        // Speeding up along the slip: free.
        assert_eq!(share(1e-2, 5e-2, 0.0, eps), 1.0);
        // A quarter turn asked for: limited to MAX_TURN exactly.
        let a = share(1e-2, 0.0, 1e-1, eps);
        assert!((a * 1e-1 / 1e-2 - TAN_MAX_TURN).abs() < 1e-12, "{a}");
        // Passing beside the disc, far from it: limited by the turn only.
        let a = share(1e-2, -2e-2, 1e-2, eps);
        let (u, w) = (1e-2 - a * 2e-2, a * 1e-2);
        assert!((w / u - TAN_MAX_TURN).abs() < 1e-12, "{a}");
    }
}
