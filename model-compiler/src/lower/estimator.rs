//! `[estimator]` → [`EstimatorSpec`]: each sensor's quantity resolved as an interface
//! output's, its noise in that quantity's unit, its sample period; the plant noise. The
//! values are slots (`sensor.<name>.sigma`, `estimator.acceleration_noise`, ...), so that an
//! estimator FMU can expose them as tunable parameters, and each sensor's measured value
//! and validity flag are slots the master sets (`sensor.<name>`, `sensor.<name>.valid`).

use super::{Ctx, Expect, interface};
use crate::description::{Description, Quantity};
use crate::units::Dim;
use fmu_runtime::model::estimator::{
    EstimatorSpec, ModelErrors, Sensor, SensorBias, is_sensor_quantity,
};
use fmu_runtime::model::{CompiledModel, JointKind, ParamId, Probe};
use std::collections::HashSet;

/// Defaults, our choice: an acceleration noise of 1 (rad or m)/s²·√s, a pressure noise of
/// 1 bar/√s; initial standard deviations 0.01 rad (or m), 0.01 /s, 1 bar.
const DEFAULT_ACCELERATION_NOISE: f64 = 1.0;
const DEFAULT_PRESSURE_NOISE: f64 = 1e5;
const DEFAULT_INITIAL_SIGMA: [f64; 3] = [0.01, 0.01, 1e5];

