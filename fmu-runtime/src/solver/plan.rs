//! How the Newton tangent of one model is formed and factored, decided once per instance:
//! its structural pattern, the finite-difference column groups, and the linear solver
//! path (dense LU with partial pivoting, or the sparse LU of [`super::sparse_lu`]).

use super::Layout;
use super::assembled::Ports;
use super::near_pairs::NearPairs;
use super::sparse_lu::{PlanWork, SparseLu};
use super::sparsity::TangentPattern;
use crate::model::{CompiledModel, Formulation, LinearSolver, TangentMethod};

/// Which factorisation the step loop uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverPath {
    Dense,
    Sparse,
}

impl SolverPath {
    pub fn name(self) -> &'static str {
        match self {
            SolverPath::Dense => "dense LU",
            SolverPath::Sparse => "sparse LU",
        }
    }
}

/// The sparse factorisations and where each tangent entry goes in their value buffers.
#[derive(Clone, Debug)]
pub struct SparsePlan {
    pub tangent: SparseLu,
    /// The projection matrix (the tangent's joint-coordinate block), when there are loops.
    pub projection: Option<SparseLu>,
    /// Per column: `(row, position in the tangent values, position in the projection
    /// values or usize::MAX)` for every row of the column's pattern.
    pub entries: Vec<Vec<(usize, usize, usize)>>,
    /// Joint coordinates (the projection's unknowns).
    nz: usize,
}

#[derive(Clone, Debug)]
pub struct TangentPlan {
    /// Every entry the tangent may have (with every contact pair's coupling).
    pub pattern: TangentPattern,
    /// Joint-coordinate columns (full evaluations) and first-order columns (partial
    /// evaluations), in groups that share one evaluation.
    pub z_groups: Vec<Vec<usize>>,
    pub w_groups: Vec<Vec<usize>>,
    pub path: SolverPath,
    /// Present whenever the pattern admits it (the bench compares both paths), used by the
    /// step loop when `path` is sparse.
    pub sparse: Option<SparsePlan>,
    /// Joint-coordinate columns assembled from the structure (see [`super::assembled`])
    /// rather than by full evaluations; then `ports` lists the actuator ports.
    pub assembled: bool,
    pub ports: Ports,
    /// Joint coordinates of prescribed-motion joints (length nz): their rows of the
    /// tangent are `κ` on the diagonal (see [`super::drives`]).
    pub driven: Vec<bool>,
    /// The contact pairs the sparse pattern holds only while they are near, when the
    /// model has any (then `sparse.tangent` is planned for the pattern without the others).
    pub near: Option<NearPairs>,
}

/// The sparse path is chosen when its factorisation needs less than half of the dense
/// one's operations and its factors fill less than this fraction of the dense matrix.
/// From the scaling study (docs/performance.md): the sparse path was faster for every
/// member with L + U below about 0.6 n² (chain, loops and branches, 8 to 192 unknowns) and
/// level with the dense one around 0.6–0.9 n² (4–6 unknowns), where indirect addressing
/// eats the saving.
const SPARSE_FILL: f64 = 0.6;
const SPARSE_FLOPS: f64 = 0.5;

impl TangentPlan {
    /// `driven`: the joint coordinates of prescribed-motion joints ([`super::drives::mask`]).
    pub fn new(m: &CompiledModel, l: &Layout, driven: Vec<bool>) -> TangentPlan {
        let n = l.nz + l.nw;
        let (pattern, mut near) = if m.solver.formulation == Formulation::AugmentedLagrangian {
            let split = TangentPattern::split(m, l);
            let near = (!split.near.is_empty()).then(|| NearPairs::new(&split));
            (split.full, near)
        } else {
            (TangentPattern::dense(n), None)
        };
        let z_groups = pattern.column_groups(0..l.nz);
        let w_groups = pattern.column_groups(l.nz..n);
        // With near-only pairs the tangent is planned first for the pattern without them
        // (no pair near), in buffers with room for any pattern.
        let sparse = (n > 0 && m.solver.formulation == Formulation::AugmentedLagrangian)
            .then(|| {
                let mut sparse = SparsePlan::new(&pattern, l.nz, l.nc > 0, near.is_some())?;
                if let Some(near) = near.as_mut() {
                    let nothing = vec![false; near.planned().len()];
                    let (columns, work) = near.pattern_for(&nothing);
                    sparse.replan(columns, work)?;
                }
                Ok::<_, String>(sparse)
            })
            .and_then(Result::ok);
        if sparse.is_none() {
            near = None;
        }
        let predicted = sparse.as_ref().is_some_and(|s| {
            let nf = n as f64;
            s.tangent.flops() < SPARSE_FLOPS * nf * nf * nf / 3.0
                && (s.tangent.nonzeros() as f64) < SPARSE_FILL * nf * nf
        });
        let path = match (m.solver.linear_solver, &sparse) {
            (_, None) | (LinearSolver::Dense, _) => SolverPath::Dense,
            (LinearSolver::Sparse, Some(_)) => SolverPath::Sparse,
            (LinearSolver::Auto, Some(_)) if predicted => SolverPath::Sparse,
            (LinearSolver::Auto, Some(_)) => SolverPath::Dense,
        };
        let assembled = m.solver.formulation == Formulation::AugmentedLagrangian
            && m.solver.tangent == TangentMethod::Assembled;
        let ports = if assembled {
            Ports::of(m, l)
        } else {
            Ports::default()
        };
        TangentPlan {
            pattern,
            z_groups,
            w_groups,
            path,
            sparse,
            assembled,
            ports,
            driven,
            near,
        }
    }

