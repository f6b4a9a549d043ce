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
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Port {
    /// Prefix of the port's FMI variables.
    pub name: String,
    pub kind: PortKind,
}

impl Port {
    pub fn params(&self) -> impl Iterator<Item = ParamId> {
        let ids = match self.kind {
            PortKind::JointForce { force, .. } => [Some(force), None],
            PortKind::Flow { flow, .. } => [Some(flow), None],
            PortKind::Tlm {
                wave, impedance, ..
            } => [Some(wave), Some(impedance)],
            PortKind::Pressure { .. } | PortKind::PumpShaft { .. } => [None, None],
        };
        ids.into_iter().flatten()
    }
}
