//! The ODE view of an instance (Model Exchange, the estimator): a minimal state vector
//! x = [z_i; ż_i; w] and its derivative, against the same model and state.

use super::Instance;
use crate::model::CompiledModel;
use crate::solver::{self, Layout, State, Workspace};

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
        let o = solver::ode::OdeWork::new(
            &self.model,
            &self.layout,
            &self.params,
            &mut self.state,
            &mut self.work,
        )?;
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

    /// Runs `f` on the ODE view (made at the first call) with the instance's model,
    /// layout, parameters, state and workspace.
    pub(super) fn with_ode<R>(
        &mut self,
        f: impl FnOnce(
            &mut solver::ode::OdeWork,
            &CompiledModel,
            &Layout,
            &[f64],
            &mut State,
            &mut Workspace,
        ) -> R,
    ) -> Result<R, String> {
        let mut o = self.ode()?;
        let (m, l, p) = (&self.model, &self.layout, &self.params);
        let r = f(&mut o, m, l, p, &mut self.state, &mut self.work);
        self.ode = Some(o);
        Ok(r)
    }

    /// Model Exchange, at the end of an integrator step: whether the independent
    /// coordinates should be re-chosen ([`solver::ode::OdeWork::needs_rechoice`]).
    pub fn ode_needs_rechoice(&mut self) -> Result<bool, String> {
        self.with_ode(|o, _, l, _, _, ws| o.needs_rechoice(ws, l))
    }

    /// Re-chooses the independent coordinates at the current configuration.
    pub fn ode_rechoose(&mut self) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.rechoose(m, l, p, st, ws))?
    }

    /// Number of continuous states x = [z_i; ż_i; w; W].
    pub fn ode_len(&mut self) -> Result<usize, String> {
        self.with_ode(|o, _, _, _, _, _| o.len())
    }

    /// The continuous states of the current state.
    pub fn ode_states(&mut self, x: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, _, _, _, st, _| o.states(st, x))
    }

    /// Sets the continuous states (the dependent coordinates and rates follow).
    pub fn set_ode_states(&mut self, x: &[f64]) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.set_states(m, l, p, st, ws, x, false))?
    }

    /// ẋ at the current state and time; the outputs are refreshed to it.
    pub fn ode_derivatives(&mut self, dx: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.derivatives(m, l, p, st, ws, dx, true))??;
        self.capture_outputs();
        Ok(())
    }

    /// ẋ as [`Instance::ode_derivatives`], the outputs refreshed at position and velocity
    /// level only (accelerations, forces and powers not at the consistent point): what an
    /// estimator's Jacobian reads, one evaluation cheaper.
    pub(crate) fn ode_rates(&mut self, dx: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.derivatives(m, l, p, st, ws, dx, false))??;
        self.capture_outputs();
        Ok(())
    }

    /// x into the state where only rates and first-order states differ from the last
    /// [`Instance::set_ode_states`] (its configuration kept, no position solve).
    pub(crate) fn set_ode_rates(&mut self, x: &[f64]) -> Result<(), String> {
        self.with_ode(|o, m, l, p, st, ws| o.set_states(m, l, p, st, ws, x, true))?
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
        self.with_ode(|o, m, l, p, st, ws| o.first_order_change(m, l, p, st, ws, x, base, dx))??;
        self.capture_outputs();
        Ok(())
    }

    /// ∂ẋ/∂f of a generalized force on coordinate `c` at the last
    /// [`Instance::ode_derivatives`] ([`solver::ode::OdeWork::load_column`]).
    pub(crate) fn ode_load_column(&mut self, c: usize, column: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, _, _, _, _, _| o.load_column(c, column))
    }

    /// Typical magnitudes of the continuous states ([`solver::ode::OdeWork::nominals`]).
    pub fn ode_nominals(&mut self, nominal: &mut [f64]) -> Result<(), String> {
        self.with_ode(|o, _, l, _, _, _| o.nominals(l, nominal))
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
