//! The Co-Simulation calling-sequence state machine (FMI 2.0 §4.2.4, table "State Machine
//! of Calling Sequence from Master to Slave"; notes §1.3).
//!
//! Each state is one bit, each function has a mask of the states in which it may be called,
//! as in the Reference-FMUs (`MASK_fmi2*`). The masks below follow the standard's table
//! literally (the Reference-FMUs are somewhat more permissive, e.g. `GetFMUstate` in
//! `Instantiated`, which the table also allows). Per-variable conditions of the table
//! (1, 2, 3, 6) are checked in the get/set code, not here.
//!
//! Deliberate deviation: `fmi2FreeInstance` releases the instance in every state, including
//! `Fatal`. It returns `void`, so refusing would only leak; our instances are
//! self-contained, so freeing one after a fatal error is safe.

use crate::component::call_state::{FmiFunction, FmiState};

use FmiState as S;

const INSTANTIATED: u32 = S::Instantiated as u32;
const INIT: u32 = S::InitializationMode as u32;
const STEP_COMPLETE: u32 = S::StepComplete as u32;
const STEP_IN_PROGRESS: u32 = S::StepInProgress as u32;
const STEP_FAILED: u32 = S::StepFailed as u32;
const STEP_CANCELED: u32 = S::StepCanceled as u32;
const TERMINATED: u32 = S::Terminated as u32;
const ERROR: u32 = S::Error as u32;
const FATAL: u32 = S::Fatal as u32;
const EVENT: u32 = S::EventMode as u32;
const CONTINUOUS: u32 = S::ContinuousTimeMode as u32;
/// The two states a Model Exchange instance is in between initialization and the end.
const ME: u32 = EVENT | CONTINUOUS;

/// Every state an instance can be in.
const ANY: u32 = INSTANTIATED
    | INIT
    | STEP_COMPLETE
    | STEP_IN_PROGRESS
    | STEP_FAILED
    | STEP_CANCELED
    | TERMINATED
    | ERROR
    | FATAL
    | ME;

/// Table columns "x" for SetDebugLogging: every state but `Fatal`.
const MASK_DEBUG_LOGGING: u32 = ANY & !FATAL;
/// FreeInstance/Reset column of the table: not while a step is in progress, not after Fatal.
const MASK_RESET: u32 =
    INSTANTIATED | INIT | STEP_COMPLETE | STEP_FAILED | STEP_CANCELED | TERMINATED | ERROR | ME;
/// Get*: condition 2 in init mode, x at StepComplete/Terminated, 8 in StepFailed,
/// 7 (debug) in StepCanceled/Error. Not in Instantiated.
/// Model Exchange: x in Event and Continuous-Time Mode.
const MASK_GET: u32 = INIT | STEP_COMPLETE | STEP_FAILED | STEP_CANCELED | TERMINATED | ERROR | ME;
/// Set*: conditions 1 (Instantiated), 3 (init) and 6 (StepComplete); Model Exchange 4
/// (Event Mode) and 5 (Continuous-Time Mode).
const MASK_SET: u32 = INSTANTIATED | INIT | STEP_COMPLETE | ME;
/// GetFMUstate: like Get*, plus Instantiated.
const MASK_GET_FMU_STATE: u32 = INSTANTIATED | MASK_GET;
/// Get*Status: StepComplete, StepInProgress, StepFailed, Terminated.
const MASK_STATUS: u32 = STEP_COMPLETE | STEP_IN_PROGRESS | STEP_FAILED | TERMINATED;

pub const SET_DEBUG_LOGGING: FmiFunction =
    FmiFunction::new("fmi2SetDebugLogging", MASK_DEBUG_LOGGING);
pub const FREE_INSTANCE: FmiFunction = FmiFunction::new("fmi2FreeInstance", ANY);
pub const SETUP_EXPERIMENT: FmiFunction = FmiFunction::new("fmi2SetupExperiment", INSTANTIATED);
pub const ENTER_INITIALIZATION_MODE: FmiFunction =
    FmiFunction::new("fmi2EnterInitializationMode", INSTANTIATED);
pub const EXIT_INITIALIZATION_MODE: FmiFunction =
    FmiFunction::new("fmi2ExitInitializationMode", INIT);
pub const TERMINATE: FmiFunction =
    FmiFunction::new("fmi2Terminate", STEP_COMPLETE | STEP_FAILED | ME);
pub const RESET: FmiFunction = FmiFunction::new("fmi2Reset", MASK_RESET);

pub const GET_REAL: FmiFunction = FmiFunction::new("fmi2GetReal", MASK_GET);
pub const GET_INTEGER: FmiFunction = FmiFunction::new("fmi2GetInteger", MASK_GET);
pub const GET_BOOLEAN: FmiFunction = FmiFunction::new("fmi2GetBoolean", MASK_GET);
pub const GET_STRING: FmiFunction = FmiFunction::new("fmi2GetString", MASK_GET);
pub const SET_REAL: FmiFunction = FmiFunction::new("fmi2SetReal", MASK_SET);
pub const SET_INTEGER: FmiFunction = FmiFunction::new("fmi2SetInteger", MASK_SET);
pub const SET_BOOLEAN: FmiFunction = FmiFunction::new("fmi2SetBoolean", MASK_SET);
pub const SET_STRING: FmiFunction = FmiFunction::new("fmi2SetString", MASK_SET);

