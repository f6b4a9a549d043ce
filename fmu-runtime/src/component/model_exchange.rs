//! Model Exchange on a component: the master's integrator owns time and the continuous
//! states x = [z_i; ż_i; w] ([`crate::solver::ode`]); the component evaluates ẋ and the
//! outputs lazily at the states, time and inputs last set. Shared by FMI 2.0 and 3.0.
//!
//! Events: the model has no event indicators (its non-smooth laws — valve edges, check
//! valves, friction — are continuous in x) and no time events. The one event is a
//! **step event**: when the independent coordinates' Φ_z^d becomes ill-conditioned
//! (near a singular configuration of the chosen partition), `CompletedIntegratorStep`
//! asks for Event Mode, and the event update chooses them again; x keeps its length,
//! its coordinate entries change meaning (`valuesOfContinuousStatesChanged`).

use super::call_state::FmiState;
use super::fmu_instance::Component;
use super::logging::Category;
use super::me_state::{EventUpdate, ModelExchange};
use crate::fmi2::types::fmi2Status;
use crate::model::{Binding, Probe};

const CO_SIMULATION: &str = "the instance was instantiated for Co-Simulation";

impl Component {
    /// Number of continuous states the FMU declares (counted once, at instantiation, for a
    /// Model Exchange instance).
    pub fn continuous_states(&self) -> usize {
        match &self.model_exchange {
            Some(me) => me.dx.len(),
            None => self.model.continuous_states(),
        }
    }

    fn me(&mut self) -> Result<&mut ModelExchange, String> {
        self.model_exchange
            .as_mut()
            .ok_or_else(|| CO_SIMULATION.into())
    }

    /// Checks the array length `n` the master passed against the declared count.
    pub fn check_states_len(&self, n: usize, what: &str) -> Result<(), String> {
        let declared = self.continuous_states();
        if n != declared {
            return Err(format!(
                "{what} has {n} elements; this FMU has {declared} continuous states"
            ));
        }
        Ok(())
    }

    /// Brings ẋ and the outputs up to the states, time and inputs as set (no-op when they
    /// are; a Co-Simulation instance has nothing to do).
    pub fn refresh_model_exchange(&mut self) -> Result<(), String> {
        let Some(me) = self.model_exchange.as_mut() else {
            return Ok(());
        };
        if me.current || !self.instance.has_ode() {
            return Ok(());
        }
        me.evaluations += 1;
        self.instance.ode_derivatives(&mut me.dx)?;
        me.current = true;
        Ok(())
    }

    /// `SetTime`.
    pub fn set_model_time(&mut self, t: f64) -> Result<(), String> {
        if !t.is_finite() {
            return Err(format!("time must be finite, is {t}"));
        }
        let start = self.experiment.start_time;
        if t < start {
            return Err(format!("time {t} s is before the start time {start} s"));
        }
        self.me()?.invalidate();
        self.instance.set_time(t);
        Ok(())
    }

    /// `SetContinuousStates`: `Ok(false)` (nothing changed, logged) when the dependent
    /// coordinates cannot be solved for at x (the master should try a smaller step).
    pub fn set_continuous_states(&mut self, x: &[f64]) -> Result<bool, String> {
        self.check_states_len(x.len(), "x[]")?;
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(format!("x[{i}] is {}; states must be finite", x[i]));
        }
        let me = self.model_exchange.as_mut().ok_or(CO_SIMULATION)?;
        me.invalidate();
        let saved = match me.backup.as_mut() {
            Some(b) => {
                self.instance.snapshot_into(b);
                b
            }
            None => me.backup.insert(self.instance.snapshot()),
        };
        if let Err(e) = self.instance.set_ode_states(x) {
            self.instance.restore(saved)?;
            self.log(
                fmi2Status::fmi2Discard,
                Category::StatusDiscard,
                &format!("the states cannot be set: {e}"),
            );
            return Ok(false);
        }
        Ok(true)
    }

    /// `GetContinuousStates` (in Initialization Mode those of the initial state).
    pub fn get_continuous_states(&mut self, x: &mut [f64]) -> Result<(), String> {
        self.check_states_len(x.len(), "x[]")?;
        self.initialized_view()?;
        self.instance.ode_states(x)
    }

    /// `GetDerivatives`: `Ok(false)` (logged) when ẋ cannot be evaluated at the states.
    pub fn get_derivatives(&mut self, dx: &mut [f64]) -> Result<bool, String> {
        self.check_states_len(dx.len(), "derivatives[]")?;
        self.initialized_view()?;
        if let Err(e) = self.refresh_model_exchange() {
            self.log(
                fmi2Status::fmi2Discard,
                Category::StatusDiscard,
                &format!(
                    "the derivatives cannot be evaluated at t = {} s: {e}",
                    self.instance.time()
                ),
            );
            return Ok(false);
        }
        dx.copy_from_slice(&self.me()?.dx);
        Ok(true)
    }

    /// `GetNominalsOfContinuousStates`: before initialization those the model file
    /// declares (the compiler's partition at the default start), in and after it the
    /// instance's.
    pub fn get_nominals(&mut self, nominal: &mut [f64]) -> Result<(), String> {
        self.check_states_len(nominal.len(), "x_nominal[]")?;
        self.initialized_view()?;
        if self.instance.has_ode() {
            return self.instance.ode_nominals(nominal);
        }
        for v in &self.model.variables {
            if let Binding::Probe(Probe::ContinuousState(k)) = v.binding {
                nominal[k] = v.nominal.unwrap_or(1.0);
            }
        }
        Ok(())
    }

    /// `CompletedIntegratorStep`: whether the master must enter Event Mode (to re-choose
    /// the independent coordinates).
    pub fn completed_integrator_step(&mut self) -> Result<bool, String> {
        self.refresh_model_exchange()?;
        let needed = self.instance.ode_needs_rechoice()?;
        self.me()?.rechoice = needed;
        Ok(needed)
    }

    /// Enter Event Mode.
    pub fn enter_event_mode(&mut self) -> Result<(), String> {
        self.me()?;
        self.state = FmiState::EventMode;
        Ok(())
    }

    /// The event update (`NewDiscreteStates` / `UpdateDiscreteStates`): re-chooses the
    /// independent coordinates when a step event asked for it, or when they have become
    /// ill-conditioned since (a master may enter Event Mode at any time).
    pub fn update_discrete_states(&mut self) -> Result<EventUpdate, String> {
        let asked = std::mem::take(&mut self.me()?.rechoice);
        self.refresh_model_exchange()?;
        if !asked && !self.instance.ode_needs_rechoice()? {
            return Ok(EventUpdate::default());
        }
        self.instance.ode_rechoose()?;
        self.me()?.invalidate();
        self.log(
            fmi2Status::fmi2OK,
            Category::Events,
            &format!(
                "independent coordinates re-chosen at t = {} s (Φ_z of the dependent ones had become ill-conditioned): the joint coordinates in x changed",
                self.instance.time()
            ),
        );
        Ok(EventUpdate {
            values_changed: true,
        })
    }

    /// Enter Continuous-Time Mode.
    pub fn enter_continuous_time_mode(&mut self) -> Result<(), String> {
        self.me()?;
        self.state = FmiState::ContinuousTimeMode;
        Ok(())
    }
}
