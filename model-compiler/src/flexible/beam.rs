//! The built-in beam mesher for booms (issue 22, "a built-in beam mesher"): a straight
//! beam along the body's x axis cut into N two-node 3-D Euler–Bernoulli frame elements
//! (axial, torsion, bending about y and about z), with consistent mass, so that a user
//! without an FE tool makes a boom flexible in a few lines.
//!
//! Node k sits at x = k L / N; its 6 DOFs are (u, v, w, θx, θy, θz). The element matrices
//! are the classical ones (Przemieniecki, *Theory of Matrix Structural Analysis*, 1968,
//! §5.6 stiffness and §11.4 consistent mass; the rotary inertia of the section is left out,
//! as in Euler–Bernoulli theory).

use super::matrix_market::Triplets;
use nalgebra::{DMatrix, SMatrix};

/// DOFs per node.
pub const NODE_DOFS: usize = 6;

/// A beam cross-section, dimensions in m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Section {
    /// Solid rectangle: width along y, height along z.
    Rectangle { width: f64, height: f64 },
    /// Hollow rectangle (a boom's box) of constant wall thickness.
    Box { width: f64, height: f64, wall: f64 },
    /// Circular tube.
    Tube { outer_diameter: f64, wall: f64 },
}

/// Area, second moments about y and z, torsion constant [m², m⁴, m⁴, m⁴].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SectionProperties {
    pub area: f64,
    pub iy: f64,
    pub iz: f64,
    pub torsion: f64,
}

impl Section {
    /// The section's properties; `Err` for dimensions that do not make a section.
    pub fn properties(self) -> Result<SectionProperties, String> {
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("the section's {name} must be positive, is {v} m"))
            }
        };
        match self {
            Section::Rectangle {
                width: b,
                height: h,
            } => {
                positive("width", b)?;
                positive("height", h)?;
                let (a, s) = (b.max(h), b.min(h));
                // Saint-Venant torsion of a solid rectangle (Roark, table 10.1, case 4).
                let torsion = a
                    * s.powi(3)
                    * (1.0 / 3.0 - 0.21 * s / a * (1.0 - s.powi(4) / (12.0 * a.powi(4))));
                Ok(SectionProperties {
                    area: b * h,
                    iy: b * h.powi(3) / 12.0,
                    iz: h * b.powi(3) / 12.0,
                    torsion,
                })
            }
            Section::Box {
                width: b,
                height: h,
                wall: t,
            } => {
                positive("width", b)?;
                positive("height", h)?;
                positive("wall", t)?;
                if 2.0 * t >= b.min(h) {
                    return Err(format!(
                        "the box's wall {t} m must be less than half its smaller side {} m",
                        b.min(h)
                    ));
                }
                let (bi, hi) = (b - 2.0 * t, h - 2.0 * t);
                // Bredt's thin-walled closed section on the wall's mid-line.
                let (bm, hm) = (b - t, h - t);
                Ok(SectionProperties {
                    area: b * h - bi * hi,
                    iy: (b * h.powi(3) - bi * hi.powi(3)) / 12.0,
                    iz: (h * b.powi(3) - hi * bi.powi(3)) / 12.0,
                    torsion: 2.0 * t * (bm * hm).powi(2) / (bm + hm),
                })
            }
            Section::Tube {
                outer_diameter: d,
                wall: t,
            } => {
                positive("outer diameter", d)?;
                positive("wall", t)?;
                if 2.0 * t > d {
                    return Err(format!(
                        "the tube's wall {t} m is thicker than its radius {} m",
                        d / 2.0
                    ));
                }
                let di = d - 2.0 * t;
                let pi = std::f64::consts::PI;
                let i = pi * (d.powi(4) - di.powi(4)) / 64.0;
                Ok(SectionProperties {
                    area: pi * (d * d - di * di) / 4.0,
                    iy: i,
                    iz: i,
                    torsion: 2.0 * i,
                })
            }
        }
    }
}

/// A straight beam: length along x, elements, section and material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beam {
    pub length: f64,
    pub elements: usize,
    pub section: Section,
    /// Young's modulus [Pa], Poisson's ratio [-], density [kg/m³].
    pub young: f64,
    pub poisson: f64,
    pub density: f64,
}

/// The FE model of a beam: node positions along x and the global mass and stiffness
/// matrices (6 DOFs per node, node-major).
#[derive(Clone, Debug)]
pub struct BeamModel {
    pub nodes: Vec<f64>,
    pub mass: DMatrix<f64>,
    pub stiffness: DMatrix<f64>,
    pub section: SectionProperties,
}

type Element = SMatrix<f64, 12, 12>;

impl Beam {
    /// Assembles the beam; `Err` for a beam that cannot be meshed.
    pub fn mesh(&self) -> Result<BeamModel, String> {
        self.check()?;
        if self.elements == 0 {
            return Err("the beam needs at least one element".into());
        }
        let n = self.elements;
        let le = self.length / n as f64;
        self.assemble(&(0..=n).map(|k| k as f64 * le).collect::<Vec<_>>())
    }

