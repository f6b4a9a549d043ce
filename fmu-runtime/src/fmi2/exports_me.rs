//! The 10 FMI 2.0 Model Exchange functions (`fmi2FunctionTypes.h`, §3.2), on the
//! component's [`crate::component::model_exchange`] side. A Co-Simulation instance never reaches
//! Event or Continuous-Time Mode, so the call-state masks refuse these for it.
//!
//! A state at which the dependent coordinates cannot be solved for, or ẋ not evaluated,
//! is `fmi2Discard` (logged; the instance stays usable, the master may retry with a
//! smaller step); a malformed call (wrong length, NaN, NULL) is `fmi2Error`.

#![allow(non_snake_case)]

use super::exports::guarded;
use super::state_machine as sm;
use super::types::*;
use crate::component::call::{out_ref, slice_in, slice_out};

use fmi2Status::{fmi2Discard, fmi2OK};

fn boolean(b: bool) -> fmi2Boolean {
    if b { fmi2True } else { fmi2False }
}

fn ok_or_discard(done: bool) -> fmi2Status {
    if done { fmi2OK } else { fmi2Discard }
}

/// Enters Event Mode (from Event or Continuous-Time Mode).
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2EnterEventMode(c: fmi2Component) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(c, sm::ENTER_EVENT_MODE, format_args!(""), |comp| {
            comp.enter_event_mode()?;
            Ok(fmi2OK)
        })
    }
}

/// The event update: re-chooses the independent coordinates when asked by
/// `fmi2CompletedIntegratorStep` (`valuesOfContinuousStatesChanged`); never another
/// iteration, a time event or termination.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `fmi2eventInfo` points to an `fmi2EventInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2NewDiscreteStates(
    c: fmi2Component,
    fmi2eventInfo: *mut fmi2EventInfo,
) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(c, sm::NEW_DISCRETE_STATES, format_args!(""), |comp| {
            let info = out_ref(fmi2eventInfo, "fmi2eventInfo")?;
            let update = comp.update_discrete_states()?;
            *info = fmi2EventInfo {
                newDiscreteStatesNeeded: fmi2False,
                terminateSimulation: fmi2False,
                nominalsOfContinuousStatesChanged: fmi2False,
                valuesOfContinuousStatesChanged: boolean(update.values_changed),
                nextEventTimeDefined: fmi2False,
                nextEventTime: 0.0,
            };
            Ok(fmi2OK)
        })
    }
}

/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2EnterContinuousTimeMode(c: fmi2Component) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(
            c,
            sm::ENTER_CONTINUOUS_TIME_MODE,
            format_args!(""),
            |comp| {
                comp.enter_continuous_time_mode()?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Asks for Event Mode when the independent coordinates should be re-chosen (a step
/// event); never terminates.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; the two outputs point to `fmi2Boolean`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2CompletedIntegratorStep(
    c: fmi2Component,
    noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
    enterEventMode: *mut fmi2Boolean,
    terminateSimulation: *mut fmi2Boolean,
) -> fmi2Status {
    let _ = noSetFMUStatePriorToCurrentPoint;
    // SAFETY: forwarded contract.
    unsafe {
        guarded(c, sm::COMPLETED_INTEGRATOR_STEP, format_args!(""), |comp| {
            let enter = out_ref(enterEventMode, "enterEventMode")?;
            let terminate = out_ref(terminateSimulation, "terminateSimulation")?;
            *enter = boolean(comp.completed_integrator_step()?);
            *terminate = fmi2False;
            Ok(fmi2OK)
        })
    }
}

/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetTime(c: fmi2Component, time: fmi2Real) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(c, sm::SET_TIME, format_args!("time={time}"), |comp| {
            comp.set_model_time(time)?;
            Ok(fmi2OK)
        })
    }
}

/// Sets x = [z_i; ż_i; w]; the dependent joint coordinates and rates follow from the
/// constraints. `fmi2Discard` (nothing changed) when they cannot be solved for.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `x` holds `nx` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetContinuousStates(
    c: fmi2Component,
    x: *const fmi2Real,
    nx: usize,
) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(
            c,
            sm::SET_CONTINUOUS_STATES,
            format_args!("nx={nx}"),
            |comp| {
                let x = slice_in(x, nx, "x[]")?;
                comp.set_continuous_states(x).map(ok_or_discard)
            },
        )
    }
}

/// ẋ at the states, time and inputs as set. `fmi2Discard` when it cannot be evaluated.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `derivatives` holds `nx` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetDerivatives(
    c: fmi2Component,
    derivatives: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(c, sm::GET_DERIVATIVES, format_args!("nx={nx}"), |comp| {
            let dx = slice_out(derivatives, nx, "derivatives[]")?;
            comp.get_derivatives(dx).map(ok_or_discard)
        })
    }
}

/// The model has no event indicators: `ni` must be 0.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetEventIndicators(
    c: fmi2Component,
    eventIndicators: *mut fmi2Real,
    ni: usize,
) -> fmi2Status {
    let _ = eventIndicators;
    // SAFETY: forwarded contract.
    unsafe {
        guarded(c, sm::GET_EVENT_INDICATORS, format_args!("ni={ni}"), |_| {
            if ni != 0 {
                return Err(format!(
                    "ni is {ni}; this FMU has no event indicators (numberOfEventIndicators=\"0\")"
                ));
            }
            Ok(fmi2OK)
        })
    }
}

/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `x` holds `nx` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetContinuousStates(
    c: fmi2Component,
    x: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(
            c,
            sm::GET_CONTINUOUS_STATES,
            format_args!("nx={nx}"),
            |comp| {
                let x = slice_out(x, nx, "x[]")?;
                comp.get_continuous_states(x)?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Coordinates and rates 1, pressures 1e7 Pa, spool and pump positions 1, friction
/// states 1e-4 m.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `x_nominal` holds `nx` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetNominalsOfContinuousStates(
    c: fmi2Component,
    x_nominal: *mut fmi2Real,
    nx: usize,
) -> fmi2Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(
            c,
            sm::GET_NOMINALS_OF_CONTINUOUS_STATES,
            format_args!("nx={nx}"),
            |comp| {
                let nominal = slice_out(x_nominal, nx, "x_nominal[]")?;
                comp.get_nominals(nominal)?;
                Ok(fmi2OK)
            },
        )
    }
}
