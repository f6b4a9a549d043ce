//! Equations of motion in joint coordinates: `M(z) z̈ − Q(z, ż) = 0` evaluated as inverse
//! dynamics (per-body Newton–Euler residual wrenches summed from the leaves to the root
//! and projected on the joint columns), and the mass matrix by composite inertias.

use super::base::BaseMotion;
use super::ffrf::{self, FrameMotion, ModalState};
use super::kinematics::{BodyKinematics, Kinematics};
use super::spatial::{Mat3, Vec3, Vec6, ang, join, lin, vec3};
use crate::model::{FlexibleBody, Mechanism};

/// Residual wrench of one body about the base origin: inertia and gravity minus nothing
/// applied (applied wrenches are subtracted by the caller's accumulation). Inertia acts
/// on the absolute motion, so a moving base adds its transport loads here.
fn body_residual(k: &BodyKinematics, base: &BaseMotion) -> Vec6 {
    // Massless bodies (a flexible body's interface nodes, connectors) carry nothing.
    if k.mass == 0.0 && k.inertia == Mat3::zeros() {
        return Vec6::zeros();
    }
    let (twist, accel) = base.absolute(k);
    let w = ang(&twist);
    let a_w = ang(&accel);
    let com_vel = lin(&twist) + w.cross(&k.com);
    let com_acc = lin(&accel) + a_w.cross(&k.com) + w.cross(&com_vel);
    let n = (com_acc - base.gravity) * k.mass;
    // Euler's equations in body axes, turned back: R (I α_b + ω_b × I ω_b).
    let (w_b, a_b) = (k.rotation.tr_mul(&w), k.rotation.tr_mul(&a_w));
    let moment = k.com.cross(&n) + k.rotation * (k.inertia * a_b + w_b.cross(&(k.inertia * w_b)));
    join(n, moment)
}

/// The floating frame's absolute motion in body axes, gravity taken off its acceleration.
fn frame_motion(k: &BodyKinematics, base: &BaseMotion) -> FrameMotion {
    let (twist, accel) = base.absolute(k);
    let (w, alpha) = (ang(&twist), ang(&accel));
    let v_o = lin(&twist) + w.cross(&k.origin);
    let a_o = lin(&accel) + alpha.cross(&k.origin) + w.cross(&v_o);
    let r = &k.rotation;
    let (v, w_b) = (r.tr_mul(&v_o), r.tr_mul(&w));
    FrameMotion {
        velocity: v,
        angular_velocity: w_b,
        acceleration: r.tr_mul(&(a_o - base.gravity)) - w_b.cross(&v),
        angular_acceleration: r.tr_mul(&alpha),
    }
}

/// Residual wrench of a flexible body about the base origin (as [`body_residual`]), and its
/// modal residuals — inertial, elastic, damping — into `q`.
fn flexible_residual(
    body: &FlexibleBody,
    s: &ModalState,
    k: &BodyKinematics,
    base: &BaseMotion,
    q: &mut [f64],
) -> Vec6 {
    let (f, n) = ffrf::inertial_forces(body, s, &frame_motion(k, base), q);
    let f = k.rotation * f;
    join(f, k.origin.cross(&f) + k.rotation * n)
}

/// Writes `r = M z̈ − Q` for the accelerations stored in `kin` (`Kinematics::update` with
/// z̈), where `applied[j]` is the external wrench on body j about the base origin
/// (`[ΣF; Σ p×F]`). `scratch` holds one wrench per body. Returns the sum of the bodies'
/// inertia-and-gravity wrenches: what the rest of the world applies to the machine.
pub fn inverse_dynamics(
    mech: &Mechanism,
    kin: &Kinematics,
    base: &BaseMotion,
    applied: &[Vec6],
    scratch: &mut [Vec6],
    r: &mut [f64],
) -> Vec6 {
    let mut total = Vec6::zeros();
    for (j, k) in kin.bodies.iter().enumerate() {
        let inertial = match kin.flexible_of(j) {
            Some(f) => {
                let start = mech.modal_start(f);
                let body = &mech.flexible[f];
                let q = &mut r[start..start + body.modes()];
                flexible_residual(body, &kin.modal[f], k, base, q)
            }
            None => body_residual(k, base),
        };
        total += inertial;
        scratch[j] = inertial - applied[j];
    }
    for j in (0..mech.bodies.len()).rev() {
        if let Some(c) = kin.bodies[j].coordinate {
            r[c] = kin.bodies[j].b.dot(&scratch[j]);
        }
        // What hangs at an interface node loads the flexible body's modes.
        if let Some((start, columns)) = kin.node_columns(j) {
            for (kk, (col, _)) in columns.iter().enumerate() {
                r[start + kk] += col.dot(&scratch[j]);
            }
        }
        if let Some(p) = mech.bodies[j].parent {
            let child = scratch[j];
            scratch[p] += child;
        }
    }
    total
}

