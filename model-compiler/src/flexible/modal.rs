//! Modal analysis of an FE model: the generalized symmetric eigenproblem K φ = ω² M φ on the
//! free DOFs, by Cholesky of M (M = L Lᵀ) and the symmetric eigenproblem of
//! L⁻¹ K L⁻ᵀ. Dense: the compiler's beam meshes have tens of nodes; the Craig–Bampton
//! reduction of large FE models comes with its own sparse path.

use nalgebra::{DMatrix, DVector};

/// The free DOFs: every DOF not in `fixed`.
fn free_dofs(n: usize, fixed: &[usize]) -> Vec<usize> {
    (0..n).filter(|d| !fixed.contains(d)).collect()
}

fn restrict(a: &DMatrix<f64>, dofs: &[usize]) -> DMatrix<f64> {
    DMatrix::from_fn(dofs.len(), dofs.len(), |i, j| a[(dofs[i], dofs[j])])
}

/// Natural frequencies [Hz] of (M, K) with the DOFs `fixed` held, ascending. `Err` when
/// M is not positive definite on the free DOFs.
pub fn frequencies(
    mass: &DMatrix<f64>,
    stiffness: &DMatrix<f64>,
    fixed: &[usize],
) -> Result<Vec<f64>, String> {
    let dofs = free_dofs(mass.nrows(), fixed);
    let (m, k) = (restrict(mass, &dofs), restrict(stiffness, &dofs));
    let l = m
        .cholesky()
        .ok_or("the mass matrix is not positive definite on the free DOFs")?
        .l();
    let li = l
        .clone()
        .try_inverse()
        .ok_or("the mass matrix's Cholesky factor is singular")?;
    let a = &li * k * li.transpose();
    let a = (&a + a.transpose()) * 0.5;
    let mut omega2: Vec<f64> = a.symmetric_eigenvalues().iter().copied().collect();
    omega2.sort_by(f64::total_cmp);
    let two_pi = 2.0 * std::f64::consts::PI;
    Ok(omega2
        .into_iter()
        .map(|w2| w2.max(0.0).sqrt() / two_pi)
        .collect())
}

/// The static displacement under the load `f` with the DOFs `fixed` held (zero there).
pub fn static_displacement(
    stiffness: &DMatrix<f64>,
    f: &DVector<f64>,
    fixed: &[usize],
) -> Result<DVector<f64>, String> {
    let dofs = free_dofs(stiffness.nrows(), fixed);
    let k = restrict(stiffness, &dofs);
    let rhs = DVector::from_fn(dofs.len(), |i, _| f[dofs[i]]);
    let u = k
        .cholesky()
        .ok_or("the stiffness matrix is singular on the free DOFs (the body is not held)")?
        .solve(&rhs);
    let mut out = DVector::zeros(stiffness.nrows());
    for (i, &d) in dofs.iter().enumerate() {
        out[d] = u[i];
    }
    Ok(out)
}
