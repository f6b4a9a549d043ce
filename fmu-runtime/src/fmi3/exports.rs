//! The 75 exported `fmi3*` functions of `fmi3Functions.h`, with its exact signatures
//! (checked by `tests/abi/check_header.sh`).
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

use super::component::Fmi3Component;
use super::state_machine::{self as sm, getter, setter, unsupported};
use super::types::*;
use crate::fmi2::call::{self, Handle, Outcome, out_ref, panic_text, slice_in, slice_out};
use crate::fmi2::component::{COMPONENT_MAGIC_FMI3, Component};
use crate::fmi2::fmu_state::FmuState;
use crate::fmi2::logging::{Category, Logger};
use crate::fmi2::resources;
use crate::fmi2::state_machine::{FmiFunction, FmiState};
use crate::fmi2::types::fmi2Status::{self, fmi2Discard, fmi2Error, fmi2Fatal, fmi2OK};
use crate::model::{CompiledModel, VarType, file as model_file};
use std::ffi::{CStr, c_char};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::null_mut;
use std::sync::Arc;

/// # Safety
/// As [`call::guard`]: `c` is NULL or from `fmi3InstantiateCoSimulation`.
unsafe fn guarded(
    c: fmi3Instance,
    f: FmiFunction,
    trace: fmt::Arguments<'_>,
    body: impl FnOnce(&mut Fmi3Component) -> Outcome,
) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe { call::guard::<Fmi3Component>(c, f, trace, body) }.into()
}

/// A function of a capability this FMU does not have: logs why, `fmi3Error`.
///
/// # Safety
/// `c` is NULL or from `fmi3InstantiateCoSimulation`.
unsafe fn not_supported(c: fmi3Instance, name: &'static str, why: &'static str) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(c, unsupported(name), format_args!(""), |_| {
            Err(format!("not supported: {why}"))
        })
    }
}

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
            let pointers = slice_in(categories, nCategories, "categories[]")?;
            let mut names = Vec::with_capacity(pointers.len());
            for (i, &p) in pointers.iter().enumerate() {
                if p.is_null() {
                    return Err(format!("categories[{i}] is NULL"));
                }
                names.push(CStr::from_ptr(p));
            }
            fmu.comp.logger.set_debug_logging(loggingOn, &names)?;
            Ok(fmi2OK)
        })
    }
}

// ---------------------------------------------------------------------------------------
// Creation and destruction of instances
// ---------------------------------------------------------------------------------------

/// Creates a Co-Simulation instance of the model in `resources/hydromech-model.bin`
/// (looked for at `resourcePath`, a file path, then beside the binary). NULL, after
/// logging why, for an empty name, a wrong instantiation token, a missing or corrupted
/// model file, `eventModeUsed = true` (`hasEventMode="false"`) or a required intermediate
/// variable that is not a continuous input or output.
///
/// # Safety
/// FMI 3.0 calling conventions: strings are NULL or NUL-terminated;
/// `requiredIntermediateVariables` holds `nRequiredIntermediateVariables` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateCoSimulation(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    eventModeUsed: fmi3Boolean,
    earlyReturnAllowed: fmi3Boolean,
    requiredIntermediateVariables: *const fmi3ValueReference,
    nRequiredIntermediateVariables: usize,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    intermediateUpdate: fmi3IntermediateUpdateCallback,
) -> fmi3Instance {
    let _ = visible;
    // SAFETY: instanceName is NULL or a C string (FMI calling conventions).
    let name = (!instanceName.is_null()).then(|| unsafe { CStr::from_ptr(instanceName) });
    let early = Logger::new_fmi3(
        logMessage,
        instanceEnvironment,
        name.unwrap_or(c""),
        loggingOn,
    );
    let fail = |message: &str| -> fmi3Instance {
        early.log(
            fmi2Error,
            Category::StatusError,
            &format!("fmi3InstantiateCoSimulation: {message}"),
        );
        null_mut()
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Some(name) = name.filter(|n| !n.to_bytes().trim_ascii().is_empty()) else {
            return fail("instanceName must be a non-empty string");
        };
        if eventModeUsed {
            return fail(
                "eventModeUsed = true, but this FMU has no Event Mode (hasEventMode=\"false\"); instantiate it with eventModeUsed = false",
            );
        }
        if instantiationToken.is_null() {
            return fail("instantiationToken is NULL");
        }
        // SAFETY: non-NULL C string (FMI calling conventions).
        let token = unsafe { CStr::from_ptr(instantiationToken) };
        // SAFETY: NULL or a C string (FMI calling conventions).
        let location = (!resourcePath.is_null()).then(|| unsafe { CStr::from_ptr(resourcePath) });
        let model = match read_model(location, &token.to_string_lossy()) {
            Ok(model) => model,
            Err(e) => return fail(&e),
        };
        // SAFETY: FMI calling conventions.
        let required = match unsafe {
            slice_in(
                requiredIntermediateVariables,
                nRequiredIntermediateVariables,
                "requiredIntermediateVariables[]",
            )
        } {
            Ok(r) => r,
            Err(e) => return fail(&e),
        };
        let logger = Logger::new_fmi3(logMessage, instanceEnvironment, name, loggingOn);
        let built = Component::with_logger(Arc::new(model), logger, COMPONENT_MAGIC_FMI3).and_then(
            |comp| {
                Fmi3Component::new(
                    comp,
                    earlyReturnAllowed,
                    intermediateUpdate,
                    instanceEnvironment,
                    required,
                )
            },
        );
        match built {
            Ok(fmu) => {
                if fmu.comp.logger.would_log(fmi2OK, Category::Events) {
                    let m = &fmu.comp.model;
                    let msg = format!(
                        "instantiated model {} (instantiation token {})",
                        m.name, m.guid
                    );
                    fmu.comp.log(fmi2OK, Category::Events, &msg);
                }
                Box::into_raw(Box::new(fmu)).cast()
            }
            Err(e) => fail(&e),
        }
    }));
    result.unwrap_or_else(|payload| {
        let text = panic_text(payload.as_ref());
        early.log(
            fmi2Fatal,
            Category::StatusFatal,
            &format!("fmi3InstantiateCoSimulation: internal error (panic: {text})"),
        );
        null_mut()
    })
}

