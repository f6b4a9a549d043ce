//! The machine description: a TOML file read with serde.
//!
//! Every table rejects unknown keys (`deny_unknown_fields`), and every value that can be
//! wrong in a way only lowering detects (names, quantities) keeps its byte span, so that
//! errors point at the offending text. Scalars are [`Quantity`]s: numbers in SI units or
//! strings with a unit. The structs mirror the file; defaults and checks live in
//! [`crate::lower`].

mod contact;
mod estimator;
mod flexible;
mod hydraulics;
mod mechanism;
mod quantity;
mod report;

pub use contact::*;
pub use estimator::*;
pub use flexible::*;
pub use hydraulics::*;
pub use mechanism::*;
pub use quantity::*;
pub use report::*;

use crate::diagnostic::{Diagnostic, from_toml_error};
use serde::Deserialize;
use toml::Spanned;

/// A whole description file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Description {
    pub model: ModelSection,
    pub experiment: Option<ExperimentSection>,
    pub solver: Option<SolverSection>,
    pub init: Option<InitSection>,
    #[serde(default)]
    pub bodies: Vec<BodyDesc>,
    #[serde(default)]
    pub markers: Vec<MarkerDesc>,
    #[serde(default)]
    pub cut_joints: Vec<CutJointDesc>,
    #[serde(default)]
    pub spring_dampers: Vec<SpringDamperDesc>,
    #[serde(default)]
    pub point_forces: Vec<PointForceDesc>,
    #[serde(default)]
    pub ropes: Vec<RopeDesc>,
    #[serde(default)]
    pub force_actuators: Vec<ForceActuatorDesc>,
    /// `[contact]`: the ground the collision shapes touch and their default material.
    pub contact: Option<ContactSection>,
    pub hydraulics: Option<HydraulicsDesc>,
    pub interface: Option<InterfaceDesc>,
    /// `hydromech report`: standard manoeuvre and plots (documentation only).
    pub report: Option<ReportDesc>,
    /// A machine from another description standing on this one's mount.
    pub carries: Option<CarriesDesc>,
    /// The sensors of `hydromech build --estimator` and the plant noise.
    pub estimator: Option<EstimatorDesc>,
}

/// `[carries]`: another machine description stands on this carrier's `[interface.mount]`:
/// its ground frame is the mount frame. `hydromech build` makes one FMU of both;
/// `--split base` also the carrier and the carried machine as two FMUs and an SSP archive
/// joining the mount to the carried machine's base port (see [`crate::assembly::compose`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarriesDesc {
    /// The carried machine's description, relative to this file.
    pub model: Name,
    /// Its component name in the split (`<file>.<name>.fmu`); default `carried`.
    pub name: Option<Name>,
}

impl Description {
    /// Parses a description; syntax, type and unknown-key errors carry their position.
    pub fn parse(text: &str) -> Result<Description, Diagnostic> {
        toml::from_str(text).map_err(|e| from_toml_error(&e))
    }
}

/// `[model]`: identity and metadata (FMI `modelName`, `description`, `author`, ...).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSection {
    /// `modelName`; the `modelIdentifier` is this with `-` replaced by `_`.
    pub name: Name,
    pub description: Option<String>,
    pub author: Option<String>,
    pub version: Option<String>,
    pub license: Option<String>,
    pub copyright: Option<String>,
    /// Gravity in world axes [m/s²]; default `[0, -9.81, 0]` (y up, as in seeds 001/002).
    pub gravity: Option<Vec3>,
}

/// `[experiment]`: FMI `DefaultExperiment`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSection {
    pub start_time: Option<Quantity>,
    pub stop_time: Quantity,
    pub step_size: Quantity,
    pub tolerance: Option<Quantity>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum FormulationDesc {
    #[serde(rename = "augmented-lagrangian")]
    AugmentedLagrangian,
    #[serde(rename = "double-step")]
    DoubleStep,
}

#[derive(Clone, Copy, Debug, Deserialize)]
pub enum LinearSolverDesc {
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "dense")]
    Dense,
    #[serde(rename = "sparse")]
    Sparse,
}

#[derive(Clone, Copy, Debug, Deserialize)]
pub enum TangentDesc {
    #[serde(rename = "assembled")]
    Assembled,
    #[serde(rename = "finite-difference")]
    FiniteDifference,
}

/// `[solver]`: the fixed-step monolithic integrator.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverSection {
    pub formulation: Option<FormulationDesc>,
    /// Keep the Newton tangent across steps (default true; false = a fresh one per step).
    pub reuse_tangent: Option<bool>,
    /// Linear solver of the Newton tangent (default auto).
    pub linear_solver: Option<LinearSolverDesc>,
    /// How the tangent's joint-coordinate columns are formed (default assembled).
    pub tangent: Option<TangentDesc>,
    /// Internal fixed step (FMI parameter `solver.step`).
    pub step: Option<Quantity>,
    /// Absolute penalty factor α; without it `penalty_ratio` scales α with the step.
    pub penalty: Option<Quantity>,
    pub penalty_ratio: Option<Quantity>,
    pub max_iterations: Option<Spanned<i64>>,
    pub tol_position: Option<Quantity>,
    pub tol_pressure: Option<Quantity>,
    pub tol_state: Option<Quantity>,
    pub max_step_halvings: Option<Spanned<i64>>,
}

