//! The instance as the estimator's [`Plant`]: each call is the inherent method of the same
//! name.

use super::Instance;
use crate::estimator::Plant;
use crate::model::{CompiledModel, ParamId, Probe};
use crate::solver::State;
use crate::solver::ode::StateKind;

impl Plant for Instance {
    fn model(&self) -> &CompiledModel {
        Instance::model(self)
    }
    fn time(&self) -> f64 {
        Instance::time(self)
    }
    fn params(&self) -> &[f64] {
        Instance::params(self)
    }
    fn set_param(&mut self, id: ParamId, value: f64) {
        Instance::set_param(self, id, value)
    }
    fn pressure_states(&self) -> usize {
        Instance::pressure_states(self)
    }
    fn restart_after_correction(&mut self) {
        Instance::restart_after_correction(self)
    }
    fn probe(&self, probe: Probe) -> f64 {
        Instance::probe(self, probe)
    }
    fn ode_len(&mut self) -> Result<usize, String> {
        Instance::ode_len(self)
    }
    fn ode_kind(&self, k: usize) -> Option<StateKind> {
        Instance::ode_kind(self, k)
    }
    fn ode_states(&mut self, x: &mut [f64]) -> Result<(), String> {
        Instance::ode_states(self, x)
    }
    fn set_ode_states(&mut self, x: &[f64]) -> Result<(), String> {
        Instance::set_ode_states(self, x)
    }
    fn ode_derivatives(&mut self, dx: &mut [f64]) -> Result<(), String> {
        Instance::ode_derivatives(self, dx)
    }
    fn ode_rates(&mut self, dx: &mut [f64]) -> Result<(), String> {
        Instance::ode_rates(self, dx)
    }
    fn set_ode_rates(&mut self, x: &[f64]) -> Result<(), String> {
        Instance::set_ode_rates(self, x)
    }
    fn ode_first_order_change(
        &mut self,
        x: &[f64],
        base: &[f64],
        dx: &mut [f64],
    ) -> Result<(), String> {
        Instance::ode_first_order_change(self, x, base, dx)
    }
    fn ode_load_column(&mut self, c: usize, column: &mut [f64]) -> Result<(), String> {
        Instance::ode_load_column(self, c, column)
    }
    fn twin(&self) -> Result<Instance, String> {
        Instance::twin(self)
    }
    fn mirror(&mut self, other: &Instance) {
        Instance::mirror(self, other)
    }
    fn state_copy(&self) -> State {
        Instance::state_copy(self)
    }
    fn save_state(&self, to: &mut State) {
        Instance::save_state(self, to)
    }
    fn load_state(&mut self, from: &State) {
        Instance::load_state(self, from)
    }
}
