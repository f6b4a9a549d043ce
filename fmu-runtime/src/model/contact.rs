//! Contact: collision shapes on bodies, the ground they touch, and the material law of
//! each pair (see [`crate::contact`] for the detection and the force law).

use super::ParamId;
use serde::{Deserialize, Serialize};

/// The ground's surface: a plane through `point` with unit `normal` pointing out of the
/// ground (world axes, fixed).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroundPlane {
    pub point: [f64; 3],
    pub normal: [f64; 3],
}

/// A heightfield: heights on a regular grid in world x–y, the surface bilinear in each
/// cell, its slopes the samples' central differences interpolated the same way (exact
/// for planes, and continuous across cell edges, so a contact's force turns smoothly as
/// it rolls over them: bilinear heights alone would kink at every edge, and Newton would
/// not settle a ball resting on one). Beyond the grid the edge heights go on, level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Heightfield {
    /// World position of the first sample (its height is `origin[2] + heights[0]`).
    pub origin: [f64; 3],
    /// Sample spacing along x and y [m].
    pub spacing: [f64; 2],
    /// Samples along x (a row) and along y (rows).
    pub columns: usize,
    pub rows: usize,
    /// Row after row (y), each along x [m].
    pub heights: Vec<f64>,
}

impl Heightfield {
    fn at(&self, i: usize, j: usize) -> f64 {
        self.heights[j * self.columns + i]
    }

    /// The slopes at sample (i, j): central differences, one-sided at the grid's edges.
    fn sample_slopes(&self, i: usize, j: usize) -> (f64, f64) {
        let (il, ir) = (i.saturating_sub(1), (i + 1).min(self.columns - 1));
        let (jl, jr) = (j.saturating_sub(1), (j + 1).min(self.rows - 1));
        let gx = (self.at(ir, j) - self.at(il, j)) / ((ir - il) as f64 * self.spacing[0]);
        let gy = (self.at(i, jr) - self.at(i, jl)) / ((jr - jl) as f64 * self.spacing[1]);
        (gx, gy)
    }

    /// Height [m] and its slopes ∂h/∂x, ∂h/∂y at world (x, y).
    pub fn surface(&self, x: f64, y: f64) -> (f64, f64, f64) {
        let (i, u, in_x) = cell(x - self.origin[0], self.spacing[0], self.columns);
        let (j, v, in_y) = cell(y - self.origin[1], self.spacing[1], self.rows);
        let blend = |a: f64, b: f64, c: f64, d: f64| {
            (1.0 - v) * ((1.0 - u) * a + u * b) + v * ((1.0 - u) * c + u * d)
        };
        let h = blend(
            self.at(i, j),
            self.at(i + 1, j),
            self.at(i, j + 1),
            self.at(i + 1, j + 1),
        );
        let corners = [
            self.sample_slopes(i, j),
            self.sample_slopes(i + 1, j),
            self.sample_slopes(i, j + 1),
            self.sample_slopes(i + 1, j + 1),
        ];
        let hx = blend(corners[0].0, corners[1].0, corners[2].0, corners[3].0);
        let hy = blend(corners[0].1, corners[1].1, corners[2].1, corners[3].1);
        (
            self.origin[2] + h,
            if in_x { hx } else { 0.0 },
            if in_y { hy } else { 0.0 },
        )
    }
}

/// The cell of coordinate `d` (from the first sample) on an axis of `n` samples `step`
/// apart, the position in it (0 to 1, clamped beyond the grid) and whether `d` is on the
/// grid along this axis.
fn cell(d: f64, step: f64, n: usize) -> (usize, f64, bool) {
    let t = d / step;
    let last = (n - 2) as f64;
    let i = t.floor().clamp(0.0, last);
    let on = t >= 0.0 && t <= last + 1.0;
    (i as usize, (t - i).clamp(0.0, 1.0), on)
}

/// What the shapes stand on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Ground {
    Plane(GroundPlane),
    Heightfield(Heightfield),
}