    /// Material, length and section usable.
    fn check(&self) -> Result<(), String> {
        if !(self.length.is_finite() && self.length > 0.0) {
            return Err(format!(
                "the beam's length must be positive, is {} m",
                self.length
            ));
        }
        for (name, v) in [("Young's modulus", self.young), ("density", self.density)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(format!("the beam's {name} must be positive, is {v}"));
            }
        }
        if !(self.poisson > -1.0 && self.poisson < 0.5) {
            return Err(format!(
                "Poisson's ratio must lie in (−1, 0.5), is {}",
                self.poisson
            ));
        }
        self.section.properties().map(|_| ())
    }

    /// Assembles the beam with nodes at `stations` (x from 0 to the length, increasing):
    /// the compiler puts nodes where things attach. `self.elements` is not used.
    pub fn mesh_at(&self, stations: &[f64]) -> Result<BeamModel, String> {
        let ends_ok = stations
            .first()
            .is_some_and(|x| x.abs() <= 1e-9 * self.length)
            && stations
                .last()
                .is_some_and(|x| (x - self.length).abs() <= 1e-9 * self.length);
        if stations.len() < 2 || !ends_ok || stations.windows(2).any(|w| w[1] <= w[0]) {
            return Err(format!(
                "mesh stations must rise from 0 to the length {} m",
                self.length
            ));
        }
        self.check()?;
        self.assemble(stations)
    }

    fn assemble(&self, nodes: &[f64]) -> Result<BeamModel, String> {
        let (mass, stiffness) = self.triplets(nodes)?;
        Ok(BeamModel {
            nodes: nodes.to_vec(),
            mass: mass.dense(),
            stiffness: stiffness.dense(),
            section: self.section.properties()?,
        })
    }

    /// The mass and stiffness matrices with nodes at `nodes` as triplets (element by
    /// element): a mesh too fine to hold dense (the sparse reduction's checks).
    pub fn triplets(&self, nodes: &[f64]) -> Result<(Triplets, Triplets), String> {
        let s = self.section.properties()?;
        let size = nodes.len() * NODE_DOFS;
        let (mut mass, mut stiffness) = (Vec::new(), Vec::new());
        for (e, w) in nodes.windows(2).enumerate() {
            let le = w[1] - w[0];
            let (ke, me) = (self.element_stiffness(&s, le), self.element_mass(&s, le));
            let at = e * NODE_DOFS;
            for i in 0..12 {
                for j in 0..12 {
                    if ke[(i, j)] != 0.0 {
                        stiffness.push((at + i, at + j, ke[(i, j)]));
                    }
                    if me[(i, j)] != 0.0 {
                        mass.push((at + i, at + j, me[(i, j)]));
                    }
                }
            }
        }
        let t = |entries| Triplets { size, entries };
        Ok((t(mass), t(stiffness)))
    }

    fn element_stiffness(&self, s: &SectionProperties, l: f64) -> Element {
        let e = self.young;
        let g = e / (2.0 * (1.0 + self.poisson));
        let mut k = Element::zeros();
        let mut put = |i: usize, j: usize, v: f64| {
            k[(i, j)] += v;
            if i != j {
                k[(j, i)] += v;
            }
        };
        // Axial (u1 = 0, u2 = 6) and torsion (θx1 = 3, θx2 = 9).
        let (a, t) = (e * s.area / l, g * s.torsion / l);
        put(0, 0, a);
        put(6, 6, a);
        put(0, 6, -a);
        put(3, 3, t);
        put(9, 9, t);
        put(3, 9, -t);
        // Bending in x–y (v, θz: 1, 5, 7, 11) with I_z, and in x–z (w, θy: 2, 4, 8, 10)
        // with I_y; θy = −dw/dx, hence the sign flips in the second plane.
        for (v1, r1, v2, r2, i, sign) in [(1, 5, 7, 11, s.iz, 1.0), (2, 4, 8, 10, s.iy, -1.0)] {
            let c = e * i / l.powi(3);
            put(v1, v1, 12.0 * c);
            put(v2, v2, 12.0 * c);
            put(v1, v2, -12.0 * c);
            put(v1, r1, sign * 6.0 * l * c);
            put(v1, r2, sign * 6.0 * l * c);
            put(v2, r1, -sign * 6.0 * l * c);
            put(v2, r2, -sign * 6.0 * l * c);
            put(r1, r1, 4.0 * l * l * c);
            put(r2, r2, 4.0 * l * l * c);
            put(r1, r2, 2.0 * l * l * c);
        }
        k
    }

    fn element_mass(&self, s: &SectionProperties, l: f64) -> Element {
        let m = self.density * s.area * l;
        let mut me = Element::zeros();
        let mut put = |i: usize, j: usize, v: f64| {
            me[(i, j)] += v;
            if i != j {
                me[(j, i)] += v;
            }
        };
        // Axial and torsion (polar mass moment ρ J_p l, J_p = I_y + I_z).
        put(0, 0, m / 3.0);
        put(6, 6, m / 3.0);
        put(0, 6, m / 6.0);
        let jp = self.density * (s.iy + s.iz) * l;
        put(3, 3, jp / 3.0);
        put(9, 9, jp / 3.0);
        put(3, 9, jp / 6.0);
        for (v1, r1, v2, r2, sign) in [(1, 5, 7, 11, 1.0), (2, 4, 8, 10, -1.0)] {
            let c = m / 420.0;
            put(v1, v1, 156.0 * c);
            put(v2, v2, 156.0 * c);
            put(v1, v2, 54.0 * c);
            put(v1, r1, sign * 22.0 * l * c);
            put(v2, r2, -sign * 22.0 * l * c);
            put(v1, r2, -sign * 13.0 * l * c);
            put(v2, r1, sign * 13.0 * l * c);
            put(r1, r1, 4.0 * l * l * c);
            put(r2, r2, 4.0 * l * l * c);
            put(r1, r2, -3.0 * l * l * c);
        }
        me
    }
}
