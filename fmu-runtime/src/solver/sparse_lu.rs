//! Sparse LU of the Newton tangent on a fixed pattern, allocation-free after set-up.
//!
//! The pattern is known when the instance is created (see [`super::sparsity`]), so the
//! ordering and the fill are computed once: a fill-reducing symmetric permutation (faer's
//! approximate minimum degree), then symbolic elimination. A pattern that changes while
//! the instance runs (the bodies of a pile touching different neighbours) is planned again
//! by [`SparseLu::replan`] into buffers made once for the dense pattern, allocating
//! nothing. The numeric factorisation uses
//! the diagonal pivots in that order, the scheme of circuit simulators' refactorisation:
//! the monolithic tangent is strongly diagonal (mass matrix plus positive hydraulic
//! stiffness in the joint rows, capacitance plus flow conductance in the pressure rows,
//! `τ·2/h + 1` in the spool rows), and rows and columns are equilibrated first as on the
//! dense path. A pivot below [`MIN_PIVOT`] fails the factorisation, and the caller falls
//! back to dense partial pivoting. faer's own numeric sparse LU is not used because it
//! allocates on every call, which the step loop must not.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::SymbolicSparseColMatRef;
use faer::sparse::linalg::amd;

/// Smallest acceptable pivot of the equilibrated matrix (entries of magnitude ≤ 1).
pub const MIN_PIVOT: f64 = 1e-12;

/// Ordering and filled pattern of one matrix (immutable after [`SparseLu::new`]).
#[derive(Clone, Debug)]
pub struct SparseLu {
    n: usize,
    /// New index → original index.
    perm: Vec<usize>,
    /// Original index → new index.
    inverse: Vec<usize>,
    /// Filled pattern, rows in the new order, columns sorted (CSR).
    row_start: Vec<usize>,
    column: Vec<usize>,
    /// Position of each row's diagonal entry.
    diagonal: Vec<usize>,
    /// Multiply–subtract operations of one factorisation.
    flops: f64,
}

/// Scratch of [`SparseLu::replan`]. Sized by [`PlanWork::for_any`] for the densest pattern
/// of `n` unknowns, planning again for another pattern (a contact graph that changed)
/// allocates nothing.
pub struct PlanWork {
    n: usize,
    /// The ordering's scratch (faer's minimum degree).
    ordering: MemBuffer,
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    /// Rows of the filled pattern during symbolic elimination.
    rows: Vec<Vec<usize>>,
    mark: Vec<usize>,
}

/// Scratch holds nothing between plans: a clone is fresh scratch of the same room.
impl Clone for PlanWork {
    fn clone(&self) -> PlanWork {
        let mut work = PlanWork::new(self.n, self.row_idx.capacity());
        for (r, room) in work.rows.iter_mut().zip(&self.rows) {
            r.reserve_exact(room.capacity());
        }
        work
    }
}

impl std::fmt::Debug for PlanWork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PlanWork {{ n: {} }}", self.n)
    }
}

impl PlanWork {
    /// For patterns of `n` unknowns with at most `entries` entries (growing as needed).
    fn new(n: usize, entries: usize) -> PlanWork {
        PlanWork {
            n,
            ordering: MemBuffer::new(amd::order_scratch::<usize>(n, entries)),
            col_ptr: Vec::with_capacity(n + 1),
            row_idx: Vec::with_capacity(entries),
            rows: vec![Vec::new(); n],
            mark: vec![usize::MAX; n],
        }
    }

    /// For any pattern of `n` unknowns: room for the dense one's n² entries everywhere.
    pub fn for_any(n: usize) -> PlanWork {
        let mut work = PlanWork::new(n, n * n);
        // (A row holds its pattern and, until deduplicated, its diagonal once more.)
        work.rows.iter_mut().for_each(|r| r.reserve_exact(n + 1));
        work
    }
}

impl SparseLu {
    /// Plans the factorisation of matrices with the given structurally symmetric pattern
    /// (`columns[j]` = sorted rows of column j, diagonal included).
    pub fn new(columns: &[Vec<usize>]) -> Result<SparseLu, String> {
        let n = columns.len();
        let entries = columns.iter().map(Vec::len).sum();
        let mut lu = SparseLu {
            n,
            perm: vec![0; n],
            inverse: vec![0; n],
            row_start: Vec::new(),
            column: Vec::new(),
            diagonal: Vec::new(),
            flops: 0.0,
        };
        lu.replan(columns, &mut PlanWork::new(n, entries))?;
        Ok(lu)
    }

