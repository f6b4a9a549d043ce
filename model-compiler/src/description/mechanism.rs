//! Bodies, joints, markers, cut joints and mechanical force elements.

use super::{Located, Name, Quantity, Vec3};
use serde::Deserialize;
use toml::Spanned;

/// `[[bodies]]`: a rigid body and the joint to its parent.
/// Give either `mass` + `com` + `inertia`, or `parts`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDesc {
    pub name: Name,
    /// A body name or `ground`.
    pub parent: Name,
    pub joint: Located<JointDesc>,
    pub mass: Option<Quantity>,
    /// Centre of mass in body coordinates.
    pub com: Option<Vec3>,
    /// `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]` about the centre of mass, body axes
    /// (tensor components).
    pub inertia: Option<Spanned<[Quantity; 6]>>,
    pub parts: Option<Located<Vec<Located<PartDesc>>>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JointType {
    Revolute,
    Prismatic,
    Fixed,
}

/// The tree joint of a body. `origin`, `axis` are in the parent body frame; the joint
/// frame may be rotated by `rotation`; the body frame is the joint frame moved by `q`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointDesc {
    #[serde(rename = "type")]
    pub kind: Spanned<JointType>,
    /// Default: the body's name.
    pub name: Option<Name>,
    pub origin: Option<Vec3>,
    /// Joint axis in the joint frame (required for revolute and prismatic joints).
    pub axis: Option<Vec3>,
    pub rotation: Option<RotationDesc>,
    /// Initial joint coordinate (angle or length), default 0.
    pub initial: Option<Quantity>,
}

/// Axis-angle rotation of a joint frame relative to the parent body frame.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RotationDesc {
    pub axis: Vec3,
    pub angle: Quantity,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// Slender uniform rod `from`–`to`.
    Rod,
    /// Point mass `at`.
    Point,
    /// Uniform box at `center` with edge lengths `size` along the body axes.
    Box,
}

/// One part of a body; parts are combined with the parallel-axis theorem.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartDesc {
    pub shape: Spanned<Shape>,
    pub mass: Quantity,
    pub from: Option<Vec3>,
    pub to: Option<Vec3>,
    pub at: Option<Vec3>,
    pub center: Option<Vec3>,
    pub size: Option<Vec3>,
}

/// `[[markers]]`: a named body point whose motion can be an output.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerDesc {
    pub name: Name,
    pub body: Name,
    pub point: Vec3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CutType {
    Revolute,
    Spherical,
    Prismatic,
}

/// `[[cut_joints]]`: a joint that closes a kinematic loop, imposed as constraints.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CutJointDesc {
    pub name: Name,
    #[serde(rename = "type")]
    pub kind: Spanned<CutType>,
    pub body_a: Name,
    pub point_a: Vec3,
    pub body_b: Name,
    pub point_b: Vec3,
    pub axis_a: Option<Vec3>,
    pub axis_b: Option<Vec3>,
}

/// A point on a body (`ground` allowed), e.g. a cylinder end.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointDesc {
    pub body: Name,
    pub point: Vec3,
}

/// `[[spring_dampers]]`: linear spring–damper between two points.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpringDamperDesc {
    pub name: Name,
    pub a: PointDesc,
    pub b: PointDesc,
    pub stiffness: Quantity,
    pub damping: Option<Quantity>,
    pub free_length: Quantity,
}

/// `[[point_forces]]`: a force in world axes at a body point (slots `<name>.force.x|y|z`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointForceDesc {
    pub name: Name,
    pub body: Name,
    pub point: Vec3,
    pub force: Option<Vec3>,
}
