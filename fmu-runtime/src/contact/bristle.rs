//! LuGre friction at a contact point (Canudas de Wit et al. 1995; seed 000 eqs 2.60–2.63
//! for its tyres, seed 001 Pub II for seals): a bristle deflection `z` per point, a
//! first-order state of the Newton loop, with
//!
//! ```text
//! ż = v_t − σ0 |v_t| z / μ(|v_t|),    F_t = −F_n P (σ0 z + σ1(|v_t|) ż)
//! μ(s) = μ_k + (μ_s − μ_k) e^(−(s/v_S)²),    σ1(s) = σ1 e^(−(s/v_S)²)
//! ```
//!
//! `v_t` the tangential slip, `P = I − n nᵀ`. Below `μ_s F_n` the bristles hold the body
//! with a stiffness `σ0 F_n` (presliding `μ/σ0`), so a load below the static limit does
//! not creep as the regularized law's does; sliding, `z` settles at `μ v_t/(σ0 |v_t|)` and
//! the force is Coulomb's with the Stribeck curve. σ1 fades with the slip speed (the
//! authors' condition for a passive model). z is a world vector: its normal part carries
//! no force, and no tangent basis has to turn with a body pair's normal.
//!
//! The force takes `ż` from the state equation (`f(z, v)`), not from the step's rate of
//! `z`: equal at convergence, and the force then depends on the state alone, as Model
//! Exchange needs. While a point is apart its bristles relax to rest in [`RELEASE_TIME`].

use crate::math;
use crate::mechanics::spatial::Vec3;

/// |v_t| smoothed over 1 µm/s, as the seal friction's (its kink at 0 stalls Newton). A
/// held load creeps at `r ε/√(1−r²)`, r its share of `μ_s F_n`: µm per second.
const V_SMOOTH: f64 = 1e-6;

/// Relaxation time of the bristles of a point that is apart [s] (ours: one step of a
/// millisecond halves them; they carry no force there).
pub const RELEASE_TIME: f64 = 1e-3;

/// The LuGre parameters at one contact: σ0 [1/m], σ1 [s/m], the friction coefficients
/// and the Stribeck speed [m/s].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lugre {
    pub sigma0: f64,
    pub sigma1: f64,
    pub static_: f64,
    pub kinetic: f64,
    pub stribeck_velocity: f64,
}

/// A point's bristle law at the last full evaluation (its kinematics and normal force),
/// from which its state residual and force follow for any deflection.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BristlePoint {
    /// Index of the point's first deflection state among the bristle states.
    pub state: usize,
    pub normal: Vec3,
    /// Tangential slip velocity [m/s].
    pub slip: Vec3,
    /// `σ0 |v_t|/μ` [1/s] (apart: 1/[`RELEASE_TIME`]) and its gradient in the slip
    /// [1/m] (the tangent's: near stick the smoothed |v_t| turns it as much as z).
    pub relax: f64,
    pub relax_slope: Vec3,
    /// `F_n σ0` [N/m] and `F_n σ1(|v_t|)` [N·s/m] (apart: zero).
    pub stiffness: f64,
    pub damping: f64,
    /// The friction force at the evaluation's deflection [N].
    pub force: Vec3,
}

impl BristlePoint {
    /// A point apart: its bristles relax, no force.
    pub fn apart(state: usize) -> BristlePoint {
        BristlePoint {
            state,
            relax: 1.0 / RELEASE_TIME,
            ..BristlePoint::default()
        }
    }

    /// A point in contact under `normal_force` > 0, slipping at `slip` (tangential).
    pub fn touching(
        state: usize,
        normal: Vec3,
        slip: Vec3,
        normal_force: f64,
        law: &Lugre,
    ) -> BristlePoint {
        let s = slip.norm();
        let x = s / law.stribeck_velocity;
        let peak = math::exp(-x * x);
        let mu = law.kinetic + (law.static_ - law.kinetic) * peak;
        if mu <= 0.0 {
            // Frictionless: nothing to deflect.
            return BristlePoint::apart(state);
        }
        let a = (s * s + V_SMOOTH * V_SMOOTH).sqrt();
        let relax = law.sigma0 * a / mu;
        // ∂/∂s of σ0 a/μ(s): the smoothed |v|'s slope s/a and the Stribeck curve's.
        let d_mu = -(law.static_ - law.kinetic) * peak * 2.0 * x / law.stribeck_velocity;
        let d_relax = law.sigma0 * (s / a) / mu - relax * d_mu / mu;
        let relax_slope = if s > 0.0 {
            slip * (d_relax / s)
        } else {
            Vec3::zeros()
        };
        BristlePoint {
            state,
            normal,
            slip,
            relax,
            relax_slope,
            stiffness: normal_force * law.sigma0,
            damping: normal_force * law.sigma1 * peak,
            force: Vec3::zeros(),
        }
    }

    /// The state equation's rate `ż = f(z)`.
    pub fn rate(&self, z: &Vec3) -> Vec3 {
        self.slip - z * self.relax
    }

    /// The friction force on the body at deflection `z` (tangential).
    pub fn force_at(&self, z: &Vec3) -> Vec3 {
        let f = z * self.stiffness + self.rate(z) * self.damping;
        -(f - self.normal * self.normal.dot(&f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law() -> Lugre {
        Lugre {
            sigma0: 1e4,
            sigma1: 60.0,
            static_: 0.7,
            kinetic: 0.5,
            stribeck_velocity: 1e-2,
        }
    }

    #[test]
    fn sliding_bristles_settle_at_coulomb_friction() {
        // ż = 0: z = v μ/(σ0 |v|), F = F_n μ_k against the slip (σ1's share fades).
        let n = Vec3::z();
        let slip = Vec3::new(0.3, 0.4, 0.0);
        let b = BristlePoint::touching(0, n, slip, 100.0, &law());
        let z = slip / b.relax;
        assert!(b.rate(&z).norm() < 1e-15);
        let f = b.force_at(&z);
        let expected = -slip / slip.norm() * 50.0;
        assert!((f - expected).norm() < 1e-9, "{f:?}");
    }

    #[test]
    fn held_bristles_spring_back_with_sigma0() {
        // At rest the force is the bristles' spring, tangential only (less σ1's share of
        // the relaxation at the smoothed |v|: F_n σ1 σ0 ε/μ z = 1.7e-3 N here).
        let b = BristlePoint::touching(0, Vec3::z(), Vec3::zeros(), 100.0, &law());
        let z = Vec3::new(2e-5, 0.0, 3e-6);
        let f = b.force_at(&z);
        let spring = 100.0 * 1e4 * 2e-5;
        let relaxing = 100.0 * 60.0 * 1e4 * 1e-6 / 0.7 * 2e-5;
        assert!((f.x + spring - relaxing).abs() < 1e-12, "{f:?}");
        assert_eq!(f.z, 0.0);
        let apart = BristlePoint::apart(3);
        assert_eq!(apart.force_at(&z), Vec3::zeros());
        assert!((apart.rate(&z) + z * 1e3).norm() < 1e-15);
    }
}
