//! The floating frame of reference in motion (seed 000, Pub I (13.6)–(13.22), with the
//! invariants of [`crate::model::ModalInvariants`]): the η-dependent inertia of a flexible
//! body, its inertial, elastic and damping forces, and the motion of its interface nodes.
//!
//! With the frame velocity `v`, angular velocity `ω` (body axes) and `ν = [v; ω; η̇]`, the
//! kinetic energy is `T = ½ νᵀ M_f(η) ν`; the generalized inertial forces follow from
//! Lagrange's equations in these quasi-velocities (Kirchhoff/Hamel form):
//!
//! ```text
//! G = M_f ν̇ + Σ_k η̇_k ∂M_f/∂η_k ν          (ν̇ with v̇ − g: gravity as a frame acceleration)
//! F = G_v + ω × p       N = G_ω + ω × h + v × p       Q = G_η − ∂T/∂η + K η + D η̇
//! ```
//!
//! `p, h` the linear and angular momenta (the v and ω rows of `M_f ν`).

use super::spatial::{Mat3, Vec3, Vec6, inertia_matrix, join, vec3};
use crate::model::{FlexibleBody, InterfaceNode, ModalInvariants};

/// The modal coordinates of one flexible body and its inertia at them (body axes).
#[derive(Clone, Debug, Default)]
pub struct ModalState {
    pub eta: Vec<f64>,
    pub eta_d: Vec<f64>,
    pub eta_dd: Vec<f64>,
    /// S(η).
    pub first_moment: Vec3,
    /// J(η).
    pub inertia: Mat3,
    /// ∂J/∂η_k = J1_k + Σ_l (J2_kl + J2_lk) η_l.
    pub inertia_rate: Vec<Mat3>,
    /// Columns of C_r(η).
    pub coupling: Vec<Vec3>,
    /// The invariants as matrices, converted once: J0, J1_k and the symmetric sums
    /// `J2_kl + J2_lk` (at `k·n + l`).
    j0: Mat3,
    j1: Vec<Mat3>,
    j2_sym: Vec<Mat3>,
}

fn mat9(a: &[f64; 9]) -> Mat3 {
    Mat3::new(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])
}

impl ModalState {
    pub fn new(inv: &ModalInvariants) -> ModalState {
        let n = inv.modes();
        let j2 = |k: usize, l: usize| mat9(&inv.inertia_modal2[k * n + l]);
        ModalState {
            eta: vec![0.0; n],
            eta_d: vec![0.0; n],
            eta_dd: vec![0.0; n],
            inertia_rate: vec![Mat3::zeros(); n],
            coupling: vec![Vec3::zeros(); n],
            j0: inertia_matrix(inv.inertia),
            j1: inv
                .inertia_modal
                .iter()
                .map(|j| inertia_matrix(*j))
                .collect(),
            j2_sym: (0..n * n)
                .map(|i| j2(i / n, i % n) + j2(i % n, i / n))
                .collect(),
            ..ModalState::default()
        }
    }

    /// Takes the modal coordinates, rates and accelerations and recomputes the inertia.
    pub fn update(&mut self, inv: &ModalInvariants, eta: &[f64], eta_d: &[f64], eta_dd: &[f64]) {
        let n = self.eta.len();
        self.eta.copy_from_slice(eta);
        self.eta_d.copy_from_slice(eta_d);
        self.eta_dd.copy_from_slice(eta_dd);
        self.first_moment = vec3(inv.first_moment);
        self.inertia = self.j0;
        for k in 0..n {
            let e = eta[k];
            self.first_moment += vec3(inv.first_moment_modal[k]) * e;
            self.coupling[k] = vec3(inv.rotation_coupling[k]);
            let mut rate = self.j1[k];
            for (l, j2) in self.j2_sym[k * n..(k + 1) * n].iter().enumerate() {
                rate += j2 * eta[l];
            }
            self.inertia_rate[k] = rate;
        }
        for k in 0..n {
            // J(η) = J0 + Σ η_k (J1_k + ½ Σ_l (J2_kl + J2_lk) η_l).
            self.inertia += (self.j1[k] + self.inertia_rate[k]) * (0.5 * eta[k]);
            for l in 0..n {
                self.coupling[l] += vec3(inv.rotation_coupling_modal[k * n + l]) * eta[k];
            }
        }
    }
}

/// The floating frame's motion in body axes. `acceleration` is `v̇ − g`: the time
/// derivative of the body-axes components of the origin's velocity, less gravity.
#[derive(Clone, Copy, Debug)]
pub struct FrameMotion {
    pub velocity: Vec3,
    pub angular_velocity: Vec3,
    pub acceleration: Vec3,
    pub angular_acceleration: Vec3,
}

/// The momenta `p, h` of the frame rows of `M_f ν` (body axes, h about the origin).
fn frame_momenta(inv: &ModalInvariants, s: &ModalState, v: &Vec3, w: &Vec3) -> (Vec3, Vec3) {
    let mut p = v * inv.mass + w.cross(&s.first_moment);
    let mut h = s.first_moment.cross(v) + s.inertia * w;
    for (l, ed) in s.eta_d.iter().enumerate() {
        p += vec3(inv.first_moment_modal[l]) * *ed;
        h += s.coupling[l] * *ed;
    }
    (p, h)
}

