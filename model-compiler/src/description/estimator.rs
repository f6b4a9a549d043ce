//! `[estimator]`: the sensors of `hydromech build --estimator` and how far the model is
//! trusted (seed 001, thesis ch. 3: the error-state Kalman filter).

use super::{Located, Name, Quantity};
use serde::Deserialize;

/// `[estimator]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimatorDesc {
    /// σ_z̈: continuous-time intensity of the acceleration noise of each independent joint
    /// coordinate, in SI (rad/s² or m/s² times √s); default 1 (our choice).
    pub acceleration_noise: Option<Quantity>,
    /// σ_p: continuous-time intensity of the pressure noise, Pa/√s (a pressure: "1 bar" is
    /// 1e5 Pa/√s); default 1 bar (our choice).
    pub pressure_noise: Option<Quantity>,
    /// Initial standard deviations: of the independent coordinates (rad or m, default
    /// 0.01), their rates (default 0.01 /s) and the pressures (default 1 bar).
    pub initial_coordinate_sigma: Option<Quantity>,
    pub initial_rate_sigma: Option<Quantity>,
    pub initial_pressure_sigma: Option<Quantity>,
    /// Estimate load errors (seed 001 Pub III, "modeling errors in the force model"): a
    /// generalized force on each independent joint, a random walk of this intensity
    /// (N·m/√s on a revolute joint, N/√s on a prismatic one) that the model then carries.
    /// Without it, none.
    pub load_noise: Option<Quantity>,
    /// Initial standard deviation of the load errors (N·m or N; default 0: the model's
    /// loads are right at the start).
    pub initial_load_sigma: Option<Quantity>,
    /// Skip a sample whose innovation is beyond this many of its predicted standard
    /// deviations (a number; default 0: every sample is used).
    pub innovation_gate: Option<Quantity>,
    #[serde(default)]
    pub sensors: Vec<Located<SensorDesc>>,
}

/// `[[estimator.sensors]]`: one measured quantity.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensorDesc {
    /// The FMU's input `sensor.<name>` (and `sensor.<name>.valid`).
    pub name: Name,
    /// What it measures, as an interface output's quantity: a joint coordinate
    /// (`"lift.q"`, an encoder), a body's angular rate (`"boom.angular_velocity.z"`, a
    /// gyroscope), a pressure (`"cap_side.p"`), a cylinder's length (`"lift_cylinder.length"`)
    /// or a marker's position (`"tip.position.y"`).
    pub measures: Name,
    /// Noise standard deviation, in the quantity's unit (`"0.05 deg"`, `"2 bar"`).
    pub sigma: Quantity,
    /// Sample rate (`"100 Hz"`); default: a sample at every step its flag is set.
    pub rate: Option<Quantity>,
    /// Estimate the sensor's bias (an offset the sensor reads on top of the model's
    /// value: a mounting offset, a transducer's zero, a geometric mismatch): the intensity
    /// of its random walk, in the quantity's unit per √s. Without it, none.
    pub bias_noise: Option<Quantity>,
    /// Initial standard deviation of the bias (the quantity's unit; default 0).
    pub initial_bias_sigma: Option<Quantity>,
}
