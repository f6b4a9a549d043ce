//! Flexible bodies in the floating frame of reference (seed 000, Pub I §13.2; issue 22):
//! what the compiler keeps of a reduced FE model — the inertia invariants, the modal
//! stiffness and damping, and the interface nodes' mode shapes — so that the runtime never
//! touches the FE size.
//!
//! The body frame is the floating frame; the body's tree joint holds it at the reference
//! node, where every mode is zero (the modes are clamped there: Craig–Bampton with the
//! reference node fixed). The deformation is `u = Φ η` with `n` mass-normalised modes η.
//! With the frame's velocity `v` and angular velocity `ω` in body axes, every FE DOF moves
//! with `w = Φ_t v + Θ(η) ω + Φ η̇` (Φ_t: rigid translations; Θ: rigid rotation of the
//! deformed DOF vector `X0 + Φ η`), and the kinetic energy is `T = ½ wᵀ M w`, which the
//! invariants below give exactly in the small numbers
//!
//! ```text
//!        | m 1        −S̃(η)     C_t    |
//! M_f =  | S̃(η)       J(η)      C_r(η) |     S(η) = S0 + C_t η
//!        | C_tᵀ       C_r(η)ᵀ   M_ηη   |     J(η) = J0 + Σ η_k J1_k + Σ η_k η_l J2_kl
//!                                             C_r(η) = C_r0 + Σ η_k C_rk
//! ```
//!
//! One choice departs from `ΘᵀMΦ_t` literally: the translation–rotation block is taken as
//! the skew matrix of the first moment S(η) (exact for the rigid part, and for the modal
//! part up to the rotational DOFs' share of a consistent mass), so that gravity is the
//! potential `−g·(m o + R S(η))` and a body in free fall does not deform.

use serde::{Deserialize, Serialize};

/// The inertia invariants of a reduced body (body axes, about the body origin).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModalInvariants {
    /// Total mass m [kg].
    pub mass: f64,
    /// First moment of the undeformed body S0 = ∫ρ x dV [kg·m].
    pub first_moment: [f64; 3],
    /// Column k of C_t: the first moment per unit η_k [√kg].
    pub first_moment_modal: Vec<[f64; 3]>,
    /// J0: the rotational inertia about the body origin, `[xx, yy, zz, xy, xz, yz]` [kg·m²].
    pub inertia: [f64; 6],
    /// J1_k, symmetric, same layout.
    pub inertia_modal: Vec<[f64; 6]>,
    /// J2_kl at `k·n + l`, a row-major 3×3 (only `J2_kl + J2_lk` matters).
    pub inertia_modal2: Vec<[f64; 9]>,
    /// Column l of C_r0: the angular momentum about the origin per unit η̇_l.
    pub rotation_coupling: Vec<[f64; 3]>,
    /// Column l of C_rk = ∂C_r/∂η_k, at `k·n + l`.
    pub rotation_coupling_modal: Vec<[f64; 3]>,
    /// M_ηη, n×n row-major (the identity for mass-normalised modes).
    pub modal_mass: Vec<f64>,
}

impl ModalInvariants {
    pub fn modes(&self) -> usize {
        self.first_moment_modal.len()
    }

    /// The sizes agree with `n` modes and every number is finite.
    pub fn check(&self) -> Result<(), String> {
        let n = self.modes();
        let sizes = [
            (self.inertia_modal.len(), n, "J1"),
            (self.inertia_modal2.len(), n * n, "J2"),
            (self.rotation_coupling.len(), n, "C_r0"),
            (self.rotation_coupling_modal.len(), n * n, "C_rk"),
            (self.modal_mass.len(), n * n, "M_ηη"),
        ];
        if let Some((got, want, what)) = sizes.iter().find(|(g, w, _)| g != w) {
            return Err(format!(
                "{what} has {got} entries, {want} expected for {n} modes"
            ));
        }
        let finite = std::iter::once(self.mass)
            .chain(self.first_moment)
            .chain(self.inertia)
            .chain(self.first_moment_modal.iter().flatten().copied())
            .chain(self.inertia_modal.iter().flatten().copied())
            .chain(self.inertia_modal2.iter().flatten().copied())
            .chain(self.rotation_coupling.iter().flatten().copied())
            .chain(self.rotation_coupling_modal.iter().flatten().copied())
            .chain(self.modal_mass.iter().copied())
            .all(f64::is_finite);
        if !finite || self.mass <= 0.0 {
            return Err("the invariants hold a non-finite number or a non-positive mass".into());
        }
        Ok(())
    }
}

/// An interface node: where joints, cylinder eyes and markers sit on a flexible body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InterfaceNode {
    pub name: String,
    /// Undeformed position in body axes [m].
    pub position: [f64; 3],
    /// Ψ_R: the node's translation per unit η_k, body axes (one entry per mode).
    pub translation: Vec<[f64; 3]>,
    /// Ψ_θ: the node's rotation (small rotation vector) per unit η_k.
    pub rotation: Vec<[f64; 3]>,
}

/// A flexible body: body `body` of the mechanism carries `n` modal coordinates, which come
/// after every joint coordinate in z, in the order of [`super::Mechanism::flexible`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlexibleBody {
    pub body: usize,
    pub invariants: ModalInvariants,
    /// ω_k² [1/s²]: the modal stiffness (diagonal for orthonormalised modes).
    pub stiffness: Vec<f64>,
    /// Modal damping coefficients d_k [1/s]: the force `d_k η̇_k` (2 ζ_k ω_k, or α + β ω_k²).
    pub damping: Vec<f64>,
    pub nodes: Vec<InterfaceNode>,
}

impl FlexibleBody {
    pub fn modes(&self) -> usize {
        self.invariants.modes()
    }

    /// Damping ratio ζ_k = d_k / 2ω_k of mode k (reports).
    pub fn damping_ratio(&self, k: usize) -> f64 {
        self.damping[k] / (2.0 * self.stiffness[k].sqrt()).max(1e-300)
    }

    /// Structural checks of a (possibly hand-made or corrupted) model file.
    pub fn check(&self) -> Result<(), String> {
        let n = self.modes();
        self.invariants.check()?;
        if self.stiffness.len() != n || self.damping.len() != n {
            return Err(format!("stiffness and damping need {n} entries each"));
        }
        if !self
            .stiffness
            .iter()
            .chain(&self.damping)
            .all(|v| v.is_finite() && *v >= 0.0)
        {
            return Err("modal stiffness and damping must be finite and non-negative".into());
        }
        for node in &self.nodes {
            if node.translation.len() != n || node.rotation.len() != n {
                return Err(format!("node {} needs {n} mode shapes", node.name));
            }
            let finite = node
                .position
                .iter()
                .chain(node.translation.iter().flatten())
                .chain(node.rotation.iter().flatten())
                .all(|v| v.is_finite());
            if !finite {
                return Err(format!("node {} holds a non-finite number", node.name));
            }
        }
        Ok(())
    }
}