/// `[init]`: how the initial state is found.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitSection {
    pub static_equilibrium: Option<bool>,
    /// Interface inputs/parameters (or parameter slots) whose start values are computed by
    /// the static-equilibrium solve at compile time.
    pub solve_for: Option<Vec<Name>>,
    /// Joints (all their coordinates) or joint coordinates (`truck.y`) the static
    /// equilibrium keeps at their `initial` although nothing holds them.
    pub hold: Option<Vec<Name>>,
}

/// `[interface]`: the FMI variables.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterfaceDesc {
    #[serde(default)]
    pub inputs: Vec<InputDesc>,
    #[serde(default)]
    pub parameters: Vec<ParameterDesc>,
    #[serde(default)]
    pub outputs: Vec<OutputDesc>,
    /// The base port: how the machine's ground frame couples to a carrier.
    pub base: Option<BasePortDesc>,
    /// Joint, hydraulic and shaft ports.
    #[serde(default)]
    pub ports: Vec<PortDesc>,
    /// The mount of a carrier: where a carried machine stands.
    pub mount: Option<MountDesc>,
}

/// `[interface.mount]`: a frame on one of a carrier's bodies that a carried machine's base
/// port connects to (its wrench in, the frame's motion out).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MountDesc {
    pub body: Name,
    /// Frame origin in body coordinates (the frame has the body's axes); default the body
    /// origin.
    pub origin: Option<Vec3>,
    /// Prefix of the mount's FMI variables (default `mount`).
    pub name: Option<Name>,
}

/// What a port exchanges (see `fmu_runtime::model::PortKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum PortTypeDesc {
    /// A torque/force input on a revolute/prismatic tree joint.
    #[serde(rename = "joint-force")]
    JointForce,
    /// A prescribed motion of a revolute/prismatic tree joint: q, q̇, q̈ in, the drive's
    /// torque/force out.
    #[serde(rename = "joint-motion")]
    JointMotion,
    /// Flow into a volume in, its pressure out.
    #[serde(rename = "flow")]
    Flow,
    /// A pressure source's pressure in, the flow it gives out.
    #[serde(rename = "pressure")]
    Pressure,
    /// A transmission-line end on a volume: c and Zc in, flow and pressure out.
    #[serde(rename = "tlm")]
    Tlm,
    /// A pump's shaft: speed in, torque out.
    #[serde(rename = "shaft")]
    Shaft,
}

impl PortTypeDesc {
    pub fn describe(self) -> &'static str {
        match self {
            PortTypeDesc::JointForce => "\"joint-force\"",
            PortTypeDesc::JointMotion => "\"joint-motion\"",
            PortTypeDesc::Flow => "\"flow\"",
            PortTypeDesc::Pressure => "\"pressure\"",
            PortTypeDesc::Tlm => "\"tlm\"",
            PortTypeDesc::Shaft => "\"shaft\"",
        }
    }
}

/// `[[interface.ports]]`: a coupling port.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortDesc {
    /// Prefix of the port's FMI variables.
    pub name: Name,
    #[serde(rename = "type")]
    pub kind: Spanned<PortTypeDesc>,
    /// The joint, volume, pressure source or pump the port is on.
    pub on: Name,
    /// Start value of a flow port's inflow (default 0).
    pub flow: Option<Quantity>,
    /// Start values of a TLM port's wave variable (default 1 bar) and impedance
    /// (default 1e10 Pa·s/m³).
    pub wave: Option<Quantity>,
    pub impedance: Option<Quantity>,
}

/// Who moves the base frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum BaseMotionDesc {
    /// A carrier (vehicle, vessel, another FMU) prescribes the base's pose, twist and
    /// acceleration; the machine returns the wrench it exerts on the carrier.
    #[serde(rename = "carrier")]
    Carrier,
}

/// `[interface.base]`: the machine's ground frame is a port to its carrier.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BasePortDesc {
    pub motion: Spanned<BaseMotionDesc>,
    /// Base-frame point about which the reaction moment is reported (default the origin).
    pub reference: Option<Vec3>,
    /// Prefix of the port's FMI variables (default `base`).
    pub name: Option<Name>,
}

/// An FMI input bound to a parameter slot (e.g. `valve.command`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputDesc {
    pub name: Name,
    /// Parameter slot name.
    pub target: Name,
    pub description: Option<String>,
    /// FMI unit; must be coherent SI (factor 1), default from the target's dimension.
    pub unit: Option<Name>,
    pub min: Option<Quantity>,
    pub max: Option<Quantity>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VariabilityDesc {
    Fixed,
    Tunable,
}

/// An FMI parameter bound to a parameter slot.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterDesc {
    pub name: Name,
    pub target: Name,
    pub description: Option<String>,
    pub unit: Option<Name>,
    /// Default `fixed` (the FMI default for parameters).
    pub variability: Option<Spanned<VariabilityDesc>>,
    pub min: Option<Quantity>,
    pub max: Option<Quantity>,
}

/// An FMI output bound to a computed quantity (`cylinder.length`, `pivot.q`, ...).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputDesc {
    pub name: Name,
    pub quantity: Name,
    pub description: Option<String>,
}
