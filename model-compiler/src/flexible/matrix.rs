//! What the reduction asks of an FE matrix, so that one reduction serves dense matrices
//! (beams, small FE models) and sparse ones (large FE models, [`super::sparse`]).

use super::matrix_market::Triplets;
use super::modal::{self, pick};
use super::reduction::{self, Reduced};
use super::sparse::Sparse;
use nalgebra::DMatrix;

pub trait FeMatrix: Sized {
    /// Rows (= columns).
    fn size(&self) -> usize;
    /// `A X` for a few dense columns X.
    fn apply(&self, x: &DMatrix<f64>) -> DMatrix<f64>;
    /// The square submatrix on `dofs`.
    fn restrict(&self, dofs: &[usize]) -> Self;
    /// Every non-zero entry (row, column, value).
    fn to_triplets(&self) -> Triplets;
    /// From entries, duplicates summed.
    fn from_entries(t: &Triplets) -> Result<Self, String>;
    fn positive_definite(&self) -> bool;
    /// Craig–Bampton of (M = `self`, K = `stiffness`) at the `interface` DOFs with
    /// `normal_modes` fixed-interface modes, keeping the `keep` lowest elastic modes.
    fn craig_bampton(
        &self,
        stiffness: &Self,
        interface: &[usize],
        normal_modes: usize,
        keep: usize,
    ) -> Result<Reduced, String>;
    /// The `count` lowest natural frequencies [Hz] of (M = `self`, K = `stiffness`) with the
    /// DOFs `held` held, ascending; `scale` is an eigenvalue ω² of about the lowest elastic
    /// ones (an iterative solver's shift).
    fn frequencies(
        &self,
        stiffness: &Self,
        held: &[usize],
        count: usize,
        scale: f64,
    ) -> Result<Vec<f64>, String>;
}

impl FeMatrix for DMatrix<f64> {
    fn size(&self) -> usize {
        self.nrows()
    }
    fn apply(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        self * x
    }
    fn restrict(&self, dofs: &[usize]) -> Self {
        pick(self, dofs, dofs)
    }
    fn to_triplets(&self) -> Triplets {
        Triplets::from_dense(self)
    }
    fn from_entries(t: &Triplets) -> Result<Self, String> {
        Ok(t.dense())
    }
    fn positive_definite(&self) -> bool {
        self.clone().cholesky().is_some()
    }
    fn craig_bampton(
        &self,
        stiffness: &Self,
        interface: &[usize],
        normal_modes: usize,
        keep: usize,
    ) -> Result<Reduced, String> {
        reduction::craig_bampton(self, stiffness, interface, normal_modes, keep)
    }
    fn frequencies(
        &self,
        stiffness: &Self,
        held: &[usize],
        count: usize,
        _scale: f64,
    ) -> Result<Vec<f64>, String> {
        let all = modal::frequencies(self, stiffness, held)?;
        Ok(all.into_iter().take(count).collect())
    }
}

impl FeMatrix for Sparse {
    fn size(&self) -> usize {
        Sparse::size(self)
    }
    fn apply(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        Sparse::apply(self, x)
    }
    fn restrict(&self, dofs: &[usize]) -> Self {
        Sparse::restrict(self, dofs)
    }
    fn to_triplets(&self) -> Triplets {
        Triplets {
            size: self.size(),
            entries: self.entries().collect(),
        }
    }
    fn from_entries(t: &Triplets) -> Result<Self, String> {
        Sparse::from_triplets(t)
    }
    fn positive_definite(&self) -> bool {
        self.cholesky().is_some()
    }
    fn craig_bampton(
        &self,
        stiffness: &Self,
        interface: &[usize],
        normal_modes: usize,
        keep: usize,
    ) -> Result<Reduced, String> {
        super::sparse::craig_bampton(self, stiffness, interface, normal_modes, keep)
    }
    fn frequencies(
        &self,
        stiffness: &Self,
        held: &[usize],
        count: usize,
        scale: f64,
    ) -> Result<Vec<f64>, String> {
        super::sparse::frequencies(self, stiffness, held, count, scale)
    }
}
