//! Contact: `collision = [...]` on bodies and the `[contact]` section (the ground and the
//! default material).

use super::{Located, Name, Quantity, RotationDesc, Vec3};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use toml::Spanned;

/// A body's `collision`: a list of shapes, or `"visual"` (its visual boxes, cylinders and
/// spheres, with the default material).
#[derive(Clone, Debug)]
pub enum CollisionDesc {
    Shapes(Vec<Located<CollisionShapeDesc>>),
    Reuse(String),
}

impl<'de> Deserialize<'de> for CollisionDesc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CollisionDesc;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a list of shapes [{ shape = \"sphere\", ... }] or \"visual\" (the body's visual shapes)",
                )
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(CollisionDesc::Shapes)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(CollisionDesc::Reuse(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CollisionShapeKind {
    Sphere,
    Box,
    Capsule,
    Cylinder,
    Mesh,
}

impl CollisionShapeKind {
    pub fn name(self) -> &'static str {
        match self {
            CollisionShapeKind::Sphere => "sphere",
            CollisionShapeKind::Box => "box",
            CollisionShapeKind::Capsule => "capsule",
            CollisionShapeKind::Cylinder => "cylinder",
            CollisionShapeKind::Mesh => "mesh",
        }
    }
}

/// How a contact's friction is modelled: regularized Coulomb with a static peak, or LuGre
/// bristles (a deflection state per contact point: true stiction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContactFrictionModel {
    Coulomb,
    Lugre,
}

/// One collision shape in body coordinates: `sphere` (`center`, `radius`), `box`
/// (`center`, `size`, optional `rotation`), `capsule` and `cylinder` (`from`, `to`,
/// `radius`); each may override the `[contact]` material.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollisionShapeDesc {
    pub shape: Spanned<CollisionShapeKind>,
    pub center: Option<Vec3>,
    pub size: Option<Vec3>,
    pub rotation: Option<Located<RotationDesc>>,
    pub from: Option<Vec3>,
    pub to: Option<Vec3>,
    pub radius: Option<Quantity>,
    pub file: Option<Name>,
    /// A mesh file's scale to metres (0.001 for millimetres).
    pub scale: Option<Quantity>,
    /// The material, overriding the `[contact]` section's (see [`ContactSection`]).
    pub stiffness: Option<Quantity>,
    pub exponent: Option<Quantity>,
    pub restitution: Option<Quantity>,
    pub friction: Option<Located<ContactFrictionDesc>>,
    pub stiction_velocity: Option<Quantity>,
    pub stribeck_velocity: Option<Quantity>,
    pub friction_model: Option<Spanned<ContactFrictionModel>>,
    pub bristle_stiffness: Option<Quantity>,
    pub bristle_damping: Option<Quantity>,
}

/// `[contact]`: what the shapes touch and their default material.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactSection {
    pub ground: Option<Located<GroundDesc>>,
    /// Secant stiffness at 1 mm of penetration [N/m].
    pub stiffness: Option<Quantity>,
    /// Hertz exponent n of `F ∝ δⁿ` (default 1.5 for spheres and capsules, 1 otherwise).
    pub exponent: Option<Quantity>,
    /// Coefficient of restitution e ∈ (0, 1].
    pub restitution: Option<Quantity>,
    /// `friction = 0.5` (static = kinetic) or `{ static = 0.7, kinetic = 0.5 }`.
    pub friction: Option<Located<ContactFrictionDesc>>,
    /// Slip speed below which friction is regularized [m/s].
    pub stiction_velocity: Option<Quantity>,
    /// Speed over which static friction falls to kinetic [m/s].
    pub stribeck_velocity: Option<Quantity>,
    /// `"coulomb"` (default) or `"lugre"`.
    pub friction_model: Option<Spanned<ContactFrictionModel>>,
    /// LuGre's σ0 [1/m] and σ1 [s/m].
    pub bristle_stiffness: Option<Quantity>,
    pub bristle_damping: Option<Quantity>,
    /// Two bodies whose shapes touch each other, even when a joint joins them.
    pub pairs: Option<Vec<Located<BodiesDesc>>>,
    /// Bodies whose shapes all touch each other, except where a joint joins two.
    pub groups: Option<Vec<Located<BodiesDesc>>>,
}

/// `{ bodies = ["left_jaw", "log"] }`: a pair or a group of bodies.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodiesDesc {
    pub bodies: Spanned<Vec<Name>>,
}

/// Friction coefficients: one number or `{ static, kinetic }`.
#[derive(Clone, Debug)]
pub enum ContactFrictionDesc {
    Both(f64),
    Pair {
        static_: Option<Quantity>,
        kinetic: Option<Quantity>,
    },
}

/// `{ static = 0.7, kinetic = 0.5 }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactFrictionPairDesc {
    #[serde(rename = "static")]
    pub static_: Option<Quantity>,
    pub kinetic: Option<Quantity>,
}

impl<'de> Deserialize<'de> for ContactFrictionDesc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContactFrictionDesc;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a friction coefficient (0.5) or { static = 0.7, kinetic = 0.5 }")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(ContactFrictionDesc::Both(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(ContactFrictionDesc::Both(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(ContactFrictionDesc::Both(v as f64))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let p = ContactFrictionPairDesc::deserialize(
                    de::value::MapAccessDeserializer::new(map),
                )?;
                Ok(ContactFrictionDesc::Pair {
                    static_: p.static_,
                    kinetic: p.kinetic,
                })
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroundShape {
    Plane,
    Heightfield,
}

/// The ground: a plane through `point` (default the origin) with `normal` (default
/// against gravity), or a heightfield: heights from the CSV `file` (a row per y, each
/// along x, in `unit`, default m) on a grid `spacing` apart from `origin`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroundDesc {
    pub shape: Spanned<GroundShape>,
    pub point: Option<Vec3>,
    pub normal: Option<Vec3>,
    pub file: Option<Name>,
    pub spacing: Option<Spanned<[Quantity; 2]>>,
    pub origin: Option<Vec3>,
    pub unit: Option<Name>,
}
