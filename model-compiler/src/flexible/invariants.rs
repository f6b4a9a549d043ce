//! The floating-frame inertia invariants of a reduced FE model (see
//! [`fmu_runtime::model::ModalInvariants`] for what they mean and how the runtime uses them).
//!
//! The FE DOFs come 3 per node (translations) or 6 (translations, then the rotation
//! vector), as [`NodeDofs`] says. With `Φ_t` the rigid translations, `Θ_a = Θ_I + Θ_×(X0)` the rigid
//! rotation about the body origin (every translational block `−[x_i]×`, every rotational
//! block the identity) and `Θ_k = Θ_×(φ_k)` the rotation of mode k's DOF vector (every block
//! `−[φ_k,i]×`):
//!
//! ```text
//! m 1 = Φ_tᵀ M Φ_t     S0 = Φ_tᵀ M X0     C_t = Φ_tᵀ M Φ      M_ηη = Φᵀ M Φ
//! J0 = Θ_aᵀ M Θ_a      J1_k = Θ_aᵀ M Θ_k + Θ_kᵀ M Θ_a        J2_kl = Θ_kᵀ M Θ_l
//! C_r0 = Θ_aᵀ M Φ      C_rk = Θ_kᵀ M Φ
//! ```
//!
//! Dense products of M with a few columns; a sparse M (large FE models) gives the same
//! invariants through the same products.

use super::dofs::NodeDofs;
use super::matrix::FeMatrix;
use fmu_runtime::mechanics::spatial::inertia_array;
use fmu_runtime::model::ModalInvariants;
use nalgebra::{DMatrix, Matrix3, Vector3};

/// Every node's translation block and rotation block (6-DOF nodes): (node, first DOF,
/// whether translations).
fn blocks(dofs: &NodeDofs) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
    (0..dofs.nodes()).flat_map(move |i| {
        let t = std::iter::once((i, dofs.start(i), true));
        let r = dofs.rotations(i).map(|r| (i, r, false));
        t.chain(r)
    })
}

fn skew_rows(out: &mut DMatrix<f64>, row: usize, v: &Vector3<f64>) {
    // −[v]× so that (−[v]×) ω = ω × v.
    let m = -v.cross_matrix();
    for r in 0..3 {
        for c in 0..3 {
            out[(row + r, c)] += m[(r, c)];
        }
    }
}

fn m3(a: &DMatrix<f64>) -> Matrix3<f64> {
    Matrix3::from_fn(|r, c| a[(r, c)])
}

/// The invariants of an FE model with mass matrix `mass`, node positions `positions`
/// (body axes, m) and mass-normalised modes as the columns of `modes`.
pub fn invariants(
    mass: &impl FeMatrix,
    positions: &[[f64; 3]],
    dofs: &NodeDofs,
    modes: &DMatrix<f64>,
) -> Result<ModalInvariants, String> {
    let (ndof, n) = (mass.size(), modes.ncols());
    if ndof != dofs.total() || positions.len() != dofs.nodes() || modes.nrows() != ndof {
        return Err(format!(
            "{ndof} DOFs, {} nodes of {} DOFs and modes of {} rows do not agree",
            positions.len(),
            dofs.total(),
            modes.nrows()
        ));
    }
    let mut phi_t = DMatrix::zeros(ndof, 3);
    let mut theta_a = DMatrix::zeros(ndof, 3);
    let mut x0 = DMatrix::zeros(ndof, 1);
    for (node, start, translation) in blocks(dofs) {
        for d in 0..3 {
            if translation {
                phi_t[(start + d, d)] = 1.0;
                x0[(start + d, 0)] = positions[node][d];
            } else {
                theta_a[(start + d, d)] = 1.0;
            }
        }
        if translation {
            skew_rows(&mut theta_a, start, &Vector3::from(positions[node]));
        }
    }
    let theta: Vec<DMatrix<f64>> = (0..n)
        .map(|k| {
            let mut t = DMatrix::zeros(ndof, 3);
            for (_, start, _) in blocks(dofs) {
                let v = Vector3::new(
                    modes[(start, k)],
                    modes[(start + 1, k)],
                    modes[(start + 2, k)],
                );
                skew_rows(&mut t, start, &v);
            }
            t
        })
        .collect();
    let (m_phi, m_theta_a) = (mass.apply(modes), mass.apply(&theta_a));
    let m_theta: Vec<DMatrix<f64>> = theta.iter().map(|t| mass.apply(t)).collect();

    let translation = m3(&(phi_t.transpose() * mass.apply(&phi_t)));
    let m = translation.trace() / 3.0;
    if m.is_nan() || m <= 0.0 || (translation - Matrix3::identity() * m).norm() > 1e-9 * m {
        return Err(format!(
            "the mass matrix does not translate the body rigidly: Φ_tᵀ M Φ_t = {translation} (a mass matrix for other DOFs per node?)"
        ));
    }
    let s0 = phi_t.transpose() * mass.apply(&x0);
    let s0 = Vector3::new(s0[0], s0[1], s0[2]);
    // The rigid rotation must carry the first moment: Φ_tᵀ M Θ_a = −[S0]×.
    let coupling = m3(&(phi_t.transpose() * &m_theta_a));
    let scale = s0.norm().max(m * 1e-3);
    if (coupling + s0.cross_matrix()).norm() > 1e-6 * scale {
        return Err(format!(
            "the mass matrix does not rotate the body rigidly about its origin (Φ_tᵀ M Θ = {coupling}, −[S]× expected from S = {s0}): check the node coordinates and the DOFs per node"
        ));
    }
    let c_t = phi_t.transpose() * &m_phi;
    let c_r0 = theta_a.transpose() * &m_phi;
    let mut inv = ModalInvariants {
        mass: m,
        first_moment: s0.into(),
        first_moment_modal: (0..n)
            .map(|k| [c_t[(0, k)], c_t[(1, k)], c_t[(2, k)]])
            .collect(),
        inertia: inertia_array(&m3(&(theta_a.transpose() * &m_theta_a))),
        inertia_modal: Vec::with_capacity(n),
        inertia_modal2: Vec::with_capacity(n * n),
        rotation_coupling: (0..n)
            .map(|k| [c_r0[(0, k)], c_r0[(1, k)], c_r0[(2, k)]])
            .collect(),
        rotation_coupling_modal: Vec::with_capacity(n * n),
        modal_mass: (modes.transpose() * &m_phi)
            .transpose()
            .iter()
            .copied()
            .collect(),
    };
    for k in 0..n {
        let j1 = m3(&(theta_a.transpose() * &m_theta[k] + theta[k].transpose() * &m_theta_a));
        inv.inertia_modal.push(inertia_array(&j1));
        let c_rk = theta[k].transpose() * &m_phi;
        for l in 0..n {
            let j2 = m3(&(theta[k].transpose() * &m_theta[l]));
            // Row-major 3×3.
            inv.inertia_modal2
                .push(std::array::from_fn(|i| j2[(i / 3, i % 3)]));
            inv.rotation_coupling_modal
                .push([c_rk[(0, l)], c_rk[(1, l)], c_rk[(2, l)]]);
        }
    }
    Ok(inv)
}
