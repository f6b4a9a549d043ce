//! `fmi3DoStep`: a communication step, whole (no intermediate-update callback: the same
//! `Instance::advance` as `fmi2DoStep`) or one internal step at a time with the master's
//! callback in between (the module docs of [`super::exports`]).

#![allow(non_snake_case)]

use super::component::Fmi3Component;
use super::exports::guarded;
use super::state_machine as sm;
use super::types::*;
use crate::component::call::out_ref;
use crate::component::call_state::{FmiFunction, FmiState};
use crate::component::logging::Category;
use crate::fmi2::types::fmi2Status::{self, fmi2Discard, fmi2OK};

/// The result of `fmi3DoStep` for its output arguments.
struct StepOutcome {
    status: fmi2Status,
    early_return: bool,
    last_successful_time: f64,
}

/// Integrates from `currentCommunicationPoint` (the FMU's time) to
/// `currentCommunicationPoint + communicationStepSize`, calling the intermediate-update
/// callback between internal steps when one was given (module docs). `fmi3Error` (nothing
/// done) for a bad step size, a wrong current time or a step past the stop time;
/// `fmi3Discard` with the state of before the call if the solver fails.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`; the four output pointers
/// are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3DoStep(
    instance: fmi3Instance,
    currentCommunicationPoint: fmi3Float64,
    communicationStepSize: fmi3Float64,
    noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    eventHandlingNeeded: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
    earlyReturn: *mut fmi3Boolean,
    lastSuccessfulTime: *mut fmi3Float64,
) -> fmi3Status {
    let (t, h) = (currentCommunicationPoint, communicationStepSize);
    let mut outcome = StepOutcome {
        status: fmi2OK,
        early_return: false,
        last_successful_time: t,
    };
    let mut callback = None;
    let trace = format_args!(
        "currentCommunicationPoint={t}, communicationStepSize={h}, \
         noSetFMUStatePriorToCurrentPoint={noSetFMUStatePriorToCurrentPoint}"
    );
    // SAFETY: FMI calling conventions.
    let status = unsafe {
        guarded(instance, sm::DO_STEP, trace, |fmu| {
            for (p, what) in [
                (eventHandlingNeeded, "eventHandlingNeeded"),
                (terminateSimulation, "terminateSimulation"),
                (earlyReturn, "earlyReturn"),
            ] {
                out_ref(p.cast::<u8>(), what)?;
            }
            out_ref(lastSuccessfulTime, "lastSuccessfulTime")?;
            let target = fmu.comp.check_step(t, h)?;
            let st = &mut fmu.step_start;
            fmu.comp.capture_into(st);
            match fmu.intermediate_update {
                None => outcome = whole_step(fmu, t, target),
                Some(f) => {
                    let step = Segments {
                        t,
                        target,
                        before: fmu.comp.event_counts(),
                        sets: fmu.sets_requested,
                        gets: fmu.gets_allowed,
                        can_return: fmu.early_return_allowed,
                    };
                    callback = Some((f, fmu.environment, step));
                }
            }
            Ok(fmi2OK)
        })
    };
    if status != fmi3Status::fmi3OK {
        return status;
    }
    if let Some((f, environment, step)) = callback {
        // SAFETY: FMI calling conventions.
        match unsafe { step_with_updates(instance, f, environment, step) } {
            Ok(o) => outcome = o,
            Err(status) => return status,
        }
    }
    // SAFETY: checked non-NULL and aligned above; booleans written as bytes 0/1.
    unsafe {
        *eventHandlingNeeded.cast::<u8>() = 0;
        *terminateSimulation.cast::<u8>() = 0;
        *earlyReturn.cast::<u8>() = outcome.early_return as u8;
        *lastSuccessfulTime = outcome.last_successful_time;
    }
    outcome.status.into()
}

/// The step without callbacks: the same `Instance::advance` as `fmi2DoStep`.
fn whole_step(fmu: &mut Fmi3Component, t: f64, target: f64) -> StepOutcome {
    let before = fmu.comp.event_counts();
    let result = fmu.comp.instance.advance(target);
    fmu.comp.log_step_events(before, t, target);
    end_of_step(fmu, t, target, result)
}

/// The outcome of a step that ended (at `target`) or failed: a failure restores the state
/// of before the call and is a discard.
fn end_of_step(
    fmu: &mut Fmi3Component,
    t: f64,
    target: f64,
    result: Result<(), crate::instance::StepError>,
) -> StepOutcome {
    match result {
        Ok(()) => {
            let now = fmu.comp.instance.time();
            fmu.comp.last_successful_time = now;
            StepOutcome {
                status: fmi2OK,
                early_return: now < target,
                last_successful_time: now,
            }
        }
        Err(e) => {
            let msg = format!(
                "fmi3DoStep: the step from {t} s to {target} s failed at {} s: {}; the FMU is back at {t} s (retry with a smaller communication step)",
                e.last_successful_time, e.message
            );
            let start = &fmu.step_start;
            // Only fails for a state of another model, which this one is not.
            let _ = fmu.comp.restore(start);
            fmu.comp.log(fmi2Discard, Category::StatusDiscard, &msg);
            StepOutcome {
                status: fmi2Discard,
                early_return: false,
                last_successful_time: t,
            }
        }
    }
}

