//! Coupling ports: where the machine exchanges power with another model in a
//! co-simulation (a controller, a pump or engine model, a hose line, a carrier). The base
//! port belongs to the mechanism ([`super::CarrierBase`]); the others are listed here.
//!
//! Every port has an effort/flow pair, one side an input and the other an output, so that
//! two models meet with opposite causality (the OSP interface specification's rule), and
//! reports the power it delivers into the machine and the work done since initialization.

use super::ParamId;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum PortKind {
    /// A generalized force on the tree joint of `body` between it and its parent: a
    /// torque [N·m] on a revolute joint, a force [N] on a prismatic one. Out: the joint rate.
    JointForce { body: usize, force: ParamId },
    /// A prescribed motion of the tree joint of `body`: its coordinate, rate and
    /// acceleration in (followed as `q + q̇τ + q̈τ²/2` inside a step); out: the torque
    /// [N·m] or force [N] the drive applies (see `solver::drives`).
    JointMotion {
        body: usize,
        position: ParamId,
        velocity: ParamId,
        acceleration: ParamId,
    },
    /// The capacitive side of a hydraulic cut: volume flow into control volume `node`
    /// [m³/s] in, its pressure out.
    Flow { node: usize, flow: ParamId },
    /// The resistive side: the pressure of pressure node `node` in (that node's own slot),
    /// the flow from it into the machine out.
    Pressure { node: usize },
    /// A transmission-line (TLM) end on control volume `node`: the line's wave variable
    /// c [Pa] and characteristic impedance Zc [Pa·s/m³] in; the flow `q = (c − p)/Zc` into
    /// the volume out (its pressure p is the other output). Solved inside the step with the
    /// volume, so a stiff circuit stays stable at any communication step.
    Tlm {
        node: usize,
        wave: ParamId,
        impedance: ParamId,
    },
    /// The shaft of the fixed-displacement pump that is element `element`: its speed in
    /// (the pump's own slot), the torque the oil loads it with out.
    PumpShaft { element: usize },
    /// A mount on a carrier: the frame at `origin` (body coordinates, body axes) of `body`,
    /// where a carried machine stands. The carried machine's wrench on it comes in (frame
    /// axes, moment about the frame origin); the frame's motion goes out in world axes
    /// (position, orientation quaternion, velocity, angular velocity, acceleration,
    /// angular acceleration: [`MOUNT_MOTION`] values) — one to one the inputs of a
    /// carrier-driven base port ([`super::CarrierBase`]).
    Mount {
        body: usize,
        origin: [f64; 3],
        force: [ParamId; 3],
        moment: [ParamId; 3],
    },
}

/// Number of motion values a mount reports: position 3, quaternion `[w, x, y, z]` 4,
/// velocity 3, angular velocity 3, acceleration 3, angular acceleration 3.
pub const MOUNT_MOTION: usize = 19;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Port {
    /// Prefix of the port's FMI variables.
    pub name: String,
    pub kind: PortKind,
}

impl Port {
    /// The slots the port owns (its inputs).
    pub fn params(&self) -> Vec<ParamId> {
        match self.kind {
            PortKind::JointForce { force, .. } => vec![force],
            PortKind::JointMotion {
                position,
                velocity,
                acceleration,
                ..
            } => vec![position, velocity, acceleration],
            PortKind::Flow { flow, .. } => vec![flow],
            PortKind::Tlm {
                wave, impedance, ..
            } => vec![wave, impedance],
            PortKind::Mount { force, moment, .. } => [force, moment].concat(),
            PortKind::Pressure { .. } | PortKind::PumpShaft { .. } => Vec::new(),
        }
    }
}
