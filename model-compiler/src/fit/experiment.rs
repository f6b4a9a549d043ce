//! One simulation of the measured experiment with candidate values of the free fields:
//! the edited description is compiled and run in-process (the FMU's own solver, no FMU
//! file), driven by the measured inputs in FMPy's convention (interpolated linearly,
//! applied at the start of each communication step), and sampled at the measurement's
//! times.

use super::field::{Document, Field};
use crate::simulate::InputSeries;
use fmu_runtime::Instance;
use fmu_runtime::model::{Binding, CompiledModel, ParamId, Variable};
use std::sync::Arc;

/// The experiment a fit simulates.
#[derive(Clone, Debug)]
pub struct Experiment {
    pub doc: Document,
    /// Per free parameter, the fields it sets (more than one when tied).
    pub free: Vec<Vec<Field>>,
    pub inputs: InputSeries,
    /// Measured channels' model outputs.
    pub outputs: Vec<String>,
    /// Sample times (the measurement's), all on the communication grid.
    pub times: Vec<f64>,
    /// Communication step.
    pub step: f64,
}

/// The model's outputs at the sample times `times[..reached]`; a run that could not reach
/// the last sample says why.
#[derive(Clone, Debug)]
pub struct Trajectory {
    /// `values[output][sample]`, `reached` samples each.
    pub values: Vec<Vec<f64>>,
    pub reached: usize,
    pub failure: Option<String>,
}

impl Experiment {
    /// The description with `values` (SI) in the free fields.
    pub fn description(&self, values: &[f64]) -> Document {
        let mut doc = self.doc.clone();
        for (fields, v) in self.free.iter().zip(values) {
            for f in fields {
                doc.set(f, *v);
            }
        }
        doc
    }

    /// Compiles the description with `values`; a value the compiler rejects gives its
    /// diagnostics.
    pub fn compile(&self, values: &[f64]) -> Result<CompiledModel, String> {
        self.description(values).compile()
    }

    /// Runs the experiment from the first sample to the last (`Err`: the description
    /// does not compile with these values).
    pub fn run(&self, values: &[f64]) -> Result<Trajectory, String> {
        let model = Arc::new(self.compile(values)?);
        let find = |name: &str| -> Result<Variable, String> {
            model
                .variables
                .iter()
                .find(|v| v.name == name)
                .cloned()
                .ok_or_else(|| format!("the model has no variable '{name}'"))
        };
        let input_ids: Vec<ParamId> = self
            .inputs
            .names
            .iter()
            .map(|n| match find(n)?.binding {
                Binding::Param(p) => Ok(p),
                Binding::Probe(_) => Err(format!("'{n}' is an output, not an input")),
            })
            .collect::<Result<_, _>>()?;
        let outputs: Vec<Variable> = self
            .outputs
            .iter()
            .map(|n| find(n))
            .collect::<Result<_, _>>()?;
        let mut inst = Instance::new(model);
        let set_inputs = |inst: &mut Instance, t: f64, after_event: bool| {
            for (id, v) in input_ids.iter().zip(self.inputs.value_at(t, after_event)) {
                inst.set_param(*id, v);
            }
        };
        let mut traj = Trajectory {
            values: vec![Vec::with_capacity(self.times.len()); outputs.len()],
            reached: 0,
            failure: None,
        };
        let record = |inst: &Instance, traj: &mut Trajectory| {
            for (o, v) in outputs.iter().enumerate() {
                traj.values[o].push(inst.value(v));
            }
            traj.reached += 1;
        };
        let t0 = self.times[0];
        set_inputs(&mut inst, t0, false);
        if let Err(e) = inst.initialize(t0) {
            traj.failure = Some(format!("initialization at t = {t0} s: {}", e.message));
            return Ok(traj);
        }
        record(&inst, &mut traj);
        let mut t = t0;
        for &sample in &self.times[1..] {
            let steps = ((sample - t) / self.step).round().max(1.0) as usize;
            let from = t;
            for k in 1..=steps {
                set_inputs(&mut inst, t, true);
                let to = if k == steps {
                    sample
                } else {
                    from + k as f64 * self.step
                };
                if let Err(e) = inst.advance(to) {
                    traj.failure = Some(format!("t = {to} s: {}", e.message));
                    return Ok(traj);
                }
                t = to;
            }
            record(&inst, &mut traj);
        }
        Ok(traj)
    }
}
