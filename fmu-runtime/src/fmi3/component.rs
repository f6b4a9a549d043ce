//! The object behind an `fmi3Instance`: the component shared with FMI 2.0 plus what FMI 3.0
//! Co-Simulation adds (the intermediate-update callback, early return, the inputs a master
//! sets inside a step, the state a discarded step returns to).

use crate::component::call::Handle;
use crate::component::call_state::FmiState;
use crate::component::fmu_instance::{COMPONENT_MAGIC_FMI3, Component};
use crate::component::fmu_state::FmuState;
use crate::component::logging::Logger;
use crate::fmi3::types::{fmi3InstanceEnvironment, fmi3IntermediateUpdateCallback};
use crate::model::{Causality, CompiledModel, ParamId, VarType, Variability, Variable};
use std::sync::Arc;

/// An FMI 3.0 instance (Co-Simulation, or Model Exchange with `comp.model_exchange` set
/// and the Co-Simulation fields unused).
#[repr(C)]
pub struct Fmi3Component {
    /// First field: its tag (`COMPONENT_MAGIC_FMI3`) identifies the handle.
    pub comp: Component,
    /// `earlyReturnAllowed` of `fmi3InstantiateCoSimulation`.
    pub early_return_allowed: bool,
    pub intermediate_update: fmi3IntermediateUpdateCallback,
    pub environment: fmi3InstanceEnvironment,
    /// `requiredIntermediateVariables`, sorted: the only variables a master may get or set
    /// in Intermediate Update Mode.
    pub required: Vec<u32>,
    /// The required variables include inputs / outputs (the callback's
    /// `intermediateVariableSetRequested` / `intermediateVariableGetAllowed`).
    pub sets_requested: bool,
    pub gets_allowed: bool,
    /// Inputs set in the callback, applied when it returns (capacity: every input, so the
    /// step allocates nothing).
    pub pending: Vec<(ParamId, f64)>,
    /// The state at the start of the current `fmi3DoStep`: a discarded step returns to it
    /// (FMI 3.0 `fmi3Discard`: "the FMU is in the same state as before the call").
    pub step_start: FmuState,
    /// The value reference of the independent variable `time` ([`super::time_value_reference`]).
    pub time_vr: u32,
}

impl Fmi3Component {
    /// An instance of `model` in state `Instantiated`, logging through `logger`.
    pub fn new(
        model: Arc<CompiledModel>,
        logger: Logger,
        early_return_allowed: bool,
        intermediate_update: fmi3IntermediateUpdateCallback,
        environment: fmi3InstanceEnvironment,
        required: &[u32],
    ) -> Result<Fmi3Component, String> {
        unique_value_references(&model.variables)?;
        let comp = Component::with_logger(model, logger, COMPONENT_MAGIC_FMI3)?;
        let mut sorted = required.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let (mut sets, mut gets) = (false, false);
        for &vr in &sorted {
            let var = comp.variable(VarType::Real, vr).map_err(|_| {
                format!(
                    "requiredIntermediateVariables holds value reference {vr}, which is no Float64 variable with intermediateUpdate=\"true\""
                )
            })?;
            match intermediate_role(var) {
                Some(Causality::Input) => sets = true,
                Some(_) => gets = true,
                None => {
                    return Err(format!(
                        "requiredIntermediateVariables holds \"{}\" (vr {vr}): only continuous inputs and outputs have intermediateUpdate=\"true\"",
                        var.name
                    ));
                }
            }
        }
        let inputs = comp
            .model
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Input)
            .count();
        let step_start = comp.capture();
        let time_vr = super::time_value_reference(&comp.model);
        Ok(Fmi3Component {
            time_vr,
            comp,
            early_return_allowed,
            intermediate_update,
            environment,
            required: sorted,
            sets_requested: sets,
            gets_allowed: gets,
            pending: Vec::with_capacity(inputs),
            step_start,
        })
    }

    /// Whether `vr` may be read or written in Intermediate Update Mode.
    pub fn is_required(&self, vr: u32) -> bool {
        self.required.binary_search(&vr).is_ok()
    }

    /// Keeps an input set inside the callback until it returns (the last value of a slot
    /// wins).
    pub fn hold_input(&mut self, slot: ParamId, value: f64) {
        match self.pending.iter_mut().find(|(s, _)| *s == slot) {
            Some(entry) => entry.1 = value,
            None => self.pending.push((slot, value)),
        }
    }
}

/// FMI 3.0 has one value-reference space for all types (§2.4.7: "unique for all variables
/// of an FMU"); FMI 2.0 had one per base type. Aliases (the same binding) may share one.
fn unique_value_references(variables: &[Variable]) -> Result<(), String> {
    let mut seen: Vec<(u32, &Variable)> =
        variables.iter().map(|v| (v.value_reference, v)).collect();
    seen.sort_by_key(|e| e.0);
    for w in seen.windows(2) {
        let ((vr, a), (_, b)) = (w[0], w[1]);
        if w[0].0 == w[1].0 && (a.binding != b.binding || a.var_type != b.var_type) {
            return Err(format!(
                "variables \"{}\" and \"{}\" share value reference {vr}, which FMI 3.0 does not allow (the model file was not made for FMI 3.0; build it again with hydromech build --fmi 3)",
                a.name, b.name
            ));
        }
    }
    Ok(())
}

/// The causality of a variable FMI 3.0 marks `intermediateUpdate="true"`: continuous Real
/// inputs and outputs (the model-description writer uses the same rule).
pub fn intermediate_role(var: &Variable) -> Option<Causality> {
    let continuous = var.var_type == VarType::Real && var.variability == Variability::Continuous;
    match var.causality {
        Causality::Input | Causality::Output if continuous => Some(var.causality),
        _ => None,
    }
}

impl Handle for Fmi3Component {
    const ERROR_STATE: FmiState = FmiState::Terminated;

    unsafe fn from_handle<'a>(c: *mut std::ffi::c_void) -> Option<&'a mut Fmi3Component> {
        // SAFETY: forwarded contract; only `fmi3InstantiateCoSimulation` and
        // `fmi3InstantiateModelExchange` make components with this tag, always as the
        // first field of a boxed `Fmi3Component` (repr(C)).
        unsafe {
            Component::from_handle_tagged(c, COMPONENT_MAGIC_FMI3)?;
            Some(&mut *c.cast::<Fmi3Component>())
        }
    }

    fn component(&mut self) -> &mut Component {
        &mut self.comp
    }

    fn state_name(state: FmiState) -> &'static str {
        state.name3()
    }
}
