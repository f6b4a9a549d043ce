//! The z-y-x composition of three revolutes that makes a spherical joint (and a free
//! joint's rotation): yaw `a` about z, pitch `b` about the turned y, roll `c` about the
//! twice-turned x, `R = Rz(a)·Ry(b)·Rx(c)`. Its rates are singular where cos b = 0 (gimbal
//! lock: yaw and roll turn about one axis); [`recharted`] moves the composition onto a new
//! reference frame in which the same orientation has all three angles zero.
//!
//! ```
//! use fmu_runtime::mechanics::zyx;
//! let (q, qd, qdd) = ([0.3, 1.2, -0.4], [0.5, -0.2, 0.9], [0.1, 0.3, -0.2]);
//! let (turn, qd1, qdd1) = zyx::recharted(q, qd, qdd);
//! // The same motion of the last body, now seen from angles 0.
//! assert!((turn - zyx::rotation(q)).norm() < 1e-15);
//! let w = zyx::body_rate(q, qd) - zyx::body_rate([0.0; 3], qd1);
//! let a = zyx::body_acceleration(q, qd, qdd) - zyx::body_acceleration([0.0; 3], qd1, qdd1);
//! assert!(w.norm() < 1e-15 && a.norm() < 1e-14);
//! ```

use super::spatial::{Mat3, Vec3, axis_angle};
use crate::math;

const X: Vec3 = Vec3::new(1.0, 0.0, 0.0);
const Y: Vec3 = Vec3::new(0.0, 1.0, 0.0);
const Z: Vec3 = Vec3::new(0.0, 0.0, 1.0);

/// `Rz(a)·Ry(b)·Rx(c)` of the angles `[a, b, c]`.
pub fn rotation(q: [f64; 3]) -> Mat3 {
    axis_angle(&Z, q[0]) * axis_angle(&Y, q[1]) * axis_angle(&X, q[2])
}

/// Angular velocity of the last body relative to the first one's reference frame, in the
/// last body's axes: `J(q)·q̇`.
pub fn body_rate(q: [f64; 3], qd: [f64; 3]) -> Vec3 {
    let (ry_t, rx_t) = (
        axis_angle(&Y, q[1]).transpose(),
        axis_angle(&X, q[2]).transpose(),
    );
    rx_t * (ry_t * Z * qd[0] + Y * qd[1]) + X * qd[2]
}

/// Its time derivative `J(q)·q̈ + J̇(q, q̇)·q̇` (the last body's axes turn with it, so this
/// is the relative angular acceleration in those axes).
pub fn body_acceleration(q: [f64; 3], qd: [f64; 3], qdd: [f64; 3]) -> Vec3 {
    let (ry_t, rx_t) = (
        axis_angle(&Y, q[1]).transpose(),
        axis_angle(&X, q[2]).transpose(),
    );
    let yaw_axis = ry_t * Z;
    // Before the roll: u = Ryᵀ z ȧ + y ḃ, and d(Rᵀ v)/dt = Rᵀ v̇ − θ̇ n × Rᵀ v.
    let u = yaw_axis * qd[0] + Y * qd[1];
    let u_dot = yaw_axis * qdd[0] - qd[1] * Y.cross(&(yaw_axis * qd[0])) + Y * qdd[1];
    rx_t * u_dot - qd[2] * X.cross(&(rx_t * u)) + X * qdd[2]
}

/// Angles of the composition that gives `r` (pitch in [−π/2, π/2], yaw and roll in
/// (−π, π]).
pub fn angles(r: &Mat3) -> [f64; 3] {
    let (s00, s10) = (r[(0, 0)], r[(1, 0)]);
    [
        math::atan2(s10, s00),
        math::atan2(-r[(2, 0)], (s00 * s00 + s10 * s10).sqrt()),
        math::atan2(r[(2, 1)], r[(2, 2)]),
    ]
}

