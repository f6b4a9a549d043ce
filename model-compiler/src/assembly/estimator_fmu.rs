//! `hydromech build --estimator`: `<stem>.estimator.fmu`, the machine with seed 001's
//! error-state Kalman filter inside ([`fmu_runtime::estimator`], docs/estimator.md).
//!
//! Its interface is the machine's own — inputs, parameters, and outputs that are now the
//! estimate — and:
//!
//! - per sensor: inputs `sensor.<name>` (the measured value, in the quantity's unit) and
//!   `sensor.<name>.valid` (Boolean: a new sample this step), the tunable parameter
//!   `sensor.<name>.sigma`, and the outputs `sensor.<name>.estimate` (what the sensor
//!   reads by the estimate, bias included: the filtered signal), `sensor.<name>.innovation` (measured −
//!   predicted, at its last sample; 0 before the first) and `sensor.<name>.innovation_sigma` (its predicted
//!   standard deviation √(H P⁻ Hᵀ + R): a consistent filter keeps the innovation within
//!   about twice it);
//! - the tunable plant noise `estimator.acceleration_noise`, `estimator.pressure_noise`,
//!   and `estimator.innovation_gate` (samples beyond it are skipped; output
//!   `estimator.rejected_samples` counts them);
//! - per estimated state, the standard deviation of its estimate: `<joint>.q.sigma` and
//!   `<joint>.qd.sigma` for each independent coordinate and its rate, `<volume>.p.sigma`
//!   for each pressure, `<valve>.spool.sigma` for each spool with a time constant,
//!   `estimate.state<k>.sigma` for the other first-order states (pump displacements,
//!   friction states).
//!
//! Which coordinates are independent is chosen from the configuration, so, as for Model
//! Exchange, the compiler initializes the machine at its default start and declares what
//! the filter has there.

use crate::lower::{self, Lowered};
use fmu_runtime::instance::Instance;
use fmu_runtime::model::{
    Binding, Causality, CompiledModel, Initial, Node, Probe, VarType, Variability, Variable,
};
use fmu_runtime::solver::ode::StateKind;
use std::sync::Arc;

/// File-name suffix of an estimator FMU: `<stem>.estimator.fmu`.
pub const SUFFIX: &str = "estimator";

