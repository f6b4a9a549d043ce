//! Initialization Mode: what getters see in it, and leaving it.
//!
//! The initial state is the static equilibrium at the start time, which depends on every
//! parameter and input the master sets in Initialization Mode. Strict importers read
//! outputs and the continuous states there (FMI 2.0 and 3.0 allow
//! `GetContinuousStates`, FMI 3.0 `GetContinuousStateDerivatives` too), so the first
//! getter of a computed value solves the equilibrium *provisionally*: the instance as the
//! master set it is kept, a later `Set*` goes back to it before writing (no parameter work
//! is counted, the next getter solves again), and `ExitInitializationMode` keeps the
//! solution when nothing was set since. A master that reads nothing gets exactly the run
//! it got before; one that reads gets the values it will see after initialization, bit
//! for bit.

use super::call_state::FmiState;
use super::fmu_instance::Component;
use super::logging::Category;
use crate::fmi2::types::fmi2Status;
use crate::model::{Binding, VarType};

impl Component {
    /// Before a getter of a computed value: in Initialization Mode, solves the initial
    /// state if it is not solved for the values as set (else nothing to do).
    pub fn initialized_view(&mut self) -> Result<(), String> {
        if self.state != FmiState::InitializationMode || self.instance.is_initialized() {
            return Ok(());
        }
        let before = self.instance.snapshot();
        if let Err(e) = self.initialize_instance() {
            self.instance.restore_keeping_input_derivatives(&before)?;
            return Err(e);
        }
        self.pre_init = Some(before);
        if let Some(me) = self.model_exchange.as_mut() {
            me.invalidate();
        }
        Ok(())
    }

    /// Before `Get{Type}` of `vrs`: the initial state when one of them is computed, and
    /// ẋ and the outputs brought up to date (Model Exchange).
    pub fn prepare_get(&mut self, ty: VarType, vrs: &[u32]) -> Result<(), String> {
        let computed = |c: &Component| {
            vrs.iter().any(|&vr| {
                c.variable(ty, vr)
                    .is_ok_and(|v| matches!(v.binding, Binding::Probe(_)))
            })
        };
        if self.state == FmiState::InitializationMode && computed(self) {
            self.initialized_view()?;
        }
        self.refresh_model_exchange()
    }

    /// Before a value is set: a provisional initialization is undone (the instance is
    /// again as the master set it; the caller invalidates ẋ, as for any set).
    pub(super) fn undo_provisional_initialization(&mut self) -> Result<(), String> {
        match self.pre_init.take() {
            Some(before) => self.instance.restore_keeping_input_derivatives(&before),
            None => Ok(()),
        }
    }

    fn initialize_instance(&mut self) -> Result<(), String> {
        let t0 = self.experiment.start_time;
        self.instance
            .initialize(t0)
            .map_err(|e| format!("initialization at t = {t0} s failed: {}", e.message))
    }

    /// Leaving Initialization Mode: solves the initial state (static equilibrium) at the
    /// start time, unless a getter solved it for the values as set, and enters
    /// `StepComplete` (FMI 3.0: Step Mode) or, for Model Exchange, Event Mode.
    pub fn exit_initialization_mode(&mut self) -> Result<fmi2Status, String> {
        let t0 = self.experiment.start_time;
        if self.pre_init.take().is_none() {
            self.initialize_instance()?;
        }
        self.state = if self.model_exchange.is_some() {
            FmiState::EventMode
        } else {
            FmiState::StepComplete
        };
        self.last_successful_time = self.instance.time();
        self.last_step_status = fmi2Status::fmi2OK;
        self.log(
            fmi2Status::fmi2OK,
            Category::Events,
            &format!("initialized at t = {t0} s"),
        );
        if let Some(r) = self.instance.equilibrium_report()
            && !r.reached()
        {
            // The run still starts (a load that cannot be held is a legitimate start),
            // but the importer learns why the first steps move.
            self.log(
                fmi2Status::fmi2Warning,
                Category::StatusWarning,
                &format!(
                    "the static equilibrium is not met: {:.4e} N or N·m unbalanced on joint coordinate {} (load {:.4e}), net inflow {:.4e} m3/s into volume {}; the run starts with a transient",
                    r.force, r.coordinate, r.load, r.inflow, r.volume
                ),
            );
        }
        Ok(fmi2Status::fmi2OK)
    }
}
