//! A moving base: the machine's ground frame carried by a vehicle, vessel or another FMU.
//!
//! Kinematics stay relative to the base frame (the tree's "ground"), so every geometric
//! quantity, constraint and actuator line is unchanged. Only the inverse dynamics and the
//! energies need the absolute motion of each body, which is the base's motion composed with
//! the relative one, all in base axes about the base origin:
//!
//! * twist `V = V_B + V_rel`;
//! * twist derivative `A = A_B + A_rel + V_B ×ₘ V_rel` (the relative twist is expressed in
//!   the moving base frame, so its inertial derivative picks up the transport term);
//! * gravity `Rᵀ g`.
//!
//! With `V_B = [v₀; Ω]` (v₀ the base origin's velocity) the twist derivative of the base is
//! `A_B = [a₀ − Ω × v₀; α]`; a body at rest in the base then has the classical acceleration
//! `a₀ + α × c + Ω × (Ω × c)`, and a body moving in it picks up `2 Ω × v_rel` (Coriolis).

use super::kinematics::BodyKinematics;
use super::spatial::{Mat3, Vec3, Vec6, ang, join, lin, quat_matrix, vec3};
use crate::model::CarrierBase;

/// Motion of the base frame, in base axes about the base origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BaseMotion {
    /// Base → world rotation.
    pub rotation: Mat3,
    /// World position of the base origin [m].
    pub origin: Vec3,
    /// Gravity in base axes [m/s²].
    pub gravity: Vec3,
    /// `V_B = [v₀; Ω]`.
    pub twist: Vec6,
    /// `A_B = [a₀ − Ω × v₀; α]`.
    pub accel: Vec6,
    /// The base does not move: absolute = relative (bit for bit, no extra work).
    pub fixed: bool,
}

/// Why the base inputs cannot be used.
pub const BAD_ORIENTATION: &str =
    "the base orientation is not a unit quaternion [w, x, y, z] (norm outside 0.5…2 or not finite)";

impl BaseMotion {
    /// A base at rest at the world origin with world axes.
    pub fn fixed(gravity: [f64; 3]) -> BaseMotion {
        BaseMotion {
            rotation: Mat3::identity(),
            origin: Vec3::zeros(),
            gravity: vec3(gravity),
            twist: Vec6::zeros(),
            accel: Vec6::zeros(),
            fixed: true,
        }
    }

    /// The motion a carrier prescribes through its inputs (world axes) at parameter vector
    /// `p`; the quaternion is normalised. `Err` when it is not a usable rotation.
    pub fn carried(
        port: &CarrierBase,
        p: &[f64],
        gravity: [f64; 3],
    ) -> Result<BaseMotion, &'static str> {
        let read = |ids: &[crate::model::ParamId; 3]| {
            Vec3::new(p[ids[0].index()], p[ids[1].index()], p[ids[2].index()])
        };
        let q = port.orientation.map(|id| p[id.index()]);
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(0.5..=2.0).contains(&norm) {
            return Err(BAD_ORIENTATION);
        }
        let rotation = quat_matrix(q);
        let to_base = rotation.transpose();
        let v0 = to_base * read(&port.velocity);
        let omega = to_base * read(&port.angular_velocity);
        let a0 = to_base * read(&port.acceleration);
        let alpha = to_base * read(&port.angular_acceleration);
        Ok(BaseMotion {
            rotation,
            origin: read(&port.position),
            gravity: to_base * vec3(gravity),
            twist: join(v0, omega),
            accel: join(a0 - omega.cross(&v0), alpha),
            fixed: false,
        })
    }

    /// Absolute twist and twist derivative of a body (base axes, about the base origin).
    #[inline]
    pub fn absolute(&self, k: &BodyKinematics) -> (Vec6, Vec6) {
        if self.fixed {
            return (k.twist, k.accel);
        }
        (
            self.twist + k.twist,
            self.accel + k.accel + motion_cross(&self.twist, &k.twist),
        )
    }

    /// Velocity of the base-fixed point at `p` (base axes), relative to the world.
    pub fn velocity_at(&self, p: &Vec3) -> Vec3 {
        lin(&self.twist) + ang(&self.twist).cross(p)
    }

    /// A body's pose in world coordinates (its rates left relative: what a world-fixed
    /// ground's narrow phase reads is the pose).
    pub fn world_pose(&self, k: &BodyKinematics) -> BodyKinematics {
        BodyKinematics {
            rotation: self.rotation * k.rotation,
            origin: self.origin + self.rotation * k.origin,
            com: self.origin + self.rotation * k.com,
            ..*k
        }
    }

    /// A world point in base coordinates.
    pub fn point_to_base(&self, p: &Vec3) -> Vec3 {
        self.rotation.transpose() * (p - self.origin)
    }

    /// A world-axes vector in base axes.
    pub fn to_base(&self, v: &Vec3) -> Vec3 {
        if self.fixed {
            *v
        } else {
            self.rotation.transpose() * v
        }
    }
}

/// Spatial motion cross product `V₁ ×ₘ V₂` for twists `[v; ω]`.
fn motion_cross(a: &Vec6, b: &Vec6) -> Vec6 {
    let (va, wa) = (lin(a), ang(a));
    let (vb, wb) = (lin(b), ang(b));
    join(wa.cross(&vb) + va.cross(&wb), wa.cross(&wb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_rest_body(com: Vec3) -> BodyKinematics {
        BodyKinematics {
            com,
            ..BodyKinematics::GROUND
        }
    }

    /// A point fixed in a spinning, accelerating base has `a₀ + α × c + Ω × (Ω × c)`.
    #[test]
    fn point_fixed_in_the_base_has_the_classical_acceleration() {
        let omega = Vec3::new(0.3, -0.2, 1.1);
        let alpha = Vec3::new(0.05, 0.4, -0.1);
        let v0 = Vec3::new(1.0, 2.0, -0.5);
        let a0 = Vec3::new(-0.7, 0.2, 3.0);
        let base = BaseMotion {
            rotation: Mat3::identity(),
            origin: Vec3::zeros(),
            gravity: Vec3::zeros(),
            twist: join(v0, omega),
            accel: join(a0 - omega.cross(&v0), alpha),
            fixed: false,
        };
        let c = Vec3::new(2.0, -1.0, 0.5);
        let (twist, accel) = base.absolute(&at_rest_body(c));
        let w = ang(&twist);
        let vc = lin(&twist) + w.cross(&c);
        let ac = lin(&accel) + ang(&accel).cross(&c) + w.cross(&vc);
        let expected = a0 + alpha.cross(&c) + omega.cross(&omega.cross(&c));
        assert!((ac - expected).norm() < 1e-12, "{ac} vs {expected}");
        assert!((vc - (v0 + omega.cross(&c))).norm() < 1e-12);
    }
}