/// The body's inertial force `F` and moment `N` about its origin (body axes), gravity
/// included through `motion.acceleration`, and writes the modal forces — inertial, elastic
/// and damping — into `q` (one per mode).
pub fn inertial_forces(
    body: &FlexibleBody,
    s: &ModalState,
    motion: &FrameMotion,
    q: &mut [f64],
) -> (Vec3, Vec3) {
    let inv = &body.invariants;
    let n = s.eta.len();
    let (v, w) = (motion.velocity, motion.angular_velocity);
    let (a, al) = (motion.acceleration, motion.angular_acceleration);
    let (ed, edd) = (&s.eta_d, &s.eta_dd);
    let (p, h) = frame_momenta(inv, s, &v, &w);
    let mut gv = a * inv.mass + al.cross(&s.first_moment);
    let mut gw = s.first_moment.cross(&a) + s.inertia * al;
    for l in 0..n {
        let c = vec3(inv.first_moment_modal[l]);
        let cr = s.coupling[l];
        gv += c * edd[l] + w.cross(&c) * ed[l];
        gw += cr * edd[l] + (c.cross(&v) + s.inertia_rate[l] * w) * ed[l];
    }
    for l in 0..n {
        let c = vec3(inv.first_moment_modal[l]);
        let cr = s.coupling[l];
        // G_η,l and ∂T/∂η_l.
        let mut g = c.dot(&a) + cr.dot(&al);
        let mut dt = v.dot(&w.cross(&c)) + 0.5 * w.dot(&(s.inertia_rate[l] * w));
        for k in 0..n {
            g += inv.modal_mass[l * n + k] * edd[k];
            let kl = vec3(inv.rotation_coupling_modal[k * n + l]);
            g += ed[k] * kl.dot(&w);
            gw += kl * (ed[k] * ed[l]);
            dt += w.dot(&vec3(inv.rotation_coupling_modal[l * n + k])) * ed[k];
        }
        q[l] = g - dt + body.stiffness[l] * s.eta[l] + body.damping[l] * ed[l];
    }
    (gv + w.cross(&p), gw + w.cross(&h) + v.cross(&p))
}

/// Kinetic energy `½ νᵀ M_f ν` [J] at the frame velocity `v` and angular velocity `w`
/// (body axes).
pub fn kinetic_energy(inv: &ModalInvariants, s: &ModalState, v: &Vec3, w: &Vec3) -> f64 {
    let (p, h) = frame_momenta(inv, s, v, w);
    let n = s.eta.len();
    // η̇·π with π = C_tᵀ v + C_rᵀ ω + M_ηη η̇, the modal rows of M_f ν.
    let modal: f64 = (0..n)
        .map(|l| {
            let pi = vec3(inv.first_moment_modal[l]).dot(v)
                + s.coupling[l].dot(w)
                + (0..n)
                    .map(|k| inv.modal_mass[l * n + k] * s.eta_d[k])
                    .sum::<f64>();
            s.eta_d[l] * pi
        })
        .sum();
    0.5 * (v.dot(&p) + w.dot(&h) + modal)
}

/// Strain energy `½ Σ ω_k² η_k²` [J].
pub fn elastic_energy(body: &FlexibleBody, s: &ModalState) -> f64 {
    0.5 * body
        .stiffness
        .iter()
        .zip(&s.eta)
        .map(|(k, e)| k * e * e)
        .sum::<f64>()
}

/// Power dissipated by the modal damping `Σ d_k η̇_k²` [W].
pub fn damping_power(body: &FlexibleBody, s: &ModalState) -> f64 {
    body.damping
        .iter()
        .zip(&s.eta_d)
        .map(|(d, e)| d * e * e)
        .sum()
}

/// The node's translation `Ψ_R η` and rotation vector `Ψ_θ η` (body axes).
pub fn node_deformation(node: &InterfaceNode, eta: &[f64]) -> (Vec3, Vec3) {
    let (mut u, mut th) = (Vec3::zeros(), Vec3::zeros());
    for (k, e) in eta.iter().enumerate() {
        u += vec3(node.translation[k]) * *e;
        th += vec3(node.rotation[k]) * *e;
    }
    (u, th)
}