/// Reads and checks the model file (as `fmi2Instantiate` does).
fn read_model(location: Option<&CStr>, token: &str) -> Result<CompiledModel, String> {
    let (path, how) = resources::locate_path(location, model_file::FILE_NAME)?;
    // A model file is kilobytes; anything this large is not one (and is not read).
    const MAX_MODEL_FILE: u64 = 256 << 20;
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_MODEL_FILE {
        return Err(format!(
            "{} is {size} bytes, more than any hydromech model file ({MAX_MODEL_FILE})",
            path.display()
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    model_file::decode(&bytes, token).map_err(|e| format!("{} ({how}): {e}", path.display()))
}

/// An FMI 3.0 instance of an already decoded model (tests bypass the model file with it).
/// NULL on failure; never panics.
#[cfg(test)]
pub(crate) fn instantiate_with_model(
    model: Arc<CompiledModel>,
    name: &CStr,
    logger: Logger,
    early_return_allowed: bool,
    intermediate_update: fmi3IntermediateUpdateCallback,
    environment: fmi3InstanceEnvironment,
    required: &[u32],
) -> fmi3Instance {
    let _ = name;
    let built = catch_unwind(AssertUnwindSafe(|| {
        Component::with_logger(model, logger, COMPONENT_MAGIC_FMI3).and_then(|comp| {
            Fmi3Component::new(
                comp,
                early_return_allowed,
                intermediate_update,
                environment,
                required,
            )
        })
    }));
    match built {
        Ok(Ok(fmu)) => Box::into_raw(Box::new(fmu)).cast(),
        _ => null_mut(),
    }
}

/// Model Exchange is not offered by this binary yet: NULL, with the reason logged.
///
/// # Safety
/// FMI 3.0 calling conventions.
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
    let _ = (instantiationToken, resourcePath, visible);
    refuse_instance(
        instanceName,
        loggingOn,
        instanceEnvironment,
        logMessage,
        "fmi3InstantiateModelExchange: not supported: this FMU is Co-Simulation only",
    )
}

/// Scheduled Execution is not offered: NULL, with the reason logged.
///
/// # Safety
/// FMI 3.0 calling conventions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3InstantiateScheduledExecution(
    instanceName: fmi3String,
    instantiationToken: fmi3String,
    resourcePath: fmi3String,
    visible: fmi3Boolean,
    loggingOn: fmi3Boolean,
    instanceEnvironment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    clockUpdate: fmi3ClockUpdateCallback,
    lockPreemption: fmi3LockPreemptionCallback,
    unlockPreemption: fmi3UnlockPreemptionCallback,
) -> fmi3Instance {
    let _ = (instantiationToken, resourcePath, visible);
    let _ = (clockUpdate, lockPreemption, unlockPreemption);
    refuse_instance(
        instanceName,
        loggingOn,
        instanceEnvironment,
        logMessage,
        "fmi3InstantiateScheduledExecution: not supported: this FMU is Co-Simulation only",
    )
}

fn refuse_instance(
    instanceName: fmi3String,
    loggingOn: bool,
    environment: fmi3InstanceEnvironment,
    logMessage: fmi3LogMessageCallback,
    why: &str,
) -> fmi3Instance {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: NULL or a C string (FMI calling conventions).
        let name = (!instanceName.is_null()).then(|| unsafe { CStr::from_ptr(instanceName) });
        Logger::new_fmi3(logMessage, environment, name.unwrap_or(c""), loggingOn).log(
            fmi2Error,
            Category::StatusError,
            why,
        );
    }));
    null_mut()
}

