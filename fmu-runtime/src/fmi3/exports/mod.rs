//! The exported `fmi3*` functions of Co-Simulation (instances, variables, FMU states), with
//! the exact signatures of `fmi3Functions.h` (checked by `tests/abi/check_header.sh`);
//! `fmi3DoStep` is in [`super::do_step`], the functions of capabilities this FMU does not
//! have in [`super::unsupported`]. [`EXPORTED_FUNCTIONS`] lists all 75.
//!
//! Co-Simulation is implemented on the component FMI 2.0 uses ([`Fmi3Component`]), so both
//! interfaces run the same solver on the same state and give the same numbers. What FMI 3.0
//! adds:
//!
//! * **Intermediate update.** With a non-NULL `intermediateUpdate` callback, `fmi3DoStep`
//!   calls it after every internal step that is not the last; the master may read the
//!   required outputs there and set the required inputs. Inputs set in the callback take
//!   effect from that internal time on, exactly as if the master had made a communication
//!   point there (the step is ended and begun again, so prescribed motions and input rates
//!   are anchored as at any communication point).
//! * **Early return.** If the master asks for it in the callback (`earlyReturnAllowed` at
//!   instantiation), the step ends at `earlyReturnTime`: at once when that time is not
//!   ahead, otherwise after a shortened last internal step landing on it exactly.
//! * **Discard.** A step the solver cannot take returns `fmi3Discard` with the instance
//!   back in the state it had before the call (FMI 3.0 §2.2.3), so a master can retry with
//!   a smaller step without saving the FMU state itself.
//!
//! No Event Mode (`hasEventMode="false"`), Clocks, structural parameters, directional or
//! adjoint derivatives, or variable dependencies: those functions log why and return
//! `fmi3Error`. Model Exchange and Scheduled Execution instantiation return NULL.
//!
//! Every function that takes an instance runs in [`call::guard`] (NULL/foreign handles,
//! the call-sequence masks of [`state_machine`](super::state_machine), panics → `fmi3Fatal`,
//! an error → state `Terminated`).

#![allow(non_snake_case)]

use crate::component::call::{self, Outcome};
use crate::component::call_state::FmiFunction;
use crate::fmi2::types::fmi2Status::fmi2OK;
use crate::fmi3::component::Fmi3Component;
use crate::fmi3::state_machine as sm;
use crate::fmi3::types::*;
use std::ffi::c_char;
use std::fmt;

/// # Safety
/// As [`call::guard`]: `c` is NULL or from `fmi3InstantiateCoSimulation`.
pub(super) unsafe fn guarded(
    c: fmi3Instance,
    f: FmiFunction,
    trace: fmt::Arguments<'_>,
    body: impl FnOnce(&mut Fmi3Component) -> Outcome,
) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe { call::guard::<Fmi3Component>(c, f, trace, body) }.into()
}

mod initialization;
mod instances;
mod state;
mod values;

pub use initialization::*;
pub use instances::*;
pub use state::*;
pub use values::*;

// ---------------------------------------------------------------------------------------
// Inquire version number, set debug logging
// ---------------------------------------------------------------------------------------

/// Returns `"3.0"`.
#[unsafe(no_mangle)]
pub extern "C" fn fmi3GetVersion() -> *const c_char {
    fmi3Version.as_ptr()
}

/// As `fmi2SetDebugLogging`: no names = every category; an unknown name is an error and
/// changes nothing.
///
/// # Safety
/// FMI 3.0 calling conventions: `instance` from `fmi3InstantiateCoSimulation`,
/// `categories` holds `nCategories` C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetDebugLogging(
    instance: fmi3Instance,
    loggingOn: fmi3Boolean,
    nCategories: usize,
    categories: *const fmi3String,
) -> fmi3Status {
    let trace = format_args!("loggingOn={loggingOn}, nCategories={nCategories}");
    // SAFETY: FMI calling conventions (see above).
    unsafe {
        guarded(instance, sm::SET_DEBUG_LOGGING, trace, |fmu| {
            let names = call::category_names(categories, nCategories)?;
            fmu.comp.logger.set_debug_logging(loggingOn, &names)?;
            Ok(fmi2OK)
        })
    }
}

/// The names of every exported function (checked against `fmi3Functions.h` by
/// `tests/abi/check_header.sh` and against the binary by the tests).
pub const EXPORTED_FUNCTIONS: [&str; 75] = [
    "fmi3GetVersion",
    "fmi3SetDebugLogging",
    "fmi3InstantiateModelExchange",
    "fmi3InstantiateCoSimulation",
    "fmi3InstantiateScheduledExecution",
    "fmi3FreeInstance",
    "fmi3EnterInitializationMode",
    "fmi3ExitInitializationMode",
    "fmi3EnterEventMode",
    "fmi3Terminate",
    "fmi3Reset",
    "fmi3GetFloat32",
    "fmi3GetFloat64",
    "fmi3GetInt8",
    "fmi3GetUInt8",
    "fmi3GetInt16",
    "fmi3GetUInt16",
    "fmi3GetInt32",
    "fmi3GetUInt32",
    "fmi3GetInt64",
    "fmi3GetUInt64",
    "fmi3GetBoolean",
    "fmi3GetString",
    "fmi3GetBinary",
    "fmi3GetClock",
    "fmi3SetFloat32",
    "fmi3SetFloat64",
    "fmi3SetInt8",
    "fmi3SetUInt8",
    "fmi3SetInt16",
    "fmi3SetUInt16",
    "fmi3SetInt32",
    "fmi3SetUInt32",
    "fmi3SetInt64",
    "fmi3SetUInt64",
    "fmi3SetBoolean",
    "fmi3SetString",
    "fmi3SetBinary",
    "fmi3SetClock",
    "fmi3GetNumberOfVariableDependencies",
    "fmi3GetVariableDependencies",
    "fmi3GetFMUState",
    "fmi3SetFMUState",
    "fmi3FreeFMUState",
    "fmi3SerializedFMUStateSize",
    "fmi3SerializeFMUState",
    "fmi3DeserializeFMUState",
    "fmi3GetDirectionalDerivative",
    "fmi3GetAdjointDerivative",
    "fmi3EnterConfigurationMode",
    "fmi3ExitConfigurationMode",
    "fmi3GetIntervalDecimal",
    "fmi3GetIntervalFraction",
    "fmi3GetShiftDecimal",
    "fmi3GetShiftFraction",
    "fmi3SetIntervalDecimal",
    "fmi3SetIntervalFraction",
    "fmi3SetShiftDecimal",
    "fmi3SetShiftFraction",
    "fmi3EvaluateDiscreteStates",
    "fmi3UpdateDiscreteStates",
    "fmi3EnterContinuousTimeMode",
    "fmi3CompletedIntegratorStep",
    "fmi3SetTime",
    "fmi3SetContinuousStates",
    "fmi3GetContinuousStateDerivatives",
    "fmi3GetEventIndicators",
    "fmi3GetContinuousStates",
    "fmi3GetNominalsOfContinuousStates",
    "fmi3GetNumberOfEventIndicators",
    "fmi3GetNumberOfContinuousStates",
    "fmi3EnterStepMode",
    "fmi3GetOutputDerivatives",
    "fmi3DoStep",
    "fmi3ActivateModelPartition",
];
