//! The ODE view of an instance (Model Exchange, the estimator): a minimal state vector
//! x = [z_i; ż_i; w] and its derivative, against the same model and state.

use super::Instance;
use crate::solver::{self, Data, Model};

impl Instance {
    /// The explicit-ODE view (Model Exchange, [`solver::ode`]) of the initialized state,
    /// made at the first call (the partition is chosen at the configuration then).
    pub(super) fn ode(&mut self) -> Result<Box<solver::ode::OdeWork>, String> {
        if !self.initialized {
            return Err("the continuous states exist after initialization".into());
        }
        if !self.work.drives.is_empty() || self.model.mechanism.base.is_some() {
            return Err(
                "Model Exchange does not cover prescribed joint motions or a moving base yet"
                    .into(),
            );
        }
        if let Some(o) = self.ode.take() {
            return Ok(o);
        }
        let (model, data) = self.sides();
        let o = solver::ode::OdeWork::new(model, data)?;
        let declared = self.model.continuous_states();
        if declared > 0 && o.len() != declared {
            return Err(format!(
                "the parameters give {} continuous states ({} independent joint coordinates, their rates and {} first-order states) where the FMU declares {declared}: a parameter made a spool ideal (time constant 0) or dynamic; rebuild the FMU with those parameter values",
                o.len(),
                o.independent(),
                o.len() - 2 * o.independent()
            ));
        }
        Ok(Box::new(o))
    }

    /// What continuous state `k` is (after [`Instance::ode_len`]).
    pub fn ode_kind(&self, k: usize) -> Option<solver::ode::StateKind> {
        self.ode.as_ref().map(|o| o.kind(k))
    }

    /// Runs `f` on the ODE view (made at the first call) with the instance's model and
    /// data.
    pub(super) fn with_ode<R>(
        &mut self,
        f: impl FnOnce(&mut solver::ode::OdeWork, Model<'_>, Data<'_>) -> R,
    ) -> Result<R, String> {
        let mut o = self.ode()?;
        let model = Model::new(&self.model, &self.layout, &self.params);
        let r = f(&mut o, model, Data::new(&mut self.state, &mut self.work));
        self.ode = Some(o);
        Ok(r)
    }

    /// Model Exchange, at the end of an integrator step: whether the independent
    /// coordinates should be re-chosen ([`solver::ode::OdeWork::needs_rechoice`]).
    pub fn ode_needs_rechoice(&mut self) -> Result<bool, String> {
        self.with_ode(|o, model, data| o.needs_rechoice(data.work, model.layout))
    }

    /// Re-chooses the independent coordinates at the current configuration.
    pub fn ode_rechoose(&mut self) -> Result<(), String> {
        self.with_ode(|o, model, data| o.rechoose(model, data))?
    }

    /// Number of continuous states x = [z_i; ż_i; w; W].
    pub fn ode_len(&mut self) -> Result<usize, String> {
        self.with_ode(|o, _, _| o.len())
    }

    /// The continuous states of the current state.
    pub fn ode_states(&mut self, x: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, _, data| o.states(data.state, x))
    }

    /// Sets the continuous states (the dependent coordinates and rates follow).
    pub fn set_ode_states(&mut self, x: &[f64]) -> Result<(), String> {
        self.with_ode(|o, model, data| o.set_states(model, data, x, false))?
    }

    /// ẋ at the current state and time; the outputs are refreshed to it.
    pub fn ode_derivatives(&mut self, dx: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, model, data| o.derivatives(model, data, dx, true))??;
        self.capture_outputs();
        Ok(())
    }

    /// ẋ as [`Instance::ode_derivatives`], the outputs refreshed at position and velocity
    /// level only (accelerations, forces and powers not at the consistent point): what an
    /// estimator's Jacobian reads, one evaluation cheaper.
    pub(crate) fn ode_rates(&mut self, dx: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, model, data| o.derivatives(model, data, dx, false))??;
        self.capture_outputs();
        Ok(())
    }

    /// x into the state where only rates and first-order states differ from the last
    /// [`Instance::set_ode_states`] (its configuration kept, no position solve).
    pub(crate) fn set_ode_rates(&mut self, x: &[f64]) -> Result<(), String> {
        self.with_ode(|o, model, data| o.set_states(model, data, x, true))?
    }

    /// ẋ at x whose first-order states alone differ from those of the last
    /// [`Instance::ode_derivatives`] (`base` its ẋ)
    /// ([`solver::ode::OdeWork::first_order_change`]); the outputs are refreshed.
    pub(crate) fn ode_first_order_change(
        &mut self,
        x: &[f64],
        base: &[f64],
        dx: &mut [f64],
    ) -> Result<(), String> {
        self.with_ode(|o, model, data| o.first_order_change(model, data, x, base, dx))??;
        self.capture_outputs();
        Ok(())
    }

    /// ∂ẋ/∂f of a generalized force on coordinate `c` at the last
    /// [`Instance::ode_derivatives`] ([`solver::ode::OdeWork::load_column`]).
    pub(crate) fn ode_load_column(&mut self, c: usize, column: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, _, _| o.load_column(c, column))
    }

    /// Typical magnitudes of the continuous states ([`solver::ode::OdeWork::nominals`]).
    pub fn ode_nominals(&mut self, nominal: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, model, _| o.nominals(model.layout, nominal))
    }

    /// Model Exchange: the time of the state (the master's integrator owns it).
    pub fn set_time(&mut self, t: f64) {
        self.state.time = t;
    }

    /// Whether the continuous states are defined (after initialization of a model that
    /// declares them).
    pub fn has_ode(&self) -> bool {
        self.ode.is_some()
    }
}