/// Frees the instance; NULL and unknown pointers are ignored. Not from inside the
/// intermediate-update callback (the step still runs on the instance): that call is
/// refused with a logged error and the instance lives on.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation` and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3FreeInstance(instance: fmi3Instance) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: FMI calling conventions.
        let Some(fmu) = (unsafe { Fmi3Component::from_handle(instance) }) else {
            return;
        };
        if !sm::FREE_INSTANCE.allowed_in(fmu.comp.state) {
            fmu.comp.log(
                fmi2Error,
                Category::StatusError,
                "fmi3FreeInstance: Illegal call sequence (state IntermediateUpdateMode): the instance is inside fmi3DoStep",
            );
            return;
        }
        fmu.comp.log(fmi2OK, Category::All, "fmi3FreeInstance()");
        fmu.comp.kill_tag();
        // SAFETY: the pointer came from Box::into_raw(Box<Fmi3Component>).
        drop(unsafe { Box::from_raw(instance.cast::<Fmi3Component>()) });
    }));
}

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
            if !startTime.is_finite() {
                return Err(format!("startTime must be finite, is {startTime}"));
            }
            let stop = if stopTimeDefined {
                if !(stopTime.is_finite() && stopTime >= startTime) {
                    return Err(format!(
                        "stopTime {stopTime} must be finite and not before startTime {startTime}"
                    ));
                }
                Some(stopTime)
            } else {
                None
            };
            comp.experiment.start_time = startTime;
            comp.experiment.stop_time = stop;
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
pub unsafe extern "C" fn fmi3EnterEventMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3EnterEventMode",
            "this FMU has no Event Mode (hasEventMode=\"false\")",
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

// ---------------------------------------------------------------------------------------
// Getting and setting variable values
// ---------------------------------------------------------------------------------------

/// In Intermediate Update Mode only the required intermediate variables may be read,
/// and only if the callback allowed it.
fn check_intermediate_access(fmu: &Fmi3Component, vr: u32, set: bool) -> Result<(), String> {
    if fmu.comp.state != FmiState::IntermediateUpdate {
        return Ok(());
    }
    let allowed = if set {
        fmu.sets_requested
    } else {
        fmu.gets_allowed
    };
    if !fmu.is_required(vr) || !allowed {
        return Err(format!(
            "value reference {vr} cannot be {} in Intermediate Update Mode: only variables passed in requiredIntermediateVariables at instantiation are",
            if set { "set" } else { "read" }
        ));
    }
    Ok(())
}

fn get_values<T>(
    fmu: &Fmi3Component,
    ty: VarType,
    vrs: &[u32],
    out: &mut [T],
    conv: impl Fn(f64) -> T,
) -> Outcome {
    for (&vr, slot) in vrs.iter().zip(out.iter_mut()) {
        if ty == VarType::Real && vr == fmu.time_vr {
            *slot = conv(fmu.comp.instance.time());
            continue;
        }
        check_intermediate_access(fmu, vr, false)?;
        let var = fmu.comp.variable(ty, vr)?;
        *slot = conv(fmu.comp.instance.value(var));
    }
    Ok(fmi2OK)
}

