//! From an FE model to the runtime's flexible body: Craig–Bampton with the reference node
//! clamped, the invariants, the modal stiffness and damping, the interface nodes' shapes.
//!
//! The body frame is held by the body's tree joint at the reference node, so the modes are
//! those of the body clamped there (seed 000 §2.8: Craig–Bampton, then orthonormalised
//! through the reduced eigenproblem): every other interface node is a boundary of the
//! reduction, its static constraint modes in the basis, and the kept modes are the lowest
//! of the reduced clamped–free eigenproblem. No rigid-body content is left to remove: the
//! reference node holds it.

use super::dofs::NodeDofs;
use super::invariants::invariants;
use super::matrix::FeMatrix;
use fmu_runtime::model::{FlexibleBody, InterfaceNode};
use nalgebra::DMatrix;

/// An FE model in body axes.
#[derive(Clone, Debug)]
pub struct FeModel<M = DMatrix<f64>> {
    pub mass: M,
    pub stiffness: M,
    /// Node positions [m], body axes.
    pub positions: Vec<[f64; 3]>,
    /// Where each node's DOFs sit: 3 (translations) or 6 (translations, then rotations).
    pub dofs: NodeDofs,
    /// DOFs held at every node (0–2 translations, 3–5 rotations): a planar machine's beam
    /// keeps only its in-plane modes.
    pub held: Vec<usize>,
}

/// Modal damping.
#[derive(Clone, Debug, PartialEq)]
pub enum Damping {
    /// The same damping ratio ζ for every mode: `d_k = 2 ζ ω_k`.
    Ratio(f64),
    /// One ratio per kept mode.
    Ratios(Vec<f64>),
    /// Rayleigh `α M + β K` on the elastic coordinates: `d_k = α + β ω_k²`.
    Rayleigh { alpha: f64, beta: f64 },
}

/// The default modal damping ratio (our choice: welded steel booms, 1–3 % in the
/// literature; stated as a default in the docs, the schema and `check`).
pub const DEFAULT_DAMPING_RATIO: f64 = 0.02;

/// A reduced flexible body and what `check` and the model's page report about it.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The runtime's body, `body` left at 0 for the caller to set.
    pub flexible: FlexibleBody,
    /// The kept modes' frequencies, clamped at the reference node [Hz].
    pub frequencies: Vec<f64>,
    /// The FE model's lowest free–free elastic frequencies [Hz], as many.
    pub free_frequencies: Vec<f64>,
    /// Share of the body's mass each kept mode carries in x, y, z under a motion of the
    /// reference node (effective modal mass over the mass).
    pub mass_shares: Vec<[f64; 3]>,
    /// The kept modes in the FE DOFs (columns), for drawings of the deformed shape.
    pub shapes: DMatrix<f64>,
    /// The FE nodes' positions [m] (body axes) and their DOFs, the rows of `shapes`.
    pub positions: Vec<[f64; 3]>,
    pub dofs: NodeDofs,
}