/// A step taken in segments: from `t` to `target`, with the solver's event counts at
/// its start and what the callback is told (the instance's fixed answers).
struct Segments {
    t: f64,
    target: f64,
    before: (u64, u64),
    sets: bool,
    gets: bool,
    can_return: bool,
}

/// The step one internal step at a time with the callback in between. The instance is
/// only borrowed inside each `guard`ed segment, never while the master's callback runs
/// (the master calls back into the instance from there).
///
/// # Safety
/// `instance` is from `fmi3InstantiateCoSimulation`; `f` and `environment` are the
/// master's.
unsafe fn step_with_updates(
    instance: fmi3Instance,
    f: unsafe extern "C" fn(
        fmi3InstanceEnvironment,
        fmi3Float64,
        fmi3Boolean,
        fmi3Boolean,
        fmi3Boolean,
        fmi3Boolean,
        *mut fmi3Boolean,
        *mut fmi3Float64,
    ),
    environment: fmi3InstanceEnvironment,
    step: Segments,
) -> Result<StepOutcome, fmi3Status> {
    let Segments {
        t,
        target,
        before,
        sets,
        gets,
        can_return,
    } = step;
    const SEGMENT: FmiFunction = FmiFunction::new("fmi3DoStep", FmiState::StepComplete as u32);
    let mut plan = None;
    let mut end = target;
    let mut outcome = None;
    loop {
        // One internal step (or the end of the step) with the instance borrowed.
        let mut pause = None;
        // SAFETY: forwarded contract.
        let status = unsafe {
            guarded(instance, SEGMENT, format_args!("internal step"), |fmu| {
                let p = match plan.as_mut() {
                    Some(p) => p,
                    None => match fmu.comp.instance.begin_step(end) {
                        Ok(p) => plan.insert(p),
                        Err(e) => {
                            let r = fmu.comp.instance.finish_step(Err(e));
                            outcome = Some(end_of_step(fmu, t, target, r));
                            return Ok(fmi2OK);
                        }
                    },
                };
                match fmu.comp.instance.internal_step(p) {
                    Ok(true) => {
                        let r = fmu.comp.instance.finish_step(Ok(()));
                        fmu.comp.log_step_events(before, t, end);
                        outcome = Some(end_of_step(fmu, t, target, r));
                    }
                    Ok(false) => {
                        if gets {
                            fmu.comp.instance.capture_outputs();
                        }
                        fmu.comp.state = FmiState::IntermediateUpdate;
                        pause = Some(fmu.comp.instance.time());
                    }
                    Err(e) => {
                        let r = fmu.comp.instance.finish_step(Err(e));
                        outcome = Some(end_of_step(fmu, t, target, r));
                    }
                }
                Ok(fmi2OK)
            })
        };
        if status != fmi3Status::fmi3OK {
            return Err(status);
        }
        if let Some(o) = outcome.take() {
            return Ok(o);
        }
        let Some(now) = pause else {
            return Err(fmi3Status::fmi3Error);
        };
        let (mut requested, mut early_time) = (false, now);
        // SAFETY: the master's callback with pointers to our locals; no borrow of the
        // instance is alive while it runs.
        unsafe {
            f(
                environment,
                now,
                sets,
                gets,
                true,
                can_return,
                &mut requested,
                &mut early_time,
            );
        }
        let early_return = (requested && can_return).then_some(early_time);
        // Back to Step Mode; inputs set in the callback and an early return both end the
        // internal plan here (a communication point at `now`) and begin a new one.
        // SAFETY: forwarded contract.
        let status = unsafe {
            guarded(instance, RESUME, format_args!("t={now}"), |fmu| {
                if fmu.comp.state != FmiState::IntermediateUpdate {
                    // A failed call inside the callback terminated the instance.
                    return Err(format!(
                        "the step was abandoned at t = {now} s: a call from the intermediate-update callback left the instance in state {}",
                        fmu.comp.state.name3()
                    ));
                }
                fmu.comp.state = FmiState::StepComplete;
                let early = early_return.map(|te| te.clamp(now, end));
                if fmu.pending.is_empty() && early.is_none() {
                    return Ok(fmi2OK);
                }
                let result = fmu.comp.instance.finish_step(Ok(()));
                debug_assert!(result.is_ok());
                for i in 0..fmu.pending.len() {
                    let (slot, value) = fmu.pending[i];
                    fmu.comp.instance.set_param(slot, value);
                }
                fmu.pending.clear();
                plan = None;
                if let Some(te) = early {
                    end = te;
                    if te <= now {
                        fmu.comp.instance.capture_outputs();
                        fmu.comp.log_step_events(before, t, now);
                        outcome = Some(end_of_step(fmu, t, target, Ok(())));
                    }
                }
                Ok(fmi2OK)
            })
        };
        if status != fmi3Status::fmi3OK {
            return Err(status);
        }
        if let Some(o) = outcome.take() {
            return Ok(o);
        }
    }
}

/// The frame around the return from the intermediate-update callback: any state but
/// `Fatal` (the body says what a call inside the callback did to the instance).
const RESUME: FmiFunction = FmiFunction::new("fmi3DoStep", !(FmiState::Fatal as u32));
