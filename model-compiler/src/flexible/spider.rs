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

/// A spider: its master's position [m] (body axes) and the mesh nodes it ties.
#[derive(Clone, Debug, PartialEq)]
pub struct Spider {
    pub name: String,
    pub center: [f64; 3],
    pub slaves: Vec<usize>,
}

/// The mesh nodes within `radius` of `center`.
pub fn nodes_within(positions: &[[f64; 3]], center: [f64; 3], radius: f64) -> Vec<usize> {
    (positions.iter().enumerate())
        .filter(|(_, p)| norm(&sub(p, &center)) <= radius)
        .map(|(i, _)| i)
        .collect()
}

fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(a: &[f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// Ties `spiders` into `fe`: the model without the slaves, the masters appended (6 DOFs
/// each) in the order of `spiders`; returns it and each master's node index.
pub fn tie<M: FeMatrix>(
    fe: &FeModel<M>,
    spiders: &[Spider],
) -> Result<(FeModel<M>, Vec<usize>), String> {
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
    let mut new_index = vec![usize::MAX; nodes];
    for (i, &n) in kept.iter().enumerate() {
        new_index[n] = i;
    }
    // T by rows: (new DOF, factor) for every old DOF.
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); fe.dofs.total()];
    for n in 0..nodes {
        let (start, count) = (fe.dofs.start(n), fe.dofs.count(n));
        match master_of[n] {
            None => {
                let to = dofs.start(new_index[n]);
                for d in 0..count {
                    rows[start + d].push((to + d, 1.0));
                }
            }
            Some(s) => {
                let m = dofs.start(masters[s]);
                let r = sub(&fe.positions[n], &spiders[s].center);
                // θ × r = −[r]× θ.
                let minus_skew = [[0.0, r[2], -r[1]], [-r[2], 0.0, r[0]], [r[1], -r[0], 0.0]];
                for (d, row) in minus_skew.iter().enumerate() {
                    rows[start + d].push((m + d, 1.0));
                    for (e, f) in row.iter().enumerate() {
                        if *f != 0.0 {
                            rows[start + d].push((m + 3 + e, *f));
                        }
                    }
                }
                for d in 3..count {
                    rows[start + d].push((m + d, 1.0));
                }
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
    Ok((tied, masters))
}

/// A spider holds its master's three rotations if it ties a node with rotations, or
/// translation-only nodes that do not lie on one line (three at least).
fn holds_rotations<M>(spider: &Spider, fe: &FeModel<M>) -> Result<(), String> {
    let positions = &fe.positions;
    let scale = (spider.slaves.iter())
        .filter_map(|&n| positions.get(n))
        .map(|p| norm(&sub(p, &spider.center)))
        .fold(0.0, f64::max);
    let rotations = (spider.slaves.iter()).any(|&n| n < positions.len() && fe.dofs.count(n) == 6);
    // The largest distance from the line through the two farthest-apart slaves.
    let pts: Vec<[f64; 3]> = (spider.slaves.iter())
        .filter_map(|&n| positions.get(n).copied())
        .collect();
    let mut spread = 0.0f64;
    if let (Some(a), Some(b)) = (
        pts.first(),
        pts.iter()
            .max_by(|x, y| norm(&sub(x, &pts[0])).total_cmp(&norm(&sub(y, &pts[0])))),
    ) {
        let axis = sub(b, a);
        let length = norm(&axis);
        for p in &pts {
            let d = sub(p, a);
            let off = if length > 0.0 {
                let c = [
                    d[1] * axis[2] - d[2] * axis[1],
                    d[2] * axis[0] - d[0] * axis[2],
                    d[0] * axis[1] - d[1] * axis[0],
                ];
                norm(&c) / length
            } else {
                norm(&d)
            };
            spread = spread.max(off);
        }
    }
    if rotations || (pts.len() >= 3 && spread > 1e-6 * scale.max(1e-9)) {
        Ok(())
    } else {
        Err(format!(
            "the spider of {} ties {} node(s){}: too few to hold its rotations",
            spider.name,
            pts.len(),
            if pts.len() >= 3 { " on one line" } else { "" }
        ))
    }
}
