//! Hydraulic rotary motor on a revolute joint (a swing drive, a winch).

use crate::model::RotaryMotor;
use std::f64::consts::TAU;

/// State of one motor at an evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MotorState {
    /// Motor shaft speed [rad/s].
    pub speed: f64,
    /// Torque on the driven joint [N·m].
    pub torque: f64,
    /// Flow from port A to port B, displacement and leakage [m³/s].
    pub flow: f64,
}

/// Speed, torque and flow for the joint rate `q_dot` and port pressures `p_a`, `p_b`.
pub fn evaluate(m: &RotaryMotor, p: &[f64], q_dot: f64, p_a: f64, p_b: f64) -> MotorState {
    let d = p[m.displacement.index()];
    let i = p[m.gear_ratio.index()];
    let speed = i * q_dot;
    let dp = p_a - p_b;
    MotorState {
        speed,
        torque: i * (dp * d / TAU - p[m.friction.index()] * speed),
        flow: d * speed / TAU + p[m.leakage.index()] * dp,
    }
}