/// Checks every value first, then writes them all: a failing call changes nothing. Inside
/// the intermediate-update callback the inputs are held until it returns.
fn set_values<T: Copy>(
    fmu: &mut Fmi3Component,
    ty: VarType,
    vrs: &[u32],
    values: &[T],
    conv: impl Fn(T) -> f64,
) -> Outcome {
    for (&vr, &v) in vrs.iter().zip(values) {
        if ty == VarType::Real && vr == fmu.time_vr {
            return Err(format!(
                "value reference {vr} is the independent variable time, which only fmi3DoStep advances"
            ));
        }
        check_intermediate_access(fmu, vr, true)?;
        fmu.comp.check_set(ty, vr, conv(v))?;
    }
    for (&vr, &v) in vrs.iter().zip(values) {
        let (slot, value) = fmu.comp.check_set(ty, vr, conv(v))?;
        if fmu.comp.state == FmiState::IntermediateUpdate {
            fmu.hold_input(slot, value);
        } else {
            fmu.comp.set_value(ty, vr, slot, value)?;
        }
    }
    Ok(fmi2OK)
}

/// The common part of `fmi3Get{Float64,Int32,Boolean}`: scalar variables only, so
/// `nValues` must equal `nValueReferences`.
///
/// # Safety
/// `vr` holds `nvr` and `values` holds `nv` elements.
unsafe fn get<T>(
    instance: fmi3Instance,
    f: FmiFunction,
    ty: VarType,
    (vr, nvr): (*const fmi3ValueReference, usize),
    (values, nv): (*mut T, usize),
    conv: impl Fn(f64) -> T,
) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(instance, f, format_args!("nValueReferences={nvr}"), |fmu| {
            scalar_count(nvr, nv)?;
            let vrs = slice_in(vr, nvr, "valueReferences[]")?;
            let out = slice_out(values, nv, "values[]")?;
            get_values(fmu, ty, vrs, out, conv)
        })
    }
}

/// The common part of `fmi3Set{Float64,Int32,Boolean}`.
///
/// # Safety
/// `vr` holds `nvr` and `values` holds `nv` elements.
unsafe fn set<T: Copy>(
    instance: fmi3Instance,
    f: FmiFunction,
    ty: VarType,
    (vr, nvr): (*const fmi3ValueReference, usize),
    (values, nv): (*const T, usize),
    conv: impl Fn(T) -> f64,
) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(instance, f, format_args!("nValueReferences={nvr}"), |fmu| {
            scalar_count(nvr, nv)?;
            let vrs = slice_in(vr, nvr, "valueReferences[]")?;
            let values = slice_in(values, nv, "values[]")?;
            set_values(fmu, ty, vrs, values, conv)
        })
    }
}

fn scalar_count(nvr: usize, nv: usize) -> Result<(), String> {
    if nvr != nv {
        return Err(format!(
            "nValues = {nv} differs from nValueReferences = {nvr}: every variable of this FMU is a scalar"
        ));
    }
    Ok(())
}

/// A type this FMU has no variables of: any value reference is an error.
///
/// # Safety
/// `vr` holds `nvr` elements.
unsafe fn no_variables_of_type(
    instance: fmi3Instance,
    f: FmiFunction,
    type_name: &'static str,
    (vr, nvr): (*const fmi3ValueReference, usize),
) -> fmi3Status {
    // SAFETY: forwarded contract.
    unsafe {
        guarded(instance, f, format_args!("nValueReferences={nvr}"), |_| {
            let vrs = slice_in(vr, nvr, "valueReferences[]")?;
            match vrs.first() {
                Some(vr) => Err(format!("no {type_name} variable has value reference {vr}")),
                None => Ok(fmi2OK),
            }
        })
    }
}

/// # Safety
/// FMI calling conventions: `valueReferences` holds `nValueReferences` elements, `values`
/// `nValues`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFloat64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = getter("fmi3GetFloat64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { get(instance, F, VarType::Real, vrs, (values, nValues), |v| v) }
}

/// Integer variables (FMI 2.0 `Integer`) are FMI 3.0 `Int32`.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int32,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = getter("fmi3GetInt32");
    let vrs = (valueReferences, nValueReferences);
    // `as` saturates (and maps NaN to 0): no UB, no panic.
    // SAFETY: FMI calling conventions.
    unsafe {
        get(instance, F, VarType::Integer, vrs, (values, nValues), |v| {
            v.round() as i32
        })
    }
}

/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetBoolean(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Boolean,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = getter("fmi3GetBoolean");
    let vrs = (valueReferences, nValueReferences);
    // Written as bytes 0/1 (see types.rs): the master's array may hold anything before.
    let out = (values.cast::<u8>(), nValues);
    // SAFETY: FMI calling conventions.
    unsafe {
        get(instance, F, VarType::Boolean, vrs, out, |v| {
            (v != 0.0) as u8
        })
    }
}