impl Ground {
    /// Depth of world point `p` below the surface [m] (negative: above) and the surface's
    /// unit normal out of the ground there. For a heightfield: the vertical depth times
    /// the normal's z, the distance to the local tangent plane.
    pub fn depth_at(&self, p: &[f64; 3]) -> (f64, [f64; 3]) {
        match self {
            Ground::Plane(g) => {
                let n = g.normal;
                let d = (0..3).map(|k| n[k] * (g.point[k] - p[k])).sum();
                (d, n)
            }
            Ground::Heightfield(hf) => {
                let (h, hx, hy) = hf.surface(p[0], p[1]);
                let norm = (1.0 + hx * hx + hy * hy).sqrt();
                ((h - p[2]) / norm, [-hx / norm, -hy / norm, 1.0 / norm])
            }
        }
    }

    /// Finite, positive sizes, a unit normal, a grid of 2 × 2 samples or more whose
    /// heights fill it: what the narrow phase relies on.
    pub fn validate(&self) -> Result<(), String> {
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        match self {
            Ground::Plane(g) => {
                let n = g.normal;
                let norm = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                let unit = (norm - 1.0).abs().partial_cmp(&1e-9) == Some(std::cmp::Ordering::Less);
                if !finite(&g.point) || !unit {
                    return Err("the ground plane needs a finite point and a unit normal".into());
                }
            }
            Ground::Heightfield(hf) => {
                let sized = hf.columns >= 2
                    && hf.rows >= 2
                    && hf.columns.checked_mul(hf.rows) == Some(hf.heights.len());
                let spaced = hf.spacing.iter().all(|s| *s > 0.0 && s.is_finite());
                if !sized || !spaced || !finite(&hf.origin) || !finite(&hf.heights) {
                    return Err(
                        "the heightfield needs 2 × 2 finite heights or more, filling its grid, and positive spacings"
                            .into(),
                    );
                }
            }
        }
        Ok(())
    }
}

/// A collision shape in body coordinates [m].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Geometry {
    Sphere {
        center: [f64; 3],
        radius: f64,
    },
    /// An oriented box (the seeds' OBB): `rotation` (unit quaternion `[w, x, y, z]`) turns
    /// the box axes into body axes; `half` are the half edge lengths.
    Box {
        center: [f64; 3],
        rotation: [f64; 4],
        half: [f64; 3],
    },
    /// The points within `radius` of the segment `from`–`to`.
    Capsule {
        from: [f64; 3],
        to: [f64; 3],
        radius: f64,
    },
    /// A solid circular cylinder between the centres of its end faces.
    Cylinder {
        from: [f64; 3],
        to: [f64; 3],
        radius: f64,
    },
    /// A convex hull (of a mesh file's vertices, computed by the compiler):
    /// [`Contacts::hulls`]`[hull]`, of `count` vertices and `edges` edges (what the point
    /// counts need). It touches the ground at its vertices, as a box at its corners, and
    /// other bodies as a box does ([`crate::contact::polytope`]).
    Hull {
        hull: usize,
        count: usize,
        edges: usize,
    },
}

/// A collision hull in body axes [m], as the compiler computed it from a mesh.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hull {
    pub vertices: Vec<[f64; 3]>,
    /// Its faces' planes, `[n; d]`: outward unit normal `n`, inside where `n·x ≤ d`
    /// (coplanar triangles make one face).
    pub planes: Vec<[f64; 4]>,
    /// Its edges between two faces, as vertex index pairs (a face's triangulation adds
    /// none).
    pub edges: Vec<[u32; 2]>,
    /// Its surface as triangles of vertex indices (the nearest point of a shape outside).
    pub triangles: Vec<[u32; 3]>,
    /// A sphere around it (the broad phase): centre and radius.
    pub center: [f64; 3],
    pub radius: f64,
}