/// Reduces `fe` to `modes` modes clamped at node `reference`, with the interface nodes
/// `interface` (name, node) as Craig–Bampton boundaries.
pub fn reduce<M: FeMatrix>(
    fe: &FeModel<M>,
    reference: usize,
    interface: &[(String, usize)],
    modes: usize,
    damping: &Damping,
) -> Result<Reduction, String> {
    let (dofs, nodes) = (&fe.dofs, fe.positions.len());
    let ndof = fe.mass.size();
    if dofs.nodes() != nodes || ndof != dofs.total() || fe.stiffness.size() != ndof {
        return Err(format!(
            "{nodes} nodes of {} DOFs, but matrices of {ndof} and {} rows",
            dofs.total(),
            fe.stiffness.size()
        ));
    }
    let in_mesh = |node: usize, what: &str| {
        (node < nodes)
            .then_some(())
            .ok_or_else(|| format!("{what} is node {node}, the mesh has {nodes} nodes"))
    };
    in_mesh(reference, "the reference node")?;
    for (name, node) in interface {
        in_mesh(*node, &format!("interface node {name}"))?;
    }
    if modes == 0 {
        return Err("a flexible body needs at least one mode".into());
    }
    if let Damping::Ratios(r) = damping
        && r.len() != modes
    {
        return Err(format!("{} damping ratios for {modes} modes", r.len()));
    }
    // Clamp the reference node; number the rest.
    let free: Vec<usize> = (0..ndof)
        .filter(|&d| {
            let (node, place) = dofs.node_of(d);
            node != reference && !fe.held.contains(&place)
        })
        .collect();
    let (m_f, k_f) = (fe.mass.restrict(&free), fe.stiffness.restrict(&free));
    if !k_f.positive_definite() {
        return Err(
            "with the reference node (the body's joint) clamped the stiffness is singular: the mesh holds a mechanism or a part not connected to that node"
                .into(),
        );
    }
    // The interface nodes' free DOFs (a plane holds some) in the clamped numbering.
    let boundary: Vec<usize> = interface
        .iter()
        .filter(|(_, n)| *n != reference)
        .flat_map(|(_, n)| {
            (dofs.start(*n)..dofs.start(*n) + dofs.count(*n))
                .filter_map(|d| free.iter().position(|f| *f == d))
        })
        .collect();
    let mut boundary = boundary;
    boundary.sort_unstable();
    boundary.dedup();
    let internal = free.len() - boundary.len();
    let normal = (2 * modes).max(modes + 6).min(internal);
    if boundary.len() + normal < modes {
        return Err(format!(
            "{modes} modes asked for, the model has {} DOFs with the reference node clamped",
            free.len()
        ));
    }
    let reduced = m_f.craig_bampton(&k_f, &boundary, normal, modes)?;
    let mut phi = DMatrix::zeros(ndof, modes);
    for (row, &d) in free.iter().enumerate() {
        for k in 0..modes {
            phi[(d, k)] = reduced.modes[(row, k)];
        }
    }
    let inv = invariants(&fe.mass, &fe.positions, dofs, &phi)?;
    let k_modal = phi.transpose() * fe.stiffness.apply(&phi);
    let stiffness: Vec<f64> = (0..modes).map(|k| k_modal[(k, k)].max(0.0)).collect();
    let damping: Vec<f64> = stiffness
        .iter()
        .enumerate()
        .map(|(k, w2)| match damping {
            Damping::Ratio(z) => 2.0 * z * w2.sqrt(),
            Damping::Ratios(z) => 2.0 * z[k] * w2.sqrt(),
            Damping::Rayleigh { alpha, beta } => alpha + beta * w2,
        })
        .collect();
    let shape = |first: usize| -> Vec<[f64; 3]> {
        (0..modes)
            .map(|k| std::array::from_fn(|d| phi[(first + d, k)]))
            .collect()
    };
    let interface_nodes = interface
        .iter()
        .map(|(name, node)| InterfaceNode {
            name: name.clone(),
            position: fe.positions[*node],
            translation: shape(dofs.start(*node)),
            // A solid's node (not a spider's master) carries no rotations: it turns with
            // the frame only.
            rotation: match dofs.rotations(*node) {
                Some(first) => shape(first),
                None => vec![[0.0; 3]; modes],
            },
        })
        .collect();
    let mass_shares = inv
        .first_moment_modal
        .iter()
        .map(|c| c.map(|x| x * x / inv.mass))
        .collect();
    // A free body: six rigid motions (three in a plane), then the elastic modes.
    let held: Vec<usize> = (0..ndof)
        .filter(|&d| fe.held.contains(&dofs.node_of(d).1))
        .collect();
    let rigid = if fe.held.is_empty() { 6 } else { 3 };
    let free_frequencies = (fe.mass)
        .frequencies(&fe.stiffness, &held, rigid + modes, stiffness[0])?
        .into_iter()
        .skip(rigid)
        .collect();
    Ok(Reduction {
        flexible: FlexibleBody {
            body: 0,
            invariants: inv,
            stiffness,
            damping,
            nodes: interface_nodes,
        },
        frequencies: reduced.frequencies,
        free_frequencies,
        mass_shares,
        shapes: phi,
        positions: fe.positions.clone(),
        dofs: dofs.clone(),
    })
}
