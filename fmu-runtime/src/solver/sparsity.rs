//! Structural sparsity of the Newton tangent, derived from the model's topology, and the
//! column groups that let one residual evaluation give several finite-difference columns
//! (Curtis–Powell–Reid).
//!
//! The residual is a sum of element contributions, and each element reads and writes only
//! its *support*: a body's inertia and weight the joint coordinates on its path to the
//! root; a cut joint, spring or point force the paths of both its points; a cylinder the
//! paths of its pins, its two chamber pressures and its friction states; a motor its
//! body's path and its ports; a valve its spool and port pressures; an orifice, relief,
//! leakage or pump its two nodes. The tangent's pattern is the union of support × support
//! (symmetric). A control volume's rate `β/V (Σ inflow − Σ A ṡ)` is not a sum, but every
//! quantity it reads belongs to an element incident to that volume, so the union still
//! covers it. `tests/sparsity.rs` checks the pattern against full forward differences.

use super::Layout;
use crate::model::{BRISTLE_STATES, CompiledModel, Element, ForceElement, JointKind, PointRef};

/// Row sets of the tangent's columns (the pattern is symmetric: also column sets of rows).
#[derive(Clone, Debug)]
pub struct TangentPattern {
    pub n: usize,
    /// Sorted rows of each column.
    pub columns: Vec<Vec<usize>>,
}

/// A fixed-size set of indices `0..n` as bits.
#[derive(Clone)]
struct BitSet(Vec<u64>);

impl BitSet {
    fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    #[cfg(test)]
    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    fn union_with(&mut self, other: &BitSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
    fn intersects(&self, other: &BitSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits & (1 << b) != 0)
                .map(move |b| w * 64 + b)
        })
    }
}

/// The tangent's pattern with the contact pairs whose bodies it couples only while they
/// are near ([`Contacts::is_near_only`](crate::model::Contacts::is_near_only)) apart.
#[derive(Clone, Debug)]
pub struct SplitPattern {
    /// With every pair's coupling: what the dense path and the column groups use.
    pub full: TangentPattern,
    /// Without the near-only pairs' couplings.
    pub fixed: TangentPattern,
    /// Each near-only pair: its index among the contact pairs and the sorted joint
    /// coordinates on its two bodies' paths (its block is all of them × all of them).
    pub near: Vec<(usize, Vec<usize>)>,
}

impl TangentPattern {
    /// The structural pattern of `J = ∂F/∂[z; w]` for the monolithic formulation.
    pub fn of(m: &CompiledModel, l: &Layout) -> TangentPattern {
        TangentPattern::split(m, l).full
    }

