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

use super::call::{self, Outcome, out_ref, panic_text, slice_in, slice_out};
use super::component::Component;
use super::fmu_state::FmuState;
use super::logging::{Category, Logger};
use super::model_exchange::ModelExchange;
use super::resources;
use super::state_machine::{self as sm, FmiFunction, FmiState};
use super::types::*;
use crate::model::{Binding, Causality, CompiledModel, VarType, Variability, file as model_file};
use std::ffi::{CStr, c_char};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr::null_mut;
use std::sync::Arc;

use fmi2Status::{fmi2Discard, fmi2Error, fmi2Fatal, fmi2OK};

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

// ---------------------------------------------------------------------------------------
// Creation and destruction of FMU instances
// ---------------------------------------------------------------------------------------

/// Creates an instance of the FMU's model (Co-Simulation only), read from
/// `resources/hydromech-model.bin` ([`model_file`]). The file is looked for at
/// `fmuResourceLocation` and, for masters that pass NULL or a wrong location, beside the
/// binary ([`resources`]). Returns NULL, after logging why through `functions->logger`, if
/// the name is empty, the type is Model Exchange, the model file is missing, corrupted,
/// from another runtime version or another GUID. `visible` is ignored (no GUI).
///
/// # Safety
/// FMI 2.0 calling conventions: string arguments are NULL or NUL-terminated, `functions`
/// is NULL or points to a callback struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2Instantiate(
    instanceName: fmi2String,
    fmuType: fmi2Type,
    fmuGUID: fmi2String,
    fmuResourceLocation: fmi2String,
    functions: *const fmi2CallbackFunctions,
    visible: fmi2Boolean,
    loggingOn: fmi2Boolean,
) -> fmi2Component {
    let _ = visible;
    if functions.is_null() || !functions.is_aligned() {
        return null_mut();
    }
    // SAFETY: non-NULL and aligned; the struct is only valid during this call, so copy it.
    let callbacks = unsafe { *functions };
    let logging_on = loggingOn != fmi2False;
    // SAFETY: instanceName is NULL or a C string (FMI calling conventions).
    let name = (!instanceName.is_null()).then(|| unsafe { CStr::from_ptr(instanceName) });
    let early = Logger::new(
        callbacks.logger,
        callbacks.componentEnvironment,
        name.unwrap_or(c""),
        logging_on,
    );
    let fail = |message: &str| -> fmi2Component {
        early.log(
            fmi2Error,
            Category::StatusError,
            &format!("fmi2Instantiate: {message}"),
        );
        null_mut()
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            return fail("instanceName must be a non-empty string");
        };
        let model_exchange = fmuType == fmi2Type::fmi2ModelExchange;
        if !model_exchange && fmuType != fmi2Type::fmi2CoSimulation {
            return fail(&format!("invalid fmuType {}", fmuType.0));
        }
        if fmuGUID.is_null() {
            return fail("fmuGUID is NULL");
        }
        // SAFETY: non-NULL C string (FMI calling conventions).
        let guid = unsafe { CStr::from_ptr(fmuGUID) };
        // SAFETY: NULL or a C string (FMI calling conventions).
        let location = (!fmuResourceLocation.is_null())
            .then(|| unsafe { CStr::from_ptr(fmuResourceLocation) });
        let (path, how) = match resources::locate(location, model_file::FILE_NAME) {
            Ok(found) => found,
            Err(e) => return fail(&e),
        };
        let model = match resources::read_model(&path, how, &guid.to_string_lossy()) {
            Ok(model) => model,
            Err(e) => return fail(&e),
        };
        early.log(
            fmi2OK,
            Category::All,
            &format!(
                "fmi2Instantiate: model read from {} (found through {how})",
                path.display()
            ),
        );
        let model = Arc::new(model);
        if model_exchange {
            instantiate_model_exchange(model, name, &callbacks, logging_on)
        } else {
            instantiate_with_model(model, name, &callbacks, logging_on)
        }
        .cast::<std::ffi::c_void>()
    }));
    result.unwrap_or_else(|payload| {
        let text = panic_text(payload.as_ref());
        early.log(
            fmi2Fatal,
            Category::StatusFatal,
            &format!("fmi2Instantiate: internal error (panic: {text})"),
        );
        null_mut()
    })
}

