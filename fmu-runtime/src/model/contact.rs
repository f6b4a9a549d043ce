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

/// The most candidate points a shape offers (a box's corners).
pub const MAX_POINTS: usize = 8;

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

impl Geometry {
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

/// The shapes of one body against the ground: one set of outputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactPair {
    /// Output prefix, `contact.<name>`.
    pub name: String,
    pub body: usize,
    /// Its shapes: indices into [`Contacts::shapes`].
    pub shapes: Vec<usize>,
    /// The mass the restitution is calibrated for [kg] (the body's own, a tunable slot).
    pub mass: ParamId,
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

    /// Candidate contact points of all pairs, in pair then shape order.
    pub fn points(&self) -> usize {
        self.pairs
            .iter()
            .flat_map(|p| &p.shapes)
            .map(|&s| points_of(&self.shapes[s].geometry))
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
        out.extend(self.pairs.iter().map(|p| p.mass));
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
        if !self.pairs.is_empty() && self.ground.is_none() {
            return Err("contact pairs without a ground".into());
        }
        for p in &self.pairs {
            if p.body >= bodies || p.shapes.iter().any(|&s| s >= self.shapes.len()) {
                return Err(format!("contact pair {} refers to a missing shape", p.name));
            }
        }
        Ok(())
    }
}
