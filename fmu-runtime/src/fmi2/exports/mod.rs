//! The 44 exported `fmi2*` functions (25 common, 9 Co-Simulation, 10 Model-Exchange), with
//! the exact C signatures of `fmi2FunctionTypes.h` (checked by
//! `tests/abi/check_header.sh`).
//!
//! Every entry point that takes a component goes through `guarded` ([`call::guard`]):
//! NULL or foreign pointers, the call-sequence mask, panics → `fmi2Fatal`, and a body
//! error moves the instance to state `Error`; from there only `fmi2Reset`,
//! `fmi2FreeInstance`, `fmi2SetFMUstate` and the debugging getters are accepted (FMI 2.0
//! §2.1.3).
//!
//! Pointers from the master are checked for NULL (and alignment) before use whenever the
//! length that goes with them is non-zero; slices are built only after that.
//! The 10 Model Exchange functions are in [`super::exports_me`].

#![allow(non_snake_case)]

use crate::component::call::{self, Outcome};
use crate::component::call_state::{FmiFunction, FmiState};
use crate::component::fmu_instance::Component;
use crate::fmi2::state_machine as sm;
use crate::fmi2::types::*;
use std::ffi::c_char;
use std::fmt;

use fmi2Status::fmi2OK;

/// The common frame of every function that takes a component ([`call::guard`]).
///
/// # Safety
/// As [`call::guard`].
pub(super) unsafe fn guarded(
    c: fmi2Component,
    f: FmiFunction,
    trace: fmt::Arguments<'_>,
    body: impl FnOnce(&mut Component) -> Outcome,
) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe { call::guard(c, f, trace, body) }
}

mod co_simulation;
mod initialization;
mod instances;
mod state;
mod values;

pub use co_simulation::*;
pub use initialization::*;
pub use instances::*;
pub use state::*;
pub use values::*;

// ---------------------------------------------------------------------------------------
// Inquire version numbers and set debug logging
// ---------------------------------------------------------------------------------------

/// Returns `"default"`: we use the types of `fmi2TypesPlatform.h` unchanged.
#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetTypesPlatform() -> *const c_char {
    fmi2TypesPlatform.as_ptr()
}

/// Returns `"2.0"`.
#[unsafe(no_mangle)]
pub extern "C" fn fmi2GetVersion() -> *const c_char {
    fmi2Version.as_ptr()
}

/// Switches log categories on or off (`nCategories == 0`: all of them). An unknown category
/// name is an `fmi2Error` and changes nothing.
///
/// # Safety
/// FMI 2.0 calling conventions: `c` from `fmi2Instantiate`, `categories` holds
/// `nCategories` C strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetDebugLogging(
    c: fmi2Component,
    loggingOn: fmi2Boolean,
    nCategories: usize,
    categories: *const fmi2String,
) -> fmi2Status {
    let trace = format_args!("loggingOn={loggingOn}, nCategories={nCategories}");
    // SAFETY: FMI calling conventions (see above).
    unsafe {
        guarded(c, sm::SET_DEBUG_LOGGING, trace, |comp| {
            let names = call::category_names(categories, nCategories)?;
            comp.logger
                .set_debug_logging(loggingOn != fmi2False, &names)?;
            Ok(fmi2OK)
        })
    }
}

/// The names of all exported functions (for tests and the ABI check script).
pub const EXPORTED_FUNCTIONS: [&str; 44] = [
    "fmi2GetTypesPlatform",
    "fmi2GetVersion",
    "fmi2SetDebugLogging",
    "fmi2Instantiate",
    "fmi2FreeInstance",
    "fmi2SetupExperiment",
    "fmi2EnterInitializationMode",
    "fmi2ExitInitializationMode",
    "fmi2Terminate",
    "fmi2Reset",
    "fmi2GetReal",
    "fmi2GetInteger",
    "fmi2GetBoolean",
    "fmi2GetString",
    "fmi2SetReal",
    "fmi2SetInteger",
    "fmi2SetBoolean",
    "fmi2SetString",
    "fmi2GetFMUstate",
    "fmi2SetFMUstate",
    "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize",
    "fmi2SerializeFMUstate",
    "fmi2DeSerializeFMUstate",
    "fmi2GetDirectionalDerivative",
    "fmi2SetRealInputDerivatives",
    "fmi2GetRealOutputDerivatives",
    "fmi2DoStep",
    "fmi2CancelStep",
    "fmi2GetStatus",
    "fmi2GetRealStatus",
    "fmi2GetIntegerStatus",
    "fmi2GetBooleanStatus",
    "fmi2GetStringStatus",
    "fmi2EnterEventMode",
    "fmi2NewDiscreteStates",
    "fmi2EnterContinuousTimeMode",
    "fmi2CompletedIntegratorStep",
    "fmi2SetTime",
    "fmi2SetContinuousStates",
    "fmi2GetDerivatives",
    "fmi2GetEventIndicators",
    "fmi2GetContinuousStates",
    "fmi2GetNominalsOfContinuousStates",
];

/// FMI 2.0's handle: a failed call leaves the instance in `Error`.
impl call::Handle for Component {
    const ERROR_STATE: FmiState = FmiState::Error;

    unsafe fn from_handle<'a>(c: *mut std::ffi::c_void) -> Option<&'a mut Component> {
        // SAFETY: forwarded contract.
        unsafe { Component::from_handle(c) }
    }

    fn component(&mut self) -> &mut Component {
        self
    }

    fn state_name(state: FmiState) -> &'static str {
        state.name()
    }
}
