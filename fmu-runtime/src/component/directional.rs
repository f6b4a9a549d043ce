//! Directional derivatives of Model Exchange (`fmi2GetDirectionalDerivative`,
//! `fmi3GetDirectionalDerivative`): Δunknowns = J · Δknowns, where the knowns are continuous
//! states and continuous inputs and the unknowns are state derivatives and outputs — the
//! Jacobian blocks an implicit master (CVode BDF, DASSL) needs for the stiff oil.
//!
//! Computed by central differences inside the FMU along the seed direction, with the step
//! scaled so that no known moves by more than [`RELATIVE_STEP`] of its scale (a state's
//! nominal, an input's magnitude or 1): one direction costs two evaluations of ẋ, however
//! many knowns it combines, instead of the master's one evaluation per column, and the
//! steps respect the machine's scales (1e7 Pa next to 1 rad) that a master's own
//! differences do not know. The state, time and inputs are restored exactly afterwards.

use super::fmu_instance::Component;
use crate::model::{Binding, Causality, Probe, VarType, Variability};
use std::sync::Arc;

/// Largest move of a known, relative to its scale: central differences have truncation
/// error ~ step² and carry the evaluation's noise (position Newton to 1e-13, algebraic
/// spools to 1e-12) divided by the step, balanced here near 1e-9 relative.
pub const RELATIVE_STEP: f64 = 1e-5;

/// A known of a directional derivative.
#[derive(Clone, Copy, Debug)]
enum Known {
    State(usize),
    Input(crate::model::ParamId),
}

impl Component {
    /// `dv_unknown = ∂unknowns/∂knowns · dv_known` at the states, time and inputs as set.
    pub fn directional_derivative(
        &mut self,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<(), String> {
        if self.model_exchange.is_none() {
            return Err(
                "not supported in Co-Simulation, whose capabilities declare providesDirectionalDerivative=\"false\" (FMI 3.0: providesDirectionalDerivatives=\"false\"); Model Exchange instances provide them".into(),
            );
        }
        if !self.instance.has_ode() {
            return Err("directional derivatives are defined after initialization".into());
        }
        if let Some(i) = seed.iter().position(|v| !v.is_finite()) {
            return Err(format!("seed {i} is {}; it must be finite", seed[i]));
        }
        let n = self.continuous_states();
        let mut x = vec![0.0; n];
        self.instance.ode_states(&mut x)?;
        let mut nominal = vec![0.0; n];
        self.instance.ode_nominals(&mut nominal)?;
        // The knowns, and the largest seed relative to its known's scale.
        let mut resolved = Vec::with_capacity(knowns.len());
        let mut largest = 0.0f64;
        for (&vr, &dv) in knowns.iter().zip(seed) {
            let var = self.variable(VarType::Real, vr)?;
            let (known, scale) = match var.binding {
                Binding::Probe(Probe::ContinuousState(k)) => (Known::State(k), nominal[k]),
                Binding::Param(slot)
                    if var.causality == Causality::Input
                        && var.variability == Variability::Continuous =>
                {
                    (Known::Input(slot), self.instance.param(slot).abs().max(1.0))
                }
                _ => {
                    return Err(format!(
                        "known {} (vr {vr}) is neither a continuous state nor a continuous input",
                        var.name
                    ));
                }
            };
            largest = largest.max(dv.abs() / scale);
            resolved.push(known);
        }
        // The unknowns' variables (the model is shared, so they stay borrowed while the
        // instance moves).
        let model = Arc::clone(&self.model);
        let mut targets = Vec::with_capacity(unknowns.len());
        for &vr in unknowns {
            let var = &model.variables[self.variable_index(VarType::Real, vr)?];
            let ok = matches!(var.binding, Binding::Probe(Probe::StateDerivative(_)))
                || var.causality == Causality::Output;
            if !ok {
                return Err(format!(
                    "unknown {} (vr {vr}) is neither a state derivative nor an output",
                    var.name
                ));
            }
            targets.push(var);
        }
        if largest == 0.0 {
            sensitivity.fill(0.0);
            return Ok(());
        }
        let h = RELATIVE_STEP / largest;
        // The direction in x and in the inputs (a known named twice adds its seeds).
        let mut dir_x = vec![0.0; n];
        let mut dir_u: Vec<(crate::model::ParamId, f64, f64)> = Vec::new();
        for (known, &dv) in resolved.iter().zip(seed) {
            match *known {
                Known::State(k) => dir_x[k] += dv,
                Known::Input(slot) => match dir_u.iter_mut().find(|e| e.0 == slot) {
                    Some(e) => e.2 += dv,
                    None => dir_u.push((slot, self.instance.param(slot), dv)),
                },
            }
        }
        let saved = self.instance.snapshot();
        let mut dx = vec![0.0; n];
        let mut values = [vec![0.0; targets.len()], vec![0.0; targets.len()]];
        let mut result = Ok(());
        for (side, sign) in [(0, 1.0), (1, -1.0)] {
            let moved: Vec<f64> = x
                .iter()
                .zip(&dir_x)
                .map(|(a, d)| a + sign * h * d)
                .collect();
            for &(slot, u, du) in &dir_u {
                self.instance.set_param(slot, u + sign * h * du);
            }
            result = self
                .instance
                .set_ode_states(&moved)
                .and_then(|()| self.instance.ode_derivatives(&mut dx));
            if result.is_err() {
                break;
            }
            for (v, &var) in values[side].iter_mut().zip(&targets) {
                *v = self.instance.value(var);
            }
            self.instance.restore(&saved)?;
        }
        self.instance.restore(&saved)?;
        if let Some(me) = self.model_exchange.as_mut() {
            me.invalidate();
        }
        result.map_err(|e| format!("the derivatives near the states cannot be evaluated: {e}"))?;
        for ((s, plus), minus) in sensitivity.iter_mut().zip(&values[0]).zip(&values[1]) {
            *s = (plus - minus) / (2.0 * h);
        }
        Ok(())
    }
}