/// [`instantiate_with_model`] for Model Exchange: NULL (logged) if the model declares no
/// continuous states (built for Co-Simulation only).
pub(crate) fn instantiate_model_exchange(
    model: Arc<CompiledModel>,
    instance_name: &CStr,
    callbacks: &fmi2CallbackFunctions,
    logging_on: bool,
) -> *mut Component {
    let n = model.continuous_states();
    if n == 0 {
        Logger::new(
            callbacks.logger,
            callbacks.componentEnvironment,
            instance_name,
            logging_on,
        )
        .log(
            fmi2Error,
            Category::StatusError,
            "fmi2Instantiate: fmuType is fmi2ModelExchange but this FMU was built for Co-Simulation only (build it with `hydromech build --interface me` or `--interface both`)",
        );
        return null_mut();
    }
    let comp = instantiate_with_model(model, instance_name, callbacks, logging_on);
    if !comp.is_null() {
        // SAFETY: just made by `Box::into_raw`, not shared yet.
        unsafe { (*comp).model_exchange = Some(ModelExchange::new(n)) };
    }
    comp
}

/// Creates a component for an already decoded model; `fmi2Instantiate` uses it after its
/// argument checks, tests use it to bypass the embedded model. Returns NULL (after logging)
/// on failure; never panics.
pub(crate) fn instantiate_with_model(
    model: Arc<CompiledModel>,
    instance_name: &CStr,
    callbacks: &fmi2CallbackFunctions,
    logging_on: bool,
) -> *mut Component {
    let built = catch_unwind(AssertUnwindSafe(|| {
        Component::new(model, instance_name, callbacks, logging_on)
    }));
    let error = match built {
        Ok(Ok(comp)) => {
            if comp.logger.would_log(fmi2OK, Category::Events) {
                let m = &comp.model;
                comp.log(
                    fmi2OK,
                    Category::Events,
                    &format!("instantiated model {} (GUID {})", m.name, m.guid),
                );
            }
            return Box::into_raw(Box::new(comp));
        }
        Ok(Err(message)) => format!("fmi2Instantiate: {message}"),
        Err(payload) => format!(
            "fmi2Instantiate: internal error (panic: {})",
            panic_text(payload.as_ref())
        ),
    };
    let logger = Logger::new(
        callbacks.logger,
        callbacks.componentEnvironment,
        instance_name,
        logging_on,
    );
    logger.log(fmi2Error, Category::StatusError, &error);
    null_mut()
}