/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFloat64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = setter("fmi3SetFloat64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { set(instance, F, VarType::Real, vrs, (values, nValues), |v| v) }
}

/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int32,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = setter("fmi3SetInt32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe {
        set(
            instance,
            F,
            VarType::Integer,
            vrs,
            (values, nValues),
            f64::from,
        )
    }
}

/// Booleans are read as bytes: any non-zero byte is true (no invalid Rust `bool`).
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetBoolean(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Boolean,
    nValues: usize,
) -> fmi3Status {
    const F: FmiFunction = setter("fmi3SetBoolean");
    let vrs = (valueReferences, nValueReferences);
    let bytes = (values.cast::<u8>(), nValues);
    // SAFETY: FMI calling conventions.
    unsafe {
        set(instance, F, VarType::Boolean, vrs, bytes, |b: u8| {
            if b != 0 { 1.0 } else { 0.0 }
        })
    }
}

// The types this FMU has no variables of: any value reference is an error. Written out
// one by one (not by a macro) so that cbindgen sees them for the header check.

/// No Float32 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFloat32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Float32,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetFloat32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Float32", vrs) }
}

/// No Float32 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFloat32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Float32,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetFloat32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Float32", vrs) }
}

/// No Int8 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int8,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetInt8");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int8", vrs) }
}

/// No Int8 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int8,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetInt8");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int8", vrs) }
}

/// No UInt8 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetUInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3UInt8,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetUInt8");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt8", vrs) }
}

/// No UInt8 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetUInt8(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3UInt8,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetUInt8");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt8", vrs) }
}

/// No Int16 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int16,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetInt16");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int16", vrs) }
}

/// No Int16 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int16,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetInt16");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int16", vrs) }
}

/// No UInt16 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetUInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3UInt16,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetUInt16");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt16", vrs) }
}

/// No UInt16 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetUInt16(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3UInt16,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetUInt16");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt16", vrs) }
}

/// No UInt32 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetUInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3UInt32,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetUInt32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt32", vrs) }
}

/// No UInt32 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetUInt32(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3UInt32,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetUInt32");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt32", vrs) }
}

/// No Int64 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Int64,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetInt64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int64", vrs) }
}

/// No Int64 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Int64,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetInt64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Int64", vrs) }
}

/// No UInt64 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetUInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3UInt64,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetUInt64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt64", vrs) }
}

/// No UInt64 variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetUInt64(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3UInt64,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetUInt64");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "UInt64", vrs) }
}

/// No String variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetString(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3String,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = getter("fmi3GetString");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "String", vrs) }
}

/// No String variables: any value reference is an error.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetString(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3String,
    nValues: usize,
) -> fmi3Status {
    let _ = (values, nValues);
    const F: FmiFunction = setter("fmi3SetString");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "String", vrs) }
}

/// No Binary variables.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    valueSizes: *mut usize,
    values: *mut fmi3Binary,
    nValues: usize,
) -> fmi3Status {
    let _ = (valueSizes, values, nValues);
    const F: FmiFunction = getter("fmi3GetBinary");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Binary", vrs) }
}

/// No Binary variables.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetBinary(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    valueSizes: *const usize,
    values: *const fmi3Binary,
    nValues: usize,
) -> fmi3Status {
    let _ = (valueSizes, values, nValues);
    const F: FmiFunction = setter("fmi3SetBinary");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Binary", vrs) }
}

/// No Clocks.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetClock(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *mut fmi3Clock,
) -> fmi3Status {
    let _ = values;
    const F: FmiFunction = getter("fmi3GetClock");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Clock", vrs) }
}

/// No Clocks.
///
/// # Safety
/// As [`fmi3GetFloat64`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetClock(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    values: *const fmi3Clock,
) -> fmi3Status {
    let _ = values;
    const F: FmiFunction = setter("fmi3SetClock");
    let vrs = (valueReferences, nValueReferences);
    // SAFETY: FMI calling conventions.
    unsafe { no_variables_of_type(instance, F, "Clock", vrs) }
}

// ---------------------------------------------------------------------------------------
// Variable dependencies, derivatives, configuration, clocks, discrete states
// ---------------------------------------------------------------------------------------

