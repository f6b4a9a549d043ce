//! Modal analysis of an FE model: the generalized symmetric eigenproblem K φ = ω² M φ on the
//! free DOFs, by Cholesky of M (M = L Lᵀ) and the symmetric eigenproblem of
//! L⁻¹ K L⁻ᵀ. Dense: the compiler's beam meshes have tens of nodes; the Craig–Bampton
//! reduction of large FE models comes with its own sparse path.

use nalgebra::{DMatrix, DVector, SymmetricEigen};

/// The free DOFs: every DOF not in `fixed`.
fn free_dofs(n: usize, fixed: &[usize]) -> Vec<usize> {
    (0..n).filter(|d| !fixed.contains(d)).collect()
}

/// The block of `a` at `rows` × `cols`.
pub(super) fn pick(a: &DMatrix<f64>, rows: &[usize], cols: &[usize]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), cols.len(), |i, j| a[(rows[i], cols[j])])
}

fn restrict(a: &DMatrix<f64>, dofs: &[usize]) -> DMatrix<f64> {
    pick(a, dofs, dofs)
}

/// Eigenpairs of (K, M), ascending, vectors mass-normalised: M = L Lᵀ, the symmetric
/// eigenproblem of L⁻¹ K L⁻ᵀ, φ = L⁻ᵀ y. `what` names the matrices in errors.
pub fn eigenpairs(
    k: &DMatrix<f64>,
    m: &DMatrix<f64>,
    what: &str,
) -> Result<(Vec<f64>, DMatrix<f64>), String> {
    let l = m
        .clone()
        .cholesky()
        .ok_or_else(|| format!("the {what} mass matrix is not positive definite"))?
        .l();
    let li = l
        .try_inverse()
        .ok_or_else(|| format!("the {what} mass matrix is singular"))?;
    let a = &li * k * li.transpose();
    let a = (&a + a.transpose()) * 0.5;
    let e = SymmetricEigen::new(a);
    let mut order: Vec<usize> = (0..e.eigenvalues.len()).collect();
    order.sort_by(|&i, &j| e.eigenvalues[i].total_cmp(&e.eigenvalues[j]));
    let values = order.iter().map(|&i| e.eigenvalues[i]).collect();
    let vectors = li.transpose() * e.eigenvectors.select_columns(&order);
    Ok((values, vectors))
}

/// A natural frequency [Hz] of an eigenvalue ω² (round-off negatives are 0).
pub fn hertz(omega2: f64) -> f64 {
    omega2.max(0.0).sqrt() / (2.0 * std::f64::consts::PI)
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
    let (omega2, _) = eigenpairs(&k, &m, "free DOFs'")?;
    Ok(omega2.into_iter().map(hertz).collect())
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
