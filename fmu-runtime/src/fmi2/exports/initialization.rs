//! Setup, initialization mode, terminate and reset.

use crate::component::call_state::FmiState;
use crate::component::logging::Category;
use crate::fmi2::state_machine as sm;
use crate::fmi2::types::*;

use super::guarded;
use fmi2Status::fmi2OK;

// ---------------------------------------------------------------------------------------
// Enter and exit initialization mode, terminate and reset
// ---------------------------------------------------------------------------------------

/// Stores the start and (optional) stop time; the tolerance is ignored (fixed-step solver
/// whose step is the parameter `solver.step`).
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetupExperiment(
    c: fmi2Component,
    toleranceDefined: fmi2Boolean,
    tolerance: fmi2Real,
    startTime: fmi2Real,
    stopTimeDefined: fmi2Boolean,
    stopTime: fmi2Real,
) -> fmi2Status {
    let trace = format_args!(
        "toleranceDefined={toleranceDefined}, tolerance={tolerance}, startTime={startTime}, \
         stopTimeDefined={stopTimeDefined}, stopTime={stopTime}"
    );
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SETUP_EXPERIMENT, trace, |comp| {
            let stop = (stopTimeDefined != fmi2False).then_some(stopTime);
            comp.set_experiment(startTime, stop)?;
            Ok(fmi2OK)
        })
    }
}

/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2EnterInitializationMode(c: fmi2Component) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::ENTER_INITIALIZATION_MODE, format_args!(""), |comp| {
            comp.state = FmiState::InitializationMode;
            Ok(fmi2OK)
        })
    }
}

/// Solves the initial state (static equilibrium) at the start time.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2ExitInitializationMode(c: fmi2Component) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::EXIT_INITIALIZATION_MODE, format_args!(""), |comp| {
            comp.exit_initialization_mode()
        })
    }
}

/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2Terminate(c: fmi2Component) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::TERMINATE, format_args!(""), |comp| {
            comp.terminate();
            Ok(fmi2OK)
        })
    }
}

/// Back to the state right after `fmi2Instantiate` (parameters, time, logging switches).
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2Reset(c: fmi2Component) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::RESET, format_args!(""), |comp| {
            comp.reset();
            comp.log(fmi2OK, Category::Events, "reset");
            Ok(fmi2OK)
        })
    }
}