impl Hull {
    /// Finite vertices and sizes, unit normals, indices in range, every vertex inside its
    /// sphere and its planes: what the narrow phase relies on.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.vertices.len();
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        let unit = |p: &[f64; 4]| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] - 1.0).abs() < 1e-9;
        let vertex = |i: u32| (i as usize) < n;
        let reach = self.radius * (1.0 + 1e-9);
        let vertices_ok = (4..=MAX_HULL_VERTICES).contains(&n)
            && self.vertices.iter().all(|v| {
                let d: [f64; 3] = std::array::from_fn(|k| v[k] - self.center[k]);
                finite(v) && (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() <= reach
            });
        let planes_ok = self.planes.len() >= 4
            && self.planes.iter().all(|p| finite(p) && unit(p))
            && self.vertices.iter().all(|v| {
                self.planes.iter().all(|p| {
                    p[0] * v[0] + p[1] * v[1] + p[2] * v[2] - p[3] <= 1e-9 * (1.0 + self.radius)
                })
            });
        let topology_ok = self.edges.iter().flatten().all(|&i| vertex(i))
            && self.triangles.len() >= 4
            && self.triangles.iter().flatten().all(|&i| vertex(i));
        if vertices_ok && planes_ok && topology_ok && finite(&self.center) && self.radius > 0.0 {
            Ok(())
        } else {
            Err("a collision hull has bad vertices, faces or edges".into())
        }
    }
}

/// Most vertices a collision hull may have (the compiler simplifies nothing: a finer mesh
/// is refused with this number).
pub const MAX_HULL_VERTICES: usize = 256;

/// The most candidate points a shape or a pair of shapes offers (two boxes' corners and
/// edges).
pub const MAX_POINTS: usize = 40;

/// Contact points each shape offers the ground (fixed, so buffers are sized once): a
/// sphere its lowest point, a capsule its two end spheres', a box its corners, a cylinder
/// three rim points on each end circle (see [`crate::contact::ground`]).
pub const fn points_of(g: &Geometry) -> usize {
    match g {
        Geometry::Sphere { .. } => 1,
        Geometry::Capsule { .. } => 2,
        Geometry::Box { .. } => 8,
        Geometry::Cylinder { .. } => 6,
        Geometry::Hull { count, .. } => *count,
    }
}

/// Candidates a convex solid offers against another (its vertices and edges); none for
/// shapes that are not.
const fn polytope_points(g: &Geometry) -> usize {
    match g {
        Geometry::Box { .. } => 8 + 12,
        Geometry::Hull { count, edges, .. } => *count + *edges,
        _ => 0,
    }
}

/// Contact points a pair of shapes on two bodies offers (see
/// [`crate::contact::pairwise`]): a sphere one, capsule–capsule five (four ends and a
/// crossing), capsule–box three (two ends and a crossing), box–box forty (the corners
/// and edges of each).
pub const fn pair_points(a: &Geometry, b: &Geometry) -> usize {
    match (a, b) {
        (Geometry::Cylinder { .. }, _) | (_, Geometry::Cylinder { .. }) => 0,
        (Geometry::Sphere { .. }, _) | (_, Geometry::Sphere { .. }) => 1,
        (Geometry::Capsule { .. }, Geometry::Capsule { .. }) => 5,
        (Geometry::Capsule { .. }, _) | (_, Geometry::Capsule { .. }) => 3,
        (Geometry::Box { .. }, Geometry::Box { .. }) => 40,
        _ => polytope_points(a) + polytope_points(b),
    }
}

impl Geometry {
    /// Whether two bodies' shapes of these kinds can touch (a cylinder touches only the
    /// ground so far).
    pub const fn pairs_with_bodies(&self) -> bool {
        !matches!(self, Geometry::Cylinder { .. })
    }

    /// Positive sizes, a capsule or cylinder of some length, all finite: what the narrow
    /// phase needs.
    pub fn is_valid(&self) -> bool {
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        match *self {
            Geometry::Sphere { center, radius } => finite(&center) && radius > 0.0,
            Geometry::Box {
                center,
                rotation,
                half,
            } => finite(&center) && finite(&rotation) && half.iter().all(|h| *h > 0.0),
            Geometry::Capsule { from, to, radius } | Geometry::Cylinder { from, to, radius } => {
                finite(&from) && finite(&to) && radius > 0.0 && from != to
            }
            // The hull itself: [`Contacts::validate`].
            Geometry::Hull { count, .. } => (4..=MAX_HULL_VERTICES).contains(&count),
        }
    }
}

