//! A solid mesh for the spider tests: a straight bar of 8-node hexahedra (full 2×2×2 Gauss
//! integration, consistent mass), 3 DOFs per node, written as the FE files a description
//! reads (Matrix Market, coordinates in mm).

use nalgebra::{DMatrix, SMatrix};
use std::path::Path;

/// A bar along x from 0 to `length`, its `width × height` section centred on the axis,
/// `n = [along, across y, across z]` elements. Nodes numbered x fastest, then y, then z.
pub struct HexBar {
    pub positions: Vec<[f64; 3]>,
    pub mass: DMatrix<f64>,
    pub stiffness: DMatrix<f64>,
}

impl HexBar {
    pub fn new(length: f64, width: f64, height: f64, n: [usize; 3], steel: [f64; 3]) -> HexBar {
        let [nx, ny, nz] = n;
        let id = |i: usize, j: usize, k: usize| i + (nx + 1) * (j + (ny + 1) * k);
        let mut positions = vec![[0.0; 3]; (nx + 1) * (ny + 1) * (nz + 1)];
        for k in 0..=nz {
            for j in 0..=ny {
                for i in 0..=nx {
                    positions[id(i, j, k)] = [
                        length * i as f64 / nx as f64,
                        width * (j as f64 / ny as f64 - 0.5),
                        height * (k as f64 / nz as f64 - 0.5),
                    ];
                }
            }
        }
        let ndof = 3 * positions.len();
        let mut mass = DMatrix::zeros(ndof, ndof);
        let mut stiffness = DMatrix::zeros(ndof, ndof);
        let size = [length / nx as f64, width / ny as f64, height / nz as f64];
        let (ke, me) = hex8(size, steel);
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let nodes = CORNERS.map(|[a, b, c]| id(i + a, j + b, k + c));
                    for (r, &nr) in nodes.iter().enumerate() {
                        for (c, &nc) in nodes.iter().enumerate() {
                            for a in 0..3 {
                                for b in 0..3 {
                                    let (row, col) = (3 * nr + a, 3 * nc + b);
                                    stiffness[(row, col)] += ke[(3 * r + a, 3 * c + b)];
                                    mass[(row, col)] += me[(3 * r + a, 3 * c + b)];
                                }
                            }
                        }
                    }
                }
            }
        }
        HexBar {
            positions,
            mass,
            stiffness,
        }
    }

    /// Writes `<stem>_M.mtx`, `<stem>_K.mtx` (symmetric, lower triangle) and
    /// `<stem>_nodes.csv` (mm) into `dir`.
    pub fn write(&self, dir: &Path, stem: &str) {
        for (matrix, tag) in [(&self.mass, "M"), (&self.stiffness, "K")] {
            let n = matrix.nrows();
            let mut lines = Vec::new();
            for j in 0..n {
                for i in j..n {
                    if matrix[(i, j)] != 0.0 {
                        lines.push(format!("{} {} {:.17e}", i + 1, j + 1, matrix[(i, j)]));
                    }
                }
            }
            let text = format!(
                "%%MatrixMarket matrix coordinate real symmetric\n{n} {n} {}\n{}\n",
                lines.len(),
                lines.join("\n")
            );
            std::fs::write(dir.join(format!("{stem}_{tag}.mtx")), text).unwrap();
        }
        let nodes: Vec<String> = (self.positions.iter())
            .map(|p| format!("{}, {}, {}", p[0] * 1e3, p[1] * 1e3, p[2] * 1e3))
            .collect();
        let text = format!("x [mm], y [mm], z [mm]\n{}\n", nodes.join("\n"));
        std::fs::write(dir.join(format!("{stem}_nodes.csv")), text).unwrap();
    }

    /// The nodes at `x` (a cross-section of the mesh).
    pub fn section_nodes(&self, x: f64) -> Vec<usize> {
        (self.positions.iter().enumerate())
            .filter(|(_, p)| (p[0] - x).abs() < 1e-9)
            .map(|(i, _)| i)
            .collect()
    }
}

/// The corners of a hexahedron in the order of its shape functions.
const CORNERS: [[usize; 3]; 8] = [
    [0, 0, 0],
    [1, 0, 0],
    [1, 1, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 0, 1],
    [1, 1, 1],
    [0, 1, 1],
];

/// Stiffness and consistent mass of a rectangular hexahedron of edges `size`, material
/// `[E, ν, ρ]`.
fn hex8(size: [f64; 3], [e, nu, rho]: [f64; 3]) -> (SMatrix<f64, 24, 24>, SMatrix<f64, 24, 24>) {
    let lambda = e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    let mu = e / (2.0 * (1.0 + nu));
    let mut d = SMatrix::<f64, 6, 6>::zeros();
    for a in 0..3 {
        for b in 0..3 {
            d[(a, b)] = lambda;
        }
        d[(a, a)] += 2.0 * mu;
        d[(a + 3, a + 3)] = mu;
    }
    let g = 1.0 / 3f64.sqrt();
    let jacobian = size[0] * size[1] * size[2] / 8.0;
    let (mut ke, mut me) = (SMatrix::zeros(), SMatrix::zeros());
    for xi in [
        [-g, -g, -g],
        [g, -g, -g],
        [g, g, -g],
        [-g, g, -g],
        [-g, -g, g],
        [g, -g, g],
        [g, g, g],
        [-g, g, g],
    ] {
        let mut b = SMatrix::<f64, 6, 24>::zeros();
        let mut shape = [0.0; 8];
        for (n, corner) in CORNERS.iter().enumerate() {
            let s = corner.map(|c| if c == 0 { -1.0 } else { 1.0 });
            let f = [0, 1, 2].map(|a| 1.0 + s[a] * xi[a]);
            shape[n] = f[0] * f[1] * f[2] / 8.0;
            // ∂N/∂x_a = s_a Π_{b≠a} f_b / 8 · 2/size_a.
            let grad =
                [0, 1, 2].map(|a| s[a] * f[(a + 1) % 3] * f[(a + 2) % 3] / 8.0 * 2.0 / size[a]);
            let c = 3 * n;
            b[(0, c)] = grad[0];
            b[(1, c + 1)] = grad[1];
            b[(2, c + 2)] = grad[2];
            (b[(3, c)], b[(3, c + 1)]) = (grad[1], grad[0]);
            (b[(4, c + 1)], b[(4, c + 2)]) = (grad[2], grad[1]);
            (b[(5, c)], b[(5, c + 2)]) = (grad[2], grad[0]);
        }
        ke += b.transpose() * d * b * jacobian;
        for p in 0..8 {
            for q in 0..8 {
                for a in 0..3 {
                    me[(3 * p + a, 3 * q + a)] += rho * shape[p] * shape[q] * jacobian;
                }
            }
        }
    }
    (ke, me)
}