/// Puts the description's `[estimator]` into the model and declares its variables; the
/// number of estimated states.
pub fn declare_estimator(l: &mut Lowered) -> Result<usize, String> {
    let spec = l
        .estimator
        .clone()
        .ok_or("the description has no [estimator] (its sensors and plant noise)")?;
    l.model.estimator = Some(spec.clone());
    let m = &l.model;
    let mut inst = Instance::new(Arc::new(m.clone()));
    inst.initialize(m.default_experiment.start_time)
        .map_err(|e| format!("the estimator at the default start: {}", e.message))?;
    let e = inst.estimator().ok_or("the estimator did not start")?;
    let n = e.len();
    // The ODE's states, then the loads of the independent coordinates that have one.
    let n_ode = n - e.errors();
    let kinds: Vec<StateKind> = (0..n_ode).filter_map(|k| inst.ode_kind(k)).collect();
    let mut vr = m
        .variables
        .iter()
        .map(|v| v.value_reference + 1)
        .max()
        .unwrap_or(0);
    let mut next_vr = || {
        vr += 1;
        vr - 1
    };
    let unit = |id: fmu_runtime::model::ParamId| l.slots[id.index()].expect.unit_name();
    let mut vars = Vec::new();
    let slot_var = |name: String, id, causality, var_type, text: String, vr| Variable {
        name,
        value_reference: vr,
        description: text,
        causality,
        variability: if causality == Causality::Input {
            if var_type == VarType::Boolean {
                Variability::Discrete
            } else {
                Variability::Continuous
            }
        } else {
            Variability::Tunable
        },
        initial: None,
        var_type,
        unit: if var_type == VarType::Real {
            unit(id)
        } else {
            None
        },
        display_unit: None,
        start: Some(m.params[id.index()].default),
        min: if causality == Causality::Parameter {
            Some(0.0)
        } else {
            None
        },
        max: None,
        nominal: None,
        binding: Binding::Param(id),
    };
    let output = |name: String, probe, unit: Option<String>, text: String, vr| Variable {
        name,
        value_reference: vr,
        description: text,
        causality: Causality::Output,
        variability: Variability::Continuous,
        initial: Some(Initial::Calculated),
        var_type: VarType::Real,
        unit,
        display_unit: None,
        start: None,
        min: None,
        max: None,
        nominal: None,
        binding: Binding::Probe(probe),
    };
    for (i, s) in spec.sensors.iter().enumerate() {
        let what = &l.slots[s.value.index()].description;
        vars.push(slot_var(
            format!("sensor.{}", s.name),
            s.value,
            Causality::Input,
            VarType::Real,
            what.clone(),
            next_vr(),
        ));
        vars.push(slot_var(
            format!("sensor.{}.valid", s.name),
            s.valid,
            Causality::Input,
            VarType::Boolean,
            format!(
                "sensor.{} holds a new sample this step (false: a missing or held sample, skipped)",
                s.name
            ),
            next_vr(),
        ));
        vars.push(slot_var(
            format!("sensor.{}.sigma", s.name),
            s.sigma,
            Causality::Parameter,
            VarType::Real,
            l.slots[s.sigma.index()].description.clone(),
            next_vr(),
        ));
        vars.push(output(
            format!("sensor.{}.estimate", s.name),
            Probe::SensorEstimate(i),
            unit(s.value),
            format!(
                "What sensor.{} reads by the estimate (the model's value plus the sensor's estimated bias): the filtered signal",
                s.name
            ),
            next_vr(),
        ));
        vars.push(output(
            format!("sensor.{}.innovation", s.name),
            Probe::Innovation(i),
            unit(s.value),
            format!(
                "Measured minus predicted sensor.{} at its last sample",
                s.name
            ),
            next_vr(),
        ));
        vars.push(output(
            format!("sensor.{}.innovation_sigma", s.name),
            Probe::InnovationSigma(i),
            unit(s.value),
            format!(
                "Predicted standard deviation of sensor.{}'s innovation, sqrt(H P H' + R)",
                s.name
            ),
            next_vr(),
        ));
    }
    let mut rejected = output(
        "estimator.rejected_samples".into(),
        Probe::RejectedSamples,
        None,
        "Samples skipped so far by estimator.innovation_gate".into(),
        next_vr(),
    );
    rejected.var_type = VarType::Integer;
    rejected.variability = Variability::Discrete;
    vars.push(rejected);
    for id in [
        spec.acceleration_noise,
        spec.pressure_noise,
        spec.innovation_gate,
    ]
    .into_iter()
    .chain(spec.loads.as_ref().map(|l| l.noise))
    .chain(
        spec.sensors
            .iter()
            .filter_map(|s| s.bias.as_ref().map(|b| b.noise)),
    ) {
        let slot = &m.params[id.index()];
        vars.push(slot_var(
            slot.name.clone(),
            id,
            Causality::Parameter,
            VarType::Real,
            l.slots[id.index()].description.clone(),
            next_vr(),
        ));
    }
    for (k, kind) in kinds.iter().enumerate() {
        let (name, unit) = sigma_name(m, *kind, k);
        let (what, _) = crate::emit::model_exchange::describe(m, *kind);
        // (The estimator keeps its initial choice of independent coordinates.)
        let what = what.split(" (re-chosen").next().unwrap_or_default();
        vars.push(output(
            name,
            Probe::EstimateSigma(k),
            unit.map(str::to_string),
            format!("Standard deviation of the estimated {what}"),
            next_vr(),
        ));
    }
    // The estimated errors (states n_ode.., the loads then the sensors' biases): the
    // value and its σ.
    let mut errors: Vec<(String, String, Probe, &str)> = Vec::new();
    if let Some(loads) = &spec.loads {
        // The estimated loads are those of the independent coordinates, in their order.
        for kind in &kinds {
            let StateKind::Coordinate(c) = *kind else {
                continue;
            };
            let Some(i) = loads.on.iter().position(|(on, _)| *on == c) else {
                continue;
            };
            let Some(b) = m
                .mechanism
                .coordinate_indices()
                .iter()
                .position(|k| *k == Some(c))
            else {
                continue;
            };
            let prismatic = matches!(
                m.mechanism.bodies[b].joint,
                fmu_runtime::model::JointKind::Prismatic { .. }
            );
            let unit = if prismatic { "N" } else { "N.m" }.to_string();
            let name = format!("{}.load", m.mechanism.bodies[b].joint_name);
            errors.push((
                name,
                unit,
                Probe::EstimatedLoad(i),
                "load error on the joint",
            ));
        }
    }
    for (i, s) in spec.sensors.iter().enumerate() {
        if s.bias.is_some() {
            let unit = unit(s.value).unwrap_or_default();
            let name = format!("sensor.{}.bias", s.name);
            errors.push((name, unit, Probe::SensorBias(i), "bias of the sensor"));
        }
    }
    for (k, (name, unit, probe, what)) in errors.into_iter().enumerate() {
        vars.push(output(
            name.clone(),
            probe,
            Some(unit.clone()),
            format!("Estimated {what}: what the estimator adds to the model"),
            next_vr(),
        ));
        vars.push(output(
            format!("{name}.sigma"),
            Probe::EstimateSigma(n_ode + k),
            Some(unit),
            format!("Standard deviation of the estimated {what}"),
            next_vr(),
        ));
    }
    for v in &vars {
        if m.variables.iter().any(|w| w.name == v.name) {
            return Err(format!(
                "variable {} of the estimator is also the machine's: rename the machine's",
                v.name
            ));
        }
    }
    l.model.variables.extend(vars);
    l.model
        .validate()
        .map_err(|e| format!("the model with its estimator: {e}"))?;
    l.model.guid = lower::compute_guid(&l.model);
    Ok(n)
}

