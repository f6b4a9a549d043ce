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
}

/// The most candidate points a shape or a pair of shapes offers (two boxes' corners and
/// edges).
pub const MAX_POINTS: usize = 40;

/// Contact points each shape offers the ground (fixed, so buffers are sized once): a
/// sphere its lowest point, a capsule its two end spheres', a box its corners, a cylinder
/// three rim points on each end circle (see [`crate::contact::plane`]).
pub const fn points_of(g: &Geometry) -> usize {
    match g {
        Geometry::Sphere { .. } => 1,
        Geometry::Capsule { .. } => 2,
        Geometry::Box { .. } => 8,
        Geometry::Cylinder { .. } => 6,
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
        (Geometry::Capsule { .. }, Geometry::Box { .. })
        | (Geometry::Box { .. }, Geometry::Capsule { .. }) => 3,
        _ => 40,
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
}

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
}

/// Every contact of a machine; empty when it touches nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Contacts {
    pub ground: Option<GroundPlane>,
    pub shapes: Vec<CollisionShape>,
    pub pairs: Vec<ContactPair>,
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
        }
        for p in &self.pairs {
            out.push(p.mass);
            out.extend(p.other.map(|o| o.mass));
        }
    }

    /// Indices in range, finite positive sizes, unit normals; what the solver relies on.
    pub fn validate(&self, bodies: usize) -> Result<(), String> {
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if let Some(g) = &self.ground {
            let n = g.normal;
            let norm = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if !finite(&g.point)
                || (norm - 1.0).abs().partial_cmp(&1e-9) != Some(std::cmp::Ordering::Less)
            {
                return Err("the ground plane needs a finite point and a unit normal".into());
            }
        }
        for (i, s) in self.shapes.iter().enumerate() {
            if s.body >= bodies {
                return Err(format!("collision shape {i} is on a missing body"));
            }
            let ok = s.geometry.is_valid();
            let m = &s.material;
            let law = m.exponent >= 1.0
                && m.exponent <= 3.0
                && m.restitution > 0.0
                && m.restitution <= 1.0
                && m.damping >= 0.0
                && m.damping.is_finite();
            if !ok || !law {
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
                let law = c.exponent >= 1.0
                    && c.exponent <= 3.0
                    && c.restitution > 0.0
                    && c.restitution <= 1.0
                    && c.damping >= 0.0
                    && c.damping.is_finite();
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
