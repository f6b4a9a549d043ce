//! The FMI 3.0 Model Exchange functions (`fmi3FunctionTypes.h`, §3), on the component's
//! Model Exchange side shared with FMI 2.0 ([`crate::component::model_exchange`]): the same
//! continuous states, lazy evaluation, step event and `fmi3Discard` rules.
//!
//! A Co-Simulation instance never reaches Event or Continuous-Time Mode (this FMU declares
//! `hasEventMode="false"` for Co-Simulation), so the call-state masks refuse these for it.

#![allow(non_snake_case)]

use super::component::Fmi3Component;
use super::exports::{Caller, guarded, instantiate};
use super::state_machine as sm;
use super::types::*;
use crate::component::call::{out_ref, slice_in, slice_out};
use crate::component::me_state::ModelExchange;
use crate::fmi2::types::fmi2Status::{fmi2Discard, fmi2OK};
use std::sync::Arc;

/// The body's status (`guarded` turns it into the `fmi3Status` of the same code).
fn ok_or_discard(done: bool) -> crate::fmi2::types::fmi2Status {
    if done { fmi2OK } else { fmi2Discard }
}

/// Creates a Model Exchange instance of the FMU's model (read as by
/// `fmi3InstantiateCoSimulation`). NULL, after logging why, for an empty name, a wrong
/// instantiation token, a missing or corrupted model file, or a model built for
/// Co-Simulation only. `visible` is ignored.
///
/// # Safety
/// FMI 3.0 calling conventions: strings are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateModelExchange(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
) -> fmi3Instance {
    let _ = visible;
    let caller = Caller {
        function: "fmi3InstantiateModelExchange",
        instance_name: instanceName,
        token: instantiationToken,
        resource_path: resourcePath,
        logging_on: loggingOn,
        environment: instanceEnvironment,
        log_message: logMessage,
    };
    // SAFETY: FMI calling conventions.
    unsafe {
        instantiate(caller, None, |model, logger| {
            let n = model.continuous_states();
            if n == 0 {
                return Err(
                    "this FMU was built for Co-Simulation only (build it with `hydromech build --fmi 3 --interface me` or `--interface both`)".into(),
                );
            }
            let mut fmu = Fmi3Component::new(
                Arc::new(model),
                logger,
                false,
                None,
                instanceEnvironment,
                &[],
            )?;
            fmu.comp.model_exchange = Some(ModelExchange::new(n));
            Ok(fmu)
        })
    }
}

/// Enters Event Mode (Model Exchange; Co-Simulation instances have none).
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterEventMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::ENTER_EVENT_MODE, format_args!(""), |fmu| {
            fmu.comp.enter_event_mode()?;
            Ok(fmi2OK)
        })
    }
}

/// The event update: re-chooses the independent coordinates when a step event asked for it
/// (`valuesOfContinuousStatesChanged`); never another iteration, a time event or
/// termination.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function; the outputs are NULL or
/// point to their types.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3UpdateDiscreteStates(
    instance: fmi3Instance,
    discreteStatesNeedUpdate: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    nominalsOfContinuousStatesChanged: *mut fmi3Boolean,
    valuesOfContinuousStatesChanged: *mut fmi3Boolean,
    nextEventTimeDefined: *mut fmi3Boolean,
    nextEventTime: *mut fmi3Float64,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::UPDATE_DISCRETE_STATES,
            format_args!(""),
            |fmu| {
                let need = out_ref(discreteStatesNeedUpdate, "discreteStatesNeedUpdate")?;
                let terminate = out_ref(terminateSimulation, "terminateSimulation")?;
                let nominals = out_ref(
                    nominalsOfContinuousStatesChanged,
                    "nominalsOfContinuousStatesChanged",
                )?;
                let values = out_ref(
                    valuesOfContinuousStatesChanged,
                    "valuesOfContinuousStatesChanged",
                )?;
                let defined = out_ref(nextEventTimeDefined, "nextEventTimeDefined")?;
                let next = out_ref(nextEventTime, "nextEventTime")?;
                let update = fmu.comp.update_discrete_states()?;
                (*need, *terminate, *nominals) = (false, false, false);
                *values = update.values_changed;
                (*defined, *next) = (false, 0.0);
                Ok(fmi2OK)
            },
        )
    }
}

/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterContinuousTimeMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::ENTER_CONTINUOUS_TIME_MODE,
            format_args!(""),
            |fmu| {
                fmu.comp.enter_continuous_time_mode()?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Asks for Event Mode when the independent coordinates should be re-chosen (a step
/// event); never terminates.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function; the outputs point to
/// `fmi3Boolean`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3CompletedIntegratorStep(
    instance: fmi3Instance,
    noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    enterEventMode: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
) -> fmi3Status {
    let _ = noSetFMUStatePriorToCurrentPoint;
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::COMPLETED_INTEGRATOR_STEP,
            format_args!(""),
            |fmu| {
                let enter = out_ref(enterEventMode, "enterEventMode")?;
                let terminate = out_ref(terminateSimulation, "terminateSimulation")?;
                *enter = fmu.comp.completed_integrator_step()?;
                *terminate = false;
                Ok(fmi2OK)
            },
        )
    }
}

/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetTime(instance: fmi3Instance, time: fmi3Float64) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::SET_TIME, format_args!("time={time}"), |fmu| {
            fmu.comp.set_model_time(time)?;
            Ok(fmi2OK)
        })
    }
}