    /// A plan of nothing with room for any pattern of `n` unknowns (the dense one's n²
    /// entries), to be filled by [`SparseLu::replan`] with a [`PlanWork::for_any`].
    pub fn with_room(n: usize) -> SparseLu {
        SparseLu {
            n,
            perm: vec![0; n],
            inverse: vec![0; n],
            row_start: Vec::with_capacity(n + 1),
            column: Vec::with_capacity(n * n),
            diagonal: Vec::with_capacity(n),
            flops: 0.0,
        }
    }

    /// Plans again for another pattern of the same `n` unknowns, into the buffers this plan
    /// and `work` already hold: no allocation (the step loop may call it).
    pub fn replan(&mut self, columns: &[Vec<usize>], work: &mut PlanWork) -> Result<(), String> {
        let n = columns.len();
        if n != self.n || n != work.n {
            return Err(format!(
                "a sparse plan of {} unknowns cannot take a pattern of {n}",
                self.n
            ));
        }
        ordering(columns, work, &mut self.perm)?;
        for (new, &old) in self.perm.iter().enumerate() {
            self.inverse[old] = new;
        }
        // Symbolic elimination on the permuted pattern: row i of the filled pattern is the
        // original row plus, for each k < i in it (ascending), the upper part of row k.
        let rows = &mut work.rows;
        rows.iter_mut().for_each(Vec::clear);
        for (j, col) in columns.iter().enumerate() {
            for &i in col {
                rows[self.inverse[i]].push(self.inverse[j]);
            }
        }
        let mark = &mut work.mark;
        mark.fill(usize::MAX);
        let mut flops = 0.0;
        for i in 0..n {
            let mut row = std::mem::take(&mut rows[i]);
            row.push(i);
            for &c in &row {
                mark[c] = i;
            }
            // Columns are added in increasing order as the lower part is walked.
            row.sort_unstable();
            row.dedup();
            let mut idx = 0;
            while idx < row.len() && row[idx] < i {
                let k = row[idx];
                for &j in rows[k].iter().filter(|&&j| j > k) {
                    flops += 1.0;
                    if mark[j] != i {
                        mark[j] = i;
                        let at = row.partition_point(|&c| c < j);
                        row.insert(at, j);
                    }
                }
                idx += 1;
            }
            rows[i] = row;
        }
        self.row_start.clear();
        self.column.clear();
        self.diagonal.clear();
        self.row_start.push(0);
        for (i, row) in rows.iter().enumerate() {
            self.diagonal
                .push(self.column.len() + row.partition_point(|&c| c < i));
            self.column.extend_from_slice(row);
            self.row_start.push(self.column.len());
        }
        self.flops = flops;
        Ok(())
    }

    pub fn n(&self) -> usize {
        self.n
    }

    /// Stored entries of L + U (the length of the value buffer).
    pub fn nonzeros(&self) -> usize {
        self.column.len()
    }

    /// Multiply–subtract operations of one numeric factorisation.
    pub fn flops(&self) -> f64 {
        self.flops
    }

    /// Position in the value buffer of original entry `(row, col)`, if it is in the pattern.
    pub fn position(&self, row: usize, col: usize) -> Option<usize> {
        let (i, j) = (self.inverse[row], self.inverse[col]);
        let cols = &self.column[self.row_start[i]..self.row_start[i + 1]];
        cols.binary_search(&j).ok().map(|p| self.row_start[i] + p)
    }