pub const GET_FMU_STATE: FmiFunction = FmiFunction::new("fmi2GetFMUstate", MASK_GET_FMU_STATE);
pub const SET_FMU_STATE: FmiFunction = FmiFunction::new("fmi2SetFMUstate", MASK_RESET);
pub const FREE_FMU_STATE: FmiFunction = FmiFunction::new("fmi2FreeFMUstate", MASK_RESET);
pub const SERIALIZED_FMU_STATE_SIZE: FmiFunction =
    FmiFunction::new("fmi2SerializedFMUstateSize", MASK_RESET);
pub const SERIALIZE_FMU_STATE: FmiFunction = FmiFunction::new("fmi2SerializeFMUstate", MASK_RESET);
pub const DESERIALIZE_FMU_STATE: FmiFunction =
    FmiFunction::new("fmi2DeSerializeFMUstate", MASK_RESET);
pub const GET_DIRECTIONAL_DERIVATIVE: FmiFunction =
    FmiFunction::new("fmi2GetDirectionalDerivative", MASK_GET);

pub const SET_REAL_INPUT_DERIVATIVES: FmiFunction = FmiFunction::new(
    "fmi2SetRealInputDerivatives",
    INSTANTIATED | INIT | STEP_COMPLETE,
);
pub const GET_REAL_OUTPUT_DERIVATIVES: FmiFunction = FmiFunction::new(
    "fmi2GetRealOutputDerivatives",
    STEP_COMPLETE | STEP_FAILED | STEP_CANCELED | TERMINATED | ERROR,
);
pub const DO_STEP: FmiFunction = FmiFunction::new("fmi2DoStep", STEP_COMPLETE);
pub const CANCEL_STEP: FmiFunction = FmiFunction::new("fmi2CancelStep", STEP_IN_PROGRESS);
pub const GET_STATUS: FmiFunction = FmiFunction::new("fmi2GetStatus", MASK_STATUS);
pub const GET_REAL_STATUS: FmiFunction = FmiFunction::new("fmi2GetRealStatus", MASK_STATUS);
pub const GET_INTEGER_STATUS: FmiFunction = FmiFunction::new("fmi2GetIntegerStatus", MASK_STATUS);
pub const GET_BOOLEAN_STATUS: FmiFunction = FmiFunction::new("fmi2GetBooleanStatus", MASK_STATUS);
pub const GET_STRING_STATUS: FmiFunction = FmiFunction::new("fmi2GetStringStatus", MASK_STATUS);

/// Model Exchange functions (FMI 2.0 §3.2.3, table "State Machine of Calling Sequence").
/// A Co-Simulation instance never reaches Event or Continuous-Time Mode, so these masks
/// also refuse it. `fmi2GetContinuousStates` and `fmi2GetEventIndicators` answer in
/// Initialization Mode too, as the table allows (the initial equilibrium solved
/// provisionally, `crate::component::initialization`); `fmi2GetDerivatives` does not, as
/// the table says. `fmi2SetContinuousStates` is accepted in Event Mode too (as FMI 3.0
/// does), so a master may set the states it re-read after an event.
const MASK_ME_GET: u32 = ME | TERMINATED | ERROR;
pub const ENTER_EVENT_MODE: FmiFunction = FmiFunction::new("fmi2EnterEventMode", ME);
pub const NEW_DISCRETE_STATES: FmiFunction = FmiFunction::new("fmi2NewDiscreteStates", EVENT);
pub const ENTER_CONTINUOUS_TIME_MODE: FmiFunction =
    FmiFunction::new("fmi2EnterContinuousTimeMode", EVENT);
pub const COMPLETED_INTEGRATOR_STEP: FmiFunction =
    FmiFunction::new("fmi2CompletedIntegratorStep", CONTINUOUS);
pub const SET_TIME: FmiFunction = FmiFunction::new("fmi2SetTime", ME);
pub const SET_CONTINUOUS_STATES: FmiFunction = FmiFunction::new("fmi2SetContinuousStates", ME);
pub const GET_DERIVATIVES: FmiFunction = FmiFunction::new("fmi2GetDerivatives", MASK_ME_GET);
pub const GET_EVENT_INDICATORS: FmiFunction =
    FmiFunction::new("fmi2GetEventIndicators", INIT | MASK_ME_GET);
pub const GET_CONTINUOUS_STATES: FmiFunction =
    FmiFunction::new("fmi2GetContinuousStates", INIT | MASK_ME_GET);
pub const GET_NOMINALS_OF_CONTINUOUS_STATES: FmiFunction = FmiFunction::new(
    "fmi2GetNominalsOfContinuousStates",
    INSTANTIATED | MASK_ME_GET,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for s in FmiState::ALL {
            assert_eq!(FmiState::from_code(s.code()), Some(s));
        }
        assert_eq!(FmiState::from_code(13), None);
    }

    #[test]
    fn table_spot_checks() {
        assert!(DO_STEP.allowed_in(S::StepComplete));
        assert!(!DO_STEP.allowed_in(S::InitializationMode));
        assert!(!GET_REAL.allowed_in(S::Instantiated));
        assert!(GET_REAL.allowed_in(S::Error));
        assert!(!SET_REAL.allowed_in(S::Terminated));
        assert!(RESET.allowed_in(S::Error));
        assert!(!RESET.allowed_in(S::Fatal));
        assert!(SET_FMU_STATE.allowed_in(S::Error));
        assert!(!TERMINATE.allowed_in(S::InitializationMode));
        assert!(GET_BOOLEAN_STATUS.allowed_in(S::StepFailed));
        assert!(!GET_BOOLEAN_STATUS.allowed_in(S::Error));
        for s in FmiState::ALL {
            let fmi2_only = !matches!(s, S::StartAndEnd | S::IntermediateUpdate);
            assert_eq!(FREE_INSTANCE.allowed_in(s), fmi2_only, "{s}");
        }
    }
}
