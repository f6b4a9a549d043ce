//! What an estimator FMU measures and how far it trusts its model (seed 001, thesis ch. 3:
//! the error-state Kalman filter; the filter itself is [`crate::estimator`]).

use super::{CompiledModel, ParamId, Probe};
use serde::{Deserialize, Serialize};

/// A sensor: one quantity of the machine, measured with white noise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sensor {
    pub name: String,
    /// What it measures: a joint coordinate (encoder), a body's angular rate (gyroscope),
    /// a pressure, a cylinder's length or a marker's position.
    pub probe: Probe,
    /// Noise standard deviation, in the quantity's SI unit (a tunable slot).
    pub sigma: ParamId,
    /// Sample period [s]: a sample is taken at most once per period, at the first step end
    /// on or after each sample instant; 0 = at every step.
    pub period: f64,
    /// The measured value and its validity flag (≥ 0.5: a sample): slots the master sets
    /// through the FMU's inputs `sensor.<name>` and `sensor.<name>.valid`.
    pub value: ParamId,
    pub valid: ParamId,
    /// A bias (offset) of the sensor estimated as a state; none unless asked.
    pub bias: Option<SensorBias>,
}

/// A sensor's slowly varying offset (an encoder's mounting, a transducer's zero, a
/// kinematic mismatch between where the sensor sits and the model): a random walk the
/// filter estimates; measured value = the model's value + bias + noise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SensorBias {
    /// The estimate (slot `sensor.<name>.bias`, written by the estimator).
    pub value: ParamId,
    /// Continuous-time intensity of its random walk, the quantity's unit per √s (slot
    /// `sensor.<name>.bias_noise`).
    pub noise: ParamId,
    /// Initial standard deviation, the quantity's unit.
    pub initial_sigma: f64,
}

/// The sensors and the plant noise of an estimator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimatorSpec {
    pub sensors: Vec<Sensor>,
    /// Continuous-time intensity σ_z̈ of the acceleration noise on each independent
    /// coordinate [rad/s²·√s or m/s²·√s]: over a step h its variance is σ² h (thesis eqs
    /// 3.17–3.18).
    pub acceleration_noise: ParamId,
    /// Continuous-time intensity σ_p of the pressure noise [Pa/√s]: σ² h per
    /// step, so the tuning does not change with the step (the thesis's discrete σ_p,D had
    /// to be rescaled with Δt by hand).
    pub pressure_noise: ParamId,
    /// A sample whose innovation exceeds this many of its predicted standard deviations,
    /// √(H P⁻ Hᵀ + R), is skipped (0: none is): an outlier, or a prediction the model has
    /// lost and a correction would only throw further (`crate::estimator`).
    pub innovation_gate: ParamId,
    /// Initial standard deviations of the independent coordinates [rad or m], their rates
    /// [rad/s or m/s] and the pressures [Pa].
    pub initial_sigma: [f64; 3],
    /// Load errors estimated as states (seed 001 Pub III: "modeling errors in the force
    /// model"): unknown generalized forces on the joints (a payload heavier than modelled,
    /// friction the model lacks), one per independent coordinate, applied on its
    /// coordinate [N·m or N]. None unless the description asks.
    pub loads: Option<ModelErrors>,
}

/// Errors of the model the filter estimates as states and the model then carries (so
/// that a persistent error is not corrected against at every sample): each a random walk
/// of intensity `noise` from zero with standard deviation `initial_sigma`, held in a slot
/// the estimator writes and the evaluation applies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelErrors {
    /// Continuous-time intensity (unit per √s).
    pub noise: ParamId,
    /// Initial standard deviation.
    pub initial_sigma: f64,
    /// (joint coordinate, slot `<joint>.load`).
    pub on: Vec<(usize, ParamId)>,
}

/// Probes a sensor may measure.
pub fn is_sensor_quantity(p: &Probe) -> bool {
    matches!(
        p,
        Probe::JointPosition(_)
            | Probe::BodyAngularVelocity(..)
            | Probe::NodePressure(_)
            | Probe::CylinderLength(_)
            | Probe::MarkerPosition(..)
    )
}

impl EstimatorSpec {
    /// The slots only the estimator reads or writes (measurements, flags, noise, the load
    /// errors): the machine's motion does not depend on the first; the estimator makes the
    /// rates consistent with the last itself. Their changes are no input change to it.
    pub fn slots(&self) -> impl Iterator<Item = ParamId> + '_ {
        [
            self.acceleration_noise,
            self.pressure_noise,
            self.innovation_gate,
        ]
        .into_iter()
        .chain(
            self.sensors
                .iter()
                .flat_map(|s| [s.sigma, s.value, s.valid]),
        )
        .chain(
            self.loads
                .iter()
                .flat_map(|l| std::iter::once(l.noise).chain(l.on.iter().map(|&(_, slot)| slot))),
        )
        .chain(
            self.sensors
                .iter()
                .filter_map(|s| s.bias.as_ref())
                .flat_map(|b| [b.value, b.noise]),
        )
    }

    /// Every index in range, every sensor measuring a sensor quantity.
    pub fn validate(&self, m: &CompiledModel) -> Result<(), String> {
        let np = m.params.len();
        let slot = |id: ParamId, what: &str| {
            if id.index() < np {
                Ok(())
            } else {
                Err(format!("{what} refers to slot {} of {np}", id.index()))
            }
        };
        slot(self.acceleration_noise, "estimator.acceleration_noise")?;
        slot(self.pressure_noise, "estimator.pressure_noise")?;
        slot(self.innovation_gate, "estimator.innovation_gate")?;
        if self
            .initial_sigma
            .iter()
            .any(|s| !(s.is_finite() && *s >= 0.0))
        {
            return Err(format!(
                "the estimator's initial standard deviations must be finite and ≥ 0, are {:?}",
                self.initial_sigma
            ));
        }
        let finite = |v: f64, what: &str| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("{what} must be finite and ≥ 0, is {v}"))
            }
        };
        if let Some(l) = &self.loads {
            slot(l.noise, "estimator.load_noise")?;
            finite(l.initial_sigma, "the initial load standard deviation")?;
            for &(c, id) in &l.on {
                if c >= m.mechanism.coordinates() {
                    return Err(format!(
                        "a load error on coordinate {c}, which does not exist"
                    ));
                }
                slot(id, "a load error")?;
            }
        }
        for s in &self.sensors {
            if !is_sensor_quantity(&s.probe) || !s.probe.is_valid(m) {
                return Err(format!("sensor {} measures {:?}", s.name, s.probe));
            }
            if !(s.period.is_finite() && s.period >= 0.0) {
                return Err(format!("sensor {} has sample period {}", s.name, s.period));
            }
            for (id, what) in [(s.sigma, "sigma"), (s.value, "value"), (s.valid, "valid")] {
                slot(id, &format!("sensor {} {what}", s.name))?;
            }
            if let Some(b) = &s.bias {
                slot(b.value, &format!("sensor {} bias", s.name))?;
                slot(b.noise, &format!("sensor {} bias_noise", s.name))?;
                finite(
                    b.initial_sigma,
                    "a sensor's initial bias standard deviation",
                )?;
            }
        }
        Ok(())
    }
}