/// How a contact resists penetration and sliding.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Material {
    /// Secant stiffness at the reference penetration [`REFERENCE_DEPTH`] [N/m]: the
    /// spring is `F = k·d_ref·(δ/d_ref)^n` (so `k` is the plain stiffness when n = 1).
    pub stiffness: ParamId,
    /// Hertz exponent n (1.5 for curved shapes, 1 for flat ones unless given).
    pub exponent: f64,
    /// Coefficient of restitution e ∈ (0, 1] and the dimensionless damping factor γ that
    /// gives it (computed by the compiler, [`crate::contact::law::damping_for_restitution`]).
    pub restitution: f64,
    pub damping: f64,
    /// Static and kinetic friction coefficients [-].
    pub static_friction: ParamId,
    pub kinetic_friction: ParamId,
    /// Slip speed below which friction is regularized towards zero [m/s] and the speed
    /// over which static friction falls to kinetic (Stribeck) [m/s].
    pub stiction_velocity: ParamId,
    pub stribeck_velocity: ParamId,
    /// LuGre bristles instead of the regularized Coulomb law (`friction_model = "lugre"`).
    pub bristles: Option<Bristles>,
}

/// LuGre friction's bristles (seed 000 §2.12; Canudas de Wit et al. 1995), normalized by
/// the normal force: `F_t = F_n (σ0 z + σ1 ż)` with a deflection z per contact point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bristles {
    /// σ0 [1/m]: `μ/σ0` is the presliding displacement.
    pub stiffness: ParamId,
    /// σ1 [s/m]: the bristles' damping.
    pub damping: ParamId,
}

/// Deflection states per contact point with bristles: a world vector (its normal part
/// carries no force), so no tangent basis has to turn with the normal.
pub const BRISTLE_STATES: usize = 3;

/// Penetration at which [`Material::stiffness`] is the secant stiffness [m] (our choice:
/// the order of a stiff machine contact's penetration).
pub const REFERENCE_DEPTH: f64 = 1e-3;

/// A collision shape on a body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CollisionShape {
    pub body: usize,
    pub geometry: Geometry,
    pub material: Material,
}

/// The law between one shape of a pair's body and the ground or a shape of the other
/// body. Against the ground it is the shape's own; between two shapes the compiler
/// combines them (the larger exponent, the smaller restitution; stiffness in series and
/// the smaller friction at run time, from both shapes' tunable slots).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShapeContact {
    /// Index into [`Contacts::shapes`] of the shape on the pair's body, and of the other
    /// body's (none: the ground).
    pub shape: usize,
    pub other: Option<usize>,
    pub exponent: f64,
    pub restitution: f64,
    pub damping: f64,
    /// The bristles of the shape that has them (between two shapes: this body's, else the
    /// other's); none: regularized Coulomb friction.
    pub bristles: Option<Bristles>,
}

/// The other side of a pair between two bodies.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OtherBody {
    pub body: usize,
    /// Its mass [kg]: the restitution is calibrated for the pair's reduced mass.
    pub mass: ParamId,
}

/// The shapes of one body against the ground, or against another body's: one set of
/// outputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactPair {
    /// Output prefix, `contact.<name>`: the body's name, or `<body>.<other>`.
    pub name: String,
    pub body: usize,
    /// The shape contacts, each naming its shapes.
    pub shapes: Vec<ShapeContact>,
    /// The mass the restitution is calibrated for [kg] (the body's own, a tunable slot).
    pub mass: ParamId,
    /// The other body; none: the ground.
    pub other: Option<OtherBody>,
    /// Named only through a `group` (each against each): most such pairs are apart most of
    /// the time, so the sparse tangent couples their bodies only while they are near
    /// (`solver::near_pairs`); a pair named in `pairs` is coupled always.
    pub grouped: bool,
}

/// Every contact of a machine; empty when it touches nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Contacts {
    pub ground: Option<Ground>,
    pub shapes: Vec<CollisionShape>,
    pub pairs: Vec<ContactPair>,
    /// Every collision hull ([`Geometry::Hull`] names them).
    pub hulls: Vec<Hull>,
}

impl Contacts {
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Candidate contact points of one shape contact.
    pub fn points_of(&self, c: &ShapeContact) -> usize {
        let a = &self.shapes[c.shape].geometry;
        match c.other {
            None => points_of(a),
            Some(b) => pair_points(a, &self.shapes[b].geometry),
        }
    }