const NO_DEPENDENCIES: &str = "this FMU declares providesPerElementDependencies=\"false\"; the dependencies are in <ModelStructure>";

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfVariableDependencies(
    instance: fmi3Instance,
    valueReference: fmi3ValueReference,
    nDependencies: *mut usize,
) -> fmi3Status {
    let _ = (valueReference, nDependencies);
    const NAME: &str = "fmi3GetNumberOfVariableDependencies";
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, NAME, NO_DEPENDENCIES) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetVariableDependencies(
    instance: fmi3Instance,
    dependent: fmi3ValueReference,
    elementIndicesOfDependent: *mut usize,
    independents: *mut fmi3ValueReference,
    elementIndicesOfIndependents: *mut usize,
    dependencyKinds: *mut fmi3DependencyKind,
    nDependencies: usize,
) -> fmi3Status {
    let _ = (dependent, elementIndicesOfDependent, independents);
    let _ = (elementIndicesOfIndependents, dependencyKinds, nDependencies);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetVariableDependencies", NO_DEPENDENCIES) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
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
    let _ = (unknowns, nUnknowns, knowns, nKnowns, seed, nSeed);
    let _ = (sensitivity, nSensitivity);
    const WHY: &str = "this FMU declares providesDirectionalDerivatives=\"false\"";
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetDirectionalDerivative", WHY) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetAdjointDerivative(
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
    let _ = (unknowns, nUnknowns, knowns, nKnowns, seed, nSeed);
    let _ = (sensitivity, nSensitivity);
    const WHY: &str = "this FMU declares providesAdjointDerivatives=\"false\"";
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetAdjointDerivative", WHY) }
}

const NO_STRUCTURAL_PARAMETERS: &str = "this FMU has no structural parameters";

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3EnterConfigurationMode",
            NO_STRUCTURAL_PARAMETERS,
        )
    }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3ExitConfigurationMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3ExitConfigurationMode",
            NO_STRUCTURAL_PARAMETERS,
        )
    }
}

const NO_CLOCKS: &str = "this FMU has no Clocks";

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetIntervalDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    intervals: *mut fmi3Float64,
    qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, intervals, qualifiers);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetIntervalDecimal", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetIntervalFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *mut fmi3UInt64,
    resolutions: *mut fmi3UInt64,
    qualifiers: *mut fmi3IntervalQualifier,
) -> fmi3Status {
    let _ = (
        valueReferences,
        nValueReferences,
        counters,
        resolutions,
        qualifiers,
    );
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetIntervalFraction", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetShiftDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    shifts: *mut fmi3Float64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, shifts);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetShiftDecimal", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetShiftFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *mut fmi3UInt64,
    resolutions: *mut fmi3UInt64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, counters, resolutions);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetShiftFraction", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetIntervalDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    intervals: *const fmi3Float64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, intervals);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetIntervalDecimal", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetIntervalFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *const fmi3UInt64,
    resolutions: *const fmi3UInt64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, counters, resolutions);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetIntervalFraction", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetShiftDecimal(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    shifts: *const fmi3Float64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, shifts);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetShiftDecimal", NO_CLOCKS) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetShiftFraction(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    counters: *const fmi3UInt64,
    resolutions: *const fmi3UInt64,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, counters, resolutions);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetShiftFraction", NO_CLOCKS) }
}

const NO_EVENT_MODE: &str = "this FMU has no Event Mode (hasEventMode=\"false\")";

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EvaluateDiscreteStates(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3EvaluateDiscreteStates", NO_EVENT_MODE) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
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
    let _ = (discreteStatesNeedUpdate, terminateSimulation);
    let _ = (
        nominalsOfContinuousStatesChanged,
        valuesOfContinuousStatesChanged,
    );
    let _ = (nextEventTimeDefined, nextEventTime);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3UpdateDiscreteStates", NO_EVENT_MODE) }
}

// ---------------------------------------------------------------------------------------
// Model Exchange and Scheduled Execution (not offered by this FMU)
// ---------------------------------------------------------------------------------------

const CO_SIMULATION_ONLY: &str = "this FMU is Co-Simulation only";