/// Sets x; the dependent joint coordinates and rates follow from the constraints.
/// `fmi3Discard` (nothing changed) when they cannot be solved for.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function; `continuousStates` holds
/// `nContinuousStates` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *const fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let n = nContinuousStates;
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::SET_CONTINUOUS_STATES,
            format_args!("nContinuousStates={n}"),
            |fmu| {
                let x = slice_in(continuousStates, n, "continuousStates[]")?;
                fmu.comp.set_continuous_states(x).map(ok_or_discard)
            },
        )
    }
}

/// ẋ at the states, time and inputs as set; `fmi3Discard` when it cannot be evaluated.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function; `derivatives` holds
/// `nContinuousStates` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetContinuousStateDerivatives(
    instance: fmi3Instance,
    derivatives: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let n = nContinuousStates;
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::GET_CONTINUOUS_STATE_DERIVATIVES,
            format_args!("nContinuousStates={n}"),
            |fmu| {
                let dx = slice_out(derivatives, n, "derivatives[]")?;
                fmu.comp.get_derivatives(dx).map(ok_or_discard)
            },
        )
    }
}

/// The model has no event indicators: `nEventIndicators` must be 0.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetEventIndicators(
    instance: fmi3Instance,
    eventIndicators: *mut fmi3Float64,
    nEventIndicators: usize,
) -> fmi3Status {
    let _ = eventIndicators;
    let n = nEventIndicators;
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::GET_EVENT_INDICATORS,
            format_args!("nEventIndicators={n}"),
            |_| {
                if n != 0 {
                    return Err(format!(
                        "nEventIndicators is {n}; this FMU has no event indicators"
                    ));
                }
                Ok(fmi2OK)
            },
        )
    }
}

/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function; `continuousStates` holds
/// `nContinuousStates` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let n = nContinuousStates;
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::GET_CONTINUOUS_STATES,
            format_args!("nContinuousStates={n}"),
            |fmu| {
                let x = slice_out(continuousStates, n, "continuousStates[]")?;
                fmu.comp.get_continuous_states(x)?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Coordinates and rates 1, pressures 1e7 Pa, spool and pump positions 1, friction states
/// 1e-4 m, work integrals 1 J.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function; `nominals` holds
/// `nContinuousStates` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNominalsOfContinuousStates(
    instance: fmi3Instance,
    nominals: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let n = nContinuousStates;
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::GET_NOMINALS_OF_CONTINUOUS_STATES,
            format_args!("nContinuousStates={n}"),
            |fmu| {
                let nominal = slice_out(nominals, n, "nominals[]")?;
                fmu.comp.get_nominals(nominal)?;
                Ok(fmi2OK)
            },
        )
    }
}

/// 0: the model has no event indicators.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfEventIndicators(
    instance: fmi3Instance,
    nEventIndicators: *mut usize,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::GET_NUMBER_OF_EVENT_INDICATORS,
            format_args!(""),
            |_| {
                *out_ref(nEventIndicators, "nEventIndicators")? = 0;
                Ok(fmi2OK)
            },
        )
    }
}

/// The number of continuous states the FMU declares (0 for a Co-Simulation-only model).
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfContinuousStates(
    instance: fmi3Instance,
    nContinuousStates: *mut usize,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::GET_NUMBER_OF_CONTINUOUS_STATES,
            format_args!(""),
            |fmu| {
                *out_ref(nContinuousStates, "nContinuousStates")? = fmu.comp.continuous_states();
                Ok(fmi2OK)
            },
        )
    }
}

/// Model Exchange: the derivatives and outputs `unknowns` along `seed` of the continuous
/// states and inputs `knowns` ([`crate::component::directional`]). Co-Simulation declares
/// `providesDirectionalDerivatives="false"` and gets `fmi3Error`.
///
/// # Safety
/// `instance` is NULL or from an `fmi3Instantiate*` function; the arrays hold the given
/// numbers of elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetDirectionalDerivative(
    instance: fmi3Instance,
    unknowns: *const fmi3ValueReference,
    nUnknowns: usize,
    knowns: *const fmi3ValueReference,
    nKnowns: usize,
    seed: *const fmi3Float64,
    nSeed: usize,
    sensitivity: *mut fmi3Float64,
    nSensitivity: usize,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::GET_DIRECTIONAL_DERIVATIVE,
            format_args!("nUnknowns={nUnknowns}, nKnowns={nKnowns}"),
            |fmu| {
                // Every variable here is a scalar: one seed per known, one sensitivity per
                // unknown.
                if nSeed != nKnowns || nSensitivity != nUnknowns {
                    return Err(format!(
                        "nSeed ({nSeed}) must equal nKnowns ({nKnowns}) and nSensitivity ({nSensitivity}) nUnknowns ({nUnknowns}): the variables are scalars"
                    ));
                }
                let unknowns = slice_in(unknowns, nUnknowns, "unknowns[]")?;
                let knowns = slice_in(knowns, nKnowns, "knowns[]")?;
                let seed = slice_in(seed, nSeed, "seed[]")?;
                let out = slice_out(sensitivity, nSensitivity, "sensitivity[]")?;
                fmu.comp
                    .directional_derivative(unknowns, knowns, seed, out)?;
                Ok(fmi2OK)
            },
        )
    }
}
