//! The FE model a flexible body is reduced from, whether meshed from a beam
//! ([`super::flexible`]) or read from files ([`super::flexible_files`]).

use crate::flexible::ffrf::{self, Damping, FeModel, Reduction};
use crate::flexible::sparse::Sparse;

/// An FE model's matrices: dense (beams, small FE models) or sparse (large FE models).
pub(super) enum Fe {
    Dense(FeModel),
    Sparse(FeModel<Sparse>),
}

impl Fe {
    pub(super) fn positions(&self) -> &[[f64; 3]] {
        match self {
            Fe::Dense(fe) => &fe.positions,
            Fe::Sparse(fe) => &fe.positions,
        }
    }

    pub(super) fn reduce(
        &self,
        reference: usize,
        interface: &[(String, usize)],
        modes: usize,
        damping: &Damping,
    ) -> Result<Reduction, String> {
        match self {
            Fe::Dense(fe) => ffrf::reduce(fe, reference, interface, modes, damping),
            Fe::Sparse(fe) => ffrf::reduce(fe, reference, interface, modes, damping),
        }
    }
}

/// An FE model ready for the reduction: the reference node (at the body origin), the
/// interface nodes, their positions, the extent along x.
pub(super) struct Source {
    pub fe: Fe,
    pub reference: usize,
    pub interface: Vec<(String, usize)>,
    pub extent: (f64, f64),
    pub by_station: bool,
    /// Rigid spiders: whose (`None`: the joint's) and how many nodes each ties.
    pub spiders: Vec<(Option<String>, usize)>,
}