/// Joint-space mass matrix (row-major, nz×nz) by the composite-rigid-body algorithm.
/// `composite` holds one [`CompositeInertia`] per body.
pub fn mass_matrix(
    mech: &Mechanism,
    kin: &Kinematics,
    composite: &mut [CompositeInertia],
    m: &mut [f64],
) {
    let nz = m.len().isqrt();
    for (j, k) in kin.bodies.iter().enumerate() {
        composite[j] = match kin.flexible_of(j) {
            Some(f) => CompositeInertia::flexible(k, &mech.flexible[f], &kin.modal[f]),
            None => CompositeInertia::of(k),
        };
    }
    for j in (0..mech.bodies.len()).rev() {
        if let Some(p) = mech.bodies[j].parent {
            let child = composite[j];
            composite[p].add(&child);
        }
    }
    m.fill(0.0);
    for (j, k) in kin.bodies.iter().enumerate() {
        let Some(cj) = k.coordinate else { continue };
        let f = composite[j].wrench(&k.b);
        kin.path(mech, Some(j), |ci, b, _| {
            let v = b.dot(&f);
            m[ci * nz + cj] = v;
            m[cj * nz + ci] = v;
        });
    }
    for (f, body) in mech.flexible.iter().enumerate() {
        flexible_columns(mech, kin, composite, f, body, m, nz);
    }
}

/// The mass-matrix columns of flexible body `f`'s modal coordinates: a unit η̈_k accelerates
/// the body's own mass (the couplings C_t, C_r(η), M_ηη) and, rigidly with the node, every
/// subtree hanging at an interface node.
fn flexible_columns(
    mech: &Mechanism,
    kin: &Kinematics,
    composite: &[CompositeInertia],
    f: usize,
    body: &FlexibleBody,
    m: &mut [f64],
    nz: usize,
) {
    let (n, start) = (body.modes(), mech.modal_start(f));
    let k = &kin.bodies[body.body];
    let s = &kin.modal[f];
    let inv = &body.invariants;
    let nodes = || {
        (0..mech.bodies.len())
            .filter(move |&i| mech.bodies[i].parent == Some(body.body))
            .filter_map(|i| kin.node_columns(i).map(|(_, c)| (i, c)))
    };
    for kk in 0..n {
        let force = k.rotation * vec3(inv.first_moment_modal[kk]);
        let mut wrench = join(force, k.origin.cross(&force) + k.rotation * s.coupling[kk]);
        for l in 0..n {
            m[(start + l) * nz + start + kk] = inv.modal_mass[l * n + kk];
        }
        for (i, columns) in nodes() {
            let w = composite[i].wrench(&columns[kk].0);
            wrench += w;
            for (l, (col, _)) in columns.iter().enumerate() {
                m[(start + l) * nz + start + kk] += col.dot(&w);
            }
        }
        kin.path(mech, Some(body.body), |ci, b, _| {
            let v = b.dot(&wrench);
            m[ci * nz + start + kk] = v;
            m[(start + kk) * nz + ci] = v;
        });
    }
}

/// Spatial inertia of a body, or of a subtree, for Z twists about the world origin (seed
/// 001 eq 2.16), in ten numbers instead of the 6×6 matrix
/// `[m 1, −m[c]×; m[c]×, I_c − m[c]×[c]×]`: the mass, its first moment `h = m c` and the
/// inertia about the origin `I_o = I_c + m(|c|² 1 − c cᵀ)`. Sums and products with a twist
/// cost a third of the matrix's.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompositeInertia {
    mass: f64,
    moment: Vec3,
    inertia: nalgebra::Matrix3<f64>,
}

impl CompositeInertia {
    /// The body's own inertia.
    pub fn of(k: &BodyKinematics) -> CompositeInertia {
        let (m, c) = (k.mass, k.com);
        let shift = nalgebra::Matrix3::from_diagonal_element(c.norm_squared()) - c * c.transpose();
        CompositeInertia {
            mass: m,
            moment: c * m,
            inertia: k.world_inertia() + shift * m,
        }
    }

    /// A flexible body's frame inertia at its current modal coordinates: mass m, first
    /// moment `m o + R S(η)`, and `R J(η) Rᵀ` moved from the body origin o to the world
    /// origin (J is about o, not about the centre of mass).
    pub fn flexible(k: &BodyKinematics, body: &FlexibleBody, s: &ModalState) -> CompositeInertia {
        let (m, o) = (body.invariants.mass, k.origin);
        let h = k.rotation * s.first_moment;
        let shift = Mat3::from_diagonal_element(o.norm_squared()) - o * o.transpose();
        let cross =
            Mat3::from_diagonal_element(2.0 * o.dot(&h)) - o * h.transpose() - h * o.transpose();
        CompositeInertia {
            mass: m,
            moment: o * m + h,
            inertia: k.rotation * s.inertia * k.rotation.transpose() + shift * m + cross,
        }
    }

