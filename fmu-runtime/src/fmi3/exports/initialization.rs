//! Initialization, termination, reset.

use crate::component::call_state::FmiState;
use crate::component::logging::Category;
use crate::fmi2::types::fmi2Status::fmi2OK;
use crate::fmi3::state_machine as sm;
use crate::fmi3::types::*;

use super::guarded;

// ---------------------------------------------------------------------------------------
// Initialization, termination, reset
// ---------------------------------------------------------------------------------------

/// Stores the experiment (the tolerance is ignored: the solver's step is the parameter
/// `solver.step`) and enters Initialization Mode.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterInitializationMode(
    instance: fmi3Instance,
    toleranceDefined: fmi3Boolean,
    tolerance: fmi3Float64,
    startTime: fmi3Float64,
    stopTimeDefined: fmi3Boolean,
    stopTime: fmi3Float64,
) -> fmi3Status {
    let trace = format_args!(
        "toleranceDefined={toleranceDefined}, tolerance={tolerance}, startTime={startTime}, \
         stopTimeDefined={stopTimeDefined}, stopTime={stopTime}"
    );
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::ENTER_INITIALIZATION_MODE, trace, |fmu| {
            let comp = &mut fmu.comp;
            comp.set_experiment(startTime, stopTimeDefined.then_some(stopTime))?;
            comp.state = FmiState::InitializationMode;
            Ok(fmi2OK)
        })
    }
}

/// Solves the initial state (static equilibrium) and enters Step Mode (no Event Mode).
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3ExitInitializationMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::EXIT_INITIALIZATION_MODE,
            format_args!(""),
            |fmu| fmu.comp.exit_initialization_mode(),
        )
    }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3Terminate(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::TERMINATE, format_args!(""), |fmu| {
            fmu.comp.terminate();
            Ok(fmi2OK)
        })
    }
}

/// Back to the state right after instantiation (parameters, time, logging switches).
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3Reset(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::RESET, format_args!(""), |fmu| {
            fmu.comp.reset();
            fmu.pending.clear();
            fmu.comp.log(fmi2OK, Category::Events, "reset");
            Ok(fmi2OK)
        })
    }
}
