//! Stepping: a communication step split into internal steps, each one Newton solve;
//! the estimator corrects between them.

use super::{Instance, StepError};
use crate::solver::{self, Data, Model};

/// Splits `span` into internal steps: as many steps of `h` as fit (with a relative
/// tolerance, so 0.01/0.001 gives 10, not 11) and a last one that lands exactly on the
/// end. A remainder shorter than h/10 is merged into the previous step instead: a sliver
/// of a step (1e-15 s from rounding) makes the trapezoidal formulas 2/h, 4/h² amplify
/// round-off into garbage.
pub fn sub_steps(span: f64, h: f64) -> (u64, f64) {
    let ratio = span / h;
    let mut n = (ratio - 1e-6).ceil().max(1.0) as u64;
    let last = span - (n - 1) as f64 * h;
    if n > 1 && last < 0.1 * h {
        n -= 1;
    }
    (n, h)
}

/// A communication step split into internal steps ([`Instance::begin_step`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepPlan {
    t0: f64,
    to_time: f64,
    h: f64,
    n: u64,
    taken: u64,
}

impl StepPlan {
    /// Where the communication step ends.
    pub fn to_time(&self) -> f64 {
        self.to_time
    }

    /// Internal steps in the plan, and how many of them are taken.
    pub fn progress(&self) -> (u64, u64) {
        (self.taken, self.n)
    }
}

impl Instance {
    /// Integrates from the current time to exactly `to_time` with the model's internal
    /// step (a shorter last sub-step when needed). On failure the state is left at the last
    /// successful internal step.
    ///
    /// The same as [`Instance::begin_step`], [`Instance::internal_step`] until it is done,
    /// and [`Instance::finish_step`]; FMI 3 takes those pieces one at a time to call the
    /// master between internal steps.
    pub fn advance(&mut self, to_time: f64) -> Result<(), StepError> {
        let result = self.begin_step(to_time).and_then(|mut plan| {
            while !self.internal_step(&mut plan)? {}
            Ok(())
        });
        self.finish_step(result)
    }

    /// Starts a communication step to `to_time`: anchors prescribed motions and input
    /// rates at the inputs as they stand, and splits the span into internal steps. An
    /// error here still needs [`Instance::finish_step`].
    pub fn begin_step(&mut self, to_time: f64) -> Result<StepPlan, StepError> {
        // Prescribed motions follow the inputs as they stand at this communication point.
        solver::drives::anchor(&mut self.work, &self.params, self.state.time);
        // Inputs changed since the last step: its rates are those of the old inputs. (What
        // only an estimator reads, or writes and makes the rates consistent with itself, is
        // no input of the machine; without an estimator a load slot is a disturbance the
        // master sets, an input like any other.)
        if let (Some(spec), Some(_)) = (&self.model.estimator, &self.estimator) {
            for id in spec.slots() {
                self.rates_params[id.index()] = self.params[id.index()];
            }
        }
        if self.initialized && !self.rates_current && self.params != self.rates_params {
            solver::input_change::rates_for_new_inputs(
                Model::new(&self.model, &self.layout, &self.params),
                &self.rates_params,
                Data::new(&mut self.state, &mut self.work),
            );
        }
        if self.has_slopes {
            // Inputs with derivatives move inside the step; afterwards they read as set.
            self.held_inputs.copy_from_slice(&self.params);
        }
        let h_nominal = self.params[self.model.solver.step.index()];
        if !(h_nominal.is_finite() && h_nominal > 0.0) {
            return Err(StepError {
                message: format!("solver.step must be positive, is {h_nominal}"),
                last_successful_time: self.state.time,
            });
        }
        self.check_port_inputs(self.state.time)?;
        let t0 = self.state.time;
        let span = to_time - t0;
        let (n, h) = if span > 0.0 {
            sub_steps(span, h_nominal)
        } else {
            (0, h_nominal)
        };
        Ok(StepPlan {
            t0,
            to_time,
            h,
            n,
            taken: 0,
        })
    }

    /// Takes the next internal step of `plan`; `Ok(true)` when the plan is complete (the
    /// outputs are then those of its end). On failure the state is back at the last
    /// successful internal step.
    pub fn internal_step(&mut self, plan: &mut StepPlan) -> Result<bool, StepError> {
        if plan.taken >= plan.n {
            return Ok(true);
        }
        let k = plan.taken;
        let t_end = if k + 1 == plan.n {
            plan.to_time
        } else {
            plan.t0 + (k + 1) as f64 * plan.h
        };
        let dt = t_end - self.state.time;
        if self.has_slopes {
            self.extrapolate_inputs(t_end - plan.t0);
        }
        #[cfg(test)]
        if let Some(n) = self.fail_after_internal_steps.as_mut() {
            if *n == 0 {
                return Err(StepError {
                    message: "failure injected by a test".into(),
                    last_successful_time: self.state.time,
                });
            }
            *n -= 1;
        }
        if let Err(message) = solver::step_with_retries(
            Model::new(&self.model, &self.layout, &self.params),
            Data::new(&mut self.state, &mut self.work),
            &mut self.saved,
            dt,
        ) {
            // The state is back at the last successful internal step (its rates are
            // recomputed before the next one).
            self.rates_params.fill(f64::NAN);
            self.rates_current = false;
            self.refresh_outputs();
            return Err(StepError {
                message,
                last_successful_time: self.state.time,
            });
        }
        self.state.time = t_end;
        // A joint near gimbal lock continues on a turned chart.
        if !self.work.charts.is_empty() {
            self.recharts +=
                solver::charts::rechart(&self.model, &mut self.state, &mut self.work) as u64;
        }
        plan.taken = k + 1;
        if plan.taken < plan.n {
            return Ok(false);
        }
        self.capture_outputs();
        Ok(true)
    }

    /// Ends a communication step begun by [`Instance::begin_step`] with the result of its
    /// internal steps: the input rates follow the inputs, input derivatives are used up.
    pub fn finish_step(&mut self, result: Result<(), StepError>) -> Result<(), StepError> {
        let result = result.and_then(|()| self.estimate());
        if !self.has_slopes {
            if result.is_ok() {
                self.rates_follow_inputs();
            }
            return result;
        }
        if result.is_ok() {
            // An input the master interpolates is a smooth signal: its next value corrects
            // this extrapolation without a jump (NaN: see `solver::input_change`).
            for ((r, p), slope) in self
                .rates_params
                .iter_mut()
                .zip(&self.params)
                .zip(&self.input_slopes)
            {
                *r = if *slope != [0.0; 2] { f64::NAN } else { *p };
            }
        }
        self.params.copy_from_slice(&self.held_inputs);
        self.rates_current = false;
        self.clear_input_derivatives();
        result
    }

    /// Takes the outputs of the state as it stands: at the end of a step, inside one (after
    /// [`Instance::internal_step`] returned `Ok(false)`, for a master's intermediate
    /// update; the step's result is not changed by it), after an ODE evaluation.
    pub fn capture_outputs(&mut self) {
        solver::capture_outputs(&self.model, &self.layout, &self.state, &mut self.work);
    }
}