// Model Exchange and Scheduled Execution functions: instances of this FMU are never of
// those kinds (written out for cbindgen, as above).

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterContinuousTimeMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3EnterContinuousTimeMode", CO_SIMULATION_ONLY) }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3CompletedIntegratorStep(
    instance: fmi3Instance,
    noSetFMUStatePriorToCurrentPoint: fmi3Boolean,
    enterEventMode: *mut fmi3Boolean,
    terminateSimulation: *mut fmi3Boolean,
) -> fmi3Status {
    let _ = (
        noSetFMUStatePriorToCurrentPoint,
        enterEventMode,
        terminateSimulation,
    );
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3CompletedIntegratorStep", CO_SIMULATION_ONLY) }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetTime(instance: fmi3Instance, time: fmi3Float64) -> fmi3Status {
    let _ = (time,);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetTime", CO_SIMULATION_ONLY) }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *const fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let _ = (continuousStates, nContinuousStates);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3SetContinuousStates", CO_SIMULATION_ONLY) }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetContinuousStateDerivatives(
    instance: fmi3Instance,
    derivatives: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let _ = (derivatives, nContinuousStates);
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3GetContinuousStateDerivatives",
            CO_SIMULATION_ONLY,
        )
    }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetEventIndicators(
    instance: fmi3Instance,
    eventIndicators: *mut fmi3Float64,
    nEventIndicators: usize,
) -> fmi3Status {
    let _ = (eventIndicators, nEventIndicators);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetEventIndicators", CO_SIMULATION_ONLY) }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetContinuousStates(
    instance: fmi3Instance,
    continuousStates: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let _ = (continuousStates, nContinuousStates);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetContinuousStates", CO_SIMULATION_ONLY) }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNominalsOfContinuousStates(
    instance: fmi3Instance,
    nominals: *mut fmi3Float64,
    nContinuousStates: usize,
) -> fmi3Status {
    let _ = (nominals, nContinuousStates);
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3GetNominalsOfContinuousStates",
            CO_SIMULATION_ONLY,
        )
    }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfEventIndicators(
    instance: fmi3Instance,
    nEventIndicators: *mut usize,
) -> fmi3Status {
    let _ = (nEventIndicators,);
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3GetNumberOfEventIndicators",
            CO_SIMULATION_ONLY,
        )
    }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetNumberOfContinuousStates(
    instance: fmi3Instance,
    nContinuousStates: *mut usize,
) -> fmi3Status {
    let _ = (nContinuousStates,);
    // SAFETY: FMI calling conventions.
    unsafe {
        not_supported(
            instance,
            "fmi3GetNumberOfContinuousStates",
            CO_SIMULATION_ONLY,
        )
    }
}

/// Not offered: this FMU is Co-Simulation only.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3ActivateModelPartition(
    instance: fmi3Instance,
    clockReference: fmi3ValueReference,
    activationTime: fmi3Float64,
) -> fmi3Status {
    let _ = (clockReference, activationTime);
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3ActivateModelPartition", CO_SIMULATION_ONLY) }
}

/// Event Mode is never entered, so Step Mode is never re-entered.
///
/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3EnterStepMode(instance: fmi3Instance) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3EnterStepMode", NO_EVENT_MODE) }
}

/// # Safety
/// `instance` is NULL or from `fmi3InstantiateCoSimulation`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetOutputDerivatives(
    instance: fmi3Instance,
    valueReferences: *const fmi3ValueReference,
    nValueReferences: usize,
    orders: *const fmi3Int32,
    values: *mut fmi3Float64,
    nValues: usize,
) -> fmi3Status {
    let _ = (valueReferences, nValueReferences, orders, values, nValues);
    const WHY: &str = "this FMU declares maxOutputDerivativeOrder=\"0\"";
    // SAFETY: FMI calling conventions.
    unsafe { not_supported(instance, "fmi3GetOutputDerivatives", WHY) }
}

// ---------------------------------------------------------------------------------------
// FMU states
// ---------------------------------------------------------------------------------------

/// Saves the complete state; `*FMUState == NULL` allocates a new object, otherwise the
/// given one (which must be ours) is overwritten.
///
/// # Safety
/// FMI calling conventions; `*FMUState` is NULL or a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3GetFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::GET_FMU_STATE, format_args!(""), |fmu| {
            let slot = out_ref(FMUState, "FMUState")?;
            fmu.comp.capture_to_slot(slot)?;
            Ok(fmi2OK)
        })
    }
}

/// Restores a state from `fmi3GetFMUState` or `fmi3DeserializeFMUState` (also one of
/// another instance of the same model).
///
/// # Safety
/// FMI calling conventions; `FMUState` is a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SetFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::SET_FMU_STATE, format_args!(""), |fmu| {
            let st = match FmuState::from_ptr(FMUState) {
                Some(st) => st,
                None if FMUState.is_null() => return Err("FMUState is NULL".into()),
                None => return Err("FMUState is not an FMU state of this FMU".into()),
            };
            let s = st.progress.state;
            if !matches!(
                s,
                FmiState::Instantiated
                    | FmiState::InitializationMode
                    | FmiState::StepComplete
                    | FmiState::Terminated
            ) {
                return Err(format!(
                    "the FMU state was saved through FMI 2.0 in state {s}, which FMI 3.0 has not"
                ));
            }
            fmu.comp.restore_logged(st)?;
            fmu.pending.clear();
            Ok(fmi2OK)
        })
    }
}

