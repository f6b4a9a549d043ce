//! Craig–Bampton (Hurty) reduction of an FE model at its interface DOFs, then
//! orthonormalisation through the reduced eigenproblem with the rigid-body content removed
//! (issue 22, "Reduction in the compiler"): what the floating frame of reference needs —
//! elastic modes that are mass-orthonormal and orthogonal to the rigid-body motions, and
//! that reproduce the interface nodes' static deflections.
//!
//! With the interface DOFs B and the internal DOFs I:
//!
//! ```text
//! Ψ = −K_II⁻¹ K_IB          static constraint modes (a unit motion of one interface DOF)
//! Φ_k = lowest k of (K_II, M_II)   fixed-interface normal modes
//! T = [ I  0 ; Ψ  Φ_k ]      x = T q,  M_r = Tᵀ M T,  K_r = Tᵀ K T
//! ```
//!
//! The free-free eigenproblem of (K_r, M_r) then gives the body's modes in the Craig–Bampton
//! space: the six with (numerically) zero frequency are its rigid-body motions and are
//! dropped, the next ones are the elastic modes kept. Dense here (beams, small FE models);
//! the same steps on sparse matrices in [`super::sparse`].

use super::modal::{eigenpairs as eigen, hertz, pick};
use nalgebra::DMatrix;

/// The reduced body: its elastic modes in the full FE DOFs (columns, mass-normalised) and
/// their free-free frequencies [Hz]; the fixed-interface (constrained) frequencies of the
/// normal modes used, for the report.
#[derive(Clone, Debug)]
pub struct Reduced {
    pub modes: DMatrix<f64>,
    pub frequencies: Vec<f64>,
    pub constrained_frequencies: Vec<f64>,
}

/// The share of the body's mass each of the lowest `normal_modes` fixed-interface modes
/// carries in each translation direction x, y, z — its effective modal mass
/// (φᵀ M r_d)² over the total mass, r_d the rigid translation in d, under a base motion of
/// the interface (what `check` and the model's page report per mode); `dofs` says where
/// each node's translations are.
pub fn mass_shares(
    mass: &DMatrix<f64>,
    stiffness: &DMatrix<f64>,
    interface: &[usize],
    normal_modes: usize,
    dofs: &super::dofs::NodeDofs,
) -> Result<Vec<[f64; 3]>, String> {
    let n = mass.nrows();
    let internal: Vec<usize> = (0..n).filter(|d| !interface.contains(d)).collect();
    if normal_modes > internal.len() {
        return Err(format!(
            "{normal_modes} fixed-interface modes asked for, the model has {} internal DOFs",
            internal.len()
        ));
    }
    let (_, phi) = eigen(
        &pick(stiffness, &internal, &internal),
        &pick(mass, &internal, &internal),
        "internal",
    )?;
    let mut shares = vec![[0.0; 3]; normal_modes];
    for d in 0..3 {
        let r =
            nalgebra::DVector::from_fn(n, |i, _| if dofs.node_of(i).1 == d { 1.0 } else { 0.0 });
        let total = (r.transpose() * mass * &r)[(0, 0)];
        // φ lives on the internal DOFs; M r on all of them, read there.
        let mr = mass * &r;
        for (k, share) in shares.iter_mut().enumerate() {
            let l: f64 = internal
                .iter()
                .enumerate()
                .map(|(row, &dof)| phi[(row, k)] * mr[dof])
                .sum();
            share[d] = l * l / total;
        }
    }
    Ok(shares)
}

