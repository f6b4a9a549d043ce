//! What the estimator needs of the machine it estimates: its ODE view (states, rates,
//! load columns), its outputs, its parameters, and a twin to take Jacobians on. The
//! instance implements it ([`crate::instance`]); the estimator does not depend on it.

use crate::model::{CompiledModel, ParamId, Probe};
use crate::solver::State;
use crate::solver::ode::StateKind;

pub trait Plant: Sized {
    fn model(&self) -> &CompiledModel;
    fn time(&self) -> f64;
    fn params(&self) -> &[f64];
    fn set_param(&mut self, id: ParamId, value: f64);
    /// Pressures among the first-order states (they come first).
    fn pressure_states(&self) -> usize;
    /// A correction changed the state: the next step starts from it afresh.
    fn restart_after_correction(&mut self);
    fn probe(&self, probe: Probe) -> f64;

    fn ode_len(&mut self) -> Result<usize, String>;
    fn ode_kind(&self, k: usize) -> Option<StateKind>;
    fn ode_states(&mut self, x: &mut [f64]) -> Result<(), String>;
    fn set_ode_states(&mut self, x: &[f64]) -> Result<(), String>;
    fn ode_derivatives(&mut self, dx: &mut [f64]) -> Result<(), String>;
    fn ode_rates(&mut self, dx: &mut [f64]) -> Result<(), String>;
    fn set_ode_rates(&mut self, x: &[f64]) -> Result<(), String>;
    /// ẋ at `x` whose first-order states alone differ from those of the last
    /// [`Plant::ode_derivatives`] (`base` its ẋ).
    fn ode_first_order_change(
        &mut self,
        x: &[f64],
        base: &[f64],
        dx: &mut [f64],
    ) -> Result<(), String>;
    fn ode_load_column(&mut self, c: usize, column: &mut [f64]) -> Result<(), String>;

    /// An initialized copy without an estimator (allocated once, at initialization).
    fn twin(&self) -> Result<Self, String>;
    /// Takes `other`'s state and parameters (a twin follows its instance).
    fn mirror(&mut self, other: &Self);
    fn state_copy(&self) -> State;
    fn save_state(&self, to: &mut State);
    fn load_state(&mut self, from: &State);
}