/// Frees the instance. NULL and unknown pointers are ignored; allowed in every state (see
/// `state_machine.rs`).
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate` and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2FreeInstance(c: fmi2Component) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: FMI calling conventions.
        if let Some(comp) = unsafe { Component::from_handle(c) } {
            comp.log(fmi2OK, Category::All, "fmi2FreeInstance()");
            // SAFETY: the pointer came from Box::into_raw in instantiate_with_model.
            unsafe { Component::free(c.cast()) }
        }
    }));
}

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

// ---------------------------------------------------------------------------------------
// Getting and setting variable values
// ---------------------------------------------------------------------------------------

fn get_values<T>(
    comp: &mut Component,
    ty: VarType,
    vrs: &[u32],
    out: &mut [T],
    conv: impl Fn(f64) -> T,
) -> Outcome {
    comp.refresh_model_exchange()?;
    for (&vr, slot) in vrs.iter().zip(out.iter_mut()) {
        let var = comp.variable(ty, vr)?;
        if var.is_continuous_state() && !comp.instance.has_ode() {
            return Err(format!(
                "{} is defined after initialization (the independent coordinates are chosen at the initial equilibrium)",
                var.name
            ));
        }
        *slot = conv(comp.instance.value(var));
    }
    Ok(fmi2OK)
}

/// Checks every value first, then writes them all: a failing call changes nothing.
fn set_values<T: Copy>(
    comp: &mut Component,
    ty: VarType,
    vrs: &[u32],
    values: &[T],
    conv: impl Fn(T) -> f64,
) -> Outcome {
    for (&vr, &v) in vrs.iter().zip(values) {
        comp.check_set(ty, vr, conv(v))?;
    }
    for (&vr, &v) in vrs.iter().zip(values) {
        let (slot, value) = comp.check_set(ty, vr, conv(v))?;
        comp.set_value(ty, vr, slot, value)?;
    }
    Ok(fmi2OK)
}

fn integer_of(v: f64) -> fmi2Integer {
    // `as` saturates (and maps NaN to 0): no UB, no panic.
    v.round() as fmi2Integer
}

fn boolean_of(v: f64) -> fmi2Boolean {
    if v != 0.0 { fmi2True } else { fmi2False }
}

/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Real,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_REAL, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let out = slice_out(value, nvr, "value[]")?;
            get_values(comp, VarType::Real, vrs, out, |v| v)
        })
    }
}

/// Integer variables are stored as f64; they are rounded to the nearest `int`.
///
/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Integer,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_INTEGER, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let out = slice_out(value, nvr, "value[]")?;
            get_values(comp, VarType::Integer, vrs, out, integer_of)
        })
    }
}

/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2Boolean,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_BOOLEAN, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let out = slice_out(value, nvr, "value[]")?;
            get_values(comp, VarType::Boolean, vrs, out, boolean_of)
        })
    }
}

/// hydromech models have no String variables: any value reference is an error.
///
/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *mut fmi2String,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_STRING, format_args!("nvr={nvr}"), |_| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            slice_out(value, nvr, "value[]")?;
            match vrs.first() {
                Some(vr) => Err(format!("no String variable has value reference {vr}")),
                None => Ok(fmi2OK),
            }
        })
    }
}

/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetReal(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Real,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_REAL, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let values = slice_in(value, nvr, "value[]")?;
            set_values(comp, VarType::Real, vrs, values, |v| v)
        })
    }
}

/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetInteger(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Integer,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_INTEGER, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let values = slice_in(value, nvr, "value[]")?;
            set_values(comp, VarType::Integer, vrs, values, f64::from)
        })
    }
}

/// Any non-zero value is true (C convention).
///
/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetBoolean(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2Boolean,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_BOOLEAN, format_args!("nvr={nvr}"), |comp| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            let values = slice_in(value, nvr, "value[]")?;
            set_values(comp, VarType::Boolean, vrs, values, |v| {
                if v != fmi2False { 1.0 } else { 0.0 }
            })
        })
    }
}

/// hydromech models have no String variables: any value reference is an error.
///
/// # Safety
/// FMI calling conventions: `vr` and `value` hold `nvr` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetString(
    c: fmi2Component,
    vr: *const fmi2ValueReference,
    nvr: usize,
    value: *const fmi2String,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_STRING, format_args!("nvr={nvr}"), |_| {
            let vrs = slice_in(vr, nvr, "vr[]")?;
            slice_in(value, nvr, "value[]")?;
            match vrs.first() {
                Some(vr) => Err(format!("no String variable has value reference {vr}")),
                None => Ok(fmi2OK),
            }
        })
    }
}

// ---------------------------------------------------------------------------------------
// Getting and setting the internal FMU state
// ---------------------------------------------------------------------------------------

/// Saves the complete state. `*FMUstate == NULL` allocates a new state object, otherwise
/// the given one (which must be ours) is overwritten.
///
/// # Safety
/// FMI calling conventions; `*FMUstate` is NULL or a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::GET_FMU_STATE, format_args!(""), |comp| {
            comp.capture_to_slot(out_ref(FMUstate, "FMUstate")?)?;
            Ok(fmi2OK)
        })
    }
}

/// Restores a state saved by `fmi2GetFMUstate` or `fmi2DeSerializeFMUstate` (also one saved
/// by another instance of the same model), including the call-sequence state.
///
/// # Safety
/// FMI calling conventions; `FMUstate` is a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SetFMUstate(c: fmi2Component, FMUstate: fmi2FMUstate) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SET_FMU_STATE, format_args!(""), |comp| {
            let st = match FmuState::from_ptr(FMUstate) {
                Some(st) => st,
                None if FMUstate.is_null() => return Err("FMUstate is NULL".into()),
                None => return Err("FMUstate is not an FMU state of this FMU".into()),
            };
            comp.restore_logged(st)?;
            Ok(fmi2OK)
        })
    }
}

/// Frees a state and sets `*FMUstate` to NULL; `FMUstate == NULL` and `*FMUstate == NULL`
/// are no-ops.
///
/// # Safety
/// FMI calling conventions; `*FMUstate` is NULL or a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2FreeFMUstate(
    c: fmi2Component,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::FREE_FMU_STATE, format_args!(""), |_| {
            FmuState::free_slot(FMUstate)?;
            Ok(fmi2OK)
        })
    }
}

/// # Safety
/// FMI calling conventions; `FMUstate` is a state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SerializedFMUstateSize(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    size: *mut usize,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(c, sm::SERIALIZED_FMU_STATE_SIZE, format_args!(""), |_| {
            let st = FmuState::from_ptr(FMUstate)
                .ok_or("FMUstate is NULL or not an FMU state of this FMU")?;
            *out_ref(size, "size")? = st.serialized_len();
            Ok(fmi2OK)
        })
    }
}

/// Writes the pointer-free byte form of a state (format in `fmu_state.rs`); `size` must be
/// exactly what `fmi2SerializedFMUstateSize` returned.
///
/// # Safety
/// FMI calling conventions; `serializedState` holds `size` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2SerializeFMUstate(
    c: fmi2Component,
    FMUstate: fmi2FMUstate,
    serializedState: *mut fmi2Byte,
    size: usize,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::SERIALIZE_FMU_STATE,
            format_args!("size={size}"),
            |_| {
                let st = FmuState::from_ptr(FMUstate)
                    .ok_or("FMUstate is NULL or not an FMU state of this FMU")?;
                let out = slice_out(serializedState.cast::<u8>(), size, "serializedState")?;
                st.serialize_into(out, "fmi2SerializedFMUstateSize")?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Checks and decodes serialized bytes (magic, versions, GUID, dimensions, checksums) into
/// a state object: a new one if `*FMUstate == NULL`, otherwise the given one.
///
/// # Safety
/// FMI calling conventions; `serializedState` holds `size` bytes; `*FMUstate` is NULL or a
/// state from this FMU.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2DeSerializeFMUstate(
    c: fmi2Component,
    serializedState: *const fmi2Byte,
    size: usize,
    FMUstate: *mut fmi2FMUstate,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::DESERIALIZE_FMU_STATE,
            format_args!("size={size}"),
            |comp| {
                let slot = out_ref(FMUstate, "FMUstate")?;
                let bytes = slice_in(serializedState.cast::<u8>(), size, "serializedState")?;
                let decoded = FmuState::deserialize(bytes, &comp.model)?;
                FmuState::store_in_slot(slot, decoded)?;
                Ok(fmi2OK)
            },
        )
    }
}

/// Model Exchange: the derivatives and outputs `vUnknown_ref` along `dvKnown` of the
/// continuous states and inputs `vKnown_ref` ([`super::directional`]). Co-Simulation
/// declares `providesDirectionalDerivative="false"` and gets `fmi2Error`.
///
/// # Safety
/// `c` is NULL or from `fmi2Instantiate`; the reference and value arrays hold `nUnknown`
/// and `nKnown` elements.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fmi2GetDirectionalDerivative(
    c: fmi2Component,
    vUnknown_ref: *const fmi2ValueReference,
    nUnknown: usize,
    vKnown_ref: *const fmi2ValueReference,
    nKnown: usize,
    dvKnown: *const fmi2Real,
    dvUnknown: *mut fmi2Real,
) -> fmi2Status {
    // SAFETY: FMI calling conventions.
    unsafe {
        guarded(
            c,
            sm::GET_DIRECTIONAL_DERIVATIVE,
            format_args!("nUnknown={nUnknown}, nKnown={nKnown}"),
            |comp| {
                let unknowns = slice_in(vUnknown_ref, nUnknown, "vUnknown_ref[]")?;
                let knowns = slice_in(vKnown_ref, nKnown, "vKnown_ref[]")?;
                let seed = slice_in(dvKnown, nKnown, "dvKnown[]")?;
                let out = slice_out(dvUnknown, nUnknown, "dvUnknown[]")?;
                comp.directional_derivative(unknowns, knowns, seed, out)?;
                Ok(fmi2OK)
            },
        )
    }
}

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

fn set_input_derivatives(
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

fn input_derivative_slot(
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

fn do_step(comp: &mut Component, t: f64, h: f64) -> Outcome {
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
fn status_unavailable(comp: &Component, f: FmiFunction, s: fmi2StatusKind) -> Outcome {
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