/// The variable name and unit of the standard deviation of estimated state `k`.
fn sigma_name(m: &CompiledModel, kind: StateKind, k: usize) -> (String, Option<&'static str>) {
    let joint = |c: usize| {
        m.mechanism
            .coordinate_indices()
            .iter()
            .position(|i| *i == Some(c))
            .map(|b| {
                let prismatic = matches!(
                    m.mechanism.bodies[b].joint,
                    fmu_runtime::model::JointKind::Prismatic { .. }
                );
                (m.mechanism.bodies[b].joint_name.clone(), prismatic)
            })
    };
    match kind {
        StateKind::Coordinate(c) => {
            if let Some((j, prismatic)) = joint(c) {
                return (
                    format!("{j}.q.sigma"),
                    Some(if prismatic { "m" } else { "rad" }),
                );
            }
        }
        StateKind::Rate(c) => {
            if let Some((j, prismatic)) = joint(c) {
                let unit = if prismatic { "m/s" } else { "rad/s" };
                return (format!("{j}.qd.sigma"), Some(unit));
            }
        }
        StateKind::FirstOrder(j) => {
            let volume = m
                .circuit
                .nodes
                .iter()
                .filter(|n| matches!(n, Node::Volume(_)))
                .nth(j);
            if let Some(v) = volume {
                return (format!("{}.p.sigma", v.name()), Some("Pa"));
            }
            let spool = j - m.circuit.volumes();
            if let Some(s) = m.circuit.spools.get(spool) {
                return (format!("{}.spool.sigma", s.name), None);
            }
        }
        _ => {}
    }
    // (No brackets: tools that write CSV headers cut names at '['.)
    (format!("estimate.state{}.sigma", k + 1), None)
}
