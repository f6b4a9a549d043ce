//! `[interface.base]`: the base port. A carrier moves the machine's ground frame; its
//! motion arrives as inputs (world axes) and the wrench the machine exerts on it leaves as
//! outputs (base axes, moment about a reference point).

use super::{Ctx, Expect};
use crate::description::{BaseMotionDesc, Description};
use crate::units::Dim;
use fmu_runtime::model::{Axis, CarrierBase, MOUNT_MOTION, ParamId, Probe};

/// The port's prefix when the description gives none.
pub const DEFAULT_NAME: &str = "base";

const AXES: [(&str, Axis); 3] = [("x", Axis::X), ("y", Axis::Y), ("z", Axis::Z)];

/// The carrier's vector inputs: field, dimension, what it is.
const INPUTS: [(&str, Dim, &str); 5] = [
    ("position", Dim::LENGTH, "World position of the base origin"),
    ("velocity", Dim::VELOCITY, "Velocity of the base origin"),
    (
        "angular_velocity",
        Dim::ANGULAR_VELOCITY,
        "Angular velocity of the base",
    ),
    (
        "acceleration",
        Dim::ACCELERATION,
        "Acceleration of the base origin",
    ),
    (
        "angular_acceleration",
        Dim::ANGULAR_ACCELERATION,
        "Angular acceleration of the base",
    ),
];

/// Prefix of the port's variables and slots.
pub(super) fn port_name(d: &Description) -> String {
    d.interface
        .as_ref()
        .and_then(|i| i.base.as_ref())
        .and_then(|b| b.name.as_ref())
        .map_or(DEFAULT_NAME.to_string(), |n| n.get_ref().clone())
}

/// The compiled port; its input slots are `<name>.<field>.<axis>`.
pub(super) fn lower_base(cx: &mut Ctx, d: &Description) -> Option<CarrierBase> {
    let port = d.interface.as_ref()?.base.as_ref()?;
    match port.motion.get_ref() {
        BaseMotionDesc::Carrier => {}
    }
    let name = port_name(d);
    if let Some(n) = &port.name
        && let Err(e) = crate::names::check_structured(n.get_ref())
    {
        cx.error(
            n.span(),
            format!("'{}' is not a valid FMI structured name: {e}", n.get_ref()),
            "use an identifier such as \"base\" or \"deck\"",
        );
    }
    let reference = cx.vec3_or(port.reference.as_ref(), Expect::Dim(Dim::LENGTH), [0.0; 3]);
    let vector = |cx: &mut Ctx, field: &str, dim: Dim, what: &str| -> [ParamId; 3] {
        AXES.map(|(a, _)| {
            cx.slot(
                format!("{name}.{field}.{a}"),
                0.0,
                Expect::Dim(dim),
                format!("{what}, {a} (world axes)"),
            )
        })
    };
    let [
        position,
        velocity,
        angular_velocity,
        acceleration,
        angular_acceleration,
    ] = INPUTS.map(|(field, dim, what)| vector(cx, field, dim, what));
    let orientation = [("w", 1.0), ("x", 0.0), ("y", 0.0), ("z", 0.0)].map(|(c, start)| {
        cx.slot(
            format!("{name}.orientation.{c}"),
            start,
            Expect::Dim(Dim::NONE),
            format!("Orientation of the base, unit quaternion base → world, {c}"),
        )
    });
    Some(CarrierBase {
        position,
        orientation,
        velocity,
        angular_velocity,
        acceleration,
        angular_acceleration,
        reference,
    })
}

/// The 19 motion values a carrier sends a base port and a mount reports, in the order of
/// [`fmu_runtime::model::Probe::MountMotion`]: name suffix, unit, what (world axes).
pub const MOTION: [(&str, &str, &str); MOUNT_MOTION] = [
    ("position.x", "m", "Position of the origin, x"),
    ("position.y", "m", "Position of the origin, y"),
    ("position.z", "m", "Position of the origin, z"),
    (
        "orientation.w",
        "",
        "Orientation quaternion (frame → world), w",
    ),
    (
        "orientation.x",
        "",
        "Orientation quaternion (frame → world), x",
    ),
    (
        "orientation.y",
        "",
        "Orientation quaternion (frame → world), y",
    ),
    (
        "orientation.z",
        "",
        "Orientation quaternion (frame → world), z",
    ),
    ("velocity.x", "m/s", "Velocity of the origin, x"),
    ("velocity.y", "m/s", "Velocity of the origin, y"),
    ("velocity.z", "m/s", "Velocity of the origin, z"),
    ("angular_velocity.x", "rad/s", "Angular velocity, x"),
    ("angular_velocity.y", "rad/s", "Angular velocity, y"),
    ("angular_velocity.z", "rad/s", "Angular velocity, z"),
    ("acceleration.x", "m/s2", "Acceleration of the origin, x"),
    ("acceleration.y", "m/s2", "Acceleration of the origin, y"),
    ("acceleration.z", "m/s2", "Acceleration of the origin, z"),
    (
        "angular_acceleration.x",
        "rad/s2",
        "Angular acceleration, x",
    ),
    (
        "angular_acceleration.y",
        "rad/s2",
        "Angular acceleration, y",
    ),
    (
        "angular_acceleration.z",
        "rad/s2",
        "Angular acceleration, z",
    ),
];

/// The wrench a carried machine exerts on its carrier: name suffixes.
pub const WRENCH: [&str; 6] = [
    "force.x", "force.y", "force.z", "moment.x", "moment.y", "moment.z",
];

/// The port's outputs: name suffix, probe, unit, description.
pub(super) fn outputs(reference: [f64; 3]) -> Vec<(String, Probe, &'static str, String)> {
    let mut out = Vec::new();
    for (a, axis) in AXES {
        out.push((
            format!("force.{a}"),
            Probe::BaseForce(axis),
            "N",
            format!("Force the machine exerts on its carrier, {a} (base axes)"),
        ));
    }
    let [rx, ry, rz] = reference;
    for (a, axis) in AXES {
        out.push((
            format!("moment.{a}"),
            Probe::BaseMoment(axis),
            "N.m",
            format!(
                "Moment the machine exerts on its carrier about the base point ({rx}, {ry}, {rz}) m, {a} (base axes)"
            ),
        ));
    }
    out.push((
        "power".into(),
        Probe::BasePower,
        "W",
        "Power the carrier delivers to the machine through the base".into(),
    ));
    out.push((
        "work".into(),
        Probe::BaseWork,
        "J",
        "Work the carrier has delivered to the machine through the base since initialization"
            .into(),
    ));
    out
}