/// Frees a state and sets `*FMUState` to NULL; NULL pointers are no-ops.
///
/// # Safety
/// FMI calling conventions; `*FMUState` is NULL or a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3FreeFMUState(
    instance: fmi3Instance,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(instance, sm::FREE_FMU_STATE, format_args!(""), |_| {
            FmuState::free_slot(FMUState)?;
            Ok(fmi2OK)
        })
    }
}

/// # Safety
/// FMI calling conventions; `FMUState` is a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SerializedFMUStateSize(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    size: *mut usize,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::SERIALIZED_FMU_STATE_SIZE,
            format_args!(""),
            |_| {
                let st = FmuState::from_ptr(FMUState)
                    .ok_or("FMUState is NULL or not an FMU state of this FMU")?;
                *out_ref(size, "size")? = st.serialized_len();
                Ok(fmi2OK)
            },
        )
    }
}

/// The pointer-free byte form of a state (as FMI 2.0's); `size` must be what
/// `fmi3SerializedFMUStateSize` returned.
///
/// # Safety
/// FMI calling conventions; `serializedState` holds `size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3SerializeFMUState(
    instance: fmi3Instance,
    FMUState: fmi3FMUState,
    serializedState: *mut fmi3Byte,
    size: usize,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::SERIALIZE_FMU_STATE,
            format_args!("size={size}"),
            |_| {
                let st = FmuState::from_ptr(FMUState)
                    .ok_or("FMUState is NULL or not an FMU state of this FMU")?;
                let out = slice_out(serializedState, size, "serializedState")?;
                st.serialize_into(out, "fmi3SerializedFMUStateSize")?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Checks and decodes serialized bytes (magic, versions, token, dimensions, checksums).
///
/// # Safety
/// FMI calling conventions; `serializedState` holds `size` bytes; `*FMUState` is NULL or
/// a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi3DeserializeFMUState(
    instance: fmi3Instance,
    serializedState: *const fmi3Byte,
    size: usize,
    FMUState: *mut fmi3FMUState,
) -> fmi3Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            instance,
            sm::DESERIALIZE_FMU_STATE,
            format_args!("size={size}"),
            |fmu| {
                let slot = out_ref(FMUState, "FMUState")?;
                let bytes = slice_in(serializedState, size, "serializedState")?;
                let decoded = FmuState::deserialize(bytes, &fmu.comp.model)?;
                FmuState::store_in_slot(slot, decoded)?;
                Ok(fmi2OK)
            },
        )
    }
}

// ---------------------------------------------------------------------------------------
// Co-Simulation: fmi3DoStep
// ---------------------------------------------------------------------------------------

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
                    let before = fmu.comp.event_counts();
                    callback = Some((f, fmu.environment, target, before));
                }
            }
            Ok(fmi2OK)
        })
    };
    if status != fmi3Status::fmi3OK {
        return status;
    }
    if let Some((f, environment, target, before)) = callback {
        let step = Segments { t, target, before };
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
/// its start.
struct Segments {
    t: f64,
    target: f64,
    before: (u64, u64),
}

/// What the master answered in the intermediate-update callback.
struct Answer {
    early_return: Option<f64>,
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
    let Segments { t, target, before } = step;
    const SEGMENT: FmiFunction =
        FmiFunction::with_mask("fmi3DoStep", FmiState::StepComplete as u32);
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
                        if fmu.gets_allowed {
                            fmu.comp.instance.capture_intermediate_outputs();
                        }
                        fmu.comp.state = FmiState::IntermediateUpdate;
                        pause = Some((
                            fmu.comp.instance.time(),
                            fmu.sets_requested,
                            fmu.gets_allowed,
                            fmu.early_return_allowed,
                        ));
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
        let Some((now, sets, gets, can_return)) = pause else {
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
        let answer = Answer {
            early_return: (requested && can_return).then_some(early_time),
        };
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
                let early = answer.early_return.map(|te| te.clamp(now, end));
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
                        fmu.comp.instance.capture_intermediate_outputs();
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
const RESUME: FmiFunction = FmiFunction::with_mask("fmi3DoStep", !(FmiState::Fatal as u32));

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
