//! Co-Simulation: input derivatives, fmi2DoStep, cancel, status.

use crate::component::call::{Outcome, out_ref, slice_in};
use crate::component::call_state::{FmiFunction, FmiState};
use crate::component::fmu_instance::Component;
use crate::component::logging::Category;
use crate::fmi2::state_machine as sm;
use crate::fmi2::types::*;
use crate::model::{Binding, Causality, VarType, Variability};

use super::guarded;
use fmi2Status::{fmi2Discard, fmi2OK};

// ---------------------------------------------------------------------------------------
// Co-Simulation
// ---------------------------------------------------------------------------------------

/// Time derivatives of continuous Real inputs (`canInterpolateInputs="true"`), with respect
/// to the start of the next communication step: inside that `fmi2DoStep` an input follows
/// `u + u̇ τ + ü τ²/2`, so motion sent at the communication points is smooth between them.
/// Orders 1 and 2; the next `fmi2DoStep` consumes them (inputs are held again unless new
/// derivatives are set). `fmi2Error` for a variable that is not a continuous Real input,
/// an order outside 1…2 or a value that is not finite (nothing is set then).
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `vr`, `order` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetRealInputDerivatives(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    order: *const fmi2Integer,
    value: *const fmi2Real,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::SET_REAL_INPUT_DERIVATIVES,
            format_args!("nvr={nvr}"),
            |comp| {
                let vrs = slice_in(vr, nvr, "vr[]")?;
                let orders = slice_in(order, nvr, "order[]")?;
                let values = slice_in(value, nvr, "value[]")?;
                set_input_derivatives(comp, vrs, orders, values)
            },
        )
    }
}

pub(super) fn set_input_derivatives(
    comp: &mut Component,
    vrs: &[u32],
    orders: &[fmi2Integer],
    values: &[f64],
) -> Outcome {
    // All checked before any is set (no allocation: this runs every communication step).
    for ((&vr, &order), &value) in vrs.iter().zip(orders).zip(values) {
        input_derivative_slot(comp, vr, order, value)?;
    }
    for ((&vr, &order), &value) in vrs.iter().zip(orders).zip(values) {
        let slot = input_derivative_slot(comp, vr, order, value)?;
        comp.instance.set_input_derivative(slot, order, value)?;
    }
    Ok(fmi2OK)
}

pub(super) fn input_derivative_slot(
    comp: &Component,
    vr: u32,
    order: fmi2Integer,
    value: f64,
) -> Result<crate::model::ParamId, String> {
    let max = crate::instance::MAX_INPUT_DERIVATIVE_ORDER;
    let var = comp.variable(VarType::Real, vr)?;
    let (Causality::Input, Variability::Continuous, Binding::Param(slot)) =
        (var.causality, var.variability, var.binding)
    else {
        return Err(format!(
            "\"{}\" (vr {vr}) is not a continuous Real input: only those take derivatives",
            var.name
        ));
    };
    if !(1..=max).contains(&order) || !value.is_finite() {
        return Err(format!(
            "\"{}\" (vr {vr}): derivative order {order} with value {value}; orders 1…{max} with finite values are supported",
            var.name
        ));
    }
    Ok(slot)
}

/// Not supported (`maxOutputDerivativeOrder="0"`).
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetRealOutputDerivatives(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    order: *const fmi2Integer,
    value: *mut fmi2Real,
) -> fmi2Status {
    let _ = (vr, order, value);
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::GET_REAL_OUTPUT_DERIVATIVES,
            format_args!("nvr={nvr}"),
            |_| Err("not supported: this FMU declares maxOutputDerivativeOrder=\"0\"".into()),
        )
    }
}

/// Integrates from `currentCommunicationPoint` (which must be the FMU's time) to exactly
/// `currentCommunicationPoint + communicationStepSize` with internal sub-steps.
/// `fmi2Error` (nothing done) for a bad step size, a wrong current time or a step past the
/// stop time; `fmi2Discard` (state `StepFailed`, time left at the last successful internal
/// step) if the solver fails. `noSetFMUStatePriorToCurrentPoint` is not needed: states are
/// independent objects.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2DoStep(
    c: fmi2Component,
    currentCommunicationPoint: fmi2Real,
    communicationStepSize: fmi2Real,
    noSetFMUStatePriorToCurrentPoint: fmi2Boolean,
) -> fmi2Status {
    let (t, h) = (currentCommunicationPoint, communicationStepSize);
    let trace = format_args!(
        "currentCommunicationPoint={t}, communicationStepSize={h}, \
         noSetFMUStatePriorToCurrentPoint={noSetFMUStatePriorToCurrentPoint}"
    );
    // SAFETY: FMI calling conventions.
    unsafe { guarded(c, sm::DO_STEP, trace, |comp| do_step(comp, t, h)) }
}