    /// Factors `values` (the matrix's entries at [`SparseLu::position`], fill entries zero)
    /// in place. `scale` (2n) receives the row and column equilibration, `at` (n) is
    /// scratch.
    pub fn factor(
        &self,
        values: &mut [f64],
        scale: &mut [f64],
        at: &mut [usize],
    ) -> Result<(), String> {
        let n = self.n;
        let (row_scale, col_scale) = scale[..2 * n].split_at_mut(n);
        for i in 0..n {
            let row = &mut values[self.row_start[i]..self.row_start[i + 1]];
            let m = row.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            if !(m.is_finite() && m > 0.0) {
                return Err(format!(
                    "tangent matrix row {} is {}",
                    self.perm[i],
                    if m == 0.0 { "zero" } else { "not finite" }
                ));
            }
            row_scale[i] = 1.0 / m;
            row.iter_mut().for_each(|v| *v /= m);
        }
        col_scale[..n].fill(0.0);
        for (p, &j) in self.column.iter().enumerate() {
            col_scale[j] = col_scale[j].max(values[p].abs());
        }
        for j in 0..n {
            if col_scale[j] == 0.0 {
                return Err(format!("tangent matrix column {} is zero", self.perm[j]));
            }
            col_scale[j] = 1.0 / col_scale[j];
        }
        for (p, &j) in self.column.iter().enumerate() {
            values[p] *= col_scale[j];
        }
        // Row-by-row elimination (IKJ): row i minus l_ik × (upper part of row k) for each
        // k < i in its pattern, ascending. The filled pattern holds every target.
        for i in 0..n {
            let (start, end) = (self.row_start[i], self.row_start[i + 1]);
            for p in start..end {
                at[self.column[p]] = p;
            }
            for p in start..self.diagonal[i] {
                let k = self.column[p];
                let l = values[p] / values[self.diagonal[k]];
                values[p] = l;
                if l != 0.0 {
                    for q in self.diagonal[k] + 1..self.row_start[k + 1] {
                        values[at[self.column[q]]] -= l * values[q];
                    }
                }
            }
            let d = values[self.diagonal[i]];
            if d.is_nan() || d.abs() < MIN_PIVOT {
                return Err(format!(
                    "sparse tangent pivot {d:e} at unknown {} (needs pivoting)",
                    self.perm[i]
                ));
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place with the factors from [`SparseLu::factor`]; `work` (n) is
    /// scratch.
    pub fn solve(&self, values: &[f64], scale: &[f64], b: &mut [f64], work: &mut [f64]) {
        let n = self.n;
        let (row_scale, col_scale) = scale[..2 * n].split_at(n);
        for i in 0..n {
            let mut y = row_scale[i] * b[self.perm[i]];
            for p in self.row_start[i]..self.diagonal[i] {
                y -= values[p] * work[self.column[p]];
            }
            work[i] = y;
        }
        for i in (0..n).rev() {
            let mut y = work[i];
            for p in self.diagonal[i] + 1..self.row_start[i + 1] {
                y -= values[p] * work[self.column[p]];
            }
            work[i] = y / values[self.diagonal[i]];
        }
        for j in 0..n {
            b[self.perm[j]] = col_scale[j] * work[j];
        }
    }
}

/// Fill-reducing symmetric ordering (new → original, into `perm`) by approximate minimum
/// degree.
fn ordering(columns: &[Vec<usize>], work: &mut PlanWork, perm: &mut [usize]) -> Result<(), String> {
    let n = columns.len();
    let (col_ptr, row_idx) = (&mut work.col_ptr, &mut work.row_idx);
    col_ptr.clear();
    row_idx.clear();
    col_ptr.push(0usize);
    for col in columns {
        row_idx.extend_from_slice(col);
        col_ptr.push(row_idx.len());
    }
    let pattern = SymbolicSparseColMatRef::new_checked(n, n, col_ptr, None, row_idx);
    // The inverse permutation goes to `mark` (overwritten before it is read again).
    amd::order(
        perm,
        &mut work.mark,
        pattern,
        amd::Control::default(),
        MemStack::new(&mut work.ordering),
    )
    .map_err(|e| format!("ordering the sparse tangent failed: {e:?}"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arrow matrix (dense first row and column) plus a chain: the ordering must avoid the
    /// fill of eliminating the hub early, and the solve must match a dense reference.
    #[test]
    fn factors_and_solves_a_structurally_symmetric_matrix() {
        let n = 7;
        let mut dense = vec![0.0; n * n];
        for i in 0..n {
            dense[i * n + i] = 4.0 + i as f64;
            if i > 0 {
                dense[i * n] = 0.5 + 0.1 * i as f64;
                dense[i] = -0.3 * i as f64;
            }
            if (2..n).contains(&i) {
                dense[i * n + i - 1] = 1.1;
                dense[(i - 1) * n + i] = -0.7;
            }
        }
        let columns: Vec<Vec<usize>> = (0..n)
            .map(|j| (0..n).filter(|&i| dense[i * n + j] != 0.0).collect())
            .collect();
        let lu = SparseLu::new(&columns).unwrap();
        let entries: usize = columns.iter().map(Vec::len).sum();
        // Eliminating the hub first would fill the whole matrix; the ordering avoids it.
        assert!(
            lu.nonzeros() <= entries + 2,
            "{} fill entries, order {:?}",
            lu.nonzeros() - entries,
            lu.perm
        );
        let mut values = vec![0.0; lu.nonzeros()];
        for j in 0..n {
            for i in 0..n {
                if dense[i * n + j] != 0.0 {
                    values[lu.position(i, j).unwrap()] = dense[i * n + j];
                }
            }
        }
        let (mut scale, mut at, mut work) = (vec![0.0; 2 * n], vec![0; n], vec![0.0; n]);
        lu.factor(&mut values, &mut scale, &mut at).unwrap();
        let x_true: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 * 0.25).collect();
        let mut b: Vec<f64> = (0..n)
            .map(|i| (0..n).map(|j| dense[i * n + j] * x_true[j]).sum())
            .collect();
        lu.solve(&values, &scale, &mut b, &mut work);
        for (x, t) in b.iter().zip(&x_true) {
            assert!((x - t).abs() < 1e-13, "{x} vs {t}");
        }
    }

    /// Pattern of `n` unknowns in blocks of 3 (a body's coordinates) with the coupled block
    /// pairs (a contact graph).
    fn blocks(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut columns: Vec<Vec<usize>> = (0..n)
            .map(|j| (j / 3 * 3..j / 3 * 3 + 3).collect())
            .collect();
        for &(a, b) in pairs {
            for (x, y) in [(a, b), (b, a)] {
                for j in 3 * x..3 * x + 3 {
                    columns[j].extend(3 * y..3 * y + 3);
                }
            }
        }
        columns.iter_mut().for_each(|c| {
            c.sort_unstable();
            c.dedup();
        });
        columns
    }

    /// Planning again into the buffers of a plan sized for the dense pattern gives the plan
    /// `new` gives, and moves no buffer (nothing was allocated): the contact graph of a
    /// pile changes while the step loop runs.
    #[test]
    fn replanning_equals_a_new_plan_and_allocates_nothing() {
        let n = 30;
        let dense: Vec<Vec<usize>> = (0..n).map(|_| (0..n).collect()).collect();
        let mut lu = SparseLu::with_room(n);
        let mut work = PlanWork::for_any(n);
        let buffers = |lu: &SparseLu, w: &PlanWork| {
            let mut p = vec![
                lu.column.as_ptr() as usize,
                lu.row_start.as_ptr() as usize,
                lu.diagonal.as_ptr() as usize,
                w.row_idx.as_ptr() as usize,
                w.col_ptr.as_ptr() as usize,
            ];
            p.extend(w.rows.iter().map(|r| r.as_ptr() as usize));
            p
        };
        let before = buffers(&lu, &work);
        lu.replan(&dense, &mut work).unwrap();
        assert_eq!(lu.nonzeros(), n * n);
        assert_eq!(
            buffers(&lu, &work),
            before,
            "the dense plan outgrew the room made for it"
        );
        // A chain of ten bodies, then a pile's graph, then one body alone, then dense again.
        let chain: Vec<(usize, usize)> = (0..9).map(|k| (k, k + 1)).collect();
        let pile = [
            (0, 1),
            (0, 4),
            (1, 2),
            (2, 9),
            (3, 7),
            (5, 6),
            (6, 8),
            (8, 9),
            (4, 5),
        ];
        for pattern in [
            blocks(n, &chain),
            blocks(n, &pile),
            blocks(n, &[]),
            dense.clone(),
        ] {
            lu.replan(&pattern, &mut work).unwrap();
            let fresh = SparseLu::new(&pattern).unwrap();
            assert_eq!(
                (&lu.perm, &lu.row_start, &lu.column, &lu.diagonal),
                (
                    &fresh.perm,
                    &fresh.row_start,
                    &fresh.column,
                    &fresh.diagonal
                )
            );
            assert_eq!(lu.flops(), fresh.flops());
            assert_eq!(
                buffers(&lu, &work),
                before,
                "a buffer moved: it was allocated again"
            );
        }
        // The chain's fill stays that of a band: far below the dense n².
        lu.replan(&blocks(n, &chain), &mut work).unwrap();
        assert!(lu.nonzeros() < n * n / 2, "{}", lu.nonzeros());
        // Another size is refused, not planned out of bounds.
        assert!(lu.replan(&blocks(27, &[]), &mut work).is_err());
    }

    #[test]
    fn a_zero_pivot_is_reported_not_divided_by() {
        // [[0, 1], [1, 0]]: needs a row exchange.
        let columns = vec![vec![0, 1], vec![0, 1]];
        let lu = SparseLu::new(&columns).unwrap();
        let mut values = vec![0.0; lu.nonzeros()];
        values[lu.position(0, 1).unwrap()] = 1.0;
        values[lu.position(1, 0).unwrap()] = 1.0;
        let (mut scale, mut at) = (vec![0.0; 4], vec![0; 2]);
        let err = lu.factor(&mut values, &mut scale, &mut at).unwrap_err();
        assert!(err.contains("pivot"), "{err}");
    }
}