    /// Plans the sparse tangent for the near pairs of the state's factors (a restored
    /// state, a step begun again after a failed attempt); nothing without near pairs.
    pub fn plan_near(&mut self, near: &[bool]) -> Result<(), String> {
        match (&mut self.near, &mut self.sparse) {
            (Some(pairs), Some(sparse)) if pairs.planned() != near => {
                let (columns, work) = pairs.pattern_for(near);
                sparse.replan(columns, work)
            }
            _ => Ok(()),
        }
    }

    /// Chooses the near pairs of a tangent about to be formed from the contact pairs'
    /// summaries at its linearization point, planning the sparse tangent again when they
    /// changed; the chosen set (empty without near pairs) is written to `near`.
    pub fn follow_near(
        &mut self,
        pairs: &[crate::contact::PairSummary],
        near: &mut [bool],
    ) -> Result<(), String> {
        if let (Some(p), Some(sparse)) = (&mut self.near, &mut self.sparse) {
            if let Some((columns, work)) = p.follow(pairs) {
                sparse.replan(columns, work)?;
            }
            near.copy_from_slice(p.planned());
        }
        Ok(())
    }

    /// Evaluations a tangent refresh costs: full (joint coordinates; none when they are
    /// assembled) and partial (first-order states, and the actuator ports of an assembly).
    pub fn refresh_evaluations(&self) -> (usize, usize) {
        if self.assembled {
            (0, self.w_groups.len() + self.ports.evaluations())
        } else {
            (self.z_groups.len(), self.w_groups.len())
        }
    }
}

impl SparsePlan {
    /// The plan of `pattern`; with `room`, the tangent's buffers (and each column's
    /// entries) have room for any pattern, for [`SparsePlan::replan`]. The projection's
    /// plan is `pattern`'s joint block always.
    pub(super) fn new(
        pattern: &TangentPattern,
        nz: usize,
        loops: bool,
        room: bool,
    ) -> Result<SparsePlan, String> {
        let tangent = if room {
            // Planned by the caller before use.
            SparseLu::with_room(pattern.n)
        } else {
            SparseLu::new(&pattern.columns)?
        };
        let projection = if loops {
            let block: Vec<Vec<usize>> = pattern.columns[..nz]
                .iter()
                .map(|c| c.iter().copied().filter(|&r| r < nz).collect())
                .collect();
            Some(SparseLu::new(&block)?)
        } else {
            None
        };
        let mut plan = SparsePlan {
            tangent,
            projection,
            entries: pattern
                .columns
                .iter()
                .map(|rows| Vec::with_capacity(if room { pattern.n } else { rows.len() }))
                .collect(),
            nz,
        };
        if !room {
            plan.place(&pattern.columns)?;
        }
        Ok(plan)
    }

    /// Plans the tangent again for `columns` (within the projection's pattern where both
    /// have an entry), allocating nothing when it was made with room.
    pub fn replan(&mut self, columns: &[Vec<usize>], work: &mut PlanWork) -> Result<(), String> {
        self.tangent.replan(columns, work)?;
        self.place(columns)
    }

    /// Where each entry of `columns` goes in the value buffers.
    fn place(&mut self, columns: &[Vec<usize>]) -> Result<(), String> {
        let missing = || "a pattern entry is missing from the sparse fill".to_string();
        for (k, (rows, column)) in columns.iter().zip(&mut self.entries).enumerate() {
            column.clear();
            for &i in rows {
                let t = self.tangent.position(i, k).ok_or_else(missing)?;
                let p = match &self.projection {
                    Some(p) if i < self.nz && k < self.nz => {
                        p.position(i, k).ok_or_else(missing)?
                    }
                    _ => usize::MAX,
                };
                column.push((i, t, p));
            }
        }
        Ok(())
    }
}
