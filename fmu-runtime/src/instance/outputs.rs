//! Output values: each interface variable from its slot or probe.

use super::Instance;
use crate::model::{Binding, Probe, Variable};
use crate::solver;

impl Instance {
    /// Current value of an FMI variable.
    pub fn value(&self, var: &Variable) -> f64 {
        match var.binding {
            Binding::Param(p) => self.params[p.index()],
            Binding::Probe(p) => self.probe(p),
        }
    }

    /// A quantity computed from the current state.
    pub fn probe(&self, probe: Probe) -> f64 {
        match (probe, &self.ode) {
            (Probe::ContinuousState(k), Some(o)) => o.value(&self.state, k, false),
            (Probe::StateDerivative(k), Some(o)) => o.value(&self.state, k, true),
            (Probe::EstimateSigma(k), _) => self
                .estimator
                .as_ref()
                .filter(|e| k < e.len())
                .map_or(f64::NAN, |e| e.sigma(k)),
            (Probe::Innovation(i), _) => self
                .estimator
                .as_ref()
                .map_or(f64::NAN, |e| e.innovation(i).0),
            (Probe::InnovationSigma(i), _) => self
                .estimator
                .as_ref()
                .map_or(f64::NAN, |e| e.innovation(i).1),
            (Probe::RejectedSamples, _) => {
                self.estimator.as_ref().map_or(0.0, |e| e.rejected() as f64)
            }
            (Probe::EstimatedLoad(i), _) => self
                .model
                .estimator
                .as_ref()
                .and_then(|e| e.loads.as_ref())
                .and_then(|l| l.on.get(i))
                .map_or(f64::NAN, |&(_, slot)| self.params[slot.index()]),
            (Probe::SensorBias(i), _) => self
                .model
                .estimator
                .as_ref()
                .and_then(|e| e.sensors.get(i)?.bias.as_ref())
                .map_or(f64::NAN, |b| self.params[b.value.index()]),
            (Probe::SensorEstimate(i), _) => {
                let Some(s) = self.model.estimator.as_ref().and_then(|e| e.sensors.get(i)) else {
                    return f64::NAN;
                };
                let bias = s
                    .bias
                    .as_ref()
                    .map_or(0.0, |b| self.params[b.value.index()]);
                self.probe(s.probe) + bias
            }
            _ => solver::probe(&self.model, &self.layout, &self.state, &self.work, probe),
        }
    }

    pub(super) fn refresh_outputs(&mut self) {
        let (model, data) = self.sides();
        solver::refresh_outputs(model, data);
    }
}
