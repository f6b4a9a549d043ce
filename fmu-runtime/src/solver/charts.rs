//! Spherical joints in any orientation: each z-y-x rotation (a spherical joint, a free
//! joint's rotation) whose pitch goes past ±60° is re-charted after the step — its
//! reference frame turned to the current orientation, its angles set to zero and its rates
//! and accelerations mapped so the body moves on unchanged (see
//! [`crate::mechanics::zyx::recharted`]). The accumulated turn of each frame is part of the
//! state, so a restored FMU state continues bit for bit; the joint's angle outputs stay
//! those of the whole orientation.

use super::Workspace;
use crate::mechanics::Kinematics;
use crate::mechanics::spatial::{Mat3, quat_matrix};
use crate::mechanics::zyx;
use crate::model::CompiledModel;
use crate::solver::State;
use nalgebra::{Quaternion, Rotation3, UnitQuaternion};

/// |cos pitch| below which a rotation is re-charted: pitch past ±60°, where the rates of
/// yaw and roll are twice the body's angular velocity (they grow as 1/cos pitch).
pub const RECHART_COS_PITCH: f64 = 0.5;

/// A rotation the runtime re-charts: its yaw, pitch and roll bodies and their coordinates.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub bodies: [usize; 3],
    pub coords: [usize; 3],
}

impl Chart {
    /// The state's angles, rates and accelerations of the three coordinates.
    fn motion(&self, st: &State) -> [[f64; 3]; 3] {
        [&st.z, &st.zd, &st.zdd].map(|v| self.coords.map(|i| v[i]))
    }
}

/// The model's re-charted rotations, in [`CompiledModel::charted_rotations`] order.
pub fn of(m: &CompiledModel) -> Vec<Chart> {
    let coordinate = m.mechanism.coordinate_indices();
    // (The chain's bodies are revolutes, checked when the model is loaded: each has one.)
    m.charted_rotations()
        .map(|r| Chart {
            bodies: r.bodies,
            coords: r.bodies.map(|b| coordinate[b].unwrap_or_default()),
        })
        .collect()
}

/// The identity turn of every chart: `[w, x, y, z]` per chart.
pub fn identity(n: usize) -> Vec<f64> {
    [1.0, 0.0, 0.0, 0.0].repeat(n)
}

/// The turn of chart `k` in the state, `[w, x, y, z]`.
fn turn(st: &State, k: usize) -> [f64; 4] {
    let t = &st.charts[4 * k..4 * k + 4];
    [t[0], t[1], t[2], t[3]]
}

/// Whether chart `k` is still the description's frame (never re-charted).
pub fn is_identity(st: &State, k: usize) -> bool {
    turn(st, k) == [1.0, 0.0, 0.0, 0.0]
}

/// Turns the kinematics' joint frames by the state's charts (after a restore, a reset or
/// a re-chart).
pub fn apply(m: &CompiledModel, charts: &[Chart], st: &State, kin: &mut Kinematics) {
    for (k, c) in charts.iter().enumerate() {
        kin.set_chart(&m.mechanism, c.bodies[0], &quat_matrix(turn(st, k)));
    }
}

/// Re-charts every rotation whose pitch has gone past ±60°; returns how many. The next
/// step forms a fresh Newton tangent (the coordinates changed).
pub fn rechart(m: &CompiledModel, st: &mut State, ws: &mut Workspace) -> u32 {
    let mut n = 0;
    for (k, c) in ws.charts.iter().enumerate() {
        if crate::math::sin_cos(st.z[c.coords[1]]).1.abs() >= RECHART_COS_PITCH {
            continue;
        }
        let [q, qd, qdd] = c.motion(st);
        let (moved, qd1, qdd1) = zyx::recharted(q, qd, qdd);
        let t = turn(st, k);
        let old = UnitQuaternion::from_quaternion(Quaternion::new(t[0], t[1], t[2], t[3]));
        let by = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(moved));
        let new = UnitQuaternion::new_normalize((old * by).into_inner());
        st.charts[4 * k..4 * k + 4].copy_from_slice(&[new.w, new.i, new.j, new.k]);
        for (i, &j) in c.coords.iter().enumerate() {
            st.z[j] = 0.0;
            st.zd[j] = qd1[i];
            st.zdd[j] = qdd1[i];
            super::predictor::restart_joint_history(st, j);
        }
        n += 1;
    }
    if n > 0 {
        st.tangent_step = 0.0;
        apply(m, &ws.charts, st, &mut ws.eval.kin);
    }
    n
}

/// Angles, rates and accelerations `[q, q̇, q̈]` (yaw, pitch, roll) of chart `k`'s whole
/// orientation in the description's joint frame: the state's own values until the
/// first re-chart, then those of the z-y-x angles of the charted turn composed with the
/// state's angles (principal values; singular, like any z-y-x angles, at pitch ±90°).
pub fn joint_angles(c: &Chart, k: usize, st: &State) -> [[f64; 3]; 3] {
    let [q, qd, qdd] = c.motion(st);
    if is_identity(st, k) {
        return [q, qd, qdd];
    }
    let whole: Mat3 = quat_matrix(turn(st, k)) * zyx::rotation(q);
    let angles = zyx::angles(&whole);
    // The last body's relative motion is the same in either chart.
    let rates = zyx::angle_rates(angles, &zyx::body_rate(q, qd));
    let bias = zyx::body_acceleration(angles, rates, [0.0; 3]);
    let accelerations = zyx::angle_rates(angles, &(zyx::body_acceleration(q, qd, qdd) - bias));
    [angles, rates, accelerations]
}
