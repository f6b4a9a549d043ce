//! Contact pairs the sparse tangent couples only while their bodies are near.
//!
//! A group's bodies touch each against each (a pile of spheres), yet each touches only its
//! few neighbours at a time: a pattern holding every pair would couple every body with
//! every other, and its LU would be dense. The sparse pattern holds the model's fixed part
//! and the blocks of the pairs near now. When a tangent is formed, the pairs whose bounding
//! spheres have come within [`JOIN`] join it and those beyond [`LEAVE`] leave (the gap
//! between the two thresholds keeps a pair at one of them from re-planning every step), and
//! the sparse LU is planned again for the new pattern without allocating
//! (`plan::TangentPlan::follow_near`). The set the factors were formed for is part of the
//! state (`State::tangent_near`), so a restored state or a rolled-back step finds its
//! pattern again (`plan::TangentPlan::plan_near`).
//!
//! A pair that comes into contact while a tangent is kept lacks its block only until the
//! next formation: the residual has its force exactly, and Newton forms the tangent again
//! when it contracts poorly.

use super::sparse_lu::PlanWork;
use super::sparsity::SplitPattern;
use crate::contact::PairSummary;

/// Gap between a pair's bounding spheres over the sum of their radii below which the pair
/// joins the pattern, and above which it leaves (our choice: spheres of 0.1 m closing at
/// 5 m/s cover a quarter of 0.2 m in ten 1 ms steps of a kept tangent).
pub const JOIN: f64 = 0.25;
pub const LEAVE: f64 = 0.5;

#[derive(Clone, Debug)]
pub struct NearPairs {
    /// Index of each near-only pair among the contact pairs, and the joint coordinates of
    /// its block (both bodies' paths, sorted).
    pairs: Vec<usize>,
    supports: Vec<Vec<usize>>,
    /// The pattern without them (sorted rows of each column).
    fixed: Vec<Vec<usize>>,
    /// The pattern of the current plan; each column has room for 2n rows (a column and one
    /// block before duplicates are removed).
    columns: Vec<Vec<usize>>,
    work: PlanWork,
    /// The pairs the current plan's pattern holds, and the next set being chosen.
    planned: Vec<bool>,
    next: Vec<bool>,
}

impl NearPairs {
    pub fn new(split: &SplitPattern) -> NearPairs {
        let n = split.fixed.n;
        NearPairs {
            pairs: split.near.iter().map(|(k, _)| *k).collect(),
            supports: split.near.iter().map(|(_, s)| s.clone()).collect(),
            fixed: split.fixed.columns.clone(),
            columns: (0..n).map(|_| Vec::with_capacity(2 * n)).collect(),
            work: PlanWork::for_any(n),
            planned: vec![false; split.near.len()],
            next: vec![false; split.near.len()],
        }
    }

    /// The pairs (in [`NearPairs::new`]'s order) the current plan's pattern holds.
    pub fn planned(&self) -> &[bool] {
        &self.planned
    }

    /// The pattern of the fixed part and the blocks of the pairs `near` holds (now the
    /// planned ones), with the scratch to plan it.
    pub fn pattern_for(&mut self, near: &[bool]) -> (&[Vec<usize>], &mut PlanWork) {
        self.planned.copy_from_slice(near);
        self.pattern()
    }

    /// Chooses the pairs of the next tangent's pattern from the last evaluation's pair
    /// summaries (indexed as the model's contact pairs); where the set changed, the new
    /// pattern to plan.
    pub fn follow(&mut self, pairs: &[PairSummary]) -> Option<(&[Vec<usize>], &mut PlanWork)> {
        let mut changed = false;
        for ((next, &on), &k) in self.next.iter_mut().zip(&self.planned).zip(&self.pairs) {
            let nearness = pairs[k].nearness;
            // (A NaN pose keeps what is planned.)
            *next = if on {
                nearness.partial_cmp(&LEAVE) != Some(std::cmp::Ordering::Greater)
            } else {
                nearness < JOIN
            };
            changed |= *next != on;
        }
        if !changed {
            return None;
        }
        std::mem::swap(&mut self.planned, &mut self.next);
        Some(self.pattern())
    }

    /// The fixed part and the planned pairs' blocks into `columns`.
    fn pattern(&mut self) -> (&[Vec<usize>], &mut PlanWork) {
        for (column, fixed) in self.columns.iter_mut().zip(&self.fixed) {
            column.clear();
            column.extend_from_slice(fixed);
        }
        for (support, _) in self
            .supports
            .iter()
            .zip(&self.planned)
            .filter(|(_, on)| **on)
        {
            for &k in support {
                let column = &mut self.columns[k];
                column.extend_from_slice(support);
                column.sort_unstable();
                column.dedup();
            }
        }
        (&self.columns, &mut self.work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::plan::SparsePlan;
    use crate::solver::sparsity::TangentPattern;

    /// Three bodies of one coordinate each, pairs 0–1 and 1–2 near-only (contact pairs 3
    /// and 4; 0–2 are ground pairs): the pattern takes a pair at nearness < 0.25, keeps it
    /// up to 0.5, and the plan's entries are exactly the planned pattern's.
    #[test]
    fn pairs_join_near_leave_far_and_the_plan_holds_their_blocks() {
        let diagonal = TangentPattern {
            n: 3,
            columns: vec![vec![0], vec![1], vec![2]],
        };
        let full = TangentPattern {
            n: 3,
            columns: vec![vec![0, 1], vec![0, 1, 2], vec![1, 2]],
        };
        let split = SplitPattern {
            full: full.clone(),
            fixed: diagonal,
            near: vec![(3, vec![0, 1]), (4, vec![1, 2])],
        };
        let mut near = NearPairs::new(&split);
        let mut sparse = SparsePlan::new(&full, 3, false, true).unwrap();
        let (columns, work) = near.pattern_for(&[false, false]);
        sparse.replan(columns, work).unwrap();
        let rows = |s: &SparsePlan| -> Vec<Vec<usize>> {
            s.entries
                .iter()
                .map(|c| c.iter().map(|e| e.0).collect())
                .collect()
        };
        assert_eq!(rows(&sparse), vec![vec![0], vec![1], vec![2]]);
        let mut summaries = [PairSummary::default(); 5];
        let mut at = |a: f64, b: f64, near: &mut NearPairs, sparse: &mut SparsePlan| {
            summaries[3].nearness = a;
            summaries[4].nearness = b;
            match near.follow(&summaries) {
                Some((columns, work)) => {
                    sparse.replan(columns, work).unwrap();
                    true
                }
                None => false,
            }
        };
        assert!(at(0.2, 0.3, &mut near, &mut sparse));
        assert_eq!(near.planned(), &[true, false]);
        assert_eq!(rows(&sparse), vec![vec![0, 1], vec![0, 1], vec![2]]);
        // Between the thresholds nothing changes; beyond LEAVE the pair leaves.
        assert!(!at(0.45, 0.3, &mut near, &mut sparse));
        assert!(at(0.6, -0.1, &mut near, &mut sparse));
        assert_eq!(near.planned(), &[false, true]);
        assert_eq!(rows(&sparse), vec![vec![0], vec![1, 2], vec![1, 2]]);
        assert!(!at(f64::NAN, f64::NAN, &mut near, &mut sparse));
        assert_eq!(near.planned(), &[false, true]);
        // Every entry has its place in the LU's values.
        let nz = sparse.tangent.nonzeros();
        assert!(sparse.entries.iter().flatten().all(|e| e.1 < nz));
    }
}