pub(super) fn do_step(comp: &mut Component, t: f64, h: f64) -> Outcome {
    let target = comp.check_step(t, h)?;
    let before = comp.event_counts();
    let result = comp.instance.advance(target);
    comp.log_step_events(before, t, target);
    match result {
        Ok(()) => {
            comp.last_successful_time = comp.instance.time();
            comp.last_step_status = fmi2OK;
            Ok(fmi2OK)
        }
        Err(e) => {
            comp.state = FmiState::StepFailed;
            comp.last_successful_time = e.last_successful_time;
            comp.last_step_status = fmi2Discard;
            let msg = format!(
                "fmi2DoStep: the step from {t} s to {target} s failed: {} (last successful time {} s)",
                e.message, e.last_successful_time
            );
            comp.log(fmi2Discard, Category::StatusDiscard, &msg);
            Ok(fmi2Discard)
        }
    }
}

/// Only meaningful while an asynchronous step is in progress, which never happens here
/// (`canRunAsynchronuously="false"`): always an illegal call.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2CancelStep(c: fmi2Component) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::CANCEL_STEP, format_args!(""), |_| {
            Err("not supported: this FMU does not run asynchronously".into())
        })
    }
}

/// The answer of a status query the slave cannot give (FMI 2.0 §4.2.3: `fmi2Discard`).
pub(super) fn status_unavailable(comp: &Component, f: FmiFunction, s: fmi2StatusKind) -> Outcome {
    let msg = format!(
        "{}: status kind {} is not available from this FMU",
        f.name, s.0
    );
    comp.log(fmi2Discard, Category::StatusDiscard, &msg);
    Ok(fmi2Discard)
}

/// `fmi2DoStepStatus`: the result of the last `fmi2DoStep` (steps are synchronous).
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `value` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Status,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_STATUS, format_args!("s={}", s.0), |comp| {
            let out = out_ref(value, "value")?;
            if s == fmi2StatusKind::fmi2DoStepStatus {
                *out = comp.last_step_status;
                Ok(fmi2OK)
            } else {
                status_unavailable(comp, sm::GET_STATUS, s)
            }
        })
    }
}

/// `fmi2LastSuccessfulTime`: the FMU time, or after a discarded step the time of the last
/// successful internal step.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `value` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetRealStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Real,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_REAL_STATUS, format_args!("s={}", s.0), |comp| {
            let out = out_ref(value, "value")?;
            if s == fmi2StatusKind::fmi2LastSuccessfulTime {
                *out = if comp.state == FmiState::StepFailed {
                    comp.last_successful_time
                } else {
                    comp.instance.time()
                };
                Ok(fmi2OK)
            } else {
                status_unavailable(comp, sm::GET_REAL_STATUS, s)
            }
        })
    }
}

/// No integer status exists in FMI 2.0 CS: always `fmi2Discard`.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `value` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetIntegerStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Integer,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::GET_INTEGER_STATUS,
            format_args!("s={}", s.0),
            |comp| {
                out_ref(value, "value")?;
                status_unavailable(comp, sm::GET_INTEGER_STATUS, s)
            },
        )
    }
}

/// `fmi2Terminated`: true only after `fmi2Terminate`. A discarded step is never final:
/// the master may restore an earlier FMU state and retry with a smaller step.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `value` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetBooleanStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::GET_BOOLEAN_STATUS,
            format_args!("s={}", s.0),
            |comp| {
                let out = out_ref(value, "value")?;
                if s == fmi2StatusKind::fmi2Terminated {
                    *out = if comp.terminated { fmi2True } else { fmi2False };
                    Ok(fmi2OK)
                } else {
                    status_unavailable(comp, sm::GET_BOOLEAN_STATUS, s)
                }
            },
        )
    }
}

/// `fmi2PendingStatus` needs an asynchronous step: always `fmi2Discard`.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; `value` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetStringStatus(
    c: fmi2Component,
    s: fmi2StatusKind,
    value: *mut fmi2String,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::GET_STRING_STATUS,
            format_args!("s={}", s.0),
            |comp| {
                out_ref(value, "value")?;
                status_unavailable(comp, sm::GET_STRING_STATUS, s)
            },
        )
    }
}