pub(super) fn lower_estimator(
    cx: &mut Ctx,
    d: &Description,
    model: &CompiledModel,
) -> Option<EstimatorSpec> {
    let e = d.estimator.as_ref()?;
    let acceleration_noise = noise(
        cx,
        e.acceleration_noise.as_ref(),
        "acceleration_noise",
        Expect::Plain("rad/s2 or m/s2, times √s"),
        DEFAULT_ACCELERATION_NOISE,
        "Intensity of the acceleration noise on each independent coordinate",
    );
    let pressure_noise = noise(
        cx,
        e.pressure_noise.as_ref(),
        "pressure_noise",
        Expect::Dim(Dim::PRESSURE),
        DEFAULT_PRESSURE_NOISE,
        "Intensity of the pressure noise (per √s)",
    );
    let gate = cx.value_or(
        e.innovation_gate.as_ref(),
        Expect::Plain("a number of standard deviations"),
        0.0,
    );
    if let Some(q) = &e.innovation_gate {
        cx.require_non_negative(q, gate, "the innovation gate");
    }
    let innovation_gate = cx.field_slot(
        "estimator",
        "innovation_gate",
        gate,
        Expect::Plain("a number of standard deviations"),
        "Samples whose innovation exceeds this many predicted standard deviations are skipped (0: none)",
    );
    let mut initial_sigma = DEFAULT_INITIAL_SIGMA;
    for (slot, q, expect) in [
        (0, &e.initial_coordinate_sigma, Expect::Plain("rad or m")),
        (1, &e.initial_rate_sigma, Expect::Plain("rad/s or m/s")),
        (2, &e.initial_pressure_sigma, Expect::Dim(Dim::PRESSURE)),
    ] {
        if let Some(q) = q {
            let v = cx.value(q, expect);
            cx.require_non_negative(q, v, "an initial standard deviation");
            initial_sigma[slot] = v;
        }
    }
    let loads = e.load_noise.as_ref().map(|q| {
        let v = cx.value(q, Expect::Plain("N m or N, times √s"));
        cx.require_positive(q, v, "the load noise");
        let noise = cx.field_slot(
            "estimator",
            "load_noise",
            v,
            Expect::Plain("N m or N, times √s"),
            "Intensity of the load errors' random walk on each independent joint",
        );
        let initial_sigma = e.initial_load_sigma.as_ref().map_or(0.0, |q| {
            let v = cx.value(q, Expect::Plain("N m or N"));
            cx.require_non_negative(q, v, "an initial standard deviation");
            v
        });
        let mech = &model.mechanism;
        let on = mech
            .coordinate_indices()
            .iter()
            .enumerate()
            .filter_map(|(b, c)| {
                let c = (*c)?;
                let name = &mech.bodies[b].joint_name;
                let slot = cx.field_slot(
                    name,
                    "load",
                    0.0,
                    Expect::Plain("N m or N"),
                    "Estimated load error: the generalized force the estimator applies on the joint",
                );
                Some((c, slot))
            })
            .collect();
        ModelErrors {
            noise,
            initial_sigma,
            on,
        }
    });
    if loads.is_none()
        && let Some(q) = &e.initial_load_sigma
    {
        cx.error(
            q.span(),
            "initial_load_sigma without load_noise".to_string(),
            "give load_noise (the load errors' intensity) to estimate loads, or remove initial_load_sigma",
        );
    }
    let mut names = HashSet::new();
    let mut sensors = Vec::new();
    for s in &e.sensors {
        let s = s.get_ref();
        let name = s.name.get_ref();
        if !names.insert(name.clone()) {
            cx.error(
                s.name.span(),
                format!("a second sensor named '{name}'"),
                "give each sensor its own name",
            );
            continue;
        }
        if !crate::names::is_identifier(name) {
            cx.error(
                s.name.span(),
                format!("sensor name '{name}' is not a plain identifier"),
                "use letters, digits and '_', not a digit first (it becomes the FMU input sensor.<name>)",
            );
            continue;
        }
        let Some(probe) = interface::sensor_quantity(cx, &s.measures, model) else {
            continue;
        };
        let Some(dim) = sensor_dimension(&probe, model) else {
            cx.error(
                s.measures.span(),
                format!(
                    "'{}' is not a quantity a sensor measures",
                    s.measures.get_ref()
                ),
                "a sensor measures a joint coordinate (\"lift.q\"), a body's angular rate (\"boom.angular_velocity.z\"), a pressure (\"cap_side.p\"), a cylinder's length (\"lift_cylinder.length\") or a marker's position (\"tip.position.y\")",
            );
            continue;
        };
        let sigma = cx.value(&s.sigma, Expect::Dim(dim));
        cx.require_positive(&s.sigma, sigma, "a sensor's sigma");
        let period = match &s.rate {
            Some(q) => {
                let rate = cx.value(q, Expect::Dim(Dim::FREQUENCY));
                cx.require_positive(q, rate, "a sensor's rate");
                if rate > 0.0 { 1.0 / rate } else { 0.0 }
            }
            None => 0.0,
        };
        let component = format!("sensor.{name}");
        let what = s.measures.get_ref();
        let sigma = cx.field_slot(
            &component,
            "sigma",
            sigma,
            Expect::Dim(dim),
            "Noise standard deviation",
        );
        let value = cx.slot(
            component.clone(),
            0.0,
            Expect::Dim(dim),
            format!("Measured {what}"),
        );
        let valid = cx.field_slot(
            &component,
            "valid",
            0.0,
            Expect::Dim(Dim::NONE),
            "A new sample (1) or none (0)",
        );
        let bias = match &s.bias_noise {
            Some(q) => {
                let noise = cx.value(q, Expect::Dim(dim));
                cx.require_positive(q, noise, "a sensor's bias_noise");
                let initial_sigma = s.initial_bias_sigma.as_ref().map_or(0.0, |q| {
                    let v = cx.value(q, Expect::Dim(dim));
                    cx.require_non_negative(q, v, "a sensor's initial_bias_sigma");
                    v
                });
                Some(SensorBias {
                    value: cx.field_slot(
                        &component,
                        "bias",
                        0.0,
                        Expect::Dim(dim),
                        "Estimated bias: the offset the sensor reads on top of the model's value",
                    ),
                    noise: cx.field_slot(
                        &component,
                        "bias_noise",
                        noise,
                        Expect::Dim(dim),
                        "Intensity of the bias's random walk (per √s)",
                    ),
                    initial_sigma,
                })
            }
            None => {
                if let Some(q) = &s.initial_bias_sigma {
                    cx.error(
                        q.span(),
                        "initial_bias_sigma without bias_noise",
                        "give bias_noise (the bias's intensity) to estimate the sensor's bias, or remove initial_bias_sigma",
                    );
                }
                None
            }
        };
        sensors.push(Sensor {
            name: name.clone(),
            probe,
            sigma,
            period,
            value,
            valid,
            bias,
        });
    }
    Some(EstimatorSpec {
        sensors,
        acceleration_noise,
        pressure_noise,
        innovation_gate,
        initial_sigma,
        loads,
    })
}

/// A positive plant-noise intensity as the slot `estimator.<field>`.
fn noise(
    cx: &mut Ctx,
    q: Option<&Quantity>,
    field: &str,
    expect: Expect,
    default: f64,
    what: &str,
) -> ParamId {
    let v = cx.value_or(q, expect, default);
    if let Some(q) = q {
        cx.require_positive(q, v, what);
    }
    cx.field_slot("estimator", field, v, expect, what)
}

/// The dimension of a sensor's quantity (None: not a sensor quantity).
fn sensor_dimension(p: &Probe, model: &CompiledModel) -> Option<Dim> {
    if !is_sensor_quantity(p) {
        return None;
    }
    Some(match *p {
        Probe::JointPosition(b) => match model.mechanism.bodies[b].joint {
            JointKind::Prismatic { .. } => Dim::LENGTH,
            _ => Dim::ANGLE,
        },
        Probe::BodyAngularVelocity(..) => Dim::ANGULAR_VELOCITY,
        Probe::NodePressure(_) => Dim::PRESSURE,
        _ => Dim::LENGTH,
    })
}
