//! The sparse path of the reduction, for FE models too large for dense matrices (a solid
//! mesh of a boom: 20,000 DOFs and more). The stiffness of the internal DOFs is factorised
//! once by faer's sparse Cholesky (with its fill-reducing ordering): the constraint modes
//! are its solves, and the fixed-interface modes come from subspace iteration (Bathe &
//! Wilson 1972) with a Rayleigh–Ritz step on the small dense problem. Everything else is a
//! product of the sparse matrices with a few dense columns, so the reduced body and its
//! invariants are those of the dense path.
//!
//! faer rather than hand-written code: a sparse Cholesky with a good ordering is the bulk
//! of the work and the part easiest to get slow or wrong; faer is already the solver's
//! ordering crate.

use super::matrix_market::Triplets;
use super::modal::{eigenpairs, hertz};
use super::reduction::{self, Reduced};
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::solvers::Llt;
use faer::sparse::{SparseColMat, Triplet};
use faer::{MatMut, Side};
use nalgebra::DMatrix;

/// A square sparse matrix (compressed columns).
#[derive(Clone, Debug)]
pub struct Sparse(SparseColMat<usize, f64>);

impl Sparse {
    /// From triplets (duplicates summed).
    pub fn from_triplets(t: &Triplets) -> Result<Sparse, String> {
        let entries: Vec<Triplet<usize, usize, f64>> = (t.entries.iter())
            .map(|&(i, j, v)| Triplet::new(i, j, v))
            .collect();
        SparseColMat::try_new_from_triplets(t.size, t.size, &entries)
            .map(Sparse)
            .map_err(|e| format!("the matrix cannot be stored: {e:?}"))
    }

    /// The non-zero entries of a dense matrix.
    pub fn from_dense(a: &DMatrix<f64>) -> Sparse {
        let t = Triplets::from_dense(a);
        Sparse::from_triplets(&t).unwrap_or_else(|_| unreachable!("indices within the size"))
    }

    pub fn size(&self) -> usize {
        self.0.nrows()
    }

    /// Every stored entry (row, column, value).
    pub fn entries(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        let a = self.0.as_ref();
        (0..a.ncols()).flat_map(move |j| {
            (a.row_idx_of_col(j))
                .zip(a.val_of_col(j))
                .map(move |(i, &v)| (i, j, v))
        })
    }

    /// `A X` for a few dense columns X.
    pub fn apply(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let a = self.0.as_ref();
        let mut y = DMatrix::zeros(a.nrows(), x.ncols());
        for c in 0..x.ncols() {
            for j in 0..a.ncols() {
                let xj = x[(j, c)];
                if xj != 0.0 {
                    for (i, &v) in a.row_idx_of_col(j).zip(a.val_of_col(j)) {
                        y[(i, c)] += v * xj;
                    }
                }
            }
        }
        y
    }

    /// The submatrix of `rows` × `cols` (indices into this matrix), as a sparse matrix
    /// of `rows.len()` rows and `cols.len()` columns.
    fn pick_entries(&self, rows: &[usize], cols: &[usize]) -> Vec<(usize, usize, f64)> {
        let index = |set: &[usize]| {
            let mut at = vec![usize::MAX; self.size()];
            for (k, &d) in set.iter().enumerate() {
                at[d] = k;
            }
            at
        };
        let (r, c) = (index(rows), index(cols));
        (self.entries())
            .filter(|&(i, j, _)| r[i] != usize::MAX && c[j] != usize::MAX)
            .map(|(i, j, v)| (r[i], c[j], v))
            .collect()
    }

    /// The square submatrix on `dofs`.
    pub fn restrict(&self, dofs: &[usize]) -> Sparse {
        let t = Triplets {
            size: dofs.len(),
            entries: self.pick_entries(dofs, dofs),
        };
        Sparse::from_triplets(&t).unwrap_or_else(|_| unreachable!("indices within the size"))
    }

    /// The `rows` × `cols` block as a dense matrix (a few columns).
    pub fn dense_block(&self, rows: &[usize], cols: &[usize]) -> DMatrix<f64> {
        let mut a = DMatrix::zeros(rows.len(), cols.len());
        for (i, j, v) in self.pick_entries(rows, cols) {
            a[(i, j)] += v;
        }
        a
    }

    /// `self + s other` (same size).
    fn plus(&self, s: f64, other: &Sparse) -> Sparse {
        let entries = (self.entries())
            .chain(other.entries().map(|(i, j, v)| (i, j, s * v)))
            .collect();
        let t = Triplets {
            size: self.size(),
            entries,
        };
        Sparse::from_triplets(&t).unwrap_or_else(|_| unreachable!("indices within the size"))
    }

    /// Largest |A − Aᵀ| and largest |A|.
    pub fn asymmetry(&self) -> (f64, f64) {
        let a = self.0.as_ref();
        let mut asym: f64 = 0.0;
        let mut largest: f64 = 0.0;
        for (i, j, v) in self.entries() {
            largest = largest.max(v.abs());
            let mirror = (a.row_idx_of_col(i).zip(a.val_of_col(i)))
                .filter(|&(r, _)| r == j)
                .map(|(_, &w)| w)
                .sum::<f64>();
            asym = asym.max((v - mirror).abs());
        }
        (asym, largest)
    }

