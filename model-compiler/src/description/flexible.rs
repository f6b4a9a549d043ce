//! `flexible = { ... }` of a body (issue 22): the body deforms in a few modes of its FE
//! model, reduced by the compiler; joints, cylinder eyes and markers sit on its declared
//! interface nodes.

use super::{Located, Name, Quantity};
use serde::Deserialize;
use toml::Spanned;

/// A flexible body: where its FE model comes from, how many modes, their damping, and the
/// interface nodes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlexibleDesc {
    /// The built-in beam mesher: a straight beam along the body's x axis.
    pub beam: Option<Located<BeamDesc>>,
    /// Or an FE model from files (relative to the description).
    pub fe: Option<Located<FeDesc>>,
    /// Number of modes kept (default 4, our choice: two per bending plane).
    pub modes: Option<Spanned<i64>>,
    /// Modal damping: one ratio for all modes (default 0.02, our choice), a list of
    /// ratios, or Rayleigh `{ alpha = …, beta = … }`.
    pub damping: Option<Spanned<DampingDesc>>,
    /// `"xy"` or `"xz"`: keep only the modes that bend in that plane (a planar machine's
    /// beam); default: all.
    pub plane: Option<Spanned<String>>,
    /// Where things attach: each node a station along the beam. The body's origin (its tree
    /// joint) is the reference node; every other point on the body attaches rigidly to the
    /// interface node at its station.
    pub nodes: Located<Vec<Located<NodeDesc>>>,
}

/// A straight beam along the body's x axis from `start` to `start + length`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeamDesc {
    pub length: Quantity,
    /// x of the first end (default 0); the body origin must lie on the beam.
    pub start: Option<Quantity>,
    /// Number of elements (default 20, our choice: 1e-5 on the lowest bending modes).
    pub elements: Option<Spanned<i64>>,
    pub section: Located<SectionDesc>,
    /// Young's modulus, Poisson's ratio, density.
    pub young: Quantity,
    pub poisson: Quantity,
    pub density: Quantity,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SectionShape {
    Rectangle,
    Box,
    Tube,
}

/// A cross-section: `rectangle` (width along y, height along z), `box` (the same with a
/// `wall`), `tube` (`diameter`, `wall`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionDesc {
    pub shape: Spanned<SectionShape>,
    pub width: Option<Quantity>,
    pub height: Option<Quantity>,
    pub diameter: Option<Quantity>,
    pub wall: Option<Quantity>,
}

/// An FE model from files: Matrix Market mass and stiffness (`%%MatrixMarket matrix
/// coordinate real general|symmetric`), node coordinates as CSV with a header naming the
/// unit of each column (`x [mm], y [mm], z [mm]`), in body axes; `dofs_per_node` 3
/// (translations, solid meshes) or 6 (translations then rotations, default).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeDesc {
    pub mass: Spanned<String>,
    pub stiffness: Spanned<String>,
    pub coordinates: Spanned<String>,
    pub dofs_per_node: Option<Spanned<i64>>,
    /// Ties the mesh nodes within this distance of the body origin to the body's joint (a
    /// rigid spider): how a solid mesh is held.
    pub reference_radius: Option<Quantity>,
}

/// An interface node: at station `at` along a beam, or FE node `node` (1-based row of the
/// coordinates file); with `radius`, a rigid spider of the mesh nodes within it of `node`
/// or of `center`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeDesc {
    pub name: Name,
    pub at: Option<Quantity>,
    pub node: Option<Spanned<i64>>,
    pub center: Option<super::Vec3>,
    pub radius: Option<Quantity>,
}

/// Rayleigh damping `α M + β K` on the elastic coordinates.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RayleighDesc {
    pub alpha: f64,
    pub beta: f64,
}

/// Modal damping as written.
#[derive(Clone, Debug)]
pub enum DampingDesc {
    Ratio(f64),
    Ratios(Vec<f64>),
    Rayleigh(RayleighDesc),
}

impl<'de> Deserialize<'de> for DampingDesc {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Ratio(f64),
            Ratios(Vec<f64>),
            Rayleigh(RayleighDesc),
        }
        match Raw::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "damping is a ratio (0.02), a list of ratios, or { alpha = …, beta = … }",
            )
        })? {
            Raw::Ratio(r) => Ok(DampingDesc::Ratio(r)),
            Raw::Ratios(r) => Ok(DampingDesc::Ratios(r)),
            Raw::Rayleigh(r) => Ok(DampingDesc::Rayleigh(r)),
        }
    }
}