/// `sin t/t`, `(1 − cos t)/t²` and `(t − sin t)/t³` of `t = |θ|`, and the latter two's
/// derivatives over t; by their series below t = 0.1, where the closed forms cancel.
fn rotation_factors(th: &Vec3) -> [f64; 5] {
    let t2 = th.norm_squared();
    if t2 < 1e-2 {
        let t4 = t2 * t2;
        [
            1.0 - t2 / 6.0 + t4 / 120.0 - t4 * t2 / 5040.0,
            0.5 - t2 / 24.0 + t4 / 720.0 - t4 * t2 / 40320.0,
            1.0 / 6.0 - t2 / 120.0 + t4 / 5040.0 - t4 * t2 / 362880.0,
            -1.0 / 12.0 + t2 / 180.0 - t4 / 6720.0,
            -1.0 / 60.0 + t2 / 1260.0 - t4 / 60480.0,
        ]
    } else {
        let t = t2.sqrt();
        let (s, c) = crate::math::sin_cos(t);
        let t4 = t2 * t2;
        [
            s / t,
            (1.0 - c) / t2,
            (t - s) / (t2 * t),
            (t * s - 2.0 * (1.0 - c)) / t4,
            (3.0 * s - t * c - 2.0 * t) / (t4 * t),
        ]
    }
}

/// The rotation `Exp(θ)` of a rotation vector.
pub fn exp_rotation(th: &Vec3) -> Mat3 {
    let [a, b, ..] = rotation_factors(th);
    let x = th.cross_matrix();
    Mat3::identity() + x * a + x * x * b
}

/// A node's turn θ, turning at θ̇: `Exp(θ)`, the left Jacobian of SO(3) `J_l(θ)`
/// (`d/dt Exp(θ) = [J_l(θ) θ̇]× Exp(θ)`) and its rate `d/dt J_l` along θ̇ — the three the
/// kinematics needs per node and evaluation, from one evaluation of the rotation factors.
pub struct NodeTurn {
    pub rotation: Mat3,
    pub jacobian: Mat3,
    pub jacobian_rate: Mat3,
}

impl NodeTurn {
    pub fn new(th: &Vec3, th_dot: &Vec3) -> NodeTurn {
        let [a, b, c, db, dc] = rotation_factors(th);
        // The products of skew matrices in closed form, `[u]×[v]× = v uᵀ − (u·v) 1`: the
        // outer products cost a third of the 3×3 products (four nodes per evaluation).
        let (x, xd) = (th.cross_matrix(), th_dot.cross_matrix());
        let along = th.dot(th_dot);
        let xx = th * th.transpose() - Mat3::from_diagonal_element(th.norm_squared());
        let sym = th * th_dot.transpose() + th_dot * th.transpose()
            - Mat3::from_diagonal_element(2.0 * along);
        NodeTurn {
            rotation: Mat3::identity() + x * a + xx * b,
            jacobian: Mat3::identity() + x * b + xx * c,
            jacobian_rate: x * (db * along) + xd * b + xx * (dc * along) + sym * c,
        }
    }
}

/// The Z-twist column of η̇_k at a node at world point `x`, and its rate: the node moves by
/// `u_k = R Ψ_R,k` and turns by `a_k = R J_l(θ) Ψ_θ,k` per unit η̇_k (R the frame's rotation,
/// ω its angular velocity, ẋ the node's velocity, θ̇ = Ψ_θ η̇). `rj = R J_l` and
/// `rj_dot = R d/dt J_l` are the node's, shared by its modes.
#[allow(clippy::too_many_arguments)]
pub fn node_column(
    r: &Mat3,
    w: &Vec3,
    rj: &Mat3,
    rj_dot: &Mat3,
    psi_r: &Vec3,
    psi_th: &Vec3,
    x: &Vec3,
    x_dot: &Vec3,
) -> (Vec6, Vec6) {
    let u = r * psi_r;
    let a = rj * psi_th;
    let u_dot = w.cross(&u);
    let a_dot = w.cross(&a) + rj_dot * psi_th;
    (
        join(u - a.cross(x), a),
        join(u_dot - a_dot.cross(x) - a.cross(x_dot), a_dot),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Exp`, `J_l` and `d/dt J_l` against nalgebra's rotation and central differences, on
    /// both sides of the series/closed-form switch at |θ| = 0.1.
    #[test]
    fn node_turn_matches_the_rotation_and_its_derivatives() {
        let th_dot = Vec3::new(0.7, -1.3, 0.4);
        for th in [Vec3::new(0.03, -0.02, 0.05), Vec3::new(0.6, 0.2, -0.9)] {
            let turn = NodeTurn::new(&th, &th_dot);
            let exact = nalgebra::Rotation3::new(th).into_inner();
            assert!((turn.rotation - exact).norm() < 1e-14, "{th}");
            let h = 1e-6;
            let at = |t: f64| NodeTurn::new(&(th + th_dot * t), &th_dot);
            let (after, before) = (at(h), at(-h));
            // d/dt Exp(θ) = [J_l θ̇]× Exp(θ).
            let rate = (after.rotation - before.rotation) / (2.0 * h);
            let spin = (turn.jacobian * th_dot).cross_matrix() * turn.rotation;
            assert!(
                (rate - spin).norm() < 1e-8,
                "{th}: {}",
                (rate - spin).norm()
            );
            let jacobian_rate = (after.jacobian - before.jacobian) / (2.0 * h);
            let err = (jacobian_rate - turn.jacobian_rate).norm();
            assert!(err < 1e-8, "{th}: {err}");
        }
    }
}