/// Angle rates `q̇ = J(q)⁻¹ v` that give the body rate `v` (singular at cos b = 0: the
/// rates are then infinite, as the angles' are).
pub fn angle_rates(q: [f64; 3], v: &Vec3) -> [f64; 3] {
    let (sb, cb) = math::sin_cos(q[1]);
    let (sc, cc) = math::sin_cos(q[2]);
    let yaw = (v.y * sc + v.z * cc) / cb;
    [yaw, v.y * cc - v.z * sc, v.x + yaw * sb]
}

/// The same motion on a new reference frame turned by `R(q)` from the old one: angles
/// zero there, and the rates and accelerations that keep the last body's relative angular
/// velocity and acceleration. Returns `(R(q), q̇', q̈')`.
pub fn recharted(q: [f64; 3], qd: [f64; 3], qdd: [f64; 3]) -> (Mat3, [f64; 3], [f64; 3]) {
    let w = body_rate(q, qd);
    let a = body_acceleration(q, qd, qdd);
    let qd1 = [w.z, w.y, w.x];
    // At zero angles J = [z y x] and J̇ q̇ = (−ȧḃ, ȧċ, −ḃċ).
    let qdd1 = [
        a.z + qd1[1] * qd1[2],
        a.y - qd1[0] * qd1[2],
        a.x + qd1[0] * qd1[1],
    ];
    (rotation(q), qd1, qdd1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_accelerations_match_finite_differences_of_the_rotation() {
        // ω^ = Rᵀ Ṙ along q(t) = q + q̇ t + q̈ t²/2, and its derivative, by central
        // differences.
        let (q, qd, qdd) = ([0.7, -1.1, 2.3], [0.4, -0.9, 1.3], [-0.6, 0.2, 0.8]);
        let at = |t: f64| {
            let qt: [f64; 3] = std::array::from_fn(|i| q[i] + qd[i] * t + 0.5 * qdd[i] * t * t);
            rotation(qt)
        };
        let rate = |t: f64| {
            let e = 1e-6;
            let r = at(t);
            let w = r.transpose() * (at(t + e) - at(t - e)) / (2.0 * e);
            Vec3::new(w[(2, 1)], w[(0, 2)], w[(1, 0)])
        };
        let qdt = |t: f64| -> [f64; 3] { std::array::from_fn(|i| qd[i] + qdd[i] * t) };
        let qt = |t: f64| -> [f64; 3] {
            std::array::from_fn(|i| q[i] + qd[i] * t + 0.5 * qdd[i] * t * t)
        };
        assert!((rate(0.0) - body_rate(q, qd)).norm() < 1e-8);
        let e = 1e-4;
        let fd = (body_rate(qt(e), qdt(e)) - body_rate(qt(-e), qdt(-e))) / (2.0 * e);
        assert!((fd - body_acceleration(q, qd, qdd)).norm() < 1e-7);
        assert!((rate(e) - body_rate(qt(e), qdt(e))).norm() < 1e-7);
    }

    #[test]
    fn angles_and_rates_invert_the_composition() {
        let q = [2.9, -1.2, -3.0];
        let a = angles(&rotation(q));
        for i in 0..3 {
            assert!((a[i] - q[i]).abs() < 1e-13, "{a:?}");
        }
        let qd = [0.3, -0.7, 1.9];
        let back = angle_rates(q, &body_rate(q, qd));
        for i in 0..3 {
            assert!((back[i] - qd[i]).abs() < 1e-13, "{back:?}");
        }
    }

    #[test]
    fn a_recharted_motion_is_the_same_motion() {
        for q in [[0.3, 1.2, -0.4], [-2.0, -1.5, 3.0], [0.0, 0.0, 0.0]] {
            let (qd, qdd) = ([0.5, -0.2, 0.9], [0.1, 0.3, -0.2]);
            let (turn, qd1, qdd1) = recharted(q, qd, qdd);
            assert!((turn - rotation(q)).norm() < 1e-15);
            let w = body_rate(q, qd) - body_rate([0.0; 3], qd1);
            let a = body_acceleration(q, qd, qdd) - body_acceleration([0.0; 3], qd1, qdd1);
            assert!(w.norm() < 1e-14 && a.norm() < 1e-14, "{w} {a}");
        }
    }
}