    /// Bristle states of all points, in pair then shape then point order (after the
    /// circuit's friction states in w).
    pub fn bristle_states(&self) -> usize {
        self.pairs
            .iter()
            .flat_map(|p| &p.shapes)
            .filter(|c| c.bristles.is_some())
            .map(|c| BRISTLE_STATES * self.points_of(c))
            .sum()
    }

    /// The most candidates one shape contact has (the evaluation's buffer).
    pub fn most_points(&self) -> usize {
        self.pairs
            .iter()
            .flat_map(|p| &p.shapes)
            .map(|c| self.points_of(c))
            .max()
            .unwrap_or(0)
    }

    /// Whether the sparse tangent couples a pair's bodies only while they are near: a
    /// grouped pair between two bodies whose shapes have no bristles (a bristle point's
    /// states couple both bodies at all times).
    pub fn is_near_only(&self, pair: &ContactPair) -> bool {
        pair.grouped && pair.other.is_some() && pair.shapes.iter().all(|c| c.bristles.is_none())
    }

    /// Indices of the pairs [`Contacts::is_near_only`] holds for, in pair order.
    pub fn near_only_pairs(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.pairs.len()).filter(|&k| self.is_near_only(&self.pairs[k]))
    }

    /// Candidate contact points of all pairs, in pair then shape order.
    pub fn points(&self) -> usize {
        self.pairs
            .iter()
            .flat_map(|p| &p.shapes)
            .map(|c| self.points_of(c))
            .sum()
    }

    pub fn collect_params(&self, out: &mut Vec<ParamId>) {
        for s in &self.shapes {
            let m = &s.material;
            out.extend([
                m.stiffness,
                m.static_friction,
                m.kinetic_friction,
                m.stiction_velocity,
                m.stribeck_velocity,
            ]);
            if let Some(b) = m.bristles {
                out.extend([b.stiffness, b.damping]);
            }
        }
        for p in &self.pairs {
            out.push(p.mass);
            out.extend(p.other.map(|o| o.mass));
        }
    }

    /// Indices in range, finite positive sizes, unit normals; what the solver relies on.
    pub fn validate(&self, bodies: usize) -> Result<(), String> {
        if let Some(g) = &self.ground {
            g.validate()?;
        }
        for (i, s) in self.shapes.iter().enumerate() {
            if s.body >= bodies {
                return Err(format!("collision shape {i} is on a missing body"));
            }
            let hull_ok = match s.geometry {
                Geometry::Hull { hull, count, edges } => self.hulls.get(hull).is_some_and(|h| {
                    h.vertices.len() == count && h.edges.len() == edges && h.validate().is_ok()
                }),
                _ => true,
            };
            let ok = s.geometry.is_valid() && hull_ok;
            let m = &s.material;
            if !ok || !law_ok(m.exponent, m.restitution, m.damping) {
                return Err(format!("collision shape {i} has a bad size or law"));
            }
        }
        let grounded = self.pairs.iter().any(|p| p.other.is_none());
        if grounded && self.ground.is_none() {
            return Err("contact pairs without a ground".into());
        }
        let n = self.shapes.len();
        for p in &self.pairs {
            let on = |s: usize, body: usize| s < n && self.shapes[s].body == body;
            let other = p.other.map(|o| o.body);
            let shapes_ok = p.shapes.iter().all(|c| {
                let law = law_ok(c.exponent, c.restitution, c.damping);
                let sides = match (c.other, other) {
                    (None, None) => true,
                    (Some(b), Some(ob)) => {
                        on(b, ob)
                            && self.shapes[c.shape].geometry.pairs_with_bodies()
                            && self.shapes[b].geometry.pairs_with_bodies()
                    }
                    _ => false,
                };
                on(c.shape, p.body) && sides && law
            });
            if p.body >= bodies || other.is_some_and(|o| o >= bodies || o == p.body) || !shapes_ok {
                return Err(format!("contact pair {} refers to a missing shape", p.name));
            }
        }
        Ok(())
    }
}

/// A normal law the solver can use: exponent 1 to 3, restitution in (0, 1], a finite
/// damping factor of zero or more.
fn law_ok(exponent: f64, restitution: f64, damping: f64) -> bool {
    (1.0..=3.0).contains(&exponent)
        && restitution > 0.0
        && restitution <= 1.0
        && damping >= 0.0
        && damping.is_finite()
}
