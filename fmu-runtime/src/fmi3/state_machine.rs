//! The FMI 3.0 calling-sequence masks (FMI 3.0 §2.3 common states, §3.2 Model Exchange
//! and §4.2 Co-Simulation states; the Reference-FMUs' `MASK_fmi3*` idea).
//!
//! The states are those of the shared component ([`FmiState`]) in FMI 3.0's words:
//! `StepComplete` is *Step Mode*, `IntermediateUpdate` is *Intermediate Update Mode*.
//! Co-Simulation declares `hasEventMode="false"`, so only a Model Exchange instance is ever
//! in *Event Mode* or *Continuous-Time Mode*. No structural parameters and no Clocks:
//! *Configuration Mode* and *Clock Activation Mode* are never entered, and their functions
//! pass the mask and then fail with "not supported", which is the message a user needs. A failing call moves the instance to `Terminated` (FMI 3.0: "If any
//! function called in super state FMUStateSettable returns fmi3Error, the FMU enters state
//! Terminated"), from where getters, FMU states, reset and free remain.
//!
//! Deviations, both towards masters: `fmi3Get*` in `Instantiated` reads start values (the
//! standard allows it); `fmi3Reset` and `fmi3FreeInstance` work in every state but
//! Intermediate Update Mode (a reset from inside `fmi3DoStep`'s callback would pull the
//! instance out from under the step).

use crate::component::call_state::{FmiFunction, FmiState as S};

const INSTANTIATED: u32 = S::Instantiated as u32;
const INIT: u32 = S::InitializationMode as u32;
const STEP_MODE: u32 = S::StepComplete as u32;
const TERMINATED: u32 = S::Terminated as u32;
const INTERMEDIATE: u32 = S::IntermediateUpdate as u32;
const FATAL: u32 = S::Fatal as u32;
const EVENT: u32 = S::EventMode as u32;
const CONTINUOUS: u32 = S::ContinuousTimeMode as u32;
/// The modes of a Model Exchange instance between initialization and the end.
const ME: u32 = EVENT | CONTINUOUS;

/// Every state an FMI 3.0 instance can be in.
const ANY: u32 = INSTANTIATED | INIT | STEP_MODE | TERMINATED | INTERMEDIATE | FATAL | ME;
/// FMI 3.0 super state *FMUStateSettable* (minus the modes this FMU never enters).
const SETTABLE: u32 = INSTANTIATED | INIT | STEP_MODE | TERMINATED | ME;
const MASK_GET: u32 = SETTABLE | INTERMEDIATE;
const MASK_SET: u32 = INSTANTIATED | INIT | STEP_MODE | INTERMEDIATE | ME;
/// Model Exchange getters of x, ẋ, their nominals and the event indicators: in
/// Initialization Mode too, as the FMI 3.0 state machine allows (the initial equilibrium
/// solved provisionally, `crate::component::initialization`).
const MASK_ME_GET: u32 = INIT | ME | TERMINATED;
/// Functions of capabilities this FMU does not have: they fail with a reason, in any
/// state but `Fatal`.
const MASK_UNSUPPORTED: u32 = ANY & !FATAL;

const fn f(name: &'static str, mask: u32) -> FmiFunction {
    FmiFunction::new(name, mask)
}

pub const SET_DEBUG_LOGGING: FmiFunction = f("fmi3SetDebugLogging", ANY & !FATAL);
pub const FREE_INSTANCE: FmiFunction = f("fmi3FreeInstance", ANY & !INTERMEDIATE);
pub const ENTER_INITIALIZATION_MODE: FmiFunction = f("fmi3EnterInitializationMode", INSTANTIATED);
pub const EXIT_INITIALIZATION_MODE: FmiFunction = f("fmi3ExitInitializationMode", INIT);
pub const TERMINATE: FmiFunction = f("fmi3Terminate", STEP_MODE | ME);
pub const RESET: FmiFunction = f("fmi3Reset", SETTABLE);

/// `fmi3Get{VariableType}` (per-variable rules in the getter).
pub const fn getter(name: &'static str) -> FmiFunction {
    f(name, MASK_GET)
}

/// `fmi3Set{VariableType}` (per-variable rules in `Component::check_set`).
pub const fn setter(name: &'static str) -> FmiFunction {
    f(name, MASK_SET)
}

