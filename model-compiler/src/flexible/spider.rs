//! Rigid spiders (Nastran's RBE2, Abaqus's kinematic coupling): the nodes of a solid mesh
//! around a pin bore tied to one 6-DOF master node at the bore's centre. A solid's nodes
//! carry translations only, so no single node can hold the body's joint or pass a pin's
//! moment; a spider can, and a joint, a cylinder eye or a load attaches to its master.
//!
//! The tie is a congruence transform of the FE matrices, `M' = Tᵀ M T`, `K' = Tᵀ K T`, with
//! every slave's translation `u_s = u_m + θ_m × (x_s − x_m)` (and a 6-DOF slave's rotation
//! `θ_s = θ_m`): the slaves leave the model, the masters join it after the other nodes.

use super::dofs::NodeDofs;
use super::ffrf::FeModel;
use super::matrix::FeMatrix;
use super::matrix_market::Triplets;
use nalgebra::{Matrix3, Vector3};

/// A spider: its master's position [m] (body axes) and the mesh nodes it ties.
#[derive(Clone, Debug, PartialEq)]
pub struct Spider {
    pub name: String,
    pub center: [f64; 3],
    pub slaves: Vec<usize>,
}

/// The mesh nodes within `radius` of `center`.
pub fn nodes_within(positions: &[[f64; 3]], center: [f64; 3], radius: f64) -> Vec<usize> {
    let center = Vector3::from(center);
    (positions.iter().enumerate())
        .filter(|(_, p)| (Vector3::from(**p) - center).norm() <= radius)
        .map(|(i, _)| i)
        .collect()
}

/// A tied FE model and where the old nodes went.
pub struct Tied<M> {
    pub model: FeModel<M>,
    /// Each spider's master node, in the order of the spiders.
    pub masters: Vec<usize>,
    /// Each old node's index in the tied model; `None` for a spider's slave.
    pub renumbered: Vec<Option<usize>>,
}

/// Ties `spiders` into `fe`: the model without the slaves, the masters appended (6 DOFs
/// each) in the order of `spiders`.
pub fn tie<M: FeMatrix>(fe: &FeModel<M>, spiders: &[Spider]) -> Result<Tied<M>, String> {
    let nodes = fe.positions.len();
    let mut master_of: Vec<Option<usize>> = vec![None; nodes];
    for (s, spider) in spiders.iter().enumerate() {
        holds_rotations(spider, fe)?;
        for &n in &spider.slaves {
            match master_of.get(n) {
                None => {
                    return Err(format!(
                        "spider {} ties node {}, the mesh has {nodes}",
                        spider.name,
                        n + 1
                    ));
                }
                Some(Some(other)) => {
                    return Err(format!(
                        "node {} is in the spiders of both {} and {}; give them radii that do not overlap",
                        n + 1,
                        spiders[*other].name,
                        spider.name
                    ));
                }
                Some(None) => master_of[n] = Some(s),
            }
        }
    }
    // The untied nodes in order, then the masters.
    let kept: Vec<usize> = (0..nodes).filter(|&n| master_of[n].is_none()).collect();
    let dofs = NodeDofs::from_counts(
        (kept.iter().map(|&n| fe.dofs.count(n))).chain(spiders.iter().map(|_| 6)),
    );
    let masters: Vec<usize> = (0..spiders.len()).map(|s| kept.len() + s).collect();
    let mut renumbered = vec![None; nodes];
    for (i, &n) in kept.iter().enumerate() {
        renumbered[n] = Some(i);
    }
    // T by rows: (new DOF, factor) for every old DOF.
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); fe.dofs.total()];
    for n in 0..nodes {
        let (start, count) = (fe.dofs.start(n), fe.dofs.count(n));
        if let Some(new) = renumbered[n] {
            let to = dofs.start(new);
            for d in 0..count {
                rows[start + d].push((to + d, 1.0));
            }
        } else if let Some(s) = master_of[n] {
            let m = dofs.start(masters[s]);
            let r = Vector3::from(fe.positions[n]) - Vector3::from(spiders[s].center);
            // θ × r = −[r]× θ = [−r]× θ.
            let minus_skew = (-r).cross_matrix();
            for d in 0..3 {
                rows[start + d].push((m + d, 1.0));
                for e in 0..3 {
                    if minus_skew[(d, e)] != 0.0 {
                        rows[start + d].push((m + 3 + e, minus_skew[(d, e)]));
                    }
                }
            }
            for d in 3..count {
                rows[start + d].push((m + d, 1.0));
            }
        }
    }
    let congruence = |a: &M| {
        let mut entries = Vec::new();
        for (i, j, v) in a.to_triplets().entries {
            for &(p, tp) in &rows[i] {
                for &(q, tq) in &rows[j] {
                    entries.push((p, q, tp * v * tq));
                }
            }
        }
        M::from_entries(&Triplets {
            size: dofs.total(),
            entries,
        })
    };
    let positions = (kept.iter().map(|&n| fe.positions[n]))
        .chain(spiders.iter().map(|s| s.center))
        .collect();
    let tied = FeModel {
        mass: congruence(&fe.mass)?,
        stiffness: congruence(&fe.stiffness)?,
        positions,
        dofs,
        held: fe.held.clone(),
    };
    Ok(Tied {
        model: tied,
        masters,
        renumbered,
    })
}

/// A spider holds its master's three rotations if it ties a node with rotations, or
/// translation-only nodes that do not lie on one line: the spread of their positions
/// (second moment about their centroid) has two non-zero principal values.
fn holds_rotations<M>(spider: &Spider, fe: &FeModel<M>) -> Result<(), String> {
    let nodes: Vec<usize> = (spider.slaves.iter().copied())
        .filter(|&n| n < fe.positions.len())
        .collect();
    if nodes.iter().any(|&n| fe.dofs.count(n) == 6) {
        return Ok(());
    }
    let points: Vec<Vector3<f64>> = nodes
        .iter()
        .map(|&n| Vector3::from(fe.positions[n]))
        .collect();
    let centroid = points.iter().sum::<Vector3<f64>>() / points.len().max(1) as f64;
    let spread: Matrix3<f64> = points
        .iter()
        .map(|p| (p - centroid) * (p - centroid).transpose())
        .sum();
    let mut principal = spread.symmetric_eigenvalues();
    principal.as_mut_slice().sort_by(|a, b| b.total_cmp(a));
    if principal[1] > 1e-12 * principal[0] && principal[0] > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "the spider of {} ties {} node(s){}: too few to hold its rotations",
            spider.name,
            nodes.len(),
            if nodes.len() >= 3 { " on one line" } else { "" }
        ))
    }
}
