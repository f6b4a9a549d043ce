//! Small geometric helpers on fixed-size nalgebra types (no heap).

use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3, Vector6};

pub type Vec3 = Vector3<f64>;
pub type Mat3 = Matrix3<f64>;
pub type Vec6 = Vector6<f64>;

pub fn vec3(a: [f64; 3]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

/// Rotation matrix of a `[w, x, y, z]` quaternion (normalised on the way).
pub fn quat_matrix(q: [f64; 4]) -> Mat3 {
    UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]))
        .to_rotation_matrix()
        .into_inner()
}

/// Rotation by `angle` about the unit `axis` (Rodrigues).
pub fn axis_angle(axis: &Vec3, angle: f64) -> Mat3 {
    // Rodrigues in closed form, `c I + (1 − c) a aᵀ + s [a]×` for a unit axis: no 3×3
    // product (this runs for every revolute joint in every evaluation).
    let (s, c) = crate::math::sin_cos(angle);
    let (x, y, z) = (axis.x, axis.y, axis.z);
    let v = 1.0 - c;
    Mat3::new(
        c + v * x * x,
        v * x * y - s * z,
        v * x * z + s * y,
        v * x * y + s * z,
        c + v * y * y,
        v * y * z - s * x,
        v * x * z - s * y,
        v * y * z + s * x,
        c + v * z * z,
    )
}

/// Linear part of a twist/wrench.
pub fn lin(v: &Vec6) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

/// Angular part of a twist/wrench.
pub fn ang(v: &Vec6) -> Vec3 {
    Vec3::new(v[3], v[4], v[5])
}

pub fn join(l: Vec3, a: Vec3) -> Vec6 {
    Vec6::new(l.x, l.y, l.z, a.x, a.y, a.z)
}

/// Symmetric inertia tensor from `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`.
pub fn inertia_matrix(i: [f64; 6]) -> Mat3 {
    Mat3::new(i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2])
}

/// `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]` of a symmetric tensor (the inverse of
/// [`inertia_matrix`]; the upper triangle is read).
pub fn inertia_array(m: &Mat3) -> [f64; 6] {
    [
        m[(0, 0)],
        m[(1, 1)],
        m[(2, 2)],
        m[(0, 1)],
        m[(0, 2)],
        m[(1, 2)],
    ]
}