    /// [`TangentPattern::of`], and the same without the near-only contact pairs.
    pub fn split(m: &CompiledModel, l: &Layout) -> SplitPattern {
        let n = l.nz + l.nw;
        let mech = &m.mechanism;
        // Joint coordinates on each body's path to the root.
        let mut paths: Vec<BitSet> = Vec::with_capacity(mech.bodies.len());
        for (b, coordinate) in mech.bodies.iter().zip(mech.coordinate_indices()) {
            let mut path = match b.parent {
                Some(p) => paths[p].clone(),
                None => BitSet::new(n),
            };
            if let Some(c) = coordinate {
                path.insert(c);
            }
            // An interface node moves with its flexible body's modes.
            if let JointKind::Node { flexible, .. } = b.joint {
                let start = mech.modal_start(flexible);
                for k in start..start + mech.flexible[flexible].modes() {
                    path.insert(k);
                }
            }
            paths.push(path);
        }
        let path_of = |r: &PointRef| r.body.map_or_else(|| BitSet::new(n), |b| paths[b].clone());
        // Unknown of each circuit node (control volumes only) and each cylinder's friction
        // states.
        let volume: Vec<Option<usize>> = m
            .circuit
            .volume_indices()
            .into_iter()
            .map(|v| v.map(|k| l.nz + k))
            .collect();
        let with_nodes = |mut s: BitSet, nodes: &[usize]| {
            for &node in nodes {
                if let Some(v) = volume[node] {
                    s.insert(v);
                }
            }
            s
        };

        let mut supports: Vec<BitSet> = Vec::new();
        supports.extend(paths.iter().cloned());
        // A flexible body's mass couples its modes with each other and with its path.
        for (f, fb) in mech.flexible.iter().enumerate() {
            let mut s = paths[fb.body].clone();
            let start = mech.modal_start(f);
            for k in start..start + fb.modes() {
                s.insert(k);
            }
            supports.push(s);
        }
        for cut in &mech.cut_joints {
            let mut s = path_of(&cut.a);
            s.union_with(&path_of(&cut.b));
            supports.push(s);
        }
        for f in &mech.forces {
            supports.push(match f {
                ForceElement::SpringDamper(sd) => {
                    let mut s = path_of(&sd.a);
                    s.union_with(&path_of(&sd.b));
                    s
                }
                ForceElement::PointForce(pf) => path_of(&pf.point),
                ForceElement::ForceActuator(fa) => {
                    let mut s = path_of(&fa.a);
                    s.union_with(&path_of(&fa.b));
                    s
                }
                // Only its own coordinate; the path is a superset (the diagonal is there).
                ForceElement::JointLimit(jl) => path_of(&PointRef {
                    body: Some(jl.body),
                    point: [0.0; 3],
                }),
                ForceElement::Rope(r) => {
                    let mut s = path_of(&PointRef {
                        body: Some(r.drum),
                        point: [0.0; 3],
                    });
                    for point in &r.path {
                        s.union_with(&path_of(point));
                    }
                    s
                }
            });
        }
        // Two bodies in contact couple their paths (a body against the ground only its
        // own, which its mass already covers); a near-only pair apart from the rest.
        let mut near = Vec::new();
        for (k, pair) in mech.contacts.pairs.iter().enumerate() {
            if let Some(o) = pair.other {
                let mut s = paths[pair.body].clone();
                s.union_with(&paths[o.body]);
                if mech.contacts.is_near_only(pair) {
                    near.push((k, s));
                } else {
                    supports.push(s);
                }
            }
        }
        // A contact point's bristles: its own three states with the paths of its bodies.
        let contacts = &mech.contacts;
        let mut bristle = l.nz + l.first_bristle();
        for pair in &contacts.pairs {
            for sc in pair.shapes.iter().filter(|sc| sc.bristles.is_some()) {
                for _ in 0..contacts.points_of(sc) {
                    let mut s = paths[pair.body].clone();
                    if let Some(o) = pair.other {
                        s.union_with(&paths[o.body]);
                    }
                    for _ in 0..BRISTLE_STATES {
                        s.insert(bristle);
                        bristle += 1;
                    }
                    supports.push(s);
                }
            }
        }
        let mut friction = l.nz + l.first_friction();
        for cyl in &m.circuit.cylinders {
            let mut s = path_of(&cyl.cap_point);
            s.union_with(&path_of(&cyl.rod_point));
            let mut s = with_nodes(s, &[cyl.cap_node, cyl.rod_node]);
            for _ in 0..cyl.friction.states() {
                s.insert(friction);
                friction += 1;
            }
            supports.push(s);
        }
        for mo in &m.circuit.motors {
            supports.push(with_nodes(paths[mo.body].clone(), &[mo.port_a, mo.port_b]));
        }
        for e in &m.circuit.elements {
            let mut s = with_nodes(BitSet::new(n), &e.nodes());
            match e {
                Element::DirectionalValve(v) => s.insert(l.nz + l.n_pressures + v.spool),
                Element::LoadSensingPump(p) => s.insert(l.nz + l.first_displacement() + p.state),
                _ => {}
            }
            supports.push(s);
        }

        // Union of support × support, plus the diagonal.
        let mut rows: Vec<BitSet> = (0..n)
            .map(|i| {
                let mut r = BitSet::new(n);
                r.insert(i);
                r
            })
            .collect();
        for s in &supports {
            for i in s.iter() {
                rows[i].union_with(s);
            }
        }
        let pattern = |rows: &[BitSet]| TangentPattern {
            n,
            columns: rows.iter().map(|r| r.iter().collect()).collect(),
        };
        let fixed = pattern(&rows);
        for (_, s) in &near {
            for i in s.iter() {
                rows[i].union_with(s);
            }
        }
        SplitPattern {
            full: if near.is_empty() {
                fixed.clone()
            } else {
                pattern(&rows)
            },
            fixed,
            near: near
                .into_iter()
                .map(|(k, s)| (k, s.iter().collect()))
                .collect(),
        }
    }

    /// A pattern with every entry (what the dense path assumes without a model).
    pub fn dense(n: usize) -> TangentPattern {
        TangentPattern {
            n,
            columns: (0..n).map(|_| (0..n).collect()).collect(),
        }
    }

    pub fn contains(&self, row: usize, column: usize) -> bool {
        self.columns[column].binary_search(&row).is_ok()
    }

    pub fn nonzeros(&self) -> usize {
        self.columns.iter().map(Vec::len).sum()
    }

    /// Columns of `range` in groups whose row sets are pairwise disjoint, so each group's
    /// columns can be perturbed together (greedy distance-2 colouring, densest columns
    /// first).
    pub fn column_groups(&self, range: std::ops::Range<usize>) -> Vec<Vec<usize>> {
        let mut order: Vec<usize> = range.collect();
        order.sort_by_key(|&k| std::cmp::Reverse(self.columns[k].len()));
        let mut groups: Vec<(Vec<usize>, BitSet)> = Vec::new();
        for k in order {
            let mut rows = BitSet::new(self.n);
            for &r in &self.columns[k] {
                rows.insert(r);
            }
            match groups.iter_mut().find(|(_, used)| !used.intersects(&rows)) {
                Some((members, used)) => {
                    members.push(k);
                    used.union_with(&rows);
                }
                None => groups.push((vec![k], rows)),
            }
        }
        let mut out: Vec<Vec<usize>> = groups
            .into_iter()
            .map(|(mut g, _)| {
                g.sort_unstable();
                g
            })
            .collect();
        out.sort_unstable_by_key(|g| g[0]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitset_round_trip_and_groups_are_row_disjoint() {
        let mut a = BitSet::new(130);
        for i in [0, 63, 64, 129] {
            a.insert(i);
        }
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![0, 63, 64, 129]);
        assert!(a.contains(129) && !a.contains(128));
        // Block diagonal with one coupling row: 0–1, 2–3, 4 coupled to 0.
        let p = TangentPattern {
            n: 5,
            columns: vec![
                vec![0, 1, 4],
                vec![0, 1],
                vec![2, 3],
                vec![2, 3],
                vec![0, 4],
            ],
        };
        let groups = p.column_groups(0..5);
        for g in &groups {
            for (i, &a) in g.iter().enumerate() {
                for &b in &g[i + 1..] {
                    assert!(p.columns[a].iter().all(|r| !p.columns[b].contains(r)));
                }
            }
        }
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 5);
        assert_eq!(groups.len(), 3, "{groups:?}");
    }
}
