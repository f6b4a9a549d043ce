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

use super::component::Fmi3Component;
use super::state_machine::{self as sm, getter, setter};
use super::types::*;
use crate::fmi2::call::{self, Handle, Outcome, out_ref, panic_text, slice_in, slice_out};
use crate::fmi2::fmu_state::FmuState;
use crate::fmi2::logging::{Category, Logger};
use crate::fmi2::resources;
use crate::fmi2::state_machine::{FmiFunction, FmiState};
use crate::fmi2::types::fmi2Status::{fmi2Error, fmi2Fatal, fmi2OK};
use crate::model::{CompiledModel, VarType, file as model_file};
use std::ffi::{CStr, c_char};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::null_mut;
use std::sync::Arc;

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
    let caller = Caller {
        function: "fmi3InstantiateCoSimulation",
        instance_name: instanceName,
        token: instantiationToken,
        resource_path: resourcePath,
        logging_on: loggingOn,
        environment: instanceEnvironment,
        log_message: logMessage,
    };
    let refuse = eventModeUsed.then_some(
        "eventModeUsed = true, but this FMU has no Event Mode (hasEventMode=\"false\"); instantiate it with eventModeUsed = false",
    );
    // SAFETY: FMI calling conventions.
    unsafe {
        instantiate(caller, refuse, |model, logger| {
            // SAFETY: FMI calling conventions.
            let required = slice_in(
                requiredIntermediateVariables,
                nRequiredIntermediateVariables,
                "requiredIntermediateVariables[]",
            )?;
            Fmi3Component::new(
                Arc::new(model),
                logger,
                earlyReturnAllowed,
                intermediateUpdate,
                instanceEnvironment,
                required,
            )
        })
    }
}

/// The arguments every `fmi3Instantiate*` function has.
pub(super) struct Caller {
    pub function: &'static str,
    pub instance_name: fmi3String,
    pub token: fmi3String,
    pub resource_path: fmi3String,
    pub logging_on: bool,
    pub environment: fmi3InstanceEnvironment,
    pub log_message: fmi3LogMessageCallback,
}

/// The frame both instantiate functions share: the name (non-empty), `refuse` (a reason
/// to fail before anything is read), the token, the model file; then `build` makes the
/// instance from the decoded model and its logger. NULL after logging why; a panic is
/// caught and logged as fatal.
///
/// # Safety
/// The strings of `caller` are NULL or NUL-terminated (FMI calling conventions), and so is
/// whatever `build` dereferences.
pub(super) unsafe fn instantiate(
    caller: Caller,
    refuse: Option<&str>,
    build: impl FnOnce(CompiledModel, Logger) -> Result<Fmi3Component, String>,
) -> fmi3Instance {
    let function = caller.function;
    // SAFETY: NULL or a C string (FMI calling conventions).
    let name =
        (!caller.instance_name.is_null()).then(|| unsafe { CStr::from_ptr(caller.instance_name) });
    let early = Logger::new_fmi3(
        caller.log_message,
        caller.environment,
        name.unwrap_or(c""),
        caller.logging_on,
    );
    let fail = |message: &str| -> fmi3Instance {
        early.log(
            fmi2Error,
            Category::StatusError,
            &format!("{function}: {message}"),
        );
        null_mut()
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Some(name) = name.filter(|n| !n.to_bytes().trim_ascii().is_empty()) else {
            return fail("instanceName must be a non-empty string");
        };
        if let Some(why) = refuse {
            return fail(why);
        }
        if caller.token.is_null() {
            return fail("instantiationToken is NULL");
        }
        // SAFETY: non-NULL C string (FMI calling conventions).
        let token = unsafe { CStr::from_ptr(caller.token) };
        // SAFETY: NULL or a C string (FMI calling conventions).
        let location = (!caller.resource_path.is_null())
            .then(|| unsafe { CStr::from_ptr(caller.resource_path) });
        let model = match read_model(location, &token.to_string_lossy()) {
            Ok(model) => model,
            Err(e) => return fail(&e),
        };
        let logger = Logger::new_fmi3(
            caller.log_message,
            caller.environment,
            name,
            caller.logging_on,
        );
        match build(model, logger) {
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
            &format!("{function}: internal error (panic: {text})"),
        );
        null_mut()
    })
}

/// Finds (at `resourcePath`, else beside the binary) and reads the model file.
pub(super) fn read_model(location: Option<&CStr>, token: &str) -> Result<CompiledModel, String> {
    let (path, how) = resources::locate_path(location, model_file::FILE_NAME)?;
    resources::read_model(&path, how, token)
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
        Fmi3Component::new(
            model,
            logger,
            early_return_allowed,
            intermediate_update,
            environment,
            required,
        )
    }));
    match built {
        Ok(Ok(fmu)) => Box::into_raw(Box::new(fmu)).cast(),
        _ => null_mut(),
    }
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
    fmu: &mut Fmi3Component,
    ty: VarType,
    vrs: &[u32],
    out: &mut [T],
    conv: impl Fn(f64) -> T,
) -> Outcome {
    fmu.comp.refresh_model_exchange()?;
    for (&vr, slot) in vrs.iter().zip(out.iter_mut()) {
        if ty == VarType::Real && vr == fmu.time_vr {
            *slot = conv(fmu.comp.instance.time());
            continue;
        }
        check_intermediate_access(fmu, vr, false)?;
        let var = fmu.comp.variable(ty, vr)?;
        if var.is_continuous_state() && !fmu.comp.instance.has_ode() {
            return Err(format!(
                "{} is defined after initialization (the independent coordinates are chosen at the initial equilibrium)",
                var.name
            ));
        }
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