    pub fn add(&mut self, other: &CompositeInertia) {
        self.mass += other.mass;
        self.moment += other.moment;
        self.inertia += other.inertia;
    }

    /// The wrench `[m v + ω × h; h × v + I_o ω]` of the twist `[v; ω]`.
    pub fn wrench(&self, twist: &Vec6) -> Vec6 {
        let (v, w) = (lin(twist), ang(twist));
        join(
            v * self.mass + w.cross(&self.moment),
            self.moment.cross(&v) + self.inertia * w,
        )
    }
}

/// Kinetic energy of the tree in the world frame [J].
pub fn kinetic_energy(mech: &Mechanism, kin: &Kinematics, base: &BaseMotion) -> f64 {
    kin.bodies
        .iter()
        .enumerate()
        .map(|(j, k)| {
            if let Some(f) = kin.flexible_of(j) {
                let m = frame_motion(k, base);
                let inv = &mech.flexible[f].invariants;
                return ffrf::kinetic_energy(inv, &kin.modal[f], &m.velocity, &m.angular_velocity);
            }
            let (twist, _) = base.absolute(k);
            let w = ang(&twist);
            let v = lin(&twist) + w.cross(&k.com);
            let w_b = k.rotation.tr_mul(&w);
            0.5 * k.mass * v.norm_squared() + 0.5 * w_b.dot(&(k.inertia * w_b))
        })
        .sum()
}

/// Gravitational potential energy relative to the world origin, plus the flexible bodies'
/// strain energy [J].
pub fn potential_energy(mech: &Mechanism, kin: &Kinematics, base: &BaseMotion) -> f64 {
    // World gravity · world position of the base origin, in either axes.
    let g_origin = base.gravity.dot(&(base.rotation.transpose() * base.origin));
    let gravity: f64 = kin
        .bodies
        .iter()
        .map(|k| -k.mass * (g_origin + base.gravity.dot(&k.com)))
        .sum();
    let strain: f64 = mech
        .flexible
        .iter()
        .zip(&kin.modal)
        .map(|(f, s)| ffrf::elastic_energy(f, s))
        .sum();
    gravity + strain
}

/// Adds a force `f` acting at world point `p` on `body` (ground absorbs it) to the
/// per-body wrenches about the world origin.
#[inline]
pub fn add_point_force(applied: &mut [Vec6], body: Option<usize>, p: &Vec3, f: &Vec3) {
    if let Some(j) = body {
        applied[j] += join(*f, p.cross(f));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::spatial::Mat3;
    use nalgebra::Matrix6;

    /// Seed 001 eq 2.16 as written: `[m 1, −m[c]×; m[c]×, I_c − m[c]×[c]×]`.
    fn body_inertia(k: &BodyKinematics) -> Matrix6<f64> {
        let (m, gx) = (k.mass, k.com.cross_matrix());
        let mut mb = Matrix6::zeros();
        mb.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&(Mat3::identity() * m));
        mb.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-gx * m));
        mb.fixed_view_mut::<3, 3>(3, 0).copy_from(&(gx * m));
        mb.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&(k.world_inertia() - gx * gx * m));
        mb
    }

    fn body(mass: f64, com: [f64; 3], angle: f64) -> BodyKinematics {
        let (s, c) = crate::math::sin_cos(angle);
        BodyKinematics {
            rotation: Mat3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0),
            com: Vec3::new(com[0], com[1], com[2]),
            inertia: Mat3::new(2.0, 0.1, 0.0, 0.1, 3.0, 0.2, 0.0, 0.2, 4.0),
            mass,
            ..BodyKinematics::GROUND
        }
    }

    #[test]
    fn composite_inertia_is_the_seeds_spatial_inertia_summed() {
        let (a, b) = (
            body(5.0, [1.0, -2.0, 0.5], 0.3),
            body(2.5, [-0.4, 0.7, 1.5], -1.1),
        );
        let mut sum = CompositeInertia::of(&a);
        sum.add(&CompositeInertia::of(&b));
        let matrix = body_inertia(&a) + body_inertia(&b);
        let twist = Vec6::new(0.3, -1.2, 0.8, 2.0, -0.5, 1.7);
        let (fast, reference) = (sum.wrench(&twist), matrix * twist);
        assert!(
            (fast - reference).norm() < 1e-12 * reference.norm(),
            "{fast} vs {reference}"
        );
    }
}