    /// The Cholesky factor, `None` if the matrix is not positive definite.
    pub fn cholesky(&self) -> Option<Factor> {
        self.0.sp_cholesky(Side::Lower).ok().map(Factor)
    }
}

/// A sparse Cholesky factorisation.
pub struct Factor(Llt<usize, f64>);

impl Factor {
    /// Overwrites the columns of `b` with `A⁻¹ b`.
    pub fn solve(&self, b: &mut DMatrix<f64>) {
        let (n, c) = b.shape();
        self.0
            .solve_in_place(MatMut::from_column_major_slice_mut(b.as_mut_slice(), n, c));
    }
}

/// The `count` lowest eigenpairs of K x = λ M x, ascending, mass-normalised, by subspace
/// iteration on `K + σM` (factorised as `factor`; σ > 0 for a free body, whose K is
/// singular). Converged when every wanted λ changes by less than 1e-12 relative.
pub fn lowest_modes(
    factor: &Factor,
    shift: f64,
    mass: &Sparse,
    count: usize,
) -> Result<(Vec<f64>, DMatrix<f64>), String> {
    let n = mass.size();
    let q = (2 * count).max(count + 8).min(n);
    // Start: the mass's diagonal, then deterministic pseudo-random columns (a fixed LCG:
    // the same modes, to the bit, on every run and platform).
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let diagonal = mass.apply(&DMatrix::from_element(n, 1, 1.0));
    let mut x = DMatrix::from_fn(n, q, |i, c| if c == 0 { diagonal[i] } else { 0.0 });
    for c in 1..q {
        for i in 0..n {
            x[(i, c)] = next();
        }
    }
    let mut previous = vec![f64::INFINITY; count];
    for _ in 0..500 {
        let y = mass.apply(&x);
        let mut xb = y.clone();
        factor.solve(&mut xb);
        // Rayleigh–Ritz: (K + σM) X̄ = Y, so X̄ᵀ (K + σM) X̄ = X̄ᵀ Y.
        let kr = xb.transpose() * &y;
        let mr = xb.transpose() * mass.apply(&xb);
        let sym = |a: DMatrix<f64>| (&a + a.transpose()) * 0.5;
        let (mu, vectors) = eigenpairs(&sym(kr), &sym(mr), "subspace")?;
        x = xb * vectors;
        let lambda: Vec<f64> = mu.iter().map(|m| m - shift).collect();
        let scale = mu[count - 1].abs().max(1e-300);
        let converged = (lambda.iter().zip(&previous))
            .take(count)
            .all(|(l, p)| (l - p).abs() <= 1e-12 * scale);
        previous.copy_from_slice(&lambda[..count]);
        if converged {
            return Ok((lambda[..count].to_vec(), x.columns(0, count).into_owned()));
        }
    }
    Err(format!(
        "the {count} lowest modes (shift {shift:.3e}) did not converge in 500 subspace iterations"
    ))
}

/// [`super::reduction::craig_bampton`] on sparse matrices.
pub fn craig_bampton(
    mass: &Sparse,
    stiffness: &Sparse,
    interface: &[usize],
    normal_modes: usize,
    keep: usize,
) -> Result<Reduced, String> {
    let n = mass.size();
    let internal = reduction::internal_dofs(n, interface, normal_modes)?;
    let (b, i) = (interface, &internal[..]);
    let factor = stiffness.restrict(i).cholesky().ok_or(
        "the stiffness of the internal DOFs is singular: the interface nodes do not hold the body",
    )?;
    let mut psi = stiffness.dense_block(i, b);
    factor.solve(&mut psi);
    psi *= -1.0;
    let (lambda, phi) = lowest_modes(&factor, 0.0, &mass.restrict(i), normal_modes)?;
    let t = reduction::basis(n, b, i, &psi, &phi, normal_modes);
    let m_r = t.transpose() * mass.apply(&t);
    let k_r = t.transpose() * stiffness.apply(&t);
    let sym = |a: DMatrix<f64>| (&a + a.transpose()) * 0.5;
    let (omega2, q) = eigenpairs(&sym(k_r), &sym(m_r), "reduced")?;
    reduction::keep_elastic(&t, &omega2, &q, keep, &lambda[..normal_modes])
}

/// The lowest `count` frequencies [Hz] of the free model with the DOFs `held` held (rigid
/// motions first, at about 0 Hz): subspace iteration on K + σM, σ a tenth of `scale` (an ω²
/// of about the lowest elastic modes: σ far below them keeps the iteration's ratios
/// (λ_k + σ)/(λ_q + σ) small, σ > 0 makes the free body's K + σM definite).
pub fn frequencies(
    mass: &Sparse,
    stiffness: &Sparse,
    held: &[usize],
    count: usize,
    scale: f64,
) -> Result<Vec<f64>, String> {
    let n = mass.size();
    let mut is_held = vec![false; n];
    for &d in held {
        is_held[d] = true;
    }
    let free: Vec<usize> = (0..n).filter(|&d| !is_held[d]).collect();
    let (m, k) = (mass.restrict(&free), stiffness.restrict(&free));
    let shift = 0.1 * scale.max(1e-300);
    let factor = k
        .plus(shift, &m)
        .cholesky()
        .ok_or("the stiffness is not positive semi-definite")?;
    let (omega2, _) = lowest_modes(&factor, shift, &m, count.min(free.len()))?;
    Ok(omega2.into_iter().map(hertz).collect())
}
