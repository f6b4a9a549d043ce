//! Where each FE node's DOFs sit: 3 per node (a solid's translations) or 6 (a beam's or
//! shell's translations, then its rotation vector), in node order. One FE model may mix
//! them: a solid mesh whose pin bores are tied to 6-DOF spider masters ([`super::spider`]).

/// The DOF layout of an FE model's nodes.
///
/// ```
/// use model_compiler::flexible::dofs::NodeDofs;
/// let dofs = NodeDofs::from_counts([3, 3, 6]);
/// assert_eq!((dofs.total(), dofs.start(2), dofs.rotations(2)), (12, 6, Some(9)));
/// assert_eq!(dofs.node_of(10), (2, 4));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDofs {
    /// The first DOF of every node, and the total at the end.
    starts: Vec<usize>,
}

impl NodeDofs {
    /// `nodes` nodes of `per` DOFs each.
    pub fn uniform(nodes: usize, per: usize) -> NodeDofs {
        NodeDofs::from_counts(std::iter::repeat_n(per, nodes))
    }

    /// The nodes' DOF counts (3 or 6 each), in order.
    pub fn from_counts(counts: impl IntoIterator<Item = usize>) -> NodeDofs {
        let mut starts = vec![0];
        for c in counts {
            starts.push(starts[starts.len() - 1] + c);
        }
        NodeDofs { starts }
    }

    pub fn nodes(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn total(&self) -> usize {
        self.starts[self.starts.len() - 1]
    }

    /// The node's first DOF (its x translation).
    pub fn start(&self, node: usize) -> usize {
        self.starts[node]
    }

    pub fn count(&self, node: usize) -> usize {
        self.starts[node + 1] - self.starts[node]
    }

    /// The node's first rotation DOF, if it has rotations.
    pub fn rotations(&self, node: usize) -> Option<usize> {
        (self.count(node) == 6).then(|| self.starts[node] + 3)
    }

    /// The node of a DOF and the DOF's place in it (0–2 translations, 3–5 rotations).
    pub fn node_of(&self, dof: usize) -> (usize, usize) {
        let node = self.starts.partition_point(|&s| s <= dof) - 1;
        (node, dof - self.starts[node])
    }

    /// Whether every node has 3 DOFs (a solid mesh without spiders).
    pub fn translations_only(&self) -> bool {
        (0..self.nodes()).all(|n| self.count(n) == 3)
    }
}