/// Reduces (M, K) at the `interface` DOFs with `normal_modes` fixed-interface modes and keeps
/// the `keep` lowest elastic free-free modes.
pub fn craig_bampton(
    mass: &DMatrix<f64>,
    stiffness: &DMatrix<f64>,
    interface: &[usize],
    normal_modes: usize,
    keep: usize,
) -> Result<Reduced, String> {
    let n = mass.nrows();
    let internal = internal_dofs(n, interface, normal_modes)?;
    let (b, i) = (interface, &internal[..]);
    let k_ii = pick(stiffness, i, i);
    let k_ib = pick(stiffness, i, b);
    let psi = -k_ii
        .clone()
        .cholesky()
        .ok_or("the stiffness of the internal DOFs is singular: the interface nodes do not hold the body")?
        .solve(&k_ib);
    let (lambda, phi) = eigen(&k_ii, &pick(mass, i, i), "internal")?;
    let t = basis(n, b, i, &psi, &phi, normal_modes);
    let m_r = t.transpose() * mass * &t;
    let k_r = t.transpose() * stiffness * &t;
    let (omega2, q) = eigen(&k_r, &m_r, "reduced")?;
    keep_elastic(&t, &omega2, &q, keep, &lambda[..normal_modes])
}

/// The internal DOFs of an `n`-DOF model (all but the `interface` ones, in order), checked
/// to be enough for `normal_modes` fixed-interface modes.
pub(super) fn internal_dofs(
    n: usize,
    interface: &[usize],
    normal_modes: usize,
) -> Result<Vec<usize>, String> {
    let mut is_boundary = vec![false; n];
    for &d in interface {
        if d >= n {
            return Err(format!("interface DOF {d} is not in the model ({n} DOFs)"));
        }
        is_boundary[d] = true;
    }
    let internal: Vec<usize> = (0..n).filter(|&d| !is_boundary[d]).collect();
    if normal_modes > internal.len() {
        return Err(format!(
            "{normal_modes} fixed-interface modes asked for, the model has {} internal DOFs",
            internal.len()
        ));
    }
    Ok(internal)
}

/// The Craig–Bampton basis `T = [I 0; Ψ Φ_k]` in the model's DOF order: the interface
/// DOFs `b` first, then the constraint modes Ψ and the first `normal_modes` fixed-interface
/// modes Φ (rows on the internal DOFs `i`).
pub(super) fn basis(
    n: usize,
    b: &[usize],
    i: &[usize],
    psi: &DMatrix<f64>,
    phi: &DMatrix<f64>,
    normal_modes: usize,
) -> DMatrix<f64> {
    let mut t = DMatrix::zeros(n, b.len() + normal_modes);
    for (c, &d) in b.iter().enumerate() {
        t[(d, c)] = 1.0;
    }
    for (r, &d) in i.iter().enumerate() {
        for c in 0..b.len() {
            t[(d, c)] = psi[(r, c)];
        }
        for c in 0..normal_modes {
            t[(d, b.len() + c)] = phi[(r, c)];
        }
    }
    t
}

/// The `keep` lowest elastic modes of the Craig–Bampton space `t` from its eigenpairs
/// (ω², q), the rigid-body ones (ω² at round-off level) dropped; `constrained` are the
/// fixed-interface eigenvalues used (ω², for the report).
pub(super) fn keep_elastic(
    t: &DMatrix<f64>,
    omega2: &[f64],
    q: &DMatrix<f64>,
    keep: usize,
    constrained: &[f64],
) -> Result<Reduced, String> {
    // Rigid-body modes: ω² at round-off level against the stiffest mode kept.
    let scale = omega2.last().copied().unwrap_or(1.0).abs().max(1e-300);
    let first_elastic = omega2
        .iter()
        .position(|w| *w > 1e-9 * scale)
        .unwrap_or(omega2.len());
    if first_elastic > 6 {
        return Err(format!(
            "the stiffness has {first_elastic} zero-energy modes; a free body has at most six (a mechanism or an unconnected part in the mesh)"
        ));
    }
    if first_elastic + keep > omega2.len() {
        return Err(format!(
            "{keep} elastic modes asked for, the reduced model has {}",
            omega2.len() - first_elastic
        ));
    }
    let modes = t * q.columns(first_elastic, keep);
    Ok(Reduced {
        modes,
        frequencies: omega2[first_elastic..first_elastic + keep]
            .iter()
            .map(|w| hertz(*w))
            .collect(),
        constrained_frequencies: constrained.iter().map(|w| hertz(*w)).collect(),
    })
}