pub const GET_FMU_STATE: FmiFunction = f("fmi3GetFMUState", SETTABLE);
pub const SET_FMU_STATE: FmiFunction = f("fmi3SetFMUState", SETTABLE);
pub const FREE_FMU_STATE: FmiFunction = f("fmi3FreeFMUState", SETTABLE);
pub const SERIALIZED_FMU_STATE_SIZE: FmiFunction = f("fmi3SerializedFMUStateSize", SETTABLE);
pub const SERIALIZE_FMU_STATE: FmiFunction = f("fmi3SerializeFMUState", SETTABLE);
pub const DESERIALIZE_FMU_STATE: FmiFunction = f("fmi3DeserializeFMUState", SETTABLE);

pub const DO_STEP: FmiFunction = f("fmi3DoStep", STEP_MODE);

// Model Exchange (`model_exchange.rs`). `fmi3SetContinuousStates` is accepted in Event
// Mode too, so a master may set the states it re-read after an event.
pub const ENTER_EVENT_MODE: FmiFunction = f("fmi3EnterEventMode", ME);
pub const UPDATE_DISCRETE_STATES: FmiFunction = f("fmi3UpdateDiscreteStates", EVENT);
pub const ENTER_CONTINUOUS_TIME_MODE: FmiFunction = f("fmi3EnterContinuousTimeMode", EVENT);
pub const COMPLETED_INTEGRATOR_STEP: FmiFunction = f("fmi3CompletedIntegratorStep", CONTINUOUS);
pub const SET_TIME: FmiFunction = f("fmi3SetTime", ME);
pub const SET_CONTINUOUS_STATES: FmiFunction = f("fmi3SetContinuousStates", ME);
pub const GET_CONTINUOUS_STATE_DERIVATIVES: FmiFunction =
    f("fmi3GetContinuousStateDerivatives", MASK_ME_GET);
pub const GET_EVENT_INDICATORS: FmiFunction = f("fmi3GetEventIndicators", MASK_ME_GET);
pub const GET_CONTINUOUS_STATES: FmiFunction = f("fmi3GetContinuousStates", MASK_ME_GET);
pub const GET_NOMINALS_OF_CONTINUOUS_STATES: FmiFunction = f(
    "fmi3GetNominalsOfContinuousStates",
    INSTANTIATED | MASK_ME_GET,
);
/// Model Exchange only (Co-Simulation instances get the reason from the body).
pub const GET_DIRECTIONAL_DERIVATIVE: FmiFunction =
    f("fmi3GetDirectionalDerivative", ME | TERMINATED | STEP_MODE);
/// The sizes: in any settable state.
pub const GET_NUMBER_OF_EVENT_INDICATORS: FmiFunction =
    f("fmi3GetNumberOfEventIndicators", SETTABLE);
pub const GET_NUMBER_OF_CONTINUOUS_STATES: FmiFunction =
    f("fmi3GetNumberOfContinuousStates", SETTABLE);

/// A function of a capability this FMU does not have (Model Exchange, Scheduled
/// Execution, Event Mode, Clocks, structural parameters, derivatives, dependencies).
pub const fn unsupported(name: &'static str) -> FmiFunction {
    f(name, MASK_UNSUPPORTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_spot_checks() {
        assert!(DO_STEP.allowed_in(S::StepComplete));
        assert!(!DO_STEP.allowed_in(S::IntermediateUpdate));
        let (get, set) = (getter("fmi3GetFloat64"), setter("fmi3SetFloat64"));
        assert!(get.allowed_in(S::Instantiated) && get.allowed_in(S::IntermediateUpdate));
        assert!(!set.allowed_in(S::Terminated));
        assert!(!GET_FMU_STATE.allowed_in(S::IntermediateUpdate));
        assert!(!TERMINATE.allowed_in(S::InitializationMode));
        assert!(!RESET.allowed_in(S::Fatal) && !RESET.allowed_in(S::IntermediateUpdate));
        assert!(FREE_INSTANCE.allowed_in(S::Fatal));
        // FMI 2.0-only states are not part of any FMI 3.0 mask.
        for s in [S::StepFailed, S::StepCanceled, S::Error, S::StepInProgress] {
            assert!(
                !SET_DEBUG_LOGGING.allowed_in(s) && !get.allowed_in(s),
                "{s}"
            );
        }
    }
}
